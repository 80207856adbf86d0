package credits

import (
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Bounds of GET /workspaceapi/agents/{agentId}/usage (docs/endpoints.md).
const (
	minDays     = 1
	maxDays     = 366
	defaultDays = 30
)

// usageResponse is the body of GET /workspaceapi/agents/{agentId}/usage.
type usageResponse struct {
	AgentID   string     `json:"agentId"`
	StartDate string     `json:"startDate"`
	EndDate   string     `json:"endDate"`
	Total     float64    `json:"total"`
	Days      []dayUsage `json:"days"`
}

// dayUsage is one day of it.
type dayUsage struct {
	Date    string  `json:"date"`
	Credits float64 `json:"credits"`
}

// errDaysAndMonth is the 400 of a request naming both periods.
var errDaysAndMonth = workspace.Invalid("give days or month, not both")

// agentUsage handles GET /workspaceapi/agents/{agentId}/usage: the agent's
// credits spent per UTC day, zero-filled, oldest first, over the days
// ending today (days, default 30) or over one calendar month up to today
// (month). The query is checked before anything is read; an agent the key
// cannot see is not found (404), a private one is forbidden (403). Two round
// trips: the agent, then one Query of its usage months.
func agentUsage(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		from, to, err := usagePeriod(r, clock.Now())
		if err != nil {
			return err
		}
		id := r.PathValue("agentId")
		if !workspace.PlausibleID(id) {
			return workspace.ErrAgentNotFound
		}
		agent, err := store.Agent(r.Context(), caller.WorkspaceID, id)
		if err != nil {
			return err
		}
		if err := workspace.AgentReadable(caller, agent); err != nil {
			return err
		}
		days, err := store.AgentDailyUsage(r.Context(), caller.WorkspaceID, id, from, to)
		if err != nil {
			return err
		}
		body := usageResponse{AgentID: id, StartDate: workspace.DayKey(from), EndDate: workspace.DayKey(to),
			Days: make([]dayUsage, len(days))}
		credits := make([]float64, len(days))
		for i, d := range days {
			body.Days[i] = dayUsage{Date: d.Day, Credits: d.Credits}
			credits[i] = d.Credits
		}
		body.Total = workspace.SumCredits(credits...)
		httpapi.JSON(w, http.StatusOK, body)
		return nil
	}
}

// usagePeriod returns the first and last UTC day (at midnight) the request
// asks for at now: the days days ending today, or the month month up to
// today. A month after now's is a KindInvalid error.
func usagePeriod(r *http.Request, now time.Time) (from, to time.Time, err error) {
	days, daysSet, err := httpapi.QueryInt(r, "days", minDays, maxDays)
	if err != nil {
		return from, to, err
	}
	month, monthSet, err := httpapi.QueryMonth(r, "month")
	if err != nil {
		return from, to, err
	}
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	switch {
	case daysSet && monthSet:
		return from, to, errDaysAndMonth
	case monthSet:
		if month.After(today) {
			return from, to, errFutureMonth
		}
		last := month.AddDate(0, 1, -1)
		if last.After(today) {
			last = today
		}
		return month, last, nil
	case !daysSet:
		days = defaultDays
	}
	return today.AddDate(0, 0, 1-days), today, nil
}
