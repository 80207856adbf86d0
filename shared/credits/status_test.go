package credits_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
)

const statusPath = "/workspaceapi/agents/status"

// setStatus sends one agent status batch and returns its result.
func setStatus(t *testing.T, env *apitest.Env, key, body string) batch {
	t.Helper()
	res := env.Do(t, http.MethodPost, statusPath, key, body)
	if res.Status != http.StatusOK {
		t.Fatalf("status batch %s: %d %s", body, res.Status, res.Body)
	}
	var out batch
	res.JSON(t, &out)
	return out
}

// reportState is an agent's status in the credits report.
func reportState(t *testing.T, env *apitest.Env, agent string) string {
	t.Helper()
	for _, a := range getReport(t, env, "").Agents {
		if a.ID == agent {
			return state(a.Status, a.StatusReason)
		}
	}
	t.Fatalf("%s is not in the credits report", agent)
	return ""
}

func TestDisableAndEnable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		usage      map[string]float64 // before the first request
		key, agent string
		steps      []string // status values, in turn
		between    float64  // usage of agent recorded between the steps
		want       creditResult
		wantState  string
	}{
		{name: "a running agent is disabled", key: keyAdmin, agent: "ag_free", steps: []string{"disabled"},
			want:      creditResult{success: true, applied: `{"status":"disabled"}`, impact: `{"status":"disabled","statusReason":"disabled"}`},
			wantState: "disabled/disabled"},
		{name: "disabled wins over a stop", usage: map[string]float64{"ag_daily": 5}, key: keyAdmin, agent: "ag_daily", steps: []string{"disabled"},
			want:      creditResult{success: true, applied: `{"status":"disabled"}`, impact: `{"status":"disabled","statusReason":"disabled"}`},
			wantState: "disabled/disabled"},
		{name: "disabled wins over its team's pause", usage: map[string]float64{"ag_support1": 10}, key: keyAdmin, agent: "ag_support2", steps: []string{"disabled"},
			want:      creditResult{success: true, applied: `{"status":"disabled"}`, impact: `{"status":"disabled","statusReason":"disabled"}`},
			wantState: "disabled/disabled"},
		{name: "disabling a disabled agent is unchanged", key: keyAdmin, agent: "ag_free", steps: []string{"disabled", "disabled"},
			want: creditResult{success: true, unchanged: true, applied: `{"status":"disabled"}`}, wantState: "disabled/disabled"},
		{name: "enabling an enabled agent is unchanged", key: keyAdmin, agent: "ag_free", steps: []string{"enabled"},
			want: creditResult{success: true, unchanged: true, applied: `{"status":"enabled"}`}, wantState: "running"},
		{name: "enabled, it runs again", key: keyCreator, agent: "ag_free", steps: []string{"disabled", "enabled"},
			want:      creditResult{success: true, applied: `{"status":"enabled"}`, impact: `{"status":"running","statusReason":null}`},
			wantState: "running"},
		{name: "usage counts while disabled: enabled past its daily limit, it comes back stopped", key: keyAdmin, agent: "ag_daily",
			steps: []string{"disabled", "enabled"}, between: 6,
			want:      creditResult{success: true, applied: `{"status":"enabled"}`, impact: `{"status":"stopped","statusReason":"daily_limit"}`},
			wantState: "stopped/daily_limit"},
		{name: "enabled into its team's pause, it comes back paused", usage: map[string]float64{"ag_support1": 10}, key: keyAdmin, agent: "ag_support2",
			steps:     []string{"disabled", "enabled"},
			want:      creditResult{success: true, applied: `{"status":"enabled"}`, impact: `{"status":"paused","statusReason":"team_limit"}`},
			wantState: "paused/team_limit"},
		{name: "a team-scoped key reaches its team's agents", key: keyTeamA, agent: "ag_daily", steps: []string{"disabled"},
			want:      creditResult{success: true, applied: `{"status":"disabled"}`, impact: `{"status":"disabled","statusReason":"disabled"}`},
			wantState: "disabled/disabled"},
		{name: "a team-scoped key does not reach another team's agent", key: keyTeamA, agent: "ag_free", steps: []string{"disabled"},
			want: creditResult{err: "agent not found"}, wantState: "running"},
		{name: "another workspace's agent is not found", key: keyOther, agent: "ag_free", steps: []string{"disabled"},
			want: creditResult{err: "agent not found"}, wantState: "running"},
		{name: "a private agent can be disabled", key: keyAdmin, agent: "ag_private", steps: []string{"disabled"},
			want:      creditResult{success: true, applied: `{"status":"disabled"}`, impact: `{"status":"disabled","statusReason":"disabled"}`},
			wantState: "disabled/disabled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t)
			for agent, credits := range tc.usage {
				use(t, env, agent, credits)
			}
			var last batch
			for i, st := range tc.steps {
				if i > 0 && tc.between > 0 {
					use(t, env, tc.agent, tc.between)
				}
				last = setStatus(t, env, tc.key, `{"ids": ["`+tc.agent+`"], "status": "`+st+`"}`)
			}
			checkResult(t, last, tc.want)
			o := overviews(t, env)[tc.agent]
			if got := state(o.Status, o.StatusReason); got != tc.wantState {
				t.Errorf("overview: %s, want %s", got, tc.wantState)
			}
			if got := reportState(t, env, tc.agent); got != tc.wantState {
				t.Errorf("credits report: %s, want %s", got, tc.wantState)
			}
		})
	}
}

func TestADisabledAgentsUsageCountsAndTheSchedulerNeverResumesIt(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	use(t, env, "ag_daily", 5) // stopped by its daily limit of 5
	checkResult(t, setStatus(t, env, keyAdmin, `{"ids": ["ag_daily"], "status": "disabled"}`),
		creditResult{success: true, applied: `{"status":"disabled"}`, impact: `{"status":"disabled","statusReason":"disabled"}`})
	use(t, env, "ag_daily", 2)
	if o := overviews(t, env)["ag_daily"]; state(o.Status, o.StatusReason) != "disabled/disabled" || o.CreditsToday != 7 || o.CreditsThisMonth != 7 {
		t.Fatalf("overview %+v, want disabled with 7 credits today and this month", o)
	}
	// The agent resource shows it too, with its overview.
	res := env.Do(t, http.MethodGet, "/workspaceapi/agents/ag_daily?includeOverview=true", keyAdmin, "")
	var one struct{ Overview overview }
	if res.Status != http.StatusOK {
		t.Fatalf("GET agent: %d %s", res.Status, res.Body)
	}
	if res.JSON(t, &one); state(one.Overview.Status, one.Overview.StatusReason) != "disabled/disabled" {
		t.Fatalf("GET agent with its overview: %s, want disabled", res.Body)
	}

	// The next day's run lifts the daily stop underneath, and resumes nothing a reader sees.
	tomorrow := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	env.Clock.Advance(tomorrow.Sub(env.Clock.Now()))
	got := awscalls.Invoke(t, env.URL, "SchedulerFunction", awsevents.Scheduled("tick", tomorrow))
	if want := `"resumedAgents":0`; !strings.Contains(string(got), want) {
		t.Errorf("scheduler: %s, want %s", got, want)
	}
	if o := overviews(t, env)["ag_daily"]; state(o.Status, o.StatusReason) != "disabled/disabled" {
		t.Fatalf("after the scheduler: %s, want disabled", state(o.Status, o.StatusReason))
	}
	// Enabled on the new day, its limits are re-evaluated: it runs.
	checkResult(t, setStatus(t, env, keyAdmin, `{"ids": ["ag_daily"], "status": "enabled"}`),
		creditResult{success: true, applied: `{"status":"enabled"}`, impact: `{"status":"running","statusReason":null}`})
}

func TestAgentStatusWholeRequestErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, key, body string
		wantStatus      int
	}{
		{"a key without write", keyRead, `{"ids": ["ag_free"], "status": "disabled"}`, 403},
		{"no status", keyAdmin, `{"ids": ["ag_free"]}`, 400},
		{"another status", keyAdmin, `{"ids": ["ag_free"], "status": "paused"}`, 400},
		{"status of the wrong type", keyAdmin, `{"ids": ["ag_free"], "status": true}`, 400},
		{"no ids", keyAdmin, `{"ids": [], "status": "disabled"}`, 400},
		{"an unknown field", keyAdmin, `{"ids": ["ag_free"], "status": "disabled", "reason": "x"}`, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPost, statusPath, tc.key, tc.body)
			if res.Status != tc.wantStatus || res.FunctionTrips != 0 {
				t.Errorf("status %d after %d round trips (%s), want %d before any", res.Status, res.FunctionTrips, res.Body, tc.wantStatus)
			}
		})
	}
}
