package agents_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Keys of infra/fixtures/standings.json, named for what they may do.
const (
	keyAdmin = "wk_testAdminKey00000000000000000000000001"
	keyWrite = "wk_testWriteKey00000000000000000000000001"
	keyTeamA = "wk_testTeamKey000000000000000000000000001"
	keyOther = "wk_testOtherWorkspaceKey00000000000000001"
)

// newEnv runs the API over infra/fixtures/standings.json, which the credits
// tests share: ws_a (teams on, default daily limit 20) with agents of every
// standing once usage is recorded (see recordStandings): ag_free (no team,
// no limits of its own), ag_daily (team_a, daily 5), ag_monthly (no team,
// monthly 8), ag_private (team_a, private), ag_support1 and ag_support2
// (team_b, whose monthly limit is 10). ws_b holds one agent of its own.
func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.New(t, apitest.Fixture(t, "standings.json"))
}

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
	rep := env.Store.ApplyUsage(t.Context(), workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{{
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
