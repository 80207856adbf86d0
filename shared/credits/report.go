package credits

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// reportResponse is the body of GET /workspaceapi/credits
// (docs/credit-rules.md, The credits report).
type reportResponse struct {
	Month                   string      `json:"month"`
	TotalCredits            float64     `json:"totalCredits"`
	DefaultDailyCreditLimit *float64    `json:"defaultDailyCreditLimit"`
	Teams                   []teamLine  `json:"teams"`
	Agents                  []agentLine `json:"agents"`
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

// errFutureMonth is the 400 of a month that has not begun.
var errFutureMonth = workspace.Invalid("month must not be after the current month (UTC)")

// creditsReport handles GET /workspaceapi/credits: the workspace's credit
// use in one UTC month (this month by default), per team and per agent,
// private agents included. Workspace-wide: a team-scoped key gets 403.
func creditsReport(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		now := clock.Now()
		month, set, err := httpapi.QueryMonth(r, "month")
		if err != nil {
			return err
		}
		if !set {
			month = now
		}
		if workspace.MonthKey(month) > workspace.MonthKey(now) {
			return errFutureMonth
		}
		rep, err := store.CreditsReport(r.Context(), caller.WorkspaceID, workspace.MonthKey(month), now)
		if err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, newReport(rep))
		return nil
	}
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
