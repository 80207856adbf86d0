package workspace

import (
	"math"
	"time"
)

// Limit events (docs/limit-events.md): every change of a running state the
// credit engine makes, and every crossing of a share of a limit, becomes an
// event on the stack's EventBridge bus. The store writes each one in the same
// transaction as its change, as an outbox item the table's stream carries to
// the publisher; these are the events' kinds and the rules that make them.

// EventSource is the EventBridge source of every limit event.
const EventSource = "workspaceapi"

// The EventBridge detail types of limit events.
const (
	EventAgentStopped     = "Agent Stopped"
	EventAgentResumed     = "Agent Resumed"
	EventTeamPaused       = "Team Paused"
	EventTeamResumed      = "Team Resumed"
	EventAgentDisabled    = "Agent Disabled"
	EventAgentEnabled     = "Agent Enabled"
	EventThresholdReached = "Credit Threshold Reached"
)

// EventDetailTypes lists every detail type, in the order the docs list them.
var EventDetailTypes = []string{
	EventAgentStopped, EventAgentResumed, EventTeamPaused, EventTeamResumed,
	EventAgentDisabled, EventAgentEnabled, EventThresholdReached,
}

// EventTarget is what a limit event is about: an agent or a team.
type EventTarget struct {
	Type TargetType // TargetAgent or TargetTeam
	ID   string
}

// LimitEvent is one limit event. ID is its stable id (the outbox item's),
// which subscribers de-duplicate on: the publisher delivers at least once.
type LimitEvent struct {
	ID          string
	WorkspaceID string
	DetailType  string
	Target      EventTarget
	// Reason is the limit the event is about: for a stop, pause or
	// threshold the one that holds or was crossed (daily_limit,
	// monthly_limit, team_limit); for a resume the one that was lifted;
	// "disabled" for a disable or an enable.
	Reason string
	// Status is an agent's running status after the change (agent state
	// events only; an enabled agent may come back stopped or paused).
	Status string
	// Credits is the usage the limit is measured against (today's counted
	// usage for the daily limit, the month's for the others); Limit the
	// limit, nil when there is none.
	Credits float64
	Limit   *float64
	// Threshold is the share of the limit reached, in percent (threshold
	// events only), and Period the UTC day or month it was reached in.
	Threshold int
	Period    string
	At        time.Time
}

// Thresholds are the shares of a limit, in percent, whose first crossing in
// a period is published.
var Thresholds = []int{80, 100}

// Limit kinds a threshold is measured on; with the period they name a
// threshold's once-per-period marker.
const (
	LimitDaily   = "daily"
	LimitMonthly = "monthly"
	LimitTeam    = "team"
)

// ThresholdReached reports whether usage has reached pct percent of limit.
// A period with no usage crosses nothing (a limit of 0 stops an agent at
// once, but nothing was spent toward it), and no limit has no thresholds.
func ThresholdReached(usage float64, limit *float64, pct int) bool {
	if limit == nil || usage <= 0 {
		return false
	}
	// Compared in hundredths, rounded as stored sums are, so that 8 of 10
	// reaches 80% whatever float64 makes of 0.8 * 10.
	return SumCredits(usage*100) >= SumCredits(float64(pct)**limit)
}

// Crossing is a threshold reached in a period: which limit (LimitDaily,
// LimitMonthly, LimitTeam), which share, and the figures at that moment.
type Crossing struct {
	Limit   string
	Percent int
	Period  string
	Credits float64
	Value   float64
}

// Reason is the status reason that matches the crossing's limit.
func (c Crossing) Reason() string {
	switch c.Limit {
	case LimitDaily:
		return ReasonDailyLimit
	case LimitMonthly:
		return ReasonMonthlyLimit
	}
	return ReasonTeamLimit
}

// crossings lists the thresholds of one limit that usage has reached.
func crossings(kind, period string, usage float64, limit *float64) []Crossing {
	var out []Crossing
	for _, pct := range Thresholds {
		if ThresholdReached(usage, limit, pct) {
			out = append(out, Crossing{Limit: kind, Percent: pct, Period: period, Credits: usage, Value: *limit})
		}
	}
	return out
}

// AgentCrossings are the thresholds an agent's own limits have reached at
// now: its effective daily limit on today's counted usage, its monthly limit
// on the month's. Whether each is new is the store's to tell, from the
// period's markers.
func AgentCrossings(p CreditPosition, now time.Time) []Crossing {
	out := crossings(LimitDaily, DayKey(now), p.Today, p.EffectiveDailyLimit())
	return append(out, crossings(LimitMonthly, MonthKey(now), p.Month, p.MonthlyLimit)...)
}

// TeamCrossings are the thresholds a team's monthly limit has reached at now.
func TeamCrossings(t TeamStanding, now time.Time) []Crossing {
	if !t.Exists {
		return nil
	}
	return crossings(LimitTeam, MonthKey(now), t.Used, t.Limit)
}

// ThresholdEvent is the event of a new crossing of target's limit.
func ThresholdEvent(ws string, target EventTarget, c Crossing, at time.Time) LimitEvent {
	limit := c.Value
	return LimitEvent{
		WorkspaceID: ws, DetailType: EventThresholdReached, Target: target, Reason: c.Reason(),
		Credits: c.Credits, Limit: &limit, Threshold: c.Percent, Period: c.Period, At: at,
	}
}

// Figures are the usage and the limit that reason measures an agent by:
// today's counted usage and the effective daily limit for daily_limit, the
// month's usage and the monthly limit for monthly_limit, the team's month
// usage and limit for team_limit; nothing for other reasons.
func (p CreditPosition) Figures(reason string) (credits float64, limit *float64) {
	switch reason {
	case ReasonDailyLimit:
		return p.Today, p.EffectiveDailyLimit()
	case ReasonMonthlyLimit:
		return p.Month, p.MonthlyLimit
	case ReasonTeamLimit:
		return p.TeamMonth, p.TeamLimit
	}
	return p.Month, nil // running: the month's usage, against no limit
}

// shownOwn is the state agent events follow: disabled while the agent is,
// else its own state. A team's pause is left out: Team Paused and Team
// Resumed are published once per team, never per agent.
func shownOwn(c AgentCredit) AgentState {
	if c.Disabled {
		return Disabled
	}
	return c.Own
}

// AgentEvent is the event of an agent's credit changing from before to
// after; ok is false when the change is none an agent event is published
// for (disabled before and after, or the same own state). Status is the
// running status every reader shows after the change (an enabled agent may
// come back paused by its team). Credits and Limit are the figures of the
// limit that holds the agent after the change or, when none does, of the
// one that held it before.
func AgentEvent(ws, agentID string, before, after AgentCredit, at time.Time) (LimitEvent, bool) {
	from, to := shownOwn(before), shownOwn(after)
	ev := LimitEvent{WorkspaceID: ws, Target: EventTarget{Type: TargetAgent, ID: agentID}, Status: after.State().Status, At: at}
	switch {
	case from == to:
		return LimitEvent{}, false
	case to == Disabled:
		ev.DetailType, ev.Reason = EventAgentDisabled, ReasonDisabled
	case from == Disabled:
		ev.DetailType, ev.Reason = EventAgentEnabled, ReasonDisabled
	case to.IsRunning():
		ev.DetailType, ev.Reason = EventAgentResumed, from.Reason
	default:
		ev.DetailType, ev.Reason = EventAgentStopped, to.Reason
	}
	figure := to.Reason
	if figure == "" || figure == ReasonDisabled {
		figure = from.Reason
	}
	ev.Credits, ev.Limit = after.Position.Figures(figure)
	return ev, true
}

// TeamStateEvent is the event of a team's pause changing (paused is the flag
// after the change); ok is false when it did not change.
func TeamStateEvent(ws, teamID string, t TeamStanding, before, paused bool, at time.Time) (LimitEvent, bool) {
	if before == paused {
		return LimitEvent{}, false
	}
	ev := LimitEvent{
		WorkspaceID: ws, DetailType: EventTeamResumed, Target: EventTarget{Type: TargetTeam, ID: teamID},
		Reason: ReasonTeamLimit, Credits: t.Used, Limit: t.Limit, At: at,
	}
	if paused {
		ev.DetailType = EventTeamPaused
	}
	return ev, true
}

// OutboxKeep is how long an outbox item stays in the table after its event
// was written: past the 24 hours a stream keeps a record, so the time to
// live never removes one the publisher could still be handed.
const OutboxKeep = 48 * time.Hour

// finite reports whether f is a number JSON can carry.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Valid reports whether ev can be published: a known detail type, a
// workspace, a target and finite figures. The publisher refuses (and reports)
// an item that is not, rather than publishing a malformed event.
func (ev LimitEvent) Valid() bool {
	known := false
	for _, dt := range EventDetailTypes {
		known = known || dt == ev.DetailType
	}
	if ev.DetailType == EventWebhookDisabled {
		return ev.ID != "" && ev.WorkspaceID != "" && ev.Target.ID != "" && ev.Target.Type == TargetWebhook
	}
	return known && ev.ID != "" && ev.WorkspaceID != "" && ev.Target.ID != "" &&
		(ev.Target.Type == TargetAgent || ev.Target.Type == TargetTeam) &&
		finite(ev.Credits) && (ev.Limit == nil || finite(*ev.Limit))
}
