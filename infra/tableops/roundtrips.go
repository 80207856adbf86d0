package tableops

import (
	"context"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// RoundTrips counts the requests a DynamoDB client sends, retries included, so
// tests can hold each API request to its round-trip budget.
type RoundTrips struct {
	mu  sync.Mutex
	ops []string
}

// Option returns a client option that records every attempt of every operation.
func (c *RoundTrips) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			// Finalize, after the retry middleware: one call per attempt on the wire.
			return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("CountRoundTrips",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
					middleware.FinalizeOutput, middleware.Metadata, error) {
					c.mu.Lock()
					c.ops = append(c.ops, middleware.GetOperationName(ctx))
					c.mu.Unlock()
					return next.HandleFinalize(ctx, in)
				}), middleware.After)
		})
	}
}

// Reset forgets every recorded round trip.
func (c *RoundTrips) Reset() {
	c.mu.Lock()
	c.ops = nil
	c.mu.Unlock()
}

// Ops returns the operations sent since the last Reset, in order.
func (c *RoundTrips) Ops() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.ops)
}

// Count returns the number of round trips since the last Reset.
func (c *RoundTrips) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ops)
}
