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
	// Rate is the share of transactions cancelled, from 0 to 1. Tests use
	// 0.2, the share the README estimates for a busy team's shards; with
	// the store's 8 attempts a transaction then exhausts them about once in
	// 400,000, so the tests see every retry path and never a flake.
	Rate     float64
	injected atomic.Int64
}

// Option returns the client option that injects the conflicts. They are
// raised before the request is sent, as the service would raise them.
func (c *ConflictInjector) Option() func(*dynamodb.Options) {
	return beforeTransactions("InjectTransactionConflicts", func(tx *dynamodb.TransactWriteItemsInput) error {
		if rand.Float64() >= c.Rate {
			return nil
		}
		c.injected.Add(1)
		reasons := make([]types.CancellationReason, len(tx.TransactItems))
		for i := range reasons {
			reasons[i] = types.CancellationReason{Code: aws.String("None")}
		}
		reasons[rand.IntN(len(reasons))] = types.CancellationReason{
			Code: aws.String("TransactionConflict"), Message: aws.String("Transaction is ongoing for the item"),
		}
		return &types.TransactionCanceledException{
			Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons"),
			CancellationReasons: reasons,
		}
	})
}

// Injected returns how many transactions were cancelled so far.
func (c *ConflictInjector) Injected() int64 { return c.injected.Load() }

// Interleaver runs a function just before a client's next TransactWriteItems
// call is sent, once: a test uses it to land a write between the reads a
// decision was taken on and the transaction that carries it out, the window
// DynamoDB leaves open and that tests otherwise only hit by luck.
type Interleaver struct {
	next atomic.Pointer[func()]
}

// Before arms f to run before the next transaction.
func (in *Interleaver) Before(f func()) { in.next.Store(&f) }

// Option returns the client option that runs the armed function. The
// function is disarmed before it runs, so its own transactions pass.
func (in *Interleaver) Option() func(*dynamodb.Options) {
	return beforeTransactions("InterleaveBeforeTransaction", func(*dynamodb.TransactWriteItemsInput) error {
		if f := in.next.Swap(nil); f != nil {
			(*f)()
		}
		return nil
	})
}

// beforeTransactions is a client option running f before each
// TransactWriteItems call is sent; an error from f is the call's answer.
func beforeTransactions(name string, f func(*dynamodb.TransactWriteItemsInput) error) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc(name,
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					if tx, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
						if err := f(tx); err != nil {
							return middleware.InitializeOutput{}, middleware.Metadata{}, err
						}
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	}
}
