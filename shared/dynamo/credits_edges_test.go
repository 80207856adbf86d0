package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Edges an independent review found: each test once failed and names the rule it holds.

// Usage of a new day that reaches the daily limit before the 00:00 scheduler
// run is absorbed by the stale stop of the previous day (Escalate keeps the
// stored state, same rank); the scheduler then resumes the agent blindly,
// leaving it running with today's usage at its daily limit (docs/credit-rules.md:
// stopped once today's usage reaches its effective daily limit).
func TestSchedulerDoesNotResumeAnAgentWhoseNewDayUsageReachedItsLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCreditWorld(t)
	w.use("a1", 10, noon) // a1 daily limit 10: stopped on the 22nd
	tomorrow := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	early := tomorrow.Add(30 * time.Second)
	w.use("a1", 10, early) // the 23rd's usage reaches the limit before the scheduler runs
	if _, err := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), tomorrow); err != nil {
		t.Fatal(err)
	}
	c := w.credit("a1", early.Add(time.Minute))
	if c.Position.Today < 10 {
		t.Fatalf("today's usage = %v, want 10", c.Position.Today)
	}
	w.wantState("a1", early.Add(time.Minute), stoppedDaily)
}

// A late-arriving (older) event moves lastActivityAt backwards: the state
// item's lastActivityAt is SET to the batch's newest occurredAt, not the max
// with what is stored.
func TestLastActivityNeverMovesBackwards(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	w.use("a2", 1, noon)
	w.use("a2", 1, noon.Add(-48*time.Hour)) // an older event delivered late
	if got := w.credit("a2", noon).LastActivityAt; !got.Equal(noon) {
		t.Errorf("lastActivityAt = %v, want %v (the newest usage)", got, noon)
	}
}

// Team usage is summed over its shards in float64 (0.1 + 0.7 =
// 0.7999999999999999), so a team whose usage reaches its limit exactly is not
// paused when the usage landed in different shards (ev1 -> shard 1, ev2 ->
// shard 0). docs/credit-rules.md: paused once its month usage reaches the limit.
func TestATeamReachingItsLimitExactlyAcrossShardsPauses(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	if _, err := w.store.SetTeamLimit(context.Background(), testActor, false, "ws1", "t1", lim(0.8), noon); err != nil {
		t.Fatal(err)
	}
	w.use("a2", 0.7, noon) // ev1
	w.use("a2", 0.1, noon) // ev2
	w.wantState("a2", noon, pausedTeam)
}

// The same blind resume for a team: paused in November, its December usage
// reaches the limit before the Dec 1 run (settleTeam skips an already paused
// team), and the run un-pauses it anyway.
func TestSchedulerDoesNotResumeATeamWhoseNewMonthUsageReachedItsLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCreditWorld(t)
	w.use("a2", 100, noon) // t1 limit 100: paused in November
	december := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	early := december.Add(30 * time.Second)
	w.use("a2", 100, early) // December's usage reaches the limit before the run
	if _, err := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), december); err != nil {
		t.Fatal(err)
	}
	w.wantState("a2", early.Add(time.Minute), pausedTeam)
}
