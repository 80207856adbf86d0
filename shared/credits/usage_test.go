package credits_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
)

func usagePath(agent, query string) string { return "/workspaceapi/agents/" + agent + "/usage" + query }

// usageBody is the body of GET /workspaceapi/agents/{agentId}/usage.
type usageBody struct {
	AgentID   string
	StartDate string
	EndDate   string
	Total     float64
	Days      []struct {
		Date    string
		Credits float64
	}
}

// useAt records credits of agent (of ws_a) at time at, as the ingest
// function would then.
func useAt(t *testing.T, env *apitest.Env, agent string, credits float64, at time.Time) {
	t.Helper()
	spendIn(t, env, "ws_a", agent, credits, at)
}

func TestAgentUsagePerDay(t *testing.T) {
	t.Parallel()
	env := newEnv(t) // today is 2026-11-21 (UTC)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	useAt(t, env, "ag_free", 5, day(19))
	useAt(t, env, "ag_free", 1.5, day(21))
	useAt(t, env, "ag_free", 0.5, day(21).Add(time.Hour))
	useAt(t, env, "ag_free", 4, time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC))
	tests := []struct {
		name, query        string
		wantStart, wantEnd string
		wantDays           int
		wantTotal          float64
		wantCredits        map[string]float64 // days with usage; every other listed day is 0
	}{
		{"days=3: the three days ending today, zero-filled", "?days=3", "2026-11-19", "2026-11-21", 3, 7,
			map[string]float64{"2026-11-19": 5, "2026-11-21": 2}},
		{"days=1: today", "?days=1", "2026-11-21", "2026-11-21", 1, 2, map[string]float64{"2026-11-21": 2}},
		{"by default the 30 days ending today, across a month boundary", "", "2026-10-23", "2026-11-21", 30, 11,
			map[string]float64{"2026-10-31": 4, "2026-11-19": 5, "2026-11-21": 2}},
		{"days=366", "?days=366", "2025-11-21", "2026-11-21", 366, 11,
			map[string]float64{"2026-10-31": 4, "2026-11-19": 5, "2026-11-21": 2}},
		{"this month: from its first day up to today, not after", "?month=2026-11", "2026-11-01", "2026-11-21", 21, 7,
			map[string]float64{"2026-11-19": 5, "2026-11-21": 2}},
		{"a past month: every day of it", "?month=2026-10", "2026-10-01", "2026-10-31", 31, 4, map[string]float64{"2026-10-31": 4}},
		{"a month without usage: zeros", "?month=2026-02", "2026-02-01", "2026-02-28", 28, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, usagePath("ag_free", tc.query), keyRead, "")
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			var b usageBody
			res.JSON(t, &b)
			if b.AgentID != "ag_free" || b.StartDate != tc.wantStart || b.EndDate != tc.wantEnd || len(b.Days) != tc.wantDays || b.Total != tc.wantTotal {
				t.Fatalf("agent %s, %s to %s, %d days, total %g; want ag_free, %s to %s, %d days, total %g",
					b.AgentID, b.StartDate, b.EndDate, len(b.Days), b.Total, tc.wantStart, tc.wantEnd, tc.wantDays, tc.wantTotal)
			}
			start, _ := time.Parse(time.DateOnly, tc.wantStart)
			for i, got := range b.Days {
				if want := start.AddDate(0, 0, i).Format(time.DateOnly); got.Date != want || got.Credits != tc.wantCredits[want] {
					t.Errorf("days[%d] = %s %g, want %s %g", i, got.Date, got.Credits, want, tc.wantCredits[want])
				}
			}
			if res.FunctionTrips != 2 {
				t.Errorf("%d round trips (%v), want 2: the agent, then one Query of its usage", res.FunctionTrips, env.FunctionTrips.Ops())
			}
		})
	}
}

func TestAgentUsageIsSpendWhichAResetDoesNotChange(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	use(t, env, "ag_daily", 5)
	if res := env.Do(t, http.MethodPost, resetPath, keyAdmin, `{"ids": ["ag_daily"]}`); res.Status != http.StatusOK {
		t.Fatalf("reset: %d %s", res.Status, res.Body)
	}
	var b usageBody
	env.Do(t, http.MethodGet, usagePath("ag_daily", "?days=1"), keyRead, "").JSON(t, &b)
	if b.Total != 5 {
		t.Errorf("today's spend after a reset = %g, want 5", b.Total)
	}
}

func TestAgentUsageErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, key, agent, query string
		wantStatus              int
		wantError               string
		wantReads               bool
	}{
		{"days and month together", keyRead, "ag_free", "?days=3&month=2026-11", 400, "give days or month, not both", false},
		{"days=0", keyRead, "ag_free", "?days=0", 400, "days must be an integer from 1 to 366", false},
		{"days=367", keyRead, "ag_free", "?days=367", 400, "days", false},
		{"days=abc", keyRead, "ag_free", "?days=abc", 400, "days", false},
		{"days=1.5", keyRead, "ag_free", "?days=1.5", 400, "days", false},
		{"month=march", keyRead, "ag_free", "?month=march", 400, "YYYY-MM", false},
		{"month=2026-13", keyRead, "ag_free", "?month=2026-13", 400, "YYYY-MM", false},
		{"a month that has not begun", keyRead, "ag_free", "?month=2026-12", 400, "must not be after the current month", false},
		{"a bad query on an unknown agent is still 400", keyRead, "ag_nope", "?days=x", 400, "days", false},
		{"a private agent", keyRead, "ag_private", "", 403, "restricted or personal", true},
		{"an unknown agent", keyRead, "ag_nope", "", 404, "agent not found", true},
		{"another workspace's agent", keyRead, "ag_other", "", 404, "agent not found", true},
		{"an id over 256 characters", keyRead, strings.Repeat("a", 257), "", 404, "agent not found", false},
		{"a team-scoped key: an agent outside its team", keyTeamA, "ag_free", "", 404, "agent not found", true},
		{"a team-scoped key: another team's agent", keyTeamA, "ag_support1", "", 404, "agent not found", true},
		{"a team-scoped key: its own team's private agent is forbidden", keyTeamA, "ag_private", "", 403, "restricted or personal", true},
		{"a team-scoped key: its own team's agent", keyTeamA, "ag_daily", "", 200, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, usagePath(tc.agent, tc.query), tc.key, "")
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if tc.wantStatus >= 400 && !strings.Contains(res.Error(t), tc.wantError) {
				t.Errorf("error %q, want it to mention %q", res.Error(t), tc.wantError)
			}
			if !tc.wantReads && res.FunctionTrips != 0 {
				t.Errorf("answered after reading storage: %v", env.FunctionTrips.Ops())
			}
		})
	}
}
