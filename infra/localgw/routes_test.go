package localgw_test

import (
	"maps"
	"net/http"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/localgw"
)

func TestRouteMatchingFollowsAPIGateway(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		target     string
		key        bool
		wantStatus int
		wantRes    string            // resource the function sees; "" when it is not invoked
		wantParams map[string]string // pathParameters the function sees
	}{
		{"literal path with a parameter", "GET", "/agents/a1", true, 200, "/agents/{agentId}", map[string]string{"agentId": "a1"}},
		{"nested parameter", "GET", "/workspaceapi/agents/a1", true, 200, "/workspaceapi/agents/{agentId}", map[string]string{"agentId": "a1"}},
		{"two parameters", "PUT", "/workspaceapi/teams/t1/members/u1", true, 200, "/workspaceapi/teams/{teamId}/members/{userId}", map[string]string{"teamId": "t1", "userId": "u1"}},
		{"parameter then literal", "PUT", "/workspaceapi/teams/t1/credit-limit", true, 200, "/workspaceapi/teams/{teamId}/credit-limit", map[string]string{"teamId": "t1"}},
		{"literal resource beats parameter", "POST", "/workspaceapi/agents/tags", true, 200, "/workspaceapi/agents/tags", nil},
		{"parameters stay percent-encoded", "GET", "/agents/a%20b", true, 200, "/agents/{agentId}", map[string]string{"agentId": "a%20b"}},
		{"route without authorizer needs no key", "GET", "/health", false, 200, "/health", nil},
		{"literal resource without the method does not fall back to parameter", "GET", "/workspaceapi/agents/tags", true, 404, "", nil},
		{"unknown path with key", "GET", "/nope", true, 404, "", nil},
		{"unknown path without key", "GET", "/nope", false, 404, "", nil},
		{"wrong method with key", "DELETE", "/agents/a1", true, 404, "", nil},
		{"wrong method without key", "DELETE", "/agents/a1", false, 404, "", nil},
		{"trailing slash", "GET", "/agents/a1/", true, 404, "", nil},
		{"missing parameter segment", "GET", "/agents", true, 404, "", nil},
		{"empty parameter segment", "GET", "/agents//", true, 404, "", nil},
		{"extra segment", "GET", "/agents/a1/more", true, 404, "", nil},
		{"HEAD is not served unless routed", "HEAD", "/agents/a1", true, 404, "", nil},
		{"OPTIONS is not served unless routed", "OPTIONS", "/agents/a1", true, 404, "", nil},
		{"root", "GET", "/", true, 404, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			auth, fn := allowAll(), &proxyFunc{}
			g := newGateway(t, parseTemplate(t, routesTemplate), map[string]lambda.Handler{
				"AuthorizerFunction": auth.handler(), "AgentsFunction": fn.handler(),
			}, localgw.Options{})
			header := map[string]string{}
			if tc.key {
				header = withKey()
			}

			rec := send(t, g, tc.method, tc.target, "", header)

			if tc.wantStatus == http.StatusNotFound {
				wantError(t, rec, http.StatusNotFound, "not found")
				if auth.calls != 0 || fn.calls != 0 {
					t.Errorf("calls: got authorizer %d, function %d; want none before the route matches", auth.calls, fn.calls)
				}
				return
			}
			if rec.Code != tc.wantStatus {
				t.Fatalf("status: got %d, want %d (body %s)", rec.Code, tc.wantStatus, rec.Body)
			}
			if fn.last.Resource != tc.wantRes {
				t.Errorf("resource: got %q, want %q", fn.last.Resource, tc.wantRes)
			}
			if !maps.Equal(fn.last.PathParameters, tc.wantParams) || (tc.wantParams == nil) != (fn.last.PathParameters == nil) {
				t.Errorf("pathParameters: got %v, want %v", fn.last.PathParameters, tc.wantParams)
			}
			if tc.key && auth.last.PathParameters["agentId"] != tc.wantParams["agentId"] {
				t.Errorf("authorizer pathParameters: got %v, want %v", auth.last.PathParameters, tc.wantParams)
			}
		})
	}
}

func TestRoutesListsEveryEventSorted(t *testing.T) {
	tests := []struct {
		name string
		tmpl *localgw.Template
		want []string
	}{
		{"real template", loadTemplate(t), []string{
			"GET /agents/{agentId}", "GET /workspaceapi/agents", "POST /workspaceapi/agents/credit-details",
			"POST /workspaceapi/agents/credit-limits", "POST /workspaceapi/agents/daily-usage/reset", "POST /workspaceapi/agents/status", "POST /workspaceapi/agents/tags",
			"GET /workspaceapi/agents/{agentId}", "GET /workspaceapi/agents/{agentId}/chats/{chatId}", "GET /workspaceapi/agents/{agentId}/connected-agents",
			"GET /workspaceapi/agents/{agentId}/diary", "GET /workspaceapi/agents/{agentId}/key-metrics", "GET /workspaceapi/agents/{agentId}/promotion-requests",
			"GET /workspaceapi/agents/{agentId}/usage", "GET /workspaceapi/audit-log", "GET /workspaceapi/credits", "GET /workspaceapi/credits/export", "DELETE /workspaceapi/invites",
			"GET /workspaceapi/invites", "POST /workspaceapi/invites", "GET /workspaceapi/keys", "POST /workspaceapi/keys",
			"DELETE /workspaceapi/keys/{keyId}", "PATCH /workspaceapi/keys/{keyId}", "GET /workspaceapi/members",
			"POST /workspaceapi/members/tags", "GET /workspaceapi/teams", "POST /workspaceapi/teams",
			"POST /workspaceapi/teams/tags", "GET /workspaceapi/teams/{teamId}", "PATCH /workspaceapi/teams/{teamId}",
			"PUT /workspaceapi/teams/{teamId}/credit-limit", "DELETE /workspaceapi/teams/{teamId}/members/{userId}", "PUT /workspaceapi/teams/{teamId}/members/{userId}",
			"GET /workspaceapi/version",
			"GET /workspaceapi/webhooks", "POST /workspaceapi/webhooks", "DELETE /workspaceapi/webhooks/{webhookId}",
			"GET /workspaceapi/webhooks/{webhookId}", "PATCH /workspaceapi/webhooks/{webhookId}",
			"GET /workspaceapi/webhooks/{webhookId}/deliveries", "POST /workspaceapi/webhooks/{webhookId}/rotate-secret",
			"POST /workspaceapi/webhooks/{webhookId}/test",
		}},
		{"inline template", parseTemplate(t, routesTemplate), []string{
			"GET /agents/{agentId}", "GET /health", "POST /workspaceapi/agents/tags",
			"GET /workspaceapi/agents/{agentId}", "PUT /workspaceapi/teams/{teamId}/credit-limit",
			"PUT /workspaceapi/teams/{teamId}/members/{userId}",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range tc.tmpl.Routes() {
				got = append(got, r.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Routes: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRealTemplateRoutesInvokeTheirGroupsFunction(t *testing.T) {
	want := map[string]string{
		"DELETE /workspaceapi/invites":                          "InvitesFunction",
		"GET /workspaceapi/invites":                             "InvitesFunction",
		"POST /workspaceapi/invites":                            "InvitesFunction",
		"GET /workspaceapi/agents":                              "AgentsFunction",
		"POST /workspaceapi/agents/credit-limits":               "CreditsFunction",
		"POST /workspaceapi/agents/daily-usage/reset":           "CreditsFunction",
		"POST /workspaceapi/agents/status":                      "CreditsFunction",
		"GET /workspaceapi/agents/{agentId}/usage":              "CreditsFunction",
		"GET /workspaceapi/credits":                             "CreditsFunction",
		"GET /workspaceapi/credits/export":                      "CreditsFunction",
		"PUT /workspaceapi/teams/{teamId}/credit-limit":         "CreditsFunction",
		"POST /workspaceapi/agents/credit-details":              "CreditsFunction",
		"POST /workspaceapi/members/tags":                       "TagsFunction",
		"POST /workspaceapi/agents/tags":                        "TagsFunction",
		"POST /workspaceapi/teams/tags":                         "TagsFunction",
		"GET /workspaceapi/members":                             "MembersFunction",
		"GET /workspaceapi/version":                             "MembersFunction",
		"GET /workspaceapi/audit-log":                           "AuditFunction",
		"GET /workspaceapi/teams":                               "TeamsFunction",
		"GET /workspaceapi/keys":                                "KeysFunction",
		"POST /workspaceapi/keys":                               "KeysFunction",
		"PATCH /workspaceapi/keys/{keyId}":                      "KeysFunction",
		"DELETE /workspaceapi/keys/{keyId}":                     "KeysFunction",
		"GET /workspaceapi/webhooks":                            "WebhooksFunction",
		"POST /workspaceapi/webhooks":                           "WebhooksFunction",
		"GET /workspaceapi/webhooks/{webhookId}":                "WebhooksFunction",
		"PATCH /workspaceapi/webhooks/{webhookId}":              "WebhooksFunction",
		"DELETE /workspaceapi/webhooks/{webhookId}":             "WebhooksFunction",
		"POST /workspaceapi/webhooks/{webhookId}/rotate-secret": "WebhooksFunction",
		"POST /workspaceapi/webhooks/{webhookId}/test":          "WebhooksFunction",
		"GET /workspaceapi/webhooks/{webhookId}/deliveries":     "WebhooksFunction",
		"POST /workspaceapi/teams":                              "TeamsFunction",
		"GET /workspaceapi/teams/{teamId}":                      "TeamsFunction",
		"PATCH /workspaceapi/teams/{teamId}":                    "TeamsFunction",
		"PUT /workspaceapi/teams/{teamId}/members/{userId}":     "TeamsFunction",
		"DELETE /workspaceapi/teams/{teamId}/members/{userId}":  "TeamsFunction",
		"GET /workspaceapi/agents/{agentId}":                    "AgentDataFunction",
		"GET /agents/{agentId}":                                 "AgentDataFunction",
		"GET /workspaceapi/agents/{agentId}/key-metrics":        "AgentDataFunction",
		"GET /workspaceapi/agents/{agentId}/connected-agents":   "AgentDataFunction",
		"GET /workspaceapi/agents/{agentId}/diary":              "AgentDataFunction",
		"GET /workspaceapi/agents/{agentId}/promotion-requests": "AgentDataFunction",
		"GET /workspaceapi/agents/{agentId}/chats/{chatId}":     "ChatsFunction",
	}
	for _, r := range loadTemplate(t).Routes() {
		if r.FunctionID != want[r.String()] {
			t.Errorf("%s: got function %s, want %q", r, r.FunctionID, want[r.String()])
		}
	}
}
