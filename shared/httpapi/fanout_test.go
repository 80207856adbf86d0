package httpapi_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
)

func TestFanOutRunsEveryCallWithinItsBound(t *testing.T) {
	for _, limit := range []int{1, 3, httpapi.BatchConcurrency} {
		var running, peak atomic.Int32
		done := make([]bool, 25)
		httpapi.FanOut(context.Background(), len(done), limit, func(_ context.Context, i int) {
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

func TestFanOutStillCallsEveryIndexOnACancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	httpapi.FanOut(ctx, 10, 2, func(ctx context.Context, _ int) {
		if ctx.Err() != nil {
			calls.Add(1)
		}
	})
	if calls.Load() != 10 {
		t.Errorf("%d calls saw the cancelled context, want all 10 (each id needs a result)", calls.Load())
	}
}
