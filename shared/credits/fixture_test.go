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

// Keys of infra/fixtures/standings.json, named for what they may do.
const (
	keyAdmin   = "wk_testAdminKey00000000000000000000000001"
	keyCreator = "wk_testCreatorKey000000000000000000000001" // read and write; owner is not an admin, but team_a's admin
	keyMember  = "wk_testMemberKey0000000000000000000000001" // read and write; owner is not an admin, and team_a's member
	keyRead    = "wk_testReadKey000000000000000000000000001"
	keyTeamA   = "wk_testTeamKey000000000000000000000000001" // read and write on team_a; its owner is team_a's admin
	keyOther   = "wk_testOtherWorkspaceKey00000000000000001"
)

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

// newEnv runs the API over infra/fixtures/standings.json, which the agents
// tests share: ws_a (teams on, default daily limit 20) with members u_admin
// (admin), u_creator (member, team_a's admin) and u_member (member, team_a's
// member); ag_free (no team, no limits of its own), ag_daily (team_a, daily 5), ag_monthly (no
// team, monthly 8), ag_private (team_a, private), ag_support1 and
// ag_support2 (team_b, monthly limit 10); ws_b has team settings off, a team
// and an agent of its own.
func newEnv(t *testing.T, opts ...apitest.Options) *apitest.Env {
	t.Helper()
	return apitest.New(t, apitest.Fixture(t, "standings.json"), opts...)
}

// use records credits of agent (of ws) at the env's clock, as the ingest
// function would, then moves the clock on by a second.
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
	ShowTokenOptimisationInfo bool
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
