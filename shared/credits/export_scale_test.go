package credits_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// scaleWorkspace loads, in bulk, a workspace ws_s of agents agents in teams
// of 100 (named with what a spreadsheet would run, quotes, commas and line
// breaks), every one of which spent on every day of months (YYYY-MM, past
// ones), and returns the env, its admin key and the agents.
func scaleWorkspace(t testing.TB, agents int, months []string, opts ...apitest.Options) (*apitest.Env, string, []workspace.Agent) {
	t.Helper()
	const key = "wk_scaleAdminKey0000000000000000000000001"
	env := apitest.New(t, fmt.Sprintf(`{"workspaces": [{"id": "ws_s", "name": "Scale", "seats": 5, "teamSettingsEnabled": true,
		"allowedEmailDomains": [], "defaultDailyCreditLimit": null,
		"apiKeys": [{"key": %q, "name": "admin", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false}],
		"members": [{"id": "u_admin", "email": "admin@scale.example", "name": "Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
		"teams": [], "agents": [], "invites": [], "events": []}]}`, key), opts...)
	snap := tableops.Snapshot{Workspace: workspace.Workspace{ID: "ws_s", Name: "Scale", Seats: 5, TeamSettingsEnabled: true}}
	for i := range (agents + 99) / 100 {
		snap.Teams = append(snap.Teams, workspace.Team{ID: fmt.Sprintf("team_%03d", i), Name: fmt.Sprintf("=Team %d", i)})
	}
	var items []map[string]types.AttributeValue
	for i := range agents {
		a := workspace.Agent{ID: fmt.Sprintf("ag_%05d", i), Name: fmt.Sprintf("@Agent \"%d\", line\nbreak", i),
			TeamID: fmt.Sprintf("team_%03d", i/100), AgentDiscoverability: "workspace"}
		snap.Agents = append(snap.Agents, a)
		for _, m := range months {
			first, _ := time.Parse("2006-01", m)
			spent := map[int]float64{}
			for d := 1; d <= workspace.LastOfMonth(first).Day(); d++ {
				spent[d] = float64(d%7) + 0.5
			}
			it, err := dynamo.UsageMonthItem("ws_s", a, m, spent)
			if err != nil {
				t.Fatal(err)
			}
			items = append(items, it)
		}
	}
	snap.Members = []workspace.Member{{ID: "u_admin", Email: "admin@scale.example", Name: "Admin", Role: workspace.RoleAdmin, JoinedAt: apitest.Start}}
	if err := tableops.PutSnapshot(t.Context(), env.Store, snap, apitest.Start); err != nil {
		t.Fatal(err)
	}
	if err := tableops.PutItems(t.Context(), env.Store, items); err != nil {
		t.Fatal(err)
	}
	return env, key, snap.Agents
}

// exportPageBudget is the round trips of one export page of rows agents:
// per month it touches, its listing's Queries (one per 2,000 agents, and a
// second read of the month when a page starts inside a day), and one
// BatchGetItem per 100 agents named.
func exportPageBudget(rows, monthAgents, months int) int {
	perMonth := 2 * ((monthAgents+1999)/2000 + 1)
	return months*perMonth + (min(rows, monthAgents)+99)/100
}

// Every page of a 1,000-agent workspace's two months of daily usage (62,000
// rows) stays within its round-trip budget and Lambda's response limit, in
// JSON and in CSV, and the pages together hold every row once.
func TestUsageExportAtScaleWithinLimits(t *testing.T) {
	t.Parallel()
	const agents = 1000
	env, key, _ := scaleWorkspace(t, agents, []string{"2026-09", "2026-10"})
	for _, tc := range []struct {
		name, query, accept string
		wantRows            int
	}{
		{"by agent, JSON", "?from=2026-09-01&to=2026-10-31", "", 61 * agents},
		{"by agent, CSV", "?from=2026-09-01&to=2026-10-31", "text/csv", 61 * agents},
		{"by team, JSON", "?from=2026-09-01&to=2026-10-31&groupBy=team", "", 61 * agents / 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cursor, rows, pages := "", 0, 0
			for {
				q := tc.query
				if cursor != "" {
					q += "&cursor=" + url.QueryEscape(cursor)
				}
				res := env.DoRaw(t, http.MethodGet, exportPath(q), map[string]string{"Authorization": "Bearer " + key, "Accept": tc.accept}, "")
				if res.Status != http.StatusOK {
					t.Fatalf("page %d: %d %.300s", pages, res.Status, res.Body)
				}
				pages++
				n := pageRows(t, res, tc.accept != "")
				rows += n
				// The whole proxy response, as Lambda measures it.
				if size := len(mustJSON(t, map[string]any{"statusCode": 200, "body": string(res.Body)})); size > 6<<20 {
					t.Fatalf("page %d is %d bytes as Lambda's payload, over 6 MB", pages, size)
				}
				if budget := exportPageBudget(n, agents, 2); res.FunctionTrips > budget {
					t.Errorf("page %d of %d rows cost %d round trips, budget %d", pages, n, res.FunctionTrips, budget)
				}
				cursor = res.Header.Get("Next-Cursor")
				if cursor == "" {
					break
				}
				if pages > 100 {
					t.Fatal("more than 100 pages")
				}
			}
			if rows != tc.wantRows {
				t.Errorf("%d rows in %d pages, want %d", rows, pages, tc.wantRows)
			}
		})
	}
}

// pageRows counts a page's rows, checking that a CSV page parses and that no
// name runs as a formula.
func pageRows(t *testing.T, res *apitest.Response, csv bool) int {
	t.Helper()
	if !csv {
		var b exportBody
		res.JSON(t, &b)
		return len(b.Rows)
	}
	records := parseCSV(t, string(res.Body))
	for _, r := range records[1:] {
		if name := r[2]; !strings.HasPrefix(name, "'@Agent \"") || !strings.HasSuffix(name, "\", line\nbreak") {
			t.Fatalf("agent name read back as %q", name)
		}
	}
	return len(records) - 1
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkUsageExport pages through a whole year's export, by agent, of a
// 10,000-agent workspace every agent of which spent every day (3.65 million
// rows), on a DynamoDB Local of its own: outside make test, since loading
// its 130,000 month usage items takes minutes. It reports the slowest page,
// the most round trips of a page and the largest page's payload, which must
// stay within Lambda's 29 s and 6 MB.
//
//	go test -run '^$' -bench UsageExport -benchtime 1x ./shared/credits/
func BenchmarkUsageExport(b *testing.B) {
	var months []string
	for m := time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC); m.Before(apitest.Start); m = m.AddDate(0, 1, 0) {
		months = append(months, m.Format("2006-01"))
	}
	env, key, _ := scaleWorkspace(b, 10000, months, apitest.Options{OwnDynamoDB: true})
	b.ResetTimer()
	for b.Loop() {
		cursor, pages := "", 0
		var slowest time.Duration
		var trips, largest int
		for {
			q := "?from=2025-11-21&to=2026-11-20"
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			start := time.Now()
			res := env.DoRaw(b, http.MethodGet, exportPath(q), map[string]string{"Authorization": "Bearer " + key, "Accept": "text/csv"}, "")
			if res.Status != http.StatusOK {
				b.Fatalf("page %d: %d %.300s", pages, res.Status, res.Body)
			}
			pages++
			slowest, trips, largest = max(slowest, time.Since(start)), max(trips, res.FunctionTrips), max(largest, len(res.Body))
			if cursor = res.Header.Get("Next-Cursor"); cursor == "" {
				break
			}
		}
		b.ReportMetric(float64(pages), "pages")
		b.ReportMetric(slowest.Seconds(), "s/slowest-page")
		b.ReportMetric(float64(trips), "roundtrips/max-page")
		b.ReportMetric(float64(largest), "bytes/largest-page")
	}
}
