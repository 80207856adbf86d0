package limitevents_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/limitevents"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// Keys of infra/fixtures/standings.json: ws_a has a default daily limit of
// 20; ag_daily (team_a, daily limit 5), ag_free (no team, no limit of its
// own), ag_support1 and ag_support2 (team_b, monthly limit 10).
const (
	keyAdmin = "wk_testAdminKey00000000000000000000000001"
)

// newEnv runs the API over the standings fixture with the table's stream
// feeding the events function, as `make run` does.
func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.New(t, apitest.Fixture(t, "standings.json"), apitest.Options{Streams: true})
}

// ingest sends credits.used events through the ingest function's SQS
// handler, one SQS batch (of one message each) per event, as the queue
// does: up to ingestConcurrency invocations at once, and a message the
// function reports failed delivered again, up to the queue's five receives.
func ingest(t *testing.T, env *apitest.Env, agent string, credits []float64) {
	t.Helper()
	var wg sync.WaitGroup
	slots := make(chan struct{}, ingestConcurrency)
	at := env.Clock.Now().Format(time.RFC3339)
	for i, c := range credits {
		id := fmt.Sprintf("%s-%d-%d", agent, env.Clock.Now().UnixNano(), i)
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			var got []byte
			for receive := 1; receive <= 5; receive++ {
				got = awscalls.Invoke(t, env.URL, "IngestFunction", map[string]any{"Records": []any{awsevents.SQSMessage("m-"+id, map[string]any{
					"type": "credits.used", "id": id, "workspaceId": "ws_a", "agentId": agent, "credits": c, "occurredAt": at,
				})}})
				if string(got) == `{"batchItemFailures":[]}` {
					return
				}
			}
			t.Errorf("ingest %s: still failed after five receives: %s", id, got)
		})
	}
	wg.Wait()
	env.Clock.Advance(time.Second)
}

// ingestConcurrency is how many invocations the tests' queue drives at
// once: enough for every race, few enough for DynamoDB Local, which queues
// the transactions DynamoDB would cancel, to answer within the function's
// timeout on a small machine.
const ingestConcurrency = 10

func do(t *testing.T, env *apitest.Env, method, path, body string) {
	t.Helper()
	if res := env.Do(t, method, path, keyAdmin, body); res.Status != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
	}
}

// line is a published event as the tests compare it.
func line(p limitevents.Published) string {
	var d limitevents.Detail
	_ = json.Unmarshal(p.Detail, &d)
	s := fmt.Sprintf("%s %s/%s %s", p.DetailType, d.Target.Type, d.Target.ID, d.Reason)
	if d.Threshold > 0 {
		s += fmt.Sprintf(" %d%% of %s", d.Threshold, show(d.Limit))
	} else {
		s += fmt.Sprintf(" credits=%g limit=%s", d.Credits, show(d.Limit))
	}
	if d.Status != "" {
		s += " -> " + d.Status
	}
	return s
}

func show(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

// waitEvents waits until the bus took n events, then a moment more, and
// returns them (as lines, in publishing order); it fails the test when
// fewer arrive, or more.
func waitEvents(t *testing.T, env *apitest.Env, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(env.Events.Events()) < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // anything more would show up by now
	var out []string
	for _, p := range env.Events.Events() {
		out = append(out, line(p))
	}
	if len(out) != n {
		t.Fatalf("%d events published, want %d:\n%s", len(out), n, strings.Join(out, "\n"))
	}
	return out
}

func sameEvents(t *testing.T, got, want []string) {
	t.Helper()
	got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEveryLimitChangeAndThresholdIsPublishedOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	// ag_daily: 80% of its daily limit of 5, then 100%: it stops.
	ingest(t, env, "ag_daily", []float64{4})
	ingest(t, env, "ag_daily", []float64{1})
	// Past 100% again the same day: no new threshold, no new stop.
	ingest(t, env, "ag_daily", []float64{1})
	do(t, env, http.MethodPost, "/workspaceapi/agents/status", `{"ids": ["ag_daily"], "status": "disabled"}`)
	do(t, env, http.MethodPost, "/workspaceapi/agents/status", `{"ids": ["ag_daily"], "status": "enabled"}`)
	// A reset resumes it; crossing 80% again that day publishes nothing.
	do(t, env, http.MethodPost, "/workspaceapi/agents/daily-usage/reset", `{"ids": ["ag_daily"]}`)
	ingest(t, env, "ag_daily", []float64{4.5})
	// team_b (monthly limit 10): 80%, then 100%: the team pauses; removing
	// its limit resumes it.
	ingest(t, env, "ag_support1", []float64{8})
	ingest(t, env, "ag_support2", []float64{2})
	do(t, env, http.MethodPut, "/workspaceapi/teams/team_b/credit-limit", `{"monthlyCreditLimit": null}`)
	// A limit lowered below usage stops the agent and puts it past both thresholds.
	do(t, env, http.MethodPost, "/workspaceapi/agents/credit-limits", `{"ids": ["ag_support1"], "dailyCreditLimit": 8}`)

	got := waitEvents(t, env, 13)
	sameEvents(t, got, []string{
		"Credit Threshold Reached agent/ag_daily daily_limit 80% of 5",
		"Credit Threshold Reached agent/ag_daily daily_limit 100% of 5",
		"Agent Stopped agent/ag_daily daily_limit credits=5 limit=5 -> stopped",
		"Agent Disabled agent/ag_daily disabled credits=6 limit=5 -> disabled",
		"Agent Enabled agent/ag_daily disabled credits=6 limit=5 -> stopped",
		"Agent Resumed agent/ag_daily daily_limit credits=0 limit=5 -> running",
		"Credit Threshold Reached team/team_b team_limit 80% of 10",
		"Credit Threshold Reached team/team_b team_limit 100% of 10",
		"Team Paused team/team_b team_limit credits=10 limit=10",
		"Team Resumed team/team_b team_limit credits=10 limit=null",
		"Credit Threshold Reached agent/ag_support1 daily_limit 80% of 8",
		"Credit Threshold Reached agent/ag_support1 daily_limit 100% of 8",
		// ag_support1's 8 were 40% of the workspace default of 20 when used.
		"Agent Stopped agent/ag_support1 daily_limit credits=8 limit=8 -> stopped",
	})

	// The scheduler's next day resumes ag_support1 (ag_daily runs already).
	tomorrow := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	env.Clock.Advance(tomorrow.Sub(env.Clock.Now()))
	awscalls.Invoke(t, env.URL, "SchedulerFunction", awsevents.Scheduled("tick", tomorrow))
	got = waitEvents(t, env, 14)
	if last := got[13]; last != "Agent Resumed agent/ag_support1 daily_limit credits=0 limit=8 -> running" {
		t.Errorf("after the scheduler: %s, want ag_support1 resumed", last)
	}
}

// 50 usage events in 50 SQS batches at once cross 80% and 100% of an
// agent's daily limit (the workspace default, 20): each threshold is
// published once, and the stop once.
func TestFiftyParallelEventsPublishEachThresholdOncePerPeriod(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	credits := make([]float64, 50)
	for i := range credits {
		credits[i] = 0.5
	}
	ingest(t, env, "ag_free", credits) // 25 credits in all
	got := waitEvents(t, env, 3)
	// The stop tells the usage it was decided on: 20 or more, as the
	// batches landed.
	for i, l := range got {
		if before, _, ok := strings.Cut(l, " credits="); ok && strings.HasPrefix(l, "Agent Stopped") {
			got[i] = before
		}
	}
	sameEvents(t, got, []string{
		"Credit Threshold Reached agent/ag_free daily_limit 80% of 20",
		"Credit Threshold Reached agent/ag_free daily_limit 100% of 20",
		"Agent Stopped agent/ag_free daily_limit",
	})
	if o := env.Do(t, http.MethodGet, "/workspaceapi/agents?includeOverview=true&limit=1000", keyAdmin, ""); !strings.Contains(string(o.Body), `"creditsToday":25`) {
		t.Errorf("every event counted: %s", o.Body)
	}
}

// While the bus refuses every entry nothing is published, and nothing is
// lost: the refused records are delivered again until it takes them.
func TestAPublisherFailureLosesNothing(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	refused := 0
	var mu sync.Mutex
	env.Events.SetFail(func(types.PutEventsRequestEntry) bool {
		mu.Lock()
		defer mu.Unlock()
		refused++
		return true
	})
	ingest(t, env, "ag_daily", []float64{5})
	do(t, env, http.MethodPost, "/workspaceapi/agents/status", `{"ids": ["ag_free"], "status": "disabled"}`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := refused
		mu.Unlock()
		if n >= 8 { // every event refused at least twice
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(env.Events.Events()); n != 0 {
		t.Fatalf("%d events published while the bus refused them all", n)
	}
	env.Events.SetFail(nil)
	got := waitEvents(t, env, 4)
	sameEvents(t, got, []string{
		"Credit Threshold Reached agent/ag_daily daily_limit 80% of 5",
		"Credit Threshold Reached agent/ag_daily daily_limit 100% of 5",
		"Agent Stopped agent/ag_daily daily_limit credits=5 limit=5 -> stopped",
		"Agent Disabled agent/ag_free disabled credits=0 limit=null -> disabled",
	})
}
