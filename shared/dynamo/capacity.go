package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/agentplatform/workspaceapi/shared/roundtrip"
)

// countReadUnits is the client option (every client's: ClientFromConfig)
// that asks DynamoDB what each read consumed (ReturnConsumedCapacity TOTAL
// on GetItem, BatchGetItem, Query, Scan and TransactGetItems) and adds it to
// the request's read units (package roundtrip), for the request log: the
// round trips say how often a request reads, the units how much. The
// caller's input is copied, never changed.
func countReadUnits(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("CountReadUnits",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
				middleware.InitializeOutput, middleware.Metadata, error) {
				in.Parameters = withConsumedCapacity(in.Parameters)
				out, md, err := next.HandleInitialize(ctx, in)
				if err == nil {
					roundtrip.AddReadUnits(ctx, ReadUnits(out.Result))
				}
				return out, md, err
			}), middleware.After)
	})
}

// withConsumedCapacity returns a copy of a read's input that asks for the
// capacity it consumes; other inputs are returned as they are.
func withConsumedCapacity(params any) any {
	const total = types.ReturnConsumedCapacityTotal
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		c := *in
		c.ReturnConsumedCapacity = total
		return &c
	case *dynamodb.BatchGetItemInput:
		c := *in
		c.ReturnConsumedCapacity = total
		return &c
	case *dynamodb.QueryInput:
		c := *in
		c.ReturnConsumedCapacity = total
		return &c
	case *dynamodb.ScanInput:
		c := *in
		c.ReturnConsumedCapacity = total
		return &c
	case *dynamodb.TransactGetItemsInput:
		c := *in
		c.ReturnConsumedCapacity = total
		return &c
	}
	return params
}

// ReadUnits returns the read capacity units a read's output reports
// consumed (0 for other outputs, or when the read did not ask): DynamoDB
// charges a strongly consistent read 1 unit per 4 KB of each item a
// GetItem or BatchGetItem reads and per 4 KB of all the items a Query or
// Scan reads, an eventually consistent read half that, and a transactional
// read twice that.
func ReadUnits(result any) float64 {
	units := func(cs ...types.ConsumedCapacity) float64 {
		var u float64
		for _, c := range cs {
			if c.CapacityUnits != nil {
				u += *c.CapacityUnits
			}
		}
		return u
	}
	one := func(c *types.ConsumedCapacity) float64 {
		if c == nil {
			return 0
		}
		return units(*c)
	}
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		return one(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		return units(out.ConsumedCapacity...)
	case *dynamodb.QueryOutput:
		return one(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		return one(out.ConsumedCapacity)
	case *dynamodb.TransactGetItemsOutput:
		return units(out.ConsumedCapacity...)
	}
	return 0
}
