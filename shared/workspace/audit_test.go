package workspace

import (
	"fmt"
	"testing"
	"time"
)

func TestAgentStateEntryNamesTheTransition(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	daily := AgentState{Status: StatusStopped, Reason: ReasonDailyLimit}
	monthly := AgentState{Status: StatusStopped, Reason: ReasonMonthlyLimit}
	paused := AgentState{Status: StatusPaused, Reason: ReasonTeamLimit}
	for _, tc := range []struct {
		name     string
		from, to AgentState
		want     string // action and changes; "" for no entry
	}{
		{"a stop", Running, daily, "agent.stopped map[status:{running stopped} statusReason:{<nil> daily_limit}]"},
		{"a resume", daily, Running, "agent.resumed map[status:{stopped running} statusReason:{daily_limit <nil>}]"},
		{"a stop for another reason", daily, monthly, "agent.stopped map[statusReason:{daily_limit monthly_limit}]"},
		{"a pause by the team", Running, paused, "agent.stopped map[status:{running paused} statusReason:{<nil> team_limit}]"},
		{"a state that stands", daily, daily, ""},
	} {
		e, ok := AgentStateEntry(at, SystemActor(SystemIngest), "agt_1", tc.from, tc.to)
		got := ""
		if ok {
			got = fmt.Sprintf("%s %v", e.Action, e.Changes)
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTeamPauseEntryNamesTheTransition(t *testing.T) {
	for _, tc := range []struct {
		from, to bool
		want     string
	}{
		{false, true, "team.paused map[paused:{false true}]"},
		{true, false, "team.resumed map[paused:{true false}]"},
		{true, true, ""},
	} {
		e, ok := TeamPauseEntry(time.Time{}, SystemActor(SystemScheduler), "team_1", tc.from, tc.to)
		got := ""
		if ok {
			got = fmt.Sprintf("%s %v", e.Action, e.Changes)
		}
		if got != tc.want {
			t.Errorf("%v to %v: got %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

func TestLimitChangesHoldOnlyAChangedLimit(t *testing.T) {
	five, six := 5.0, 6.0
	for _, tc := range []struct {
		from, to *float64
		want     string
	}{
		{nil, &five, "map[dailyCreditLimit:{<nil> 5}]"},
		{&five, &six, "map[dailyCreditLimit:{5 6}]"},
		{&five, nil, "map[dailyCreditLimit:{5 <nil>}]"},
		{&five, &five, "map[]"},
		{nil, nil, "map[]"},
	} {
		if got := fmt.Sprint(LimitChanges("dailyCreditLimit", tc.from, tc.to)); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

func TestEveryAuditActionIsValid(t *testing.T) {
	for _, a := range AuditActions {
		if !a.Valid() {
			t.Errorf("%s is not valid", a)
		}
	}
	if AuditAction("team.exploded").Valid() || len(AuditActions) != 36 {
		t.Errorf("%d actions, or an unknown one is valid", len(AuditActions))
	}
}
