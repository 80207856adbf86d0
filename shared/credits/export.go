package credits

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Bounds of GET /workspaceapi/credits/export (docs/endpoints.md, The usage
// export).
const (
	// maxExportLimit bounds a page's rows; it is the default too, so that
	// most exports are one request.
	maxExportLimit = 10000
	// defaultExportDays is the period when from is not given: the 30 days
	// ending with to, as an agent's usage chart.
	defaultExportDays = 30
	// maxExportReads bounds the usage items one page reads before it ends
	// with a cursor: about two months of a 10,000-agent workspace whose every
	// agent spent, well within the function's 29 s and its memory.
	maxExportReads = 20000
	// exportBodyBudget bounds a page's rows as Lambda's response payload
	// counts them (escaped into a JSON string): Lambda answers at most 6 MB,
	// and a gzipped answer, base64-encoded, may be a third larger than the
	// rows when they do not compress. The rest is headroom for the envelope.
	exportBodyBudget = 4 << 20
	// exportQueryItems is the most usage items one read of a month listing
	// asks for; exportMinQueryItems the least, so that sparse days do not
	// cost a round trip per row.
	exportQueryItems    = 2000
	exportMinQueryItems = 100
	// nextCursorHeader carries a CSV page's next cursor (a JSON page has it
	// in its body too); it is absent after the last page.
	nextCursorHeader = "Next-Cursor"
)

// exportQuery is a checked export request.
type exportQuery struct {
	from, to time.Time
	groupBy  workspace.ExportGroupBy
	limit    int
	start    exportPos
	csv      bool
	binding  string // what its cursors are bound to (httpapi.CursorBinding)
	key      httpapi.CursorKey
}

// exportPos is where a page starts: the rows of day whose group id sorts
// after after ("" from the day's first).
type exportPos struct {
	day   time.Time
	after string
}

// usageExport handles GET /workspaceapi/credits/export: credits spent per
// UTC day and per agent or team, over up to 366 days, as CSV or JSON, in
// pages of rows ordered by date and then id. A team-scoped key sees its
// team's agents, or its team, only. The query is checked before anything is
// read.
func usageExport(store Store, clock workspace.Clock, cursors *httpapi.Cursors) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		key, err := cursors.Key(r.Context())
		if err != nil {
			return err
		}
		q, err := parseExportQuery(r, clock.Now(), key)
		if err != nil {
			return err
		}
		rows, next, err := readExportPage(r.Context(), store, caller, q)
		if err != nil {
			return err
		}
		if err := nameRows(r.Context(), store, caller.WorkspaceID, q.groupBy, rows); err != nil {
			return err
		}
		body, cursor, err := encodeExport(q, rows, next)
		if err != nil {
			return err
		}
		contentType := "application/json"
		if q.csv {
			contentType = "text/csv; charset=utf-8"
		}
		if cursor != nil {
			w.Header().Set(nextCursorHeader, *cursor)
		}
		httpapi.Body(w, http.StatusOK, contentType, body)
		return nil
	}
}

// parseExportQuery checks the query at now: from and to (YYYY-MM-DD; to
// defaults to today, from to the 30 days ending with to), groupBy, limit,
// cursor (checked with key), and the Accept header.
func parseExportQuery(r *http.Request, now time.Time, key httpapi.CursorKey) (exportQuery, error) {
	q := exportQuery{groupBy: workspace.GroupByAgent, limit: maxExportLimit, csv: acceptsCSV(r), key: key}
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	to, set, err := httpapi.QueryDate(r, "to")
	if err != nil {
		return q, err
	}
	if !set {
		to = today
	}
	from, set, err := httpapi.QueryDate(r, "from")
	if err != nil {
		return q, err
	}
	if !set {
		from = to.AddDate(0, 0, 1-defaultExportDays)
	}
	if err := workspace.CheckExportPeriod(from, to, today); err != nil {
		return q, err
	}
	q.from, q.to = from, to
	if g, set, err := httpapi.QueryString(r, "groupBy"); err != nil {
		return q, err
	} else if set {
		if q.groupBy, err = workspace.ParseExportGroupBy(g); err != nil {
			return q, err
		}
	}
	if limit, set, err := httpapi.QueryInt(r, "limit", 1, maxExportLimit); err != nil {
		return q, err
	} else if set {
		q.limit = limit
	}
	q.start = exportPos{day: from}
	q.binding = httpapi.CursorBinding(r)
	c, set, err := httpapi.QueryString(r, "cursor")
	if err != nil || !set {
		return q, err
	}
	q.start, err = decodeExportCursor(c, q)
	return q, err
}

// errExportCursor is the 400 of a cursor this export did not make.
var errExportCursor = workspace.Invalid("cursor is not a cursor this API returned for this export")

// encodeExportCursor makes the cursor of q's page after row: its grouping,
// its date and its id, bound to q's listing (httpapi.CursorKey.Bind), so that a
// cursor of another grouping, period, query or workspace is refused rather
// than misread.
func encodeExportCursor(q exportQuery, row workspace.ExportRow) string {
	return q.key.Bind(q.binding, string(q.groupBy)+"|"+row.Date+"|"+row.ID)
}

// encodePosCursor is the cursor of q's page that starts at pos.
func encodePosCursor(q exportQuery, pos exportPos) string {
	return encodeExportCursor(q, workspace.ExportRow{Date: workspace.DayKey(pos.day), ID: pos.after})
}

// decodeExportCursor reads a cursor of q's listing whose day lies in q's
// period.
func decodeExportCursor(c string, q exportQuery) (exportPos, error) {
	raw, ok := q.key.Unbind(q.binding, c)
	if !ok || len(raw) > len(q.groupBy)+len(time.DateOnly)+2+workspace.MaxIDLength {
		return exportPos{}, errExportCursor
	}
	by, rest, ok1 := strings.Cut(raw, "|")
	date, after, ok2 := strings.Cut(rest, "|")
	day, err := time.Parse(time.DateOnly, date)
	if !ok1 || !ok2 || err != nil || by != string(q.groupBy) || day.Before(q.from) || day.After(q.to) {
		return exportPos{}, errExportCursor
	}
	return exportPos{day: day, after: after}, nil
}

// acceptsCSV reports whether the request's Accept header asks for CSV: it
// names text/csv with a weight above 0 and gives application/json no
// greater weight. Anything else is answered with JSON.
func acceptsCSV(r *http.Request) bool {
	csvQ, jsonQ := -1.0, -1.0
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			media, params, _ := strings.Cut(part, ";")
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				if name, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(name, "q") {
					if f, err := strconv.ParseFloat(val, 64); err == nil {
						q = f
					}
				}
			}
			switch strings.ToLower(strings.TrimSpace(media)) {
			case "text/csv":
				csvQ = max(csvQ, q)
			case "application/json":
				jsonQ = max(jsonQ, q)
			}
		}
	}
	return csvQ > 0 && csvQ >= jsonQ
}

// readExportPage reads the rows of one page of q from q.start: up to
// q.limit of them, and the position of the next page (nil after the last).
// Rows come from the month listings of the agents that spent (only the
// caller's team's for a team-scoped key):
//
//   - By agent, a day's rows are its listing's agents that spent on it, in id
//     order, so a page reads the listing from its cursor until it is full.
//     Once a day was read from its first agent, the listing read holds the
//     whole month, and the month's other days come from it.
//   - By team, each day's rows sum a whole month's listing, which a page
//     therefore reads whole.
//
// A page ends early, with a cursor, once it has read maxExportReads items. It
// reads one row past the limit, so that the last page has no cursor.
func readExportPage(ctx context.Context, store Store, caller workspace.Caller, q exportQuery) (
	rows []workspace.ExportRow, next *exportPos, err error) {
	ws, team := caller.WorkspaceID, caller.TeamID
	pos, read := q.start, 0
	// add appends a row, and reports whether the page is full: then next is
	// after its last row.
	add := func(row workspace.ExportRow) bool {
		rows = append(rows, row)
		if len(rows) <= q.limit {
			return false
		}
		rows = rows[:q.limit]
		last := rows[q.limit-1]
		day, _ := time.Parse(time.DateOnly, last.Date)
		next = &exportPos{day: day, after: last.ID}
		return true
	}
	for !pos.day.After(q.to) {
		if read >= maxExportReads {
			return rows, &pos, nil
		}
		month, last := workspace.MonthKey(pos.day), workspace.LastOfMonth(pos.day)
		if last.After(q.to) {
			last = q.to
		}
		if q.groupBy == workspace.GroupByTeam {
			usage, err := readMonth(ctx, store, ws, team, month)
			if err != nil {
				return nil, nil, err
			}
			read += len(usage)
			for d, after := pos.day, pos.after; !d.After(last); d, after = d.AddDate(0, 0, 1), "" {
				for _, row := range workspace.TeamDayRows(usage, d, after) {
					if add(row) {
						return rows, next, nil
					}
				}
			}
			pos = exportPos{day: last.AddDate(0, 0, 1)}
			continue
		}

		// By agent: pos.day from pos.after on, reading the listing in id
		// order only as far as the page needs.
		var usage []workspace.AgentMonthSpend
		after, more := pos.after, true
		for more {
			want := min(max(q.limit+1-len(rows), exportMinQueryItems), exportQueryItems, maxExportReads-read)
			var got []workspace.AgentMonthSpend
			if got, more, err = store.UsageMonthPage(ctx, ws, team, month, after, max(want, 1)); err != nil {
				return nil, nil, err
			}
			read += len(got)
			usage = append(usage, got...)
			for _, row := range workspace.AgentDayRows(got, pos.day, "") {
				if add(row) {
					return rows, next, nil
				}
			}
			if len(got) > 0 {
				after = got[len(got)-1].AgentID
			}
			if more && read >= maxExportReads {
				return rows, &exportPos{day: pos.day, after: after}, nil
			}
		}
		if pos.after != "" {
			// The listing was read from pos.after on: the month's next day
			// reads it again from its first agent.
			pos = exportPos{day: pos.day.AddDate(0, 0, 1)}
			continue
		}
		for d := pos.day.AddDate(0, 0, 1); !d.After(last); d = d.AddDate(0, 0, 1) {
			for _, row := range workspace.AgentDayRows(usage, d, "") {
				if add(row) {
					return rows, next, nil
				}
			}
		}
		pos = exportPos{day: last.AddDate(0, 0, 1)}
	}
	return rows, nil, nil
}

// readMonth reads a month listing whole, exportQueryItems agents a call.
func readMonth(ctx context.Context, store Store, ws, team, month string) ([]workspace.AgentMonthSpend, error) {
	var usage []workspace.AgentMonthSpend
	after := ""
	for more := true; more; {
		got, m, err := store.UsageMonthPage(ctx, ws, team, month, after, exportQueryItems)
		if err != nil {
			return nil, err
		}
		usage, more = append(usage, got...), m
		if len(got) > 0 {
			after = got[len(got)-1].AgentID
		}
	}
	return usage, nil
}

// nameRows fills in the names of the agents (by agent) or teams (by team)
// of a page's rows, with one read of them all; a group without an entity
// keeps an empty name.
func nameRows(ctx context.Context, store Store, ws string, by workspace.ExportGroupBy, rows []workspace.ExportRow) error {
	if len(rows) == 0 {
		return nil
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var agentIDs, teamIDs []string
	if by == workspace.GroupByTeam {
		teamIDs = ids
	} else {
		agentIDs = ids
	}
	agents, teams, err := store.ExportNames(ctx, ws, agentIDs, teamIDs)
	if err != nil {
		return err
	}
	names := agents
	if by == workspace.GroupByTeam {
		names = teams
	}
	for i := range rows {
		rows[i].Name = names[rows[i].ID]
	}
	return nil
}

// exportPageHead is the first part of a JSON page's body; the rows, encoded
// one by one, and nextCursor follow it.
type exportPageHead struct {
	From    string `json:"from"`
	To      string `json:"to"`
	GroupBy string `json:"groupBy"`
}

// encodeExport encodes a page's rows as q asks, CSV or JSON, as many as fit
// exportBodyBudget, and returns the body and the next page's cursor (nil
// after the last page): the one after the last row encoded when the budget
// cut the page, else next's.
func encodeExport(q exportQuery, rows []workspace.ExportRow, next *exportPos) ([]byte, *string, error) {
	var cursor *string
	if next != nil {
		c := encodePosCursor(q, *next)
		cursor = &c
	}
	var body []byte
	if q.csv {
		body = csvRecord(csvHeaders[q.groupBy]...)
	} else {
		head, err := json.Marshal(exportPageHead{From: workspace.DayKey(q.from), To: workspace.DayKey(q.to), GroupBy: string(q.groupBy)})
		if err != nil {
			return nil, nil, err
		}
		body = append(head[:len(head)-1], `,"rows":[`...)
	}
	size := envelopeSize(body)
	for i, r := range rows {
		var enc []byte
		if q.csv {
			enc = csvRow(q.groupBy, r)
		} else {
			var err error
			if enc, err = jsonRow(q.groupBy, r); err != nil {
				return nil, nil, err
			}
			if i > 0 {
				enc = append([]byte{','}, enc...)
			}
		}
		if size += envelopeSize(enc); size > exportBodyBudget && i > 0 {
			c := encodeExportCursor(q, rows[i-1])
			cursor = &c
			break
		}
		body = append(body, enc...)
	}
	if q.csv {
		return body, cursor, nil
	}
	tail, err := json.Marshal(cursor)
	if err != nil {
		return nil, nil, err
	}
	body = append(append(append(body, `],"nextCursor":`...), tail...), '}')
	return body, cursor, nil
}
