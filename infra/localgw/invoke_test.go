package localgw_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/localgw"
)

func TestLocalInvoke(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		target     string
		body       string
		wantStatus int
		wantBody   string // for 200
		wantError  string // for errors
	}{
		{"returns the function's result", "POST", "/_local/invoke/InvitesFunction", `{"records": [1, 2]}`, 200, `{"echo":{"records":[1,2]}}`, ""},
		{"empty body is an empty event", "POST", "/_local/invoke/InvitesFunction", "", 200, `{"echo":{}}`, ""},
		{"function error is 502, its message only in the log", "POST", "/_local/invoke/AuthorizerFunction", `{}`, 502, "", "the function failed; its error is in the runner's log"},
		{"unknown function is 404", "POST", "/_local/invoke/NoSuchFunction", `{}`, 404, "", `unknown function "NoSuchFunction"`},
		{"missing function id is 404", "POST", "/_local/invoke", `{}`, 404, "", `unknown function ""`},
		{"GET is 405", "GET", "/_local/invoke/InvitesFunction", "", 405, "", "use POST to invoke a function"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var received json.RawMessage
			echo := lambda.NewHandler(func(_ context.Context, ev json.RawMessage) (map[string]json.RawMessage, error) {
				received = ev
				return map[string]json.RawMessage{"echo": ev}, nil
			})
			failing := lambda.NewHandler(func(context.Context, json.RawMessage) (json.RawMessage, error) {
				return nil, errors.New("scheduler exploded")
			})
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": failing, "InvitesFunction": echo,
			}, localgw.Options{})

			rec := send(t, g, tc.method, tc.target, tc.body, map[string]string{"Content-Type": "application/json"}) // no key

			if tc.wantError != "" {
				wantErrorPrefix(t, rec, tc.wantStatus, tc.wantError)
				return
			}
			if rec.Code != tc.wantStatus || rec.Body.String() != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", rec.Code, rec.Body, tc.wantStatus, tc.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type: got %q, want application/json", ct)
			}
			if want := cmp.Or(tc.body, "{}"); string(received) != want {
				t.Errorf("event: got %s, want %s verbatim", received, want)
			}
		})
	}
}

func TestLocalInvokeBypassesRouteTable(t *testing.T) {
	// A route under /_local/invoke would never be reached.
	fn := &proxyFunc{}
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn.handler(),
	}, localgw.Options{})

	header := withKey()
	header["Content-Type"] = "application/json"
	wantError(t, send(t, g, "POST", "/_local/invoke/workspaceapi/invites", `{}`, header), http.StatusNotFound, `unknown function "workspaceapi/invites"`)
	if fn.calls != 0 {
		t.Errorf("function calls: got %d, want 0", fn.calls)
	}
}
