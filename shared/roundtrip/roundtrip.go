// Package roundtrip counts the storage round trips of one request through its
// context: the HTTP layer opens a count per request and logs it, the
// storage client adds to it on every attempt it sends. Neither layer knows
// the other.
package roundtrip

import (
	"context"
	"sync/atomic"
)

type key struct{}

// Start returns ctx carrying a new count of round trips.
func Start(ctx context.Context) context.Context {
	return context.WithValue(ctx, key{}, new(atomic.Int64))
}

// Add counts one round trip in ctx's count, if it carries one.
func Add(ctx context.Context) {
	if n, ok := ctx.Value(key{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// Count returns the round trips counted in ctx so far (0 without a count).
func Count(ctx context.Context) int {
	if n, ok := ctx.Value(key{}).(*atomic.Int64); ok {
		return int(n.Load())
	}
	return 0
}
