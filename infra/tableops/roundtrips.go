package tableops

import (
	"context"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/roundtrip"
)

// RoundTrips counts the requests a DynamoDB client sends, retries included,
// and their critical path (roundtrip.Counter: how many were sent one after
// another), so tests can hold each API request to its round-trip budgets,
// and the read capacity units the reads consumed (ReadUnits), so they can
// hold it to what it reads.
type RoundTrips struct {
	counter roundtrip.Counter
	mu      sync.Mutex
	ops     []string
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
					_, end := c.counter.Begin(ctx)
					defer end()
					out, md, err := next.HandleFinalize(ctx, in)
					if err == nil {
						c.counter.AddReadUnits(dynamo.ReadUnits(out.Result))
					}
					return out, md, err
				}), middleware.After)
		})
	}
}

// Reset forgets every recorded round trip.
func (c *RoundTrips) Reset() {
	c.mu.Lock()
	c.ops = nil
	c.mu.Unlock()
	c.counter.Reset()
}

// Ops returns the operations sent since the last Reset, in the order they
// were sent (calls sent at once are in the order they happened to start).
func (c *RoundTrips) Ops() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.ops)
}

// ReadUnits returns the read capacity units the reads since the last Reset
// consumed, as DynamoDB reported them (every client of the service asks:
// dynamo.ClientFromConfig).
func (c *RoundTrips) ReadUnits() float64 {
	return c.counter.ReadUnits()
}

// Count returns the number of round trips since the last Reset.
func (c *RoundTrips) Count() int {
	return c.counter.Count()
}

// Depth returns the critical path of the round trips since the last Reset:
// the most of them sent one after another.
func (c *RoundTrips) Depth() int {
	return c.counter.Depth()
}

// OpCount returns how many of the round trips since the last Reset were of
// operation op (e.g. "TransactWriteItems").
func (c *RoundTrips) OpCount(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, o := range c.ops {
		if o == op {
			n++
		}
	}
	return n
}
