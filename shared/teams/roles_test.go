package teams_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
)

// Keys of the roles fixture, named for their owner's roles.
const (
	rolesAdmin       = "wk_rolesAdminKey0000000000000000000000001"
	rolesCreator     = "wk_rolesCreatorKey00000000000000000000001" // u_creator: Creator, admin of team_growth
	rolesCreatorRead = "wk_rolesCreatorReadKey000000000000000001"
	rolesCreatorTeam = "wk_rolesCreatorTeamKey000000000000000001"  // team-scoped to team_growth
	rolesMember      = "wk_rolesMemberKey000000000000000000000001" // u_member: Creator, member of team_growth
	rolesMemberTeam  = "wk_rolesMemberTeamKey0000000000000000001"  // team-scoped to team_growth
	rolesGuest       = "wk_rolesGuestKey0000000000000000000000001" // u_guest: collaborator, guest of team_growth
	rolesLoner       = "wk_rolesLonerKey0000000000000000000000001" // u_loner: Creator in no team
)

// rolesFixture: ws_r (teams on) with u_admin (admin), u_creator (member,
// team_growth's admin), u_member (member, team_growth's member), u_guest
// (collaborator, team_growth's guest) and u_loner (member, no team); teams
// team_growth and team_support. ws_q, teams on too, has team_q.
const rolesFixture = `{"workspaces": [
 {"id": "ws_r", "name": "Roles", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [
   {"id": "u_admin", "email": "admin@roles.example", "name": "Ada", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_creator", "email": "creator@roles.example", "name": "Omar", "role": "member", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_member", "email": "member@roles.example", "name": "Priya", "role": "member", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_guest", "email": "guest@roles.example", "name": "Kofi", "role": "collaborator", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_loner", "email": "loner@roles.example", "name": "Lena", "role": "member", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}
  ],
  "teams": [
   {"id": "team_growth", "name": "Growth", "monthlyCreditLimit": null, "tags": [], "members": [
    {"userId": "u_creator", "role": "admin"}, {"userId": "u_member", "role": "member"}, {"userId": "u_guest", "role": "guest"}]},
   {"id": "team_support", "name": "Support", "monthlyCreditLimit": null, "tags": [], "members": []}
  ],
  "agents": [], "invites": [],
  "apiKeys": [
   {"key": "` + rolesAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + rolesCreator + `", "name": "creator", "userId": "u_creator", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + rolesCreatorRead + `", "name": "creator read", "userId": "u_creator", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + rolesCreatorTeam + `", "name": "creator team", "userId": "u_creator", "scopes": ["read", "write"], "teamId": "team_growth", "expiresAt": null, "disabled": false},
   {"key": "` + rolesMember + `", "name": "member", "userId": "u_member", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + rolesMemberTeam + `", "name": "member team", "userId": "u_member", "scopes": ["read", "write"], "teamId": "team_growth", "expiresAt": null, "disabled": false},
   {"key": "` + rolesGuest + `", "name": "guest", "userId": "u_guest", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + rolesLoner + `", "name": "loner", "userId": "u_loner", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false}
  ],
  "events": []},
 {"id": "ws_q", "name": "Other", "seats": 5, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_q", "email": "q@other.example", "name": "Q", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [{"id": "team_q", "name": "Quality", "monthlyCreditLimit": null, "tags": [], "members": [{"userId": "u_q", "role": "admin"}]}],
  "agents": [], "invites": [], "apiKeys": [], "events": []}
]}`

// TestWhoMayCreateRenameAndChangeTheMembersOfATeam: creating needs the
// workspace admin role; renaming and membership changes need it or the
// team's own admin role; reads follow the scopes alone. Refused requests
// change nothing, and the body is checked (400) before the role (403).
// The cases run in order on one workspace.
func TestWhoMayCreateRenameAndChangeTheMembersOfATeam(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, rolesFixture)
	tests := []struct {
		name, method, path, key, body string
		want                          int
		wantTrips                     []string // nil: not checked
	}{
		// Creating a team.
		{"an admin creates a team", "POST", "/workspaceapi/teams", rolesAdmin, `{"name": "Design"}`, 201, []string{"TransactWriteItems"}},
		{"a Creator creates a team", "POST", "/workspaceapi/teams", rolesCreator, `{"name": "Mine"}`, 403, []string{}},
		{"a Creator creates a team of an existing name", "POST", "/workspaceapi/teams", rolesCreator, `{"name": "growth"}`, 403, []string{}},
		{"a Creator's invalid create is 400 first", "POST", "/workspaceapi/teams", rolesCreator, `{"name": "  "}`, 400, []string{}},
		{"a collaborator creates a team", "POST", "/workspaceapi/teams", rolesGuest, `{"name": "Mine"}`, 403, []string{}},
		{"a Creator's team-scoped key creates a team", "POST", "/workspaceapi/teams", rolesCreatorTeam, `{"name": "Mine"}`, 403, []string{}},

		// Renaming.
		{"an admin renames a team", "PATCH", "/workspaceapi/teams/team_support", rolesAdmin, `{"name": "Support Desk"}`, 200,
			[]string{"BatchGetItem", "TransactWriteItems", "TransactGetItems", "BatchGetItem", "Query", "Query"}},
		{"an admin renames an unknown team", "PATCH", "/workspaceapi/teams/team_nope", rolesAdmin, `{"name": "Z"}`, 404, nil},
		{"an admin renames another workspace's team", "PATCH", "/workspaceapi/teams/team_q", rolesAdmin, `{"name": "Z"}`, 404, nil},
		{"the team's admin renames it", "PATCH", "/workspaceapi/teams/team_growth", rolesCreator, `{"name": "Growth Team"}`, 200,
			[]string{"GetItem", "BatchGetItem", "TransactWriteItems", "TransactGetItems", "BatchGetItem", "Query", "Query"}},
		{"the team's admin renames it with a team-scoped key", "PATCH", "/workspaceapi/teams/team_growth", rolesCreatorTeam, `{"name": "Growth"}`, 200, nil},
		{"the team's admin renames it to a taken name", "PATCH", "/workspaceapi/teams/team_growth", rolesCreator, `{"name": "design"}`, 409, nil},
		{"the team's admin sends an invalid name: 400 first", "PATCH", "/workspaceapi/teams/team_growth", rolesCreator, `{"name": ""}`, 400, []string{}},
		{"a Creator renames a team they do not administer", "PATCH", "/workspaceapi/teams/team_support", rolesCreator, `{"name": "Mine"}`, 403, []string{"GetItem"}},
		{"a Creator renames an unknown team", "PATCH", "/workspaceapi/teams/team_nope", rolesCreator, `{"name": "Mine"}`, 403, []string{"GetItem"}},
		{"a Creator renames another workspace's team", "PATCH", "/workspaceapi/teams/team_q", rolesCreator, `{"name": "Mine"}`, 403, []string{"GetItem"}},
		{"a Creator's team-scoped key renames another team: 404 first", "PATCH", "/workspaceapi/teams/team_support", rolesCreatorTeam, `{"name": "Mine"}`, 404, []string{}},
		{"a team member renames the team", "PATCH", "/workspaceapi/teams/team_growth", rolesMember, `{"name": "Mine"}`, 403, []string{"GetItem"}},
		{"a team member's team-scoped key renames the team", "PATCH", "/workspaceapi/teams/team_growth", rolesMemberTeam, `{"name": "Mine"}`, 403, nil},
		{"a team guest renames the team", "PATCH", "/workspaceapi/teams/team_growth", rolesGuest, `{"name": "Mine"}`, 403, nil},
		{"a member in no team renames a team", "PATCH", "/workspaceapi/teams/team_growth", rolesLoner, `{"name": "Mine"}`, 403, nil},
		{"a read-only key renames a team", "PATCH", "/workspaceapi/teams/team_growth", rolesCreatorRead, `{"name": "Mine"}`, 403, nil},

		// Members.
		{"the team's admin adds a member", "PUT", "/workspaceapi/teams/team_growth/members/u_loner", rolesCreator, `{"role": "member"}`, 200,
			[]string{"GetItem", "BatchGetItem", "TransactWriteItems"}},
		{"the team's admin changes a role", "PUT", "/workspaceapi/teams/team_growth/members/u_loner", rolesCreator, `{"role": "guest"}`, 200, nil},
		{"the team's admin removes a member", "DELETE", "/workspaceapi/teams/team_growth/members/u_loner", rolesCreator, "", 204,
			[]string{"GetItem", "BatchGetItem", "TransactWriteItems"}},
		{"the team's admin names an unknown user", "PUT", "/workspaceapi/teams/team_growth/members/u_nope", rolesCreator, `{"role": "member"}`, 404, nil},
		{"the team's admin sends an invalid role: 400 first", "PUT", "/workspaceapi/teams/team_growth/members/u_loner", rolesCreator, `{"role": "owner"}`, 400, []string{}},
		{"the team's admin, team-scoped, adds a member", "PUT", "/workspaceapi/teams/team_growth/members/u_admin", rolesCreatorTeam, `{"role": "guest"}`, 200, nil},
		{"a Creator makes themself admin of another team", "PUT", "/workspaceapi/teams/team_support/members/u_creator", rolesCreator, `{"role": "admin"}`, 403, []string{"GetItem"}},
		{"a Creator removes a member of another team", "DELETE", "/workspaceapi/teams/team_support/members/u_admin", rolesCreator, "", 403, []string{"GetItem"}},
		{"a Creator adds to an unknown team", "PUT", "/workspaceapi/teams/team_nope/members/u_loner", rolesCreator, `{"role": "member"}`, 403, nil},
		{"a Creator removes from another workspace's team", "DELETE", "/workspaceapi/teams/team_q/members/u_q", rolesCreator, "", 403, nil},
		{"a team member makes themself the team's admin", "PUT", "/workspaceapi/teams/team_growth/members/u_member", rolesMember, `{"role": "admin"}`, 403, nil},
		{"a team member removes the team's admin", "DELETE", "/workspaceapi/teams/team_growth/members/u_creator", rolesMember, "", 403, nil},
		{"a team member's team-scoped key removes the team's admin", "DELETE", "/workspaceapi/teams/team_growth/members/u_creator", rolesMemberTeam, "", 403, nil},
		{"a team guest adds a member", "PUT", "/workspaceapi/teams/team_growth/members/u_loner", rolesGuest, `{"role": "member"}`, 403, nil},
		{"a member in no team joins a team", "PUT", "/workspaceapi/teams/team_growth/members/u_loner", rolesLoner, `{"role": "admin"}`, 403, nil},
		{"an admin adds a member to any team", "PUT", "/workspaceapi/teams/team_support/members/u_member", rolesAdmin, `{"role": "member"}`, 200,
			[]string{"BatchGetItem", "TransactWriteItems"}},
		{"an admin removes a member from any team", "DELETE", "/workspaceapi/teams/team_support/members/u_member", rolesAdmin, "", 204,
			[]string{"BatchGetItem", "TransactWriteItems"}},

		// Reads follow the scopes alone.
		{"a Creator's read-only key lists the teams", "GET", "/workspaceapi/teams", rolesCreatorRead, "", 200, []string{"GetItem", "Query"}},
		{"a Creator's read-only key reads a team they do not administer", "GET", "/workspaceapi/teams/team_support", rolesCreatorRead, "", 200, nil},
		{"a member in no team reads a team", "GET", "/workspaceapi/teams/team_growth", rolesLoner, "", 200, nil},
		{"a guest reads their team", "GET", "/workspaceapi/teams/team_growth", rolesGuest, "", 200, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, tc.method, tc.path, tc.key, tc.body)
			if res.Status != tc.want {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.want)
			}
			if tc.wantTrips != nil {
				// Calls sent at once (a team's snapshot and its usage
				// shards) land in either order: compare the calls made.
				ops, want := slices.Sorted(slices.Values(env.FunctionTrips.Ops())), slices.Sorted(slices.Values(tc.wantTrips))
				if !slices.Equal(ops, want) {
					t.Errorf("round trips %v, want %v", env.FunctionTrips.Ops(), tc.wantTrips)
				}
			}
		})
	}

	// What was refused changed nothing.
	var list struct{ Teams []struct{ ID, Name string } }
	env.Do(t, http.MethodGet, "/workspaceapi/teams", rolesAdmin, "").JSON(t, &list)
	var names []string
	for _, tm := range list.Teams {
		names = append(names, tm.Name)
	}
	slices.Sort(names)
	if got := fmt.Sprint(names); got != "[Design Growth Support Desk]" {
		t.Errorf("teams %s, want [Design Growth Support Desk]", got)
	}
	for id, want := range map[string]string{
		"team_growth":  "[{u_admin guest} {u_creator admin} {u_guest guest} {u_member member}]",
		"team_support": "[]",
	} {
		var got team
		env.Do(t, http.MethodGet, "/workspaceapi/teams/"+id, rolesAdmin, "").JSON(t, &got)
		if s := fmt.Sprint(got.Members); s != want {
			t.Errorf("%s's members %s, want %s", id, s, want)
		}
	}
}

// TestTheRefusalSaysWhoMay: the 403s name the roles that may.
func TestTheRefusalSaysWhoMay(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, rolesFixture)
	for _, tc := range []struct{ method, path, body, want string }{
		{"POST", "/workspaceapi/teams", `{"name": "Mine"}`, "only workspace admins can create teams"},
		{"PATCH", "/workspaceapi/teams/team_support", `{"name": "Mine"}`, "only workspace admins and the team's admins can change this team"},
		{"PUT", "/workspaceapi/teams/team_support/members/u_creator", `{"role": "admin"}`, "only workspace admins and the team's admins can change this team"},
		{"DELETE", "/workspaceapi/teams/team_support/members/u_admin", "", "only workspace admins and the team's admins can change this team"},
	} {
		res := env.Do(t, tc.method, tc.path, rolesCreator, tc.body)
		if res.Status != http.StatusForbidden || res.Error(t) != tc.want {
			t.Errorf("%s %s: %d %s, want 403 %q", tc.method, tc.path, res.Status, res.Body, tc.want)
		}
	}
}
