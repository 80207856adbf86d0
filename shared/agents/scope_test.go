package agents_test

import (
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/agents"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The gateway's policy checks scopes first; the function checks them again,
// so a mis-cached or too-broad policy still cannot reach the store.
func TestFunctionChecksScopesAgain(t *testing.T) {
	fn := agents.Function(agents.Deps{Clock: workspace.SystemClock{}}) // no store: nothing may reach it
	tests := []struct {
		name       string
		authorizer map[string]any
		wantStatus int
	}{
		{"GET without read", map[string]any{"workspaceId": "ws_a", "keyId": "key_1", "userId": "u_admin", "role": "admin", "scopes": "write invite"}, 403},
		{"no authorizer context", nil, 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := fn(t.Context(), events.APIGatewayProxyRequest{
				HTTPMethod: http.MethodGet, Path: "/workspaceapi/agents",
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
