package dynamo

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/agentplatform/workspaceapi/shared/roundtrip"
)

// batchConcurrency is how many calls of one request's per-id or per-chunk
// work run at once: enough to hide DynamoDB's latency, few enough that one
// request cannot flood a partition.
const batchConcurrency = 8

// fanOut runs task(ctx, i) for every i below n, at most batchConcurrency at
// once, and returns when all have finished. Every task runs, on a cancelled
// context too: it sees the cancellation through its own store calls, so
// every id still gets a result. Each task writes its own slot, so results
// stay deterministic whatever order the tasks finish in.
//
// The tasks' contexts come from roundtrip.Fork: the request's critical path
// counts them as sent at once, however late a loaded machine starts one.
func fanOut(ctx context.Context, n int, task func(ctx context.Context, i int)) {
	fanOutWide(ctx, n, batchConcurrency, task)
}

// fanOutWide is fanOut with at most width tasks at once: for reads of as
// many different partitions (the usage shards), which load none twice.
func fanOutWide(ctx context.Context, n, width int, task func(ctx context.Context, i int)) {
	if n == 1 {
		task(ctx, 0)
		return
	}
	ctxs, join := roundtrip.Fork(ctx, n, width)
	defer join()
	var g errgroup.Group
	g.SetLimit(width)
	for i := range n {
		g.Go(func() error { task(ctxs[i], i); return nil })
	}
	_ = g.Wait()
}

// read is one round trip of reads that need nothing from each other: it
// stores what it read in a place of its own, which the caller combines, in
// a fixed order, once all have finished.
type read func(ctx context.Context) error

// readAll sends reads at once (fanOut), so that they cost the wait of one
// round trip (or of a few, past the bound) instead of one each. The first
// failure cancels the reads still running and is what readAll returns.
func readAll(ctx context.Context, reads ...read) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var first error
	var once sync.Once
	fanOut(ctx, len(reads), func(ctx context.Context, i int) {
		if err := reads[i](ctx); err != nil {
			once.Do(func() { first = err; cancel() })
		}
	})
	return first
}
