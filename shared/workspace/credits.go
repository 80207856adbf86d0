package workspace

import (
	"math"
	"strconv"
	"time"
)

// Agent running statuses (docs/credit-rules.md).
const (
	StatusRunning = "running"
	StatusStopped = "stopped"
	StatusPaused  = "paused"
	// StatusDisabled: an API call disabled the agent (POST
	// /workspaceapi/agents/status); it wins over every other status.
	StatusDisabled = "disabled"
)

// Why an agent is not running. The most lasting reason wins: the team's limit
// (until raised, removed or the month rolls over) over the agent's monthly
// limit (until the month rolls over) over its daily limit (until the day
// rolls over or today's usage is reset).
const (
	ReasonDailyLimit   = "daily_limit"
	ReasonMonthlyLimit = "monthly_limit"
	ReasonTeamLimit    = "team_limit"
	// ReasonDisabled goes with StatusDisabled, over every other reason.
	ReasonDisabled = "disabled"
)

// Disabled is the state of an agent an API call disabled.
var Disabled = AgentState{Status: StatusDisabled, Reason: ReasonDisabled}

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

// AgentPosition is agent a's position on the UTC day of now, given the
// workspace's default daily limit and, as stored for now's month, the
// agent's total usage and by day of month its usage counted toward that
// day's limit (a daily-usage reset zeroes that, not the spend). Its team's
// limit and usage are the caller's to add.
func AgentPosition(a Agent, defaultDaily *float64, monthTotal float64, counted [32]float64, now time.Time) CreditPosition {
	return CreditPosition{DailyLimit: a.DailyCreditLimit, DefaultDailyLimit: defaultDaily, MonthlyLimit: a.MonthlyCreditLimit,
		Today: counted[now.UTC().Day()], Month: monthTotal}
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
// reason first (docs/credit-rules.md).
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

// OwnState is the state the agent's own limits call for, leaving its team
// out: the team's pause is kept on the team, so that pausing or resuming a
// team is one write however many agents it has.
func (p CreditPosition) OwnState() AgentState {
	q := p
	q.TeamLimit = nil
	return q.State()
}

// rank orders states by how lasting their reason is.
func rank(s AgentState) int {
	switch s.Reason {
	case ReasonTeamLimit:
		return 3
	case ReasonMonthlyLimit:
		return 2
	case ReasonDailyLimit:
		return 1
	}
	return 0
}

// Escalate is the state usage leaves an agent in: usage only ever holds an
// agent back further (a more lasting reason replaces a less lasting one);
// only a new period, a reset or a limit change resumes it.
func Escalate(stored, computed AgentState) AgentState {
	if rank(computed) > rank(stored) {
		return computed
	}
	return stored
}

// AgentCredit is an agent's credit standing as every reader sees it: its
// position in the current UTC day and month, the running state stored for
// it, and whether its team is paused.
type AgentCredit struct {
	Position CreditPosition
	// Own is the agent's stored own state: running, or stopped by its daily
	// or monthly limit. It changes only through usage, limit changes, resets
	// and scheduler runs (docs/credit-rules.md), so a new day does not resume an
	// agent before the scheduler has run.
	Own AgentState
	// TeamPaused is the stored paused flag of the agent's team.
	TeamPaused bool
	// Disabled is the agent's stored disabled flag: a disabled agent shows
	// as disabled whatever its limits and its team call for, while its usage
	// still counts and its own state still follows its limits underneath.
	Disabled bool
	// LastActivityAt is the time of the agent's latest recorded usage; zero
	// when there is none.
	LastActivityAt time.Time
}

// State is the agent's running state: disabled while it is, else paused
// while its team is, else its own.
func (c AgentCredit) State() AgentState {
	if c.Disabled {
		return Disabled
	}
	if c.TeamPaused {
		return AgentState{Status: StatusPaused, Reason: ReasonTeamLimit}
	}
	return c.Own
}

// Limits returns the limits in force for the agent.
func (c AgentCredit) Limits() CreditLimits {
	return CreditLimits{
		Daily: c.Position.DailyLimit, Monthly: c.Position.MonthlyLimit,
		EffectiveDaily: c.Position.EffectiveDailyLimit(),
	}
}

// CreditLimits are the limits in force for an agent; nil: none.
type CreditLimits struct {
	Daily, Monthly, EffectiveDaily *float64
}

// MaxCredits bounds every credit figure the service takes: a credit limit,
// and the credits of one usage event. Past it, float64 sums stop being exact
// to the hundredth of a credit.
const MaxCredits = 1e12

// SumCredits adds credit figures and rounds the sum to 15 significant
// digits. Stored figures are DynamoDB decimals; as float64 their binary
// approximations drift when added (0.7 + 0.1 = 0.7999999999999999), which
// would leave a team whose usage exactly reached its limit running and show
// totals such as 340.25100000000003. Within MaxCredits, 15 digits keep every
// hundredth of a credit.
func SumCredits(xs ...float64) float64 {
	total := 0.0
	for _, x := range xs {
		total += x
	}
	return toComparedDigits(total)
}

// comparedDigits is how many significant digits credit figures are
// compared in (SumCredits, RoundFigure).
const comparedDigits = 15

// toComparedDigits returns x rounded to comparedDigits significant digits;
// x itself if it cannot be.
func toComparedDigits(x float64) float64 {
	rounded, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', comparedDigits, 64), 64)
	if err != nil {
		return x
	}
	return rounded
}

// FigureDecimals is how many decimal places a credit figure or a key
// metric's value keeps. Stored figures are summed by DynamoDB (ADD), whose
// numbers hold 38 significant digits: a sum of figures whose digits span
// more (10^12 and 10^-30) fails, and with it every later sum of the same
// total. Rounded to 9 places, within their bounds, sums keep far fewer.
const FigureDecimals = 9

// MinCredits is the least credits a usage event counts: the smallest
// figure FigureDecimals keep (UsageCredits).
const MinCredits = 1e-9

// RoundFigure returns v rounded to FigureDecimals decimal places and to the
// 15 significant digits sums are compared in (SumCredits), as it is stored
// and answered: so a limit is one that usage can reach exactly. -0 becomes
// 0. v must be within its bounds (checked first): the rounding writes out
// every integer digit.
func RoundFigure(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'f', FigureDecimals, 64), 64)
	if err != nil {
		return 0
	}
	if r = toComparedDigits(r); r == 0 {
		return 0
	}
	return r
}

// CheckCredits returns a KindInvalid error naming field unless v is a credit
// figure: a finite number from 0 (above 0 when positive) up to MaxCredits.
// The figure taken is RoundFigure(v), or UsageCredits(v) for usage.
func CheckCredits(field string, v float64, positive bool) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return Invalid("%s must be a number", field)
	case positive && v <= 0:
		return Invalid("%s must be greater than 0", field)
	case v < 0:
		return Invalid("%s must be at least 0", field)
	case v > MaxCredits:
		return Invalid("%s must be at most %g", field, float64(MaxCredits))
	}
	return nil
}

// UsageCredits is the credits a usage event of v (> 0, checked) adds to its
// totals: v as RoundFigure keeps it, and at least MinCredits, so that usage
// of any credits adds something. Totals are compared with limits to 15
// significant digits (SumCredits): past 10^6 credits, what a billionth adds
// is below that.
func UsageCredits(v float64) float64 {
	return max(RoundFigure(v), MinCredits)
}

// MaxMetricValue bounds a key metric record's value, either way.
const MaxMetricValue = 1e15

// CheckMetricValue returns a KindInvalid error naming field unless v is a
// key metric's value: a finite number from -MaxMetricValue to
// MaxMetricValue. The value taken is RoundFigure(v).
func CheckMetricValue(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxMetricValue {
		return Invalid("%s must be a number from %g to %g", field, -MaxMetricValue, MaxMetricValue)
	}
	return nil
}

// LimitChange is a change of an agent's credit limits: omitted leaves a limit
// as it is; null clears it (the daily limit then falls back to the
// workspace's default, the monthly limit is removed).
type LimitChange struct {
	Daily, Monthly Nullable[float64]
}

// Check validates the change: at least one limit, each at least 0.
func (c LimitChange) Check() error {
	if c.Daily.Omitted() && c.Monthly.Omitted() {
		return Invalid("give dailyCreditLimit, monthlyCreditLimit or both")
	}
	if v, ok := c.Daily.Get(); ok {
		if err := CheckCredits("dailyCreditLimit", v, false); err != nil {
			return err
		}
	}
	if v, ok := c.Monthly.Get(); ok {
		if err := CheckCredits("monthlyCreditLimit", v, false); err != nil {
			return err
		}
	}
	return nil
}

// TouchesMonthly reports whether the change names the monthly limit, which
// only workspace admins may change.
func (c LimitChange) TouchesMonthly() bool { return !c.Monthly.Omitted() }

// Apply returns the limits after the change, and whether they differ from
// daily and monthly.
func (c LimitChange) Apply(daily, monthly *float64) (newDaily, newMonthly *float64, changed bool) {
	newDaily, newMonthly = apply(c.Daily, daily), apply(c.Monthly, monthly)
	return newDaily, newMonthly, !SameLimit(newDaily, daily) || !SameLimit(newMonthly, monthly)
}

func apply(n Nullable[float64], current *float64) *float64 {
	if n.Omitted() {
		return current
	}
	if v, ok := n.Get(); ok {
		v = RoundFigure(v)
		return &v
	}
	return nil
}

// SameLimit reports whether two limits are equal (nil: none).
func SameLimit(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// Usage is one credits.used ingest event: credits an agent used at a time,
// possibly in a chat.
type Usage struct {
	EventID     string
	WorkspaceID string
	AgentID     string
	// ChatID, when set, names the chat whose creditsTotal the credits add to.
	ChatID     string
	Credits    float64
	OccurredAt time.Time
}

// MaxUsageSkew is how far in the future a usage event's occurredAt may lie,
// for clock skew between the platform and this service; later is invalid,
// since it would count in a period that has not begun.
const MaxUsageSkew = 5 * time.Minute

// CreditOutcome is one id's result in a credit batch (limits, daily-usage
// reset): Err is set on failure (a not-found error for an id the caller
// cannot see); otherwise Limits are the limits now in force, Unchanged says
// nothing was written, and Impact is the agent's new running state when the
// write changed it.
type CreditOutcome struct {
	ID        string
	Name      string // empty when the agent was not found
	Err       error
	Unchanged bool
	Limits    CreditLimits
	Impact    *AgentState
}

// TeamLimitOutcome is the result of setting or removing a team's monthly
// credit limit.
type TeamLimitOutcome struct {
	Team      Team // with the limit now in force
	Unchanged bool
	// Paused is whether the team's agents are paused now.
	Paused bool
}

// Transition is a running-state change the credit engine made, for logs and
// tests: an agent's own state (TeamID empty) or a team's pause (AgentID empty).
type Transition struct {
	WorkspaceID, AgentID, TeamID string
	State                        AgentState
}

// TeamCredits is a team's line of the credits report.
type TeamCredits struct {
	Team   Team
	Used   float64
	Paused bool
}

// AgentCredits is an agent's line of the credits report.
type AgentCredits struct {
	Agent        Agent
	Credit       AgentCredit
	Today, Month float64
}

// AgentCreditsLine is agent a's line of the report of a month: its credit
// standing now and its use in that month. For the current month that is the
// standing's own; another month shows its total (monthTotal) and nothing today.
func AgentCreditsLine(a Agent, credit AgentCredit, current bool, monthTotal float64) AgentCredits {
	if !current {
		return AgentCredits{Agent: a, Credit: credit, Month: monthTotal}
	}
	return AgentCredits{Agent: a, Credit: credit, Today: credit.Position.Today, Month: credit.Position.Month}
}

// CreditsReport is a workspace's credit use in one UTC month, or a page of
// it: the month's totals, and the page's teams and agents.
type CreditsReport struct {
	Month             string // YYYY-MM
	Total             float64
	DefaultDailyLimit *float64
	Teams             []TeamCredits
	Agents            []AgentCredits
	// Next is where the next page starts; nil on the last page.
	Next *ReportPos
}

// ReportPos is where a page of the credits report starts. The teams come
// first, then the agents, each in id order: a page holds up to its limit of
// teams and, once the teams have ended (on that page or before), up to its
// limit of agents.
type ReportPos struct {
	Agents bool   // past the teams
	After  string // the id of the list's line the page starts after ("" from its first)
}

// DayUsage is an agent's credit use on one UTC day.
type DayUsage struct {
	Day     string // YYYY-MM-DD
	Credits float64
}

// DailySpend returns the credits spent on each UTC day from from to to
// (inclusive), oldest first, as spent gives them for the day of month d of
// the month whose key is month (0 on days without usage).
func DailySpend(from, to time.Time, spent func(month string, d int) float64) []DayUsage {
	var out []DayUsage
	day := func(t time.Time) time.Time { return t.UTC().Truncate(Day) }
	for d, last := day(from), day(to); !d.After(last); d = d.AddDate(0, 0, 1) {
		out = append(out, DayUsage{Day: DayKey(d), Credits: spent(MonthKey(d), d.Day())})
	}
	return out
}
