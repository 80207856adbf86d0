package agents_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
)

const agentsPath = "/workspaceapi/agents"

// str and num make the expected nullable fields.
func str(s string) *string   { return &s }
func num(v float64) *float64 { return &v }
func show(p any) string      { b, _ := json.Marshal(p); return string(b) }

// recordStandings puts the fixture's agents in every standing: ag_daily
// reaches its daily limit, ag_monthly its monthly limit, team_b's two agents
// together reach the team's limit, ag_free spends below every limit, and
// ag_private spends nothing.
func recordStandings(t *testing.T, env *apitest.Env) {
	t.Helper()
	use(t, env, "ag_free", 3)
	use(t, env, "ag_daily", 5)
	use(t, env, "ag_monthly", 8)
	use(t, env, "ag_support1", 6)
	use(t, env, "ag_support2", 4)
}

func TestOverviewShowsEachAgentsCreditStanding(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	recordStandings(t, env)
	res := env.Do(t, http.MethodGet, agentsPath+"?includeOverview=true", keyAdmin, "")
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var page agentsPage
	res.JSON(t, &page)
	got := map[string]*overview{}
	for _, a := range page.Agents {
		got[a.ID] = a.Overview
	}
	// The clock advanced one second per usage recorded, from apitest.Start (12:00:00).
	tests := []struct {
		name, agent string
		want        overview
	}{
		{"below every limit: running, the workspace default is its effective daily limit", "ag_free", overview{
			Status: "running", EffectiveDailyCreditLimit: num(20), CreditsToday: 3, CreditsThisMonth: 3,
			LastActivityAt: str("2026-11-21T12:00:00.000Z")}},
		{"daily limit reached: stopped, daily_limit", "ag_daily", overview{
			Status: "stopped", StatusReason: str("daily_limit"), DailyCreditLimit: num(5), EffectiveDailyCreditLimit: num(5),
			CreditsToday: 5, CreditsThisMonth: 5, LastActivityAt: str("2026-11-21T12:00:01.000Z")}},
		{"monthly limit reached: stopped, monthly_limit", "ag_monthly", overview{
			Status: "stopped", StatusReason: str("monthly_limit"), EffectiveDailyCreditLimit: num(20), MonthlyCreditLimit: num(8),
			CreditsToday: 8, CreditsThisMonth: 8, LastActivityAt: str("2026-11-21T12:00:02.000Z")}},
		{"team limit reached by the team together: paused, team_limit", "ag_support1", overview{
			Status: "paused", StatusReason: str("team_limit"), EffectiveDailyCreditLimit: num(20),
			CreditsToday: 6, CreditsThisMonth: 6, LastActivityAt: str("2026-11-21T12:00:03.000Z")}},
		{"the team's other agent is paused with it", "ag_support2", overview{
			Status: "paused", StatusReason: str("team_limit"), EffectiveDailyCreditLimit: num(20),
			CreditsToday: 4, CreditsThisMonth: 4, LastActivityAt: str("2026-11-21T12:00:04.000Z")}},
		{"no usage: running, lastActivityAt null", "ag_private", overview{
			Status: "running", EffectiveDailyCreditLimit: num(20), ShowTokenOptimisationInfo: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if show(got[tc.agent]) != show(tc.want) {
				t.Errorf("overview of %s = %s\nwant %s", tc.agent, show(got[tc.agent]), show(tc.want))
			}
		})
	}
}

func TestListedAgentsCarryTheirFieldsAndPrivateAgentsAreListed(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodGet, agentsPath, keyAdmin, "")
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var page agentsPage
	res.JSON(t, &page)
	var ids []string
	for _, a := range page.Agents {
		ids = append(ids, a.ID)
		if a.Overview != nil {
			t.Errorf("%s has an overview without includeOverview", a.ID)
		}
	}
	if want := []string{"ag_daily", "ag_free", "ag_monthly", "ag_private", "ag_support1", "ag_support2"}; !slices.Equal(ids, want) {
		t.Errorf("agents %q, want %q in id order (private included, another workspace's not)", ids, want)
	}
	if page.NextCursor != nil {
		t.Errorf("nextCursor %q on the only page, want null", *page.NextCursor)
	}
	priv, free := page.Agents[3], page.Agents[1]
	if !priv.IsPrivate || priv.TeamID == nil || *priv.TeamID != "team_a" || priv.Name != "Agent private" ||
		priv.Description != "About ag_private" || priv.ImageURL != "https://img.example/ag_private.png" ||
		priv.AgentDiscoverability != "workspace" || !slices.Equal(priv.Tags, []string{"t1"}) {
		t.Errorf("ag_private listed as %+v", priv)
	}
	if free.TeamID != nil || free.IsPrivate {
		t.Errorf("ag_free listed as %+v, want teamId null and not private", free)
	}
	if strings.Contains(string(res.Body), `"overview"`) {
		t.Errorf("body %s has an overview key without includeOverview", res.Body)
	}
	if off := env.Do(t, http.MethodGet, agentsPath+"?includeOverview=false", keyAdmin, ""); strings.Contains(string(off.Body), `"overview"`) {
		t.Errorf("includeOverview=false answered %s, want no overview", off.Body)
	}
}

func TestTeamScopedKeyListsOnlyItsTeamsAgents(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodGet, agentsPath+"?includeOverview=true", keyTeamA, "")
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var page agentsPage
	res.JSON(t, &page)
	var ids []string
	for _, a := range page.Agents {
		ids = append(ids, a.ID)
	}
	if want := []string{"ag_daily", "ag_private"}; !slices.Equal(ids, want) {
		t.Errorf("team-scoped key listed %q, want team_a's %q", ids, want)
	}
}

func TestListAgentsQueryRules(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, query string
		key         string
		wantStatus  int
		wantError   string
	}{
		{"includeOverview=1 is not a boolean", "?includeOverview=1", keyAdmin, 400, "includeOverview must be true or false"},
		{"includeOverview=yes", "?includeOverview=yes", keyAdmin, 400, "includeOverview"},
		{"includeOverview=TRUE (case matters)", "?includeOverview=TRUE", keyAdmin, 400, "includeOverview"},
		{"includeOverview empty", "?includeOverview=", keyAdmin, 400, "includeOverview"},
		{"includeOverview twice", "?includeOverview=true&includeOverview=true", keyAdmin, 400, "at most once"},
		{"limit 0", "?limit=0", keyAdmin, 400, "limit must be an integer from 1 to 1000"},
		{"limit 1001", "?limit=1001", keyAdmin, 400, "limit"},
		{"limit 1.5", "?limit=1.5", keyAdmin, 400, "limit"},
		{"limit abc", "?limit=abc", keyAdmin, 400, "limit"},
		{"a cursor this API did not make", "?cursor=not*base64", keyAdmin, 400, "cursor"},
		{"a key without read", "", keyWrite, 403, ""},
		{"limit 1000 is allowed", "?limit=1000", keyAdmin, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, agentsPath+tc.query, tc.key, "")
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if tc.wantStatus >= 400 && !strings.Contains(res.Error(t), tc.wantError) {
				t.Errorf("error %q, want it to mention %q", res.Error(t), tc.wantError)
			}
			if tc.wantStatus == 400 && res.FunctionTrips != 0 {
				t.Errorf("a bad query read storage (%v)", env.FunctionTrips.Ops())
			}
		})
	}
}

// manyAgents is a workspace of n agents, every third in team_x.
func manyAgents(n int) string {
	agents := make([]string, n)
	for i := range agents {
		team := ""
		if i%3 == 0 {
			team = "team_x"
		}
		agents[i] = agentJSON(fmt.Sprintf("ag_%04d", i), team, i%5 == 0, "null", "null")
	}
	return `{"workspaces": [{"id": "ws_a", "name": "Alpha Labs", "seats": 10, "teamSettingsEnabled": true,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "invites": [], "events": [],
 "members": [{"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "teams": [{"id": "team_x", "name": "X", "monthlyCreditLimit": 100, "tags": [], "members": []}],
 "agents": [` + strings.Join(agents, ",") + `],
 "apiKeys": [{"key": "` + keyAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false}]}]}`
}

func TestPagingWithLimitAndCursorListsEveryAgentOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, manyAgents(25))
	var seen []string
	cursor := ""
	for page := 0; ; page++ {
		path := agentsPath + "?includeOverview=true&limit=10"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := env.Do(t, http.MethodGet, path, keyAdmin, "")
		if res.Status != http.StatusOK {
			t.Fatalf("page %d: %d %s", page, res.Status, res.Body)
		}
		var body agentsPage
		res.JSON(t, &body)
		for _, a := range body.Agents {
			seen = append(seen, a.ID)
			if a.Overview == nil {
				t.Errorf("%s has no overview", a.ID)
			}
		}
		if body.NextCursor == nil {
			if page != 2 || len(body.Agents) != 5 {
				t.Errorf("last page was page %d with %d agents, want page 2 with 5", page, len(body.Agents))
			}
			break
		}
		cursor = *body.NextCursor
	}
	if len(seen) != 25 || !slices.IsSorted(seen) || len(slices.Compact(slices.Clone(seen))) != 25 {
		t.Errorf("pages listed %d agents %v, want the 25 once each in order", len(seen), seen)
	}
	var whole agentsPage
	env.Do(t, http.MethodGet, agentsPath, keyAdmin, "").JSON(t, &whole)
	if len(whole.Agents) != 25 || whole.NextCursor != nil {
		t.Errorf("default limit 100 listed %d agents with nextCursor %v, want all 25 and null", len(whole.Agents), whole.NextCursor)
	}
}

// A page costs one Query, and with overviews one BatchGetItem per 100 keys
// of standings: per agent its state and month usage, the workspace once, and
// each team's state once.
func TestAPageWithOverviewsCostsOneQueryAndABatchReadPerHundredKeys(t *testing.T) {
	t.Parallel()
	const n = 250
	env := apitest.New(t, manyAgents(n))
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"without overview: one Query", "?limit=1000", []string{"Query"}},
		{"with overview: one Query, then ceil((2×250 + 1 + 1) / 100) = 6 BatchGetItem", "?limit=1000&includeOverview=true",
			[]string{"Query", "BatchGetItem", "BatchGetItem", "BatchGetItem", "BatchGetItem", "BatchGetItem", "BatchGetItem"}},
		{"a page of 10: one Query, one BatchGetItem", "?limit=10&includeOverview=true", []string{"Query", "BatchGetItem"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodGet, agentsPath+tc.query, keyAdmin, "")
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if got := env.FunctionTrips.Ops(); !slices.Equal(got, tc.want) {
				t.Errorf("round trips %v, want %v", got, tc.want)
			}
			// The BatchGetItems need the page's agents, and go at once (up
			// to 8): the page waits for at most two round trips in turn.
			if want := min(len(tc.want), 2); res.FunctionPath > want {
				t.Errorf("%d round trips in turn, want at most %d", res.FunctionPath, want)
			}
		})
	}
}

// A cursor belongs to its list, its query (but for limit) and its
// workspace: used with anything else it is 400, never a page from the
// middle of another listing.
func TestACursorServesOnlyTheListingThatReturnedIt(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var first agentsPage
	env.Do(t, http.MethodGet, agentsPath+"?limit=1", keyAdmin, "").JSON(t, &first)
	if first.NextCursor == nil || len(first.Agents) != 1 {
		t.Fatalf("the first page: %+v, want one agent and a cursor", first)
	}
	c := url.QueryEscape(*first.NextCursor)
	for _, tc := range []struct {
		name, path, key string
		want            int
	}{
		{"the same list with another page size", agentsPath + "?limit=2&cursor=" + c, keyAdmin, http.StatusOK},
		{"the same list with another query", agentsPath + "?limit=1&includeOverview=true&cursor=" + c, keyAdmin, http.StatusBadRequest},
		{"another list", "/workspaceapi/members?limit=1&cursor=" + c, keyAdmin, http.StatusBadRequest},
		{"another workspace", agentsPath + "?limit=1&cursor=" + c, keyOther, http.StatusBadRequest},
		{"an id made into a cursor", agentsPath + "?limit=1&cursor=" + base64.RawURLEncoding.EncodeToString([]byte(first.Agents[0].ID)), keyAdmin, http.StatusBadRequest},
	} {
		res := env.Do(t, http.MethodGet, tc.path, tc.key, "")
		if res.Status != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, res.Status, res.Body, tc.want)
		}
		if tc.want == http.StatusBadRequest && !strings.Contains(res.Error(t), "cursor") {
			t.Errorf("%s: error %q, want it to name the cursor", tc.name, res.Error(t))
		}
	}
}
