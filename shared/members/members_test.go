package members_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const (
	keyAdmin = "wk_testAdminKey00000000000000000000000001"
	keyTeamA = "wk_testTeamKey000000000000000000000000001"
	keyOther = "wk_testOtherWorkspaceKey00000000000000001"
)

// fixture: ws_a with n members u_000... (u_001 tagged, u_000 and u_002 in
// team_a, u_002 also in team_b); ws_b with one member of its own.
func fixture(n int) string {
	var members []string
	for i := range n {
		tags := "[]"
		if i == 1 {
			tags = `["ops", "emea"]`
		}
		role := "member"
		if i == 0 { // the admin key's owner: a workspace admin may change any team
			role = "admin"
		}
		members = append(members, fmt.Sprintf(`{"id": "u_%03d", "email": "u%03d@alpha.example", "name": "User %d", "role": "%s", "tags": %s, "joinedAt": "2026-01-01T00:00:00Z"}`, i, i, i, role, tags))
	}
	return `{"workspaces": [
 {"id": "ws_a", "name": "Alpha Labs", "seats": 10000, "teamSettingsEnabled": true, "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [` + strings.Join(members, ",\n") + `],
  "teams": [
   {"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": [], "members": [{"userId": "u_000", "role": "admin"}, {"userId": "u_002", "role": "guest"}]},
   {"id": "team_b", "name": "Support", "monthlyCreditLimit": null, "tags": [], "members": [{"userId": "u_002", "role": "member"}]}
  ],
  "agents": [], "invites": [],
  "apiKeys": [
   {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_000", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeamA + `", "name": "team", "userId": "u_000", "scopes": ["read"], "teamId": "team_a", "expiresAt": null, "disabled": false}
  ], "events": []},
 {"id": "ws_b", "name": "Beta", "seats": 5, "teamSettingsEnabled": false, "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_b", "email": "b@beta.example", "name": "Bea", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [], "agents": [], "invites": [],
  "apiKeys": [{"key": "` + keyOther + `", "name": "admin", "userId": "u_b", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`
}

// page is the body of GET /workspaceapi/members.
type page struct {
	Members []struct {
		ID, Email, Name, Role string
		Tags                  []string
		Teams                 []struct{ TeamID, Role string }
		JoinedAt              string
	}
	NextCursor *string
}

func get(t testing.TB, env *apitest.Env, key, query string) page {
	t.Helper()
	res := env.Do(t, http.MethodGet, "/workspaceapi/members"+query, key, "")
	if res.Status != http.StatusOK {
		t.Fatalf("GET members%s: %d %s", query, res.Status, res.Body)
	}
	var p page
	res.JSON(t, &p)
	return p
}

func TestMembersListShowsTagsAndTeams(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixture(3))
	p := get(t, env, keyAdmin, "")
	var got []string
	for _, m := range p.Members {
		got = append(got, fmt.Sprintf("%s %s %s %v %v %s", m.ID, m.Email, m.Role, m.Tags, m.Teams, m.JoinedAt))
	}
	want := []string{
		"u_000 u000@alpha.example admin [] [{team_a admin}] 2026-01-01T00:00:00.000Z",
		"u_001 u001@alpha.example member [ops emea] [] 2026-01-01T00:00:00.000Z",
		"u_002 u002@alpha.example member [] [{team_a guest} {team_b member}] 2026-01-01T00:00:00.000Z",
	}
	if !slices.Equal(got, want) || p.NextCursor != nil {
		t.Errorf("members %q (next %v)\nwant    %q and no next page", got, p.NextCursor, want)
	}
	if env.FunctionTrips.Count() != 1 {
		t.Errorf("a page cost %d round trips %v, want one Query", env.FunctionTrips.Count(), env.FunctionTrips.Ops())
	}
	other := get(t, env, keyOther, "")
	if len(other.Members) != 1 || other.Members[0].ID != "u_b" {
		t.Errorf("another workspace's key lists %+v, want only its own member", other.Members)
	}
}

func TestTeamScopedKeyListsItsTeamsMembersOnly(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixture(3))
	p := get(t, env, keyTeamA, "?limit=1")
	if len(p.Members) != 1 || p.Members[0].ID != "u_000" || p.NextCursor == nil {
		t.Fatalf("first page %+v, want u_000 and a cursor", p)
	}
	p = get(t, env, keyTeamA, "?limit=1&cursor="+*p.NextCursor)
	if len(p.Members) != 1 || p.Members[0].ID != "u_002" || fmt.Sprint(p.Members[0].Teams) != "[{team_a guest}]" || p.NextCursor != nil {
		t.Errorf("second page %+v, want u_002 showing team_a alone, and no next page", p)
	}
}

func TestMembersPagingIsStableWhileMembersAreAdded(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixture(25))
	seen := map[string]int{}
	query := "?limit=7"
	joined := 0
	for pages := 0; ; pages++ {
		p := get(t, env, keyAdmin, query)
		for _, m := range p.Members {
			seen[m.ID]++
		}
		// Others join meanwhile: one sorting after every cursor (listed on a
		// later page), one before (not listed), and memberships change.
		join(t, env, fmt.Sprintf("u_z%02d", pages), fmt.Sprintf("u_-%02d", pages))
		joined++
		if res := env.Do(t, http.MethodPut, fmt.Sprintf("/workspaceapi/teams/team_b/members/u_%03d", pages), keyAdmin, `{"role": "member"}`); res.Status != 200 {
			t.Fatalf("membership change: %d %s", res.Status, res.Body)
		}
		if p.NextCursor == nil {
			break
		}
		query = "?limit=7&cursor=" + *p.NextCursor
	}
	for id := range seen {
		if strings.HasPrefix(id, "u_-") {
			t.Errorf("%s, who joined before the cursor, was listed", id)
		}
	}
	// Every member who joined after the cursor before the last page was read is listed.
	if n := len(seen); n != 25+joined-1 {
		t.Errorf("%d distinct members listed, want the 25 first and the %d joining after the cursor", n, joined-1)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", id, n)
		}
	}
}

func TestMembersQueryErrors(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixture(3))
	for _, q := range []string{"?limit=0", "?limit=1001", "?limit=abc", "?cursor=%21%21", "?limit=1&limit=2"} {
		if res := env.Do(t, http.MethodGet, "/workspaceapi/members"+q, keyAdmin, ""); res.Status != 400 || res.FunctionTrips != 0 {
			t.Errorf("%s: %d after %d round trips, want 400 before any", q, res.Status, res.FunctionTrips)
		}
	}
}

// join adds members ids to ws_a directly in the table, as accepting an
// invitation would.
func join(t *testing.T, env *apitest.Env, ids ...string) {
	t.Helper()
	snap := tableops.Snapshot{Workspace: workspace.Workspace{ID: "ws_a", Name: "Alpha Labs", Seats: 10000, TeamSettingsEnabled: true}}
	for _, id := range ids {
		snap.Members = append(snap.Members, workspace.Member{ID: id, Email: id + "@alpha.example", Name: id, Role: workspace.RoleMember, JoinedAt: apitest.Start})
	}
	if err := tableops.PutSnapshot(t.Context(), env.Store, snap, apitest.Start); err != nil {
		t.Fatal(err)
	}
}
