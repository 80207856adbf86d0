package scheduler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/scheduler"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// testFixture: ag_daily stops at 5 credits a day, ag_month at 10 a month,
// ag_team is in team t1, which pauses at 20 a month; ag_daily2 stops at 1 a
// day.
const testFixture = `{"workspaces": [{"id": "ws_s", "name": "Sched", "seats": 5, "teamSettingsEnabled": true,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "invites": [], "apiKeys": [], "events": [],
 "members": [{"id": "u1", "email": "owner@s.example", "name": "Owner", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "teams": [{"id": "t1", "name": "Team", "monthlyCreditLimit": 20, "tags": [], "members": []}],
 "agents": [
  {"id": "ag_daily", "name": "Daily", "description": "", "imageUrl": "", "teamId": null, "isPrivate": false, "agentDiscoverability": "workspace",
   "tags": [], "dailyCreditLimit": 5, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []},
  {"id": "ag_daily2", "name": "Daily2", "description": "", "imageUrl": "", "teamId": null, "isPrivate": false, "agentDiscoverability": "workspace",
   "tags": [], "dailyCreditLimit": 1, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []},
  {"id": "ag_month", "name": "Month", "description": "", "imageUrl": "", "teamId": null, "isPrivate": false, "agentDiscoverability": "workspace",
   "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": 10, "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []},
  {"id": "ag_team", "name": "Team agent", "description": "", "imageUrl": "", "teamId": "t1", "isPrivate": false, "agentDiscoverability": "workspace",
   "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []}
 ]}]}`

var (
	running     = workspace.Running
	dailyStop   = workspace.AgentState{Status: workspace.StatusStopped, Reason: workspace.ReasonDailyLimit}
	monthlyStop = workspace.AgentState{Status: workspace.StatusStopped, Reason: workspace.ReasonMonthlyLimit}
	teamPause   = workspace.AgentState{Status: workspace.StatusPaused, Reason: workspace.ReasonTeamLimit}
)

// use applies usage through the ingest function at the env's clock and fails
// the test unless every event is applied.
func use(t *testing.T, env *apitest.Env, credits map[string]float64) {
	t.Helper()
	var ev events.SQSEvent
	now := env.Clock.Now()
	for agentID, c := range credits {
		body := fmt.Sprintf(`{"type": "credits.used", "id": "%s-%d", "workspaceId": "ws_s", "agentId": %q, "credits": %g, "occurredAt": %q}`,
			agentID, now.UnixNano(), agentID, c, now.Format(time.RFC3339Nano))
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: agentID, Body: body})
	}
	res, err := ingest.New(env.Store, ingest.NotStoredYet{}, env.Clock)(t.Context(), ev)
	if err != nil || len(res.BatchItemFailures) != 0 {
		t.Fatalf("usage: failures %+v, error %v", res.BatchItemFailures, err)
	}
}

// states returns each agent's running state as of at.
func states(t *testing.T, env *apitest.Env, at time.Time) map[string]workspace.AgentState {
	t.Helper()
	rep, err := env.Store.CreditsReport(t.Context(), "ws_s", workspace.MonthKey(at), at)
	if err != nil {
		t.Fatalf("credits report: %v", err)
	}
	out := map[string]workspace.AgentState{}
	for _, a := range rep.Agents {
		out[a.Agent.ID] = a.Credit.State()
	}
	return out
}

func checkStates(t *testing.T, env *apitest.Env, at time.Time, want map[string]workspace.AgentState) {
	t.Helper()
	got := states(t, env, at)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s at %s: got %+v, want %+v", id, workspace.FormatTime(at), got[id], w)
		}
	}
}

// scheduled is the event EventBridge sends for a scheduled rule at at.
func scheduled(at time.Time) events.EventBridgeEvent {
	return events.EventBridgeEvent{
		Version: "0", ID: "89d1a02d-5ec7-412e-82f5-13505f849b41", DetailType: "Scheduled Event", Source: "aws.events",
		AccountID: "123456789012", Time: at, Region: "us-east-1",
		Resources: []string{"arn:aws:events:us-east-1:123456789012:rule/SchedulerFunctionDaily"},
		Detail:    json.RawMessage(`{}`),
	}
}

func day(d int, month time.Month) time.Time { return time.Date(2026, month, d, 0, 0, 0, 0, time.UTC) }

func TestARunResumesWhatTheNewDayOrMonthFrees(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	run := scheduler.New(env.Store, env.Clock)
	// 2026-11-21 12:00: every limit is reached.
	use(t, env, map[string]float64{"ag_daily": 5, "ag_month": 10, "ag_team": 20})
	checkStates(t, env, env.Clock.Now(), map[string]workspace.AgentState{"ag_daily": dailyStop, "ag_month": monthlyStop, "ag_team": teamPause})

	tests := []struct {
		name string
		at   time.Time
		want scheduler.Result
		// states after the run
		states map[string]workspace.AgentState
	}{
		{"the next day resumes the agent stopped by its daily limit", day(22, time.November),
			scheduler.Result{Now: "2026-11-22T00:00:00.000Z", ResumedAgents: 1, Finished: true},
			map[string]workspace.AgentState{"ag_daily": running, "ag_month": monthlyStop, "ag_team": teamPause}},
		{"a second run for the same time changes nothing", day(22, time.November),
			scheduler.Result{Now: "2026-11-22T00:00:00.000Z", Finished: true},
			map[string]workspace.AgentState{"ag_daily": running, "ag_month": monthlyStop, "ag_team": teamPause}},
		{"the next month resumes monthly-stopped agents and paused teams", day(1, time.December),
			scheduler.Result{Now: "2026-12-01T00:00:00.000Z", ResumedAgents: 1, ResumedTeams: 1, Finished: true},
			map[string]workspace.AgentState{"ag_daily": running, "ag_month": running, "ag_team": running}},
		{"and again, nothing more", day(1, time.December),
			scheduler.Result{Now: "2026-12-01T00:00:00.000Z", Finished: true},
			map[string]workspace.AgentState{"ag_daily": running, "ag_month": running, "ag_team": running}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t.Context(), scheduled(tc.at))
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if got != tc.want {
				t.Errorf("result: got %+v, want %+v", got, tc.want)
			}
			checkStates(t, env, tc.at, tc.states)
		})
	}
}

func TestARunAfterMissedDaysCatchesUp(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	run := scheduler.New(env.Store, env.Clock)
	// ag_daily stops on the 21st, ag_daily2 on the 22nd; the runs of the
	// 22nd, 23rd and 24th are missed.
	use(t, env, map[string]float64{"ag_daily": 5})
	env.Clock.Advance(24 * time.Hour)
	use(t, env, map[string]float64{"ag_daily2": 1})
	checkStates(t, env, env.Clock.Now(), map[string]workspace.AgentState{"ag_daily": dailyStop, "ag_daily2": dailyStop})

	at := day(25, time.November)
	got, err := run(t.Context(), scheduled(at))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := (scheduler.Result{Now: "2026-11-25T00:00:00.000Z", ResumedAgents: 2, Finished: true}); got != want {
		t.Errorf("result: got %+v, want %+v", got, want)
	}
	checkStates(t, env, at, map[string]workspace.AgentState{"ag_daily": running, "ag_daily2": running})
}

// The run decides at the event's time, not at the clock's: a run for the
// 21st made late, on the 22nd, resumes nothing stopped on the 21st.
func TestARunDecidesAtTheEventsTime(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	use(t, env, map[string]float64{"ag_daily": 5})
	env.Clock.Advance(24 * time.Hour)
	got, err := scheduler.New(env.Store, env.Clock)(t.Context(), scheduled(day(21, time.November)))
	if err != nil {
		t.Fatal(err)
	}
	if want := (scheduler.Result{Now: "2026-11-21T00:00:00.000Z", Finished: true}); got != want {
		t.Errorf("result: got %+v, want %+v", got, want)
	}
}

func TestAnEventWithoutTimeRunsAtTheClock(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	use(t, env, map[string]float64{"ag_daily": 5})
	env.Clock.Advance(12 * time.Hour) // 2026-11-22 00:00
	got, err := scheduler.New(env.Store, env.Clock)(t.Context(), events.EventBridgeEvent{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (scheduler.Result{Now: "2026-11-22T00:00:00.000Z", ResumedAgents: 1, Finished: true}); got != want {
		t.Errorf("result: got %+v, want %+v", got, want)
	}
}

// A failed run returns an error, so that Lambda retries it (resumes are
// conditioned, so a retry changes nothing more for what was resumed).
func TestAFailedRunReturnsAnError(t *testing.T) {
	t.Parallel()
	// Real storage that fails: a table that does not exist.
	store := dynamo.New(dynamolocal.NewClient(t, nil), "no-such-table")
	_, err := scheduler.New(store, apitest.NewClock(apitest.Start))(context.Background(), scheduled(day(22, time.November)))
	if err == nil {
		t.Fatal("run: got no error, want the store's")
	}
}

func TestSchedulerFunctionThroughTheLocalGateway(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	use(t, env, map[string]float64{"ag_daily": 5})
	// The event as EventBridge sends it (JSON), with its time field.
	event := `{"version": "0", "id": "89d1a02d-5ec7-412e-82f5-13505f849b41", "detail-type": "Scheduled Event",
	  "source": "aws.events", "account": "123456789012", "time": "2026-11-22T00:00:00Z", "region": "us-east-1",
	  "resources": ["arn:aws:events:us-east-1:123456789012:rule/SchedulerFunctionDaily"], "detail": {}}`
	for i, want := range []string{
		`{"now":"2026-11-22T00:00:00.000Z","resumedAgents":1,"resumedTeams":0,"finished":true,"busy":false}`,
		`{"now":"2026-11-22T00:00:00.000Z","resumedAgents":0,"resumedTeams":0,"finished":true,"busy":false}`,
	} {
		res, err := http.Post(env.URL+"/_local/invoke/SchedulerFunction", "application/json", bytes.NewBufferString(event))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || string(body) != want {
			t.Errorf("run %d: got %d %s, want 200 %s", i+1, res.StatusCode, body, want)
		}
	}
	checkStates(t, env, day(22, time.November), map[string]workspace.AgentState{"ag_daily": running})
}

// The 5-minute schedule's runs of a day whose run finished only look: they
// resume nothing and say the day is finished.
func TestTheFrequentRunsOfAFinishedDayOnlyLook(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture)
	use(t, env, map[string]float64{"ag_daily": 5})
	run := scheduler.New(env.Store, env.Clock)
	for i, at := range []time.Time{day(22, time.November), day(22, time.November).Add(5 * time.Minute), day(22, time.November).Add(10 * time.Minute)} {
		got, err := run(t.Context(), scheduled(at))
		if err != nil {
			t.Fatal(err)
		}
		want := scheduler.Result{Now: workspace.FormatTime(at), Finished: true}
		if i == 0 {
			want.ResumedAgents = 1
		}
		if got != want {
			t.Errorf("run at %s: got %+v, want %+v", want.Now, got, want)
		}
	}
}
