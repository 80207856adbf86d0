package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/infra/stack"
	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// testFixture is one workspace: ag_daily stops at 5 credits a day, ag_free
// has no limit, ag_team is in team t1, which pauses at 20 credits a month.
// extraEvents are its fixture events (JSON array members).
func testFixture(extraEvents string) string {
	return `{"workspaces": [{"id": "ws_i", "name": "Ingest", "seats": 5, "teamSettingsEnabled": true,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "invites": [], "apiKeys": [],
 "members": [{"id": "u1", "email": "owner@i.example", "name": "Owner", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "teams": [{"id": "t1", "name": "Team", "monthlyCreditLimit": 20, "tags": [], "members": []}],
 "agents": [` + agent("ag_daily", "null", "5", "null") + `, ` + agent("ag_free", "null", "null", "null") + `,
   ` + agent("ag_month", "null", "null", "10") + `, ` + agent("ag_team", `"t1"`, "null", "null") + `],
 "events": [` + extraEvents + `]}]}`
}

func agent(id, team, daily, monthly string) string {
	return fmt.Sprintf(`{"id": %q, "name": %q, "description": "", "imageUrl": "", "teamId": %s, "isPrivate": false,
  "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": %s, "monthlyCreditLimit": %s,
  "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []}`, id, id, team, daily, monthly)
}

// usage is a credits.used event of workspace ws_i.
func usage(id, agentID string, credits float64, at time.Time) string {
	return fmt.Sprintf(`{"type": "credits.used", "id": %q, "workspaceId": "ws_i", "agentId": %q, "credits": %g, "occurredAt": %q}`,
		id, agentID, credits, at.Format(time.RFC3339Nano))
}

// batch makes an SQS event whose records have messageIds m1, m2, ... in order.
func batch(bodies ...string) events.SQSEvent {
	var ev events.SQSEvent
	for i, b := range bodies {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: fmt.Sprintf("m%d", i+1), Body: b, EventSource: "aws:sqs",
			EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:IngestQueue", AWSRegion: "us-east-1",
		})
	}
	return ev
}

// failed lists the messageIds of a response's batchItemFailures.
func failed(res events.SQSEventResponse) []string {
	var ids []string
	for _, f := range res.BatchItemFailures {
		ids = append(ids, f.ItemIdentifier)
	}
	return ids
}

// standing returns each agent's usage today and this month and its state, as
// the credits report reads them at the env's clock.
type standing struct {
	Today, Month float64
	State        workspace.AgentState
}

func standings(t *testing.T, env *apitest.Env) map[string]standing {
	t.Helper()
	now := env.Clock.Now()
	rep, err := env.Store.CreditsReport(t.Context(), "ws_i", workspace.MonthKey(now), now)
	if err != nil {
		t.Fatalf("credits report: %v", err)
	}
	out := map[string]standing{}
	for _, a := range rep.Agents {
		out[a.Agent.ID] = standing{Today: a.Today, Month: a.Month, State: a.Credit.State()}
	}
	return out
}

var (
	running     = workspace.Running
	dailyStop   = workspace.AgentState{Status: workspace.StatusStopped, Reason: workspace.ReasonDailyLimit}
	monthlyStop = workspace.AgentState{Status: workspace.StatusStopped, Reason: workspace.ReasonMonthlyLimit}
	teamPause   = workspace.AgentState{Status: workspace.StatusPaused, Reason: workspace.ReasonTeamLimit}
)

func TestABatchReportsExactlyTheRecordsItCouldNotApply(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	handler := ingest.New(env.Store, ingest.NotStoredYet{}, env.Clock)
	now := env.Clock.Now()
	earlier := now.Add(-time.Hour)

	res, err := handler(t.Context(), batch(
		usage("e1", "ag_free", 3, earlier),                                                    // m1 applied
		`{"type": "credits.used", "id": "e2",`,                                                // m2 malformed JSON
		strings.Replace(usage("e3", "ag_free", 1, earlier), `}`, `, "creditz": 1}`, 1),        // m3 unknown field
		strings.Replace(usage("e4", "ag_free", 1, earlier), "credits.used", "credit.used", 1), // m4 unknown type
		usage("e5", "ag_nobody", 1, earlier),                                                  // m5 unknown agent
		usage("e6", "ag_free", 0, earlier),                                                    // m6 credits not > 0
		usage("e7", "ag_free", 1, now.Add(workspace.MaxUsageSkew+time.Second)),                // m7 too far in the future
		`{"type": "chat.message", "id": "e8", "workspaceId": "ws_i", "agentId": "ag_free", "chatId": "c1",
		  "message": {"format": "text", "body": "hello", "messageId": "msg1", "ts": "2026-11-21T11:00:00Z"}}`, // m8 agent data not stored yet
		usage("e9", "ag_free", 2, earlier),                           // m9 applied, summed with m1
		usage("e10", "ag_daily", 1, now.Add(workspace.MaxUsageSkew)), // m10 applied: within the skew
		usage("e11", "ag_free", -2, earlier),                         // m11 credits not > 0
	))
	if err != nil {
		t.Fatalf("handler: got error %v, want none (failures are per record)", err)
	}
	if got, want := failed(res), []string{"m2", "m3", "m4", "m5", "m6", "m7", "m8", "m11"}; !slices.Equal(got, want) {
		t.Errorf("batchItemFailures: got %q, want %q", got, want)
	}
	st := standings(t, env)
	if got := st["ag_free"]; got.Today != 5 || got.Month != 5 {
		t.Errorf("ag_free usage: got today %g month %g, want 5 and 5 (m1 + m9 only)", got.Today, got.Month)
	}
	if got := st["ag_daily"]; got.Month != 1 {
		t.Errorf("ag_daily month usage: got %g, want 1", got.Month)
	}
}

func TestABatchWithoutFailuresAnswersAnEmptyList(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	handler := ingest.New(env.Store, ingest.NotStoredYet{}, env.Clock)
	for _, tc := range []struct {
		name string
		ev   events.SQSEvent
	}{
		{"empty batch", events.SQSEvent{}},
		{"all applied", batch(usage("ok1", "ag_free", 1, env.Clock.Now()))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := handler(t.Context(), tc.ev)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(res)
			if string(body) != `{"batchItemFailures":[]}` {
				t.Errorf("response: got %s, want {\"batchItemFailures\":[]}", body)
			}
		})
	}
}

func TestAnEventIDDeliveredTwiceCountsOnce(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	handler := ingest.New(env.Store, ingest.NotStoredYet{}, env.Clock)
	at := env.Clock.Now().Add(-time.Minute)

	// Twice in one batch, then again in a later batch: every delivery is a
	// success (the queue must not redeliver it), and it counts once.
	for i, ev := range []events.SQSEvent{
		batch(usage("dup", "ag_free", 4, at), usage("dup", "ag_free", 4, at), usage("other", "ag_free", 1, at)),
		batch(usage("dup", "ag_free", 4, at)),
	} {
		res, err := handler(t.Context(), ev)
		if err != nil || len(res.BatchItemFailures) != 0 {
			t.Fatalf("delivery %d: got failures %q, error %v; want none", i+1, failed(res), err)
		}
	}
	if got := standings(t, env)["ag_free"]; got.Today != 5 {
		t.Errorf("ag_free today: got %g, want 5 (4 once, plus 1)", got.Today)
	}
}

func TestUsageStopsAnAgentAtItsLimitAndPausesItsTeam(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	handler := ingest.New(env.Store, ingest.NotStoredYet{}, env.Clock)
	at := env.Clock.Now()
	res, err := handler(t.Context(), batch(
		usage("d1", "ag_daily", 2, at), usage("d2", "ag_daily", 3, at), // reaches 5
		usage("mo1", "ag_month", 10, at), // reaches 10
		usage("t1", "ag_team", 20, at),   // reaches the team's 20
		usage("f1", "ag_free", 100, at),
	))
	if err != nil || len(res.BatchItemFailures) != 0 {
		t.Fatalf("got failures %q, error %v; want none", failed(res), err)
	}
	st := standings(t, env)
	for id, want := range map[string]workspace.AgentState{"ag_daily": dailyStop, "ag_month": monthlyStop, "ag_team": teamPause, "ag_free": running} {
		if got := st[id].State; got != want {
			t.Errorf("%s: got %+v, want %+v", id, got, want)
		}
	}
}

// recordingData is the agent-data seam recording what reaches it: the seam's
// contract (which validated events it gets), not storage.
type recordingData struct {
	chats   []ingest.ChatMessage
	diary   []ingest.DiaryEntry
	metrics []ingest.MetricRecord
}

func (r *recordingData) StoreChatMessage(_ context.Context, m ingest.ChatMessage) error {
	r.chats = append(r.chats, m)
	return nil
}

func (r *recordingData) StoreDiaryEntry(_ context.Context, e ingest.DiaryEntry) error {
	r.diary = append(r.diary, e)
	return nil
}

func (r *recordingData) StoreMetricRecord(_ context.Context, m ingest.MetricRecord) error {
	if m.Record.Metric == "missing-agent" {
		return workspace.ErrAgentNotFound
	}
	r.metrics = append(r.metrics, m)
	return nil
}

func TestValidAgentDataEventsReachTheAgentDataStore(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	data := &recordingData{}
	handler := ingest.New(env.Store, data, env.Clock)
	res, err := handler(t.Context(), batch(
		`{"type": "chat.message", "id": "c", "workspaceId": "ws_i", "agentId": "ag_free", "chatId": "chat1",
		  "message": {"format": "text", "body": "hi", "messageId": "msg1", "ts": "2026-11-21T11:00:00Z"}}`,
		`{"type": "diary.entry", "id": "d", "workspaceId": "ws_i", "agentId": "ag_free",
		  "entry": {"id": "e1", "timestamp": "2026-11-21T11:00:00Z", "type": "note", "title": "t", "details": "x"}}`,
		`{"type": "metric.recorded", "id": "r", "workspaceId": "ws_i", "agentId": "ag_free", "metric": "Resolved",
		  "record": {"id": "r1", "occurredAt": "2026-11-21T11:00:00Z"}}`,
		`{"type": "metric.recorded", "id": "r2", "workspaceId": "ws_i", "agentId": "ag_free", "metric": "missing-agent",
		  "record": {"id": "r2", "occurredAt": "2026-11-21T11:00:00Z"}}`,
		`{"type": "diary.entry", "id": "bad", "workspaceId": "ws_i", "agentId": "ag_free", "entry": {"id": "e2"}}`,
	))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := failed(res), []string{"m4", "m5"}; !slices.Equal(got, want) {
		t.Errorf("batchItemFailures: got %q, want %q (the seam's not-found, the invalid entry)", got, want)
	}
	if len(data.chats) != 1 || data.chats[0].ChatID != "chat1" || len(data.diary) != 1 || data.diary[0].Entry.ID != "e1" ||
		len(data.metrics) != 1 || data.metrics[0].Record.Value != nil {
		t.Errorf("seam got chats %+v, diary %+v, metrics %+v; want one of each", data.chats, data.diary, data.metrics)
	}
}

// Failures are logged with their context (messageId, type, workspace,
// reason) and never with the body.
func TestFailuresAreLoggedWithContextButNotTheBody(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	handler := ingest.New(env.Store, ingest.NotStoredYet{}, env.Clock)
	const secret = "do-not-log-this-text"
	_, err := handler(t.Context(), batch(
		`{"type": "chat.message", "id": "c9", "workspaceId": "ws_i", "agentId": "ag_free", "chatId": "chat1",
		  "message": {"format": "text", "body": "`+secret+`", "messageId": "msg1", "ts": "2026-11-21T11:00:00Z"}}`,
		usage("late", "ag_daily", 5, env.Clock.Now()), // stops ag_daily: a transition
	))
	if err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if strings.Contains(out, secret) {
		t.Errorf("the log holds the event body:\n%s", out)
	}
	var failure, transition bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		switch rec["msg"] {
		case "ingest event not applied":
			failure = rec["messageId"] == "m1" && rec["type"] == "chat.message" && rec["workspaceId"] == "ws_i" &&
				strings.Contains(fmt.Sprint(rec["reason"]), "not built yet")
		case "agent stopped":
			transition = rec["level"] == "INFO" && rec["agentId"] == "ag_daily" && rec["statusReason"] == workspace.ReasonDailyLimit
		}
	}
	if !failure || !transition {
		t.Errorf("logs: got failure line %v, transition line %v; want both:\n%s", failure, transition, out)
	}
}

// invoke posts an event to a function through the local gateway's
// /_local/invoke, as `sam local invoke` would, and returns its status and body.
func invoke(t *testing.T, env *apitest.Env, function string, event any) (int, []byte) {
	t.Helper()
	body, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(env.URL+"/_local/invoke/"+function, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, out
}

func TestIngestFunctionThroughTheLocalGateway(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	at := env.Clock.Now()
	status, body := invoke(t, env, "IngestFunction", batch(
		usage("g1", "ag_daily", 5, at),
		usage("g2", "ag_nobody", 1, at),
	))
	if status != http.StatusOK || string(body) != `{"batchItemFailures":[{"itemIdentifier":"m2"}]}` {
		t.Errorf("invoke: got %d %s, want 200 {\"batchItemFailures\":[{\"itemIdentifier\":\"m2\"}]}", status, body)
	}
	if got := standings(t, env)["ag_daily"]; got.Today != 5 || got.State != dailyStop {
		t.Errorf("ag_daily: got %+v, want 5 today and stopped by its daily limit", got)
	}
}

// Fixture events enter through the ingest function's code path
// (docs/fixture-format.md): usage reaching a daily limit stops the agent as
// the function would.
func TestFixtureEventsGoThroughTheIngestPath(t *testing.T) {
	now := apitest.Start
	env := apitest.New(t, testFixture(usage("fx1", "ag_daily", 2, now.Add(-time.Hour))+", "+usage("fx2", "ag_daily", 3, now)))
	if got := standings(t, env)["ag_daily"]; got.Today != 5 || got.State != dailyStop {
		t.Errorf("ag_daily after loading: got %+v, want 5 today and stopped by its daily limit", got)
	}
}

func TestFixtureEventsTheIngestPathRefusesFailTheLoad(t *testing.T) {
	tests := []struct {
		name, event, want string
	}{
		{"usage in the future", usage("fut", "ag_daily", 1, apitest.Start.Add(time.Hour)), "occurredAt must not be more than 5m0s after now"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store, _ := dynamolocal.NewStore(t)
			f, err := fixture.Parse([]byte(testFixture(tc.event)))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			clock := apitest.NewClock(apitest.Start)
			_, err = fixture.Load(ctx, store, f, clock.Now(), fixture.Options{Events: stack.EventApplier(stack.Deps{Store: store, Clock: clock})})
			if err == nil || !strings.Contains(err.Error(), "events[0]: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("load: got %v, want an error naming events[0] and containing %q", err, tc.want)
			}
		})
	}
}

// Figures of any magnitude within their bounds sum in DynamoDB, whose
// numbers hold 38 digits: credits and metric values are kept to nine
// decimal places, so a large figure after a very precise one never fails
// its event, nor every later one of the same sum.
func TestFiguresOfEveryMagnitudeSumWithoutFailing(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	handler := ingest.New(env.Store, ingest.StoredAgentData{Store: env.Store, Clock: env.Clock}, env.Clock)
	earlier := env.Clock.Now().Add(-time.Hour)
	metric := func(id string, value string) string {
		return fmt.Sprintf(`{"type": "metric.recorded", "id": %q, "workspaceId": "ws_i", "agentId": "ag_free", "metric": "Latency",
		  "record": {"id": %q, "occurredAt": %q, "value": %s}}`, id, id, earlier.Format(time.RFC3339), value)
	}
	// Credits of 25 decimal places, then (in another batch, which sums its
	// own events first) ten times 10^12: every event applies. A metric value
	// of 10^-25, then one of 10^15, whose day's sum would need 41 digits
	// unrounded.
	if res, err := handler(t.Context(), batch(usage("u0", "ag_free", 1.2345678901234567e-9, earlier))); err != nil || len(res.BatchItemFailures) > 0 {
		t.Fatalf("the first batch: %v, %v", res.BatchItemFailures, err)
	}
	var bodies []string
	for i := range 10 {
		bodies = append(bodies, usage(fmt.Sprintf("u%d", i+1), "ag_free", 1e12, earlier))
	}
	bodies = append(bodies,
		metric("v1", "1e-25"),
		metric("v2", "1e15"),
		metric("v3", "0.123456789012345"),
		metric("v4", "1e30"), // refused: past the bound
	)
	res, err := handler(t.Context(), batch(bodies...))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := failed(res), []string{"m14"}; !slices.Equal(got, want) {
		t.Errorf("batchItemFailures: got %q, want %q (only the value past its bound)", got, want)
	}
	if got := standings(t, env)["ag_free"].Month; got != 1e13 {
		t.Errorf("ag_free month usage: got %.9f, want 10^13 (a billionth is below 15 significant digits of it)", got)
	}
	// Below 10^6 a billionth counts in the total compared with the limits.
	if res, err := handler(t.Context(), batch(usage("s1", "ag_daily", 1.2345678901234567e-9, earlier), usage("s2", "ag_daily", 0.5, earlier))); err != nil || len(res.BatchItemFailures) > 0 {
		t.Fatalf("small usage: %v, %v", res.BatchItemFailures, err)
	}
	if got := standings(t, env)["ag_daily"].Today; got != 0.500000001 {
		t.Errorf("ag_daily today: got %.12f, want 0.500000001", got)
	}
}
