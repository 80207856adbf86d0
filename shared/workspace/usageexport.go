package workspace

import (
	"cmp"
	"slices"
	"time"
)

// The usage export (GET /workspaceapi/credits/export) lists credits spent
// per UTC day and per agent or team, from the agents' month usage counters.
// This file holds its rules: the period it may cover, its groupings, and
// how the rows of a day are made from the counters of a month.

// MaxExportDays is the longest period one export may cover, from and to
// inclusive.
const MaxExportDays = 366

// ExportGroupBy is what an export's rows are grouped by.
type ExportGroupBy string

// The groupings of an export.
const (
	GroupByAgent ExportGroupBy = "agent"
	GroupByTeam  ExportGroupBy = "team"
)

// ParseExportGroupBy reads a groupBy value: "agent" or "team"; anything else
// is a KindInvalid error.
func ParseExportGroupBy(s string) (ExportGroupBy, error) {
	switch g := ExportGroupBy(s); g {
	case GroupByAgent, GroupByTeam:
		return g, nil
	}
	return "", Invalid("groupBy must be agent or team")
}

// CheckExportPeriod returns a KindInvalid error unless from and to (UTC
// midnights) make a period an export may cover at today (a UTC midnight):
// from not after to, to not after today, at most MaxExportDays days.
func CheckExportPeriod(from, to, today time.Time) error {
	switch {
	case from.After(to):
		return Invalid("from must not be after to")
	case to.After(today):
		return Invalid("to must not be after today (%s, UTC)", DayKey(today))
	case from.AddDate(0, 0, MaxExportDays).Compare(to) <= 0:
		return Invalid("from and to must span at most %d days", MaxExportDays)
	}
	return nil
}

// AgentMonthSpend is one agent's spend in one UTC month as its usage counter
// holds it: Spent[d] is what it spent on day d of the month; TeamID is the
// team it spent it in ("" for none).
type AgentMonthSpend struct {
	AgentID string
	TeamID  string
	Spent   [32]float64
}

// ExportRow is one row of an export: a day, a group (an agent, with its
// team, or a team) and what it spent that day. Names are filled in last,
// for the rows of a page only.
type ExportRow struct {
	Date    string // YYYY-MM-DD
	ID      string // the agent's or the team's id
	Name    string
	TeamID  string // the agent's team, "" for none; unused for team rows
	Credits float64
}

// AgentDayRows returns the rows of day (of the month usage is of) for
// agents: one per agent that spent on it, in the order of usage (which the
// store lists by agent id), those whose id sorts after after only.
func AgentDayRows(usage []AgentMonthSpend, day time.Time, after string) []ExportRow {
	var rows []ExportRow
	d, date := day.Day(), DayKey(day)
	for _, u := range usage {
		if u.AgentID > after && u.Spent[d] > 0 {
			rows = append(rows, ExportRow{Date: date, ID: u.AgentID, TeamID: u.TeamID, Credits: u.Spent[d]})
		}
	}
	return rows
}

// TeamDayRows returns the rows of day (of the month usage is of) for teams:
// one per team whose agents spent on it, its credits their sum, by team id,
// those whose id sorts after after only. Spend of agents without a team is
// in no team's row.
func TeamDayRows(usage []AgentMonthSpend, day time.Time, after string) []ExportRow {
	d, date := day.Day(), DayKey(day)
	spent := map[string][]float64{}
	for _, u := range usage {
		if u.TeamID != "" && u.TeamID > after && u.Spent[d] > 0 {
			spent[u.TeamID] = append(spent[u.TeamID], u.Spent[d])
		}
	}
	rows := make([]ExportRow, 0, len(spent))
	for team, xs := range spent {
		rows = append(rows, ExportRow{Date: date, ID: team, Credits: SumCredits(xs...)})
	}
	slices.SortFunc(rows, func(a, b ExportRow) int { return cmp.Compare(a.ID, b.ID) })
	return rows
}

// LastOfMonth returns the UTC midnight of the last day of day's month.
func LastOfMonth(day time.Time) time.Time {
	y, m, _ := day.UTC().Date()
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC)
}
