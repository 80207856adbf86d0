package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// JSON writes v as the JSON body of a response with the given status.
func JSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		slog.Error("encode response", "error", err)
		status, body = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	Body(w, status, "application/json", body)
}

// Body writes body, already encoded as contentType, as a response with the
// given status, behind the same last guard as JSON: no key-shaped text.
func Body(w http.ResponseWriter, status int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(withoutKeys(body))
}

// withoutKeys is the last guard of docs/bounds.md: no response body carries
// key-shaped text, whatever a request or a stored value put there. Every
// path that stores caller text refuses keys first, so this only fires on a
// gap, which it logs (without the key).
func withoutKeys(body []byte) []byte {
	if !bytes.Contains(body, []byte(workspace.KeyPrefix)) || !workspace.ContainsKey(string(body)) {
		return body
	}
	slog.Warn("a response held key-shaped text; it was redacted")
	return []byte(workspace.RedactKeys(string(body)))
}

// NoContent writes an empty 204 response.
func NoContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

// answerKeeper is a writer that keeps the answer of a write for its repeats
// (the idempotency recorder, idempotency.go). A body passed to keepInstead
// is kept in place of the one sent.
type answerKeeper interface{ keepInstead(body []byte) }

// CreatedKey writes the 201 of a new API key: v, a JSON object that holds
// no key, with the field "key" added holding plaintext. It is the one answer
// that carries a key (docs/api-keys.md: a new key is shown once); the rest
// of the body is held to withoutKeys like every other, and plaintext must be
// a well-formed key (base62 after the prefix: nothing to escape in JSON).
// Under an Idempotency-Key the answer is kept without "key": a key is never
// stored, so a repeat gets v alone.
func CreatedKey(w http.ResponseWriter, v any, plaintext string) {
	WithSecret(w, http.StatusCreated, v, "key", plaintext, workspace.WellFormedKey(plaintext))
}

// WithSecret writes status with v, a JSON object, and the field named
// field added holding secret, which is shown this once: under an
// Idempotency-Key the answer is kept without it, so a repeat gets v alone.
// wellFormed must tell that secret needs no escaping in JSON (a key, a
// webhook secret); otherwise it answers 500.
func WithSecret(w http.ResponseWriter, status int, v any, field, secret string, wellFormed bool) {
	body, err := json.Marshal(v)
	if err != nil || len(body) < 2 || body[len(body)-1] != '}' || !wellFormed {
		slog.Error("encode a response with a secret", "field", field, "error", err)
		JSON(w, http.StatusInternalServerError, map[string]string{"error": "internal error"})
		return
	}
	body = withoutKeys(body)
	if k, ok := w.(answerKeeper); ok {
		k.keepInstead(slices.Clone(body))
	}
	sep := ","
	if len(body) == 2 { // {}
		sep = ""
	}
	body = append(body[:len(body)-1], []byte(sep+`"`+field+`":"`+secret+`"}`)...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
