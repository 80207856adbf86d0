package workspace

import "time"

// This file holds the credit engine's decisions: pure functions from a
// standing (what the store read) to a decision (the new running state, its
// impact, and the premises its write must find unchanged). The store reads a
// standing, calls a rule, writes the decision under its premises and the
// version of the state it replaces, and takes the decision again on fresh
// figures when the write loses a race.

// HoldPeriod is the period a hold for reason lasts, taken at now: the UTC
// day for a daily-limit stop, the UTC month for a monthly-limit stop and for
// a team's pause.
func HoldPeriod(reason string, now time.Time) string {
	if reason == ReasonDailyLimit {
		return DayKey(now)
	}
	return MonthKey(now)
}

// HoldEnded reports whether a hold for reason in period is over at now: its
// day or month sorts before now's. The scheduler lifts such a hold; until it
// does, usage of the new period is judged as if the agent ran (the team
// were running). A running state (no reason) holds nothing that could end.
func HoldEnded(reason, period string, now time.Time) bool {
	switch reason {
	case ReasonDailyLimit, ReasonMonthlyLimit, ReasonTeamLimit:
		return period < HoldPeriod(reason, now)
	}
	return false
}

// AgentStanding is an agent's standing as the credit rules take it: its
// credit (limits, usage in the current day and month, stored own state, its
// team's pause) and the period its stored stop is for.
type AgentStanding struct {
	Credit AgentCredit
	// Period is the UTC day (YYYY-MM-DD) or month (YYYY-MM) the stored stop
	// lasts; empty while the agent runs.
	Period string
}

// HoldEnded reports whether the agent's stored stop is for a period before
// now's.
func (s AgentStanding) HoldEnded(now time.Time) bool {
	return HoldEnded(s.Credit.Own.Reason, s.Period, now)
}

// TeamStanding is a team's standing as the credit rules take it.
type TeamStanding struct {
	// Exists is false for a team the workspace does not have (any more).
	Exists bool
	// Limit is the team's monthly limit; nil: none.
	Limit *float64
	// Used is the team's usage in the current UTC month.
	Used float64
	// Paused is the team's stored paused flag, and Period the month it is
	// paused for.
	Paused bool
	Period string
}

// pauseEnded reports whether the team's stored pause is for a month before
// now's.
func (t TeamStanding) pauseEnded(now time.Time) bool {
	return t.Paused && HoldEnded(ReasonTeamLimit, t.Period, now)
}

// UsageFigure names one of an agent's usage figures a decision rests on.
type UsageFigure int

// The usage figures a stop rests on.
const (
	// NoUsageFigure: the decision rests on none.
	NoUsageFigure UsageFigure = iota
	// UsageToday is what counts toward today's limit (a daily-usage reset
	// clears it).
	UsageToday
	// UsageMonth is the month's total.
	UsageMonth
)

// Premises are what a decision was taken on besides the version of the state
// it replaces. Its write commits only while each still holds, checked in the
// same transaction: a batch read is no snapshot (it may return a limit from
// before a change and a state from after it), and writes land between a
// decision's read and its write.
type Premises struct {
	// AgentLimits: the agent's daily and monthly limits are the ones read.
	AgentLimits bool
	// TeamLimit: the team's monthly limit is the one read.
	TeamLimit bool
	// UsageReaches: this figure has not gone below what was read (usage only
	// grows, except through a daily-usage reset).
	UsageReaches UsageFigure
	// BelowDaily and BelowMonthly (nil: none): a decision that leaves the
	// agent running holds while today's counted usage stays below
	// BelowDaily (what a reset clears not counted: TodayCleared) and the
	// month's total below BelowMonthly, however much usage lands meanwhile.
	BelowDaily, BelowMonthly *float64
	// TodayCleared: the write subtracts today's counted usage as read (a
	// daily-usage reset), which must not have gone below it.
	TodayCleared bool
}

// usagePremises are the usage premises of a decision that leaves the
// agent's own state at to on the position after it, p: running, usage must
// stay below the limits; held, the figure that holds it must not have gone
// below what was read. Usage that lands between the read and the write
// (ingest adds it many times a second) then leaves the decision standing
// unless it crosses a limit, so such writes do not starve behind ingest; the
// usage's own settling, which reads after it writes, stops the agent if it
// does.
func usagePremises(p CreditPosition, to AgentState) Premises {
	switch {
	case to.IsRunning():
		return Premises{BelowDaily: p.EffectiveDailyLimit(), BelowMonthly: p.MonthlyLimit}
	case to.Reason == ReasonMonthlyLimit:
		return Premises{UsageReaches: UsageMonth}
	}
	return Premises{UsageReaches: UsageToday}
}

// StateChange is a decided change of an agent's own running state.
type StateChange struct {
	// Write is false when the stored state stands.
	Write bool
	// To is the agent's own state after the write.
	To       AgentState
	Premises Premises
}

// SettleAgent is the rule of recorded usage for an agent: its own state
// escalates to what its figures call for (usage never resumes an agent). A
// stop whose day or month is over is judged as running: usage of the new
// period that reaches a limit stops the agent for that period (a new version,
// so a scheduler run that read the old usage cannot resume it), and usage
// that does not leaves the lifting to the scheduler. A stop rests on the
// agent's limits and on the figure that reached one.
func SettleAgent(sd AgentStanding, now time.Time) StateChange {
	from, ended := sd.Credit.Own, sd.HoldEnded(now)
	if ended {
		from = Running
	}
	to := Escalate(from, sd.Credit.Position.OwnState())
	if to.IsRunning() || (to == sd.Credit.Own && !ended) {
		return StateChange{To: sd.Credit.Own}
	}
	figure := UsageToday
	if to.Reason == ReasonMonthlyLimit {
		figure = UsageMonth
	}
	return StateChange{Write: true, To: to, Premises: Premises{AgentLimits: true, UsageReaches: figure}}
}

// TeamChange is a decided change of a team's paused flag.
type TeamChange struct {
	// Write is false when the stored flag stands.
	Write bool
	// Paused is the team's flag after the decision (as stored when Write is
	// false).
	Paused   bool
	Premises Premises
}

// SettleTeam is the rule of recorded usage for a team: it pauses when its
// month usage has reached its limit; usage never resumes a team. A pause
// whose month is over is judged as running, as SettleAgent judges a stop
// whose period is over. A pause rests on the team's limit.
func SettleTeam(t TeamStanding, now time.Time) TeamChange {
	if !t.Exists || (t.Paused && !t.pauseEnded(now)) || !reached(t.Used, t.Limit) {
		return TeamChange{Paused: t.Paused}
	}
	return TeamChange{Write: true, Paused: true, Premises: Premises{TeamLimit: true}}
}

// ResumeAgent is the scheduler's rule for an agent whose stop's period is
// over: it runs again, unless usage already recorded in the new period
// reaches a limit (then it holds for the new period, a new version). The
// decision rests on the agent's limits; an agent that no longer exists
// (exists false) leaves the resume index as running.
func ResumeAgent(sd AgentStanding, exists bool) StateChange {
	if !exists {
		return StateChange{Write: true, To: Running}
	}
	return StateChange{Write: true, To: sd.Credit.Position.OwnState(), Premises: Premises{AgentLimits: true}}
}

// ResumeTeam is the scheduler's rule for a team whose pause's month is over:
// it runs again, unless its usage in the new month already reached its limit
// (then the pause moves to the new month). The decision rests on the team's
// limit; a team that no longer exists leaves the resume index as running.
func ResumeTeam(t TeamStanding) TeamChange {
	return TeamChange{Write: true, Paused: t.Exists && reached(t.Used, t.Limit), Premises: Premises{TeamLimit: t.Exists}}
}

// AgentChange is a credit batch's decided write of one agent: the id's
// outcome and, when Write, the write: the new limits (Daily, Monthly) of a
// limit change or, with ResetToday, today's counted usage cleared or, with
// SetStatus, the agent's disabled flag set to Disabled; the agent's new own
// state (a new version); and the premises.
type AgentChange struct {
	Outcome        CreditOutcome
	Write          bool
	Daily, Monthly *float64
	ResetToday     bool
	SetStatus      bool
	Disabled       bool
	To             AgentState
	Premises       Premises
}

// DecideLimitChange is the rule of an agent limit change: the new limits
// re-evaluate the agent's own state at once (a lowered limit stops it, a
// raised or removed one resumes it), and the impact is the change of its
// running state. Limits the change leaves as they are write nothing. The
// decision rests on the limits it replaces (a change decided on a read from
// before another change must not write its limits back) and on the usage
// read (usagePremises).
func DecideLimitChange(a Agent, sd AgentStanding, change LimitChange) AgentChange {
	daily, monthly, changed := change.Apply(a.DailyCreditLimit, a.MonthlyCreditLimit)
	after := sd.Credit
	after.Position.DailyLimit, after.Position.MonthlyLimit = daily, monthly
	after.Own = after.Position.OwnState()
	out := CreditOutcome{ID: a.ID, Name: a.Name, Unchanged: !changed, Limits: after.Limits()}
	if !changed {
		out.Limits = sd.Credit.Limits()
		return AgentChange{Outcome: out}
	}
	out.Impact = Impact(sd.Credit.State(), after.State())
	premises := usagePremises(after.Position, after.Own)
	premises.AgentLimits = true
	return AgentChange{Outcome: out, Write: true, Daily: daily, Monthly: monthly, To: after.Own, Premises: premises}
}

// DecideReset is the rule of a daily-usage reset: today's counted usage goes
// to zero (its spend and the month's usage stay) and the agent's own state is
// re-evaluated: a daily stop resumes unless another limit holds the agent.
// An agent with nothing counted today and no state to change writes nothing.
// The decision rests on the agent's limits and the usage read
// (usagePremises): the reset subtracts what it read as counted today, so
// usage that lands meanwhile counts after it.
func DecideReset(a Agent, sd AgentStanding) AgentChange {
	after := sd.Credit
	after.Position.Today = 0
	after.Own = after.Position.OwnState()
	out := CreditOutcome{ID: a.ID, Name: a.Name, Limits: sd.Credit.Limits()}
	if sd.Credit.Position.Today == 0 && after.Own == sd.Credit.Own {
		out.Unchanged = true
		return AgentChange{Outcome: out}
	}
	out.Impact = Impact(sd.Credit.State(), after.State())
	premises := usagePremises(after.Position, after.Own)
	premises.AgentLimits, premises.TodayCleared = true, true
	return AgentChange{Outcome: out, Write: true, ResetToday: true, To: after.Own, Premises: premises}
}

// TeamLimitChange is a decided team limit change.
type TeamLimitChange struct {
	// Outcome is the answer: the team with the limit in force, and whether
	// it is paused after the write.
	Outcome TeamLimitOutcome
	// Write: set the limit and the team's paused flag (Outcome.Paused) as a
	// new version. Without it the limit already stands and the team is only
	// settled on the figures read: a change whose settling failed after it
	// committed heals when the client sends it again.
	Write bool
	// SettleAfter: once written, settle the team again on a fresh read. A
	// team's usage changes with every ingest batch of its agents, so the
	// change's write does not check it; usage writes usage and then reads
	// the limit, a change writes the limit and then reads usage, so one of
	// the two sees both. A pause stands (month usage only grows) and no
	// usage reaches a removed limit, so those need no settling.
	SettleAfter bool
}

// DecideTeamLimit is the rule of a team limit change: the team pauses or
// resumes at once, as its usage this month calls for, with one write
// however many agents it has.
func DecideTeamLimit(team Team, t TeamStanding, limit *float64) TeamLimitChange {
	out := TeamLimitOutcome{Team: team, Paused: t.Paused}
	if SameLimit(t.Limit, limit) {
		out.Unchanged = true
		return TeamLimitChange{Outcome: out}
	}
	out.Team.MonthlyCreditLimit = limit
	out.Paused = reached(t.Used, limit)
	return TeamLimitChange{Outcome: out, Write: true, SettleAfter: !out.Paused && limit != nil}
}

// TeamSettings is the rule of every team read and write: a workspace uses
// teams only while it has team settings on.
func (w Workspace) TeamSettings() error {
	if !w.TeamSettingsEnabled {
		return ErrTeamSettingsOff
	}
	return nil
}

// TeamAccess is the rule before a team is read or written: its workspace
// must have team settings on (ErrTeamSettingsOff), then the team must exist
// (ErrTeamNotFound). A workspace that does not exist (nil) has no teams.
func TeamAccess(w *Workspace, teamExists bool) error {
	if w == nil {
		return ErrTeamNotFound
	}
	if err := w.TeamSettings(); err != nil {
		return err
	}
	if !teamExists {
		return ErrTeamNotFound
	}
	return nil
}
