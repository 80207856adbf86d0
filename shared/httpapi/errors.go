package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// statusOf is the one table from domain error kinds to HTTP statuses.
var statusOf = map[workspace.Kind]int{
	workspace.KindInvalid:          http.StatusBadRequest,
	workspace.KindUnauthorized:     http.StatusUnauthorized,
	workspace.KindForbidden:        http.StatusForbidden,
	workspace.KindNotFound:         http.StatusNotFound,
	workspace.KindConflict:         http.StatusConflict,
	workspace.KindTooLarge:         http.StatusRequestEntityTooLarge,
	workspace.KindUnsupportedMedia: http.StatusUnsupportedMediaType,
	workspace.KindUnavailable:      http.StatusServiceUnavailable,
	workspace.KindUnprocessable:    http.StatusUnprocessableEntity,
}

// RetryAfterSeconds is the Retry-After of every 503: storage outages and
// lost races are short, and the client's own back-off takes over after.
const RetryAfterSeconds = "1"

// ErrorBody is the body of every error response: exactly one field.
type ErrorBody struct {
	Error string `json:"error"`
}

// Error writes err as {"error": "..."}. A domain error answers its kind's
// status and message; anything else is logged with the request's context and
// answered 500 with a generic message, so internals never reach the client.
// Being the one writer of errors, it is also the last safety net against
// echoing a key (docs/bounds.md): key-shaped text is redacted from the message
// and from what it logs, whatever put it there.
//
// A 503 (a dependency failed or kept losing races) tells the client when to
// try again with Retry-After.
func Error(w http.ResponseWriter, r *http.Request, err error) {
	if status, ok := statusOf[workspace.KindOf(err)]; ok {
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", RetryAfterSeconds)
		}
		JSON(w, status, ErrorBody{Error: workspace.RedactKeys(workspace.MessageOf(err))})
		return
	}
	attrs := []any{
		"method", r.Method,
		"path", workspace.RedactKeys(r.URL.Path),
		"error", workspace.RedactKeys(err.Error()),
	}
	if c, ok := callerFrom(r); ok {
		attrs = append(attrs, "workspaceId", c.WorkspaceID, "keyId", c.KeyID)
	}
	if rc, ok := gatewayContext(r); ok {
		attrs = append(attrs, "requestId", rc.RequestID)
	}
	slog.ErrorContext(r.Context(), "request failed", attrs...)
	JSON(w, http.StatusInternalServerError, ErrorBody{Error: "internal error"})
}

// NotFound answers 404 for a route the group does not serve.
func NotFound(w http.ResponseWriter, _ *http.Request) {
	JSON(w, http.StatusNotFound, ErrorBody{Error: "not found"})
}
