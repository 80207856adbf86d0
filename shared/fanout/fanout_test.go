package fanout_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/fanout"
)

func TestRunRunsEveryCallWithinItsBound(t *testing.T) {
	for _, limit := range []int{1, 3, fanout.Limit} {
		var running, peak atomic.Int32
		done := make([]bool, 25)
		fanout.Run(context.Background(), len(done), limit, func(_ context.Context, i int) {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(2 * time.Millisecond)
			done[i] = true
			running.Add(-1)
		})
		for i, d := range done {
			if !d {
				t.Errorf("limit %d: call %d never ran", limit, i)
			}
		}
		if p := peak.Load(); p > int32(limit) {
			t.Errorf("limit %d: %d calls ran at once", limit, p)
		}
	}
}

func TestRunStillCallsEveryIndexOnACancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	fanout.Run(ctx, 10, 2, func(ctx context.Context, _ int) {
		if ctx.Err() != nil {
			calls.Add(1)
		}
	})
	if calls.Load() != 10 {
		t.Errorf("%d calls saw the cancelled context, want all 10 (each id needs a result)", calls.Load())
	}
}
