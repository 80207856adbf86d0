package workspace

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestPackUsageKeepsEachChunkWithinItsWrites(t *testing.T) {
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	ev := func(id, agent, chat string) Usage {
		return Usage{EventID: id, WorkspaceID: "ws", AgentID: agent, ChatID: chat, Credits: 1, OccurredAt: at}
	}
	noTeam := func(Usage) string { return "" }
	team := func(e Usage) string { return "t-" + e.AgentID }
	many := make([]Usage, 40)
	for i := range many {
		many[i] = ev(fmt.Sprint("e", i), "a1", "")
	}
	tests := []struct {
		name   string
		events []Usage
		teamOf func(Usage) string
		max    int
		want   [][]int
	}{
		{"none", nil, noTeam, 100, nil},
		// One event: marker, agent month, its group's month = 3.
		{"one event fits", []Usage{ev("e1", "a1", "")}, noTeam, 3, [][]int{{0}}},
		// A second event of the same agent adds only its marker.
		{"an agent's events share its figures", []Usage{ev("e1", "a1", ""), ev("e2", "a1", "")}, noTeam, 4, [][]int{{0, 1}}},
		{"a chat counts too", []Usage{ev("e1", "a1", "c1"), ev("e2", "a1", "c1")}, team, 4, [][]int{{0}, {1}}},
		{"events taken agent by agent", []Usage{ev("e1", "a1", ""), ev("e2", "a2", ""), ev("e3", "a1", "")}, noTeam, 4,
			[][]int{{0, 2}, {1}}},
		{"a chunk holds one workspace's events", []Usage{ev("e1", "a1", ""), {EventID: "x1", WorkspaceID: "other", AgentID: "b1", Credits: 1, OccurredAt: at},
			ev("e2", "a2", "")}, noTeam, 100, [][]int{{0, 2}, {1}}},
		{"a long run splits: 28 markers and 2 figures", many, noTeam, 30, [][]int{seq(0, 28), seq(28, 40)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pending := seq(0, len(tc.events))
			if got := PackUsage(tc.events, pending, tc.teamOf, tc.max); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func TestSumUsageAddsEachFigureOnceInFirstSeenOrder(t *testing.T) {
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	events := []Usage{
		{EventID: "e1", WorkspaceID: "ws", AgentID: "a1", ChatID: "c1", Credits: 0.7, OccurredAt: day(20, 9)},
		{EventID: "e2", WorkspaceID: "ws", AgentID: "a2", Credits: 2, OccurredAt: day(20, 8)},
		{EventID: "e3", WorkspaceID: "ws", AgentID: "a1", ChatID: "c1", Credits: 0.1, OccurredAt: day(21, 7)},
		{EventID: "e4", WorkspaceID: "ws", AgentID: "a1", Credits: 1, OccurredAt: day(19, 23)},
	}
	teamOf := func(e Usage) string {
		if e.AgentID == "a1" {
			return "t1"
		}
		return ""
	}
	got := SumUsage(events, teamOf)
	want := UsageTotals{
		AgentMonths: []AgentMonthUsage{
			{WorkspaceID: "ws", AgentID: "a1", TeamID: "t1", Month: "2026-11", Total: 1.8, Days: map[int]float64{19: 1, 20: 0.7, 21: 0.1}},
			{WorkspaceID: "ws", AgentID: "a2", Month: "2026-11", Total: 2, Days: map[int]float64{20: 2}},
		},
		Activity: []AgentActivity{
			{WorkspaceID: "ws", AgentID: "a1", TeamID: "t1", At: day(21, 7)},
			{WorkspaceID: "ws", AgentID: "a2", At: day(20, 8)},
		},
		Counters: []CounterUsage{
			{WorkspaceID: "ws", TeamID: "t1", Month: "2026-11", Credits: 1.8},
			{WorkspaceID: "ws", Month: "2026-11", Credits: 2},
		},
		Chats: []CounterUsage{{WorkspaceID: "ws", AgentID: "a1", ChatID: "c1", Credits: 0.8}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
