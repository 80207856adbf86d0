package workspace_test

import (
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// noon is the "now" of these tests: the middle of a UTC day.
var noon = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func sameLimit(a, b *float64) bool { return workspace.SameLimit(a, b) }

func TestHoldPeriod(t *testing.T) {
	tests := []struct {
		reason, want string
	}{
		{workspace.ReasonDailyLimit, "2026-11-22"},
		{workspace.ReasonMonthlyLimit, "2026-11"},
		{workspace.ReasonTeamLimit, "2026-11"},
	}
	for _, tc := range tests {
		if got := workspace.HoldPeriod(tc.reason, noon); got != tc.want {
			t.Errorf("HoldPeriod(%s) = %q, want %q", tc.reason, got, tc.want)
		}
	}
}

func TestHoldEnded(t *testing.T) {
	tests := []struct {
		name, reason, period string
		want                 bool
	}{
		{"a daily stop of today holds", workspace.ReasonDailyLimit, "2026-11-22", false},
		{"a daily stop of yesterday is over", workspace.ReasonDailyLimit, "2026-11-21", true},
		{"a daily stop of last month is over", workspace.ReasonDailyLimit, "2026-10-31", true},
		{"a monthly stop of this month holds", workspace.ReasonMonthlyLimit, "2026-11", false},
		{"a monthly stop of last month is over", workspace.ReasonMonthlyLimit, "2026-10", true},
		{"a team pause of this month holds", workspace.ReasonTeamLimit, "2026-11", false},
		{"a team pause of last month is over", workspace.ReasonTeamLimit, "2026-10", true},
		{"running holds nothing", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.HoldEnded(tc.reason, tc.period, noon); got != tc.want {
				t.Errorf("HoldEnded(%q, %q) = %v, want %v", tc.reason, tc.period, got, tc.want)
			}
		})
	}
}

// standing is an agent standing with a daily limit of 10 and a monthly
// limit of 100, today's and the month's usage, and a stored own state held
// for period.
func standing(today, month float64, own workspace.AgentState, period string) workspace.AgentStanding {
	return workspace.AgentStanding{
		Credit: workspace.AgentCredit{Position: workspace.CreditPosition{
			DailyLimit: limit(10), MonthlyLimit: limit(100), Today: today, Month: month,
		}, Own: own},
		Period: period,
	}
}

func TestSettleAgent(t *testing.T) {
	limitsAnd := func(f workspace.UsageFigure) workspace.Premises {
		return workspace.Premises{AgentLimits: true, UsageReaches: f}
	}
	tests := []struct {
		name string
		sd   workspace.AgentStanding
		want workspace.StateChange
	}{
		{"usage below the limits leaves a running agent",
			standing(9, 50, workspace.Running, ""), workspace.StateChange{To: workspace.Running}},
		{"usage reaching the daily limit stops it for the day",
			standing(10, 50, workspace.Running, ""), workspace.StateChange{Write: true, To: stoppedDaily, Premises: limitsAnd(workspace.UsageToday)}},
		{"usage reaching the monthly limit stops it for the month",
			standing(5, 100, workspace.Running, ""), workspace.StateChange{Write: true, To: stoppedMonthly, Premises: limitsAnd(workspace.UsageMonth)}},
		{"a stop for today stands",
			standing(12, 50, stoppedDaily, "2026-11-22"), workspace.StateChange{To: stoppedDaily}},
		{"the monthly limit outlasts today's stop",
			standing(12, 100, stoppedDaily, "2026-11-22"), workspace.StateChange{Write: true, To: stoppedMonthly, Premises: limitsAnd(workspace.UsageMonth)}},
		{"usage never lifts a monthly stop to a daily one",
			standing(10, 100, stoppedMonthly, "2026-11"), workspace.StateChange{To: stoppedMonthly}},
		{"yesterday's stop with usage below the limit today is left to the scheduler",
			standing(3, 50, stoppedDaily, "2026-11-21"), workspace.StateChange{To: stoppedDaily}},
		{"yesterday's stop with usage reaching the limit today stops it again for today",
			standing(10, 50, stoppedDaily, "2026-11-21"), workspace.StateChange{Write: true, To: stoppedDaily, Premises: limitsAnd(workspace.UsageToday)}},
		{"last month's stop with usage reaching the limit this month stops it again",
			standing(5, 100, stoppedMonthly, "2026-10"), workspace.StateChange{Write: true, To: stoppedMonthly, Premises: limitsAnd(workspace.UsageMonth)}},
		{"the team's limit is the team's: the agent's own state leaves it out",
			workspace.AgentStanding{Credit: workspace.AgentCredit{Position: workspace.CreditPosition{TeamLimit: limit(5), TeamMonth: 9}, Own: workspace.Running}},
			workspace.StateChange{To: workspace.Running}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.SettleAgent(tc.sd, noon); got != tc.want {
				t.Errorf("SettleAgent() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSettleTeam(t *testing.T) {
	paused := workspace.TeamChange{Paused: true}
	pause := workspace.TeamChange{Write: true, Paused: true, Premises: workspace.Premises{TeamLimit: true}}
	tests := []struct {
		name string
		team workspace.TeamStanding
		want workspace.TeamChange
	}{
		{"usage below the limit leaves it running",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 99.99}, workspace.TeamChange{}},
		{"usage reaching the limit pauses it",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 100}, pause},
		{"no limit, no pause",
			workspace.TeamStanding{Exists: true, Used: 1e9}, workspace.TeamChange{}},
		{"a pause of this month stands",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 150, Paused: true, Period: "2026-11"}, paused},
		{"last month's pause with usage reaching the limit this month pauses it again",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 100, Paused: true, Period: "2026-10"}, pause},
		{"last month's pause with usage below the limit is left to the scheduler",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 1, Paused: true, Period: "2026-10"}, paused},
		{"a team that no longer exists is not paused",
			workspace.TeamStanding{Used: 100}, workspace.TeamChange{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.SettleTeam(tc.team, noon); got != tc.want {
				t.Errorf("SettleTeam() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestResumeAgent(t *testing.T) {
	onLimits := workspace.Premises{AgentLimits: true}
	tests := []struct {
		name   string
		sd     workspace.AgentStanding
		exists bool
		want   workspace.StateChange
	}{
		{"yesterday's daily stop resumes on a new day",
			standing(0, 50, stoppedDaily, "2026-11-21"), true, workspace.StateChange{Write: true, To: workspace.Running, Premises: onLimits}},
		{"usage of the new day that reached the limit holds it for the new day",
			standing(10, 60, stoppedDaily, "2026-11-21"), true, workspace.StateChange{Write: true, To: stoppedDaily, Premises: onLimits}},
		{"last month's monthly stop resumes in a new month",
			standing(0, 0, stoppedMonthly, "2026-10"), true, workspace.StateChange{Write: true, To: workspace.Running, Premises: onLimits}},
		{"a daily stop ending inside a month the monthly limit holds moves to the monthly stop",
			standing(0, 100, stoppedDaily, "2026-11-21"), true, workspace.StateChange{Write: true, To: stoppedMonthly, Premises: onLimits}},
		{"an agent that no longer exists leaves the index running",
			workspace.AgentStanding{}, false, workspace.StateChange{Write: true, To: workspace.Running}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.ResumeAgent(tc.sd, tc.exists); got != tc.want {
				t.Errorf("ResumeAgent() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestResumeTeam(t *testing.T) {
	onLimit := workspace.Premises{TeamLimit: true}
	tests := []struct {
		name string
		team workspace.TeamStanding
		want workspace.TeamChange
	}{
		{"last month's pause lifts in a new month",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Paused: true, Period: "2026-10"},
			workspace.TeamChange{Write: true, Premises: onLimit}},
		{"usage of the new month that reached the limit moves the pause to it",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 100, Paused: true, Period: "2026-10"},
			workspace.TeamChange{Write: true, Paused: true, Premises: onLimit}},
		{"a team that no longer exists leaves the index running",
			workspace.TeamStanding{Used: 100, Paused: true, Period: "2026-10"},
			workspace.TeamChange{Write: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.ResumeTeam(tc.team); got != tc.want {
				t.Errorf("ResumeTeam() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func null() workspace.Nullable[float64]         { return workspace.Null[float64]() }
func set(v float64) workspace.Nullable[float64] { return workspace.Value(v) }

func TestDecideLimitChange(t *testing.T) {
	agent := workspace.Agent{ID: "a1", Name: "A1", DailyCreditLimit: limit(10), MonthlyCreditLimit: limit(100)}
	tests := []struct {
		name        string
		sd          workspace.AgentStanding
		change      workspace.LimitChange
		wantWrite   bool
		wantTo      workspace.AgentState
		wantImpact  *workspace.AgentState
		wantDaily   *float64
		wantMonthly *float64
		wantEffDay  *float64
	}{
		{"the same limits write nothing", standing(3, 50, workspace.Running, ""),
			workspace.LimitChange{Daily: set(10)}, false, workspace.Running, nil, limit(10), limit(100), limit(10)},
		{"a lowered daily limit stops the agent at once", standing(3, 50, workspace.Running, ""),
			workspace.LimitChange{Daily: set(3)}, true, stoppedDaily, &stoppedDaily, limit(3), limit(100), limit(3)},
		{"a raised daily limit resumes the agent", standing(12, 50, stoppedDaily, "2026-11-22"),
			workspace.LimitChange{Daily: set(20)}, true, workspace.Running, &workspace.Running, limit(20), limit(100), limit(20)},
		{"a removed monthly limit resumes the agent", standing(5, 100, stoppedMonthly, "2026-11"),
			workspace.LimitChange{Monthly: null()}, true, workspace.Running, &workspace.Running, limit(10), nil, limit(10)},
		{"a cleared daily limit falls back to the workspace default", workspace.AgentStanding{Credit: workspace.AgentCredit{
			Position: workspace.CreditPosition{DailyLimit: limit(10), DefaultDailyLimit: limit(4), MonthlyLimit: limit(100), Today: 5}, Own: workspace.Running}},
			workspace.LimitChange{Daily: null()}, true, stoppedDaily, &stoppedDaily, nil, limit(100), limit(4)},
		{"a change that leaves the state as it is has no impact", standing(3, 50, workspace.Running, ""),
			workspace.LimitChange{Daily: set(20), Monthly: set(200)}, true, workspace.Running, nil, limit(20), limit(200), limit(20)},
		{"a paused team's agent shows the pause in its impact only when it changes", workspace.AgentStanding{Credit: workspace.AgentCredit{
			Position: workspace.CreditPosition{DailyLimit: limit(10), MonthlyLimit: limit(100), Today: 3}, Own: workspace.Running, TeamPaused: true}},
			workspace.LimitChange{Daily: set(2)}, true, stoppedDaily, nil, limit(2), limit(100), limit(2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := workspace.DecideLimitChange(agent, tc.sd, tc.change)
			if got.Write != tc.wantWrite || got.Outcome.Unchanged == tc.wantWrite {
				t.Errorf("Write, Unchanged = %v, %v; want %v, %v", got.Write, got.Outcome.Unchanged, tc.wantWrite, !tc.wantWrite)
			}
			if got.Outcome.ID != "a1" || got.Outcome.Name != "A1" || got.Outcome.Err != nil {
				t.Errorf("outcome = %+v, want a1's without error", got.Outcome)
			}
			if !tc.wantWrite {
				if got.Premises != (workspace.Premises{}) || got.Outcome.Impact != nil {
					t.Errorf("an unwritten change = %+v, want no premises and no impact", got)
				}
			} else if want := onUsage(tc.wantTo, tc.wantEffDay, tc.wantMonthly, false); got.To != tc.wantTo || !samePremises(got.Premises, want) || got.ResetToday ||
				!sameLimit(got.Daily, tc.wantDaily) || !sameLimit(got.Monthly, tc.wantMonthly) {
				t.Errorf("DecideLimitChange() = %+v; want to %+v, limits %v/%v, premises %+v", got, tc.wantTo, tc.wantDaily, tc.wantMonthly, want)
			}
			if (got.Outcome.Impact == nil) != (tc.wantImpact == nil) || (tc.wantImpact != nil && *got.Outcome.Impact != *tc.wantImpact) {
				t.Errorf("impact = %v, want %v", got.Outcome.Impact, tc.wantImpact)
			}
			l := got.Outcome.Limits
			if !sameLimit(l.Daily, tc.wantDaily) || !sameLimit(l.Monthly, tc.wantMonthly) || !sameLimit(l.EffectiveDaily, tc.wantEffDay) {
				t.Errorf("limits in force = %v/%v/%v, want %v/%v/%v", l.Daily, l.Monthly, l.EffectiveDaily, tc.wantDaily, tc.wantMonthly, tc.wantEffDay)
			}
		})
	}
}

// onUsage is what an agent change that leaves it at to rests on, besides
// its limits: running, usage staying below the limits in force (daily,
// monthly); held, the figure that holds it not going down. cleared: it
// subtracts today's counted usage (a reset).
func onUsage(to workspace.AgentState, daily, monthly *float64, cleared bool) workspace.Premises {
	p := workspace.Premises{AgentLimits: true, TodayCleared: cleared}
	switch {
	case to.IsRunning():
		p.BelowDaily, p.BelowMonthly = daily, monthly
	case to.Reason == workspace.ReasonMonthlyLimit:
		p.UsageReaches = workspace.UsageMonth
	default:
		p.UsageReaches = workspace.UsageToday
	}
	return p
}

// samePremises compares premises by their limits' values.
func samePremises(a, b workspace.Premises) bool {
	return sameLimit(a.BelowDaily, b.BelowDaily) && sameLimit(a.BelowMonthly, b.BelowMonthly) &&
		a.AgentLimits == b.AgentLimits && a.TeamLimit == b.TeamLimit && a.UsageReaches == b.UsageReaches && a.TodayCleared == b.TodayCleared
}

func TestDecideReset(t *testing.T) {
	agent := workspace.Agent{ID: "a1", Name: "A1", DailyCreditLimit: limit(10), MonthlyCreditLimit: limit(100)}
	tests := []struct {
		name       string
		sd         workspace.AgentStanding
		wantWrite  bool
		wantTo     workspace.AgentState
		wantImpact *workspace.AgentState
	}{
		{"nothing counted today and no state to change writes nothing", standing(0, 50, workspace.Running, ""), false, workspace.AgentState{}, nil},
		{"usage counted today is cleared", standing(4, 50, workspace.Running, ""), true, workspace.Running, nil},
		{"a daily stop resumes", standing(12, 50, stoppedDaily, "2026-11-22"), true, workspace.Running, &workspace.Running},
		{"a monthly stop stays", standing(5, 100, stoppedMonthly, "2026-11"), true, stoppedMonthly, nil},
		{"a daily stop under a reached monthly limit becomes the monthly stop", standing(12, 100, stoppedDaily, "2026-11-22"), true, stoppedMonthly, &stoppedMonthly},
		{"a stop the limits no longer call for resumes though nothing is counted today", standing(0, 50, stoppedDaily, "2026-11-21"), true, workspace.Running, &workspace.Running},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := workspace.DecideReset(agent, tc.sd)
			if got.Write != tc.wantWrite || got.Outcome.Unchanged == tc.wantWrite {
				t.Errorf("Write, Unchanged = %v, %v; want %v, %v", got.Write, got.Outcome.Unchanged, tc.wantWrite, !tc.wantWrite)
			}
			want := onUsage(tc.wantTo, limit(10), limit(100), true)
			if tc.wantWrite && (!got.ResetToday || got.To != tc.wantTo || !samePremises(got.Premises, want) || got.Daily != nil || got.Monthly != nil) {
				t.Errorf("DecideReset() = %+v; want today reset, to %+v, premises %+v, no new limits", got, tc.wantTo, want)
			}
			if (got.Outcome.Impact == nil) != (tc.wantImpact == nil) || (tc.wantImpact != nil && *got.Outcome.Impact != *tc.wantImpact) {
				t.Errorf("impact = %v, want %v", got.Outcome.Impact, tc.wantImpact)
			}
			if l := got.Outcome.Limits; !sameLimit(l.Daily, limit(10)) || !sameLimit(l.Monthly, limit(100)) {
				t.Errorf("limits in force = %v/%v, want 10/100", l.Daily, l.Monthly)
			}
		})
	}
}

func TestDecideTeamLimit(t *testing.T) {
	team := workspace.Team{ID: "t1", Name: "T", MonthlyCreditLimit: limit(100)}
	tests := []struct {
		name                   string
		standing               workspace.TeamStanding
		limit                  *float64
		wantWrite, wantPaused  bool
		wantSettle, wantUnchgd bool
	}{
		{"the same limit writes nothing and settles on the figures read",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 30}, limit(100), false, false, false, true},
		{"the same limit keeps the stored pause",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 130, Paused: true, Period: "2026-11"}, limit(100), false, true, false, true},
		{"a limit at or below the usage pauses at once and stands",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 50}, limit(50), true, true, false, false},
		{"a limit above the usage leaves it running and settles after",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 50}, limit(60), true, false, true, false},
		{"a raised limit resumes a paused team and settles after",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 100, Paused: true, Period: "2026-11"}, limit(200), true, false, true, false},
		{"a removed limit resumes a paused team and needs no settling",
			workspace.TeamStanding{Exists: true, Limit: limit(100), Used: 100, Paused: true, Period: "2026-11"}, nil, true, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := workspace.DecideTeamLimit(team, tc.standing, tc.limit)
			if got.Write != tc.wantWrite || got.Outcome.Paused != tc.wantPaused || got.SettleAfter != tc.wantSettle || got.Outcome.Unchanged != tc.wantUnchgd {
				t.Errorf("DecideTeamLimit() = write %v, paused %v, settle after %v, unchanged %v; want %v, %v, %v, %v",
					got.Write, got.Outcome.Paused, got.SettleAfter, got.Outcome.Unchanged, tc.wantWrite, tc.wantPaused, tc.wantSettle, tc.wantUnchgd)
			}
			want := team.MonthlyCreditLimit
			if got.Write {
				want = tc.limit
			}
			if !sameLimit(got.Outcome.Team.MonthlyCreditLimit, want) || got.Outcome.Team.ID != "t1" {
				t.Errorf("outcome team = %+v, want t1 with limit %v", got.Outcome.Team, want)
			}
		})
	}
	if !sameLimit(team.MonthlyCreditLimit, limit(100)) {
		t.Errorf("the team read was changed: limit %v", *team.MonthlyCreditLimit)
	}
}

func TestTeamAccess(t *testing.T) {
	on := &workspace.Workspace{ID: "ws1", TeamSettingsEnabled: true}
	off := &workspace.Workspace{ID: "ws1"}
	tests := []struct {
		name       string
		ws         *workspace.Workspace
		teamExists bool
		want       error
	}{
		{"settings on, the team exists", on, true, nil},
		{"settings on, no such team", on, false, workspace.ErrTeamNotFound},
		{"settings off come first", off, false, workspace.ErrTeamSettingsOff},
		{"settings off, the team exists", off, true, workspace.ErrTeamSettingsOff},
		{"a workspace that does not exist has no teams", nil, true, workspace.ErrTeamNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.TeamAccess(tc.ws, tc.teamExists); got != tc.want {
				t.Errorf("TeamAccess() = %v, want %v", got, tc.want)
			}
		})
	}
	if got := off.TeamSettings(); got != workspace.ErrTeamSettingsOff {
		t.Errorf("TeamSettings() with settings off = %v, want %v", got, workspace.ErrTeamSettingsOff)
	}
	if got := on.TeamSettings(); got != nil {
		t.Errorf("TeamSettings() with settings on = %v, want nil", got)
	}
}
