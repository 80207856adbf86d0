package credits_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const (
	creditLimitsPath = "/workspaceapi/agents/credit-limits"
	resetPath        = "/workspaceapi/agents/daily-usage/reset"
)

// creditResult is the one result a single-id credit batch is checked against.
type creditResult struct {
	success   bool
	unchanged bool
	applied   string // JSON, "" when absent
	impact    string // JSON, "" when absent
	err       string
}

func checkResult(t *testing.T, res batch, want creditResult) {
	t.Helper()
	if len(res.Results) != 1 {
		t.Fatalf("results %+v, want one", res.Results)
	}
	r := res.Results[0]
	unchanged := r.Unchanged != nil && *r.Unchanged
	if r.Success != want.success || unchanged != want.unchanged || string(r.Applied) != want.applied ||
		string(r.Impact) != want.impact || r.Error != want.err {
		t.Errorf("result success=%v unchanged=%v applied=%s impact=%s error=%q\nwant   success=%v unchanged=%v applied=%s impact=%s error=%q",
			r.Success, unchanged, r.Applied, r.Impact, r.Error, want.success, want.unchanged, want.applied, want.impact, want.err)
	}
}

func TestCreditLimitsApplyAtOnceAndReportTheirImpact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		usage     map[string]float64 // recorded before the request
		key, body string
		want      creditResult
		wantState string // the agent's overview status afterwards
	}{
		{"a daily limit at today's usage stops the agent", map[string]float64{"ag_free": 3}, keyAdmin,
			`{"ids": ["ag_free"], "dailyCreditLimit": 3}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":3,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":3}`,
				impact: `{"status":"stopped","statusReason":"daily_limit"}`}, "stopped/daily_limit"},
		{"raising the daily limit above usage resumes the agent", map[string]float64{"ag_daily": 5}, keyAdmin,
			`{"ids": ["ag_daily"], "dailyCreditLimit": 6}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":6,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":6}`,
				impact: `{"status":"running","statusReason":null}`}, "running"},
		{"a null daily limit falls back to the workspace default", map[string]float64{"ag_daily": 5}, keyCreator,
			`{"ids": ["ag_daily"], "dailyCreditLimit": null}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":null,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":20}`,
				impact: `{"status":"running","statusReason":null}`}, "running"},
		{"an omitted monthly limit stays as it is", nil, keyCreator,
			`{"ids": ["ag_monthly"], "dailyCreditLimit": 7}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":7,"monthlyCreditLimit":8,"effectiveDailyCreditLimit":7}`}, "running"},
		{"the limits already in force are unchanged", map[string]float64{"ag_daily": 1}, keyAdmin,
			`{"ids": ["ag_daily"], "dailyCreditLimit": 5, "monthlyCreditLimit": null}`,
			creditResult{success: true, unchanged: true, applied: `{"dailyCreditLimit":5,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":5}`}, "running"},
		{"a monthly limit at the month's usage stops the agent", map[string]float64{"ag_free": 3}, keyAdmin,
			`{"ids": ["ag_free"], "monthlyCreditLimit": 3}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":null,"monthlyCreditLimit":3,"effectiveDailyCreditLimit":20}`,
				impact: `{"status":"stopped","statusReason":"monthly_limit"}`}, "stopped/monthly_limit"},
		{"removing the monthly limit resumes the agent", map[string]float64{"ag_monthly": 8}, keyAdmin,
			`{"ids": ["ag_monthly"], "monthlyCreditLimit": null}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":null,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":20}`,
				impact: `{"status":"running","statusReason":null}`}, "running"},
		{"a limit of 0 stops an agent that has used nothing", nil, keyAdmin,
			`{"ids": ["ag_private"], "dailyCreditLimit": 0}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":0,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":0}`,
				impact: `{"status":"stopped","statusReason":"daily_limit"}`}, "stopped/daily_limit"},
		{"a limit of -0 is a limit of 0", nil, keyAdmin,
			`{"ids": ["ag_private"], "dailyCreditLimit": -0}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":0,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":0}`,
				impact: `{"status":"stopped","statusReason":"daily_limit"}`}, "stopped/daily_limit"},
		{"a limit is kept to nine decimal places", nil, keyAdmin,
			`{"ids": ["ag_private"], "dailyCreditLimit": 2.1234567891234, "monthlyCreditLimit": 1e-200}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":2.123456789,"monthlyCreditLimit":0,"effectiveDailyCreditLimit":2.123456789}`,
				impact: `{"status":"stopped","statusReason":"monthly_limit"}`}, "stopped/monthly_limit"},
		{"a paused agent whose own limit is reached stays paused: no impact", map[string]float64{"ag_support1": 6, "ag_support2": 4}, keyAdmin,
			`{"ids": ["ag_support1"], "dailyCreditLimit": 1}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":1,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":1}`}, "paused/team_limit"},
		{"a team-scoped key reaches its team's agents", nil, keyTeamA,
			`{"ids": ["ag_private"], "dailyCreditLimit": 2}`,
			creditResult{success: true, applied: `{"dailyCreditLimit":2,"monthlyCreditLimit":null,"effectiveDailyCreditLimit":2}`}, "running"},
		{"a team-scoped key does not reach another team's agent", nil, keyTeamA,
			`{"ids": ["ag_free"], "dailyCreditLimit": 2}`,
			creditResult{err: "agent not found"}, "running"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t)
			for agent, credits := range tc.usage {
				use(t, env, agent, credits)
			}
			res := env.Do(t, http.MethodPost, creditLimitsPath, tc.key, tc.body)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			var body batch
			res.JSON(t, &body)
			checkResult(t, body, tc.want)
			agent := body.Results[0].ID
			if o := overviews(t, env)[agent]; state(o.Status, o.StatusReason) != tc.wantState {
				t.Errorf("%s is %s in the overview, want %s", agent, state(o.Status, o.StatusReason), tc.wantState)
			}
		})
	}
}

func TestCreditLimitsFailPerIDForAgentsTheKeyCannotSee(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	long := strings.Repeat("a", 257)
	res := env.Do(t, http.MethodPost, creditLimitsPath, keyAdmin,
		`{"ids": ["ag_free", "ag_nope", "ag_other", "`+long+`", "ag_free"], "dailyCreditLimit": 4}`)
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var body batch
	res.JSON(t, &body)
	var got []string
	for _, r := range body.Results {
		got = append(got, fmt.Sprintf("%s:%v:%s:%s", r.ID, r.Success, r.Name, r.Error))
	}
	want := []string{"ag_free:true:Agent free:", "ag_nope:false::agent not found", "ag_other:false::agent not found",
		long + ":false::agent not found"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("results %q\nwant    %q (the repeated id once; unknown, other tenants' and over-long ids fail alone)", got, want)
	}
	if s := body.Summary; s.Total != 4 || s.Succeeded != 1 || s.Failed != 3 || s.Unchanged != 0 {
		t.Errorf("summary %+v, want total 4, succeeded 1, failed 3", s)
	}
}

func TestCreditLimitsWholeRequestErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tooMany := `"a"` + strings.Repeat(`, "a"`, 100)
	tests := []struct {
		name, key, body string
		wantStatus      int
		wantError       string
	}{
		{"a non-admin naming the monthly limit", keyCreator, `{"ids": ["ag_free"], "monthlyCreditLimit": 5}`, 403, "only workspace admins"},
		{"a non-admin naming the monthly limit as null", keyCreator, `{"ids": ["ag_free"], "dailyCreditLimit": 1, "monthlyCreditLimit": null}`, 403, "only workspace admins"},
		{"a key without write", keyRead, `{"ids": ["ag_free"], "dailyCreditLimit": 1}`, 403, ""},
		{"neither limit", keyAdmin, `{"ids": ["ag_free"]}`, 400, "give dailyCreditLimit, monthlyCreditLimit or both"},
		{"a negative limit", keyAdmin, `{"ids": ["ag_free"], "dailyCreditLimit": -1}`, 400, "dailyCreditLimit must be at least 0"},
		{"a limit past 10^12", keyAdmin, `{"ids": ["ag_free"], "monthlyCreditLimit": 1e13}`, 400, "monthlyCreditLimit must be at most"},
		{"a limit as text", keyAdmin, `{"ids": ["ag_free"], "dailyCreditLimit": "5"}`, 400, "dailyCreditLimit"},
		{"a typo in a field name", keyAdmin, `{"ids": ["ag_free"], "monthlyCreditLimt": 5}`, 400, `unknown field "monthlyCreditLimt"`},
		{"no ids", keyAdmin, `{"ids": [], "dailyCreditLimit": 1}`, 400, "ids must list at least one id"},
		{"ids missing", keyAdmin, `{"dailyCreditLimit": 1}`, 400, "ids"},
		{"ids null", keyAdmin, `{"ids": null, "dailyCreditLimit": 1}`, 400, "ids"},
		{"101 ids", keyAdmin, `{"ids": [` + tooMany + `], "dailyCreditLimit": 1}`, 400, "at most 100"},
		{"a key-shaped id", keyAdmin, `{"ids": ["` + keyAdmin + `"], "dailyCreditLimit": 1}`, 400, "ids[0] looks like an API key"},
		{"malformed JSON", keyAdmin, `{"ids": [`, 400, "JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPost, creditLimitsPath, tc.key, tc.body)
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if msg := res.Error(t); !strings.Contains(msg, tc.wantError) || strings.Contains(msg, "wk_") {
				t.Errorf("error %q, want it to mention %q and no key", msg, tc.wantError)
			}
			if res.FunctionTrips != 0 {
				t.Errorf("a refused request reached storage: %v", env.FunctionTrips.Ops())
			}
		})
	}
	res := env.DoRaw(t, http.MethodPost, creditLimitsPath,
		map[string]string{"Authorization": "Bearer " + keyAdmin, "Content-Type": "text/plain"}, `{"ids": ["ag_free"], "dailyCreditLimit": 1}`)
	if res.Status != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain body: status %d, want 415", res.Status)
	}
}

func TestDailyUsageReset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		usage      map[string]float64
		key, agent string
		want       creditResult
		wantState  string
		wantMonth  float64 // creditsThisMonth afterwards
	}{
		{"resumes an agent its daily limit stopped", map[string]float64{"ag_daily": 5}, keyAdmin, "ag_daily",
			creditResult{success: true, applied: `{"creditsToday":0}`, impact: `{"status":"running","statusReason":null}`}, "running", 5},
		{"an agent its monthly limit stopped stays stopped; the month's usage stays", map[string]float64{"ag_monthly": 8}, keyAdmin, "ag_monthly",
			creditResult{success: true, applied: `{"creditsToday":0}`}, "stopped/monthly_limit", 8},
		{"a running agent's usage of today is zeroed without impact", map[string]float64{"ag_free": 3}, keyCreator, "ag_free",
			creditResult{success: true, applied: `{"creditsToday":0}`}, "running", 3},
		{"nothing to reset is unchanged", nil, keyAdmin, "ag_free",
			creditResult{success: true, unchanged: true, applied: `{"creditsToday":0}`}, "running", 0},
		{"a team-scoped key does not reach another team's agent", map[string]float64{"ag_free": 3}, keyTeamA, "ag_free",
			creditResult{err: "agent not found"}, "running", 3},
		{"an unknown agent fails alone", nil, keyAdmin, "ag_nope", creditResult{err: "agent not found"}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t)
			for agent, credits := range tc.usage {
				use(t, env, agent, credits)
			}
			res := env.Do(t, http.MethodPost, resetPath, tc.key, `{"ids": ["`+tc.agent+`"]}`)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			var body batch
			res.JSON(t, &body)
			checkResult(t, body, tc.want)
			if tc.wantState == "" {
				return
			}
			o := overviews(t, env)[tc.agent]
			if state(o.Status, o.StatusReason) != tc.wantState || o.CreditsThisMonth != tc.wantMonth {
				t.Errorf("%s: %s with %v this month, want %s with %v", tc.agent, state(o.Status, o.StatusReason), o.CreditsThisMonth, tc.wantState, tc.wantMonth)
			}
			if tc.want.success && o.CreditsToday != 0 {
				t.Errorf("%s: creditsToday %v after the reset, want 0", tc.agent, o.CreditsToday)
			}
		})
	}
}

func TestDailyUsageResetWholeRequestErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, key, body string
		wantStatus      int
	}{
		{"a key without write", keyRead, `{"ids": ["ag_free"]}`, 403},
		{"no ids", keyAdmin, `{"ids": []}`, 400},
		{"an unknown field", keyAdmin, `{"ids": ["ag_free"], "creditsToday": 0}`, 400},
		{"not an object", keyAdmin, `["ag_free"]`, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPost, resetPath, tc.key, tc.body)
			if res.Status != tc.wantStatus || res.FunctionTrips != 0 {
				t.Errorf("status %d after %d round trips (%s), want %d before any", res.Status, res.FunctionTrips, res.Body, tc.wantStatus)
			}
		})
	}
}
