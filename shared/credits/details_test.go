package credits_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

const creditDetailsPath = "/workspaceapi/agents/credit-details"

func TestCreditDetailsAreDisplayOnly(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	use(t, env, "ag_daily", 5) // stops ag_daily by its daily limit
	before := overviews(t, env)
	res := env.Do(t, http.MethodPost, creditDetailsPath, keyCreator, `{"ids": ["ag_daily", "ag_support1", "ag_nope"], "showTokenOptimisationInfo": true}`)
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var body batch
	res.JSON(t, &body)
	var got []string
	for _, r := range body.Results {
		got = append(got, fmt.Sprintf("%s:%v:%s:%s:%s", r.ID, r.Success, r.Applied, r.Impact, r.Error))
	}
	want := []string{`ag_daily:true:{"showTokenOptimisationInfo":true}::`, `ag_support1:true:{"showTokenOptimisationInfo":true}::`, "ag_nope:false:::agent not found"}
	if !slices.Equal(got, want) {
		t.Errorf("results %q\nwant    %q", got, want)
	}
	if n := strings.Count(strings.Join(env.FunctionTrips.Ops(), " "), "TransactWriteItems"); n != 2 {
		t.Errorf("ops %v, want 2 TransactWriteItems", env.FunctionTrips.Ops())
	}
	after := overviews(t, env)
	for _, id := range []string{"ag_daily", "ag_support1"} {
		a, b := after[id], before[id]
		if state(a.Status, a.StatusReason) != state(b.Status, b.StatusReason) || show(a.DailyCreditLimit) != show(b.DailyCreditLimit) {
			t.Errorf("%s: state or limits changed by a display setting", id)
		}
	}
	res = env.Do(t, http.MethodPost, creditDetailsPath, keyAdmin, `{"ids": ["ag_daily"], "showTokenOptimisationInfo": true}`)
	res.JSON(t, &body)
	if s := body.Summary; s.Unchanged != 1 || slices.Contains(env.FunctionTrips.Ops(), "TransactWriteItems") {
		t.Errorf("setting the value in force: summary %+v ops %v, want unchanged and no write", s, env.FunctionTrips.Ops())
	}
	if o := overviews(t, env)["ag_daily"]; !o.ShowTokenOptimisationInfo {
		t.Errorf("the overview does not show the setting: %+v", o)
	}
}

func TestCreditDetailsScopeAndRequestErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodPost, creditDetailsPath, keyTeamA, `{"ids": ["ag_private", "ag_free", "ag_other"], "showTokenOptimisationInfo": true}`)
	var body batch
	res.JSON(t, &body)
	if s := body.Summary; s.Succeeded != 1 || s.Failed != 2 || !body.Results[0].Success {
		t.Errorf("a team-scoped key: %+v, want its team's agent alone", body.Results)
	}
	tests := []struct{ name, key, body string }{
		{"the flag missing", keyAdmin, `{"ids": ["ag_free"]}`},
		{"the flag null", keyAdmin, `{"ids": ["ag_free"], "showTokenOptimisationInfo": null}`},
		{"the flag as text", keyAdmin, `{"ids": ["ag_free"], "showTokenOptimisationInfo": "true"}`},
		{"no ids", keyAdmin, `{"ids": [], "showTokenOptimisationInfo": true}`},
		{"a key-shaped id", keyAdmin, `{"ids": ["` + keyAdmin + `"], "showTokenOptimisationInfo": true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPost, creditDetailsPath, tc.key, tc.body)
			if res.Status != 400 || res.FunctionTrips != 0 {
				t.Errorf("status %d after %d round trips (%s), want 400 before any", res.Status, res.FunctionTrips, res.Body)
			}
		})
	}
	if res := env.Do(t, http.MethodPost, creditDetailsPath, keyRead, `{"ids": ["ag_free"], "showTokenOptimisationInfo": true}`); res.Status != 403 {
		t.Errorf("a key without write: %d, want 403", res.Status)
	}
}
