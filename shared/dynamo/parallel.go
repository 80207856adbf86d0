package dynamo

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// read is one round trip of reads that need nothing from each other: it
// stores what it read in a place of its own, which the caller combines, in
// a fixed order, once all have finished.
type read func(ctx context.Context) error

// readAll sends reads at once, at most batchConcurrency in flight, so that
// they cost the wait of one round trip (or of a few, past the bound)
// instead of one each. The first failure cancels the reads still running
// and is what readAll returns. Results stay deterministic: each read
// writes its own slot, and nothing depends on the order they finish in.
func readAll(ctx context.Context, reads ...read) error {
	if len(reads) == 1 {
		return reads[0](ctx)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(batchConcurrency)
	for _, r := range reads {
		g.Go(func() error { return r(ctx) })
	}
	return g.Wait()
}
