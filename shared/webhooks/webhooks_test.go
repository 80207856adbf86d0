package webhooks_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Keys of the test fixture, named for what they may do.
const (
	keyAdmin     = "wk_hooksAdminKey00000000000000000000000001" // u_admin: read, write
	keyAdminRead = "wk_hooksAdminReadKey000000000000000000001"  // u_admin: read
	keyMember    = "wk_hooksMemberKey0000000000000000000000001" // u_member: read, write
	keyTeam      = "wk_hooksTeamKey00000000000000000000000001"  // u_admin, scoped to team_a
	keyOther     = "wk_hooksOtherWorkspaceKey0000000000000001"  // ws_b's admin
)

const testFixture = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [
   {"id": "u_admin", "email": "admin@alpha.example", "name": "Ada", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_member", "email": "member@alpha.example", "name": "Cy", "role": "member", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}
  ],
  "teams": [{"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": [], "members": []}],
  "agents": [], "invites": [],
  "apiKeys": [
   {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyAdminRead + `", "name": "admin read", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyMember + `", "name": "member", "userId": "u_member", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeam + `", "name": "team", "userId": "u_admin", "scopes": ["read", "write"], "teamId": "team_a", "expiresAt": null, "disabled": false}
  ],
  "events": []},
 {"id": "ws_b", "name": "Beta", "seats": 5, "teamSettingsEnabled": false,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_b", "email": "b@beta.example", "name": "Bea", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [], "agents": [], "invites": [],
  "apiKeys": [{"key": "` + keyOther + `", "name": "admin", "userId": "u_b", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`

// publicURL is a URL whose host is a public address literal: no DNS.
const publicURL = "https://93.184.215.14/hooks"

type hook struct {
	ID          string
	URL         string
	EventTypes  []string
	Description string
	Thresholds  []int
	Disabled    bool
	CreatedAt   string
	Secret      *string
}

func create(t *testing.T, env *apitest.Env, body string) hook {
	t.Helper()
	res := env.Do(t, "POST", "/workspaceapi/webhooks", keyAdmin, body)
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	var h hook
	res.JSON(t, &h)
	return h
}

func TestCreateShowsTheSecretOnceAndDefaultsThresholds(t *testing.T) {
	env := apitest.New(t, testFixture)
	h := create(t, env, `{"url": "`+publicURL+`", "eventTypes": ["Credit Threshold Reached", "Agent Stopped"], "description": "alerts"}`)
	if h.Secret == nil || !strings.HasPrefix(*h.Secret, "whsec_") || len(*h.Secret) < len("whsec_")+32 {
		t.Fatalf("create answered secret %v, want whsec_ and the base64 of 24+ bytes", h.Secret)
	}
	if !slices.Equal(h.Thresholds, []int{80, 100}) || h.Disabled || h.Description != "alerts" {
		t.Errorf("create answered %+v, want thresholds [80 100], enabled", h)
	}
	for _, path := range []string{"/workspaceapi/webhooks", "/workspaceapi/webhooks/" + h.ID} {
		res := env.Do(t, "GET", path, keyAdminRead, "")
		if res.Status != 200 || strings.Contains(string(res.Body), "whsec_") {
			t.Errorf("GET %s: %d %s, want 200 without the secret", path, res.Status, res.Body)
		}
	}
	// Another workspace does not see it.
	if res := env.Do(t, "GET", "/workspaceapi/webhooks/"+h.ID, keyOther, ""); res.Status != 404 {
		t.Errorf("GET by another workspace: %d, want 404", res.Status)
	}
}

func TestOnlyWorkspaceAdminsWithWorkspaceWideKeysManageWebhooks(t *testing.T) {
	env := apitest.New(t, testFixture)
	body := `{"url": "` + publicURL + `", "eventTypes": ["Agent Stopped"]}`
	for _, tc := range []struct {
		name, method, key, body string
		want                    int
	}{
		{"team-scoped key lists", "GET", keyTeam, "", 403},
		{"team-scoped key creates", "POST", keyTeam, body, 403},
		{"member lists", "GET", keyMember, "", 403},
		{"member creates", "POST", keyMember, body, 403},
		{"read-only key creates", "POST", keyAdminRead, body, 403},
		{"read-only key lists", "GET", keyAdminRead, "", 200},
	} {
		if res := env.Do(t, tc.method, "/workspaceapi/webhooks", tc.key, tc.body); res.Status != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, res.Status, res.Body, tc.want)
		}
	}
}

func TestCreateChecksItsBody(t *testing.T) {
	env := apitest.New(t, testFixture)
	for _, body := range []string{
		`{"eventTypes": ["Agent Stopped"]}`,
		`{"url": "http://93.184.215.14/hooks", "eventTypes": ["Agent Stopped"]}`,
		`{"url": "https://10.0.0.8/hooks", "eventTypes": ["Agent Stopped"]}`,
		`{"url": "https://127.0.0.1/hooks", "eventTypes": ["Agent Stopped"]}`,
		`{"url": "https://169.254.169.254/latest", "eventTypes": ["Agent Stopped"]}`,
		`{"url": "https://[fd00::1]/hooks", "eventTypes": ["Agent Stopped"]}`,
		`{"url": "https://localhost/hooks", "eventTypes": ["Agent Stopped"]}`,
		`{"url": "` + publicURL + `", "eventTypes": []}`,
		`{"url": "` + publicURL + `", "eventTypes": ["Agent Exploded"]}`,
		`{"url": "` + publicURL + `", "eventTypes": ["Agent Stopped", "Agent Stopped"]}`,
		`{"url": "` + publicURL + `", "eventTypes": ["Agent Stopped"], "thresholds": [0]}`,
		`{"url": "` + publicURL + `", "eventTypes": ["Agent Stopped"], "thresholds": [101]}`,
		`{"url": "` + publicURL + `", "eventTypes": ["Agent Stopped"], "thresholds": [10, 20, 30, 40, 50, 60]}`,
		`{"url": "` + publicURL + `", "eventTypes": ["Agent Stopped"], "thresholds": []}`,
		`{"url": "` + publicURL + `", "eventTypes": ["Agent Stopped"], "description": "` + strings.Repeat("x", 501) + `"}`,
		`{"url": "` + publicURL + `", "eventTypes": ["Agent Stopped"], "secret": "whsec_mine"}`,
	} {
		if res := env.Do(t, "POST", "/workspaceapi/webhooks", keyAdmin, body); res.Status != 400 {
			t.Errorf("POST %.90s: %d %s, want 400", body, res.Status, res.Body)
		}
	}
}

func TestAWorkspaceHoldsAtMostTwentyWebhooks(t *testing.T) {
	env := apitest.New(t, testFixture)
	for i := range workspace.MaxWebhooks {
		create(t, env, fmt.Sprintf(`{"url": "%s/%d", "eventTypes": ["Agent Stopped"]}`, publicURL, i))
	}
	res := env.Do(t, "POST", "/workspaceapi/webhooks", keyAdmin, `{"url": "`+publicURL+`", "eventTypes": ["Agent Stopped"]}`)
	if res.Status != 409 {
		t.Fatalf("21st create: %d %s, want 409", res.Status, res.Body)
	}
	var list struct{ Webhooks []hook }
	env.Do(t, "GET", "/workspaceapi/webhooks", keyAdmin, "").JSON(t, &list)
	if len(list.Webhooks) != workspace.MaxWebhooks {
		t.Errorf("listed %d webhooks, want %d", len(list.Webhooks), workspace.MaxWebhooks)
	}
}

func TestChangesKeepTheWorkspaceThresholdUnion(t *testing.T) {
	env := apitest.New(t, testFixture)
	a := create(t, env, `{"url": "`+publicURL+`", "eventTypes": ["Credit Threshold Reached"], "thresholds": [50, 100]}`)
	b := create(t, env, `{"url": "`+publicURL+`", "eventTypes": ["Credit Threshold Reached"], "thresholds": [90]}`)
	union := func() []int {
		w, err := env.Store.Workspace(t.Context(), "ws_a")
		if err != nil {
			t.Fatal(err)
		}
		return workspace.ThresholdsOf(w)
	}
	if got := union(); !slices.Equal(got, []int{50, 80, 90, 100}) {
		t.Errorf("after two creates: %v, want [50 80 90 100]", got)
	}
	res := env.Do(t, "PATCH", "/workspaceapi/webhooks/"+a.ID, keyAdmin, `{"thresholds": [25], "disabled": true}`)
	var got hook
	res.JSON(t, &got)
	if res.Status != 200 || !slices.Equal(got.Thresholds, []int{25}) || !got.Disabled {
		t.Fatalf("PATCH: %d %s", res.Status, res.Body)
	}
	if got := union(); !slices.Equal(got, []int{25, 80, 90, 100}) {
		t.Errorf("after the change: %v, want [25 80 90 100]", got)
	}
	if res := env.Do(t, "DELETE", "/workspaceapi/webhooks/"+b.ID, keyAdmin, ""); res.Status != 204 {
		t.Fatalf("DELETE: %d %s", res.Status, res.Body)
	}
	if res := env.Do(t, "DELETE", "/workspaceapi/webhooks/"+b.ID, keyAdmin, ""); res.Status != 404 {
		t.Errorf("second DELETE: %d, want 404", res.Status)
	}
	if got := union(); !slices.Equal(got, []int{25, 80, 100}) {
		t.Errorf("after the delete: %v, want [25 80 100]", got)
	}
	if res := env.Do(t, "PATCH", "/workspaceapi/webhooks/"+a.ID, keyAdmin, `{}`); res.Status != 400 {
		t.Errorf("empty PATCH: %d, want 400", res.Status)
	}
}

func TestRotateKeepsTheOldSecretSigningForADay(t *testing.T) {
	env := apitest.New(t, testFixture)
	h := create(t, env, `{"url": "`+publicURL+`", "eventTypes": ["Agent Stopped"]}`)
	res := env.Do(t, "POST", "/workspaceapi/webhooks/"+h.ID+"/rotate-secret", keyAdmin, "")
	var rotated struct{ Secret string }
	res.JSON(t, &rotated)
	if res.Status != 200 || !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == *h.Secret {
		t.Fatalf("rotate: %d %s", res.Status, res.Body)
	}
	stored, err := env.Store.Webhook(t.Context(), "ws_a", h.ID)
	if err != nil {
		t.Fatal(err)
	}
	now := env.Clock.Now()
	if got := stored.ActiveSecrets(now); !slices.Equal(got, []string{rotated.Secret, *h.Secret}) {
		t.Errorf("active secrets now: %d, want the new and the old", len(got))
	}
	if got := stored.ActiveSecrets(now.Add(workspace.SecretOverlap)); !slices.Equal(got, []string{rotated.Secret}) {
		t.Errorf("active secrets a day later: %d, want the new one alone", len(got))
	}
}

func TestTestQueuesOneWebhookTestDelivery(t *testing.T) {
	env := apitest.New(t, testFixture)
	h := create(t, env, `{"url": "`+publicURL+`", "eventTypes": ["Agent Stopped"]}`)
	if res := env.Do(t, "POST", "/workspaceapi/webhooks/"+h.ID+"/test", keyAdmin, ""); res.Status != 202 {
		t.Fatalf("test: %d %s", res.Status, res.Body)
	}
	sent := env.WebhookQueue.Sent()
	if len(sent) != 1 || sent[0].Message.EventType != workspace.EventWebhookTest || sent[0].Message.WebhookID != h.ID {
		t.Fatalf("queued %+v, want one Webhook Test for %s", sent, h.ID)
	}
	res := env.Do(t, "GET", "/workspaceapi/webhooks/"+h.ID+"/deliveries", keyAdmin, "")
	if res.Status != 200 || !strings.Contains(string(res.Body), `"nextCursor":null`) {
		t.Errorf("deliveries: %d %s", res.Status, res.Body)
	}
	if res := env.Do(t, "GET", "/workspaceapi/webhooks/"+h.ID+"/deliveries?limit=0", keyAdmin, ""); res.Status != 400 {
		t.Errorf("limit=0: %d, want 400", res.Status)
	}
	if res := env.Do(t, "POST", "/workspaceapi/webhooks/wh_unknown/test", keyAdmin, ""); res.Status != 404 {
		t.Errorf("unknown test: %d, want 404", res.Status)
	}
}
