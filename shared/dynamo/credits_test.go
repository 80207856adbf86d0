package dynamo_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

func lim(v float64) *float64 { return &v }

var (
	running        = workspace.Running
	stoppedDaily   = workspace.AgentState{Status: workspace.StatusStopped, Reason: workspace.ReasonDailyLimit}
	stoppedMonthly = workspace.AgentState{Status: workspace.StatusStopped, Reason: workspace.ReasonMonthlyLimit}
	pausedTeam     = workspace.AgentState{Status: workspace.StatusPaused, Reason: workspace.ReasonTeamLimit}
)

// noon is the "now" of these tests: the middle of a UTC day.
var noon = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// creditWorld is one workspace ws1 (default daily limit 50) with team t1
// (limit 100, agents a1, a2, a3) and agents solo (no team) and free (no team,
// no limits, and a daily limit only through the default... cleared below).
type creditWorld struct {
	store *dynamo.Store
	rt    *tableops.RoundTrips
	t     *testing.T
	seq   int
}

// testActor is the API key the tests' changes are made through.
var testActor = workspace.KeyActor(workspace.Caller{KeyID: "key_test", UserID: "u_test"}, "req-test")

func newCreditWorld(t *testing.T, clientOpts ...func(*dynamodb.Options)) *creditWorld {
	t.Helper()
	return newCreditWorldOn(t, dynamolocal.NewTable, clientOpts...)
}

// newStreamedCreditWorld is newCreditWorld over a table with a stream, for
// a test that reads the events the stream carries (streamEvents).
func newStreamedCreditWorld(t *testing.T) *creditWorld {
	t.Helper()
	return newCreditWorldOn(t, dynamolocal.NewStreamedTable)
}

func newCreditWorldOn(t *testing.T, newTable func(testing.TB, *dynamodb.Client) string, clientOpts ...func(*dynamodb.Options)) *creditWorld {
	t.Helper()
	rt := &tableops.RoundTrips{}
	client := dynamolocal.NewClient(t, rt, clientOpts...)
	store := dynamo.New(client, newTable(t, client))
	err := tableops.PutSnapshot(context.Background(), store, tableops.Snapshot{
		Workspace: workspace.Workspace{ID: "ws1", Name: "W", Seats: 5, TeamSettingsEnabled: true, DefaultDailyCreditLimit: lim(50)},
		Teams:     []workspace.Team{{ID: "t1", Name: "T", MonthlyCreditLimit: lim(100)}},
		Agents: []workspace.Agent{
			{ID: "a1", Name: "A1", TeamID: "t1", AgentDiscoverability: "team", DailyCreditLimit: lim(10), MonthlyCreditLimit: lim(30)},
			{ID: "a2", Name: "A2", TeamID: "t1", AgentDiscoverability: "team", DailyCreditLimit: lim(1000)},
			{ID: "a3", Name: "A3", TeamID: "t1", AgentDiscoverability: "team", DailyCreditLimit: lim(1000), IsPrivate: true},
			{ID: "solo", Name: "Solo", AgentDiscoverability: "none"},
		},
	}, noon)
	if err != nil {
		t.Fatal(err)
	}
	return &creditWorld{store: store, rt: rt, t: t}
}

// use records one credits.used event of agent at at and fails the test on
// any per-event error.
func (w *creditWorld) use(agent string, credits float64, at time.Time) []workspace.Transition {
	w.t.Helper()
	w.seq++
	rep := w.store.ApplyUsage(context.Background(), workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{{
		EventID: fmt.Sprintf("ev%d", w.seq), WorkspaceID: "ws1", AgentID: agent, Credits: credits, OccurredAt: at,
	}}, at)
	if err := rep.Errs[0]; err != nil {
		w.t.Fatalf("usage of %s: %v", agent, err)
	}
	return rep.Transitions
}

// credit reads an agent's standing as readers see it at now.
func (w *creditWorld) credit(agent string, now time.Time) workspace.AgentCredit {
	w.t.Helper()
	a, err := w.store.Agent(context.Background(), "ws1", agent)
	if err != nil {
		w.t.Fatal(err)
	}
	c, err := w.store.AgentCredits(context.Background(), "ws1", []workspace.Agent{a}, now)
	if err != nil {
		w.t.Fatal(err)
	}
	return c[agent]
}

func (w *creditWorld) wantState(agent string, now time.Time, want workspace.AgentState) {
	w.t.Helper()
	if got := w.credit(agent, now).State(); got != want {
		w.t.Errorf("%s: state = %+v, want %+v", agent, got, want)
	}
}

// The running states of docs/credit-rules.md.
func TestUsageReachingALimitStopsOrPausesInTheSameCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		agent  string
		uses   []float64
		want   workspace.AgentState
		others map[string]workspace.AgentState
	}{
		{"below every limit: running", "a1", []float64{9.99}, running, nil},
		{"usage reaches the daily limit: stopped", "a1", []float64{4, 6}, stoppedDaily, nil},
		{"usage past the daily limit: stopped", "a1", []float64{25}, stoppedDaily, nil},
		{"the workspace default daily limit applies without an own one", "solo", []float64{50}, stoppedDaily, nil},
		{"usage reaches the monthly limit: stopped for the month", "a1", []float64{30}, stoppedMonthly, nil},
		{"the team's usage reaches its limit: every agent paused", "a2", []float64{60, 40}, pausedTeam,
			map[string]workspace.AgentState{"a1": pausedTeam, "a3": pausedTeam, "solo": running}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newCreditWorld(t)
			for _, c := range tc.uses {
				w.use(tc.agent, c, noon)
			}
			w.wantState(tc.agent, noon, tc.want)
			for a, want := range tc.others {
				w.wantState(a, noon, want)
			}
		})
	}
}

func TestMonthlyOutlastsDailyAndTeamOutlastsBoth(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	w.use("a1", 10, noon)
	w.wantState("a1", noon, stoppedDaily)
	w.use("a1", 20, noon)
	w.wantState("a1", noon, stoppedMonthly)
	w.use("a2", 70, noon)
	w.wantState("a1", noon, pausedTeam)
	// The team's pause sits on top: lifting it shows the agent's own stop.
	if _, err := w.store.SetTeamLimit(context.Background(), testActor, false, "ws1", "t1", nil, noon); err != nil {
		t.Fatal(err)
	}
	w.wantState("a1", noon, stoppedMonthly)
}

func TestARedeliveredEventCountsOnce(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	ev := workspace.Usage{EventID: "dup", WorkspaceID: "ws1", AgentID: "a2", Credits: 7, OccurredAt: noon}
	for range 3 {
		rep := w.store.ApplyUsage(context.Background(), workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{ev, ev}, noon)
		for i, err := range rep.Errs {
			if err != nil {
				t.Fatalf("delivery %d: %v", i, err)
			}
		}
	}
	if got := w.credit("a2", noon).Position; got.Today != 7 || got.Month != 7 {
		t.Errorf("today, month = %v, %v; want 7, 7", got.Today, got.Month)
	}
}

func TestUsageOfAnUnknownAgentFailsAloneAndCountsNothing(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	rep := w.store.ApplyUsage(context.Background(), workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{
		{EventID: "x1", WorkspaceID: "ws1", AgentID: "ghost", Credits: 1, OccurredAt: noon},
		{EventID: "x2", WorkspaceID: "other", AgentID: "a1", Credits: 1, OccurredAt: noon},
		{EventID: "x3", WorkspaceID: "ws1", AgentID: "a2", Credits: 2, OccurredAt: noon},
	}, noon)
	if !workspace.IsNotFound(rep.Errs[0]) || !workspace.IsNotFound(rep.Errs[1]) || rep.Errs[2] != nil {
		t.Fatalf("errs = %v, want not found, not found, nil", rep.Errs)
	}
	r, err := w.store.CreditsReport(context.Background(), "ws1", "2026-11", noon)
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 2 {
		t.Errorf("workspace total = %v, want 2", r.Total)
	}
}

func TestCountersAreKeyedByPeriod(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	lastSecond := time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC)
	firstSecond := time.Date(2026, 12, 1, 0, 0, 1, 0, time.UTC)
	w.use("a2", 3, lastSecond)
	// Lands in the first second of a new month, before any scheduler run.
	w.use("a2", 5, firstSecond)
	if got := w.credit("a2", firstSecond).Position; got.Today != 5 || got.Month != 5 {
		t.Errorf("December: today, month = %v, %v; want 5, 5", got.Today, got.Month)
	}
	if got := w.credit("a2", lastSecond).Position; got.Today != 3 || got.Month != 3 {
		t.Errorf("November: today, month = %v, %v; want 3, 3", got.Today, got.Month)
	}
	days, err := w.store.AgentDailyUsage(context.Background(), "ws1", "a2", lastSecond, firstSecond)
	if err != nil {
		t.Fatal(err)
	}
	want := []workspace.DayUsage{{Day: "2026-11-30", Credits: 3}, {Day: "2026-12-01", Credits: 5}}
	if !slices.Equal(days, want) {
		t.Errorf("daily usage = %v, want %v", days, want)
	}
}

func TestChangingALimitReevaluatesAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name       string
		used       float64
		change     workspace.LimitChange
		want       workspace.AgentState
		wantImpact *workspace.AgentState
	}{
		{"a daily limit set below usage stops", 8, workspace.LimitChange{Daily: workspace.Value(5.0)}, stoppedDaily, &stoppedDaily},
		{"a daily limit set at usage stops", 8, workspace.LimitChange{Daily: workspace.Value(8.0)}, stoppedDaily, &stoppedDaily},
		{"a monthly limit set at usage stops", 8, workspace.LimitChange{Monthly: workspace.Value(8.0)}, stoppedMonthly, &stoppedMonthly},
		{"a raised daily limit resumes", 10, workspace.LimitChange{Daily: workspace.Value(20.0)}, running, &running},
		{"a cleared daily limit falls back to the default (50) and resumes", 10, workspace.LimitChange{Daily: workspace.Null[float64]()}, running, &running},
		{"a cleared daily limit whose default is reached stays stopped", 10, workspace.LimitChange{Daily: workspace.Value(0.0)}, stoppedDaily, nil},
		{"a raised limit that still holds changes no state", 8, workspace.LimitChange{Daily: workspace.Value(9.0)}, running, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newCreditWorld(t)
			w.use("a1", tc.used, noon)
			out := w.store.SetAgentLimits(ctx, testActor, "ws1", "", []string{"a1"}, tc.change, noon)[0]
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			w.wantState("a1", noon, tc.want)
			if (out.Impact == nil) != (tc.wantImpact == nil) || (out.Impact != nil && *out.Impact != *tc.wantImpact) {
				t.Errorf("impact = %v, want %v", out.Impact, tc.wantImpact)
			}
		})
	}
}

func TestARemovedMonthlyLimitResumes(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	w.use("a1", 9, noon)
	w.store.SetAgentLimits(context.Background(), testActor, "ws1", "", []string{"a1"}, workspace.LimitChange{Monthly: workspace.Value(9.0)}, noon)
	w.wantState("a1", noon, stoppedMonthly)
	out := w.store.SetAgentLimits(context.Background(), testActor, "ws1", "", []string{"a1"}, workspace.LimitChange{Monthly: workspace.Null[float64]()}, noon)[0]
	if out.Impact == nil || *out.Impact != running || out.Limits.Monthly != nil {
		t.Errorf("outcome = %+v, want resumed with no monthly limit", out)
	}
	w.wantState("a1", noon, running)
}

func TestSameLimitsAreUnchangedAndNotWritten(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	w.rt.Reset()
	outs := w.store.SetAgentLimits(context.Background(), testActor, "ws1", "", []string{"a1", "nope", "a2"},
		workspace.LimitChange{Daily: workspace.Value(10.0)}, noon)
	if !outs[0].Unchanged || !workspace.IsNotFound(outs[1].Err) || outs[2].Unchanged {
		t.Fatalf("outcomes = %+v", outs)
	}
	if got := slices.Index(w.rt.Ops(), "TransactWriteItems"); got < 0 || w.rt.OpCount("TransactWriteItems") != 1 {
		t.Errorf("ops = %v, want exactly one transaction (a2's)", w.rt.Ops())
	}
}

func TestATeamScopedWriteSeesOnlyItsTeam(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	outs := w.store.SetAgentLimits(context.Background(), testActor, "ws1", "t1", []string{"a1", "solo"}, workspace.LimitChange{Daily: workspace.Value(3.0)}, noon)
	if outs[0].Err != nil || !workspace.IsNotFound(outs[1].Err) {
		t.Errorf("outcomes = %+v, want a1 written and solo not found", outs)
	}
}

func TestAResetResumesTheDailyStopAndKeepsTheMonth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCreditWorld(t)
	w.use("a1", 12, noon)
	w.wantState("a1", noon, stoppedDaily)
	out := w.store.ResetDailyUsage(ctx, testActor, "ws1", "", []string{"a1"}, noon)[0]
	if out.Err != nil || out.Unchanged || out.Impact == nil || *out.Impact != running {
		t.Fatalf("reset = %+v, want resumed", out)
	}
	c := w.credit("a1", noon)
	if c.State() != running || c.Position.Today != 0 || c.Position.Month != 12 {
		t.Errorf("after reset: %+v, %+v; want running, today 0, month 12", c.State(), c.Position)
	}
	// Spend is history: the day still shows what was used.
	days, _ := w.store.AgentDailyUsage(ctx, "ws1", "a1", noon, noon)
	if len(days) != 1 || days[0].Credits != 12 {
		t.Errorf("daily usage = %v, want 12 spent", days)
	}
	// Usage after the reset counts from zero.
	w.use("a1", 9, noon)
	w.wantState("a1", noon, running)
	w.use("a1", 1, noon)
	w.wantState("a1", noon, stoppedDaily)
	// A second reset of nothing is unchanged.
	w.store.ResetDailyUsage(ctx, testActor, "ws1", "", []string{"a1"}, noon)
	if out := w.store.ResetDailyUsage(ctx, testActor, "ws1", "", []string{"a1"}, noon)[0]; !out.Unchanged {
		t.Errorf("second reset = %+v, want unchanged", out)
	}
}

func TestAResetDoesNotLiftTheMonthlyStop(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	w.use("a1", 30, noon)
	out := w.store.ResetDailyUsage(context.Background(), testActor, "ws1", "", []string{"a1"}, noon)[0]
	if out.Impact != nil {
		t.Errorf("impact = %v, want none", out.Impact)
	}
	w.wantState("a1", noon, stoppedMonthly)
}

func TestTeamLimitPausesAndResumesEveryAgentWithOneWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCreditWorld(t)
	w.use("a2", 40, noon)
	w.rt.Reset()
	out, err := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", lim(40), noon)
	if err != nil || !out.Paused || out.Unchanged {
		t.Fatalf("lowering to the usage: %+v, %v; want paused", out, err)
	}
	if n := w.rt.OpCount("TransactWriteItems"); n != 1 {
		t.Errorf("pausing wrote %d transactions, want 1", n)
	}
	for _, a := range []string{"a1", "a2", "a3"} {
		w.wantState(a, noon, pausedTeam)
	}
	if out, _ := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", lim(40), noon); !out.Unchanged || !out.Paused {
		t.Errorf("same limit again: %+v, want unchanged and paused", out)
	}
	if out, _ := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", lim(41), noon); out.Paused {
		t.Errorf("raised above usage: %+v, want resumed", out)
	}
	w.wantState("a3", noon, running)
	w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", lim(10), noon)
	if out, _ := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", nil, noon); out.Paused || out.Team.MonthlyCreditLimit != nil {
		t.Errorf("removed: %+v, want resumed without a limit", out)
	}
	w.wantState("a1", noon, running)
}

// Usage that lands between a team limit change's read and its write, under
// the old and higher limit, is settled by the change: ingest read the old
// limit and let the team run, so the change reads usage again after it
// commits and pauses the team.
func TestUsageLandingDuringATeamLimitChangeIsSettledByTheChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gap := &dynamolocal.Interleaver{}
	w := newCreditWorld(t, gap.Option())
	w.use("a2", 30, noon)
	gap.Before(func() {
		if trs := w.use("a3", 25, noon); len(trs) != 0 {
			t.Errorf("usage under the old limit made %v, want no transition", trs)
		}
	})
	out, err := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", lim(50), noon)
	if err != nil || !out.Paused {
		t.Fatalf("limit 50 with 55 used: %+v, %v; want paused", out, err)
	}
	w.wantState("a1", noon, pausedTeam)
}

// Usage that lands between an agent limit change's read and its write fails
// the change's check that usage is what it decided on: the change decides
// again on the new figures and stops the agent.
func TestUsageLandingDuringAnAgentLimitChangeIsDecidedAgain(t *testing.T) {
	t.Parallel()
	gap := &dynamolocal.Interleaver{}
	w := newCreditWorld(t, gap.Option())
	w.use("a2", 30, noon)
	gap.Before(func() { w.use("a2", 25, noon) })
	out := w.store.SetAgentLimits(context.Background(), testActor, "ws1", "", []string{"a2"}, workspace.LimitChange{Daily: workspace.Value(50.0)}, noon)[0]
	if out.Err != nil || out.Impact == nil || *out.Impact != stoppedDaily {
		t.Errorf("daily limit 50 with 55 used: %+v; want impact stopped by the daily limit", out)
	}
	w.wantState("a2", noon, stoppedDaily)
}

func TestTeamLimitErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCreditWorld(t)
	if _, err := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "nope", lim(1), noon); err != workspace.ErrTeamNotFound {
		t.Errorf("unknown team: %v, want not found", err)
	}
	if _, err := w.store.SetTeamLimit(ctx, testActor, false, "other", "t1", lim(1), noon); err != workspace.ErrTeamNotFound {
		t.Errorf("another workspace's team: %v, want not found", err)
	}
	ws, _ := w.store.Workspace(ctx, "ws1")
	ws.TeamSettingsEnabled = false
	if err := tableops.PutSnapshot(ctx, w.store, tableops.Snapshot{Workspace: ws}, noon); err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", lim(1), noon); err != workspace.ErrTeamSettingsOff {
		t.Errorf("settings off: %v, want ErrTeamSettingsOff", err)
	}
}

func TestTheSchedulerResumesWhatANewDayOrMonthFrees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCreditWorld(t)
	w.use("a1", 10, noon) // daily stop on the 22nd
	w.use("solo", 50, noon)
	tomorrow := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

	// Before the scheduler runs, the stop holds even though a new day began.
	w.wantState("a1", tomorrow.Add(time.Hour), stoppedDaily)
	// A run on the same day changes nothing.
	if run, err := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), noon); err != nil || resumedAny(run) {
		t.Fatalf("same-day run: %+v, %v; want nothing", run, err)
	}
	w.rt.Reset()
	run, err := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), tomorrow)
	if err != nil || run != (workspace.ResumeRun{ResumedAgents: 2, Finished: true}) {
		t.Fatalf("next-day run: %+v, %v; want a1 and solo resumed", run, err)
	}
	// Round trips: the claim of the day's run item, the 96 partitions of
	// the resume index (3 holds × 32 shards), queried 16 at a time, each
	// recorded finished once read, per entry a read and a write, and the
	// release of the run item: 198 in all. In turn: the claim, 6 waves of a
	// Query and its record (both entries' reads and writes run beside
	// them), the release: 9.
	if got, path := w.rt.Count(), w.rt.Depth(); got != 198 || path != 9 {
		t.Errorf("next-day run: %d round trips, %d in turn (%v); want 198, 9 in turn", got, path, w.rt.Ops())
	}
	w.wantState("a1", tomorrow, running)
	w.wantState("solo", tomorrow, running)
	if run, err := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), tomorrow); err != nil || run != (workspace.ResumeRun{Finished: true}) {
		t.Errorf("second run: %+v, %v; want nothing more", run, err)
	}

	// The monthly stop and the team's pause wait for the next month.
	w.use("a1", 9, tomorrow)
	w.use("a1", 11, tomorrow) // month 30: monthly stop
	w.use("a2", 70, tomorrow) // team 100: paused
	w.wantState("a1", tomorrow, pausedTeam)
	if run, _ := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), tomorrow.AddDate(0, 0, 1)); resumedAny(run) {
		t.Errorf("next-day run resumed %+v, want nothing (monthly stop and team pause hold)", run)
	}
	w.wantState("a1", tomorrow.AddDate(0, 0, 1), pausedTeam)
	december := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	run, err = w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), december)
	if err != nil || run != (workspace.ResumeRun{ResumedAgents: 1, ResumedTeams: 1, Finished: true}) {
		t.Fatalf("next-month run: %+v, %v; want a1 and t1 resumed", run, err)
	}
	for _, a := range []string{"a1", "a2", "a3"} {
		w.wantState(a, december, running)
	}
	if run, _ := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), december); resumedAny(run) {
		t.Errorf("second next-month run: %+v, want nothing", run)
	}
}

func TestASchedulerRunAfterMissedDaysCatchesUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCreditWorld(t)
	w.use("a1", 10, noon)
	fourDaysOn := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	run, err := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), fourDaysOn)
	if err != nil || run != (workspace.ResumeRun{ResumedAgents: 1, Finished: true}) {
		t.Fatalf("late run: %+v, %v; want a1 resumed", run, err)
	}
	w.wantState("a1", fourDaysOn, running)
	// A month missed entirely catches up too.
	w.use("a2", 100, fourDaysOn)
	run, err = w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), time.Date(2027, 1, 3, 0, 0, 0, 0, time.UTC))
	if err != nil || run != (workspace.ResumeRun{ResumedTeams: 1, Finished: true}) {
		t.Errorf("run two months late: %+v, %v; want t1 resumed", run, err)
	}
	w.wantState("a2", time.Date(2027, 1, 3, 0, 0, 0, 0, time.UTC), running)
}

// againWhileBusy runs f again while it fails busy (at most 20 times), as a
// client retries a 503 and the queue delivers a failed event again; any
// other failure fails the test.
func againWhileBusy(t *testing.T, what string, f func() error) {
	t.Helper()
	for try := 1; ; try++ {
		err := f()
		if err == nil {
			return
		}
		if !workspace.IsBusy(err) || try == 20 {
			t.Errorf("%s, try %d: %v", what, try, err)
			return
		}
	}
}

// Fifty events of one agent applied at once contend for its items as on
// DynamoDB: an event whose transaction keeps losing fails busy and is
// delivered again, as the queue would; in the end the usage is exact and
// the agent and its team were each stopped once.
func TestFiftyParallelEventsSumExactlyAndStopOnce(t *testing.T) {
	t.Parallel()
	contention := &dynamolocal.Contention{}
	w := newCreditWorld(t, contention.Option())
	var mu sync.Mutex
	var stops []workspace.Transition
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			againWhileBusy(t, fmt.Sprintf("event %d", i), func() error {
				rep := w.store.ApplyUsage(context.Background(), workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{{
					EventID: fmt.Sprintf("p%d", i), WorkspaceID: "ws1", AgentID: "a2", Credits: 25, OccurredAt: noon,
				}}, noon)
				mu.Lock()
				stops = append(stops, rep.Transitions...)
				mu.Unlock()
				return rep.Errs[0]
			})
		}()
	}
	wg.Wait()
	c := w.credit("a2", noon)
	if c.Position.Today != 1250 || c.Position.Month != 1250 {
		t.Errorf("today, month = %v, %v; want 1250, 1250", c.Position.Today, c.Position.Month)
	}
	var agentStops, teamPauses int
	for _, tr := range stops {
		if tr.AgentID == "a2" {
			agentStops++
		}
		if tr.TeamID == "t1" {
			teamPauses++
		}
	}
	if agentStops != 1 || teamPauses != 1 {
		t.Errorf("transitions = %v; want a2 stopped once and t1 paused once", stops)
	}
	if contention.Stats().Conflicts() == 0 {
		t.Error("no transaction met another")
	}
}

// Twenty limit changes and usage events racing on one team (each sent again
// while it fails busy, as a client and the queue do) end in a state a
// sequential order of them produces: the team is paused exactly when its
// month usage has reached the limit last set.
func TestRacingTeamLimitsAndUsageEndConsistent(t *testing.T) {
	t.Parallel()
	for round := range 3 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			contention := &dynamolocal.Contention{}
			w := newCreditWorld(t, contention.Option())
			ctx := context.Background()
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if i%2 == 0 {
						againWhileBusy(t, fmt.Sprintf("limit %d", i), func() error {
							_, err := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", lim(float64(20+i*5)), noon)
							return err
						})
						return
					}
					againWhileBusy(t, fmt.Sprintf("usage %d", i), func() error {
						return w.store.ApplyUsage(ctx, workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{{
							EventID: fmt.Sprintf("r%d", i), WorkspaceID: "ws1", AgentID: []string{"a2", "a3"}[i%4/2], Credits: 9, OccurredAt: noon,
						}}, noon).Errs[0]
					})
				}()
			}
			wg.Wait()
			team, err := w.store.Team(ctx, "ws1", "t1")
			if err != nil {
				t.Fatal(err)
			}
			r, err := w.store.CreditsReport(ctx, "ws1", "2026-11", noon)
			if err != nil {
				t.Fatal(err)
			}
			used, paused := r.Teams[0].Used, r.Teams[0].Paused
			if used != 90 {
				t.Errorf("team usage = %v, want 90", used)
			}
			want := team.MonthlyCreditLimit != nil && used >= *team.MonthlyCreditLimit
			if paused != want {
				t.Errorf("paused = %v with usage %v and limit %v; a sequential order gives %v", paused, used, *team.MonthlyCreditLimit, want)
			}
		})
	}
}

func TestUsageRoundTrips(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	w.use("a2", 1, noon) // the month's first usage also lists the agent (one transaction)
	// The agents, the transaction, the latest activity, the standings and,
	// since t1 has a monthly limit, its usage shards.
	want := []string{"BatchGetItem", "TransactWriteItems", "UpdateItem", "BatchGetItem", "BatchGetItem"}
	var batch []workspace.Usage
	for i := range 10 {
		batch = append(batch, workspace.Usage{EventID: fmt.Sprintf("b%d", i), WorkspaceID: "ws1", AgentID: "a2", Credits: 1, OccurredAt: noon, ChatID: "c1"})
	}
	w.rt.Reset()
	rep := w.store.ApplyUsage(context.Background(), workspace.SystemActor(workspace.SystemIngest), batch, noon)
	for _, err := range rep.Errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// One transaction holds every item once (DynamoDB refuses a transaction
	// naming an item twice): each counter of the batch is written once.
	if got := w.rt.Ops(); !slices.Equal(got, want) {
		t.Errorf("a batch of 10 events of one agent: ops %v, want %v", got, want)
	}
	// Each needs the one before: the agents' teams decide the counters
	// written, and the settlement reads the figures the write made.
	if got := w.rt.Depth(); got > len(want) {
		t.Errorf("a batch of 10 events of one agent: %d round trips in turn, want at most %d", got, len(want))
	}
	if got := w.credit("a2", noon).Position.Today; math.Abs(got-11) > 1e-9 {
		t.Errorf("today = %v, want 11", got)
	}
}

// resumedAny reports whether a scheduler run resumed anything.
func resumedAny(run workspace.ResumeRun) bool { return run.ResumedAgents+run.ResumedTeams > 0 }
