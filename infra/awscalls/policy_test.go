package awscalls_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/stack"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// The sender the session's invitation e-mails come from; the template's
// MailFrom parameter stands for it when the policies are read.
const mailFrom = "no-reply@mail.workspace.test"

const (
	adminKey   = "wk_demoAdminKey0000000000000000000000000001"
	teamKey    = "wk_demoSupportTeamKey0000000000000000000005"
	creatorKey = "wk_demoCreatorKey00000000000000000000000006"
)

// fakeSES answers SES v2 SendEmail as the service does, so the invitations
// function's real SES client (and its recorded calls) is exercised.
func fakeSES(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v2/email/outbound-emails") {
			http.Error(w, `{"message":"unknown operation"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"MessageId":"fake-ses-1"}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fakeEventBridge answers EventBridge's PutEvents (JSON 1.1) as the service
// does when it takes every entry, so the events function's real EventBridge
// client (and its recorded calls) is exercised.
func fakeEventBridge(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Entries []json.RawMessage }
		if r.Header.Get("X-Amz-Target") != "AWSEvents.PutEvents" || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, `{"message":"unknown operation"}`, http.StatusBadRequest)
			return
		}
		entries := make([]map[string]string, len(in.Entries))
		for i := range entries {
			entries[i] = map[string]string{"EventId": fmt.Sprintf("fake-%d", i)}
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_ = json.NewEncoder(w).Encode(map[string]any{"FailedEntryCount": 0, "Entries": entries})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fakeSQS answers SQS's SendMessage (JSON 1.0) as the service does, so the
// webhooks function's real SQS client (and its recorded calls) is exercised.
func fakeSQS(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ MessageBody string }
		if r.Header.Get("X-Amz-Target") != "AmazonSQS.SendMessage" || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, `{"message":"unknown operation"}`, http.StatusBadRequest)
			return
		}
		sum := md5.Sum([]byte(in.MessageBody))
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_ = json.NewEncoder(w).Encode(map[string]any{"MessageId": "fake-1", "MD5OfMessageBody": hex.EncodeToString(sum[:])})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// recordSession drives one session through every function of the stack,
// each with its own recorded DynamoDB client, and returns what they called.
// It walks the paths that reach storage differently: lists and their pages,
// team-scoped keys (which read indexes), limits that stop and pause and
// their lifting, seat refusals, batches with unknown ids, every ingest event
// type, a scheduler run that resumes, a TTL removal, and a write with an
// Idempotency-Key and its repeat in every function that serves writes.
func recordSession(t *testing.T) (calls []awscalls.Call, table string) {
	rec := &awscalls.Recorder{}
	ses := fakeSES(t)
	sesClient := sesv2.New(sesv2.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(ses.URL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, rec.SESv2("InvitesFunction"))
	bridge := fakeEventBridge(t)
	bus := eventbridge.New(eventbridge.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(bridge.URL),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, rec.EventBridge("EventsFunction"))
	sqsSrv := fakeSQS(t)
	hookQueue := func(fn string) webhookdelivery.Queue {
		return webhookdelivery.SQSQueue{Client: sqs.New(sqs.Options{
			Region: "us-east-1", BaseEndpoint: aws.String(sqsSrv.URL),
			Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
		}, rec.SQS(fn)), URL: sqsSrv.URL + "/123456789012/WebhookDeliveryQueue"}
	}
	env := apitest.New(t, apitest.DemoFixture(t), apitest.Options{
		Mailer:          mail.SES{Client: sesClient, From: mailFrom},
		Bus:             bus,
		WebhookQueueFor: hookQueue,
		FunctionOptions: func(fn string) []func(*dynamodb.Options) { return []func(*dynamodb.Options){rec.DynamoDB(fn)} },
	})
	do := func(method, path, key, body string, want ...int) *apitest.Response {
		t.Helper()
		res := env.Do(t, method, path, key, body)
		if len(want) > 0 && !slices.Contains(want, res.Status) {
			t.Fatalf("%s %s answered %d %s, want %v", method, path, res.Status, res.Body, want)
		}
		return res
	}

	// Invitations: create (with a team), list whole and paged, revoke; then
	// fill the seats until one is refused (the refusal reads the seat index).
	var created struct{ ID string }
	do("POST", "/workspaceapi/invites", adminKey, `{"email": "new.hire@acme.example", "role": "member", "teams": [{"teamId": "team_support", "role": "member"}]}`, 201).JSON(t, &created)
	do("GET", "/workspaceapi/invites", adminKey, "", 200)
	do("GET", "/workspaceapi/invites?limit=1", adminKey, "", 200)
	do("DELETE", "/workspaceapi/invites", adminKey, `{"ids": ["`+created.ID+`", "inv_unknown"]}`, 200)
	for i := 0; i < 40; i++ {
		res := do("POST", "/workspaceapi/invites", adminKey, `{"email": "seat`+string(rune('a'+i%26))+string(rune('a'+i/26))+`@acme.example", "role": "member"}`, 201, 403)
		if res.Status == 403 {
			break
		}
	}

	// Agents, with overviews, paged, and through a team-scoped key.
	do("GET", "/workspaceapi/agents?includeOverview=true", adminKey, "", 200)
	do("GET", "/workspaceapi/agents?limit=2", adminKey, "", 200)
	do("GET", "/workspaceapi/agents?includeOverview=true", teamKey, "", 200)

	// Per-agent reads.
	for _, key := range []string{adminKey, teamKey} {
		do("GET", "/workspaceapi/agents/agt_support_triage", key, "", 200)
		do("GET", "/agents/agt_support_triage", key, "", 200)
		do("GET", "/workspaceapi/agents/agt_support_triage?includeOverview=true", key, "", 200)
		do("GET", "/workspaceapi/agents/agt_support_triage/key-metrics?days=30&recent=5", key, "", 200)
		do("GET", "/workspaceapi/agents/agt_support_triage/connected-agents", key, "", 200)
		do("GET", "/workspaceapi/agents/agt_support_triage/diary?date=2026-11-21", key, "", 200)
		do("GET", "/workspaceapi/agents/agt_support_triage/diary?year=2026&month=11", key, "", 200)
		do("GET", "/workspaceapi/agents/agt_support_triage/promotion-requests", key, "", 200)
		do("GET", "/workspaceapi/agents/agt_support_triage/chats/chat_refund", key, "", 200)
		do("GET", "/workspaceapi/agents/agt_support_triage/usage?days=7", key, "", 200)
	}
	do("GET", "/workspaceapi/agents/agt_support_triage/diary?conversationId=chat_refund", adminKey, "", 200)
	do("GET", "/workspaceapi/agents/agt_support_triage/chats/chat_slack", adminKey, "", 200)
	do("GET", "/workspaceapi/agents/agt_support_triage/usage?month=2026-11", adminKey, "", 200)

	// Credits: limits that stop and resume, resets, team limits that pause
	// and resume, the report, credit details.
	do("POST", "/workspaceapi/agents/credit-limits", adminKey, `{"ids": ["agt_support_triage", "agt_kb_search", "agt_unknown"], "dailyCreditLimit": 1}`, 200)
	do("POST", "/workspaceapi/agents/credit-limits", adminKey, `{"ids": ["agt_kb_search"], "dailyCreditLimit": null, "monthlyCreditLimit": 1}`, 200)
	do("POST", "/workspaceapi/agents/daily-usage/reset", adminKey, `{"ids": ["agt_support_triage", "agt_unknown"]}`, 200)
	do("POST", "/workspaceapi/agents/credit-limits", adminKey, `{"ids": ["agt_support_triage"], "dailyCreditLimit": 1}`, 200)
	// Disable and enable: the flag, the re-evaluation and their events.
	do("POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_support_triage", "agt_unknown"], "status": "disabled"}`, 200)
	do("POST", "/workspaceapi/agents/status", teamKey, `{"ids": ["agt_support_triage"], "status": "enabled"}`, 200)
	do("PUT", "/workspaceapi/teams/team_platform/credit-limit", adminKey, `{"monthlyCreditLimit": 1}`, 200)
	do("PUT", "/workspaceapi/teams/team_growth/credit-limit", adminKey, `{"monthlyCreditLimit": 1}`, 200)
	do("PUT", "/workspaceapi/teams/team_growth/credit-limit", adminKey, `{"monthlyCreditLimit": null}`, 200)
	do("PUT", "/workspaceapi/teams/team_growth/credit-limit", adminKey, `{"monthlyCreditLimit": 1}`, 200)
	do("GET", "/workspaceapi/credits", adminKey, "", 200)
	do("GET", "/workspaceapi/credits?month=2026-10", adminKey, "", 200)
	// The usage export: the workspace's month listings (GSI1), a team's
	// (GSI2, for a team-scoped key), and the names of the rows.
	for _, key := range []string{adminKey, teamKey} {
		do("GET", "/workspaceapi/credits/export?from=2026-10-01&to=2026-11-21", key, "", 200)
		do("GET", "/workspaceapi/credits/export?from=2026-10-01&to=2026-11-21&groupBy=team", key, "", 200)
	}
	do("POST", "/workspaceapi/agents/credit-details", adminKey, `{"ids": ["agt_support_triage", "agt_unknown"], "showTokenOptimisationInfo": true}`, 200)

	// Teams and their members.
	do("GET", "/workspaceapi/teams", adminKey, "", 200)
	var team struct{ ID string }
	do("POST", "/workspaceapi/teams", adminKey, `{"name": "Research"}`, 201).JSON(t, &team)
	do("POST", "/workspaceapi/teams", adminKey, `{"name": "research"}`, 409)
	do("GET", "/workspaceapi/teams/"+team.ID, adminKey, "", 200)
	do("GET", "/workspaceapi/teams/team_support", teamKey, "", 200)
	do("PATCH", "/workspaceapi/teams/"+team.ID, adminKey, `{"name": "Research Lab"}`, 200)
	do("PUT", "/workspaceapi/teams/"+team.ID+"/members/usr_omar", adminKey, `{"role": "admin"}`, 200)
	do("PUT", "/workspaceapi/teams/"+team.ID+"/members/usr_omar", adminKey, `{"role": "member"}`, 200)
	do("DELETE", "/workspaceapi/teams/"+team.ID+"/members/usr_omar", adminKey, "", 204)
	// A Creator who is a team's admin (usr_omar, team_growth) changes it,
	// after a read of their member item; another team is refused.
	do("PATCH", "/workspaceapi/teams/team_growth", creatorKey, `{"name": "Growth"}`, 200)
	do("PUT", "/workspaceapi/teams/team_growth/members/usr_priya", creatorKey, `{"role": "member"}`, 200)
	do("PUT", "/workspaceapi/teams/team_growth/credit-limit", creatorKey, `{"monthlyCreditLimit": 1}`, 200)
	do("PATCH", "/workspaceapi/teams/team_support", creatorKey, `{"name": "Mine"}`, 403)

	// API keys: create (workspace-wide and team-scoped), use (the
	// authorizer records its first use), list, disable, enable, revoke.
	var key struct{ ID, Key string }
	do("POST", "/workspaceapi/keys", adminKey, `{"name": "Session", "scopes": ["read"]}`, 201).JSON(t, &key)
	do("POST", "/workspaceapi/keys", adminKey, `{"name": "Session team", "scopes": ["read"], "teamId": "team_support"}`, 201)
	do("GET", "/workspaceapi/keys", key.Key, "", 200)
	do("PATCH", "/workspaceapi/keys/"+key.ID, adminKey, `{"disabled": true}`, 200)
	do("PATCH", "/workspaceapi/keys/"+key.ID, adminKey, `{"name": "Session 2", "disabled": false}`, 200)
	do("DELETE", "/workspaceapi/keys/"+key.ID, adminKey, "", 204)

	// Webhooks: create, list, get, change, rotate, test, a deliveries
	// page, delete.
	var hook struct{ ID string }
	do("POST", "/workspaceapi/webhooks", adminKey, `{"url": "https://93.184.215.14/hook", "eventTypes": ["Agent Stopped"]}`, 201).JSON(t, &hook)
	do("GET", "/workspaceapi/webhooks", adminKey, "", 200)
	do("GET", "/workspaceapi/webhooks/"+hook.ID, adminKey, "", 200)
	do("PATCH", "/workspaceapi/webhooks/"+hook.ID, adminKey, `{"thresholds": [50]}`, 200)
	do("POST", "/workspaceapi/webhooks/"+hook.ID+"/rotate-secret", adminKey, "", 200)
	do("POST", "/workspaceapi/webhooks/"+hook.ID+"/test", adminKey, "", 202)
	do("GET", "/workspaceapi/webhooks/"+hook.ID+"/deliveries?limit=1", adminKey, "", 200)
	do("DELETE", "/workspaceapi/webhooks/"+hook.ID, adminKey, "", 204)

	// Members, whole, paged and team-scoped.
	do("GET", "/workspaceapi/members", adminKey, "", 200)
	do("GET", "/workspaceapi/members?limit=3", adminKey, "", 200)
	do("GET", "/workspaceapi/members", teamKey, "", 200)

	// Tags in every mode on every entity.
	for _, kind := range []string{"agents", "members", "teams"} {
		ids := map[string]string{"agents": "agt_onboarding", "members": "usr_lena", "teams": "team_support"}[kind]
		do("POST", "/workspaceapi/"+kind+"/tags", adminKey, `{"ids": ["`+ids+`", "x_unknown"], "tags": ["pilot"]}`, 200)
		do("POST", "/workspaceapi/"+kind+"/tags", adminKey, `{"ids": ["`+ids+`"], "tags": ["pilot"], "mode": "remove"}`, 200)
		do("POST", "/workspaceapi/"+kind+"/tags", adminKey, `{"ids": ["`+ids+`"], "tags": ["a", "b"], "mode": "set"}`, 200)
	}
	do("POST", "/workspaceapi/agents/tags", teamKey, `{"ids": ["agt_support_triage"], "tags": ["team"]}`, 200)

	// Idempotency keys: in every function that serves writes, a write with
	// the header claims its key and keeps its answer, and its repeat reads
	// the kept answer back (docs/idempotency.md).
	for _, w := range []struct{ method, path, body string }{
		{"POST", "/workspaceapi/invites", `{"email": "idem@acme.example", "role": "member"}`},
		{"POST", "/workspaceapi/agents/credit-details", `{"ids": ["agt_support_triage"], "showTokenOptimisationInfo": false}`},
		{"PATCH", "/workspaceapi/teams/team_platform", `{"name": "Platform Team"}`},
		{"POST", "/workspaceapi/agents/tags", `{"ids": ["agt_onboarding"], "tags": ["idem"]}`},
		{"POST", "/workspaceapi/keys", `{"name": "Idempotent", "scopes": ["read"]}`},
		{"POST", "/workspaceapi/webhooks", `{"url": "https://93.184.215.14/idem", "eventTypes": ["Agent Resumed"]}`},
	} {
		headers := map[string]string{"Authorization": "Bearer " + adminKey, httpapi.IdempotencyKeyHeader: "session-" + w.path}
		first := env.DoRaw(t, w.method, w.path, headers, w.body)
		again := env.DoRaw(t, w.method, w.path, headers, w.body)
		if first.Status >= 500 || again.Header.Get(httpapi.IdempotentReplayedHeader) != "true" {
			t.Fatalf("%s %s with an Idempotency-Key: %d %s, then %d %s, want the first answer replayed",
				w.method, w.path, first.Status, first.Body, again.Status, again.Body)
		}
	}
	do("GET", "/workspaceapi/credits", creatorKey, "", 200)

	// Ingest: every event type, a duplicate and a malformed record.
	now := env.Clock.Now()
	at := now.Add(-time.Minute).Format(time.RFC3339)
	usage := map[string]any{"type": "credits.used", "id": "perm-1", "workspaceId": "ws_acme", "agentId": "agt_release_notes",
		"credits": 50, "occurredAt": at, "chatId": "chat_refund"}
	awscalls.Invoke(t, env.URL, "IngestFunction", map[string]any{"Records": []any{
		awsevents.SQSMessage("m1", usage),
		awsevents.SQSMessage("m2", usage),
		awsevents.SQSMessage("m3", map[string]any{"type": "credits.used", "id": "perm-2", "workspaceId": "ws_acme",
			"agentId": "agt_lead_qualifier", "credits": 500, "occurredAt": at}),
		awsevents.SQSMessage("m4", map[string]any{"type": "chat.message", "id": "perm-3", "workspaceId": "ws_acme",
			"agentId": "agt_support_triage", "chatId": "chat_new", "chat": map[string]any{"shortDesc": "New"},
			"message": map[string]any{"format": "text", "body": "hello", "messageId": "msg-1", "ts": at}}),
		awsevents.SQSMessage("m5", map[string]any{"type": "diary.entry", "id": "perm-4", "workspaceId": "ws_acme",
			"agentId": "agt_support_triage", "entry": map[string]any{"id": "d-perm", "customerId": "c1", "timestamp": at,
				"type": "note", "title": "t", "details": "d", "conversationId": "chat_new"}}),
		awsevents.SQSMessage("m6", map[string]any{"type": "metric.recorded", "id": "perm-5", "workspaceId": "ws_acme",
			"agentId": "agt_support_triage", "metric": "Tickets resolved", "record": map[string]any{"id": "r-perm", "occurredAt": at, "value": 3}}),
		awsevents.SQSMessage("m7", "{not json"),
	}})

	// Provisioning: a workspace update, a member and an agent added, the
	// agent moved and removed, the member removed (their keys looked up).
	awscalls.Invoke(t, env.URL, "IngestFunction", map[string]any{"Records": []any{
		awsevents.SQSMessage("p1", map[string]any{"type": "workspace.upserted", "id": "prov-1", "workspaceId": "ws_acme",
			"version": 1, "workspace": map[string]any{"name": "Acme Inc."}}),
		awsevents.SQSMessage("p2", map[string]any{"type": "member.upserted", "id": "prov-2", "workspaceId": "ws_acme",
			"version": 1, "member": map[string]any{"id": "usr_perm", "email": "perm@acme.example", "name": "Perm", "role": "member"}}),
		awsevents.SQSMessage("p3", map[string]any{"type": "agent.upserted", "id": "prov-3", "workspaceId": "ws_acme",
			"agentId": "agt_perm", "version": 1, "agent": map[string]any{"name": "Perm"}}),
		awsevents.SQSMessage("p4", map[string]any{"type": "agent.upserted", "id": "prov-4", "workspaceId": "ws_acme",
			"agentId": "agt_perm", "version": 2, "agent": map[string]any{"teamId": "team_support"}}),
		awsevents.SQSMessage("p5", map[string]any{"type": "agent.removed", "id": "prov-5", "workspaceId": "ws_acme",
			"agentId": "agt_perm", "version": 3}),
		awsevents.SQSMessage("p6", map[string]any{"type": "member.removed", "id": "prov-6", "workspaceId": "ws_acme",
			"version": 2, "userId": "usr_perm"}),
	}})

	// The scheduler at the next day and the next month: it resumes what
	// the limits above stopped and paused.
	tomorrow := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	nextMonth := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	awscalls.Invoke(t, env.URL, "SchedulerFunction", awsevents.Scheduled("tick-1", tomorrow))
	awscalls.Invoke(t, env.URL, "SchedulerFunction", awsevents.Scheduled("tick-2", nextMonth))

	// Retention: the TTL removed a seat-holding invitation, and one that
	// held no seat.
	awscalls.Invoke(t, env.URL, "RetentionFunction", map[string]any{"Records": []any{
		awsevents.TTLRemoval("1", "ws_acme", "inv_demo_oldhire", true),
		awsevents.TTLRemoval("2", "ws_acme", "inv_demo_seatless", false),
	}})

	// The audit log, whole and by each filter: each filter reads an index
	// of its own.
	for _, q := range []string{"", "?limit=1", "?action=team.renamed", "?targetId=team_support",
		"?actorKeyId=key_acme_admin", "?targetId=team_support&action=team.renamed"} {
		do("GET", "/workspaceapi/audit-log"+q, adminKey, "", 200)
	}

	// Limit events: the stream hands the events function an outbox item's
	// insertion, which it publishes to the bus and fans out to the
	// workspace's webhooks (one subscribes to Agent Stopped).
	var kept struct{ ID string }
	do("POST", "/workspaceapi/webhooks", adminKey, `{"url": "https://93.184.215.14/kept", "eventTypes": ["Agent Stopped"]}`, 201).JSON(t, &kept)
	if got := awscalls.Invoke(t, env.URL, "EventsFunction", map[string]any{"Records": []any{
		awsevents.OutboxInsert("1", "ws_acme", "evt_session"),
	}}); string(got) != `{"batchItemFailures":[]}` {
		t.Fatalf("events function: %s", got)
	}

	// Webhook deliveries: one not yet due goes back on the queue; the last
	// retry of one whose receiver cannot be reached logs the attempt and
	// disables the subscription.
	later := env.Clock.Now().Add(time.Hour).Format(time.RFC3339Nano)
	for i, m := range []map[string]any{
		{"workspaceId": "ws_acme", "webhookId": kept.ID, "eventId": "evt_session", "eventType": "Agent Stopped", "timestamp": later, "data": map[string]any{}, "notBefore": later},
		{"workspaceId": "ws_acme", "webhookId": kept.ID, "eventId": "evt_session", "eventType": "Agent Stopped", "timestamp": later, "data": map[string]any{}, "attempt": len(workspace.RetryDelays)},
	} {
		if got := awscalls.Invoke(t, env.URL, "WebhookDeliveryFunction", map[string]any{"Records": []any{
			awsevents.SQSMessage(fmt.Sprintf("hook-%d", i), m),
		}}); string(got) != `{"batchItemFailures":[]}` {
			t.Fatalf("delivery function: %s", got)
		}
	}

	// Migrations: a key, an agent's usage and a team's name claim as
	// release 1 wrote them, which every step then migrates.
	if err := tableops.Release1(context.Background(), env.Store, "ws_acme", "key_acme_creator", "agt_release_notes", "team_growth"); err != nil {
		t.Fatal(err)
	}
	if got := awscalls.Invoke(t, env.URL, "MigrateFunction", awsevents.Scheduled("migrate-1", now)); !strings.Contains(string(got), `"done":true`) {
		t.Fatalf("migrate function: %s", got)
	}

	return rec.Calls(), env.Store.Table()
}

// TestEveryFunctionsPolicyGrantsExactlyTheCallsItMakes holds template.yaml to
// the calls each function's code makes: a call its policy does not grant
// would be AccessDenied in AWS (the scheduler's resume once lacked
// dynamodb:BatchGetItem), and a grant no call uses is privilege to drop.
func TestEveryFunctionsPolicyGrantsExactlyTheCallsItMakes(t *testing.T) {
	calls, table := recordSession(t)
	policies := readPolicies(t, filepath.Join(apitest.RepoRoot(t), "template.yaml"))

	called := map[string]bool{}
	for _, c := range calls {
		called[c.Function] = true
	}
	for _, fn := range policies.functions {
		if !called[fn] {
			t.Errorf("%s made no AWS call in the session: the session must reach every function", fn)
		}
	}

	local := func(c awscalls.Call) grant {
		res := strings.Replace(c.Resource, "table/"+table, "table", 1)
		res = strings.Replace(res, "event-bus/"+stack.LocalEventBus, "event-bus/LimitEventBus", 1)
		return grant{action: c.Action, resource: res}
	}
	used := map[string]map[grant]bool{}
	for _, c := range calls {
		g := local(c)
		if !policies.allows(c.Function, g) {
			t.Errorf("%s calls %s on %s (%s), which its policy in template.yaml does not grant", c.Function, g.action, g.resource, c.Operation)
		}
		if used[c.Function] == nil {
			used[c.Function] = map[grant]bool{}
		}
		used[c.Function][g] = true
	}
	for _, fn := range policies.functions {
		for _, g := range policies.grants[fn] {
			if g.wildcardIndex {
				t.Errorf("%s grants %s on every index of the table (index/*): name the index", fn, g.action)
				continue
			}
			if policies.requiredByConfig(fn, g) {
				continue
			}
			if !slices.ContainsFunc(slices.Collect(maps.Keys(used[fn])), g.covers) {
				t.Errorf("%s is granted %s on %s, which none of its calls uses: drop it", fn, g.action, g.resource)
			}
		}
	}
	if t.Failed() {
		for _, c := range calls {
			t.Logf("recorded: %s", c)
		}
	}
}
