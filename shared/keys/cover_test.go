package keys_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
)

// TestAKeyNeverMakesAKeyThatOutlivesIt: a key that expires makes only keys
// that expire no later (403 otherwise, the default 90 days included); a key
// that never expires makes keys of any allowed lifetime.
func TestAKeyNeverMakesAKeyThatOutlivesIt(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	day := create(t, env, `{"name": "one day", "scopes": ["read", "write", "invite"], "expiresInDays": 1}`)
	tests := []struct {
		name, body string
		want       int
	}{
		{"a year", `{"name": "forever", "scopes": ["read", "write", "invite"], "expiresInDays": 365}`, 403},
		{"the default 90 days", `{"name": "default", "scopes": ["read"]}`, 403},
		{"two days", `{"name": "two", "scopes": ["read"], "expiresInDays": 2}`, 403},
		{"the same day", `{"name": "same", "scopes": ["read"], "expiresInDays": 1}`, 201},
	}
	for _, tc := range tests {
		res := env.Do(t, "POST", "/workspaceapi/keys", day.Key, tc.body)
		if res.Status != tc.want {
			t.Errorf("%s: got %d %s, want %d", tc.name, res.Status, res.Body, tc.want)
		}
		if tc.want == 403 && !strings.Contains(res.Error(t), "must not outlive it") {
			t.Errorf("%s: error %q does not say the key may not outlive its maker", tc.name, res.Error(t))
		}
	}
	// An hour later a day would outlive it by an hour.
	env.Clock.Advance(time.Hour)
	if res := env.Do(t, "POST", "/workspaceapi/keys", day.Key, `{"name": "late", "scopes": ["read"], "expiresInDays": 1}`); res.Status != 403 {
		t.Errorf("a day, an hour later: got %d %s, want 403", res.Status, res.Body)
	}
	// A key that never expires makes a year's key.
	if res := env.Do(t, "POST", "/workspaceapi/keys", keyAdmin, `{"name": "year", "scopes": ["read"], "expiresInDays": 365}`); res.Status != 201 {
		t.Errorf("a year from a key that never expires: got %d %s, want 201", res.Status, res.Body)
	}
}

// TestAKeyChangesOnlyKeysItCovers: any change of a key (re-enabling,
// disabling, renaming) needs a caller whose key holds the changed key's
// scopes and outlives it; a key always covers itself; revoking needs no more
// than the keys endpoints' own rules.
func TestAKeyChangesOnlyKeysItCovers(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	reader := create(t, env, `{"name": "reader", "scopes": ["read"]}`)
	writer := create(t, env, `{"name": "writer", "scopes": ["write"]}`)
	short := create(t, env, `{"name": "short", "scopes": ["read", "write", "invite"], "expiresInDays": 1}`)
	if res := env.Do(t, "PATCH", "/workspaceapi/keys/"+reader.ID, keyAdmin, `{"disabled": true}`); res.Status != 200 {
		t.Fatalf("disabling the reader: got %d %s", res.Status, res.Body)
	}
	ids := map[string]string{}
	for _, k := range list(t, env) {
		ids[k.Name] = k.ID
	}
	tests := []struct {
		name, key, target, body string
		want                    int
	}{
		{"a write-only key re-enables a read key", writer.Key, reader.ID, `{"disabled": false}`, 403},
		{"a write-only key renames a read key", writer.Key, reader.ID, `{"name": "mine"}`, 403},
		{"a write-only key disables a read-write key", writer.Key, ids["admin rw"], `{"disabled": true}`, 403},
		{"a write-only key renames itself (answered without a body: it lacks read)", writer.Key, writer.ID, `{"name": "still writer"}`, 204},
		{"a one-day key disables a key that never expires", short.Key, ids["admin rw"], `{"disabled": true}`, 403},
		{"a one-day key re-enables a 90-day key", short.Key, reader.ID, `{"disabled": false}`, 403},
		{"a read-write key changes an invite key", keyAdminRW, short.ID, `{"name": "x"}`, 403},
		{"a one-day key changes itself", short.Key, short.ID, `{"name": "still short"}`, 200},
		{"a key that never expires re-enables a read key", keyAdminRW, reader.ID, `{"disabled": false}`, 200},
	}
	for _, tc := range tests {
		res := env.Do(t, "PATCH", "/workspaceapi/keys/"+tc.target, tc.key, tc.body)
		if res.Status != tc.want {
			t.Errorf("%s: got %d %s, want %d", tc.name, res.Status, res.Body, tc.want)
		}
	}
	for _, k := range list(t, env) {
		if k.ID == reader.ID && (k.Name != "reader" || k.Disabled) {
			t.Errorf("the reader after the refused changes and the allowed enable: %+v", k)
		}
	}
	// Revoking takes no power: a write-only key may revoke a read key.
	if res := env.Do(t, "DELETE", "/workspaceapi/keys/"+reader.ID, writer.Key, ""); res.Status != http.StatusNoContent {
		t.Errorf("a write-only key revoking a read key: got %d %s, want 204", res.Status, res.Body)
	}
}

// teamFixture has a member of team_a with a team-scoped key issued by an
// operator, and an agent of the team.
const (
	keyTeamMember = "wk_keysTeamMemberKey0000000000000000000001" // u_member, scoped to team_a: read, write
	teamFixture   = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [
   {"id": "u_admin", "email": "admin@alpha.example", "name": "Ada", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_member", "email": "member@alpha.example", "name": "Mo", "role": "member", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}
  ],
  "teams": [{"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": [],
   "members": [{"userId": "u_member", "role": "guest"}]}],
  "agents": [], "invites": [],
  "apiKeys": [
   {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeamMember + `", "name": "team member", "userId": "u_member", "scopes": ["read", "write"], "teamId": "team_a", "expiresAt": null, "disabled": false}
  ],
  "events": []}
]}`
)

// TestATeamKeyStopsWhenItsOwnerLeavesTheTeam: a team-scoped key acts for
// its team while its owner is in the team (any team role) or a workspace
// admin; once the owner is removed from the team it is refused (401) on
// the very next request locally, its reads and writes alike, and works
// again when the owner is added back.
func TestATeamKeyStopsWhenItsOwnerLeavesTheTeam(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, teamFixture, apitest.Options{AuthorizerTTL: time.Minute})
	read := func() int { return env.Do(t, "GET", "/workspaceapi/teams/team_a", keyTeamMember, "").Status }
	write := func() int {
		return env.Do(t, "POST", "/workspaceapi/teams/tags", keyTeamMember, `{"ids": ["team_a"], "tags": ["x"]}`).Status
	}
	if got := read(); got != 200 {
		t.Fatalf("the team key of a team guest reads its team: got %d, want 200", got)
	}
	if got := write(); got != 200 {
		t.Fatalf("the team key of a team guest tags its team: got %d, want 200", got)
	}
	if res := env.Do(t, "DELETE", "/workspaceapi/teams/team_a/members/u_member", keyAdmin, ""); res.Status != http.StatusNoContent {
		t.Fatalf("removing u_member from team_a: got %d %s", res.Status, res.Body)
	}
	if got := read(); got != 401 {
		t.Errorf("the team key after its owner left the team reads: got %d, want 401", got)
	}
	if got := write(); got != 401 {
		t.Errorf("the team key after its owner left the team writes: got %d, want 401", got)
	}
	if res := env.Do(t, "PUT", "/workspaceapi/teams/team_a/members/u_member", keyAdmin, `{"role": "member"}`); res.Status != 200 {
		t.Fatalf("adding u_member back: got %d %s", res.Status, res.Body)
	}
	if got := read(); got != 200 {
		t.Errorf("the team key after its owner is back in the team: got %d, want 200", got)
	}
}
