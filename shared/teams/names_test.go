package teams_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// a team id holding a document-path character ('.', '[') in a
// membership call must be an unknown team (404), never a 500.
func TestATeamIDWithDocumentPathCharactersIsAnUnknownTeam(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	env := newEnv(t)
	if res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, `{"name": "ΟΔΟΣ"}`); res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	if res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, `{"name": "οδος"}`); res.Status != http.StatusConflict {
		t.Errorf("second create: status %d (%s), want 409", res.Status, res.Body)
	}
}

// nameBody is a {"name"} body holding name exactly, whatever it holds.
func nameBody(t *testing.T, name string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"name": name})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestVariantsOfATeamNameAreOneName: names compare after NFKC, simple case
// folding and collapsing runs of white space, on create and on rename, and
// the name is stored as sent, trimmed.
func TestVariantsOfATeamNameAreOneName(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var created team
	res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, nameBody(t, "  Customer  Support "))
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	res.JSON(t, &created)
	if created.Name != "Customer  Support" {
		t.Errorf("stored name %q, want it as sent, trimmed: %q", created.Name, "Customer  Support")
	}
	if res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, nameBody(t, "Caf\u00e9")); res.Status != http.StatusCreated {
		t.Fatalf("create Café: %d %s", res.Status, res.Body)
	}
	variants := []struct{ name, variant string }{
		{"lower case, one space", "customer support"},
		{"one space", "Customer Support"},
		{"a full-width C", "\uff23ustomer Support"},
		{"all full-width", "\uff23\uff55\uff53\uff54\uff4f\uff4d\uff45\uff52\u3000\uff33\uff55\uff50\uff50\uff4f\uff52\uff54"},
		{"a no-break space", "Customer\u00a0Support"},
		{"an ideographic space run", "CUSTOMER\u3000\u3000SUPPORT"},
		{"NFD of an NFC name", "Cafe\u0301"},
		{"NFD, upper case", "CAFE\u0301"},
	}
	for _, tc := range variants {
		t.Run("create: "+tc.name, func(t *testing.T) {
			if res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, nameBody(t, tc.variant)); res.Status != http.StatusConflict {
				t.Errorf("status %d (%s), want 409", res.Status, res.Body)
			}
		})
		t.Run("rename: "+tc.name, func(t *testing.T) {
			if res := env.Do(t, http.MethodPatch, "/workspaceapi/teams/team_b", keyAdmin, nameBody(t, tc.variant)); res.Status != http.StatusConflict {
				t.Errorf("status %d (%s), want 409", res.Status, res.Body)
			}
		})
	}
	// A team renamed to a variant of its own name keeps its claim, and
	// stores the name as sent.
	res = env.Do(t, http.MethodPatch, "/workspaceapi/teams/"+created.ID, keyAdmin, nameBody(t, "\uff23ustomer Support"))
	if res.Status != http.StatusOK {
		t.Fatalf("renaming to a variant of its own name: %d %s", res.Status, res.Body)
	}
	var renamed team
	res.JSON(t, &renamed)
	if renamed.Name != "\uff23ustomer Support" {
		t.Errorf("renamed to %q, want %q", renamed.Name, "\uff23ustomer Support")
	}
	if res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, nameBody(t, "customer  SUPPORT")); res.Status != http.StatusConflict {
		t.Errorf("a variant after the rename: %d (%s), want 409", res.Status, res.Body)
	}
	// A rename to another key moves the claim: the old name is free.
	if res := env.Do(t, http.MethodPatch, "/workspaceapi/teams/"+created.ID, keyAdmin, nameBody(t, "Help Desk")); res.Status != http.StatusOK {
		t.Fatalf("rename to Help Desk: %d %s", res.Status, res.Body)
	}
	if res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, nameBody(t, "customer support")); res.Status != http.StatusCreated {
		t.Errorf("the old name after the rename: %d (%s), want 201", res.Status, res.Body)
	}
	if res := env.Do(t, http.MethodPatch, "/workspaceapi/teams/team_b", keyAdmin, nameBody(t, "HELP\u2003DESK")); res.Status != http.StatusConflict {
		t.Errorf("a variant of the new name: %d (%s), want 409", res.Status, res.Body)
	}
}

// TestTeamNamesWithControlFormatOrNothingVisibleAre400: on create and on
// rename, before anything is read or written.
func TestTeamNamesWithControlFormatOrNothingVisibleAre400(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	names := []struct{ name, raw, wantErr string }{
		{"a tab inside", "Customer\tSupport", "control character"},
		{"a NUL", "Sup\x00port", "control character"},
		{"an escape sequence", "Support\x1b[2J", "control character"},
		{"a zero-width space", "Sup\u200bport", "format character"},
		{"a zero-width joiner", "Sup\u200dport", "format character"},
		{"a right-to-left override", "Support\u202egpj.exe", "format character"},
		{"a soft hyphen", "Sup\u00adport", "format character"},
		{"a byte order mark", "\ufeffSupport", "format character"},
		{"only zero-width spaces", "\u200b\u200b", "format character"},
		{"a Hangul filler", "\u3164", "visible character"},
		{"a half-width Hangul filler", "\uffa0", "visible character"},
		{"Hangul choseong and jungseong fillers", "\u115f\u1160", "visible character"},
		{"a braille blank", "\u2800", "visible character"},
		{"combining marks alone", "\u0301\u0308", "visible character"},
		{"a Hangul filler between spaces", " \u3164 \u3164 ", "visible character"},
	}
	for _, tc := range names {
		for _, op := range []struct{ method, path string }{
			{http.MethodPost, "/workspaceapi/teams"},
			{http.MethodPatch, "/workspaceapi/teams/team_a"},
		} {
			t.Run(op.method+" "+tc.name, func(t *testing.T) {
				res := env.Do(t, op.method, op.path, keyAdmin, nameBody(t, tc.raw))
				if res.Status != http.StatusBadRequest || res.FunctionTrips != 0 {
					t.Fatalf("status %d after %d round trips (%s), want 400 before any", res.Status, res.FunctionTrips, res.Body)
				}
				if !strings.Contains(res.Error(t), tc.wantErr) {
					t.Errorf("error %q, want it to mention %q", res.Error(t), tc.wantErr)
				}
			})
		}
	}
	var a team
	env.Do(t, http.MethodGet, "/workspaceapi/teams/team_a", keyAdmin, "").JSON(t, &a)
	if a.Name != "Research" {
		t.Errorf("team_a is named %q after refused renames, want Research", a.Name)
	}
}
