// Package edges_test walks the edges of every date and time parameter of
// the API: years 1970 to 9999 are accepted and never answer a 5xx; a period
// that would reach past 9999-12-31 ends there (docs/bounds.md).
package edges_test

import (
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
	// Outside 1970 to 9999 an answer may refuse (400) or answer an empty
	// period (200); inside, a month after this one is refused (400) too.
	ok, bad := []int{http.StatusOK}, []int{http.StatusBadRequest, http.StatusOK}
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
		{"key metrics from before 1970", agent + "/key-metrics?startDate=1969-12-31&endDate=1970-01-02", []int{http.StatusBadRequest}},
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
		// credits report and agent usage: month, days
		{"the credits of the first month", "/workspaceapi/credits?month=1970-01", ok},
		{"the credits of the last month", "/workspaceapi/credits?month=9999-12", okOrFuture},
		{"the credits before 1970", "/workspaceapi/credits?month=1969-12", bad},
		{"the usage of the first month", agent + "/usage?month=1970-01", ok},
		{"the usage of the last month", agent + "/usage?month=9999-12", okOrFuture},
		{"the usage of a month before 1970", agent + "/usage?month=1969-12", bad},
		{"the usage of the longest lookback", agent + "/usage?days=366", ok},
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
