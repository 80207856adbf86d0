package agents_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Keys of the test fixture, named for what they may do.
const (
	keyAdmin = "wk_testAdminKey00000000000000000000000001"
	keyWrite = "wk_testWriteKey00000000000000000000000001"
	keyTeamA = "wk_testTeamKey000000000000000000000000001"
	keyOther = "wk_testOtherWorkspaceKey00000000000000001"
)

// testFixture: ws_a (teams on, default daily limit 20) with agents of every
// standing once usage is recorded (see recordStandings): ag_free (no team,
// no limits of its own), ag_daily (team_a, daily 5), ag_monthly (no team,
// monthly 8), ag_private (team_a, private), ag_support1 and ag_support2
// (team_b, whose monthly limit is 10). ws_b holds one agent of its own.
var testFixture = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha Labs", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": 20,
  "members": [
   {"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_creator", "email": "creator@alpha.example", "name": "Cy Creator", "role": "member", "tags": [], "joinedAt": "2026-01-02T00:00:00Z"}
  ],
  "teams": [
   {"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": [], "members": [{"userId": "u_creator", "role": "admin"}]},
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
   {"key": "` + keyWrite + `", "name": "write only", "userId": "u_admin", "scopes": ["write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeamA + `", "name": "team scoped", "userId": "u_creator", "scopes": ["read", "write"], "teamId": "team_a", "expiresAt": null, "disabled": false}
  ],
  "events": []},
 {"id": "ws_b", "name": "Beta Corp", "seats": 5, "teamSettingsEnabled": false,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_b", "email": "boss@beta.example", "name": "Bea Boss", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [], "agents": [` + agentJSON("ag_other", "", false, "null", "null") + `], "invites": [],
  "apiKeys": [{"key": "` + keyOther + `", "name": "admin", "userId": "u_b", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`

// agentJSON is one fixture agent; team "" is none, limits are JSON numbers or null.
func agentJSON(id, team string, private bool, daily, monthly string) string {
	teamJSON := "null"
	if team != "" {
		teamJSON = fmt.Sprintf("%q", team)
	}
	return fmt.Sprintf(`{"id": %q, "name": "Agent %s", "description": "About %s", "imageUrl": "https://img.example/%s.png",
    "teamId": %s, "isPrivate": %t, "agentDiscoverability": "workspace", "tags": ["t1"], "dailyCreditLimit": %s,
    "monthlyCreditLimit": %s, "showTokenOptimisationInfo": %t, "keyMetrics": [], "connections": [], "promotionRequests": []}`,
		id, strings.TrimPrefix(id, "ag_"), id, id, teamJSON, private, daily, monthly, private)
}

// use records credits of agent (of ws_a) at the env's clock, as the ingest
// function would.
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
	env.Clock.Advance(time.Second) // distinct event ids and activity times
}

// agentsPage is the body of GET /workspaceapi/agents as a client reads it.
type agentsPage struct {
	Agents []struct {
		ID                   string
		Name                 string
		Description          string
		ImageURL             string `json:"imageUrl"`
		TeamID               *string
		IsPrivate            bool
		AgentDiscoverability string
		Tags                 []string
		Overview             *overview
	}
	NextCursor *string
}

// overview is an agent's overview as a client reads it.
type overview struct {
	Status                    string
	StatusReason              *string
	DailyCreditLimit          *float64
	EffectiveDailyCreditLimit *float64
	MonthlyCreditLimit        *float64
	CreditsToday              float64
	CreditsThisMonth          float64
	ShowTokenOptimisationInfo bool
	LastActivityAt            *string
}
