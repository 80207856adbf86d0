package credits_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func teamLimitPath(team string) string { return "/workspaceapi/teams/" + team + "/credit-limit" }

// teamResult is the body of PUT /workspaceapi/teams/{teamId}/credit-limit.
type teamResult struct {
	ID                 string
	Name               string
	MonthlyCreditLimit *float64
	Unchanged          bool
	Paused             bool
}

func TestTeamCreditLimitPausesAndResumesTheWholeTeam(t *testing.T) {
	env := newEnv(t)
	// team_a's agents: ag_daily (daily limit 5) and ag_private; 5 credits this month.
	use(t, env, "ag_daily", 2)
	use(t, env, "ag_private", 3)
	teamStates := func() []string {
		o := overviews(t, env)
		return []string{state(o["ag_daily"].Status, o["ag_daily"].StatusReason), state(o["ag_private"].Status, o["ag_private"].StatusReason)}
	}
	steps := []struct {
		name       string
		body       string
		want       teamResult
		wantStates []string
		wantTrips  []string
	}{
		{"a limit above usage leaves the team running", `{"monthlyCreditLimit": 50}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(50)}, []string{"running", "running"},
			[]string{"BatchGetItem", "TransactWriteItems", "BatchGetItem"}},
		{"lowering it to the usage pauses every agent of the team at once", `{"monthlyCreditLimit": 5}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(5), Paused: true},
			[]string{"paused/team_limit", "paused/team_limit"}, []string{"BatchGetItem", "TransactWriteItems"}},
		{"the same limit again is unchanged", `{"monthlyCreditLimit": 5}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(5), Unchanged: true, Paused: true},
			[]string{"paused/team_limit", "paused/team_limit"}, []string{"BatchGetItem"}},
		{"raising it above the usage resumes them", `{"monthlyCreditLimit": 5.5}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(5.5)}, []string{"running", "running"},
			[]string{"BatchGetItem", "TransactWriteItems", "BatchGetItem"}},
		{"a limit of 0 pauses them", `{"monthlyCreditLimit": 0}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(0), Paused: true},
			[]string{"paused/team_limit", "paused/team_limit"}, []string{"BatchGetItem", "TransactWriteItems"}},
		{"removing it with null resumes them", `{"monthlyCreditLimit": null}`,
			teamResult{ID: "team_a", Name: "Research"}, []string{"running", "running"},
			[]string{"BatchGetItem", "TransactWriteItems"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPut, teamLimitPath("team_a"), keyAdmin, s.body)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if ops := env.FunctionTrips.Ops(); !slices.Equal(ops, s.wantTrips) {
				t.Errorf("round trips %v, want %v", ops, s.wantTrips)
			}
			var got teamResult
			res.JSON(t, &got)
			if show(got) != show(s.want) {
				t.Errorf("answer %s, want %s", show(got), show(s.want))
			}
			if states := teamStates(); !slices.Equal(states, s.wantStates) {
				t.Errorf("team_a's agents are %q, want %q", states, s.wantStates)
			}
		})
	}
}

func TestTeamCreditLimitErrors(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name, key, team, body string
		wantStatus            int
		wantError             string
		wantReads             bool // whether the answer may read storage
	}{
		{"team settings off", keyOther, "team_other", `{"monthlyCreditLimit": 5}`, 400, "team settings are not enabled", true},
		{"an unknown team", keyAdmin, "team_nope", `{"monthlyCreditLimit": 5}`, 404, "team not found", true},
		{"another workspace's team", keyAdmin, "team_other", `{"monthlyCreditLimit": 5}`, 404, "team not found", true},
		{"an id over 256 characters", keyAdmin, strings.Repeat("t", 257), `{"monthlyCreditLimit": 5}`, 404, "team not found", false},
		{"a team-scoped key naming another team", keyTeamA, "team_b", `{"monthlyCreditLimit": 5}`, 404, "team not found", false},
		{"monthlyCreditLimit missing", keyAdmin, "team_a", `{}`, 400, "monthlyCreditLimit is required", false},
		{"a negative limit", keyAdmin, "team_a", `{"monthlyCreditLimit": -1}`, 400, "at least 0", false},
		{"a limit as text", keyAdmin, "team_a", `{"monthlyCreditLimit": "5"}`, 400, "monthlyCreditLimit", false},
		{"an unknown field", keyAdmin, "team_a", `{"monthlyCreditLimit": 5, "dailyCreditLimit": 1}`, 400, `unknown field "dailyCreditLimit"`, false},
		{"a key without write", keyRead, "team_a", `{"monthlyCreditLimit": 5}`, 403, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPut, teamLimitPath(tc.team), tc.key, tc.body)
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if !strings.Contains(res.Error(t), tc.wantError) {
				t.Errorf("error %q, want it to mention %q", res.Error(t), tc.wantError)
			}
			if !tc.wantReads && res.FunctionTrips != 0 {
				t.Errorf("answered after reading storage: %v", env.FunctionTrips.Ops())
			}
		})
	}
}

func TestTeamScopedKeySetsItsOwnTeamsLimit(t *testing.T) {
	env := newEnv(t)
	res := env.Do(t, http.MethodPut, teamLimitPath("team_a"), keyTeamA, `{"monthlyCreditLimit": 100}`)
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
}
