package localgw_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/shared/limitevents"
)

func TestLocalEventsListsWhatWasPublishedToThisMachineOnly(t *testing.T) {
	bus := &limitevents.Recorder{Logger: discardLogger()}
	for _, detail := range []string{`{"eventId":"evt_1"}`, `{"eventId":"evt_2"}`} {
		if _, err := bus.PutEvents(context.Background(), &eventbridge.PutEventsInput{Entries: []types.PutEventsRequestEntry{
			{DetailType: aws.String("Agent Stopped"), Detail: aws.String(detail), Source: aws.String("workspaceapi")},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{}, localgw.Options{Events: bus})
	tests := []struct {
		name, method, remote, origin string
		wantStatus                   int
		wantBody                     string
	}{
		{"oldest first", "GET", "127.0.0.1:5000", "", 200,
			`{"events":[{"detail-type":"Agent Stopped","detail":{"eventId":"evt_1"}},{"detail-type":"Agent Stopped","detail":{"eventId":"evt_2"}}]}`},
		{"IPv6 loopback", "GET", "[::1]:5000", "", 200, ""},
		{"another machine", "GET", "192.0.2.1:5000", "", 403, `{"error":"the published events are listed to this machine only"}`},
		{"a web page of another origin", "GET", "127.0.0.1:5000", "https://evil.example", 403, `{"error":"the published events are not listed to a web page of another origin"}`},
		{"a page of this machine", "GET", "127.0.0.1:5000", "http://localhost:3000", 200, ""},
		{"POST", "POST", "127.0.0.1:5000", "", 405, `{"error":"use GET to list the published events"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/_local/events", nil)
			req.RemoteAddr = tc.remote
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, req)
			if rec.Code != tc.wantStatus || (tc.wantBody != "" && rec.Body.String() != tc.wantBody) {
				t.Errorf("got %d %s, want %d %s", rec.Code, rec.Body, tc.wantStatus, tc.wantBody)
			}
			if rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("headers %v, want JSON, not cached", rec.Header())
			}
		})
	}

	// A gateway without a local bus has no such path: the API's 404.
	plain := newGateway(t, loadTemplate(t), map[string]lambda.Handler{}, localgw.Options{})
	req := httptest.NewRequest(http.MethodGet, "/_local/events", nil)
	req.RemoteAddr = "127.0.0.1:5000"
	rec := httptest.NewRecorder()
	plain.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound {
		t.Errorf("without a bus: got %d %s, want 404", rec.Code, rec.Body)
	}
}
