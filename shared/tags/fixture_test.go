package tags_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
)

// Keys of the test fixture, named for what they may do.
const (
	keyAdmin = "wk_testAdminKey00000000000000000000000001"
	keyRead  = "wk_testReadKey000000000000000000000000001"
	keyTeamA = "wk_testTeamKey000000000000000000000000001"
	keyOther = "wk_testOtherWorkspaceKey00000000000000001"
)

// fixture: ws_a (teams on) with members u_admin (tags a, b) and u_creator,
// teams team_a and team_b, agents ag_a (team_a), ag_private (team_a,
// private), ag_b (team_b), ag_free (no team), and extra agents ag_x000...
// (no team, no tags); ws_b (teams off) with u_b, team_other and ag_other.
func fixture(extraAgents int) string {
	agents := []string{agentJSON("ag_a", "team_a", false), agentJSON("ag_private", "team_a", true),
		agentJSON("ag_b", "team_b", false), agentJSON("ag_free", "", false)}
	for i := range extraAgents {
		agents = append(agents, agentJSON(fmt.Sprintf("ag_x%03d", i), "", false))
	}
	return `{"workspaces": [
 {"id": "ws_a", "name": "Alpha Labs", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [
   {"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": ["a", "b"], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_creator", "email": "creator@alpha.example", "name": "Cy Creator", "role": "member", "tags": [], "joinedAt": "2026-01-02T00:00:00Z"}
  ],
  "teams": [
   {"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": ["lab"], "members": []},
   {"id": "team_b", "name": "Support", "monthlyCreditLimit": null, "tags": [], "members": []}
  ],
  "agents": [` + strings.Join(agents, ",\n") + `],
  "invites": [],
  "apiKeys": [
   {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyRead + `", "name": "read only", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeamA + `", "name": "team scoped", "userId": "u_admin", "scopes": ["read", "write"], "teamId": "team_a", "expiresAt": null, "disabled": false}
  ],
  "events": []},
 {"id": "ws_b", "name": "Beta Corp", "seats": 5, "teamSettingsEnabled": false,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_b", "email": "boss@beta.example", "name": "Bea Boss", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [{"id": "team_other", "name": "Other", "monthlyCreditLimit": null, "tags": [], "members": []}],
  "agents": [` + agentJSON("ag_other", "team_other", false) + `], "invites": [],
  "apiKeys": [{"key": "` + keyOther + `", "name": "admin", "userId": "u_b", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`
}

// agentJSON is one fixture agent named after its id; team "" is none.
func agentJSON(id, team string, private bool) string {
	teamJSON := "null"
	if team != "" {
		teamJSON = fmt.Sprintf("%q", team)
	}
	return fmt.Sprintf(`{"id": %q, "name": "Agent %s", "description": "", "imageUrl": "", "teamId": %s, "isPrivate": %t,
    "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null,
    "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []}`,
		id, strings.TrimPrefix(id, "ag_"), teamJSON, private)
}

func newEnv(t testing.TB) *apitest.Env {
	t.Helper()
	return apitest.New(t, fixture(0))
}

// result is one tag result as a client reads it.
type result struct {
	ID        string
	Success   bool
	Name      string
	Unchanged *bool
	Applied   json.RawMessage
	Tags      []string
	Error     string
}

// batch is a tag batch's answer.
type batch struct {
	Results []result
	Summary struct{ Total, Succeeded, Failed, Unchanged int }
}

// ids renders n ids with prefix, quoted for a JSON array.
func ids(prefix string, n int) string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf(`"%s%03d"`, prefix, i))
	}
	return strings.Join(out, ", ")
}

// newEnvWith is newEnv with n extra agents ag_x000... (no team, no tags).
func newEnvWith(t testing.TB, n int) *apitest.Env {
	t.Helper()
	return apitest.New(t, fixture(n))
}
