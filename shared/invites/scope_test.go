package invites_test

import (
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The gateway's policy checks scopes first; the function checks them again,
// so a mis-cached or too-broad policy still cannot reach the store.
func TestFunctionChecksScopesAgain(t *testing.T) {
	fn := invites.Function(invites.Deps{Clock: workspace.SystemClock{}}) // no store: nothing may reach it
	tests := []struct {
		name       string
		method     string
		authorizer map[string]any
		wantStatus int
	}{
		{"POST without invite", http.MethodPost, callerContext("read write", ""), http.StatusForbidden},
		{"DELETE without invite", http.MethodDelete, callerContext("read write", ""), http.StatusForbidden},
		{"GET without read", http.MethodGet, callerContext("invite", ""), http.StatusForbidden},
		{"team-scoped key", http.MethodGet, callerContext("read", "team_a"), http.StatusForbidden},
		{"no authorizer context", http.MethodGet, nil, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fn(t.Context(), events.APIGatewayProxyRequest{
				HTTPMethod: tc.method, Path: "/workspaceapi/invites", Resource: "/workspaceapi/invites",
				Body:           `{"ids": ["inv_1"]}`,
				RequestContext: events.APIGatewayProxyRequestContext{Authorizer: tc.authorizer},
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tc.wantStatus {
				t.Errorf("status = %d (%s), want %d", res.StatusCode, res.Body, tc.wantStatus)
			}
			apitest.CheckErrorBody(t, http.Header(res.MultiValueHeaders), []byte(res.Body))
		})
	}
}

func callerContext(scopes, team string) map[string]any {
	return map[string]any{"workspaceId": "ws_a", "keyId": "key_1", "userId": "u_admin", "role": "admin", "scopes": scopes, "teamId": team}
}
