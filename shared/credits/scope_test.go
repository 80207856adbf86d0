package credits_test

import (
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/credits"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The gateway's policy checks scopes first; the function checks them again,
// so a mis-cached or too-broad policy still cannot reach the store.
func TestFunctionChecksScopesAgain(t *testing.T) {
	fn := credits.Function(credits.Deps{Clock: workspace.SystemClock{}}) // no store: nothing may reach it
	tests := []struct {
		name, method, path, body string
		authorizer               map[string]any
		wantStatus               int
	}{
		{"credit limits without write", http.MethodPost, "/workspaceapi/agents/credit-limits", `{"ids": ["a"], "dailyCreditLimit": 1}`, callerContext("read", ""), 403},
		{"reset without write", http.MethodPost, "/workspaceapi/agents/daily-usage/reset", `{"ids": ["a"]}`, callerContext("read", ""), 403},
		{"team limit without write", http.MethodPut, "/workspaceapi/teams/t/credit-limit", `{"monthlyCreditLimit": 1}`, callerContext("read", ""), 403},
		{"report without read", http.MethodGet, "/workspaceapi/credits", "", callerContext("write", ""), 403},
		{"report with a team-scoped key", http.MethodGet, "/workspaceapi/credits", "", callerContext("read", "team_a"), 403},
		{"usage without read", http.MethodGet, "/workspaceapi/agents/a/usage", "", callerContext("write", ""), 403},
		{"export without read", http.MethodGet, "/workspaceapi/credits/export", "", callerContext("write", ""), 403},
		{"no authorizer context", http.MethodGet, "/workspaceapi/credits", "", nil, 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fn(t.Context(), events.APIGatewayProxyRequest{
				HTTPMethod: tc.method, Path: tc.path, Body: tc.body,
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
