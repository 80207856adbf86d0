package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Headers of idempotency keys (docs/idempotency.md).
const (
	// IdempotencyKeyHeader is the request header that names a write's
	// idempotency key.
	IdempotencyKeyHeader = "Idempotency-Key"
	// IdempotentReplayedHeader marks an answer handed back from an earlier
	// request with the same idempotency key.
	IdempotentReplayedHeader = "Idempotent-Replayed"
)

// IdempotencyStore keeps idempotency keys and their answers
// (shared/dynamo's Store).
type IdempotencyStore interface {
	ClaimIdempotencyKey(ctx context.Context, k workspace.IdempotencyKey, fp, claim string, now time.Time) (workspace.IdempotencyRecord, bool, error)
	KeepIdempotentAnswer(ctx context.Context, k workspace.IdempotencyKey, claim string, a workspace.IdempotentAnswer, now time.Time) error
	ReleaseIdempotencyKey(ctx context.Context, k workspace.IdempotencyKey, claim string) error
}

// Idempotency is what a function that serves writes needs to honour their
// Idempotency-Key header: where keys are kept, and the clock that dates
// them. The zero value (ReadOnly) serves no writes: a write with the header
// that reaches it anyway answers 500, never runs unprotected.
type Idempotency struct {
	Store IdempotencyStore
	Clock workspace.Clock
}

// ReadOnly is the Idempotency of a function whose routes are all reads.
var ReadOnly = Idempotency{}

// isWrite reports whether method is one of the writes that take an
// idempotency key.
func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// wrap returns next behind idempotency keys: every write route of the
// function, whatever its group registers, takes the header, since Lambda
// wraps the group's whole handler. A request without the header (and every
// read) goes straight to next: no storage call, no cost.
func (i Idempotency) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys := r.Header.Values(IdempotencyKeyHeader)
		if len(keys) == 0 || !isWrite(r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			return i.serve(w, r, keys, next)
		}).ServeHTTP(w, r)
	})
}

// serve runs a write that carries idempotency keys: the first request with
// a key runs and its answer is kept (unless 5xx); a repeat gets that answer
// again, a 409 while the first runs, or a 422 when it is another request.
func (i Idempotency) serve(w http.ResponseWriter, r *http.Request, keys []string, next http.Handler) error {
	if len(keys) > 1 {
		return workspace.Invalid("send at most one %s header", IdempotencyKeyHeader)
	}
	if err := workspace.CheckIdempotencyKey(keys[0]); err != nil {
		return err
	}
	caller, ok := callerFrom(r)
	if !ok {
		next.ServeHTTP(w, r) // answers 401; nothing to key it by
		return nil
	}
	if i.Store == nil || i.Clock == nil {
		return errors.New("a write with an Idempotency-Key reached a function without an idempotency store")
	}
	body, whole, err := readBody(r)
	if err != nil {
		return err
	}
	if !whole {
		// Over MaxBodyBytes: the handler answers 413 without doing
		// anything, which needs no key.
		next.ServeHTTP(w, r)
		return nil
	}
	k := workspace.IdempotencyKey{WorkspaceID: caller.WorkspaceID, KeyID: caller.KeyID, Key: keys[0]}
	fp := workspace.RequestFingerprint(r.Method, r.URL.EscapedPath(), r.URL.RawQuery, body)
	claim := rand.Text()
	prior, claimed, err := i.Store.ClaimIdempotencyKey(r.Context(), k, fp, claim, i.Clock.Now())
	if err != nil {
		return err
	}
	if !claimed {
		answer, err := prior.Repeat(fp)
		if errors.Is(err, workspace.ErrIdempotencyKeyInUse) {
			w.Header().Set("Retry-After", RetryAfterSeconds)
		}
		if err != nil {
			return err
		}
		replay(w, answer)
		return nil
	}
	i.run(w, r, k, claim, next)
	return nil
}

// run runs next under the claim and keeps its answer, or releases the key
// when it answers 5xx or panics. The answer reaches the client either way:
// when it cannot be kept (storage failed), the key stays claimed until its
// lease ends. The request's writes mark the record in their transactions
// (workspace.IdempotencyClaim), so a repeat after the lease runs again only
// when none of them landed, and otherwise answers
// workspace.ErrIdempotentAnswerLost.
func (i Idempotency) run(w http.ResponseWriter, r *http.Request, k workspace.IdempotencyKey, claim string, next http.Handler) {
	// Keeping or releasing must happen even when the request's deadline
	// has passed; the storage client bounds each call on its own.
	ctx := context.WithoutCancel(r.Context())
	rec := &recorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			i.release(ctx, r, k, claim)
			panic(p)
		}
	}()
	next.ServeHTTP(rec, r.WithContext(workspace.WithIdempotencyClaim(r.Context(), &workspace.IdempotencyClaim{Key: k, Token: claim})))
	if rec.status() >= http.StatusInternalServerError {
		i.release(ctx, r, k, claim)
		return
	}
	answer := workspace.IdempotentAnswer{
		Status: rec.status(), ContentType: w.Header().Get("Content-Type"), Location: w.Header().Get("Location"),
		Body: rec.kept(),
	}
	if workspace.ContainsKey(string(answer.Body)) {
		// The last guard of docs/bounds.md, for what is stored: a key is
		// never kept, even where its writer did not say what to keep.
		logIdempotency(ctx, r, "a kept answer held key-shaped text; it was redacted", errors.New("key-shaped text"))
		answer.Body = []byte(workspace.RedactKeys(string(answer.Body)))
	}
	if err := i.Store.KeepIdempotentAnswer(ctx, k, claim, answer, i.Clock.Now()); err != nil {
		logIdempotency(ctx, r, "keep the answer of an idempotency key", err)
	}
}

// release frees the key of a request that will not be kept.
func (i Idempotency) release(ctx context.Context, r *http.Request, k workspace.IdempotencyKey, claim string) {
	if err := i.Store.ReleaseIdempotencyKey(ctx, k, claim); err != nil {
		logIdempotency(ctx, r, "release an idempotency key", err)
	}
}

// logIdempotency logs a failure to keep or release a key, with who and
// which request, never the key itself.
func logIdempotency(ctx context.Context, r *http.Request, msg string, err error) {
	attrs := []any{"method", r.Method, "path", workspace.RedactKeys(r.URL.Path), "error", workspace.RedactKeys(err.Error())}
	if c, ok := callerFrom(r); ok {
		attrs = append(attrs, "workspaceId", c.WorkspaceID, "keyId", c.KeyID)
	}
	if rc, ok := gatewayContext(r); ok {
		attrs = append(attrs, "requestId", rc.RequestID)
	}
	slog.ErrorContext(ctx, msg, attrs...)
}

// readBody reads r's body up to MaxBodyBytes+1 and puts it back for the
// handler; whole is false when it is larger (the handler reads the rest).
func readBody(r *http.Request) (body []byte, whole bool, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true, nil
	}
	body, err = io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, false, workspace.Invalid("the request body could not be read")
	}
	if len(body) > MaxBodyBytes {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		return nil, false, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true, nil
}

// replay writes a kept answer again, marked as such.
func replay(w http.ResponseWriter, a workspace.IdempotentAnswer) {
	h := w.Header()
	for name, v := range map[string]string{"Content-Type": a.ContentType, "Location": a.Location} {
		if v != "" {
			h.Set(name, v)
		}
	}
	h.Set(IdempotentReplayedHeader, "true")
	w.WriteHeader(a.Status)
	if len(a.Body) > 0 {
		_, _ = w.Write(a.Body)
	}
}

// recorder passes a handler's answer through and keeps a copy of its
// status and body, or the body its writer said to keep instead
// (keepInstead: a new key's answer without the key).
type recorder struct {
	http.ResponseWriter
	code    int
	body    bytes.Buffer
	instead []byte
	swapped bool
}

// keepInstead keeps body as the answer's in place of the one sent.
func (rec *recorder) keepInstead(body []byte) { rec.instead, rec.swapped = body, true }

// kept is the body to keep: the one sent, unless its writer said otherwise.
func (rec *recorder) kept() []byte {
	if rec.swapped {
		return rec.instead
	}
	return rec.body.Bytes()
}

// WriteHeader records the status and passes it on; only the first counts.
func (rec *recorder) WriteHeader(code int) {
	if rec.code == 0 {
		rec.code = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

// Write records b and passes it on.
func (rec *recorder) Write(b []byte) (int, error) {
	if rec.code == 0 {
		rec.code = http.StatusOK
	}
	rec.body.Write(b)
	return rec.ResponseWriter.Write(b)
}

// status is the answer's status: 200 when the handler wrote nothing.
func (rec *recorder) status() int {
	if rec.code == 0 {
		return http.StatusOK
	}
	return rec.code
}
