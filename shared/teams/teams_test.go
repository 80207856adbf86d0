package teams_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestGetTeamShowsCreditsStateMembersAndAgents(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodGet, "/workspaceapi/teams/team_a", keyRead, "")
	if res.Status != http.StatusOK {
		t.Fatalf("status %d: %s", res.Status, res.Body)
	}
	var got team
	res.JSON(t, &got)
	want := `{team_a Research <nil> 5.5 false [lab] [{u_creator admin}] [ag_a1 ag_a2]}`
	if s := fmt.Sprintf("{%s %s %v %v %v %v %v %v}", got.ID, got.Name, got.MonthlyCreditLimit, got.CreditsThisMonth, got.Paused, got.Tags, got.Members, got.AgentIDs); s != want {
		t.Errorf("team %s, want %s", s, want)
	}
}

func TestTeamNotFoundCases(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct{ name, path, key string }{
		{"unknown team", "/workspaceapi/teams/team_nope", keyAdmin},
		{"another workspace's team", "/workspaceapi/teams/team_other", keyAdmin},
		{"an id over 256 characters", "/workspaceapi/teams/" + strings.Repeat("t", 257), keyAdmin},
		{"another team than a team-scoped key's", "/workspaceapi/teams/team_b", keyTeamA},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if res := env.Do(t, http.MethodGet, tc.path, tc.key, ""); res.Status != http.StatusNotFound {
				t.Errorf("status %d (%s), want 404", res.Status, res.Body)
			}
		})
	}
	if res := env.Do(t, http.MethodGet, "/workspaceapi/teams/team_a", keyTeamA, ""); res.Status != http.StatusOK {
		t.Errorf("a team-scoped key reading its own team: %d, want 200", res.Status)
	}
}

func TestCreateAndRenameTeams(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantName                 string
	}{
		{"a trimmed name creates a team", "POST", "/workspaceapi/teams", `{"name": "  Growth  "}`, 201, "Growth"},
		{"a name differing in case only is a duplicate", "POST", "/workspaceapi/teams", `{"name": "research"}`, 409, ""},
		{"a duplicate after trimming", "POST", "/workspaceapi/teams", `{"name": " SUPPORT "}`, 409, ""},
		{"an empty name after trimming", "POST", "/workspaceapi/teams", `{"name": "   "}`, 400, ""},
		{"a name of 101 characters", "POST", "/workspaceapi/teams", `{"name": "` + strings.Repeat("n", 101) + `"}`, 400, ""},
		{"name missing", "POST", "/workspaceapi/teams", `{}`, 400, ""},
		{"name null", "POST", "/workspaceapi/teams", `{"name": null}`, 400, ""},
		{"an unknown field", "POST", "/workspaceapi/teams", `{"name": "X", "nmae": "Y"}`, 400, ""},
		{"rename to another team's name", "PATCH", "/workspaceapi/teams/team_a", `{"name": "support"}`, 409, ""},
		{"rename changing only the case", "PATCH", "/workspaceapi/teams/team_a", `{"name": "RESEARCH"}`, 200, "RESEARCH"},
		{"rename to a new name", "PATCH", "/workspaceapi/teams/team_a", `{"name": "Labs"}`, 200, "Labs"},
		{"the old name is free again", "POST", "/workspaceapi/teams", `{"name": "Research"}`, 201, "Research"},
		{"the new name is taken", "POST", "/workspaceapi/teams", `{"name": "labs"}`, 409, ""},
		{"rename of an unknown team", "PATCH", "/workspaceapi/teams/team_nope", `{"name": "Z"}`, 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, tc.method, tc.path, keyAdmin, tc.body)
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if tc.wantName != "" {
				var got team
				res.JSON(t, &got)
				if got.Name != tc.wantName {
					t.Errorf("name %q, want %q", got.Name, tc.wantName)
				}
			}
		})
	}
}

func TestParallelCreatesOfOneNameMakeOneTeam(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	statuses := make([]int, 20)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, []string{`{"name": "Race Team"}`, `{"name": "RACE TEAM"}`, `{"name": "  race team "}`}[i%3]).Status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[409] != 19 {
		t.Errorf("statuses %v, want one 201 and nineteen 409", count)
	}
	var list struct{ Teams []struct{ Name string } }
	env.Do(t, http.MethodGet, "/workspaceapi/teams", keyAdmin, "").JSON(t, &list)
	races := 0
	for _, tm := range list.Teams {
		if strings.EqualFold(tm.Name, "race team") {
			races++
		}
	}
	if races != 1 {
		t.Errorf("%d teams named race team listed, want 1", races)
	}
}

func TestTeamEndpointsAnswer400WhileTeamSettingsAreOff(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct{ method, path, body string }{
		{"GET", "/workspaceapi/teams", ""},
		{"POST", "/workspaceapi/teams", `{"name": "New"}`},
		{"GET", "/workspaceapi/teams/team_other", ""},
		{"PATCH", "/workspaceapi/teams/team_other", `{"name": "New"}`},
		{"PUT", "/workspaceapi/teams/team_other/members/u_b", `{"role": "member"}`},
		{"DELETE", "/workspaceapi/teams/team_other/members/u_b", ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			res := env.Do(t, tc.method, tc.path, keyOther, tc.body)
			if res.Status != http.StatusBadRequest || !strings.Contains(res.Error(t), "team settings") {
				t.Errorf("status %d (%s), want 400 naming team settings", res.Status, res.Body)
			}
		})
	}
}

func TestTeamScopedKeysOnWorkspaceWideTeamEndpoints(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/workspaceapi/teams", ""},
		{"POST", "/workspaceapi/teams", `{"name": "Mine"}`},
	} {
		if res := env.Do(t, tc.method, tc.path, keyTeamA, tc.body); res.Status != http.StatusForbidden || res.FunctionTrips != 0 {
			t.Errorf("%s %s: %d after %d round trips, want 403 before any", tc.method, tc.path, res.Status, res.FunctionTrips)
		}
	}
	if res := env.Do(t, "PATCH", "/workspaceapi/teams/team_b", keyTeamA, `{"name": "Mine"}`); res.Status != http.StatusNotFound {
		t.Errorf("renaming another team with a team-scoped key: %d, want 404", res.Status)
	}
}

func TestTeamMembership(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, method, path, key, body string
		wantStatus                    int
		wantBody                      string
	}{
		{"add a member", "PUT", "/workspaceapi/teams/team_b/members/u_admin", keyAdmin, `{"role": "guest"}`, 200, `{"teamId":"team_b","userId":"u_admin","role":"guest"}`},
		{"change the role", "PUT", "/workspaceapi/teams/team_b/members/u_admin", keyAdmin, `{"role": "admin"}`, 200, `{"teamId":"team_b","userId":"u_admin","role":"admin"}`},
		{"an unknown user", "PUT", "/workspaceapi/teams/team_b/members/u_nope", keyAdmin, `{"role": "member"}`, 404, ""},
		{"another workspace's user", "PUT", "/workspaceapi/teams/team_b/members/u_b", keyAdmin, `{"role": "member"}`, 404, ""},
		{"an unknown team", "PUT", "/workspaceapi/teams/team_nope/members/u_admin", keyAdmin, `{"role": "member"}`, 404, ""},
		{"a workspace role is not a team role", "PUT", "/workspaceapi/teams/team_b/members/u_admin", keyAdmin, `{"role": "collaborator"}`, 400, ""},
		{"role missing", "PUT", "/workspaceapi/teams/team_b/members/u_admin", keyAdmin, `{}`, 400, ""},
		{"a team-scoped key on its own team", "PUT", "/workspaceapi/teams/team_a/members/u_admin", keyTeamA, `{"role": "member"}`, 200, `{"teamId":"team_a","userId":"u_admin","role":"member"}`},
		{"a team-scoped key on another team", "PUT", "/workspaceapi/teams/team_b/members/u_creator", keyTeamA, `{"role": "member"}`, 404, ""},
		{"remove a member", "DELETE", "/workspaceapi/teams/team_a/members/u_creator", keyAdmin, "", 204, ""},
		{"removing again is still 204", "DELETE", "/workspaceapi/teams/team_a/members/u_creator", keyAdmin, "", 204, ""},
		{"a team-scoped key removing a member outside its team: as an unknown user", "DELETE", "/workspaceapi/teams/team_a/members/u_creator", keyTeamA, "", 404, `{"error":"member not found"}`},
		{"a team-scoped key removing an unknown user", "DELETE", "/workspaceapi/teams/team_a/members/u_nope", keyTeamA, "", 404, `{"error":"member not found"}`},
		{"removing an unknown user", "DELETE", "/workspaceapi/teams/team_a/members/u_nope", keyAdmin, "", 404, ""},
		{"removing from an unknown team", "DELETE", "/workspaceapi/teams/team_nope/members/u_admin", keyAdmin, "", 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, tc.method, tc.path, tc.key, tc.body)
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if tc.wantBody != "" && string(res.Body) != tc.wantBody {
				t.Errorf("body %s, want %s", res.Body, tc.wantBody)
			}
		})
	}
	var a, b team
	env.Do(t, http.MethodGet, "/workspaceapi/teams/team_a", keyAdmin, "").JSON(t, &a)
	env.Do(t, http.MethodGet, "/workspaceapi/teams/team_b", keyAdmin, "").JSON(t, &b)
	if got := fmt.Sprint(a.Members, b.Members); got != "[{u_admin member}] [{u_admin admin}]" {
		t.Errorf("members of team_a and team_b: %s, want [{u_admin member}] [{u_admin admin}]", got)
	}
	var page struct {
		Members []struct {
			ID    string
			Teams []struct{ TeamID, Role string }
		}
	}
	env.Do(t, http.MethodGet, "/workspaceapi/members", keyAdmin, "").JSON(t, &page)
	if got := fmt.Sprint(page.Members); got != "[{u_admin [{team_a member} {team_b admin}]} {u_creator []}]" {
		t.Errorf("members list %s, want each member's teams as the memberships say", got)
	}
}

// TestABodySentOnTheMemberDeleteFollowsTheRulesOfEveryBody: the DELETE reads
// no body, but one that is sent is held to the same rules as any other.
func TestABodySentOnTheMemberDeleteFollowsTheRulesOfEveryBody(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	const path = "/workspaceapi/teams/team_a/members/u_creator"
	for _, tc := range []struct {
		name, contentType, body string
		want                    int
	}{
		{"another media type", "text/plain", "remove them", http.StatusUnsupportedMediaType},
		{"a body over 256 KiB", "application/json", `{"x": "` + strings.Repeat("a", 300<<10) + `"}`, http.StatusRequestEntityTooLarge},
		{"malformed JSON", "application/json", `{"x":`, http.StatusBadRequest},
		{"a field the operation does not read", "application/json", `{"role": "admin"}`, http.StatusBadRequest},
		{"not an object", "application/json", `[]`, http.StatusBadRequest},
		{"an empty object", "application/json", `{}`, http.StatusNoContent},
		{"no body", "", "", http.StatusNoContent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.DoRaw(t, http.MethodDelete, path, map[string]string{
				"Authorization": "Bearer " + keyAdmin, "Content-Type": tc.contentType,
			}, tc.body)
			if res.Status != tc.want {
				t.Errorf("status %d (%s), want %d", res.Status, res.Body, tc.want)
			}
		})
	}
}
