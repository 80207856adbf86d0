package teams_test

import (
	"net/http"
	"testing"
)

// a team id holding a document-path character ('.', '[') in a
// membership call must be an unknown team (404), never a 500.
func TestATeamIDWithDocumentPathCharactersIsAnUnknownTeam(t *testing.T) {
	env := newEnv(t)
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodPut, "/workspaceapi/teams/a.b/members/u_creator", `{"role": "member"}`},
		{http.MethodPut, "/workspaceapi/teams/team_a%5B0%5D/members/u_creator", `{"role": "member"}`},
		{http.MethodDelete, "/workspaceapi/teams/a.b/members/u_creator", ""},
		{http.MethodDelete, "/workspaceapi/teams/team_a%5B0%5D/members/u_creator", ""},
	} {
		if res := env.Do(t, tc.method, tc.path, keyAdmin, tc.body); res.Status != http.StatusNotFound {
			t.Errorf("%s %s: status %d (%s), want 404", tc.method, tc.path, res.Status, res.Body)
		}
	}
}

// names compare case-insensitively; "ΟΔΟΣ" and "οδος" differ only
// in case (Σ/ς), so the second create is a duplicate.
func TestTeamNamesCompareWithUnicodeCaseFolding(t *testing.T) {
	env := newEnv(t)
	if res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, `{"name": "ΟΔΟΣ"}`); res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	if res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, `{"name": "οδος"}`); res.Status != http.StatusConflict {
		t.Errorf("second create: status %d (%s), want 409", res.Status, res.Body)
	}
}
