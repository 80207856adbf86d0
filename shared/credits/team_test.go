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
	t.Parallel()
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
			[]string{"TransactGetItems", "BatchGetItem", "TransactWriteItems", "TransactGetItems", "BatchGetItem"}},
		{"lowering it to the usage pauses every agent of the team at once", `{"monthlyCreditLimit": 5}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(5), Paused: true},
			[]string{"paused/team_limit", "paused/team_limit"}, []string{"TransactGetItems", "BatchGetItem", "TransactWriteItems"}},
		{"the same limit again is unchanged", `{"monthlyCreditLimit": 5}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(5), Unchanged: true, Paused: true},
			[]string{"paused/team_limit", "paused/team_limit"}, []string{"TransactGetItems", "BatchGetItem"}},
		{"raising it above the usage resumes them", `{"monthlyCreditLimit": 5.5}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(5.5)}, []string{"running", "running"},
			[]string{"TransactGetItems", "BatchGetItem", "TransactWriteItems", "TransactGetItems", "BatchGetItem"}},
		{"a limit of 0 pauses them", `{"monthlyCreditLimit": 0}`,
			teamResult{ID: "team_a", Name: "Research", MonthlyCreditLimit: num(0), Paused: true},
			[]string{"paused/team_limit", "paused/team_limit"}, []string{"TransactGetItems", "BatchGetItem", "TransactWriteItems"}},
		{"removing it with null resumes them", `{"monthlyCreditLimit": null}`,
			teamResult{ID: "team_a", Name: "Research"}, []string{"running", "running"},
			[]string{"TransactGetItems", "BatchGetItem", "TransactWriteItems"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPut, teamLimitPath("team_a"), keyAdmin, s.body)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			// A team's snapshot and its usage shards are read at once,
			// landing in either order: compare the calls made.
			if ops := env.FunctionTrips.Ops(); !slices.Equal(slices.Sorted(slices.Values(ops)), slices.Sorted(slices.Values(s.wantTrips))) {
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
	t.Parallel()
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
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodPut, teamLimitPath("team_a"), keyTeamA, `{"monthlyCreditLimit": 100}`)
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
}

// TestWhoMaySetATeamsLimit: a workspace admin sets any team's limit; anyone
// else only a team they administer, refused alike for a team they do not
// administer, an unknown team and another workspace's. The body is checked
// (400) before the role (403), and a refusal writes nothing. The cases run
// in order on one workspace.
func TestWhoMaySetATeamsLimit(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, key, team, body string
		want                  int
		wantTrips             []string // nil: not checked
	}{
		{"an admin, any team: no extra read", keyAdmin, "team_b", `{"monthlyCreditLimit": 100}`, 200,
			[]string{"TransactGetItems", "BatchGetItem", "TransactWriteItems", "TransactGetItems", "BatchGetItem"}},
		{"the team's admin", keyCreator, "team_a", `{"monthlyCreditLimit": 50}`, 200,
			[]string{"GetItem", "TransactGetItems", "BatchGetItem", "TransactWriteItems", "TransactGetItems", "BatchGetItem"}},
		{"the team's admin removes it", keyCreator, "team_a", `{"monthlyCreditLimit": null}`, 200, nil},
		{"the team's admin, an invalid body: 400 first", keyCreator, "team_a", `{"monthlyCreditLimit": -1}`, 400, []string{}},
		{"a Creator, a team they do not administer", keyCreator, "team_b", `{"monthlyCreditLimit": 1}`, 403, []string{"GetItem"}},
		{"a Creator, an unknown team", keyCreator, "team_nope", `{"monthlyCreditLimit": 1}`, 403, []string{"GetItem"}},
		{"a Creator, another workspace's team", keyCreator, "team_other", `{"monthlyCreditLimit": 1}`, 403, []string{"GetItem"}},
		{"a Creator, an id over 256 characters: 404 without reading", keyCreator, strings.Repeat("t", 257), `{"monthlyCreditLimit": 1}`, 404, []string{}},
		{"a member of the team who is not its admin", keyMember, "team_a", `{"monthlyCreditLimit": 1}`, 403, []string{"GetItem"}},
		{"a member of the team, removing it", keyMember, "team_a", `{"monthlyCreditLimit": null}`, 403, nil},
		{"a read-only key", keyRead, "team_a", `{"monthlyCreditLimit": 1}`, 403, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPut, teamLimitPath(tc.team), tc.key, tc.body)
			if res.Status != tc.want {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.want)
			}
			if tc.want == http.StatusForbidden && tc.key != keyRead {
				if msg := res.Error(t); msg != "only workspace admins and the team's admins can change this team" {
					t.Errorf("error %q, want the team-change refusal", msg)
				}
			}
			// A team's snapshot and its usage shards are read at once,
			// landing in either order: compare the calls made.
			if ops := env.FunctionTrips.Ops(); tc.wantTrips != nil && !slices.Equal(slices.Sorted(slices.Values(ops)), slices.Sorted(slices.Values(tc.wantTrips))) {
				t.Errorf("round trips %v, want %v", ops, tc.wantTrips)
			}
		})
	}
	var report struct {
		Teams []struct {
			ID                 string
			MonthlyCreditLimit *float64
		}
	}
	res := env.Do(t, http.MethodGet, "/workspaceapi/credits", keyCreator, "") // reads follow the scopes alone
	if res.Status != http.StatusOK {
		t.Fatalf("the report with the Creator's key: %d %s", res.Status, res.Body)
	}
	res.JSON(t, &report)
	if got := show(report.Teams); got != `[{"ID":"team_a","MonthlyCreditLimit":null},{"ID":"team_b","MonthlyCreditLimit":100}]` {
		t.Errorf("teams' limits %s, want team_a none and team_b 100: refusals change nothing", got)
	}
}

// A team limit of -0 is kept and answered as 0, as every reader shows it.
func TestATeamLimitOfMinusZeroIsZero(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodPut, teamLimitPath("team_a"), keyAdmin, `{"monthlyCreditLimit": -0}`)
	if res.Status != http.StatusOK || !strings.Contains(string(res.Body), `"monthlyCreditLimit":0,`) {
		t.Errorf("answer %d %s, want 200 with monthlyCreditLimit 0", res.Status, res.Body)
	}
}
