// Package credits is the credit-limits endpoint group: agents' daily and
// monthly limits, daily-usage resets, agents' disable and enable, teams'
// monthly limits, the workspace's credits report, the usage export, an
// agent's daily usage and the display of credit details.
package credits

import (
	"context"
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	SetAgentLimits(ctx context.Context, by workspace.Actor, ws, teamScope string, ids []string, change workspace.LimitChange, now time.Time) []workspace.CreditOutcome
	ResetDailyUsage(ctx context.Context, by workspace.Actor, ws, teamScope string, ids []string, now time.Time) []workspace.CreditOutcome
	SetAgentStatus(ctx context.Context, by workspace.Actor, ws, teamScope string, ids []string, disable bool, now time.Time) []workspace.CreditOutcome
	// asTeamAdmin: the change holds only while by's owner is an admin of
	// the team (workspace.MayChangeTeam).
	SetTeamLimit(ctx context.Context, by workspace.Actor, asTeamAdmin bool, ws, teamID string, limit *float64, now time.Time) (workspace.TeamLimitOutcome, error)
	CreditsReportPage(ctx context.Context, ws, month string, now time.Time, from workspace.ReportPos, limit int) (workspace.CreditsReport, error)
	Agent(ctx context.Context, ws, id string) (workspace.Agent, error)
	AgentDailyUsage(ctx context.Context, ws, agentID string, from, to time.Time) ([]workspace.DayUsage, error)
	SetCreditDetails(ctx context.Context, by workspace.Actor, ws, teamScope string, ids []string, show bool, now time.Time) []workspace.DisplayOutcome
	// UsageMonthPage and ExportNames read the usage export's month listings
	// and its rows' names.
	UsageMonthPage(ctx context.Context, ws, team, month, after string, limit int) ([]workspace.AgentMonthSpend, bool, error)
	ExportNames(ctx context.Context, ws string, agentIDs, teamIDs []string) (agents, teams map[string]string, err error)
	// Member reads a key owner's member item, for their role in a team
	// (workspace.CanChangeTeam); only for callers who are not workspace admins.
	Member(ctx context.Context, ws, userID string) (workspace.Member, error)
}

// Deps are the group's dependencies.
type Deps struct {
	Store Store
	Clock workspace.Clock
	// Idempotency keeps the answers of writes sent with an Idempotency-Key.
	Idempotency httpapi.Idempotency
	// Cursors makes and reads the cursors of the usage export and the
	// credits report.
	Cursors *httpapi.Cursors
}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("POST /workspaceapi/agents/credit-limits", setAgentLimits(d.Store, d.Clock))
	mux.Handle("POST /workspaceapi/agents/daily-usage/reset", resetDailyUsage(d.Store, d.Clock))
	mux.Handle("POST /workspaceapi/agents/status", setAgentStatus(d.Store, d.Clock))
	mux.Handle("PUT /workspaceapi/teams/{teamId}/credit-limit", setTeamLimit(d.Store, d.Clock))
	mux.Handle("GET /workspaceapi/credits", creditsReport(d.Store, d.Clock, d.Cursors))
	mux.Handle("GET /workspaceapi/credits/export", usageExport(d.Store, d.Clock, d.Cursors))
	mux.Handle("GET /workspaceapi/agents/{agentId}/usage", agentUsage(d.Store, d.Clock))
	mux.Handle("POST /workspaceapi/agents/credit-details", setCreditDetails(d.Store, d.Clock))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), d.Idempotency) }
