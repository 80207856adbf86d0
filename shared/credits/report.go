package credits

import (
	"net/http"
	"strings"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// reportResponse is the body of GET /workspaceapi/credits
// (docs/credit-rules.md, The credits report): a page of it.
type reportResponse struct {
	Month                   string      `json:"month"`
	TotalCredits            float64     `json:"totalCredits"`
	DefaultDailyCreditLimit *float64    `json:"defaultDailyCreditLimit"`
	Teams                   []teamLine  `json:"teams"`
	Agents                  []agentLine `json:"agents"`
	NextCursor              *string     `json:"nextCursor"`
}

// teamLine is a team's line of the report.
type teamLine struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	MonthlyCreditLimit *float64 `json:"monthlyCreditLimit"`
	CreditsUsed        float64  `json:"creditsUsed"`
	Paused             bool     `json:"paused"`
}

// agentLine is an agent's line of the report.
type agentLine struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	TeamID             *string  `json:"teamId"`
	CreditsToday       float64  `json:"creditsToday"`
	CreditsThisMonth   float64  `json:"creditsThisMonth"`
	DailyCreditLimit   *float64 `json:"dailyCreditLimit"`
	MonthlyCreditLimit *float64 `json:"monthlyCreditLimit"`
	httpapi.AgentState
}

// reportPageLimit is both the default and the largest limit of a report
// page: up to 1,000 teams and 1,000 agents, a few hundred KB with the ids
// and names of a typical workspace (docs/credit-rules.md), so that a
// workspace of up to 1,000 agents and 1,000 teams gets its whole report in
// one answer, as before the report was paged.
const reportPageLimit = httpapi.MaxPageLimit

// errFutureMonth is the 400 of a month that has not begun.
var errFutureMonth = workspace.Invalid("month must not be after the current month (UTC)")

// errReportCursor is the 400 of a cursor this report did not make.
var errReportCursor = workspace.Invalid("cursor is not a cursor this API returned for this report: keep the month of the page that returned it")

// reportQuery is a checked report request.
type reportQuery struct {
	month   string // YYYY-MM
	limit   int
	from    workspace.ReportPos
	binding string // what its cursors are bound to (httpapi.CursorBinding)
	key     httpapi.CursorKey
}

// creditsReport handles GET /workspaceapi/credits: the workspace's credit
// use in one UTC month (this month by default), per team and per agent,
// private agents included, a page at a time. Workspace-wide: a team-scoped
// key gets 403. The query is checked before anything is read.
func creditsReport(store Store, clock workspace.Clock, cursors *httpapi.Cursors) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		now := clock.Now()
		q, err := parseReportQuery(r, now)
		if err != nil {
			return err
		}
		// The cursor key is read only for a cursor to check or to make: a
		// report of one page needs none.
		if c, set, err := httpapi.QueryString(r, "cursor"); err != nil {
			return err
		} else if set {
			if q.key, err = cursors.Key(r.Context()); err != nil {
				return err
			}
			if q.month, q.from, err = decodeReportCursor(q, c); err != nil {
				return err
			}
		}
		rep, err := store.CreditsReportPage(r.Context(), caller.WorkspaceID, q.month, now, q.from, q.limit)
		if err != nil {
			return err
		}
		body := newReport(rep)
		if rep.Next != nil {
			if q.key, err = cursors.Key(r.Context()); err != nil {
				return err
			}
			c := encodeReportCursor(q, *rep.Next)
			body.NextCursor = &c
		}
		httpapi.JSON(w, http.StatusOK, body)
		return nil
	}
}

// parseReportQuery checks month (YYYY-MM, not after now's; now's when
// absent) and limit (1 to reportPageLimit, reportPageLimit when absent).
func parseReportQuery(r *http.Request, now time.Time) (reportQuery, error) {
	q := reportQuery{limit: reportPageLimit, binding: httpapi.CursorBinding(r)}
	month, set, err := httpapi.QueryMonth(r, "month")
	if err != nil {
		return q, err
	}
	if !set {
		month = now
	}
	if workspace.MonthKey(month) > workspace.MonthKey(now) {
		return q, errFutureMonth
	}
	q.month = workspace.MonthKey(month)
	if limit, set, err := httpapi.QueryInt(r, "limit", 1, reportPageLimit); err != nil {
		return q, err
	} else if set {
		q.limit = limit
	}
	return q, nil
}

// Cursor positions: the month (so that a report asked for without month
// keeps its month across a month's end), the list ("t" teams, "a" agents)
// and the id of the line the next page starts after, bound to the listing
// (httpapi.CursorKey.Bind): a cursor of another workspace or month is
// refused rather than misread.
const (
	cursorTeams  = "t"
	cursorAgents = "a"
)

// encodeReportCursor makes the cursor of q's page that starts at pos.
func encodeReportCursor(q reportQuery, pos workspace.ReportPos) string {
	list := cursorTeams
	if pos.Agents {
		list = cursorAgents
	}
	return q.key.Bind(q.binding, q.month+"|"+list+"|"+pos.After)
}

// decodeReportCursor reads a cursor of q's listing: its month (which must
// be q's when the request names one) and where it starts.
func decodeReportCursor(q reportQuery, c string) (month string, pos workspace.ReportPos, err error) {
	raw, ok := q.key.Unbind(q.binding, c)
	month, rest, ok1 := strings.Cut(raw, "|")
	list, after, ok2 := strings.Cut(rest, "|")
	if !ok || !ok1 || !ok2 || (list != cursorTeams && list != cursorAgents) || !workspace.PlausibleID(after) {
		return "", pos, errReportCursor
	}
	if m, err := time.Parse("2006-01", month); err != nil || workspace.MonthKey(m) != month {
		return "", pos, errReportCursor
	}
	return month, workspace.ReportPos{Agents: list == cursorAgents, After: after}, nil
}

// newReport returns rep's wire form.
func newReport(rep workspace.CreditsReport) reportResponse {
	body := reportResponse{
		Month: rep.Month, TotalCredits: rep.Total, DefaultDailyCreditLimit: rep.DefaultDailyLimit,
		Teams: make([]teamLine, len(rep.Teams)), Agents: make([]agentLine, len(rep.Agents)),
	}
	for i, t := range rep.Teams {
		body.Teams[i] = teamLine{ID: t.Team.ID, Name: t.Team.Name, MonthlyCreditLimit: t.Team.MonthlyCreditLimit,
			CreditsUsed: t.Used, Paused: t.Paused}
	}
	for i, a := range rep.Agents {
		limits := a.Credit.Limits()
		line := agentLine{ID: a.Agent.ID, Name: a.Agent.Name, CreditsToday: a.Today, CreditsThisMonth: a.Month,
			DailyCreditLimit: limits.Daily, MonthlyCreditLimit: limits.Monthly, AgentState: httpapi.NewAgentState(a.Credit.State())}
		if a.Agent.TeamID != "" {
			team := a.Agent.TeamID
			line.TeamID = &team
		}
		body.Agents[i] = line
	}
	return body
}
