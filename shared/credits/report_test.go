package credits_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const creditsPath = "/workspaceapi/credits"

// report is the body of GET /workspaceapi/credits.
type report struct {
	Month                   string
	TotalCredits            float64
	DefaultDailyCreditLimit *float64
	Teams                   []struct {
		ID                 string
		Name               string
		MonthlyCreditLimit *float64
		CreditsUsed        float64
		Paused             bool
	}
	Agents []struct {
		ID                 string
		Name               string
		TeamID             *string
		CreditsToday       float64
		CreditsThisMonth   float64
		DailyCreditLimit   *float64
		MonthlyCreditLimit *float64
		Status             string
		StatusReason       *string
	}
	NextCursor *string
}

func getReport(t *testing.T, env *apitest.Env, query string) report {
	t.Helper()
	res := env.Do(t, http.MethodGet, creditsPath+query, keyRead, "")
	if res.Status != http.StatusOK {
		t.Fatalf("GET credits%s: %d %s", query, res.Status, res.Body)
	}
	var r report
	res.JSON(t, &r)
	return r
}

// lines renders a report's teams and agents compactly, for comparison.
func lines(r report) (teams, agents []string) {
	for _, tm := range r.Teams {
		teams = append(teams, fmt.Sprintf("%s %s limit=%s used=%g paused=%v", tm.ID, tm.Name, show(tm.MonthlyCreditLimit), tm.CreditsUsed, tm.Paused))
	}
	for _, a := range r.Agents {
		agents = append(agents, fmt.Sprintf("%s team=%s today=%g month=%g daily=%s monthly=%s %s",
			a.ID, show(a.TeamID), a.CreditsToday, a.CreditsThisMonth, show(a.DailyCreditLimit), show(a.MonthlyCreditLimit), state(a.Status, a.StatusReason)))
	}
	return teams, agents
}

func TestCreditsReport(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	use(t, env, "ag_free", 3)
	use(t, env, "ag_daily", 5)
	use(t, env, "ag_private", 2)
	use(t, env, "ag_support1", 6)
	use(t, env, "ag_support2", 4)

	t.Run("this month: the workspace's, each team's and each agent's usage, private agents included", func(t *testing.T) {
		r := getReport(t, env, "")
		if r.Month != "2026-11" || r.TotalCredits != 20 || show(r.DefaultDailyCreditLimit) != "20" {
			t.Errorf("month %s, total %g, default %s; want 2026-11, 20, 20", r.Month, r.TotalCredits, show(r.DefaultDailyCreditLimit))
		}
		teams, agents := lines(r)
		wantTeams := []string{
			"team_a Research limit=null used=7 paused=false",
			"team_b Support limit=10 used=10 paused=true",
		}
		wantAgents := []string{
			`ag_daily team="team_a" today=5 month=5 daily=5 monthly=null stopped/daily_limit`,
			`ag_free team=null today=3 month=3 daily=null monthly=null running`,
			`ag_monthly team=null today=0 month=0 daily=null monthly=8 running`,
			`ag_private team="team_a" today=2 month=2 daily=null monthly=null running`,
			`ag_support1 team="team_b" today=6 month=6 daily=null monthly=null paused/team_limit`,
			`ag_support2 team="team_b" today=4 month=4 daily=null monthly=null paused/team_limit`,
		}
		if fmt.Sprint(teams) != fmt.Sprint(wantTeams) {
			t.Errorf("teams\n%s\nwant\n%s", strings.Join(teams, "\n"), strings.Join(wantTeams, "\n"))
		}
		if fmt.Sprint(agents) != fmt.Sprint(wantAgents) {
			t.Errorf("agents\n%s\nwant\n%s", strings.Join(agents, "\n"), strings.Join(wantAgents, "\n"))
		}
	})

	t.Run("a past month: its usage, and creditsToday 0", func(t *testing.T) {
		env.Clock.Advance(11 * 24 * time.Hour) // 2026-12-02
		use(t, env, "ag_free", 1)
		past := getReport(t, env, "?month=2026-11")
		if past.Month != "2026-11" || past.TotalCredits != 20 {
			t.Errorf("November: month %s total %g, want 2026-11 and 20", past.Month, past.TotalCredits)
		}
		for _, a := range past.Agents {
			if a.CreditsToday != 0 {
				t.Errorf("%s: creditsToday %g in a past month, want 0", a.ID, a.CreditsToday)
			}
			if a.ID == "ag_free" && a.CreditsThisMonth != 3 {
				t.Errorf("ag_free: %g in November, want 3", a.CreditsThisMonth)
			}
		}
		now := getReport(t, env, "")
		if now.Month != "2026-12" || now.TotalCredits != 1 {
			t.Errorf("this month: month %s total %g, want 2026-12 and 1", now.Month, now.TotalCredits)
		}
		for _, tm := range now.Teams {
			if tm.CreditsUsed != 0 {
				t.Errorf("team %s used %g in December, want 0", tm.ID, tm.CreditsUsed)
			}
		}
		empty := getReport(t, env, "?month=2020-01")
		if empty.TotalCredits != 0 || len(empty.Agents) != 6 {
			t.Errorf("a month without usage: total %g with %d agents, want 0 with all 6", empty.TotalCredits, len(empty.Agents))
		}
	})
}

func TestCreditsReportQueryAndScope(t *testing.T) {
	t.Parallel()
	env := newEnv(t) // the clock stands in 2026-11
	tests := []struct {
		name, key, query string
		wantStatus       int
		wantError        string
	}{
		{"a month name", keyRead, "?month=march", 400, "month must be a month written YYYY-MM"},
		{"month 13", keyRead, "?month=2026-13", 400, "YYYY-MM"},
		{"a one-digit month", keyRead, "?month=2026-1", 400, "YYYY-MM"},
		{"a date", keyRead, "?month=2026-11-01", 400, "YYYY-MM"},
		{"empty", keyRead, "?month=", 400, "YYYY-MM"},
		{"twice", keyRead, "?month=2026-11&month=2026-10", 400, "at most once"},
		{"a month that has not begun", keyRead, "?month=2026-12", 400, "must not be after the current month"},
		{"a team-scoped key: the report is workspace-wide", keyTeamA, "", 403, "team-scoped"},
		{"an unknown key", "wk_testNoSuchKey00000000000000000000000001", "", 401, ""},
		{"this month by name", keyRead, "?month=2026-11", 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, creditsPath+tc.query, tc.key, "")
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if tc.wantStatus >= 400 {
				if !strings.Contains(res.Error(t), tc.wantError) {
					t.Errorf("error %q, want it to mention %q", res.Error(t), tc.wantError)
				}
				if res.FunctionTrips != 0 {
					t.Errorf("answered after reading storage: %v", env.FunctionTrips.Ops())
				}
			}
		})
	}
}

// thousandAgents runs the API over a workspace of 1,000 agents in 10 teams
// (half of the agents in one, some private), every tenth with 1.5 credits
// used this month.
func thousandAgents(t *testing.T) *apitest.Env {
	t.Helper()
	const n = 1000
	agents := make([]string, n)
	for i := range agents {
		team := ""
		if i%2 == 0 {
			team = fmt.Sprintf("team_%d", i%10)
		}
		agents[i] = agentJSON(fmt.Sprintf("ag_%04d", i), team, i%7 == 0, "null", "null")
	}
	teams := make([]string, 10)
	for i := range teams {
		teams[i] = fmt.Sprintf(`{"id": "team_%d", "name": "Team %d", "monthlyCreditLimit": 1000, "tags": [], "members": []}`, i, i)
	}
	env := apitest.New(t, `{"workspaces": [{"id": "ws_a", "name": "Alpha Labs", "seats": 10, "teamSettingsEnabled": true,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "invites": [], "events": [],
 "members": [{"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "teams": [`+strings.Join(teams, ",")+`], "agents": [`+strings.Join(agents, ",")+`],
 "apiKeys": [{"key": "`+keyRead+`", "name": "read", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false}]}]}`)
	var usage []workspace.Usage
	for i := 0; i < n; i += 10 {
		usage = append(usage, workspace.Usage{EventID: fmt.Sprintf("ev_%d", i), WorkspaceID: "ws_a",
			AgentID: fmt.Sprintf("ag_%04d", i), Credits: 1.5, OccurredAt: env.Clock.Now()})
	}
	for _, err := range env.Store.ApplyUsage(t.Context(), workspace.SystemActor(workspace.SystemIngest), usage, env.Clock.Now()).Errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// pageTotalsUnits are the read units every page spends whatever its lines:
// the workspace's item (half a unit) and the month's totals (one eventually
// consistent Query of small items per usage shard partition, 32 of them, at
// least half a unit each: 16 units).
const pageTotalsUnits = 16.5

// The report is paged by what it returns: every page of a workspace of
// 1,000 agents, whatever its limit, is far under 1 MB and reads at most
// twice as many read units as it has lines, besides the month's totals
// (pageTotalsUnits); the pages together are the whole report, teams first.
// A default request still gets a workspace of 1,000 agents whole, in 4
// round trips in turn.
func TestCreditsReportPagesReadWhatTheyReturn(t *testing.T) {
	t.Parallel()
	env := thousandAgents(t)

	t.Run("the default page is the whole report of 1,000 agents and 10 teams", func(t *testing.T) {
		res := env.Do(t, http.MethodGet, creditsPath, keyRead, "")
		if res.Status != http.StatusOK {
			t.Fatalf("status %d: %.300s", res.Status, res.Body)
		}
		var r report
		res.JSON(t, &r)
		if len(r.Agents) != 1000 || len(r.Teams) != 10 || r.TotalCredits != 150 || r.NextCursor != nil {
			t.Errorf("%d agents, %d teams, total %g, next %v; want 1000, 10, 150 and none", len(r.Agents), len(r.Teams), r.TotalCredits, r.NextCursor)
		}
		if lines := float64(len(r.Agents) + len(r.Teams)); res.FunctionReadUnits > 2*lines+pageTotalsUnits {
			t.Errorf("%g read units for %g lines, want at most twice as many besides the totals", res.FunctionReadUnits, lines)
		}
		// In turn: the Queries of the teams and the agents at once, then the
		// BatchGetItems of the page's ~2,000 keys and of the totals, 8 at a
		// time: 4, however the machine schedules them.
		if want := 1 + 3; res.FunctionPath != want {
			t.Errorf("%d round trips in turn (%v), want %d", res.FunctionPath, env.FunctionTrips.Ops(), want)
		}
		t.Logf("default page: %d bytes, %d round trips (%d in turn), %g read units", len(res.Body), res.FunctionTrips, res.FunctionPath, res.FunctionReadUnits)
	})

	for _, limit := range []int{4, 10, 333} {
		t.Run(fmt.Sprintf("limit=%d: pages in id order, teams first, totals on each", limit), func(t *testing.T) {
			var teams, agents []string
			query := fmt.Sprintf("?limit=%d", limit)
			for pages := 0; ; pages++ {
				if pages > 1010/limit+2 {
					t.Fatalf("more than %d pages", pages)
				}
				res := env.Do(t, http.MethodGet, creditsPath+query, keyRead, "")
				if res.Status != http.StatusOK {
					t.Fatalf("page %d: status %d: %.300s", pages, res.Status, res.Body)
				}
				var r report
				res.JSON(t, &r)
				if r.Month != "2026-11" || r.TotalCredits != 150 {
					t.Errorf("page %d: month %s total %g, want 2026-11 and 150 on every page", pages, r.Month, r.TotalCredits)
				}
				if len(r.Teams) > limit || len(r.Agents) > limit || (len(r.Agents) > 0 && len(teams)+len(r.Teams) != 10) {
					t.Errorf("page %d: %d teams and %d agents, want at most %d of each and agents only once the teams have ended", pages, len(r.Teams), len(r.Agents), limit)
				}
				for _, tm := range r.Teams {
					teams = append(teams, tm.ID)
				}
				for _, a := range r.Agents {
					agents = append(agents, a.ID)
				}
				lines := float64(len(r.Teams) + len(r.Agents))
				if len(res.Body) >= 1<<20 || res.FunctionReadUnits > 2*lines+pageTotalsUnits {
					t.Errorf("page %d: %d bytes and %g read units for %g lines; want under 1 MB and at most twice as many units besides the totals", pages, len(res.Body), res.FunctionReadUnits, lines)
				}
				if r.NextCursor == nil {
					break
				}
				query = fmt.Sprintf("?limit=%d&cursor=%s", limit, *r.NextCursor)
			}
			if len(teams) != 10 || len(agents) != 1000 || !slices.IsSorted(teams) || !slices.IsSorted(agents) ||
				len(slices.Compact(slices.Clone(agents))) != 1000 {
				t.Errorf("the pages hold %d teams and %d agents (sorted: %v, %v); want 10 and 1000 distinct, in id order",
					len(teams), len(agents), slices.IsSorted(teams), slices.IsSorted(agents))
			}
		})
	}
}

// A cursor holds to its report: its month, even when the request names
// none and the month ends between pages, and its workspace and query.
func TestCreditsReportCursors(t *testing.T) {
	t.Parallel()
	env := newEnv(t) // 2 teams, 6 agents
	use(t, env, "ag_free", 3)
	first := getReport(t, env, "?limit=2")
	if len(first.Teams) != 2 || len(first.Agents) != 2 || first.NextCursor == nil {
		t.Fatalf("first page: %d teams, %d agents, next %v; want 2, 2 and a cursor", len(first.Teams), len(first.Agents), first.NextCursor)
	}
	env.Clock.Advance(30 * 24 * time.Hour) // December
	second := getReport(t, env, "?limit=2&cursor="+*first.NextCursor)
	if second.Month != "2026-11" || second.TotalCredits != 3 || len(second.Teams) != 0 || len(second.Agents) != 2 {
		t.Errorf("second page: month %s, total %g, %d teams, %d agents; want November's, 3, none and 2",
			second.Month, second.TotalCredits, len(second.Teams), len(second.Agents))
	}
	for _, tc := range []struct{ name, query string }{
		{"another month", "?month=2026-10&cursor=" + *first.NextCursor},
		{"not a cursor", "?cursor=abc"},
		{"limit 0", "?limit=0"},
		{"limit past 1,000", "?limit=1001"},
		{"cursor twice", "?cursor=" + *first.NextCursor + "&cursor=" + *first.NextCursor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, creditsPath+tc.query, keyRead, "")
			if res.Status != http.StatusBadRequest || res.FunctionTrips > 0 {
				t.Errorf("status %d after %d round trips (%s), want 400 before any read", res.Status, res.FunctionTrips, res.Body)
			}
		})
	}
}
