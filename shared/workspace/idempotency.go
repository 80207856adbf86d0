package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// Idempotency keys (docs/idempotency.md): a write sent with one is run at
// most once per key; its first completed answer is kept and handed back to
// every repeat of the same request.
const (
	// MaxIdempotencyKeyLen is the longest idempotency key, in characters.
	MaxIdempotencyKeyLen = 255
	// IdempotencyKeep is how long a completed answer is kept for repeats.
	IdempotencyKeep = 24 * time.Hour
	// IdempotencyLease is how long a running request holds its key. It is
	// longer than any write function's timeout (a test holds template.yaml
	// to it), so a request still running always holds its key, and a key
	// whose request crashed (its function timed out or died) is free again
	// at the latest this long after the crash.
	IdempotencyLease = 60 * time.Second
)

// Errors of repeated idempotency keys.
var (
	// ErrIdempotencyKeyReused is the 422 of a key sent again with another
	// method, path, query or body than its first request.
	ErrIdempotencyKeyReused = Unprocessable("this Idempotency-Key was already used for another request " +
		"(another method, path or body); use a new key for a new request")
	// ErrIdempotencyKeyInUse is the 409 of a repeat that arrives while the
	// first request with its key is still running.
	ErrIdempotencyKeyInUse = Conflict("a request with this Idempotency-Key is still running; retry shortly to get its answer")
)

// CheckIdempotencyKey returns a KindInvalid error unless k is 1 to
// MaxIdempotencyKeyLen visible ASCII characters (0x21 to 0x7E: no space, no
// control character, nothing outside ASCII). The message never repeats the
// key, which could be anything a client put there.
func CheckIdempotencyKey(k string) error {
	if k == "" || len(k) > MaxIdempotencyKeyLen {
		return errBadIdempotencyKey
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7E {
			return errBadIdempotencyKey
		}
	}
	return nil
}

var errBadIdempotencyKey = Invalid("the Idempotency-Key header must be 1 to %d visible ASCII characters", MaxIdempotencyKeyLen)

// IdempotencyKey names one idempotency key: a client's key is its own within
// the API key that sent it, in that key's workspace, so two API keys (or two
// workspaces) never see each other's answers.
type IdempotencyKey struct {
	WorkspaceID, KeyID string
	// Key is the Idempotency-Key header's value.
	Key string
}

// RequestFingerprint is what tells a repeat from another request under the
// same idempotency key: the SHA-256 (hex) of the method, the path, the query
// and the body, each length-prefixed so no two requests share one.
func RequestFingerprint(method, path, query string, body []byte) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(method), []byte(path), []byte(query), body} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// IdempotentAnswer is a kept answer: what a repeat gets again.
type IdempotentAnswer struct {
	Status int
	// ContentType and Location are the answer's headers that matter to a
	// client; the others are the same on every answer (Cache-Control).
	ContentType, Location string
	Body                  []byte
}

// IdempotencyRecord is what is stored under an idempotency key: the
// fingerprint of its request and, once that request completed, its answer.
type IdempotencyRecord struct {
	Fingerprint string
	// Done is true once the answer is kept; false while the first request
	// runs.
	Done   bool
	Answer IdempotentAnswer
	// Lost is true when the first request applied writes and died (or
	// failed to keep its answer) past its lease: nothing is run again.
	Lost bool
}

// Repeat returns what a repeat of a request with fingerprint fp gets under a
// key that holds r: the kept answer, ErrIdempotencyKeyReused when the
// request differs (whether or not the first one is done),
// ErrIdempotentAnswerLost when the first applied its writes but its answer
// was lost, or ErrIdempotencyKeyInUse while the first is running.
func (r IdempotencyRecord) Repeat(fp string) (IdempotentAnswer, error) {
	switch {
	case r.Fingerprint != fp:
		return IdempotentAnswer{}, ErrIdempotencyKeyReused
	case r.Lost:
		return IdempotentAnswer{}, ErrIdempotentAnswerLost
	case !r.Done:
		return IdempotentAnswer{}, ErrIdempotencyKeyInUse
	}
	return r.Answer, nil
}

// ErrIdempotentAnswerLost is the 409 of a repeat whose first request applied
// its writes but whose answer could not be kept (storage failed as it
// answered) and whose lease has ended: the request is never run again under
// its key, since its writes stand.
var ErrIdempotentAnswerLost = Conflict("the request with this Idempotency-Key was applied, but its answer could not be kept; " +
	"it is not run again: read the current state instead")

// IdempotencyClaim is the claim a running request holds on its
// Idempotency-Key (the claim token of the record it wrote). Its writes carry
// a mark on the record in their own transactions (Applying), so a repeat
// after the lease of a request that died without keeping its answer knows
// whether its writes landed.
type IdempotencyClaim struct {
	Key   IdempotencyKey
	Token string

	mu     sync.Mutex
	marked bool
}

// Applying runs one transaction of the claiming request: write gets mark
// true (carry the record's mark) until a transaction that carried it
// committed, and reports whether it did; transactions that carry the mark
// run one at a time, and the ones after it none, so the concurrent
// transactions of a batch never meet on the record.
func (c *IdempotencyClaim) Applying(write func(mark bool) (committed bool)) {
	c.mu.Lock()
	if c.marked {
		c.mu.Unlock()
		write(false)
		return
	}
	defer c.mu.Unlock()
	c.marked = write(true)
}

// idempotencyClaimKey is the context key of a request's claim.
type idempotencyClaimKey struct{}

// WithIdempotencyClaim returns ctx carrying c, for the writes of the
// request that holds it.
func WithIdempotencyClaim(ctx context.Context, c *IdempotencyClaim) context.Context {
	return context.WithValue(ctx, idempotencyClaimKey{}, c)
}

// IdempotencyClaimOf returns the claim of the request ctx belongs to, or nil
// for one sent without an Idempotency-Key (and for work that is no request).
func IdempotencyClaimOf(ctx context.Context) *IdempotencyClaim {
	c, _ := ctx.Value(idempotencyClaimKey{}).(*IdempotencyClaim)
	return c
}
