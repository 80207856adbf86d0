package workspace

import "time"

// Agent running statuses (decisions §5, §6).
const (
	StatusRunning = "running"
	StatusStopped = "stopped"
	StatusPaused  = "paused"
)

// Why an agent is not running. The most lasting reason wins: the team's limit
// (until raised, removed or the month rolls over) over the agent's monthly
// limit (until the month rolls over) over its daily limit (until the day
// rolls over or today's usage is reset).
const (
	ReasonDailyLimit   = "daily_limit"
	ReasonMonthlyLimit = "monthly_limit"
	ReasonTeamLimit    = "team_limit"
)

// AgentState is an agent's running state: StatusRunning with no reason, or
// stopped or paused with the reason.
type AgentState struct {
	Status string
	// Reason is empty while running.
	Reason string
}

// Running is the state of an agent no limit holds back.
var Running = AgentState{Status: StatusRunning}

// IsRunning reports whether the agent may run.
func (s AgentState) IsRunning() bool { return s.Status == StatusRunning }

// CreditPosition is what decides an agent's running state: its limits, its
// workspace's default daily limit, its usage in the current UTC day and
// month, and its team's monthly limit and usage (when it has a team).
type CreditPosition struct {
	// DailyLimit is the agent's own daily limit; nil falls back to
	// DefaultDailyLimit.
	DailyLimit *float64
	// DefaultDailyLimit is the workspace's; nil: no daily limit.
	DefaultDailyLimit *float64
	// MonthlyLimit is the agent's monthly limit; nil: none.
	MonthlyLimit *float64
	// Today and Month are the agent's usage in the current UTC day and month.
	Today, Month float64
	// TeamLimit is the monthly limit of the agent's team; nil: no team, or a
	// team without a limit.
	TeamLimit *float64
	// TeamMonth is the team's usage in the current UTC month, attributed to
	// the team at the time of use.
	TeamMonth float64
}

// EffectiveDailyLimit is the agent's daily limit, else the workspace default,
// else nil (none).
func (p CreditPosition) EffectiveDailyLimit() *float64 {
	if p.DailyLimit != nil {
		return p.DailyLimit
	}
	return p.DefaultDailyLimit
}

// reached reports whether usage has reached limit: a limit at or below the
// usage holds the agent back, so a limit of 0 stops it at once.
func reached(usage float64, limit *float64) bool { return limit != nil && usage >= *limit }

// TeamPaused reports whether the team's month usage has reached its limit.
func (p CreditPosition) TeamPaused() bool { return reached(p.TeamMonth, p.TeamLimit) }

// State is the running state the position calls for, the most lasting
// reason first (decisions §6).
func (p CreditPosition) State() AgentState {
	switch {
	case p.TeamPaused():
		return AgentState{Status: StatusPaused, Reason: ReasonTeamLimit}
	case reached(p.Month, p.MonthlyLimit):
		return AgentState{Status: StatusStopped, Reason: ReasonMonthlyLimit}
	case reached(p.Today, p.EffectiveDailyLimit()):
		return AgentState{Status: StatusStopped, Reason: ReasonDailyLimit}
	}
	return Running
}

// Impact is what a write did to an agent's running state, for a batch
// result's impact: the new state when it changed, nil when it did not.
func Impact(before, after AgentState) *AgentState {
	if before == after {
		return nil
	}
	return &after
}

// DayKey and MonthKey name the UTC day and month of t, the periods usage is
// counted in: a counter keyed by its period can never mix two periods, even
// for usage that lands before the scheduler has run for a new day.
func DayKey(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// MonthKey names the UTC month of t ("2026-11").
func MonthKey(t time.Time) string { return t.UTC().Format("2006-01") }
