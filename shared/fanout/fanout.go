// Package fanout runs a batch's per-id work concurrently under a bound.
package fanout

import (
	"context"
	"sync"
)

// Limit is how many per-id writes of one batch request run at
// once: enough to hide DynamoDB's latency, few enough that one request cannot
// flood a partition.
const Limit = 8

// Run calls write(ctx, i) for i in [0, n) with at most limit calls running
// at once, and returns when all have returned. Each call owns index i of
// whatever it fills, so no locking is needed. Run does not watch ctx
// itself: every call runs and sees a cancelled ctx through its own store
// calls, so every id still gets a result.
func Run(ctx context.Context, n, limit int, write func(ctx context.Context, i int)) {
	if limit < 1 {
		limit = 1
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			write(ctx, i)
		}()
	}
	wg.Wait()
}
