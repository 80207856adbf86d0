package dynamo_test

import (
	"context"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// A BatchGetItem is read-committed per item, not a snapshot: it can return
// a limit from before a limit change and the state from after it. A state
// write decided on such a read must fail on its premises and decide again;
// these are the interleavings a review found, each with the read torn.

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

func TestATornReadNeverPausesATeamUnderALimitItIsBelow(t *testing.T) {
	tests := []struct {
		name string
		run  func(ctx context.Context, w *creditWorld, gap *dynamolocal.Interleaver, torn *dynamolocal.StaleRead)
	}{
		{"a change's settle reads the limit before another change raised it", func(ctx context.Context, w *creditWorld, gap *dynamolocal.Interleaver, torn *dynamolocal.StaleRead) {
			w.use("a2", 30, noon)
			gap.Before(func() {
				w.use("a3", 25, noon) // 55 used; ingest reads limit 100 and lets the team run
				torn.Arm(0, teamPK, teamSK, func() { w.setTeamLimit(ctx, lim(100)) })
			})
			w.setTeamLimit(ctx, lim(50))
		}},
		{"a repeated change reads the limit before another change raised it", func(ctx context.Context, w *creditWorld, _ *dynamolocal.Interleaver, torn *dynamolocal.StaleRead) {
			w.use("a2", 30, noon)
			w.setTeamLimit(ctx, lim(50))
			torn.Arm(0, teamPK, teamSK, func() {
				w.setTeamLimit(ctx, lim(100))
				w.use("a3", 25, noon) // 55 used under 100
			})
			w.setTeamLimit(ctx, lim(50))
		}},
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
	ctx := context.Background()
	torn := &dynamolocal.StaleRead{Raw: dynamolocal.NewClient(t, nil)}
	w := newCreditWorld(t, torn.Option())
	w.use("a1", 9, noon) // daily limit 10
	torn.Arm(1, a1UsagePK, a1Use, func() {
		if out := w.store.ResetDailyUsage(ctx, "ws1", "", []string{"a1"}, noon)[0]; out.Err != nil {
			t.Fatal(out.Err)
		}
	})
	w.use("a1", 2, noon) // 11 counted, then reset to 0 before the settle's read returns
	w.wantState("a1", noon, running)
}

// setTeamLimit sets t1's limit and fails the test on an error.
func (w *creditWorld) setTeamLimit(ctx context.Context, limit *float64) workspace.TeamLimitOutcome {
	w.t.Helper()
	out, err := w.store.SetTeamLimit(ctx, "ws1", "t1", limit, noon)
	if err != nil {
		w.t.Fatalf("team limit %v: %v", limit, err)
	}
	return out
}

// A limit change that read the agent's limits from before another change
// must not write the other limit back: it decides again on the new ones.
func TestATornReadNeverUndoesAnotherAgentLimitChange(t *testing.T) {
	ctx := context.Background()
	torn := &dynamolocal.StaleRead{Raw: dynamolocal.NewClient(t, nil)}
	w := newCreditWorld(t, torn.Option())
	torn.Arm(0, "WS#ws1", "AGENT#a1", func() {
		out := w.store.SetAgentLimits(ctx, "ws1", "", []string{"a1"}, workspace.LimitChange{Monthly: workspace.Value(300.0)}, noon)[0]
		if out.Err != nil {
			t.Fatal(out.Err)
		}
	})
	out := w.store.SetAgentLimits(ctx, "ws1", "", []string{"a1"}, workspace.LimitChange{Daily: workspace.Value(20.0)}, noon)[0]
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	a, err := w.store.Agent(ctx, "ws1", "a1")
	if err != nil {
		t.Fatal(err)
	}
	if a.DailyCreditLimit == nil || *a.DailyCreditLimit != 20 || a.MonthlyCreditLimit == nil || *a.MonthlyCreditLimit != 300 {
		t.Errorf("limits = %v, %v; want daily 20 and the other change's monthly 300", a.DailyCreditLimit, a.MonthlyCreditLimit)
	}
}
