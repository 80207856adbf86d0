package workspace_test

import (
	"reflect"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestADisabledAgentShowsDisabledOverEveryOtherState(t *testing.T) {
	tests := []struct {
		name       string
		own        workspace.AgentState
		teamPaused bool
		disabled   bool
		want       workspace.AgentState
	}{
		{"running", workspace.Running, false, false, workspace.Running},
		{"running, disabled", workspace.Running, false, true, workspace.Disabled},
		{"stopped by its daily limit, disabled", stoppedDaily, false, true, workspace.Disabled},
		{"stopped by its monthly limit, disabled", stoppedMonthly, false, true, workspace.Disabled},
		{"its team paused, disabled", workspace.Running, true, true, workspace.Disabled},
		{"its team paused and its monthly limit reached, disabled", stoppedMonthly, true, true, workspace.Disabled},
		{"its team paused, enabled", stoppedDaily, true, false, pausedTeam},
		{"stopped, enabled", stoppedMonthly, false, false, stoppedMonthly},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := workspace.AgentCredit{Own: tc.own, TeamPaused: tc.teamPaused, Disabled: tc.disabled}
			if got := c.State(); got != tc.want {
				t.Errorf("State() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseAgentStatus(t *testing.T) {
	tests := []struct {
		status      string
		wantDisable bool
		wantErr     bool
	}{
		{"disabled", true, false},
		{"enabled", false, false},
		{"Disabled", false, true},
		{"running", false, true},
		{"", false, true},
	}
	for _, tc := range tests {
		disable, err := workspace.ParseAgentStatus(tc.status)
		if disable != tc.wantDisable || (err != nil) != tc.wantErr {
			t.Errorf("ParseAgentStatus(%q) = %v, %v; want %v, error %v", tc.status, disable, err, tc.wantDisable, tc.wantErr)
		}
	}
}

func TestDecideStatus(t *testing.T) {
	agent := workspace.Agent{ID: "a1", Name: "A"}
	tests := []struct {
		name          string
		sd            workspace.AgentStanding
		disabled      bool
		teamPaused    bool
		disable       bool
		wantWrite     bool
		wantTo        workspace.AgentState
		wantImpact    *workspace.AgentState
		wantPremises  workspace.Premises
		wantUnchanged bool
	}{
		{name: "disabling a running agent", sd: standing(1, 1, workspace.Running, ""), disable: true,
			wantWrite: true, wantTo: workspace.Running, wantImpact: &workspace.Disabled},
		{name: "disabling a stopped agent keeps its own state underneath", sd: standing(10, 10, stoppedDaily, "2026-11-22"), disable: true,
			wantWrite: true, wantTo: stoppedDaily, wantImpact: &workspace.Disabled},
		{name: "disabling a disabled agent changes nothing", sd: standing(1, 1, workspace.Running, ""), disabled: true, disable: true,
			wantTo: workspace.Running, wantUnchanged: true},
		{name: "enabling an enabled agent changes nothing", sd: standing(1, 1, workspace.Running, ""),
			wantTo: workspace.Running, wantUnchanged: true},
		{name: "enabling re-evaluates: usage that reached the daily limit while disabled stops it",
			sd: standing(12, 12, workspace.Running, ""), disabled: true,
			wantWrite: true, wantTo: stoppedDaily, wantImpact: &stoppedDaily,
			wantPremises: onUsage(stoppedDaily, limit(10), limit(100), false)},
		{name: "enabling re-evaluates: a stop its figures no longer call for lifts",
			sd: standing(2, 2, stoppedDaily, "2026-11-21"), disabled: true,
			wantWrite: true, wantTo: workspace.Running, wantImpact: &workspace.Running,
			wantPremises: onUsage(workspace.Running, limit(10), limit(100), false)},
		{name: "enabling an agent whose team is paused shows it paused",
			sd: standing(1, 1, workspace.Running, ""), disabled: true, teamPaused: true,
			wantWrite: true, wantTo: workspace.Running, wantImpact: &pausedTeam,
			wantPremises: onUsage(workspace.Running, limit(10), limit(100), false)},
		{name: "enabling over the monthly limit stops it for the month",
			sd: standing(1, 150, workspace.Running, ""), disabled: true,
			wantWrite: true, wantTo: stoppedMonthly, wantImpact: &stoppedMonthly,
			wantPremises: onUsage(stoppedMonthly, limit(10), limit(100), false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.sd.Credit.Disabled, tc.sd.Credit.TeamPaused = tc.disabled, tc.teamPaused
			got := workspace.DecideStatus(agent, tc.sd, tc.disable)
			if got.Write != tc.wantWrite || got.To != tc.wantTo || got.Disabled != tc.disable || !got.SetStatus || !samePremises(got.Premises, tc.wantPremises) {
				t.Errorf("got write %v to %+v disabled %v premises %+v, want write %v to %+v disabled %v premises %+v",
					got.Write, got.To, got.Disabled, got.Premises, tc.wantWrite, tc.wantTo, tc.disable, tc.wantPremises)
			}
			if got.Outcome.Unchanged != tc.wantUnchanged || !reflect.DeepEqual(got.Outcome.Impact, tc.wantImpact) {
				t.Errorf("got unchanged %v impact %+v, want %v %+v", got.Outcome.Unchanged, got.Outcome.Impact, tc.wantUnchanged, tc.wantImpact)
			}
		})
	}
}

func TestThresholdReached(t *testing.T) {
	tests := []struct {
		name  string
		usage float64
		limit *float64
		pct   int
		want  bool
	}{
		{"below 80%", 7.99, limit(10), 80, false},
		{"exactly 80%", 8, limit(10), 80, true},
		{"80% of a decimal limit", 0.8, limit(1), 80, true},
		{"80% of 0.7 (float64 would say 0.5599999)", 0.56, limit(0.7), 80, true},
		{"below 100%", 9.99, limit(10), 100, false},
		{"exactly 100%", 10, limit(10), 100, true},
		{"past 100%", 25, limit(10), 100, true},
		{"no limit", 1e9, nil, 80, false},
		{"a limit of 0 with no usage crosses nothing", 0, limit(0), 100, false},
		{"a limit of 0 with usage", 0.01, limit(0), 100, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.ThresholdReached(tc.usage, tc.limit, tc.pct); got != tc.want {
				t.Errorf("ThresholdReached(%g, %v, %d) = %v, want %v", tc.usage, tc.limit, tc.pct, got, tc.want)
			}
		})
	}
}

func TestAgentCrossingsNameTheLimitShareAndPeriod(t *testing.T) {
	tests := []struct {
		name string
		p    workspace.CreditPosition
		want []workspace.Crossing
	}{
		{"nothing reached", workspace.CreditPosition{DailyLimit: limit(10), MonthlyLimit: limit(100), Today: 5, Month: 5}, nil},
		{"80% of the daily limit", workspace.CreditPosition{DailyLimit: limit(10), MonthlyLimit: limit(100), Today: 8, Month: 8},
			[]workspace.Crossing{{Limit: workspace.LimitDaily, Percent: 80, Period: "2026-11-22", Credits: 8, Value: 10}}},
		{"the workspace default is the effective daily limit", workspace.CreditPosition{DefaultDailyLimit: limit(10), Today: 10, Month: 10},
			[]workspace.Crossing{
				{Limit: workspace.LimitDaily, Percent: 80, Period: "2026-11-22", Credits: 10, Value: 10},
				{Limit: workspace.LimitDaily, Percent: 100, Period: "2026-11-22", Credits: 10, Value: 10},
			}},
		{"the monthly limit on the month's usage", workspace.CreditPosition{MonthlyLimit: limit(100), Today: 1, Month: 85},
			[]workspace.Crossing{{Limit: workspace.LimitMonthly, Percent: 80, Period: "2026-11", Credits: 85, Value: 100}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.AgentCrossings(tc.p, noon); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("AgentCrossings = %+v, want %+v", got, tc.want)
			}
		})
	}
	team := workspace.TeamStanding{Exists: true, Limit: limit(50), Used: 50}
	want := []workspace.Crossing{
		{Limit: workspace.LimitTeam, Percent: 80, Period: "2026-11", Credits: 50, Value: 50},
		{Limit: workspace.LimitTeam, Percent: 100, Period: "2026-11", Credits: 50, Value: 50},
	}
	if got := workspace.TeamCrossings(team, noon); !reflect.DeepEqual(got, want) {
		t.Errorf("TeamCrossings = %+v, want %+v", got, want)
	}
	if got := workspace.TeamCrossings(workspace.TeamStanding{Limit: limit(1), Used: 5}, noon); got != nil {
		t.Errorf("TeamCrossings of a team that does not exist = %+v, want none", got)
	}
}

func TestAgentEventNamesTheChange(t *testing.T) {
	p := workspace.CreditPosition{DailyLimit: limit(10), MonthlyLimit: limit(100), Today: 12, Month: 40, TeamLimit: limit(500), TeamMonth: 500}
	credit := func(own workspace.AgentState, disabled, teamPaused bool) workspace.AgentCredit {
		return workspace.AgentCredit{Position: p, Own: own, Disabled: disabled, TeamPaused: teamPaused}
	}
	running, daily, monthly := workspace.Running, stoppedDaily, stoppedMonthly
	tests := []struct {
		name          string
		before, after workspace.AgentCredit
		wantOK        bool
		wantType      string
		wantReason    string
		wantStatus    string
		wantCredits   float64
		wantLimit     *float64
	}{
		{"no change", credit(daily, false, false), credit(daily, false, false), false, "", "", "", 0, nil},
		{"stopped by the daily limit", credit(running, false, false), credit(daily, false, false), true, workspace.EventAgentStopped, workspace.ReasonDailyLimit, "stopped", 12, limit(10)},
		{"a daily stop escalates to the monthly limit", credit(daily, false, false), credit(monthly, false, false), true, workspace.EventAgentStopped, workspace.ReasonMonthlyLimit, "stopped", 40, limit(100)},
		{"resumed from a daily stop", credit(daily, false, false), credit(running, false, false), true, workspace.EventAgentResumed, workspace.ReasonDailyLimit, "running", 12, limit(10)},
		{"stopped under its team's pause: shown paused, still its own stop", credit(running, false, true), credit(daily, false, true), true, workspace.EventAgentStopped, workspace.ReasonDailyLimit, "paused", 12, limit(10)},
		{"disabled while running", credit(running, false, false), credit(running, true, false), true, workspace.EventAgentDisabled, workspace.ReasonDisabled, "disabled", 40, nil},
		{"disabled while stopped", credit(monthly, false, false), credit(monthly, true, false), true, workspace.EventAgentDisabled, workspace.ReasonDisabled, "disabled", 40, limit(100)},
		{"enabled, back running", credit(running, true, false), credit(running, false, false), true, workspace.EventAgentEnabled, workspace.ReasonDisabled, "running", 40, nil},
		{"enabled, back stopped", credit(running, true, false), credit(daily, false, false), true, workspace.EventAgentEnabled, workspace.ReasonDisabled, "stopped", 12, limit(10)},
		{"enabled into its team's pause", credit(running, true, true), credit(running, false, true), true, workspace.EventAgentEnabled, workspace.ReasonDisabled, "paused", 40, nil},
		{"usage stops a disabled agent underneath: no event", credit(running, true, false), credit(daily, true, false), false, "", "", "", 0, nil},
		{"the scheduler lifts a disabled agent's stop underneath: no event", credit(daily, true, false), credit(running, true, false), false, "", "", "", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, ok := workspace.AgentEvent("ws", "a1", tc.before, tc.after, noon)
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if !ok {
				return
			}
			if ev.DetailType != tc.wantType || ev.Reason != tc.wantReason || ev.Status != tc.wantStatus ||
				ev.Credits != tc.wantCredits || !sameLimit(ev.Limit, tc.wantLimit) {
				t.Errorf("got %s reason %s status %s credits %g limit %v, want %s %s %s %g %v", ev.DetailType, ev.Reason, ev.Status,
					ev.Credits, ev.Limit, tc.wantType, tc.wantReason, tc.wantStatus, tc.wantCredits, tc.wantLimit)
			}
			if ev.Target != (workspace.EventTarget{Type: workspace.TargetAgent, ID: "a1"}) || ev.WorkspaceID != "ws" || !ev.At.Equal(noon) {
				t.Errorf("got target %+v workspace %s at %s", ev.Target, ev.WorkspaceID, ev.At)
			}
		})
	}
}

func TestTeamStateEvent(t *testing.T) {
	team := workspace.TeamStanding{Exists: true, Limit: limit(50), Used: 60}
	tests := []struct {
		name           string
		before, paused bool
		wantOK         bool
		wantType       string
	}{
		{"paused", false, true, true, workspace.EventTeamPaused},
		{"resumed", true, false, true, workspace.EventTeamResumed},
		{"still paused", true, true, false, ""},
		{"still running", false, false, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, ok := workspace.TeamStateEvent("ws", "t1", team, tc.before, tc.paused, noon)
			if ok != tc.wantOK || ev.DetailType != tc.wantType {
				t.Fatalf("got %v %q, want %v %q", ok, ev.DetailType, tc.wantOK, tc.wantType)
			}
			if ok && (ev.Credits != 60 || !sameLimit(ev.Limit, limit(50)) || ev.Reason != workspace.ReasonTeamLimit || ev.Target.Type != workspace.TargetTeam) {
				t.Errorf("got %+v", ev)
			}
		})
	}
}

func TestOnlyAWellFormedLimitEventIsValid(t *testing.T) {
	good := workspace.LimitEvent{ID: "evt_1", WorkspaceID: "ws", DetailType: workspace.EventAgentStopped,
		Target: workspace.EventTarget{Type: workspace.TargetAgent, ID: "a1"}, Credits: 1, Limit: limit(1)}
	tests := []struct {
		name   string
		change func(*workspace.LimitEvent)
		want   bool
	}{
		{"well formed", func(*workspace.LimitEvent) {}, true},
		{"no id", func(e *workspace.LimitEvent) { e.ID = "" }, false},
		{"an unknown detail type", func(e *workspace.LimitEvent) { e.DetailType = "Agent Exploded" }, false},
		{"an unknown target type", func(e *workspace.LimitEvent) { e.Target.Type = "member" }, false},
		{"no workspace", func(e *workspace.LimitEvent) { e.WorkspaceID = "" }, false},
	}
	for _, tc := range tests {
		ev := good
		tc.change(&ev)
		if got := ev.Valid(); got != tc.want {
			t.Errorf("%s: Valid() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
