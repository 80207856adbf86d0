// Package roundtrip counts the storage round trips of one request through its
// context: the HTTP layer opens a count per request and logs it, the
// storage client adds to it on every attempt it sends. Neither layer knows
// the other.
//
// Besides the total, a count measures the request's critical path: the
// round trips it made one after another. Latency is round trips in
// sequence, not round trips: eight reads sent at once cost one round trip's
// wait, eight sent in turn cost eight.
package roundtrip

import (
	"context"
	"sync"
)

// Counter counts round trips and their critical path. Each call that
// Begin starts is one step deeper than the deepest call that had finished
// when it started (the longest path of the graph whose edges run from a
// call's finish to the start of every call that began after it), which is
// exact for calls that fan out and in. Its zero value is ready to use, and
// it is safe for concurrent use.
type Counter struct {
	mu       sync.Mutex
	calls    int
	finished int // the deepest step of the calls finished so far
	deepest  int // the deepest step of the calls started so far
}

// Begin counts one call starting now and returns its step (1 for a call
// started before any finished) and the function that marks it finished.
func (c *Counter) Begin() (step int, end func()) {
	c.mu.Lock()
	c.calls++
	step = c.finished + 1
	c.deepest = max(c.deepest, step)
	c.mu.Unlock()
	return step, func() {
		c.mu.Lock()
		c.finished = max(c.finished, step)
		c.mu.Unlock()
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
	c.calls, c.finished, c.deepest = 0, 0, 0
	c.mu.Unlock()
}

type key struct{}

// Start returns ctx carrying a new count of round trips.
func Start(ctx context.Context) context.Context {
	return context.WithValue(ctx, key{}, new(Counter))
}

// Begin counts one round trip starting now in ctx's count, if it carries
// one, and returns the function to call when it has finished.
func Begin(ctx context.Context) (end func()) {
	if c, ok := ctx.Value(key{}).(*Counter); ok {
		_, end = c.Begin()
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
