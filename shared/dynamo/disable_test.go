package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Disable racing usage, limit changes, resets and scheduler runs: whatever
// the interleaving, the agent ends disabled with every credit counted, the
// scheduler never resumes it, enabling it re-evaluates its limits on the
// figures it finds, and each change's event is written once.
func TestDisableRacingUsageLimitsResetsAndTheScheduler(t *testing.T) {
	t.Parallel()
	for round := range 3 {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newStreamedCreditWorld(t)
			yesterday := noon.Add(-24 * time.Hour)
			w.use("a1", 10, yesterday) // a1 (daily 10, monthly 30) stopped by its daily limit yesterday
			w.wantState("a1", noon, workspace.AgentState{Status: workspace.StatusStopped, Reason: workspace.ReasonDailyLimit})

			var wg sync.WaitGroup
			var disabled []workspace.CreditOutcome
			wg.Go(func() { disabled = w.store.SetAgentStatus(ctx, testActor, "ws1", "", []string{"a1"}, true, noon) })
			for i := range 20 {
				wg.Go(func() {
					// A usage the store gives up on (busy) is delivered again,
					// as the queue would, up to its five receives.
					var err error
					for receive := 1; receive <= 5; receive++ {
						rep := w.store.ApplyUsage(ctx, workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{{EventID: fmt.Sprintf("race-%d", i), WorkspaceID: "ws1",
							AgentID: "a1", Credits: 0.5, OccurredAt: noon}}, noon)
						if err = rep.Errs[0]; err == nil || !workspace.IsBusy(err) {
							break
						}
					}
					if err != nil {
						t.Errorf("usage %d: %v", i, err)
					}
				})
			}
			wg.Go(func() {
				out := w.store.SetAgentLimits(ctx, testActor, "ws1", "", []string{"a1"}, workspace.LimitChange{Daily: workspace.Value(8.0)}, noon)
				if out[0].Err != nil {
					t.Errorf("limit change: %v", out[0].Err)
				}
			})
			wg.Go(func() {
				if out := w.store.ResetDailyUsage(ctx, testActor, "ws1", "", []string{"a1"}, noon); out[0].Err != nil {
					t.Errorf("reset: %v", out[0].Err)
				}
			})
			wg.Go(func() {
				if _, err := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), noon); err != nil {
					t.Errorf("scheduler: %v", err)
				}
			})
			wg.Wait()
			if disabled[0].Err != nil || disabled[0].Unchanged {
				t.Fatalf("disable: %+v", disabled[0])
			}

			c := w.credit("a1", noon)
			if c.State() != workspace.Disabled || c.Position.Month != 20 {
				t.Fatalf("a1 is %+v with %g this month, want disabled with 20 (every credit counted)", c.State(), c.Position.Month)
			}
			// Another run of the scheduler resumes nothing of it.
			run, err := w.store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), noon)
			if err != nil {
				t.Fatal(err)
			}
			if run.ResumedAgents != 0 {
				t.Errorf("the scheduler resumed %d agents (a1 is disabled): %+v", run.ResumedAgents, run)
			}
			w.wantState("a1", noon, workspace.Disabled)

			// Enabled, its own state is what its limits call for on its figures.
			enabled := w.store.SetAgentStatus(ctx, testActor, "ws1", "", []string{"a1"}, false, noon)
			if enabled[0].Err != nil || enabled[0].Impact == nil {
				t.Fatalf("enable: %+v", enabled[0])
			}
			c = w.credit("a1", noon)
			if want := c.Position.OwnState(); c.Own != want || c.State() != *enabled[0].Impact {
				t.Errorf("enabled a1: own %+v, impact %+v; its figures (%g today, %g this month, daily limit %v) call for %+v",
					c.Own, *enabled[0].Impact, c.Position.Today, c.Position.Month, *c.Position.DailyLimit, want)
			}

			// Each change's event once: one disable, one enable, each threshold at most once.
			counts := map[string]int{}
			for _, ev := range streamEvents(t, w.store.Table(), -1) {
				k := ev.DetailType
				if ev.DetailType == workspace.EventThresholdReached {
					k = fmt.Sprintf("%s %s %d %s", k, ev.Reason, ev.Threshold, ev.Period)
				}
				counts[k]++
			}
			if counts[workspace.EventAgentDisabled] != 1 || counts[workspace.EventAgentEnabled] != 1 {
				t.Errorf("events %v: want one Agent Disabled and one Agent Enabled", counts)
			}
			for k, n := range counts {
				if n > 1 && k != workspace.EventAgentStopped && k != workspace.EventAgentResumed {
					t.Errorf("%s published %d times, want once", k, n)
				}
			}
		})
	}
}
