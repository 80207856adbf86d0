package edges_test

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/localgw"
)

// Keys of the demo fixture without the read scope.
const (
	writeOnlyKey  = "wk_demoWriteOnlyKey000000000000000000000003"
	inviteOnlyKey = "wk_demoInviteOnlyKey00000000000000000000004"
)

// TestWritesAnswerKeysWithoutReadNothingTheyCouldNotGet walks every write
// route of template.yaml with a key that lacks the read scope (write only;
// invite only for the invitation writes): a create answers its id (and a
// new API key its plaintext) alone, a batch each id's success and error
// and the counts, any other write 204 without a body. No member, credit,
// name or tag of the workspace reaches such a key through a write.
func TestWritesAnswerKeysWithoutReadNothingTheyCouldNotGet(t *testing.T) {
	env := apitest.New(t, apitest.DemoFixture(t))
	tmpl, err := localgw.LoadTemplate(filepath.Join(apitest.RepoRoot(t), "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		route, path, key, body string
		want                   int
	}
	var created string // the id of the key the write-only key makes
	steps := []step{
		{"POST /workspaceapi/invites", "/workspaceapi/invites", inviteOnlyKey, `{"email": "new.hire@acme.example", "role": "member", "teams": [{"teamId": "team_support", "role": "member"}]}`, 201},
		{"DELETE /workspaceapi/invites", "/workspaceapi/invites", inviteOnlyKey, `{"ids": ["inv_demo_felix", "inv_none"]}`, 200},
		{"POST /workspaceapi/agents/credit-limits", "/workspaceapi/agents/credit-limits", writeOnlyKey, `{"ids": ["agt_support_triage", "agt_none"], "dailyCreditLimit": 50}`, 200},
		{"POST /workspaceapi/agents/daily-usage/reset", "/workspaceapi/agents/daily-usage/reset", writeOnlyKey, `{"ids": ["agt_support_triage"]}`, 200},
		{"POST /workspaceapi/agents/status", "/workspaceapi/agents/status", writeOnlyKey, `{"ids": ["agt_support_triage"], "status": "disabled"}`, 200},
		{"POST /workspaceapi/agents/credit-details", "/workspaceapi/agents/credit-details", writeOnlyKey, `{"ids": ["agt_support_triage"], "showTokenOptimisationInfo": true}`, 200},
		{"PUT /workspaceapi/teams/{teamId}/credit-limit", "/workspaceapi/teams/team_support/credit-limit", writeOnlyKey, `{"monthlyCreditLimit": 1000}`, 204},
		{"POST /workspaceapi/teams", "/workspaceapi/teams", writeOnlyKey, `{"name": "Write-only team"}`, 201},
		{"PATCH /workspaceapi/teams/{teamId}", "/workspaceapi/teams/team_support", writeOnlyKey, `{"name": "Customer Support"}`, 204},
		{"PUT /workspaceapi/teams/{teamId}/members/{userId}", "/workspaceapi/teams/team_support/members/usr_ada", writeOnlyKey, `{"role": "member"}`, 204},
		{"DELETE /workspaceapi/teams/{teamId}/members/{userId}", "/workspaceapi/teams/team_support/members/usr_ada", writeOnlyKey, "", 204},
		{"POST /workspaceapi/members/tags", "/workspaceapi/members/tags", writeOnlyKey, `{"ids": ["usr_ada"], "tags": []}`, 200},
		{"POST /workspaceapi/agents/tags", "/workspaceapi/agents/tags", writeOnlyKey, `{"ids": ["agt_support_triage"], "tags": []}`, 200},
		{"POST /workspaceapi/teams/tags", "/workspaceapi/teams/tags", writeOnlyKey, `{"ids": ["team_support"], "tags": ["x"], "mode": "add"}`, 200},
		{"POST /workspaceapi/keys", "/workspaceapi/keys", writeOnlyKey, `{"name": "write only too", "scopes": ["write"], "expiresInDays": 30}`, 201},
		{"PATCH /workspaceapi/keys/{keyId}", "/workspaceapi/keys/key_acme_write_only", writeOnlyKey, `{"name": "Acme write-only key"}`, 204},
		{"DELETE /workspaceapi/keys/{keyId}", "/workspaceapi/keys/{created}", writeOnlyKey, "", 204},
		{"POST /workspaceapi/webhooks", "/workspaceapi/webhooks", writeOnlyKey, `{"url": "https://93.184.215.14/hooks", "eventTypes": ["Agent Stopped"]}`, 201},
		{"PATCH /workspaceapi/webhooks/{webhookId}", "/workspaceapi/webhooks/{webhook}", writeOnlyKey, `{"description": "on call"}`, 204},
		{"POST /workspaceapi/webhooks/{webhookId}/rotate-secret", "/workspaceapi/webhooks/{webhook}/rotate-secret", writeOnlyKey, "", 200},
		{"POST /workspaceapi/webhooks/{webhookId}/test", "/workspaceapi/webhooks/{webhook}/test", writeOnlyKey, "", 202},
		{"DELETE /workspaceapi/webhooks/{webhookId}", "/workspaceapi/webhooks/{webhook}", writeOnlyKey, "", 204},
	}
	var webhook string // the id of the subscription the write-only key makes
	covered := map[string]bool{}
	for _, st := range steps {
		covered[st.route] = true
		method, _, _ := strings.Cut(st.route, " ")
		path := strings.Replace(strings.Replace(st.path, "{created}", created, 1), "{webhook}", webhook, 1)
		res := env.Do(t, method, path, st.key, st.body)
		if res.Status != st.want {
			t.Errorf("%s: got %d %s, want %d", st.route, res.Status, res.Body, st.want)
			continue
		}
		// A webhook's secret is shown to the key that made or rotated it,
		// whatever its scopes (it is the only time it is shown); a test
		// delivery answers the id of the event it queued.
		if strings.Contains(st.route, "/webhooks") && res.Status != 204 {
			var body map[string]any
			res.JSON(t, &body)
			if !onlyKeys(body, []string{"id", "secret", "eventId"}) {
				t.Errorf("%s: %d %s, want the id, the secret or the event id alone", st.route, res.Status, res.Body)
			}
			if id, ok := body["id"].(string); ok && st.route == "POST /workspaceapi/webhooks" {
				webhook = id
			}
			continue
		}
		switch res.Status {
		case 201:
			var body map[string]any
			res.JSON(t, &body)
			allowed := []string{"id"}
			if st.route == "POST /workspaceapi/keys" {
				allowed = append(allowed, "key")
				created, _ = body["id"].(string)
			}
			if _, ok := body["id"]; !ok || len(body) != len(allowed) || !onlyKeys(body, allowed) {
				t.Errorf("%s: 201 %s, want only %v", st.route, res.Body, allowed)
			}
		case 200:
			var body struct {
				Results []map[string]any `json:"results"`
				Summary map[string]any   `json:"summary"`
			}
			var all map[string]any
			res.JSON(t, &all)
			res.JSON(t, &body)
			if !onlyKeys(all, []string{"results", "summary"}) || len(body.Results) == 0 ||
				!onlyKeys(body.Summary, []string{"total", "succeeded", "failed"}) || len(body.Summary) != 3 {
				t.Errorf("%s: 200 %s, want results and summary alone", st.route, res.Body)
			}
			for _, r := range body.Results {
				if !onlyKeys(r, []string{"id", "success", "error"}) {
					t.Errorf("%s: result %v holds more than id, success and error", st.route, r)
				}
			}
		case 204:
			if len(res.Body) != 0 {
				t.Errorf("%s: 204 with a body %s", st.route, res.Body)
			}
		}
	}
	for _, r := range tmpl.Routes() {
		if r.Method != http.MethodGet && !covered[r.String()] {
			t.Errorf("the write route %s has no step: every write route is held to the rule", r)
		}
	}
}

// onlyKeys reports whether every key of m is one of allowed.
func onlyKeys[V any](m map[string]V, allowed []string) bool {
	for k := range m {
		if !slices.Contains(allowed, k) {
			return false
		}
	}
	return true
}
