// Package roundtrip counts the storage round trips of one request through its
// context: the HTTP layer opens a count per request and logs it, the
// storage client adds to it on every attempt it sends. Neither layer knows
// the other.
//
// Besides the total, a count measures the request's critical path: the
// round trips it made one after another. Latency is round trips in
// sequence, not round trips: eight reads sent at once cost one round trip's
// wait, eight sent in turn cost eight.
//
// The critical path follows the code's structure, not the clock: calls made
// in one context are in turn, and the contexts of calls sent at once come
// from Fork. A measure by the clock (a call is a step deeper than every
// call finished before it began) reads "at once" as "in turn" whenever a
// loaded machine starts one of the calls late, so the same request would
// measure differently from run to run.
//
// A count also sums the read capacity units the reads consumed, as DynamoDB
// reports them: what a request's reads cost, which round trips alone do not
// tell (one Query may read one item or 1 MB of them).
package roundtrip

import (
	"context"
	"sync"
)

// chain is the calls made in one context, one after another: each is a
// step deeper than the deepest call finished in it (the calls of the
// branches forked from it included, once they are joined).
type chain struct {
	mu    sync.Mutex
	depth int
	// anchor is set on the chains forked, directly or not, from a context
	// without one: their depths count from where each counter stood when
	// the first of them began.
	anchor *anchor
}

// anchor is where a tree of chains forked from a context without a chain
// starts, in each counter that counts its calls: the deepest call that
// counter had seen finish when the tree's first call began. Structured code
// finishes its calls in turn before it forks, so that is where the fork
// took place.
type anchor struct {
	mu    sync.Mutex
	bases map[*Counter]int
}

func (a *anchor) base(c *Counter, finished int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.bases[c]
	if !ok {
		b = finished
		a.bases[c] = b
	}
	return b
}

func (c *chain) next() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.depth + 1
}

func (c *chain) reach(step int) {
	c.mu.Lock()
	c.depth = max(c.depth, step)
	c.mu.Unlock()
}

type chainKey struct{}

func chainOf(ctx context.Context) *chain {
	c, _ := ctx.Value(chainKey{}).(*chain)
	return c
}

// Fork returns the contexts of n calls (or sequences of calls) that ctx
// sends at once, at most limit of them in flight, and join, to call once
// all of them have finished: the calls ctx makes after join are a step
// deeper than the deepest of theirs. Past limit, the k-th branch starts
// k/limit steps deeper, as it waits for a slot.
func Fork(ctx context.Context, n, limit int) (ctxs []context.Context, join func()) {
	parent := chainOf(ctx)
	base := 0
	var a *anchor
	if parent != nil {
		base, a = parent.next()-1, parent.anchor
	} else {
		a = &anchor{bases: map[*Counter]int{}}
	}
	limit = max(limit, 1)
	branches := make([]*chain, n)
	ctxs = make([]context.Context, n)
	for k := range n {
		branches[k] = &chain{depth: base + k/limit, anchor: a}
		ctxs[k] = context.WithValue(ctx, chainKey{}, branches[k])
	}
	return ctxs, func() {
		if parent == nil {
			return
		}
		for _, b := range branches {
			parent.reach(b.next() - 1)
		}
	}
}

// Counter counts round trips and their critical path. A call in a context
// that carries a chain (Start, Fork) is a step deeper than the deepest call
// finished in that chain; in one without, a step deeper than the deepest
// call this counter saw finish (the clock's measure, exact for calls made
// one after another; the calls that context sends at once come from Fork).
// Its zero value is ready to use, and it is safe for concurrent use.
// Several counters may count the same call: its step is the same in each.
type Counter struct {
	mu       sync.Mutex
	calls    int
	finished int // the deepest step of the calls finished so far
	deepest  int // the deepest step of the calls started so far
	// readUnits are the read capacity units the calls consumed, as
	// DynamoDB reported them (AddReadUnits).
	readUnits float64
}

// Begin counts one call of ctx starting now and returns its step (1 for
// the first call of a request) and the function that marks it finished.
func (c *Counter) Begin(ctx context.Context) (step int, end func()) {
	ch := chainOf(ctx)
	c.mu.Lock()
	c.calls++
	base := 0
	if ch != nil {
		if ch.anchor != nil {
			base = ch.anchor.base(c, c.finished)
		}
		step = base + ch.next()
	} else {
		step = c.finished + 1
	}
	c.deepest = max(c.deepest, step)
	c.mu.Unlock()
	return step, func() {
		c.mu.Lock()
		c.finished = max(c.finished, step)
		c.mu.Unlock()
		if ch != nil {
			ch.reach(step - base)
		}
	}
}

// Count returns the calls counted so far.
func (c *Counter) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// Depth returns the critical path of the calls counted so far: the most of
// them made one after another.
func (c *Counter) Depth() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deepest
}

// Reset forgets every call counted.
func (c *Counter) Reset() {
	c.mu.Lock()
	c.calls, c.finished, c.deepest, c.readUnits = 0, 0, 0, 0
	c.mu.Unlock()
}

// AddReadUnits adds read capacity units a call consumed.
func (c *Counter) AddReadUnits(units float64) {
	c.mu.Lock()
	c.readUnits += units
	c.mu.Unlock()
}

// ReadUnits returns the read capacity units counted so far.
func (c *Counter) ReadUnits() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readUnits
}

type key struct{}

// Start returns ctx carrying a new count of round trips, and a new chain:
// the request's calls are in turn unless forked (Fork).
func Start(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, chainKey{}, new(chain))
	return context.WithValue(ctx, key{}, new(Counter))
}

// Begin counts one round trip starting now in ctx's count, if it carries
// one, and returns the function to call when it has finished.
func Begin(ctx context.Context) (end func()) {
	if c, ok := ctx.Value(key{}).(*Counter); ok {
		_, end = c.Begin(ctx)
		return end
	}
	return func() {}
}

// Count returns the round trips counted in ctx so far (0 without a count).
func Count(ctx context.Context) int {
	if c, ok := ctx.Value(key{}).(*Counter); ok {
		return c.Count()
	}
	return 0
}

// Depth returns the critical path of the round trips counted in ctx so far
// (0 without a count).
func Depth(ctx context.Context) int {
	if c, ok := ctx.Value(key{}).(*Counter); ok {
		return c.Depth()
	}
	return 0
}

// AddReadUnits adds the read capacity units a call of ctx consumed to ctx's
// count, if it carries one: what a request reads, next to how often.
func AddReadUnits(ctx context.Context, units float64) {
	if c, ok := ctx.Value(key{}).(*Counter); ok {
		c.AddReadUnits(units)
	}
}

// ReadUnits returns the read capacity units counted in ctx so far (0
// without a count).
func ReadUnits(ctx context.Context) float64 {
	if c, ok := ctx.Value(key{}).(*Counter); ok {
		return c.ReadUnits()
	}
	return 0
}
