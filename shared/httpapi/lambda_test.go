package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// testGroup is an endpoint group with one route per kind of response.
func testGroup() http.Handler {
	mux := httpapi.NewMux()
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, _ *http.Request) {
		httpapi.JSON(w, http.StatusOK, map[string]int{"n": 1})
	})
	mux.HandleFunc("POST /created", func(w http.ResponseWriter, r *http.Request) {
		var b body
		if err := httpapi.Decode(r, &b); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		httpapi.JSON(w, http.StatusCreated, b)
	})
	mux.HandleFunc("DELETE /gone", func(w http.ResponseWriter, _ *http.Request) { httpapi.NoContent(w) })
	mux.HandleFunc("PUT /things/{id}", func(w http.ResponseWriter, r *http.Request) {
		httpapi.Error(w, r, workspace.NotFound("thing %q not found", r.PathValue("id")))
	})
	mux.HandleFunc("GET /invalid", func(w http.ResponseWriter, r *http.Request) {
		httpapi.Error(w, r, workspace.Invalid("bad"))
	})
	mux.HandleFunc("GET /broken", func(w http.ResponseWriter, r *http.Request) {
		httpapi.Error(w, r, errors.New("storage failed"))
	})
	return mux
}

// invoke sends an API Gateway proxy event through httpapi.Lambda.
func invoke(t *testing.T, method, path, contentType, body string) events.APIGatewayProxyResponse {
	t.Helper()
	event := events.APIGatewayProxyRequest{
		HTTPMethod: method, Path: path, Body: body,
		Headers:           map[string]string{},
		MultiValueHeaders: map[string][]string{},
	}
	if contentType != "" {
		event.Headers["Content-Type"] = contentType
		event.MultiValueHeaders["Content-Type"] = []string{contentType}
	}
	resp, err := httpapi.Lambda(testGroup(), httpapi.ReadOnly)(context.Background(), event)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// header returns a response header as the proxy response carries it.
func header(resp events.APIGatewayProxyResponse, name string) string {
	if v, ok := resp.MultiValueHeaders[name]; ok && len(v) > 0 {
		return strings.Join(v, ",")
	}
	return resp.Headers[name]
}

func TestEveryResponseIsNoStore(t *testing.T) {
	tests := []struct {
		name, method, path, contentType, body string
		wantStatus                            int
	}{
		{"200", "GET", "/ok", "", "", 200},
		{"201", "POST", "/created", "application/json", `{"count": 1}`, 201},
		{"204", "DELETE", "/gone", "", "", 204},
		{"400 from the decoder", "POST", "/created", "application/json", `{"count": null}`, 400},
		{"400 from a handler", "GET", "/invalid", "", "", 400},
		{"404 for an unknown route", "GET", "/nowhere", "", "", 404},
		{"413", "POST", "/created", "", `{"any": "` + strings.Repeat("x", httpapi.MaxBodyBytes) + `"}`, 413},
		{"415", "POST", "/created", "text/plain", `{"count": 1}`, 415},
		{"500", "GET", "/broken", "", "", 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := invoke(t, tc.method, tc.path, tc.contentType, tc.body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status = %d, want %d (body %s)", resp.StatusCode, tc.wantStatus, resp.Body)
			}
			if got := header(resp, "Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
		})
	}
}

func TestUnsupportedMediaTypeIsAnErrorBody(t *testing.T) {
	resp := invoke(t, "POST", "/created", "application/xml", `<count>1</count>`)
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("status = %d, want 415", resp.StatusCode)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(resp.Body), &got); err != nil || len(got) != 1 || got["error"] == "" {
		t.Errorf("body = %s, want {\"error\": \"...\"}", resp.Body)
	}
	if ct := header(resp, "Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
}

// captureLogs sends slog's default logger to a buffer for the test.
func captureLogs(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return &buf
}

func TestErrorNeverEchoesAKey(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		err        error
		wantStatus int
		wantBody   string
	}{
		{"a domain message that quotes a key", "/teams/x", workspace.NotFound("team %q not found", testKey), 404,
			`{"error":"team \"[redacted key]\" not found"}`},
		{"an internal error that quotes a key", "/teams/x", errors.New("lookup " + testKey + " failed"), 500,
			`{"error":"internal error"}`},
		{"an internal error on a path that holds a key", "/agents/" + testKey, errors.New("storage failed"), 500,
			`{"error":"internal error"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs := captureLogs(t)
			h := httpapi.Lambda(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				httpapi.Error(w, r, tc.err)
			}), httpapi.ReadOnly)
			resp, err := h(context.Background(), events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: tc.path})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantStatus || resp.Body != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", resp.StatusCode, resp.Body, tc.wantStatus, tc.wantBody)
			}
			if workspace.ContainsKey(logs.String()) {
				t.Errorf("log line echoes a key: %s", logs)
			}
			if tc.wantStatus == 500 && !strings.Contains(logs.String(), "request failed") {
				t.Errorf("internal error not logged: %q", logs)
			}
		})
	}
}

// A path the mux would clean is never redirected (a 307 with an HTML body,
// which a client would follow with its PUT elsewhere): an id of "." or ".."
// is looked up like any other, and an empty segment is the JSON 404.
func TestPathsTheMuxWouldCleanAreNotRedirected(t *testing.T) {
	for _, tc := range []struct {
		path, wantBody string
	}{
		{"/things/.", `{"error":"thing \".\" not found"}`},
		{"/things/..", `{"error":"thing \"..\" not found"}`},
		{"/things//", `{"error":"not found"}`},
		{"/things/./x", `{"error":"not found"}`},
		{"//things/x", `{"error":"not found"}`},
	} {
		resp := invoke(t, http.MethodPut, tc.path, "application/json", `{}`)
		if resp.StatusCode != http.StatusNotFound || resp.Body != tc.wantBody || header(resp, "Content-Type") != "application/json" {
			t.Errorf("PUT %s: %d %s %q, want 404 %s", tc.path, resp.StatusCode, header(resp, "Content-Type"), resp.Body, tc.wantBody)
		}
	}
}
