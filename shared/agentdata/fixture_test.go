package agentdata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const (
	keyRead  = "wk_testReadKey000000000000000000000000001"
	keyTeamA = "wk_testTeamKey000000000000000000000000001"
	keyOther = "wk_testOtherWorkspaceKey00000000000000001"
)

// secret is a key-shaped credential planted in chats.
const secret = "sk-proj-PLANTEDsecret0123456789abcdef"

// testFixture: ws_a with ag_main (team_a; metrics "resolved" (average) and
// "signups" (sum); connects to ag_private and ag_b1), ag_private (team_a,
// private, a promotion request), ag_b1 (team_b, connects to ag_main),
// ag_team (team_a, discoverable by its team), ag_none (no team,
// discoverability none); ws_b has ag_other. Its events put a chat in
// three formats on ag_main.
var testFixture = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha", "seats": 10, "teamSettingsEnabled": true, "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_admin", "email": "admin@alpha.example", "name": "Ada", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [
   {"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": [], "members": []},
   {"id": "team_b", "name": "Support", "monthlyCreditLimit": null, "tags": [], "members": []}],
  "agents": [
   {"id": "ag_main", "name": "Main", "description": "the main one", "imageUrl": "", "teamId": "team_a", "isPrivate": false,
    "agentDiscoverability": "workspace", "tags": ["core"], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false,
    "keyMetrics": [{"name": "resolved", "description": "tickets resolved", "measurement": {"unit": "minutes", "aggregation": "average"}},
                   {"name": "signups", "description": "new signups", "measurement": {"unit": "users", "aggregation": "sum"}}],
    "connections": ["ag_private", "ag_b1"], "promotionRequests": []},
   {"id": "ag_private", "name": "Private", "description": "", "imageUrl": "", "teamId": "team_a", "isPrivate": true,
    "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false,
    "keyMetrics": [], "connections": [], "promotionRequests": [{"id": "pr_1", "requestedByUserId": "u_admin", "requestedAt": "2026-11-01T10:00:00Z", "status": "pending", "note": "please"}]},
   {"id": "ag_b1", "name": "B1", "description": "", "imageUrl": "", "teamId": "team_b", "isPrivate": false,
    "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false,
    "keyMetrics": [], "connections": ["ag_main"], "promotionRequests": []},
   {"id": "ag_team", "name": "Team", "description": "", "imageUrl": "", "teamId": "team_a", "isPrivate": false,
    "agentDiscoverability": "team", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false,
    "keyMetrics": [], "connections": ["ag_main"], "promotionRequests": []},
   {"id": "ag_none", "name": "None", "description": "", "imageUrl": "", "teamId": null, "isPrivate": false,
    "agentDiscoverability": "none", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false,
    "keyMetrics": [], "connections": ["ag_main"], "promotionRequests": []}],
  "invites": [],
  "apiKeys": [
   {"key": "` + keyRead + `", "name": "read", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeamA + `", "name": "team", "userId": "u_admin", "scopes": ["read"], "teamId": "team_a", "expiresAt": null, "disabled": false}],
  "events": [
   {"type": "chat.message", "id": "ev_c1", "workspaceId": "ws_a", "agentId": "ag_main", "chatId": "chat_1",
    "chat": {"createdDate": "2026-11-20T09:00:00Z", "shortDesc": "CRM lookup", "llmModel": "fast"},
    "message": {"format": "text", "body": "hello, my key is ` + secret + `", "messageId": "m1", "appUserId": "u_admin", "ts": "2026-11-20T09:00:01Z", "senderName": "Ada"}},
   {"type": "chat.message", "id": "ev_c2", "workspaceId": "ws_a", "agentId": "ag_main", "chatId": "chat_1",
    "message": {"format": "anthropic", "body": {"role": "assistant", "content": [{"type": "tool_use", "id": "tu1", "name": "crm", "input": {"apiKey": "plain-credential", "q": "acme"}}]},
     "messageId": "m2", "ts": "2026-11-20T09:00:02Z", "tokenMetadata": {"inputTokens": 12}}},
   {"type": "chat.message", "id": "ev_c3", "workspaceId": "ws_a", "agentId": "ag_main", "chatId": "chat_1",
    "message": {"format": "openai", "body": {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "login", "arguments": "{\"password\":\"plain-credential\",\"user\":\"ann\"}"}}]},
     "messageId": "m3", "ts": "2026-11-20T09:00:03Z"}},
   {"type": "credits.used", "id": "ev_u1", "workspaceId": "ws_a", "agentId": "ag_main", "credits": 2.5, "occurredAt": "2026-11-20T09:00:04Z", "chatId": "chat_1"}
  ]},
 {"id": "ws_b", "name": "Beta", "seats": 5, "teamSettingsEnabled": false, "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_b", "email": "b@beta.example", "name": "B", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [],
  "agents": [{"id": "ag_other", "name": "Other", "description": "", "imageUrl": "", "teamId": null, "isPrivate": false,
    "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false,
    "keyMetrics": [], "connections": [], "promotionRequests": []}],
  "invites": [],
  "apiKeys": [{"key": "` + keyOther + `", "name": "b", "userId": "u_b", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`

func newEnv(t testing.TB) *apitest.Env {
	t.Helper()
	return apitest.New(t, testFixture)
}

// get GETs path with key and decodes a 200 answer into v (when not nil).
func get(t *testing.T, env *apitest.Env, path, key string, want int, v any) *apitest.Response {
	t.Helper()
	res := env.Do(t, http.MethodGet, path, key, "")
	if res.Status != want {
		t.Fatalf("GET %s: %d %s, want %d", path, res.Status, res.Body, want)
	}
	if v != nil {
		res.JSON(t, v)
	}
	return res
}

// ingestEvents sends events through the ingest function's handler, one SQS
// record each, and fails the test on any batch item failure.
func ingestEvents(t testing.TB, env *apitest.Env, evs ...any) {
	t.Helper()
	h := ingest.New(env.Store, ingest.StoredAgentData{Store: env.Store, Clock: env.Clock}, env.Clock)
	var sqs events.SQSEvent
	for i, ev := range evs {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		sqs.Records = append(sqs.Records, events.SQSMessage{MessageId: fmt.Sprint("msg", i), Body: string(b)})
	}
	res, err := h(context.Background(), sqs)
	if err != nil || len(res.BatchItemFailures) > 0 {
		t.Fatalf("ingest: %v, failures %v", err, res.BatchItemFailures)
	}
}

// record is a metric.recorded event of ag_main.
func record(id, metric string, at time.Time, value *float64) map[string]any {
	rec := map[string]any{"id": id, "occurredAt": workspace.FormatTime(at), "ref": "r", "note": "n"}
	if value != nil {
		rec["value"] = *value
	}
	return map[string]any{"type": "metric.recorded", "id": "ev_" + id, "workspaceId": "ws_a", "agentId": "ag_main", "metric": metric, "record": rec}
}

func num(f float64) *float64 { return &f }

// apiStart is the Env's clock start.
func apiStart() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }
