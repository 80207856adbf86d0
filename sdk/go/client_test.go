package workspaceapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// answers serves the given answers in turn and records what it was sent.
type answers struct {
	mu      sync.Mutex
	replies []func(http.ResponseWriter)
	got     []*http.Request
	bodies  []string
}

func (a *answers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, _ := io.ReadAll(r.Body)
	a.got, a.bodies = append(a.got, r), append(a.bodies, string(b))
	reply := a.replies[min(len(a.got), len(a.replies))-1]
	reply(w)
}

func reply(status int, retryAfter, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// fakeClient is a client of srv whose waits are recorded, not slept.
func fakeClient(t *testing.T, a *answers, opts ...Option) (*ClientWithResponses, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	var waits []time.Duration
	opts = append([]Option{func(tr *transport) {
		tr.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	}}, opts...)
	c, err := New(srv.URL, "wk_test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, &waits
}

const teamBody = `{"id":"team_x","name":"X","createdAt":"2026-11-28T00:00:00.000Z"}`

func TestAWriteIsRetriedAfterRetryAfterUnderOneIdempotencyKey(t *testing.T) {
	a := &answers{replies: []func(http.ResponseWriter){
		reply(503, "2", `{"error":"service unavailable"}`),
		reply(409, "1", `{"error":"a request with this Idempotency-Key is still running"}`),
		reply(201, "", teamBody),
	}}
	c, waits := fakeClient(t, a)
	r, err := c.CreateTeamWithResponse(context.Background(), nil, TeamNameRequest{Name: "X"})
	if err != nil || r.StatusCode() != 201 {
		t.Fatalf("CreateTeam: %v", err)
	}
	if len(a.got) != 3 || *waits == nil || (*waits)[0] != 2*time.Second || (*waits)[1] != time.Second {
		t.Fatalf("%d requests, waits %v; want 3 requests after waits of 2s and 1s", len(a.got), *waits)
	}
	key := a.got[0].Header.Get("Idempotency-Key")
	for i, r := range a.got {
		if r.Header.Get("Idempotency-Key") != key || key == "" || r.Header.Get("Authorization") != "Bearer wk_test" || a.bodies[i] != `{"name":"X"}` {
			t.Fatalf("attempt %d: key %q (first %q), %q, body %q", i, r.Header.Get("Idempotency-Key"), key, r.Header.Get("Authorization"), a.bodies[i])
		}
	}
}

func TestTheCallersIdempotencyKeyIsKeptAndReadsHaveNone(t *testing.T) {
	a := &answers{replies: []func(http.ResponseWriter){reply(201, "", teamBody)}}
	c, _ := fakeClient(t, a)
	key := "mine-1"
	if _, err := c.CreateTeamWithResponse(context.Background(), &CreateTeamParams{IdempotencyKey: &key}, TeamNameRequest{Name: "X"}); err != nil {
		t.Fatal(err)
	}
	a.replies = []func(http.ResponseWriter){reply(200, "", `{"version":"1.0.0"}`)}
	_, _ = c.GetVersionWithResponse(context.Background())
	if got := a.got[0].Header.Get("Idempotency-Key"); got != key {
		t.Fatalf("Idempotency-Key %q, want the caller's %q", got, key)
	}
	if got := a.got[1].Header.Get("Idempotency-Key"); got != "" {
		t.Fatalf("a GET sent Idempotency-Key %q", got)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	for _, c := range []struct {
		name     string
		reply    func(http.ResponseWriter)
		opts     []Option
		requests int
		status   int
	}{
		{"503 every time: DefaultAttempts", reply(503, "1", `{"error":"service unavailable"}`), nil, DefaultAttempts, 503},
		{"429, one attempt allowed", reply(429, "1", `{"error":"too many requests"}`), []Option{Retries(1, time.Minute)}, 1, 429},
		{"Retry-After longer than the bound", reply(503, "120", `{"error":"service unavailable"}`), nil, 1, 503},
		{"409 without Retry-After is final", reply(409, "", `{"error":"a team with this name already exists"}`), nil, 1, 409},
		{"400 is final", reply(400, "", `{"error":"name is required"}`), nil, 1, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &answers{replies: []func(http.ResponseWriter){c.reply}}
			cl, _ := fakeClient(t, a, c.opts...)
			_, err := cl.CreateTeamWithResponse(context.Background(), nil, TeamNameRequest{Name: "X"})
			var e *APIError
			if !errors.As(err, &e) || e.Status != c.status || e.Message == "" {
				t.Fatalf("error %v, want an *APIError %d with the API's message", err, c.status)
			}
			if len(a.got) != c.requests {
				t.Fatalf("%d requests, want %d", len(a.got), c.requests)
			}
		})
	}
}

func TestAnErrorBodyThatIsNotJSONKeepsItsStatus(t *testing.T) {
	a := &answers{replies: []func(http.ResponseWriter){func(w http.ResponseWriter) {
		w.WriteHeader(502)
		_, _ = io.WriteString(w, "<html>Bad Gateway</html>")
	}}}
	c, _ := fakeClient(t, a)
	_, err := c.GetVersionWithResponse(context.Background())
	var e *APIError
	if !errors.As(err, &e) || e.Status != 502 || e.Message != "<html>Bad Gateway</html>" {
		t.Fatalf("error %#v", err)
	}
}

func TestWaitingStopsWithTheContext(t *testing.T) {
	a := &answers{replies: []func(http.ResponseWriter){reply(503, "30", `{"error":"service unavailable"}`)}}
	srv := httptest.NewServer(a)
	defer srv.Close()
	c, err := New(srv.URL, "wk_test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = c.GetVersionWithResponse(ctx)
	var e *APIError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &e) || e.Status != 503 {
		t.Fatalf("error %v; want the 503 and the context's deadline", err)
	}
}
