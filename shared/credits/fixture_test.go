package credits_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Keys of the test fixture, named for what they may do.
const (
	keyAdmin   = "wk_testAdminKey00000000000000000000000001"
	keyCreator = "wk_testCreatorKey000000000000000000000001" // read and write; owner is not an admin, but team_a's admin
	keyMember  = "wk_testMemberKey0000000000000000000000001" // read and write; owner is not an admin, and team_a's member
	keyRead    = "wk_testReadKey000000000000000000000000001"
	keyTeamA   = "wk_testTeamKey000000000000000000000000001"
	keyOther   = "wk_testOtherWorkspaceKey00000000000000001"
)

// testFixture: ws_a (teams on, default daily limit 20) with members u_admin
// (admin), u_creator (member, team_a's admin) and u_member (member, team_a's
// member); ag_free (no
// team, no limits of its own), ag_daily (team_a, daily 5), ag_monthly (no
// team, monthly 8), ag_private (team_a, private), ag_support1 and
// ag_support2 (team_b, monthly limit 10). ws_b has team settings off, a team
// and an agent of its own.
var testFixture = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha Labs", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": 20,
  "members": [
   {"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_creator", "email": "creator@alpha.example", "name": "Cy Creator", "role": "member", "tags": [], "joinedAt": "2026-01-02T00:00:00Z"},
   {"id": "u_member", "email": "member@alpha.example", "name": "Mo Member", "role": "member", "tags": [], "joinedAt": "2026-01-03T00:00:00Z"}
  ],
  "teams": [
   {"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": [], "members": [{"userId": "u_creator", "role": "admin"}, {"userId": "u_member", "role": "member"}]},
   {"id": "team_b", "name": "Support", "monthlyCreditLimit": 10, "tags": [], "members": []}
  ],
  "agents": [
   ` + agentJSON("ag_daily", "team_a", false, "5", "null") + `,
   ` + agentJSON("ag_free", "", false, "null", "null") + `,
   ` + agentJSON("ag_monthly", "", false, "null", "8") + `,
   ` + agentJSON("ag_private", "team_a", true, "null", "null") + `,
   ` + agentJSON("ag_support1", "team_b", false, "null", "null") + `,
   ` + agentJSON("ag_support2", "team_b", false, "null", "null") + `
  ],
  "invites": [],
  "apiKeys": [
   {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyCreator + `", "name": "creator", "userId": "u_creator", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyMember + `", "name": "member", "userId": "u_member", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyRead + `", "name": "read only", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeamA + `", "name": "team scoped", "userId": "u_admin", "scopes": ["read", "write"], "teamId": "team_a", "expiresAt": null, "disabled": false}
  ],
  "events": []},
 {"id": "ws_b", "name": "Beta Corp", "seats": 5, "teamSettingsEnabled": false,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_b", "email": "boss@beta.example", "name": "Bea Boss", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [{"id": "team_other", "name": "Other", "monthlyCreditLimit": null, "tags": [], "members": []}],
  "agents": [` + agentJSON("ag_other", "team_other", false, "null", "null") + `], "invites": [],
  "apiKeys": [{"key": "` + keyOther + `", "name": "admin", "userId": "u_b", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`

// agentJSON is one fixture agent; team "" is none, limits are JSON numbers or null.
func agentJSON(id, team string, private bool, daily, monthly string) string {
	teamJSON := "null"
	if team != "" {
		teamJSON = fmt.Sprintf("%q", team)
	}
	return fmt.Sprintf(`{"id": %q, "name": "Agent %s", "description": "", "imageUrl": "",
    "teamId": %s, "isPrivate": %t, "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": %s,
    "monthlyCreditLimit": %s, "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []}`,
		id, strings.TrimPrefix(id, "ag_"), teamJSON, private, daily, monthly)
}

func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.New(t, testFixture)
}

// use records credits of agent (of ws) at the env's clock, as the ingest
// function would, then moves the clock on by a second.
func use(t *testing.T, env *apitest.Env, agent string, credits float64) {
	t.Helper()
	now := env.Clock.Now()
	rep := env.Store.ApplyUsage(t.Context(), []workspace.Usage{{
		EventID: fmt.Sprintf("ev_%s_%d", agent, now.UnixNano()), WorkspaceID: "ws_a", AgentID: agent,
		Credits: credits, OccurredAt: now,
	}}, now)
	for _, err := range rep.Errs {
		if err != nil {
			t.Fatalf("usage of %s: %v", agent, err)
		}
	}
	env.Clock.Advance(time.Second)
}

// overview is an agent's overview as GET /workspaceapi/agents shows it.
type overview struct {
	Status                    string
	StatusReason              *string
	DailyCreditLimit          *float64
	EffectiveDailyCreditLimit *float64
	MonthlyCreditLimit        *float64
	CreditsToday              float64
	CreditsThisMonth          float64
}

// overviews returns every agent's overview as the admin key lists it.
func overviews(t *testing.T, env *apitest.Env) map[string]overview {
	t.Helper()
	res := env.Do(t, http.MethodGet, "/workspaceapi/agents?includeOverview=true", keyAdmin, "")
	if res.Status != http.StatusOK {
		t.Fatalf("GET agents: %d %s", res.Status, res.Body)
	}
	var page struct {
		Agents []struct {
			ID       string
			Overview overview
		}
	}
	res.JSON(t, &page)
	out := map[string]overview{}
	for _, a := range page.Agents {
		out[a.ID] = a.Overview
	}
	return out
}

// state renders a status and reason as "stopped/daily_limit" or "running".
func state(status string, reason *string) string {
	if reason == nil {
		return status
	}
	return status + "/" + *reason
}

// batch is a batch result as a client reads it.
type batch struct {
	Results []struct {
		ID        string
		Success   bool
		Name      string
		Unchanged *bool
		Applied   json.RawMessage
		Impact    json.RawMessage
		Error     string
	}
	Summary struct{ Total, Succeeded, Failed, Unchanged int }
}

// num makes an expected nullable number.
func num(v float64) *float64 { return &v }

// show renders v as JSON, for comparisons and messages.
func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
