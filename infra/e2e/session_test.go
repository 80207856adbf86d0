package e2e_test

import (
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

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/shared/migrate"
	"github.com/agentplatform/workspaceapi/shared/release"
)

// The demo fixture's keys (infra/fixtures/demo.json).
const (
	adminKey    = "wk_demoAdminKey0000000000000000000000000001"
	readOnlyKey = "wk_demoReadOnlyKey0000000000000000000000002"
	supportKey  = "wk_demoSupportTeamKey0000000000000000000005"
	globexKey   = "wk_demoGlobexAdminKey0000000000000000000009"
	// unknownKey is well formed, so the authorizer looks it up and finds nothing.
	unknownKey = "wk_e2eUnknownKey00000000000000000000000000"
)

func TestTheTemplateGivesEachFunctionItsEnvironment(t *testing.T) {
	root := apitest.RepoRoot(t)
	overrides := map[string]map[string]string{
		"Parameters":              {"TABLE_NAME": "from-env-json", "DYNAMODB_ENDPOINT": "http://127.0.0.1:8000"},
		"InvitesFunction":         {"MAIL_FROM": ""},
		"EventsFunction":          {"EVENT_BUS_NAME": "", "WEBHOOK_QUEUE_URL": ""},
		"WebhooksFunction":        {"WEBHOOK_QUEUE_URL": ""},
		"WebhookDeliveryFunction": {"WEBHOOK_QUEUE_URL": ""},
	}
	params := map[string]string{"InviteAcceptUrl": "https://accept.invalid/i", "InviteRetentionDays": "30"}
	configs, err := templateFunctions(filepath.Join(root, "template.yaml"), "the-table", params, overrides)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		function, setting, want string
	}{
		{"AuthorizerFunction", "TABLE_NAME", "from-env-json"},
		{"AuthorizerFunction", "DYNAMODB_ENDPOINT", "http://127.0.0.1:8000"},
		{"AuthorizerFunction", "memory", "128"},
		{"AuthorizerFunction", "timeout", "5s"},
		{"InvitesFunction", "MAIL_FROM", ""},
		{"InvitesFunction", "INVITE_ACCEPT_URL", "https://accept.invalid/i"},
		{"InvitesFunction", "INVITE_RETENTION_DAYS", "30"},
		{"InvitesFunction", "timeout", "29s"},
		{"ChatsFunction", "memory", "1769"},
		{"SchedulerFunction", "timeout", "15m0s"},
		{"IngestFunction", "memory", "256"},
		{"EventsFunction", "EVENT_BUS_NAME", ""},
	}
	for _, tc := range tests {
		cfg, ok := configs[tc.function]
		if !ok {
			t.Errorf("%s: not read from the template", tc.function)
			continue
		}
		got, set := cfg.env[tc.setting]
		switch tc.setting {
		case "memory":
			got, set = fmt.Sprint(cfg.memoryMB), true
		case "timeout":
			got, set = cfg.timeout.String(), true
		}
		if !set || got != tc.want {
			t.Errorf("%s %s: got %q (set: %v), want %q", tc.function, tc.setting, got, set, tc.want)
		}
	}
}

func TestAVariableTheTestCannotResolveIsAnError(t *testing.T) {
	tests := []struct {
		name, value string
		params      map[string]string
		want        string // "" for no error
	}{
		{"a parameter with a value", "!Ref Sender", map[string]string{"Sender": "a@mail.invalid"}, ""},
		{"a parameter with neither a default nor a value", "!Ref Sender", nil, `cannot resolve !Ref "Sender"`},
		{"!Sub of a parameter without one", `!Sub "${Sender}"`, nil, `cannot resolve !Sub "${Sender}"`},
		{"another intrinsic function", "!GetAtt Table.Arn", nil, `cannot resolve !GetAtt "Table.Arn"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "template.yaml")
			tmpl := "Parameters:\n  Sender:\n    Type: String\nResources:\n  Fn:\n    Type: AWS::Serverless::Function\n" +
				"    Properties:\n      Environment:\n        Variables:\n          MAIL_FROM: " + tc.value + "\n"
			if err := os.WriteFile(path, []byte(tmpl), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := templateFunctions(path, "t", tc.params, nil)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if (tc.want == "" && err != nil) || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// step is one request of the session through the gateway.
type step struct {
	name         string
	method, path string
	key, body    string
	want         int
	unauthorized int    // times the authorizer is expected to refuse the key
	save         string // keep the answer's "id" under this name, for {{name}} in later paths and bodies
	contains     []string
	lacks        []string
}

// TestOneSessionThroughThePackagedBinaries drives one realistic session
// through the function binaries as built for Lambda: the authorizer,
// every endpoint group, an SQS batch into IngestFunction, the daily scheduled
// event, a stream record into RetentionFunction and one into EventsFunction,
// and a custom-resource request into MigrateFunction. Any invocation error but
// the authorizer's expected Unauthorized, a panic, an exit, or a response
// over 6 MB fails it.
func TestOneSessionThroughThePackagedBinaries(t *testing.T) {
	began := time.Now()
	d := deploy(t)
	t.Logf("deployed (built, DynamoDB Local, fixture, %d processes) in %s", len(d.functions), time.Since(began).Round(time.Millisecond))
	waitPastMidnight(t, 90*time.Second)
	session := time.Now()

	t.Run("the authorizer answers API Gateway's REQUEST event", func(t *testing.T) {
		var allowed events.APIGatewayCustomAuthorizerResponse
		if err := json.Unmarshal(d.invoke(t, "AuthorizerFunction", authorizerEvent(adminKey)), &allowed); err != nil {
			t.Fatalf("decode the authorizer's answer: %v", err)
		}
		if allowed.PrincipalID != "usr_ada" || allowed.Context["workspaceId"] != "ws_acme" ||
			len(allowed.PolicyDocument.Statement) == 0 || allowed.PolicyDocument.Statement[0].Effect != "Allow" {
			t.Errorf("the admin key: got %+v, want usr_ada of ws_acme allowed", allowed)
		}
		d.invoke(t, "AuthorizerFunction", authorizerEvent(unknownKey))
		d.settle(t, "authorizer events", 1)
	})

	vars := map[string]string{}
	steps := []step{
		// Invitations.
		{name: "list invitations", method: "GET", path: "/workspaceapi/invites", key: adminKey, want: 200, contains: []string{"inv_demo_nora", "inv_demo_guest"}},
		{name: "an unknown key is refused by the authorizer", method: "GET", path: "/workspaceapi/invites", key: unknownKey, want: 401, unauthorized: 1,
			contains: []string{"missing or invalid API key"}},
		{name: "no key is refused by the gateway", method: "GET", path: "/workspaceapi/invites", want: 401},
		{name: "invite someone", method: "POST", path: "/workspaceapi/invites", key: adminKey, want: 201, save: "invite",
			body: `{"email": "hedy@acme.example", "role": "member", "teams": [{"teamId": "team_platform", "role": "member"}], "expiresInDays": 14}`},
		{name: "the same person again is refused", method: "POST", path: "/workspaceapi/invites", key: adminKey, want: 400,
			body: `{"email": "HEDY@acme.example", "role": "member"}`, contains: []string{"already has a pending invitation"}},
		{name: "a read-only key may not invite", method: "POST", path: "/workspaceapi/invites", key: readOnlyKey, want: 403,
			body: `{"email": "ann@acme.example", "role": "member"}`},
		{name: "revoke an invitation", method: "DELETE", path: "/workspaceapi/invites", key: adminKey, want: 200,
			body: `{"ids": ["inv_demo_nora", "inv_nope"]}`, contains: []string{`"succeeded":1`}},
		// Agents.
		{name: "list agents with overviews", method: "GET", path: "/workspaceapi/agents?includeOverview=true", key: adminKey, want: 200,
			contains: []string{"agt_onboarding", "overview"}},
		// Agent data.
		{name: "an agent", method: "GET", path: "/workspaceapi/agents/agt_support_triage", key: readOnlyKey, want: 200, contains: []string{"keyMetrics"}},
		{name: "an agent by the short route", method: "GET", path: "/agents/agt_support_triage", key: readOnlyKey, want: 200},
		{name: "key metrics", method: "GET", path: "/workspaceapi/agents/agt_support_triage/key-metrics?startDate=2026-11-18&endDate=2026-11-22&recent=2",
			key: readOnlyKey, want: 200, contains: []string{"Tickets resolved"}},
		{name: "connected agents", method: "GET", path: "/workspaceapi/agents/agt_support_triage/connected-agents", key: readOnlyKey, want: 200},
		{name: "the diary's month", method: "GET", path: "/workspaceapi/agents/agt_support_triage/diary?year=2026&month=11", key: readOnlyKey, want: 200},
		{name: "promotion requests", method: "GET", path: "/workspaceapi/agents/agt_support_triage/promotion-requests", key: readOnlyKey, want: 200},
		{name: "a private agent's diary is refused", method: "GET", path: "/workspaceapi/agents/agt_ada_research/diary", key: readOnlyKey, want: 403},
		// Chats.
		{name: "a chat, redacted", method: "GET", path: "/workspaceapi/agents/agt_support_triage/chats/chat_refund", key: readOnlyKey, want: 200,
			contains: []string{"chat_refund"}, lacks: []string{"sk-proj-DEMOplanted0123456789abcdef", "demo-planted-billing-secret"}},
		{name: "an unknown chat", method: "GET", path: "/workspaceapi/agents/agt_support_triage/chats/chat_nope", key: readOnlyKey, want: 404},
		// Credits.
		{name: "a daily credit limit", method: "POST", path: "/workspaceapi/agents/credit-limits", key: adminKey, want: 200,
			body: `{"ids": ["agt_onboarding"], "dailyCreditLimit": 5}`, contains: []string{`"dailyCreditLimit":5`}},
		{name: "reset today's usage", method: "POST", path: "/workspaceapi/agents/daily-usage/reset", key: adminKey, want: 200,
			body: `{"ids": ["agt_support_triage"]}`},
		{name: "a team's monthly limit", method: "PUT", path: "/workspaceapi/teams/team_growth/credit-limit", key: adminKey, want: 200,
			body: `{"monthlyCreditLimit": 500}`},
		{name: "the credits report", method: "GET", path: "/workspaceapi/credits", key: adminKey, want: 200, contains: []string{"totalCredits"}},
		{name: "a team-scoped key cannot read the report", method: "GET", path: "/workspaceapi/credits", key: supportKey, want: 403},
		{name: "an agent's usage per day", method: "GET", path: "/workspaceapi/agents/agt_support_triage/usage?days=7", key: adminKey, want: 200},
		{name: "credit details", method: "POST", path: "/workspaceapi/agents/credit-details", key: adminKey, want: 200,
			body: `{"ids": ["agt_kb_search"], "showTokenOptimisationInfo": true}`},
		// Teams.
		{name: "the workspace's API keys", method: "GET", path: "/workspaceapi/keys", key: adminKey, want: 200, contains: []string{"key_acme_admin"}},
		{name: "a new read-only API key", method: "POST", path: "/workspaceapi/keys", key: adminKey, want: 201,
			body: `{"name": "Packaged", "scopes": ["read"]}`, contains: []string{"wk_"}},
		{name: "the credits of a day as CSV", method: "GET", path: "/workspaceapi/credits/export?from=2026-11-20&to=2026-11-22", key: adminKey, want: 200},
		{name: "list teams", method: "GET", path: "/workspaceapi/teams", key: adminKey, want: 200, contains: []string{"team_support"}},
		{name: "teams are off for Globex", method: "GET", path: "/workspaceapi/teams", key: globexKey, want: 400},
		{name: "create a team", method: "POST", path: "/workspaceapi/teams", key: adminKey, want: 201, save: "team", body: `{"name": "Design"}`},
		{name: "a team name is unique whatever its case", method: "POST", path: "/workspaceapi/teams", key: adminKey, want: 409, body: `{"name": "  design "}`},
		{name: "a team with its members", method: "GET", path: "/workspaceapi/teams/team_support", key: adminKey, want: 200, contains: []string{"usr_maya"}},
		{name: "rename a team", method: "PATCH", path: "/workspaceapi/teams/{{team}}", key: adminKey, want: 200, body: `{"name": "Product Design"}`},
		{name: "add a team member", method: "PUT", path: "/workspaceapi/teams/{{team}}/members/usr_priya", key: adminKey, want: 200, body: `{"role": "member"}`},
		{name: "remove a team member", method: "DELETE", path: "/workspaceapi/teams/{{team}}/members/usr_priya", key: adminKey, want: 204},
		// Members.
		{name: "a page of members", method: "GET", path: "/workspaceapi/members?limit=2", key: adminKey, want: 200, contains: []string{"nextCursor"}},
		// Tags.
		{name: "member tags", method: "POST", path: "/workspaceapi/members/tags", key: adminKey, want: 200,
			body: `{"ids": ["usr_priya", "usr_nobody"], "tags": ["emea"]}`, contains: []string{`"failed":1`}},
		{name: "agent tags", method: "POST", path: "/workspaceapi/agents/tags", key: adminKey, want: 200, body: `{"ids": ["agt_kb_search"], "tags": ["search"]}`},
		{name: "team tags", method: "POST", path: "/workspaceapi/teams/tags", key: adminKey, want: 200,
			body: `{"ids": ["team_growth"], "tags": ["revenue"], "mode": "set"}`},
		// The audit log.
		{name: "the audit log", method: "GET", path: "/workspaceapi/audit-log?limit=5", key: adminKey, want: 200, contains: []string{"entries", "nextCursor"}},
		// The gateway alone.
		{name: "an unknown route", method: "GET", path: "/workspaceapi/nothing-here", key: adminKey, want: 404},
	}
	run := func(steps []step) {
		for _, s := range steps {
			t.Run(s.name, func(t *testing.T) {
				fill := func(s string) string {
					for k, v := range vars {
						s = strings.ReplaceAll(s, "{{"+k+"}}", v)
					}
					return s
				}
				res := d.do(t, s.method, fill(s.path), s.key, fill(s.body))
				if res.status != s.want {
					t.Errorf("%s %s: got %d %s, want %d", s.method, s.path, res.status, res.body, s.want)
				}
				for _, want := range s.contains {
					if !strings.Contains(string(res.body), want) {
						t.Errorf("%s %s: got %s, want it to contain %s", s.method, s.path, res.body, want)
					}
				}
				for _, bad := range s.lacks {
					if strings.Contains(string(res.body), bad) {
						t.Errorf("%s %s: the answer holds %q", s.method, s.path, bad)
					}
				}
				if s.save != "" {
					var created struct{ ID string }
					if err := json.Unmarshal(res.body, &created); err != nil || created.ID == "" {
						t.Fatalf("%s %s: no id in %s", s.method, s.path, res.body)
					}
					vars[s.save] = created.ID
				}
				d.settle(t, s.name, s.unauthorized)
			})
		}
	}
	run(steps)

	now := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339)
	t.Run("an SQS batch into IngestFunction fails only its malformed message", func(t *testing.T) {
		bodies := []string{
			`{"type": "credits.used", "id": "e2e-usage-1", "workspaceId": "ws_acme", "agentId": "agt_onboarding", "credits": 6, "occurredAt": "` + now + `"}`,
			`{"type": "chat.message", "id": "e2e-chat-1", "workspaceId": "ws_acme", "agentId": "agt_support_triage", "chatId": "chat_e2e",
			  "chat": {"createdDate": "` + now + `", "shortDesc": "End-to-end chat", "llmModel": "claude-fast"},
			  "message": {"format": "text", "body": "Hello from the end-to-end test", "messageId": "msg_e2e_1", "ts": "` + now + `", "senderName": "E2E"}}`,
			`{"type": "diary.entry", "id": "e2e-diary-1", "workspaceId": "ws_acme", "agentId": "agt_support_triage",
			  "entry": {"id": "dia_e2e", "customerId": "cust_e2e", "timestamp": "` + now + `", "type": "note", "title": "End-to-end note",
			  "details": "Written by the packaged ingest function.", "conversationId": "chat_e2e"}}`,
			`{"type": "metric.recorded", "id": "e2e-rec-1", "workspaceId": "ws_acme", "agentId": "agt_support_triage", "metric": "Tickets resolved",
			  "record": {"id": "rec_e2e", "occurredAt": "` + now + `", "ref": "ticket-e2e", "note": "", "value": 7}}`,
			`{"type": "credits.used", "id": "e2e-bad-1", "workspaceId": "ws_acme"`,
		}
		var got events.SQSEventResponse
		if err := json.Unmarshal(d.invoke(t, "IngestFunction", awsevents.SQSBatch(bodies...)), &got); err != nil {
			t.Fatalf("decode: %v", err)
		}
		var failed []string
		for _, f := range got.BatchItemFailures {
			failed = append(failed, f.ItemIdentifier)
		}
		if want := []string{"msg-5"}; !slices.Equal(failed, want) {
			t.Errorf("batchItemFailures: got %v, want %v (the malformed message alone)", failed, want)
		}
		d.settle(t, "SQS batch", 0)
	})
	run([]step{
		{name: "the usage stopped the agent at its limit", method: "GET", path: "/workspaceapi/agents?includeOverview=true", key: adminKey, want: 200,
			contains: []string{`"statusReason":"daily_limit"`}},
		{name: "the ingested chat", method: "GET", path: "/workspaceapi/agents/agt_support_triage/chats/chat_e2e", key: readOnlyKey, want: 200,
			contains: []string{"Hello from the end-to-end test"}},
		{name: "the ingested diary entry", method: "GET", path: "/workspaceapi/agents/agt_support_triage/diary?conversationId=chat_e2e", key: readOnlyKey, want: 200,
			contains: []string{"dia_e2e"}},
		{name: "the ingested metric record", method: "GET", path: "/workspaceapi/agents/agt_support_triage/key-metrics?days=1&recent=5", key: readOnlyKey, want: 200,
			contains: []string{"ticket-e2e"}},
	})
	if status := agentStatus(t, d, "agt_onboarding"); status != "stopped" {
		t.Errorf("agt_onboarding is %s after its usage reached its limit, want stopped", status)
	}

	t.Run("the scheduled event at the next 00:00 UTC resumes the agent", func(t *testing.T) {
		tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		var got struct {
			Now           string `json:"now"`
			ResumedAgents int    `json:"resumedAgents"`
		}
		if err := json.Unmarshal(d.invoke(t, "SchedulerFunction", awsevents.Scheduled("e2e-tick", tomorrow)), &got); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if got.ResumedAgents < 1 || !strings.HasPrefix(got.Now, tomorrow.Format("2006-01-02T00:00:00")) {
			t.Errorf("scheduler: got %+v, want a run at %s resuming at least agt_onboarding", got, tomorrow.Format(time.RFC3339))
		}
		d.settle(t, "scheduled event", 0)
		if status := agentStatus(t, d, "agt_onboarding"); status != "running" {
			t.Errorf("agt_onboarding is %s after the scheduler, want running", status)
		}
	})

	t.Run("a TTL removal of a seat holder frees its seat through RetentionFunction", func(t *testing.T) {
		ctx := t.Context()
		ws, err := d.store.Workspace(ctx, "ws_acme")
		if err != nil {
			t.Fatal(err)
		}
		key := map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "WS#ws_acme"}, "SK": &types.AttributeValueMemberS{Value: "INVITE#" + vars["invite"]},
		}
		// DynamoDB Local keeps no TTL: remove the invitation as the TTL
		// would, and hand its old image to the function as the stream does.
		old, err := d.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(d.store.Table()), Key: key, ReturnValues: types.ReturnValueAllOld,
		})
		if err != nil {
			t.Fatal(err)
		}
		if holds, ok := old.Attributes["holdsSeat"].(*types.AttributeValueMemberBOOL); !ok || !holds.Value {
			t.Fatalf("the invitation %s held no seat: %v", vars["invite"], old.Attributes)
		}
		body := d.invoke(t, "RetentionFunction", events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{awsevents.Removal("1", old.Attributes, true)}})
		if got, want := string(body), `{"batchItemFailures":[]}`; got != want {
			t.Errorf("retention: got %s, want %s", got, want)
		}
		d.settle(t, "stream event", 0)
		after, err := d.store.Workspace(ctx, "ws_acme")
		if err != nil {
			t.Fatal(err)
		}
		if after.SeatsUsed != ws.SeatsUsed-1 {
			t.Errorf("seatsUsed: got %d, want %d (one seat freed)", after.SeatsUsed, ws.SeatsUsed-1)
		}
	})
	run([]step{
		{name: "the webhooks list", method: "GET", path: "/workspaceapi/webhooks", key: adminKey, want: 200, contains: []string{`"webhooks":[]`}},
	})
	t.Run("WebhookDeliveryFunction drops a delivery whose subscription is gone", func(t *testing.T) {
		msg := `{"workspaceId": "ws_acme", "webhookId": "wh_gone", "eventId": "evt_e2e_hook", "eventType": "Webhook Test",
			"timestamp": "` + time.Now().UTC().Format(time.RFC3339) + `", "data": {}, "attempt": 0}`
		body := d.invoke(t, "WebhookDeliveryFunction", awsevents.SQSBatch(msg))
		if got, want := string(body), `{"batchItemFailures":[]}`; got != want {
			t.Errorf("webhook delivery: got %s, want %s", got, want)
		}
	})
	t.Run("a limit event's outbox insertion is published by EventsFunction", func(t *testing.T) {
		body := d.invoke(t, "EventsFunction", events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{awsevents.OutboxInsert("1", "ws_acme", "evt_e2e")}})
		if got, want := string(body), `{"batchItemFailures":[]}`; got != want {
			t.Errorf("events: got %s, want %s", got, want)
		}
		// Without EVENT_BUS_NAME (sam local's env.json) the bus is the recorder.
		if out, ok := d.functions["EventsFunction"].wrote("limit event recorded (not sent to EventBridge)", "evt_e2e"); !ok {
			t.Errorf("EventsFunction did not record the event:\n%s", out)
		}
	})
	t.Run("MigrateFunction answers its custom resource, with every step done", func(t *testing.T) {
		var got migrate.Response
		s3 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewDecoder(r.Body).Decode(&got)
		}))
		defer s3.Close()
		d.invoke(t, "MigrateFunction", map[string]any{"RequestType": "Create", "ResponseURL": s3.URL, "StackId": "stack",
			"RequestId": "e2e", "LogicalResourceId": "Migrations", "ResourceProperties": map[string]any{"Version": release.Version}})
		if got.Status != "SUCCESS" || got.Data["Pending"] != "false" || got.RequestID != "e2e" {
			t.Errorf("custom resource response: %+v", got)
		}
	})
	t.Logf("session through the binaries took %s", time.Since(session).Round(time.Millisecond))

	// Every function ran, none panicked, and the e-mail was recorded, not sent through SES.
	for _, id := range slices.Sorted(maps.Keys(d.functions)) {
		fn := d.functions[id]
		out := fn.proc.Output()
		if n := fn.proc.Invocations(); n == 0 {
			t.Errorf("%s was never invoked", id)
		}
		if strings.Contains(out, "panic") {
			t.Errorf("%s wrote a panic to its output:\n%s", id, tail(out, 8<<10))
		}
		// The time to the first response is not logged: here it includes
		// the wait for the session to reach the function.
		initDur, _ := fn.proc.ColdStart()
		t.Logf("%-20s %3d invocations, init %s", id, fn.proc.Invocations(), initDur.Round(time.Microsecond))
	}
	if out, ok := d.functions["InvitesFunction"].wrote("e-mail recorded (not sent)", "hedy@acme.example"); !ok {
		t.Errorf("InvitesFunction did not record the invitation e-mail (MAIL_FROM empty):\n%s", out)
	}
}

// agentStatus returns an agent's overview status through the gateway.
func agentStatus(t *testing.T, d *deployment, agentID string) string {
	t.Helper()
	res := d.do(t, "GET", "/workspaceapi/agents?includeOverview=true", adminKey, "")
	d.settle(t, "agents overview", 0)
	var list struct {
		Agents []struct {
			ID       string
			Overview struct{ Status string }
		}
	}
	if res.status != http.StatusOK || json.Unmarshal(res.body, &list) != nil {
		t.Fatalf("agents: got %d %s", res.status, res.body)
	}
	for _, a := range list.Agents {
		if a.ID == agentID {
			return a.Overview.Status
		}
	}
	t.Fatalf("no agent %s in %s", agentID, res.body)
	return ""
}

// authorizerEvent is the REQUEST authorizer event API Gateway sends for
// GET /workspaceapi/invites with key.
func authorizerEvent(key string) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	headers := map[string]string{
		"Authorization": "Bearer " + key, "Host": "abc123.execute-api.us-east-1.amazonaws.com", "User-Agent": "e2e",
		"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Port": "443", "X-Forwarded-Proto": "https",
	}
	multi := map[string][]string{}
	for k, v := range headers {
		multi[k] = []string{v}
	}
	return events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type:              "REQUEST",
		MethodArn:         "arn:aws:execute-api:us-east-1:123456789012:abc123/v1/GET/workspaceapi/invites",
		Resource:          "/workspaceapi/invites",
		Path:              "/workspaceapi/invites",
		HTTPMethod:        "GET",
		Headers:           headers,
		MultiValueHeaders: multi,
		RequestContext: events.APIGatewayCustomAuthorizerRequestTypeRequestContext{
			Path: "/v1/workspaceapi/invites", AccountID: "123456789012", ResourceID: "x1y2z3", Stage: "v1",
			RequestID: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef", ResourcePath: "/workspaceapi/invites", HTTPMethod: "GET", APIID: "abc123",
			Identity: events.APIGatewayCustomAuthorizerRequestTypeRequestIdentity{SourceIP: "203.0.113.7"},
		},
	}
}

// waitPastMidnight waits for the next 00:00 UTC when it is less than margin
// away: the session's usage stops an agent for the day and its checks read
// that day's figures, so a session that ran across midnight would find the
// agent resumed by the new day, not by the scheduler it tests.
func waitPastMidnight(t *testing.T, margin time.Duration) {
	t.Helper()
	now := time.Now().UTC()
	next := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	if left := next.Sub(now); left < margin {
		t.Logf("waiting %s for 00:00 UTC, so the session runs within one UTC day", left.Round(time.Second))
		time.Sleep(left + time.Second)
	}
}
