package workspace

import (
	"slices"
	"time"
)

// This file holds the pure rules of applying a batch of credits.used events:
// how the batch splits into transactions, and what each transaction adds.
// Events of one transaction that share a figure add to it with one write.

// AgentMonthUsage is what a batch adds to one agent's month: its total and,
// by day of month, both the day's spend and its usage counted toward the
// daily limit.
type AgentMonthUsage struct {
	WorkspaceID, AgentID, TeamID, Month string
	Total                               float64
	Days                                map[int]float64
}

// AgentActivity is an agent's latest usage in a batch (written after the
// batch's transactions, never in them).
type AgentActivity struct {
	WorkspaceID, AgentID, TeamID string
	At                           time.Time
}

// CounterUsage is what a batch adds to one counter: a usage group's month
// (a team's, TeamID set, or the group of agents without a team), or a
// chat's total (ChatID set, with AgentID). A workspace's month is the sum of
// its groups'.
type CounterUsage struct {
	WorkspaceID, TeamID, AgentID, ChatID, Month string
	Credits                                     float64
}

// UsageTotals are a batch's sums, each figure once, in the order the
// figures first appear in the batch; every sum is rounded (SumCredits).
type UsageTotals struct {
	AgentMonths []AgentMonthUsage
	Activity    []AgentActivity
	Counters    []CounterUsage // the usage groups' months
	Chats       []CounterUsage
}

// SumUsage sums the events of a batch; teamOf names the team an event's
// agent belongs to ("" for none): the usage group whose month its credits
// also add to.
func SumUsage(events []Usage, teamOf func(Usage) string) UsageTotals {
	var out UsageTotals
	months, activity, counters, chats := map[[3]string]int{}, map[[2]string]int{}, map[CounterUsage]int{}, map[CounterUsage]int{}
	addCounter := func(list *[]CounterUsage, at map[CounterUsage]int, c CounterUsage, credits float64) {
		i, ok := at[c]
		if !ok {
			i, at[c] = len(*list), len(*list)
			*list = append(*list, c)
		}
		(*list)[i].Credits += credits
	}
	for _, e := range events {
		team, month := teamOf(e), MonthKey(e.OccurredAt)
		m, ok := months[[3]string{e.WorkspaceID, e.AgentID, month}]
		if !ok {
			m, months[[3]string{e.WorkspaceID, e.AgentID, month}] = len(out.AgentMonths), len(out.AgentMonths)
			out.AgentMonths = append(out.AgentMonths, AgentMonthUsage{WorkspaceID: e.WorkspaceID, AgentID: e.AgentID,
				TeamID: team, Month: month, Days: map[int]float64{}})
		}
		out.AgentMonths[m].Total += e.Credits
		out.AgentMonths[m].Days[e.OccurredAt.UTC().Day()] += e.Credits
		a, ok := activity[[2]string{e.WorkspaceID, e.AgentID}]
		if !ok {
			a, activity[[2]string{e.WorkspaceID, e.AgentID}] = len(out.Activity), len(out.Activity)
			out.Activity = append(out.Activity, AgentActivity{WorkspaceID: e.WorkspaceID, AgentID: e.AgentID, TeamID: team})
		}
		if e.OccurredAt.After(out.Activity[a].At) {
			out.Activity[a].At = e.OccurredAt
		}
		addCounter(&out.Counters, counters, CounterUsage{WorkspaceID: e.WorkspaceID, TeamID: team, Month: month}, e.Credits)
		if e.ChatID != "" {
			addCounter(&out.Chats, chats, CounterUsage{WorkspaceID: e.WorkspaceID, AgentID: e.AgentID, ChatID: e.ChatID}, e.Credits)
		}
	}
	for i := range out.AgentMonths {
		out.AgentMonths[i].Total = SumCredits(out.AgentMonths[i].Total)
		for d, v := range out.AgentMonths[i].Days {
			out.AgentMonths[i].Days[d] = SumCredits(v)
		}
	}
	for _, list := range [][]CounterUsage{out.Counters, out.Chats} {
		for i := range list {
			list[i].Credits = SumCredits(list[i].Credits)
		}
	}
	return out
}

// PackUsage splits the events at pending into chunks each of which writes at
// most maxWrites figures, counting each chunk's distinct figures exactly: per
// event its marker, and the figures it adds to (its agent's month, its
// usage group's month: its team's or the no-team group's, its chat). The
// agents' latest activity is written after the chunks, outside them. A chunk
// holds one workspace's events only, so no transaction (nor its retries)
// spans two tenants. Events are taken workspace by workspace and, within
// one, agent by agent, in the order they first appear, so an agent's events
// share one write unless they alone overflow a chunk.
func PackUsage(events []Usage, pending []int, teamOf func(Usage) string, maxWrites int) [][]int {
	var order [][2]string
	byAgent := map[[2]string][]int{}
	for _, i := range pending {
		r := [2]string{events[i].WorkspaceID, events[i].AgentID}
		if _, ok := byAgent[r]; !ok {
			order = append(order, r)
		}
		byAgent[r] = append(byAgent[r], i)
	}
	// A stable sort by first appearance of the workspace keeps the agents'
	// order within each.
	wsRank := map[string]int{}
	for _, r := range order {
		if _, ok := wsRank[r[0]]; !ok {
			wsRank[r[0]] = len(wsRank)
		}
	}
	slices.SortStableFunc(order, func(a, b [2]string) int { return wsRank[a[0]] - wsRank[b[0]] })
	var chunks [][]int
	var cur []int
	seen := map[[4]string]bool{}
	for _, r := range order {
		for _, i := range byAgent[r] {
			e := events[i]
			team, month := teamOf(e), MonthKey(e.OccurredAt)
			need := [][4]string{
				{"event", e.WorkspaceID, e.EventID}, {"agentMonth", e.WorkspaceID, e.AgentID, month},
				{"groupMonth", e.WorkspaceID, team, month},
			}
			if e.ChatID != "" {
				need = append(need, [4]string{"chat", e.WorkspaceID, e.AgentID, e.ChatID})
			}
			fresh := 0
			for _, k := range need {
				if !seen[k] {
					fresh++
				}
			}
			if len(cur) > 0 && (len(seen)+fresh > maxWrites || events[cur[0]].WorkspaceID != e.WorkspaceID) {
				chunks = append(chunks, cur)
				cur, seen = nil, map[[4]string]bool{}
			}
			for _, k := range need {
				seen[k] = true
			}
			cur = append(cur, i)
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// ByWorkspace groups the indexes of events by workspace, workspaces in the
// order they first appear and each group's indexes in order: the units a
// batch is applied in, each on its own.
func ByWorkspace(events []Usage) [][]int {
	at := map[string]int{}
	var out [][]int
	for i, e := range events {
		g, ok := at[e.WorkspaceID]
		if !ok {
			g, at[e.WorkspaceID] = len(out), len(out)
			out = append(out, nil)
		}
		out[g] = append(out[g], i)
	}
	return out
}
