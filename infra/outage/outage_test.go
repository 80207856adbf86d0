// Package outage_test holds the service to its storage-outage rule: when the
// table cannot be reached or keeps failing, a request answers 503
// {"error"} with Retry-After within 3 seconds, never a 200 whose every result
// failed, never a half-written entity; a batch cut in the middle answers 200
// with exactly its unwritten ids failed; ingest reports exactly the records
// it could not apply and a redelivery counts nothing twice; a scheduler run
// cut part way finishes on the next run. Faults are injected on the wire by
// an SDK middleware (dynamolocal.Faults) on every function but the
// authorizer, whose own outage the gateway answers.
package outage_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

const adminKey = "wk_demoAdminKey0000000000000000000000000001"

// deadline is how soon an outage must be answered (the function's own
// latency, from its request log line); wallBound what the test tolerates
// through the local gateway on a loaded machine, which adds the authorizer's
// own bounded wait, the start of any new function environment the
// concurrent requests need (its init reads the cursor key, bounded too),
// and the wait for a CPU under make test's parallel packages.
const (
	deadline  = 3 * time.Second
	wallBound = 15 * time.Second
)

// requestLine is what the test reads of a function's request log line.
type requestLine struct {
	Msg       string  `json:"msg"`
	Route     string  `json:"route"`
	Status    int     `json:"status"`
	LatencyMs float64 `json:"latencyMs"`
}

// requestLogs collects the functions' request log lines.
type requestLogs struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines []requestLine
}

func (l *requestLogs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadBytes('\n')
		if err != nil {
			l.buf.Write(line) // an incomplete line waits for its end
			return len(p), nil
		}
		var r requestLine
		if json.Unmarshal(line, &r) == nil && r.Msg == "request" {
			l.lines = append(l.lines, r)
		}
	}
}

// take returns the lines collected since the last take.
func (l *requestLogs) take() []requestLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

// captureRequestLogs makes the functions log JSON to a collector for t.
func captureRequestLogs(t *testing.T) *requestLogs {
	logs := &requestLogs{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return logs
}

// newEnv starts the API over the demo fixture with faults on the wire of
// every function but the authorizer and those named in spare.
func newEnv(t *testing.T, spare ...string) (*apitest.Env, *dynamolocal.Faults) {
	spare = append(spare, "AuthorizerFunction")
	t.Helper()
	faults := &dynamolocal.Faults{}
	t.Cleanup(faults.Close)
	// The production bounds, which test clients relax for DynamoDB Local's
	// queueing: the rule is the deployed service's.
	opts := []func(*dynamodb.Options){dynamo.WithBounds(dynamo.ProductionBounds), faults.Option()}
	env := apitest.New(t, apitest.DemoFixture(t), apitest.Options{
		FunctionOptions: func(fn string) []func(*dynamodb.Options) {
			for _, s := range spare {
				if s == fn {
					return nil
				}
			}
			return opts
		},
	})
	return env, faults
}

// family is one request of an endpoint family.
type family struct{ name, method, path, body string }

var families = []family{
	{"invites list", "GET", "/workspaceapi/invites", ""},
	{"invite create", "POST", "/workspaceapi/invites", `{"email": "outage@acme.example", "role": "member"}`},
	{"invites revoke", "DELETE", "/workspaceapi/invites", `{"ids": ["inv_demo_nora"]}`},
	{"agents list", "GET", "/workspaceapi/agents?includeOverview=true", ""},
	{"agent", "GET", "/workspaceapi/agents/agt_support_triage", ""},
	{"key metrics", "GET", "/workspaceapi/agents/agt_support_triage/key-metrics", ""},
	{"connected agents", "GET", "/workspaceapi/agents/agt_support_triage/connected-agents", ""},
	{"diary", "GET", "/workspaceapi/agents/agt_support_triage/diary?year=2026&month=11", ""},
	{"promotion requests", "GET", "/workspaceapi/agents/agt_support_triage/promotion-requests", ""},
	{"chat", "GET", "/workspaceapi/agents/agt_support_triage/chats/chat_refund", ""},
	{"agent usage", "GET", "/workspaceapi/agents/agt_support_triage/usage", ""},
	{"credit limits", "POST", "/workspaceapi/agents/credit-limits", `{"ids": ["agt_kb_search", "agt_onboarding"], "dailyCreditLimit": 7}`},
	{"daily-usage reset", "POST", "/workspaceapi/agents/daily-usage/reset", `{"ids": ["agt_support_triage"]}`},
	{"credit details", "POST", "/workspaceapi/agents/credit-details", `{"ids": ["agt_kb_search"], "showTokenOptimisationInfo": true}`},
	{"team credit limit", "PUT", "/workspaceapi/teams/team_growth/credit-limit", `{"monthlyCreditLimit": 1}`},
	{"credits report", "GET", "/workspaceapi/credits", ""},
	{"teams list", "GET", "/workspaceapi/teams", ""},
	{"team create", "POST", "/workspaceapi/teams", `{"name": "Outage"}`},
	{"team", "GET", "/workspaceapi/teams/team_support", ""},
	{"team rename", "PATCH", "/workspaceapi/teams/team_growth", `{"name": "Outage Growth"}`},
	{"team member set", "PUT", "/workspaceapi/teams/team_growth/members/usr_lena", `{"role": "member"}`},
	{"team member remove", "DELETE", "/workspaceapi/teams/team_support/members/usr_lena", ""},
	{"members list", "GET", "/workspaceapi/members", ""},
	{"agent tags", "POST", "/workspaceapi/agents/tags", `{"ids": ["agt_kb_search"], "tags": ["outage"]}`},
	{"member tags", "POST", "/workspaceapi/members/tags", `{"ids": ["usr_lena"], "tags": ["outage"]}`},
	{"team tags", "POST", "/workspaceapi/teams/tags", `{"ids": ["team_support"], "tags": ["outage"]}`},
}

// TestEveryEndpointFamilyAnswers503WithRetryAfterWithinThreeSecondsWhileStorageFails
// cuts storage off in each way it fails (throttling, 500s, answers too late,
// a hung connection, a refused one) and sends every family's request. The 3
// seconds are the function's own: its request log line's latency, which is
// what the deployed Lambda takes (the local gateway and a machine loaded by
// other tests add their own time on top, bounded loosely here).
func TestEveryEndpointFamilyAnswers503WithRetryAfterWithinThreeSecondsWhileStorageFails(t *testing.T) {
	logs := captureRequestLogs(t)
	for _, fault := range dynamolocal.AllFaults {
		t.Run(fault.String(), func(t *testing.T) {
			env, faults := newEnv(t)
			faults.Arm(fault, 0)
			// The families a few at a time, as a busy API meets an outage
			// (and so that the hung ones wait together).
			type answer struct {
				res  *apitest.Response
				took time.Duration
			}
			answers := make([]answer, len(families))
			var wg sync.WaitGroup
			slots := make(chan struct{}, 6)
			for i, f := range families {
				wg.Go(func() {
					slots <- struct{}{}
					defer func() { <-slots }()
					start := time.Now()
					res := env.Do(t, f.method, f.path, adminKey, f.body)
					answers[i] = answer{res, time.Since(start)}
				})
			}
			wg.Wait()
			for i, f := range families {
				res, took := answers[i].res, answers[i].took
				if res.Status != http.StatusServiceUnavailable {
					t.Errorf("%s: %s %s answered %d %s, want 503", f.name, f.method, f.path, res.Status, res.Body)
				}
				if res.Header.Get("Retry-After") == "" {
					t.Errorf("%s: %s %s: no Retry-After header", f.name, f.method, f.path)
				}
				if took > wallBound {
					t.Errorf("%s: %s %s took %v through the local gateway, want well under %v", f.name, f.method, f.path, took.Round(time.Millisecond), wallBound)
				}
				if strings.Contains(string(res.Body), "127.0.0.1") || strings.Contains(string(res.Body), "Exception") {
					t.Errorf("%s: %s %s: the 503 shows internals: %s", f.name, f.method, f.path, res.Body)
				}
			}
			answered := 0
			for _, l := range logs.take() {
				if l.Status != http.StatusServiceUnavailable {
					continue
				}
				answered++
				if l.LatencyMs > float64(deadline.Milliseconds()) {
					t.Errorf("%s answered 503 after %.0f ms in the function, want at most %v", l.Route, l.LatencyMs, deadline)
				}
			}
			if answered < len(families) {
				t.Errorf("%d request log lines of a 503, want one per family (%d)", answered, len(families))
			}
			// Nothing of the refused writes landed: storage back, every
			// entity they aimed at is as the fixture left it.
			faults.Disarm()
			checkUnwritten(t, env)
		})
	}
}

// checkUnwritten fails when a write of families landed.
func checkUnwritten(t *testing.T, env *apitest.Env) {
	t.Helper()
	body := func(path string) string {
		return string(env.Do(t, "GET", path, adminKey, "").Body)
	}
	for path, absent := range map[string][]string{
		"/workspaceapi/invites":                  {"outage@acme.example"},
		"/workspaceapi/teams":                    {"Outage", `"outage"`},
		"/workspaceapi/members":                  {`"outage"`},
		"/workspaceapi/agents?includeOverview=1": {`"outage"`},
	} {
		got := body(path)
		for _, s := range absent {
			if strings.Contains(got, s) {
				t.Errorf("GET %s shows %s, written by a request that answered 503: %s", path, s, got)
			}
		}
	}
	var team struct {
		MonthlyCreditLimit *float64
		Members            []struct{ UserID string }
	}
	if err := json.Unmarshal([]byte(body("/workspaceapi/teams/team_support")), &team); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range team.Members {
		found = found || m.UserID == "usr_lena"
	}
	if !found {
		t.Error("usr_lena left team_support by a request that answered 503")
	}
}

// TestABatchCutByAnOutageAnswers200WithExactlyTheUnwrittenIdsFailed lets
// the first write of a batch through and fails the rest: the answer is 200,
// its successes are exactly what storage holds, and the failures carry the
// retry message.
func TestABatchCutByAnOutageAnswers200WithExactlyTheUnwrittenIdsFailed(t *testing.T) {
	env, faults := newEnv(t)
	ids := []string{"agt_support_triage", "agt_kb_search", "agt_release_notes", "agt_lead_qualifier", "agt_onboarding"}
	for _, tc := range []struct {
		name, path, body string
		op               string
		// written reports whether id's write is in storage.
		written func(t *testing.T, id string) bool
	}{
		{"credit limits", "/workspaceapi/agents/credit-limits", `{"ids": %s, "dailyCreditLimit": 33}`, "TransactWriteItems",
			func(t *testing.T, id string) bool {
				a, err := env.Store.Agent(t.Context(), "ws_acme", id)
				if err != nil {
					t.Fatal(err)
				}
				return a.DailyCreditLimit != nil && *a.DailyCreditLimit == 33
			}},
		{"agent tags", "/workspaceapi/agents/tags", `{"ids": %s, "tags": ["cut"]}`, "TransactWriteItems",
			func(t *testing.T, id string) bool {
				a, err := env.Store.Agent(t.Context(), "ws_acme", id)
				if err != nil {
					t.Fatal(err)
				}
				return len(a.Tags) > 0 && a.Tags[len(a.Tags)-1] == "cut"
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, _ := json.Marshal(ids)
			faults.Arm(dynamolocal.ServerError, 1, tc.op)
			res := env.Do(t, "POST", tc.path, adminKey, fmt.Sprintf(tc.body, list))
			faults.Disarm()
			if res.Status != http.StatusOK {
				t.Fatalf("answered %d %s, want 200 (one id was written)", res.Status, res.Body)
			}
			var out struct {
				Results []struct {
					ID      string
					Success bool
					Error   string
				}
				Summary struct{ Succeeded, Failed int }
			}
			res.JSON(t, &out)
			if out.Summary.Succeeded != 1 || out.Summary.Failed != len(ids)-1 {
				t.Errorf("summary %+v, want 1 succeeded and %d failed", out.Summary, len(ids)-1)
			}
			for _, r := range out.Results {
				if got := tc.written(t, r.ID); got != r.Success {
					t.Errorf("%s: success %v, but written %v", r.ID, r.Success, got)
				}
				if !r.Success && r.Error != workspace.ErrStorageUnavailable.Error() {
					t.Errorf("%s failed with %q, want the retry message %q", r.ID, r.Error, workspace.ErrStorageUnavailable.Error())
				}
			}
		})
	}
}

// TestIngestReportsExactlyTheRecordsItCouldNotApplyAndARedeliveryCountsNothingTwice
// fails storage part way through a batch, redelivers what the function named
// (and, as SQS may, one it applied), and checks every credit counted once.
func TestIngestReportsExactlyTheRecordsItCouldNotApplyAndARedeliveryCountsNothingTwice(t *testing.T) {
	env, faults := newEnv(t)
	at := env.Clock.Now().Add(-time.Minute).Format(time.RFC3339)
	agents := []string{"agt_kb_search", "agt_release_notes", "agt_lead_qualifier", "agt_onboarding"}
	before := map[string]float64{}
	for _, a := range agents {
		before[a] = creditsToday(t, env, a)
	}
	var records []any
	byID := map[string]any{}
	for i := range 12 {
		agent := agents[i%len(agents)]
		ev := map[string]any{"type": "credits.used", "id": fmt.Sprintf("outage-%d", i), "workspaceId": "ws_acme",
			"agentId": agent, "credits": 1, "occurredAt": at}
		if i%3 == 2 {
			ev = map[string]any{"type": "diary.entry", "id": fmt.Sprintf("outage-%d", i), "workspaceId": "ws_acme",
				"agentId": agent, "entry": map[string]any{"id": fmt.Sprintf("d-out-%d", i), "customerId": "c", "timestamp": at,
					"type": "note", "title": "t", "details": "d"}}
		}
		rec := awsevents.SQSMessage(fmt.Sprintf("m%d", i), ev)
		records = append(records, rec)
		byID[fmt.Sprintf("m%d", i)] = rec
	}
	faults.Arm(dynamolocal.ServerError, 2, "TransactWriteItems")
	out := awscalls.Invoke(t, env.URL, "IngestFunction", map[string]any{"Records": records})
	faults.Disarm()
	var res struct {
		BatchItemFailures []struct{ ItemIdentifier string }
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.BatchItemFailures) == 0 || len(res.BatchItemFailures) == len(records) {
		t.Fatalf("%d of %d records failed, want some: the fault let two writes through", len(res.BatchItemFailures), len(records))
	}
	// Redeliver the failed records and one that was applied.
	var again []any
	failed := map[string]bool{}
	for _, f := range res.BatchItemFailures {
		failed[f.ItemIdentifier] = true
		again = append(again, byID[f.ItemIdentifier])
	}
	for i := range records {
		if id := fmt.Sprintf("m%d", i); !failed[id] {
			again = append(again, byID[id])
			break
		}
	}
	out = awscalls.Invoke(t, env.URL, "IngestFunction", map[string]any{"Records": again})
	if string(out) != `{"batchItemFailures":[]}` {
		t.Fatalf("redelivery answered %s, want no failures", out)
	}
	for i, a := range agents {
		want := before[a]
		for j := i; j < 12; j += len(agents) {
			if j%3 != 2 {
				want++
			}
		}
		if got := creditsToday(t, env, a); got != want {
			t.Errorf("%s: creditsToday %v, want %v (every usage event counted once)", a, got, want)
		}
	}
}

func creditsToday(t *testing.T, env *apitest.Env, agent string) float64 {
	t.Helper()
	var body struct {
		Agents []struct {
			ID           string
			CreditsToday float64
		}
	}
	env.Do(t, "GET", "/workspaceapi/credits", adminKey, "").JSON(t, &body)
	for _, a := range body.Agents {
		if a.ID == agent {
			return a.CreditsToday
		}
	}
	t.Fatalf("agent %s not in the credits report", agent)
	return 0
}

// TestASchedulerRunCutPartWayFinishesItsWorkOnTheNextRun stops agents by
// their daily limits, fails the scheduler's writes after the first, and
// runs it again.
func TestASchedulerRunCutPartWayFinishesItsWorkOnTheNextRun(t *testing.T) {
	env, faults := newEnv(t)
	ids := []string{"agt_support_triage", "agt_kb_search", "agt_release_notes", "agt_lead_qualifier", "agt_onboarding"}
	list, _ := json.Marshal(ids)
	now := env.Clock.Now()
	var usage []any
	for i, id := range ids {
		usage = append(usage, awsevents.SQSMessage(fmt.Sprintf("u%d", i), map[string]any{"type": "credits.used",
			"id": "stop-" + id, "workspaceId": "ws_acme", "agentId": id, "credits": 2, "occurredAt": now.Add(-time.Minute).Format(time.RFC3339)}))
	}
	// The setup runs under the production bounds too: on a loaded machine a
	// call may time out, as in AWS, and be sent again (the limits are the
	// same, SQS redelivers, an event counts once) until every agent stands
	// stopped; otherwise the cut run would have nothing to resume.
	for attempt := 1; ; attempt++ {
		env.Do(t, "POST", "/workspaceapi/agents/credit-limits", adminKey, `{"ids": `+string(list)+`, "dailyCreditLimit": 1}`)
		awscalls.Invoke(t, env.URL, "IngestFunction", map[string]any{"Records": usage})
		stopped := stoppedByDailyLimit(t, env)
		if len(stopped) == len(ids) {
			break
		}
		if attempt == 5 {
			t.Fatalf("after %d tries only %v stand stopped by their daily limit, want all of %v", attempt, stopped, ids)
		}
	}
	tomorrow := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	event, _ := json.Marshal(awsevents.Scheduled("cut", tomorrow))

	faults.Arm(dynamolocal.ServerError, 1, "TransactWriteItems")
	res, err := http.Post(env.URL+"/_local/invoke/SchedulerFunction", "application/json", strings.NewReader(string(event)))
	faults.Disarm()
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadGateway {
		t.Errorf("the cut run answered %d, want 502 (the function failed, so Lambda retries it)", res.StatusCode)
	}
	var second struct{ ResumedAgents int }
	if err := json.Unmarshal(awscalls.Invoke(t, env.URL, "SchedulerFunction", json.RawMessage(event)), &second); err != nil {
		t.Fatal(err)
	}
	if second.ResumedAgents == 0 {
		t.Error("the next run resumed nothing; the cut run left agents stopped")
	}
	env.Clock.Advance(tomorrow.Sub(now) + time.Second)
	for _, id := range stoppedByDailyLimit(t, env) {
		t.Errorf("%s is still stopped by its daily limit after the next run", id)
	}
}

// stoppedByDailyLimit lists the agents the credits report shows stopped by
// their daily limit.
func stoppedByDailyLimit(t *testing.T, env *apitest.Env) []string {
	t.Helper()
	var report struct {
		Agents []struct {
			ID, Status   string
			StatusReason *string
		}
	}
	env.Do(t, "GET", "/workspaceapi/credits", adminKey, "").JSON(t, &report)
	var out []string
	for _, a := range report.Agents {
		if a.StatusReason != nil && *a.StatusReason == "daily_limit" {
			out = append(out, a.ID)
		}
	}
	return out
}
