package workspaceapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Retry bounds: what New uses unless WithRetries says otherwise.
const (
	// DefaultAttempts is how many times a request is sent at most.
	DefaultAttempts = 3
	// DefaultMaxRetryWait is the longest Retry-After the client waits out;
	// an answer asking for longer is returned as it is.
	DefaultMaxRetryWait = 30 * time.Second
)

// Option tunes New.
type Option func(*transport)

// HTTPClient sends requests through c (its timeout, proxy, TLS settings);
// http.DefaultClient otherwise.
func HTTPClient(c *http.Client) Option { return func(t *transport) { t.http = c } }

// Retries sets how many times a request is sent at most (1: never
// retried) and the longest Retry-After waited out.
func Retries(attempts int, maxWait time.Duration) Option {
	return func(t *transport) { t.attempts, t.maxWait = max(1, attempts), maxWait }
}

// IdempotencyKeys makes the Idempotency-Key of a write that has none
// (default: 32 random hexadecimal characters).
func IdempotencyKeys(newKey func() string) Option {
	return func(t *transport) { t.newKey = newKey }
}

// New returns a client of the API at baseURL (https://<host>, without
// /workspaceapi) acting with apiKey (wk_...). Every call of the client:
//   - sends Authorization: Bearer apiKey;
//   - gives a POST, PUT, PATCH or DELETE without an Idempotency-Key a new
//     one, the same for each of its attempts, so a retry is never applied twice;
//   - retries, up to the attempts of Retries (DefaultAttempts), a 429
//     or 503, or a 409 with Retry-After (the same write still running),
//     after the Retry-After it gives (at most DefaultMaxRetryWait), and a
//     request whose connection failed, after a short backoff;
//   - returns an answer of 400 or more as an error, *APIError.
func New(baseURL, apiKey string, opts ...Option) (*ClientWithResponses, error) {
	t := &transport{apiKey: apiKey, http: http.DefaultClient, attempts: DefaultAttempts,
		maxWait: DefaultMaxRetryWait, newKey: randomKey, sleep: sleepCtx}
	for _, o := range opts {
		o(t)
	}
	return NewClientWithResponses(strings.TrimSuffix(baseURL, "/"), WithHTTPClient(t))
}

// transport is the HttpRequestDoer of New's clients.
type transport struct {
	apiKey   string
	http     *http.Client
	attempts int
	maxWait  time.Duration
	newKey   func() string
	sleep    func(context.Context, time.Duration) error
}

// randomKey is an Idempotency-Key: 128 random bits in hexadecimal.
func randomKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Do sends req as New describes.
func (t *transport) Do(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		_ = req.Body.Close()
	}
	req.Header.Set("Authorization", "Bearer "+t.apiKey)
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		if req.Header.Get("Idempotency-Key") == "" {
			req.Header.Set("Idempotency-Key", t.newKey())
		}
	}
	ctx := req.Context()
	for attempt := 1; ; attempt++ {
		try := req.Clone(ctx)
		if body != nil {
			try.Body = io.NopCloser(bytes.NewReader(body))
			try.ContentLength = int64(len(body))
		}
		resp, err := t.http.Do(try)
		if err != nil {
			// A connection that failed may or may not have delivered the
			// request: a write carries its Idempotency-Key, so sending it
			// again is safe.
			if attempt >= t.attempts || ctx.Err() != nil {
				return nil, err
			}
			if err := t.sleep(ctx, time.Duration(100<<attempt)*time.Millisecond); err != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		const most = 1 << 20 // error bodies are one short sentence
		data, err := io.ReadAll(io.LimitReader(resp.Body, most))
		_ = resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("workspaceapi: reading the %d answer: %w", resp.StatusCode, err)
		}
		apiErr := newAPIError(resp.StatusCode, resp.Header, data)
		if attempt >= t.attempts || !retryable(apiErr) || apiErr.RetryAfter > t.maxWait {
			return nil, apiErr
		}
		if err := t.sleep(ctx, apiErr.RetryAfter); err != nil {
			return nil, errors.Join(apiErr, err)
		}
	}
}

// retryable reports whether the API asks for the request again: throttled
// (429), unavailable (503), or the same Idempotency-Key still running (409
// with Retry-After; a 409 without it is final).
func retryable(e *APIError) bool {
	switch e.Status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusConflict:
		return e.Header.Get("Retry-After") != ""
	}
	return false
}
