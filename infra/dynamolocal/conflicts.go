package dynamolocal

import (
	"context"
	"math/rand/v2"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// ConflictInjector makes a share of a client's TransactWriteItems calls fail
// as real DynamoDB fails them when another transaction holds one of their
// items: TransactionCanceledException with a TransactionConflict reason.
// DynamoDB Local queues such transactions instead, so without this no test
// would see the cancellations production sees.
type ConflictInjector struct {
	// Rate is the share of transactions cancelled, from 0 to 1.
	Rate     float64
	injected atomic.Int64
}

// Option returns the client option that injects the conflicts. They are
// raised before the request is sent, as the service would raise them.
func (c *ConflictInjector) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("InjectTransactionConflicts",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					tx, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput)
					if !ok || rand.Float64() >= c.Rate {
						return next.HandleInitialize(ctx, in)
					}
					c.injected.Add(1)
					reasons := make([]types.CancellationReason, len(tx.TransactItems))
					for i := range reasons {
						reasons[i] = types.CancellationReason{Code: aws.String("None")}
					}
					reasons[rand.IntN(len(reasons))] = types.CancellationReason{
						Code: aws.String("TransactionConflict"), Message: aws.String("Transaction is ongoing for the item"),
					}
					return middleware.InitializeOutput{}, middleware.Metadata{}, &types.TransactionCanceledException{
						Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons"),
						CancellationReasons: reasons,
					}
				}), middleware.Before)
		})
	}
}

// Injected returns how many transactions were cancelled so far.
func (c *ConflictInjector) Injected() int64 { return c.injected.Load() }
