package keys_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Keys of the test fixture, named for what they may do.
const (
	keyAdmin     = "wk_keysAdminKey000000000000000000000000001" // u_admin: read, write, invite
	keyAdminRW   = "wk_keysAdminRWKey0000000000000000000000001" // u_admin: read, write
	keyAdminRead = "wk_keysAdminReadKey00000000000000000000001" // u_admin: read
	keyCreator   = "wk_keysCreatorKey0000000000000000000000001" // u_creator (member): read, write
	keyTeam      = "wk_keysTeamKey000000000000000000000000001"  // u_admin, scoped to team_a
	keyOther     = "wk_keysOtherWorkspaceKey00000000000000001"  // ws_b's admin
)

// fixtureKeys is how many keys ws_a holds at the start.
const fixtureKeys = 5

const testFixture = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [
   {"id": "u_admin", "email": "admin@alpha.example", "name": "Ada", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_creator", "email": "creator@alpha.example", "name": "Cy", "role": "member", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}
  ],
  "teams": [{"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": [], "members": []}],
  "agents": [], "invites": [],
  "apiKeys": [
   {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyAdminRW + `", "name": "admin rw", "userId": "u_admin", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyAdminRead + `", "name": "admin read", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyCreator + `", "name": "creator", "userId": "u_creator", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeam + `", "name": "team", "userId": "u_admin", "scopes": ["read", "write"], "teamId": "team_a", "expiresAt": null, "disabled": false}
  ],
  "events": []},
 {"id": "ws_b", "name": "Beta", "seats": 5, "teamSettingsEnabled": false,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_b", "email": "b@beta.example", "name": "Bea", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [], "agents": [], "invites": [],
  "apiKeys": [{"key": "` + keyOther + `", "name": "admin", "userId": "u_b", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`

// key is a key as the keys endpoints show it, with the plaintext of a create.
type key struct {
	ID         string
	Name       string
	UserID     string
	Scopes     []string
	TeamID     *string
	CreatedAt  string
	ExpiresAt  *string
	Disabled   bool
	LastUsedAt *string
	Key        string
}

// create makes a key through the API with the admin key and returns it.
func create(t *testing.T, env *apitest.Env, body string) key {
	t.Helper()
	res := env.Do(t, "POST", "/workspaceapi/keys", keyAdmin, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create %s: got %d %s, want 201", body, res.Status, res.Body)
	}
	var k key
	res.JSON(t, &k)
	return k
}

func list(t *testing.T, env *apitest.Env) []key {
	t.Helper()
	res := env.Do(t, "GET", "/workspaceapi/keys", keyAdmin, "")
	if res.Status != http.StatusOK {
		t.Fatalf("list: got %d %s", res.Status, res.Body)
	}
	var body struct{ Keys []key }
	res.JSON(t, &body)
	return body.Keys
}

// TestWhoMayManageKeysAndWhatTheyMayAsk: a workspace admin's workspace-wide
// key manages keys, within its own scopes; team-scoped keys, other roles and
// missing scopes get 403; every input is bounded before anything is read.
func TestWhoMayManageKeysAndWhatTheyMayAsk(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	long := strings.Repeat("k", 257)
	tests := []struct {
		name, method, path, key, body string
		want                          int
		wantTrips                     int // function round trips; -1: not checked
	}{
		{"an admin lists the keys", "GET", "/workspaceapi/keys", keyAdmin, "", 200, 2},
		{"a read-only admin key lists the keys", "GET", "/workspaceapi/keys", keyAdminRead, "", 200, 2},
		{"a team-scoped key may not list", "GET", "/workspaceapi/keys", keyTeam, "", 403, 0},
		{"a Creator may not list", "GET", "/workspaceapi/keys", keyCreator, "", 403, 0},
		{"a team-scoped key may not create", "POST", "/workspaceapi/keys", keyTeam, `{"name": "x", "scopes": ["read"]}`, 403, 0},
		{"a Creator may not create", "POST", "/workspaceapi/keys", keyCreator, `{"name": "x", "scopes": ["read"]}`, 403, 0},
		{"a read-only key may not create", "POST", "/workspaceapi/keys", keyAdminRead, `{"name": "x", "scopes": ["read"]}`, 403, 0},
		{"scopes beyond the caller's are refused", "POST", "/workspaceapi/keys", keyAdminRW, `{"name": "x", "scopes": ["read", "invite"]}`, 403, 0},
		{"scopes within the caller's are granted", "POST", "/workspaceapi/keys", keyAdminRW, `{"name": "x", "scopes": ["read"]}`, 201, 1},
		{"a team-scoped key of a known team", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read"], "teamId": "team_a"}`, 201, 1},
		{"teamId null is workspace-wide", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read"], "teamId": null}`, 201, 1},
		{"an unknown team", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read"], "teamId": "team_nope"}`, 404, 1},
		{"a team id too long", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read"], "teamId": "` + long + `"}`, 404, 0},
		{"no name", "POST", "/workspaceapi/keys", keyAdmin, `{"scopes": ["read"]}`, 400, 0},
		{"a blank name", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "  ", "scopes": ["read"]}`, 400, 0},
		{"a name of 101 characters", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "` + strings.Repeat("n", 101) + `", "scopes": ["read"]}`, 400, 0},
		{"a key-shaped name", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "` + keyOther + `", "scopes": ["read"]}`, 400, 0},
		{"no scopes", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": []}`, 400, 0},
		{"an unknown scope", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["admin"]}`, 400, 0},
		{"a repeated scope", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read", "read"]}`, 400, 0},
		{"four scopes", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read", "write", "invite", "read"]}`, 400, 0},
		{"expiresInDays 0", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read"], "expiresInDays": 0}`, 400, 0},
		{"expiresInDays 366", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read"], "expiresInDays": 366}`, 400, 0},
		{"expiresInDays 1.5", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read"], "expiresInDays": 1.5}`, 400, 0},
		{"an unknown field", "POST", "/workspaceapi/keys", keyAdmin, `{"name": "x", "scopes": ["read"], "userId": "u_creator"}`, 400, 0},
		{"a team-scoped key may not change", "PATCH", "/workspaceapi/keys/key_x", keyTeam, `{"disabled": true}`, 403, 0},
		{"a Creator may not change", "PATCH", "/workspaceapi/keys/key_x", keyCreator, `{"disabled": true}`, 403, 0},
		{"an empty change", "PATCH", "/workspaceapi/keys/key_x", keyAdmin, `{}`, 400, 0},
		{"an unknown key", "PATCH", "/workspaceapi/keys/key_nope", keyAdmin, `{"disabled": true}`, 404, 1},
		{"a key id too long", "PATCH", "/workspaceapi/keys/" + long, keyAdmin, `{"disabled": true}`, 404, 0},
		{"a team-scoped key may not revoke", "DELETE", "/workspaceapi/keys/key_x", keyTeam, "", 403, 0},
		{"a Creator may not revoke", "DELETE", "/workspaceapi/keys/key_x", keyCreator, "", 403, 0},
		{"revoking an unknown key", "DELETE", "/workspaceapi/keys/key_nope", keyAdmin, "", 404, 1},
		{"revoking with a key-shaped id", "DELETE", "/workspaceapi/keys/" + keyOther, keyAdmin, "", 404, 1},
	}
	for _, tc := range tests {
		res := env.Do(t, tc.method, tc.path, tc.key, tc.body)
		if res.Status != tc.want {
			t.Errorf("%s: got %d %s, want %d", tc.name, res.Status, res.Body, tc.want)
		}
		if tc.wantTrips >= 0 && res.FunctionTrips != tc.wantTrips {
			t.Errorf("%s: got %d round trips, want %d", tc.name, res.FunctionTrips, tc.wantTrips)
		}
		if strings.Contains(string(res.Body), "wk_") && tc.want != http.StatusCreated {
			t.Errorf("%s: the answer %s holds key-shaped text", tc.name, res.Body)
		}
	}
}

// TestTheKeyIsShownOnceAndActsAsItsCreator: a created key answers its
// plaintext once, never again (list, change), acts as the caller's user
// with the asked scopes, and expires 90 days later by default.
func TestTheKeyIsShownOnceAndActsAsItsCreator(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	k := create(t, env, `{"name": "  Dashboard ", "scopes": ["read"]}`)
	if !workspace.WellFormedKey(k.Key) || k.Name != "Dashboard" || k.UserID != "u_admin" || k.TeamID != nil || k.Disabled || k.LastUsedAt != nil {
		t.Fatalf("created key = %+v, want a key named Dashboard acting as u_admin", k)
	}
	want := apitest.Start.Add(90 * 24 * time.Hour).Format("2006-01-02T15:04:05.000Z")
	if k.ExpiresAt == nil || *k.ExpiresAt != want {
		t.Errorf("expiresAt = %v, want %s (90 days)", k.ExpiresAt, want)
	}
	hash := workspace.HashKey(k.Key)
	for _, res := range []*apitest.Response{
		env.Do(t, "GET", "/workspaceapi/keys", keyAdmin, ""),
		env.Do(t, "PATCH", "/workspaceapi/keys/"+k.ID, keyAdmin, `{"name": "Board"}`),
	} {
		if strings.Contains(string(res.Body), k.Key) || strings.Contains(string(res.Body), hash) || strings.Contains(string(res.Body), "wk_") {
			t.Errorf("an answer after the create holds the key or its hash: %s", res.Body)
		}
	}
	// The key works, as u_admin, with read only.
	if res := env.Do(t, "GET", "/workspaceapi/keys", k.Key, ""); res.Status != 200 {
		t.Errorf("the new key lists: got %d %s, want 200", res.Status, res.Body)
	}
	if res := env.Do(t, "POST", "/workspaceapi/keys", k.Key, `{"name": "x", "scopes": ["read"]}`); res.Status != 403 {
		t.Errorf("the new read-only key creates: got %d, want 403", res.Status)
	}
	got := list(t, env)
	if len(got) != fixtureKeys+1 {
		t.Fatalf("listed %d keys, want %d", len(got), fixtureKeys+1)
	}
	// Another workspace's admin sees none of them and cannot touch them.
	if res := env.Do(t, "PATCH", "/workspaceapi/keys/"+k.ID, keyOther, `{"disabled": true}`); res.Status != 404 {
		t.Errorf("another workspace's change: got %d, want 404", res.Status)
	}
	if res := env.Do(t, "DELETE", "/workspaceapi/keys/"+k.ID, keyOther, ""); res.Status != 404 {
		t.Errorf("another workspace's revoke: got %d, want 404", res.Status)
	}
}

// TestARevokedOrDisabledKeyStopsAtOnce: with the gateway's authorizer
// cache on, disabling, enabling and revoking take effect on the very next
// request; a revoked key is no longer listed and cannot be revoked twice.
func TestARevokedOrDisabledKeyStopsAtOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture, apitest.Options{AuthorizerTTL: time.Minute})
	k := create(t, env, `{"name": "soon gone", "scopes": ["read"]}`)
	steps := []struct {
		name, method, path, body string
		want                     int // status of the admin's request
		wantUse                  int // status of the new key's request after it
	}{
		{"in use (cached)", "GET", "/workspaceapi/keys", "", 200, 200},
		{"disabled", "PATCH", "/workspaceapi/keys/" + k.ID, `{"disabled": true}`, 200, 401},
		{"enabled again", "PATCH", "/workspaceapi/keys/" + k.ID, `{"disabled": false}`, 200, 200},
		{"revoked", "DELETE", "/workspaceapi/keys/" + k.ID, "", 204, 401},
		{"revoked twice", "DELETE", "/workspaceapi/keys/" + k.ID, "", 404, 401},
		{"changed after revoke", "PATCH", "/workspaceapi/keys/" + k.ID, `{"disabled": false}`, 404, 401},
	}
	for _, st := range steps {
		if res := env.Do(t, st.method, st.path, keyAdmin, st.body); res.Status != st.want {
			t.Errorf("%s: got %d %s, want %d", st.name, res.Status, res.Body, st.want)
		}
		if res := env.Do(t, "GET", "/workspaceapi/keys", k.Key, ""); res.Status != st.wantUse {
			t.Errorf("%s: the key answered %d, want %d", st.name, res.Status, st.wantUse)
		}
	}
	for _, got := range list(t, env) {
		if got.ID == k.ID {
			t.Errorf("the revoked key %s is still listed", k.ID)
		}
	}
	// A key may revoke itself, and is refused at once after.
	self := create(t, env, `{"name": "self", "scopes": ["read", "write"]}`)
	if res := env.Do(t, "DELETE", "/workspaceapi/keys/"+self.ID, self.Key, ""); res.Status != 204 {
		t.Errorf("a key revoking itself: got %d %s, want 204", res.Status, res.Body)
	}
	if res := env.Do(t, "GET", "/workspaceapi/keys", self.Key, ""); res.Status != 401 {
		t.Errorf("a key that revoked itself: got %d, want 401", res.Status)
	}
}

// TestLastUsedIsWrittenAtMostOncePerHour counts the authorizer's round
// trips: the first use of a key reads it and its owner and writes
// lastUsedAt; uses within the hour only read; the first use after it
// writes again.
func TestLastUsedIsWrittenAtMostOncePerHour(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	k := create(t, env, `{"name": "counted", "scopes": ["read"]}`)
	steps := []struct {
		name      string
		advance   time.Duration
		wantTrips int
	}{
		{"first use", 0, 3},
		{"again at once", 0, 2},
		{"59 minutes on", 59 * time.Minute, 2},
		{"61 minutes after the first", 2 * time.Minute, 3},
		{"again at once", 0, 2},
	}
	var last string
	for _, st := range steps {
		env.Clock.Advance(st.advance)
		res := env.Do(t, "GET", "/workspaceapi/keys", k.Key, "")
		if res.Status != 200 {
			t.Fatalf("%s: got %d %s", st.name, res.Status, res.Body)
		}
		if res.AuthorizerTrips != st.wantTrips {
			t.Errorf("%s: the authorizer made %d round trips, want %d", st.name, res.AuthorizerTrips, st.wantTrips)
		}
		var body struct{ Keys []key }
		res.JSON(t, &body)
		for _, got := range body.Keys {
			if got.ID == k.ID {
				if got.LastUsedAt == nil {
					t.Errorf("%s: lastUsedAt is null", st.name)
				} else {
					last = *got.LastUsedAt
				}
			}
		}
	}
	if want := apitest.Start.Add(61 * time.Minute).Format("2006-01-02T15:04:05.000Z"); last != want {
		t.Errorf("lastUsedAt = %s, want %s", last, want)
	}
}

// TestAtMostAHundredLiveKeysUnderConcurrency: 20 creates race for the last
// places; exactly the free ones succeed and the rest get 409. Once keys
// expire, a create removes them and takes their place.
func TestAtMostAHundredLiveKeysUnderConcurrency(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	const short = 90 // keys of one day, created before the race
	for i := range workspace.MaxLiveKeys - fixtureKeys - 5 {
		days := 365
		if i < short {
			days = 1
		}
		create(t, env, fmt.Sprintf(`{"name": "k%d", "scopes": ["read"], "expiresInDays": %d}`, i, days))
	}
	statuses := make([]int, 20)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = env.Do(t, "POST", "/workspaceapi/keys", keyAdmin, fmt.Sprintf(`{"name": "race%d", "scopes": ["read"]}`, i)).Status
		})
	}
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	if count[201] != 5 || count[409] != 15 {
		t.Fatalf("racing creates answered %v, want 5 × 201 and 15 × 409", count)
	}
	if got := len(list(t, env)); got != workspace.MaxLiveKeys {
		t.Errorf("listed %d keys, want %d", got, workspace.MaxLiveKeys)
	}
	// A day later the one-day keys have expired: a create reclaims them.
	env.Clock.Advance(24 * time.Hour)
	create(t, env, `{"name": "after expiry", "scopes": ["read"]}`)
	if got, want := len(list(t, env)), workspace.MaxLiveKeys-short+1; got != want {
		t.Errorf("after expiry, listed %d keys, want %d", got, want)
	}
	for i := range short - 1 {
		create(t, env, fmt.Sprintf(`{"name": "refill%d", "scopes": ["read"]}`, i))
	}
	if res := env.Do(t, "POST", "/workspaceapi/keys", keyAdmin, `{"name": "one too many", "scopes": ["read"]}`); res.Status != 409 {
		t.Errorf("the 101st live key: got %d %s, want 409", res.Status, res.Body)
	}
}
