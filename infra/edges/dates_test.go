// Package edges_test walks the edges of every date and time parameter of
// the API: years 1970 to 9999 are accepted and never answer a 5xx, years
// outside them answer 400 on every route; a period that would reach past
// 9999-12-31 ends there (docs/bounds.md).
package edges_test

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

const readKey = "wk_demoAdminKey0000000000000000000000000001"

func TestEveryDateAndTimeParameterFrom1970To9999AnswersWithoutA5xx(t *testing.T) {
	env := apitest.New(t, apitest.DemoFixture(t))
	const agent = "/workspaceapi/agents/agt_support_triage"
	// Outside 1970 to 9999 every route refuses (400), never an empty 200;
	// inside, a month after this one is refused (400) too.
	ok, bad := []int{http.StatusOK}, []int{http.StatusBadRequest}
	okOrFuture := []int{http.StatusOK, http.StatusBadRequest}
	for _, tc := range []struct {
		name, path string
		want       []int
	}{
		// key metrics: startDate, endDate (dates and timestamps), days
		{"key metrics from the first day", agent + "/key-metrics?startDate=1970-01-01&endDate=1970-01-02", ok},
		{"key metrics to the last day", agent + "/key-metrics?startDate=9999-12-30&endDate=9999-12-31", ok},
		{"key metrics to the last instant", agent + "/key-metrics?startDate=9999-12-31T00:00:00Z&endDate=9999-12-31T23:59:59.999Z", ok},
		{"key metrics over a whole year ending the last day", agent + "/key-metrics?startDate=9999-01-01&endDate=9999-12-31", ok},
		{"key metrics, a lookback ending the last day", agent + "/key-metrics?endDate=9999-12-31&days=365", ok},
		{"key metrics, a lookback past the first day", agent + "/key-metrics?endDate=1970-01-02&days=365", ok},
		{"key metrics, a lookback to the first day", agent + "/key-metrics?endDate=1970-01-02&days=1", ok},
		{"key metrics from before 1970", agent + "/key-metrics?startDate=1969-12-31&endDate=1970-01-02", bad},
		{"key metrics to year 0", agent + "/key-metrics?endDate=0000-01-01", bad},
		{"key metrics to a year past 9999", agent + "/key-metrics?startDate=9999-12-30&endDate=10000-01-01", bad},
		{"key metrics with an offset", agent + "/key-metrics?startDate=9999-12-30T00:00:00%2B02:00&endDate=9999-12-31T23:00:00-01:00", ok},
		// diary: date, year and month
		{"the diary of the first day", agent + "/diary?date=1970-01-01", ok},
		{"the diary of the last day", agent + "/diary?date=9999-12-31", ok},
		{"the diary of the last instant", agent + "/diary?date=9999-12-31T23:59:59Z", ok},
		{"the diary of the first month", agent + "/diary?year=1970&month=1", ok},
		{"the diary of the last month", agent + "/diary?year=9999&month=12", ok},
		{"the diary before 1970", agent + "/diary?date=1969-12-31", bad},
		{"the diary of a year past 9999", agent + "/diary?year=10000&month=1", bad},
		{"the diary of year 1969", agent + "/diary?year=1969&month=12", bad},
		{"the diary of a timestamp in 1969", agent + "/diary?date=1969-12-31T23:00:00Z", bad},
		{"the diary of year 0", agent + "/diary?date=0000-01-01", bad},
		// credits report and agent usage: month, days
		{"the credits of the first month", "/workspaceapi/credits?month=1970-01", ok},
		{"the credits of the last month", "/workspaceapi/credits?month=9999-12", okOrFuture},
		{"the credits before 1970", "/workspaceapi/credits?month=1969-12", bad},
		{"the credits of year 0", "/workspaceapi/credits?month=0000-01", bad},
		{"the usage of the first month", agent + "/usage?month=1970-01", ok},
		{"the usage of the last month", agent + "/usage?month=9999-12", okOrFuture},
		{"the usage of a month before 1970", agent + "/usage?month=1969-12", bad},
		{"the usage of year 0", agent + "/usage?month=0000-01", bad},
		{"the usage of the longest lookback", agent + "/usage?days=366", ok},
		// usage export: from, to
		{"the export from the first day", "/workspaceapi/credits/export?from=1970-01-01&to=1970-01-02", ok},
		{"the export from before 1970", "/workspaceapi/credits/export?from=1969-12-31&to=1970-01-01", bad},
		{"the export from year 0", "/workspaceapi/credits/export?from=0000-01-01&to=0000-01-02", bad},
		// audit log: since, until
		{"the audit log since the first instant", "/workspaceapi/audit-log?since=1970-01-01T00:00:00Z", ok},
		{"the audit log since before 1970", "/workspaceapi/audit-log?since=1969-12-31", bad},
		{"the audit log until year 1", "/workspaceapi/audit-log?until=0001-01-01", bad},
		{"the audit log in years 0 and 1", "/workspaceapi/audit-log?since=0000-01-01T00:00:00Z&until=0001-01-01T00:00:00Z", bad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, tc.path, readKey, "")
			if res.Status >= 500 {
				t.Fatalf("GET %s answered %d %s", tc.path, res.Status, res.Body)
			}
			if !slices.Contains(tc.want, res.Status) {
				t.Errorf("GET %s answered %d %s, want %v", tc.path, res.Status, res.Body, tc.want)
			}
		})
	}
}

// Times of 1970 and 9999 that their offset takes outside those years in
// UTC (a time of year 9999 into year 10000, one of 1970 into 1969) bound
// their periods as the last instant and 1970's first do: they never widen
// a period to everything (docs/bounds.md).
func TestTimesPastTheEdgesBoundTheirPeriodsAtTheEdges(t *testing.T) {
	env := apitest.New(t, apitest.DemoFixture(t))
	const agent = "/workspaceapi/agents/agt_support_triage"
	if res := env.Do(t, http.MethodPost, "/workspaceapi/agents/tags", readKey, `{"ids": ["agt_support_triage"], "tags": ["edge"]}`); res.Status != http.StatusOK {
		t.Fatalf("tagging for an audit entry: %d %s", res.Status, res.Body)
	}
	count := func(t *testing.T, path, field string) int {
		t.Helper()
		res := env.Do(t, http.MethodGet, path, readKey, "")
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
		}
		var body map[string][]json.RawMessage
		res.JSON(t, &body)
		return len(body[field])
	}
	if n := count(t, agent+"/diary?date=2026-11-21", "entries"); n == 0 {
		t.Fatal("the fixture's diary day 2026-11-21 holds no entries")
	}
	for _, tc := range []struct {
		name, path, field string
		wantSome          bool
	}{
		{"a diary date past the last instant in UTC", agent + "/diary?date=9999-12-31T20:00:00-05:00", "entries", false},
		{"a diary date one minute past it", agent + "/diary?date=9999-12-31T23:30:00-00:31", "entries", false},
		{"an audit since past the last instant", "/workspaceapi/audit-log?since=9999-12-31T23:59:59-00:01", "entries", false},
		{"an audit until past the last instant", "/workspaceapi/audit-log?until=9999-12-31T20:00:00-05:00", "entries", true},
		{"an audit until of 1970 that its offset takes into 1969", "/workspaceapi/audit-log?until=1970-01-01T00:30:00%2B01:00", "entries", false},
		{"an audit since of 1970 that its offset takes into 1969", "/workspaceapi/audit-log?since=1970-01-01T00:30:00%2B01:00", "entries", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := count(t, tc.path, tc.field) > 0; got != tc.wantSome {
				t.Errorf("GET %s holds entries: %v, want %v", tc.path, got, tc.wantSome)
			}
		})
	}
}
