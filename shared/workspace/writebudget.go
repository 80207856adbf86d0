package workspace

import (
	"context"
	"time"
)

// WriteBudget is how long after a write request arrives its store calls may
// still start another attempt of a write that lost a race (another request
// changed the same item first) or whose transaction was cancelled by a
// concurrent one. Past it the write gives up with ErrBusy (503 with
// Retry-After), so under any contention a write commits or answers within
// about a second: the budget, and the one attempt in flight when it ends.
const WriteBudget = 800 * time.Millisecond

// writeDeadlineKey is the context key of a request's write deadline.
type writeDeadlineKey struct{}

// WithWriteDeadline returns ctx carrying the moment after which no further
// attempt of a write may start (WriteBudget after the request arrived). It
// is no context deadline: a call already sent is never cut, since its
// outcome would then be unknown.
func WithWriteDeadline(ctx context.Context, deadline time.Time) context.Context {
	return context.WithValue(ctx, writeDeadlineKey{}, deadline)
}

// WriteDeadline returns ctx's write deadline; ok is false for work that is
// not a request's (ingest, the scheduler), whose retries are bounded by
// count instead.
func WriteDeadline(ctx context.Context) (deadline time.Time, ok bool) {
	deadline, ok = ctx.Value(writeDeadlineKey{}).(time.Time)
	return deadline, ok
}

// UsageWorkspaceBudget is how long the usage of one workspace in an ingest
// batch may keep retrying (transactions cancelled by concurrent ones,
// throttling, decisions that lost a race) before its events fail and go
// back to the queue. Each workspace of a batch has its own, so one tenant's
// contention never spends another's time. A batch holds at most 25 events,
// applied batchConcurrency (8) workspaces at a time: at most four budgets
// one after another, within the function's 30 s timeout.
const UsageWorkspaceBudget = 5 * time.Second
