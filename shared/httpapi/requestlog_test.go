package httpapi_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/roundtrip"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// TestEveryRequestWritesOneStructuredLogLine holds the request log to what
// operators query: request id, workspace, key id (never the key), route,
// status, latency and the request's own storage round trips and read
// units; a 503 answers
// with Retry-After.
func TestEveryRequestWritesOneStructuredLogLine(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	mux := httpapi.NewMux()
	mux.HandleFunc("GET /workspaceapi/agents/{agentId}", func(w http.ResponseWriter, r *http.Request) {
		// Two reads at once, then one after them: three round trips, two in turn.
		endA, endB := roundtrip.Begin(r.Context()), roundtrip.Begin(r.Context())
		endA()
		endB()
		roundtrip.Begin(r.Context())()
		roundtrip.AddReadUnits(r.Context(), 1.5)
		httpapi.Error(w, r, workspace.ErrStorageUnavailable)
	})
	h := httpapi.Lambda(mux, httpapi.ReadOnly)
	const key = "wk_neverLoggedKey000000000000000000000001"
	res, err := h(t.Context(), events.APIGatewayProxyRequest{
		HTTPMethod: "GET", Path: "/workspaceapi/agents/agt_1", Resource: "/workspaceapi/agents/{agentId}",
		Headers: map[string]string{"Authorization": "Bearer " + key},
		RequestContext: events.APIGatewayProxyRequestContext{RequestID: "req-1", Authorizer: map[string]any{
			"workspaceId": "ws_1", "keyId": "key_1", "userId": "usr_1", "role": "admin", "scopes": "read", "teamId": "",
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	retryAfter := res.Headers["Retry-After"]
	if vs := res.MultiValueHeaders["Retry-After"]; len(vs) > 0 {
		retryAfter = vs[0]
	}
	if res.StatusCode != http.StatusServiceUnavailable || retryAfter == "" {
		t.Errorf("answer %d with headers %v %v, want 503 with Retry-After", res.StatusCode, res.Headers, res.MultiValueHeaders)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("logged %d lines, want one: %s", len(lines), buf.String())
	}
	if strings.Contains(lines[0], key) {
		t.Fatalf("the log line holds the key: %s", lines[0])
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"msg": "request", "requestId": "req-1", "workspaceId": "ws_1", "keyId": "key_1",
		"route": "GET /workspaceapi/agents/{agentId}", "status": 503.0,
		"dynamodbRoundTrips": 3.0, "dynamodbCriticalPath": 2.0, "readUnits": 1.5}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if _, ok := got["latencyMs"].(float64); !ok {
		t.Errorf("latencyMs = %v, want a number", got["latencyMs"])
	}
}
