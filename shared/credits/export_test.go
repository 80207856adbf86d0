package credits_test

import (
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// exportBody is a JSON page of GET /workspaceapi/credits/export.
type exportBody struct {
	From, To, GroupBy string
	Rows              []map[string]any
	NextCursor        *string
}

// spendIn records credits of agent of workspace ws at time at, as the
// ingest function would then.
func spendIn(t *testing.T, env *apitest.Env, ws, agent string, credits float64, at time.Time) {
	t.Helper()
	rep := env.Store.ApplyUsage(t.Context(), workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{{
		EventID: fmt.Sprintf("ev_%s_%s_%d", ws, agent, at.UnixNano()), WorkspaceID: ws, AgentID: agent, Credits: credits, OccurredAt: at,
	}}, at)
	for _, err := range rep.Errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// exportEnv is the standings fixture with usage on a few days around a
// month boundary (today is 2026-11-21): ag_free (no team), ag_daily and
// ag_private (team_a), ag_support1 (team_b), and ag_other of ws_b.
func exportEnv(t *testing.T) *apitest.Env {
	t.Helper()
	env := newEnv(t)
	at := func(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, time.UTC) }
	spendIn(t, env, "ws_a", "ag_support1", 2, at(10, 31, 23))
	spendIn(t, env, "ws_a", "ag_free", 1.5, at(10, 31, 8))
	spendIn(t, env, "ws_a", "ag_daily", 1, at(11, 2, 8))
	spendIn(t, env, "ws_a", "ag_daily", 0.25, at(11, 2, 9))
	spendIn(t, env, "ws_a", "ag_private", 3, at(11, 2, 10))
	spendIn(t, env, "ws_a", "ag_support1", 4, at(11, 2, 11))
	spendIn(t, env, "ws_a", "ag_free", 0.1, at(11, 21, 9))
	spendIn(t, env, "ws_a", "ag_free", 0.2, at(11, 21, 10))
	spendIn(t, env, "ws_b", "ag_other", 7, at(11, 2, 8))
	return env
}

func exportPath(query string) string { return "/workspaceapi/credits/export" + query }

// getExport requests a JSON page and decodes it.
func getExport(t *testing.T, env *apitest.Env, key, query string) exportBody {
	t.Helper()
	res := env.Do(t, http.MethodGet, exportPath(query), key, "")
	if res.Status != http.StatusOK {
		t.Fatalf("GET export%s: %d %s", query, res.Status, res.Body)
	}
	var b exportBody
	res.JSON(t, &b)
	return b
}

// rowLines renders rows as "date id credits" lines, for comparisons.
func rowLines(rows []map[string]any, idField string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%v %v %v", r["date"], r[idField], r["credits"]))
	}
	return out
}

func TestUsageExportRows(t *testing.T) {
	t.Parallel()
	env := exportEnv(t)
	tests := []struct {
		name, key, query string
		idField          string
		want             []string
	}{
		{"by agent, ordered by date then id, days without usage left out", keyRead, "?from=2026-10-01&to=2026-11-21", "agentId", []string{
			"2026-10-31 ag_free 1.5", "2026-10-31 ag_support1 2",
			"2026-11-02 ag_daily 1.25", "2026-11-02 ag_private 3", "2026-11-02 ag_support1 4",
			"2026-11-21 ag_free 0.3"}},
		{"by team: a team's agents summed, agents without a team in no row", keyRead, "?from=2026-10-01&to=2026-11-21&groupBy=team", "teamId", []string{
			"2026-10-31 team_b 2", "2026-11-02 team_a 4.25", "2026-11-02 team_b 4"}},
		{"the period bounds the rows", keyRead, "?from=2026-11-01&to=2026-11-20", "agentId", []string{
			"2026-11-02 ag_daily 1.25", "2026-11-02 ag_private 3", "2026-11-02 ag_support1 4"}},
		{"by default the 30 days ending today", keyRead, "", "agentId", []string{
			"2026-10-31 ag_free 1.5", "2026-10-31 ag_support1 2",
			"2026-11-02 ag_daily 1.25", "2026-11-02 ag_private 3", "2026-11-02 ag_support1 4",
			"2026-11-21 ag_free 0.3"}},
		{"a team-scoped key sees only its team's agents", keyTeamA, "?from=2026-10-01&to=2026-11-21", "agentId", []string{
			"2026-11-02 ag_daily 1.25", "2026-11-02 ag_private 3"}},
		{"a team-scoped key sees only its team", keyTeamA, "?from=2026-10-01&to=2026-11-21&groupBy=team", "teamId", []string{
			"2026-11-02 team_a 4.25"}},
		{"another workspace sees only its own", keyOther, "?from=2026-10-01&to=2026-11-21", "agentId", []string{
			"2026-11-02 ag_other 7"}},
		{"a period without usage: no rows", keyRead, "?from=2026-06-01&to=2026-06-30", "agentId", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := getExport(t, env, tc.key, tc.query)
			got := rowLines(b.Rows, tc.idField)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") || b.NextCursor != nil {
				t.Errorf("rows:\n%s\nnext %v; want:\n%s\nnext null", strings.Join(got, "\n"), b.NextCursor, strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestUsageExportJSONShape(t *testing.T) {
	t.Parallel()
	env := exportEnv(t)
	b := getExport(t, env, keyRead, "?from=2026-10-31&to=2026-10-31")
	want := `{"From":"2026-10-31","To":"2026-10-31","GroupBy":"agent","Rows":[` +
		`{"agentId":"ag_free","agentName":"Agent free","credits":1.5,"date":"2026-10-31","teamId":null},` +
		`{"agentId":"ag_support1","agentName":"Agent support1","credits":2,"date":"2026-10-31","teamId":"team_b"}],"NextCursor":null}`
	if got := show(b); got != want {
		t.Errorf("body = %s\nwant %s", got, want)
	}
	b = getExport(t, env, keyRead, "?from=2026-11-02&to=2026-11-02&groupBy=team")
	want = `{"From":"2026-11-02","To":"2026-11-02","GroupBy":"team","Rows":[` +
		`{"credits":4.25,"date":"2026-11-02","teamId":"team_a","teamName":"Research"},` +
		`{"credits":4,"date":"2026-11-02","teamId":"team_b","teamName":"Support"}],"NextCursor":null}`
	if got := show(b); got != want {
		t.Errorf("body = %s\nwant %s", got, want)
	}
}

func TestUsageExportCSVOrJSONByAccept(t *testing.T) {
	t.Parallel()
	env := exportEnv(t)
	const agentCSV = "date,agentId,agentName,teamId,credits\r\n" +
		"2026-10-31,ag_free,Agent free,,1.5\r\n2026-10-31,ag_support1,Agent support1,team_b,2\r\n"
	tests := []struct {
		name, accept, query string
		wantType, wantBody  string // wantBody "" for JSON: only its type is checked
	}{
		{"text/csv", "text/csv", "", "text/csv; charset=utf-8", agentCSV},
		{"text/csv by team", "text/csv", "&groupBy=team", "text/csv; charset=utf-8",
			"date,teamId,teamName,credits\r\n2026-10-31,team_b,Support,2\r\n"},
		{"text/csv among others, with parameters", "application/xml;q=0.9, TEXT/CSV; charset=utf-8", "", "text/csv; charset=utf-8", agentCSV},
		{"text/csv with JSON weighted higher", "text/csv;q=0.5, application/json", "", "application/json", ""},
		{"text/csv refused", "text/csv;q=0", "", "application/json", ""},
		{"no Accept", "", "", "application/json", ""},
		{"application/json", "application/json", "", "application/json", ""},
		{"anything", "*/*", "", "application/json", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.DoRaw(t, http.MethodGet, exportPath("?from=2026-10-31&to=2026-10-31"+tc.query),
				map[string]string{"Authorization": "Bearer " + keyRead, "Accept": tc.accept}, "")
			if res.Status != http.StatusOK || res.Header.Get("Content-Type") != tc.wantType {
				t.Fatalf("%d %s %s, want 200 %s", res.Status, res.Header.Get("Content-Type"), res.Body, tc.wantType)
			}
			if tc.wantBody != "" && string(res.Body) != tc.wantBody {
				t.Errorf("body %q, want %q", res.Body, tc.wantBody)
			}
			if tc.wantBody == "" && !json.Valid(res.Body) {
				t.Errorf("body %q is not JSON", res.Body)
			}
		})
	}
}

func TestUsageExportBounds(t *testing.T) {
	t.Parallel()
	env := newEnv(t) // today is 2026-11-21 (UTC)
	cursorOf := func(s string) string { return url.QueryEscape(encodeCursor(s)) }
	tests := []struct{ name, query, wantErr string }{
		{"from after to", "?from=2026-11-02&to=2026-11-01", "from must not be after to"},
		{"more than 366 days", "?from=2025-11-20&to=2026-11-21", "from and to must span at most 366 days"},
		{"to after today", "?from=2026-11-01&to=2026-11-22", "to must not be after today (2026-11-21, UTC)"},
		{"from after today, to by default today", "?from=2026-11-22", "from must not be after to"},
		{"a bad date", "?from=2026-02-30&to=2026-03-01", "from must be a date written YYYY-MM-DD"},
		{"a timestamp", "?from=2026-11-01T00:00:00Z&to=2026-11-02", "from must be a date written YYYY-MM-DD"},
		{"a short date", "?from=2026-11-1&to=2026-11-02", "from must be a date written YYYY-MM-DD"},
		{"an empty date", "?to=", "to must be a date written YYYY-MM-DD"},
		{"a month", "?to=2026-11", "to must be a date written YYYY-MM-DD"},
		{"a date given twice", "?to=2026-11-01&to=2026-11-02", "to must be given at most once"},
		{"a bad groupBy", "?groupBy=user", "groupBy must be agent or team"},
		{"groupBy in capitals", "?groupBy=Agent", "groupBy must be agent or team"},
		{"limit 0", "?limit=0", "limit must be an integer from 1 to 10000"},
		{"limit too large", "?limit=10001", "limit must be an integer from 1 to 10000"},
		{"a made-up cursor", "?cursor=abc", "cursor is not a cursor this API returned for this export"},
		{"a position made into a cursor", "?from=2026-11-01&to=2026-11-21&cursor=" + cursorOf("agent|2026-11-02|ag_free"),
			"cursor is not a cursor this API returned for this export"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env.FunctionTrips.Reset()
			res := env.Do(t, http.MethodGet, exportPath(tc.query), keyRead, "")
			if res.Status != http.StatusBadRequest || res.Error(t) != tc.wantErr {
				t.Errorf("%d %s, want 400 %q", res.Status, res.Body, tc.wantErr)
			}
			if res.FunctionTrips != 0 {
				t.Errorf("%d round trips before the query was refused, want 0", res.FunctionTrips)
			}
		})
	}
}

// encodeCursor wraps text as the export's cursors do.
func encodeCursor(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func TestUsageExportScopes(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, tc := range []struct {
		name, key  string
		wantStatus int
	}{
		{"a read key", keyRead, 200},
		{"a team-scoped key", keyTeamA, 200},
		{"no key", "", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if res := env.Do(t, http.MethodGet, exportPath(""), tc.key, ""); res.Status != tc.wantStatus {
				t.Errorf("status %d %s, want %d", res.Status, res.Body, tc.wantStatus)
			}
		})
	}
}

// Pages of any size, followed by their cursors, list every row once, in
// order, in both forms and both groupings; the last page has no cursor.
func TestUsageExportPages(t *testing.T) {
	t.Parallel()
	env := exportEnv(t)
	for _, groupBy := range []string{"agent", "team"} {
		query := "?from=2026-10-01&to=2026-11-21&groupBy=" + groupBy
		whole := getExport(t, env, keyRead, query)
		for _, limit := range []int{1, 2, 3, 5} {
			t.Run(fmt.Sprintf("%s, limit %d", groupBy, limit), func(t *testing.T) {
				var rows []map[string]any
				var csvRows []string
				cursor, pages := "", 0
				for {
					q := fmt.Sprintf("%s&limit=%d", query, limit)
					if cursor != "" {
						q += "&cursor=" + url.QueryEscape(cursor)
					}
					b := getExport(t, env, keyRead, q)
					res := env.DoRaw(t, http.MethodGet, exportPath(q), map[string]string{"Authorization": "Bearer " + keyRead, "Accept": "text/csv"}, "")
					records, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range records[1:] {
						csvRows = append(csvRows, r[0]+" "+r[1])
					}
					pages++
					if len(b.Rows) > limit || pages > 20 {
						t.Fatalf("page %d has %d rows, limit %d", pages, len(b.Rows), limit)
					}
					rows = append(rows, b.Rows...)
					next := res.Header.Get("Next-Cursor")
					if b.NextCursor == nil {
						if next != "" {
							t.Fatalf("the CSV page has cursor %q, the JSON one none", next)
						}
						break
					}
					if next != *b.NextCursor {
						t.Fatalf("the CSV page's cursor %q differs from the JSON one's %q", next, *b.NextCursor)
					}
					cursor = *b.NextCursor
				}
				if show(rows) != show(whole.Rows) {
					t.Errorf("pages gave %s\nwant %s", show(rows), show(whole.Rows))
				}
				var want []string
				for _, r := range whole.Rows {
					want = append(want, fmt.Sprint(r["date"], " ", r[groupBy+"Id"]))
				}
				if strings.Join(csvRows, ",") != strings.Join(want, ",") {
					t.Errorf("CSV pages gave %v, want %v", csvRows, want)
				}
				if wantPages := (len(whole.Rows) + limit - 1) / limit; pages != wantPages {
					t.Errorf("%d pages, want %d: the last full page has no cursor", pages, wantPages)
				}
			})
		}
	}
}

// parseCSV reads a CSV body as RFC 4180 readers do, failing the test when
// it is not well formed.
func parseCSV(t *testing.T, body string) [][]string {
	t.Helper()
	records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("CSV %.300q: %v", body, err)
	}
	return records
}

// An export's cursor belongs to its query but limit (grouping, period) and
// to its workspace, as every list's: used with anything else it is 400.
func TestAnExportCursorServesOnlyTheExportThatReturnedIt(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, d := range []int{1, 2, 3} {
		spendIn(t, env, "ws_a", "ag_free", 1, time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC))
	}
	const query = "?from=2026-11-01&to=2026-11-21"
	first := getExport(t, env, keyRead, query+"&limit=1")
	if first.NextCursor == nil {
		t.Fatalf("the first page of one row has no cursor: %+v", first)
	}
	c := "&cursor=" + url.QueryEscape(*first.NextCursor)
	for _, tc := range []struct {
		name, key, query string
		want             int
	}{
		{"the same export with another page size", keyRead, query + "&limit=2" + c, http.StatusOK},
		{"another period holding the cursor's day", keyRead, "?from=2026-11-01&to=2026-11-20&limit=1" + c, http.StatusBadRequest},
		{"the same query written otherwise", keyRead, "?to=2026-11-21&from=2026-11-01&limit=1" + c, http.StatusOK},
		{"another grouping", keyRead, query + "&groupBy=team&limit=1" + c, http.StatusBadRequest},
		{"another workspace", keyOther, query + "&limit=1" + c, http.StatusBadRequest},
	} {
		if res := env.Do(t, http.MethodGet, exportPath(tc.query), tc.key, ""); res.Status != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, res.Status, res.Body, tc.want)
		}
	}
}
