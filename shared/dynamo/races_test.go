package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The credit engine's races, as two reviews found them. A BatchGetItem is
// read-committed per item, not a snapshot: it can return a limit from before
// a limit change and the state from after it, so a state write decided on
// such a read must fail on its premises and decide again. Writes also land
// between a decision's read and its write (dynamolocal.Interleaver), and
// premises compare with the stored decimals, not the float64 read back.

// The keys of ws1's team t1, its agent a1 and a1's usage this month
// (shared/dynamo/keys.go).
const (
	teamPK, teamSK   = "WS#ws1", "TEAM#t1"
	a1UsagePK, a1Use = "WS#ws1#AGENTDATA#a1", "USAGE#2026-11"
)

// teamEnd reads t1's limit, usage and pause as readers see them.
func (w *creditWorld) teamEnd(ctx context.Context) (limit *float64, used float64, paused bool) {
	w.t.Helper()
	team, err := w.store.Team(ctx, "ws1", "t1")
	if err != nil {
		w.t.Fatal(err)
	}
	r, err := w.store.CreditsReport(ctx, "ws1", "2026-11", noon)
	if err != nil {
		w.t.Fatal(err)
	}
	return team.MonthlyCreditLimit, r.Teams[0].Used, r.Teams[0].Paused
}

// A team's limit and its paused flag are read as one snapshot (a
// TransactGetItems), never torn between the two sides of a change that wrote
// both: a team's answer shows a limit with the pause that goes with it.
func TestATeamsLimitAndPauseAreReadAsOneSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	torn := &dynamolocal.StaleRead{Raw: dynamolocal.NewClient(t, nil)}
	w := newCreditWorld(t, torn.Option())
	w.use("a2", 60, noon)
	w.setTeamLimit(ctx, lim(100)) // 60 used under 100: running
	// A change to 50 (which pauses the team) lands while the team is read.
	torn.Arm(0, teamPK, teamSK, func() { w.setTeamLimit(ctx, lim(50)) })
	d, err := w.store.TeamDetail(ctx, "ws1", "t1", noon)
	if err != nil {
		t.Fatal(err)
	}
	torn.Arm(0, teamPK, teamSK, func() { w.setTeamLimit(ctx, lim(100)) })
	unchanged := w.setTeamLimit(ctx, lim(100))
	for _, got := range []struct {
		what   string
		limit  *float64
		paused bool
	}{{"the team's detail", d.Team.MonthlyCreditLimit, d.Paused}, {"an unchanged limit's answer", unchanged.Team.MonthlyCreditLimit, unchanged.Paused}} {
		if got.limit == nil {
			t.Fatalf("%s: no limit", got.what)
		}
		if got.paused != (d.CreditsThisMonth >= *got.limit) {
			t.Errorf("%s: limit %v and paused %v with %v used: read from either side of a change", got.what, *got.limit, got.paused, d.CreditsThisMonth)
		}
	}
}

func TestATornReadNeverPausesATeamUnderALimitItIsBelow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(ctx context.Context, w *creditWorld, gap *dynamolocal.Interleaver, torn *dynamolocal.StaleRead)
	}{
		{"ingest's settle reads the limit before a raise that resumed the team", func(ctx context.Context, w *creditWorld, _ *dynamolocal.Interleaver, torn *dynamolocal.StaleRead) {
			w.use("a2", 110, noon) // paused at 100
			// Ingest's first BatchGetItem reads its agents; the second settles.
			torn.Arm(1, teamPK, teamSK, func() { w.setTeamLimit(ctx, lim(200)) })
			w.use("a3", 10, noon) // 120 used
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			gap := &dynamolocal.Interleaver{}
			torn := &dynamolocal.StaleRead{Raw: dynamolocal.NewClient(t, nil)}
			w := newCreditWorld(t, gap.Option(), torn.Option())
			tc.run(ctx, w, gap, torn)
			if !torn.Torn() {
				t.Fatal("the read was not torn")
			}
			limit, used, paused := w.teamEnd(ctx)
			if want := limit != nil && used >= *limit; paused != want {
				t.Errorf("paused = %v with %v used under limit %v, want %v", paused, used, *limit, want)
			}
		})
	}
}

// A stop decided on today's usage read from before a daily-usage reset must
// not land after the reset.
func TestATornReadNeverStopsAnAgentOnUsageAResetCleared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	torn := &dynamolocal.StaleRead{Raw: dynamolocal.NewClient(t, nil)}
	w := newCreditWorld(t, torn.Option())
	w.use("a1", 9, noon) // daily limit 10
	torn.Arm(1, a1UsagePK, a1Use, func() {
		if out := w.store.ResetDailyUsage(ctx, testActor, "ws1", "", []string{"a1"}, noon)[0]; out.Err != nil {
			t.Fatal(out.Err)
		}
	})
	w.use("a1", 2, noon) // 11 counted, then reset to 0 before the settle's read returns
	w.wantState("a1", noon, running)
	if !torn.Torn() {
		t.Fatal("the read was not torn")
	}
}

// setTeamLimit sets t1's limit and fails the test on an error.
func (w *creditWorld) setTeamLimit(ctx context.Context, limit *float64) workspace.TeamLimitOutcome {
	w.t.Helper()
	out, err := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", limit, noon)
	if err != nil {
		w.t.Fatalf("team limit %v: %v", limit, err)
	}
	return out
}

// A limit change that read the agent's limits from before another change
// must not write the other limit back: it decides again on the new ones.
func TestATornReadNeverUndoesAnotherAgentLimitChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	torn := &dynamolocal.StaleRead{Raw: dynamolocal.NewClient(t, nil)}
	w := newCreditWorld(t, torn.Option())
	torn.Arm(0, "WS#ws1", "AGENT#a1", func() {
		out := w.store.SetAgentLimits(ctx, testActor, "ws1", "", []string{"a1"}, workspace.LimitChange{Monthly: workspace.Value(300.0)}, noon)[0]
		if out.Err != nil {
			t.Fatal(out.Err)
		}
	})
	out := w.store.SetAgentLimits(ctx, testActor, "ws1", "", []string{"a1"}, workspace.LimitChange{Daily: workspace.Value(20.0)}, noon)[0]
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if !torn.Torn() {
		t.Fatal("the read was not torn")
	}
	a, err := w.store.Agent(ctx, "ws1", "a1")
	if err != nil {
		t.Fatal(err)
	}
	if a.DailyCreditLimit == nil || *a.DailyCreditLimit != 20 || a.MonthlyCreditLimit == nil || *a.MonthlyCreditLimit != 300 {
		t.Errorf("limits = %v, %v; want daily 20 and the other change's monthly 300", a.DailyCreditLimit, a.MonthlyCreditLimit)
	}
}

// A stop decided on a float64 must pass its premise however the stored
// decimal reads back: a daily limit of 0 stops an agent whose usage today has
// no counter yet (its usage was yesterday's).
func TestAZeroLimitStopsOnUsageOfAnotherDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCreditWorld(t)
	err := tableops.PutSnapshot(ctx, w.store, tableops.Snapshot{
		Workspace: workspace.Workspace{ID: "ws1", Name: "W", Seats: 5, TeamSettingsEnabled: true, DefaultDailyCreditLimit: lim(50)},
		Agents:    []workspace.Agent{{ID: "zero", Name: "Zero", AgentDiscoverability: "none", DailyCreditLimit: lim(0)}},
	}, noon)
	if err != nil {
		t.Fatal(err)
	}
	rep := w.store.ApplyUsage(ctx, workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{{
		EventID: "late", WorkspaceID: "ws1", AgentID: "zero", Credits: 1, OccurredAt: noon.AddDate(0, 0, -1),
	}}, noon)
	if rep.Errs[0] != nil {
		t.Fatalf("late usage: %v", rep.Errs[0])
	}
	w.wantState("zero", noon, stoppedDaily)
}

// A limit change that read today's usage from before a daily-usage reset
// (whose new state version it read too) decides again on the cleared usage.
func TestATornReadNeverStopsAnAgentThroughALimitChangeOnClearedUsage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	torn := &dynamolocal.StaleRead{Raw: dynamolocal.NewClient(t, nil)}
	w := newCreditWorld(t, torn.Option())
	w.use("a1", 9, noon)
	torn.Arm(0, a1UsagePK, a1Use, func() {
		if out := w.store.ResetDailyUsage(ctx, testActor, "ws1", "", []string{"a1"}, noon)[0]; out.Err != nil {
			t.Fatal(out.Err)
		}
	})
	out := w.store.SetAgentLimits(ctx, testActor, "ws1", "", []string{"a1"}, workspace.LimitChange{Daily: workspace.Value(5.0)}, noon)[0]
	if out.Err != nil || out.Impact != nil {
		t.Errorf("daily limit 5 after the reset: %+v; want no impact", out)
	}
	w.wantState("a1", noon, running)
	if !torn.Torn() {
		t.Fatal("the read was not torn")
	}
}

// Usage of a new day or month that lands while the scheduler resumes the
// old period's hold stops or pauses again for the new period, whatever
// usage the scheduler read.
func TestUsageLandingWhileTheSchedulerResumesHoldsForTheNewPeriod(t *testing.T) {
	t.Parallel()
	tomorrow := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	december := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		hold    func(w *creditWorld)
		next    time.Time
		landing func(w *creditWorld)
		check   func(w *creditWorld)
	}{
		{"an agent's daily stop", func(w *creditWorld) { w.use("a1", 10, noon) }, tomorrow,
			func(w *creditWorld) { w.use("a1", 10, tomorrow.Add(time.Second)) },
			func(w *creditWorld) { w.wantState("a1", tomorrow.Add(time.Minute), stoppedDaily) }},
		{"a team's pause", func(w *creditWorld) { w.use("a2", 100, noon) }, december,
			func(w *creditWorld) { w.use("a2", 100, december.Add(time.Second)) },
			func(w *creditWorld) { w.wantState("a3", december.Add(time.Minute), pausedTeam) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gap := &dynamolocal.Interleaver{}
			w := newCreditWorld(t, gap.Option())
			tc.hold(w)
			gap.Before(func() { tc.landing(w) })
			if _, err := w.store.ResumeDue(context.Background(), workspace.SystemActor(workspace.SystemScheduler), tc.next); err != nil {
				t.Fatal(err)
			}
			tc.check(w)
		})
	}
}

// A batch's events are summed in float64 but stored as the decimal they
// make: ten events of 0.1 count 1, not 0.9999999999999999, and the next 9
// credits reach a daily limit of 10 exactly.
func TestABatchOfDecimalCreditsCountsExactly(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	var batch []workspace.Usage
	for i := range 10 {
		batch = append(batch, workspace.Usage{EventID: fmt.Sprintf("tenth%d", i), WorkspaceID: "ws1", AgentID: "a1", Credits: 0.1, OccurredAt: noon})
	}
	rep := w.store.ApplyUsage(context.Background(), workspace.SystemActor(workspace.SystemIngest), batch, noon)
	for i, err := range rep.Errs {
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	if got := w.credit("a1", noon).Position.Today; got != 1 {
		t.Errorf("today = %v, want exactly 1", got)
	}
	w.use("a1", 9, noon)
	w.wantState("a1", noon, stoppedDaily)
}

// A team limit change whose limit is written but whose settling keeps losing
// races says so (not that nothing was applied); the same request again
// answers unchanged and pauses the team.
func TestATeamLimitWrittenButUnsettledAsksForTheSameRequestAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conflicts := &dynamolocal.ConflictInjector{}
	gap := &dynamolocal.Interleaver{}
	// The interleaver's option goes last, so it runs before the injector's.
	w := newCreditWorld(t, conflicts.Option(), gap.Option())
	w.use("a2", 30, noon)
	gap.Before(func() {
		w.use("a3", 25, noon) // 55 used under the old limit of 100
		// After the change's transaction, every transaction loses.
		gap.Before(func() { conflicts.Rate = 1 })
	})
	_, err := w.store.SetTeamLimit(ctx, testActor, false, "ws1", "t1", lim(50), noon)
	if err != workspace.ErrTeamLimitUnsettled {
		t.Fatalf("err = %v, want ErrTeamLimitUnsettled", err)
	}
	conflicts.Rate = 0
	out := w.setTeamLimit(ctx, lim(50))
	if !out.Unchanged || !out.Paused {
		t.Errorf("the same request again: %+v, want unchanged and paused", out)
	}
}

// A tag write that keeps losing races reports the tags the entity keeps, not
// the ones it asked for.
func TestATagWriteThatKeepsLosingReportsTheTagsKept(t *testing.T) {
	t.Parallel()
	losing := &dynamolocal.LosingUpdates{}
	w := newCreditWorld(t, losing.Option())
	losing.On.Store(true)
	outs, err := w.store.SetTags(context.Background(), workspace.KeyActor(workspace.Caller{KeyID: "key_1", UserID: "u1"}, "req-1"), "ws1", workspace.TaggableAgent, "", []string{"a1"},
		workspace.TagChange{Mode: workspace.TagModeAdd, Tags: []string{"new"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; !workspace.IsBusy(o.Err) || len(o.Tags) != 0 {
		t.Errorf("outcome %+v, want busy with the agent's tags unchanged (none)", o)
	}
}

// A tag write that lands between another's read and its write makes that
// other one lose its race: it reads the entity again and applies its change
// on top, so neither tag is lost.
func TestATagWriteThatLosesARaceAppliesOnTopOfTheWinner(t *testing.T) {
	t.Parallel()
	gap := &dynamolocal.Interleaver{}
	w := newCreditWorld(t, gap.Option())
	by := workspace.KeyActor(workspace.Caller{KeyID: "key_1", UserID: "u1"}, "req-1")
	add := func(kind workspace.Taggable, id, tag string) workspace.TagOutcome {
		t.Helper()
		outs, err := w.store.SetTags(context.Background(), by, "ws1", kind, "", []string{id},
			workspace.TagChange{Mode: workspace.TagModeAdd, Tags: []string{tag}}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return outs[0]
	}
	for _, tc := range []struct {
		kind workspace.Taggable
		id   string
	}{{workspace.TaggableAgent, "a1"}, {workspace.TaggableTeam, "t1"}} {
		gap.Before(func() { add(tc.kind, tc.id, "first") })
		if got := add(tc.kind, tc.id, "second"); got.Err != nil || !slices.Equal(got.Tags, []string{"first", "second"}) {
			t.Errorf("%s: outcome %+v, want tags [first second]", tc.kind, got)
		}
	}
}

// A daily-usage reset, a limit change and an enable do not starve behind
// ingest: usage that lands between their read and their write, every time,
// leaves their decision standing as long as it crosses no limit (a reset
// subtracts what it read, so the usage counts after it), and they commit at
// once. The agent's standing after is the one a sequential order gives.
func TestAgentWritesDoNotStarveBehindIngest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		write     func(ctx context.Context, w *creditWorld) workspace.CreditOutcome
		wantToday float64 // after the write and one usage of 0.5
	}{
		{"a daily-usage reset", func(ctx context.Context, w *creditWorld) workspace.CreditOutcome {
			return w.store.ResetDailyUsage(ctx, testActor, "ws1", "", []string{"a1"}, noon)[0]
		}, 0.5},
		{"a limit change", func(ctx context.Context, w *creditWorld) workspace.CreditOutcome {
			return w.store.SetAgentLimits(ctx, testActor, "ws1", "", []string{"a1"}, workspace.LimitChange{Daily: workspace.Value(20.0)}, noon)[0]
		}, 12.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			gap := &dynamolocal.Interleaver{}
			w := newCreditWorld(t, gap.Option())
			w.use("a1", 12, noon) // stopped by its daily limit of 10
			landed, done := 0, false
			var ingest func()
			ingest = func() { // usage before every transaction of the write
				if done || landed >= 30 {
					return
				}
				landed++
				w.use("a1", 0.5, noon)
				gap.Before(ingest)
			}
			gap.Before(ingest)
			out := tc.write(ctx, w)
			done = true
			if out.Err != nil || out.Unchanged {
				t.Fatalf("outcome %+v after %d usage events landed in its way, want it applied", out, landed)
			}
			if landed != 1 {
				t.Errorf("%d usage events landed before it committed, want 1: it decided again on usage that crossed no limit", landed)
			}
			if c := w.credit("a1", noon); c.Position.Today != tc.wantToday || !c.Own.IsRunning() {
				t.Errorf("today %v, state %+v; want %v counted and running", c.Position.Today, c.Own, tc.wantToday)
			}
		})
	}
}
