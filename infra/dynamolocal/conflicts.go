package dynamolocal

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// ConflictInjector makes a fixed share of a client's TransactWriteItems
// calls fail as real DynamoDB fails them when another transaction holds one
// of their items: TransactionCanceledException with a TransactionConflict
// reason. Contention models when that happens; this injector is for the
// tests that need every transaction from some point on to lose (Rate 1),
// to see how a write gives up, which no real contention produces on cue.
type ConflictInjector struct {
	// Rate is the share of transactions cancelled, from 0 to 1.
	Rate     float64
	injected atomic.Int64
}

// Option returns the client option that injects the conflicts. They are
// raised before the request is sent, as the service would raise them.
func (c *ConflictInjector) Option() func(*dynamodb.Options) {
	return before("InjectTransactionConflicts", func(tx *dynamodb.TransactWriteItemsInput) error {
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
	return before("InterleaveBeforeTransaction", func(*dynamodb.TransactWriteItemsInput) error {
		if f := in.next.Swap(nil); f != nil {
			(*f)()
		}
		return nil
	})
}

// before is a client option running f before each call whose input is an
// *In is sent; an error from f is the call's answer.
func before[In any](name string, f func(*In) error) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc(name,
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					if input, ok := in.Parameters.(*In); ok {
						if err := f(input); err != nil {
							return middleware.InitializeOutput{}, middleware.Metadata{}, err
						}
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	}
}

// LosingUpdates makes a client's UpdateItem calls, and the Updates of its
// transactions, fail their condition while On is set, as if another writer
// always changed the item first: a test drives an optimistic write to give up
// with it.
type LosingUpdates struct {
	On atomic.Bool
}

// Option returns the client option that fails the updates.
func (l *LosingUpdates) Option() func(*dynamodb.Options) {
	lose := before("LoseUpdates", func(*dynamodb.UpdateItemInput) error {
		if !l.On.Load() {
			return nil
		}
		return &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
	})
	loseInTransactions := before("LoseTransactionUpdates", func(tx *dynamodb.TransactWriteItemsInput) error {
		if !l.On.Load() {
			return nil
		}
		reasons := make([]types.CancellationReason, len(tx.TransactItems))
		lost := false
		for i, it := range tx.TransactItems {
			reasons[i] = types.CancellationReason{Code: aws.String("None")}
			if it.Update != nil && !lost {
				reasons[i] = types.CancellationReason{Code: aws.String("ConditionalCheckFailed"), Message: aws.String("The conditional request failed")}
				lost = true
			}
		}
		if !lost {
			return nil
		}
		return &types.TransactionCanceledException{
			Message:             aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons"),
			CancellationReasons: reasons,
		}
	})
	return func(o *dynamodb.Options) {
		lose(o)
		loseInTransactions(o)
	}
}

// StaleRead makes one BatchGetItem return one item as it was before a
// function ran and every other item as it is after: the view DynamoDB may
// give a BatchGetItem while a transaction commits, since its isolation is
// read-committed per item, not a snapshot. DynamoDB Local never tears a read,
// so without this no test would see one.
type StaleRead struct {
	// Raw reads the item's earlier version: a client without this option.
	Raw *dynamodb.Client

	mu   sync.Mutex
	arm  *staleArm
	torn bool
}

// staleArm is what StaleRead tears next.
type staleArm struct {
	skip   int
	pk, sk string
	during func()
}

// is reports whether item (or key) m is the armed item.
func (a *staleArm) is(m map[string]types.AttributeValue) bool {
	pk, _ := m["PK"].(*types.AttributeValueMemberS)
	sk, _ := m["SK"].(*types.AttributeValueMemberS)
	return pk != nil && sk != nil && pk.Value == a.pk && sk.Value == a.sk
}

// Arm makes the BatchGetItem after the next skip ones return the item
// (pk, sk) as it was before during ran, and the rest as after.
func (r *StaleRead) Arm(skip int, pk, sk string, during func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.arm, r.torn = &staleArm{skip: skip, pk: pk, sk: sk, during: during}, false
}

// Torn reports whether the armed read happened and held the item: a test
// whose read was not torn proves nothing.
func (r *StaleRead) Torn() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.torn
}

// take returns the arm when this BatchGetItem is the one to tear.
func (r *StaleRead) take() *staleArm {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.arm == nil {
		return nil
	}
	if r.arm.skip > 0 {
		r.arm.skip--
		return nil
	}
	arm := r.arm
	r.arm = nil
	return arm
}

// Option returns the client option that tears the armed read.
func (r *StaleRead) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("TearBatchGetItem",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					send := func() (middleware.InitializeOutput, middleware.Metadata, error) {
						return next.HandleInitialize(ctx, in)
					}
					batch, ok := in.Parameters.(*dynamodb.BatchGetItemInput)
					if !ok {
						return send()
					}
					arm := r.take()
					if arm == nil {
						return send()
					}
					return r.tear(ctx, batch, arm, send)
				}), middleware.Before)
		})
	}
}

// tear reads arm's item, runs arm.during, sends the batch and puts the
// earlier version of the item in its answer.
func (r *StaleRead) tear(ctx context.Context, batch *dynamodb.BatchGetItemInput, arm *staleArm,
	send func() (middleware.InitializeOutput, middleware.Metadata, error)) (middleware.InitializeOutput, middleware.Metadata, error) {
	k := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: arm.pk}, "SK": &types.AttributeValueMemberS{Value: arm.sk},
	}
	for table, req := range batch.RequestItems {
		if !slices.ContainsFunc(req.Keys, arm.is) {
			continue
		}
		early, err := r.Raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: k, ConsistentRead: aws.Bool(true)})
		if err != nil {
			return middleware.InitializeOutput{}, middleware.Metadata{}, err
		}
		arm.during()
		out, md, err := send()
		if err != nil {
			return out, md, err
		}
		res := out.Result.(*dynamodb.BatchGetItemOutput)
		items := res.Responses[table][:0]
		for _, it := range res.Responses[table] {
			if !arm.is(it) {
				items = append(items, it)
			}
		}
		if early.Item != nil {
			items = append(items, early.Item)
		}
		res.Responses[table] = items
		r.mu.Lock()
		r.torn = true
		r.mu.Unlock()
		return out, md, nil
	}
	arm.during()
	return send()
}

// OneAtATime is a client option that sends the client's calls one at a
// time, as a machine too loaded to run two at once would: calls the code
// sends at once then run in turn, in whatever order. Tests use it to hold
// the critical path (package roundtrip) to the code's structure, which no
// scheduling may change.
func OneAtATime() func(*dynamodb.Options) {
	var one sync.Mutex
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("OneAtATime",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
					middleware.FinalizeOutput, middleware.Metadata, error) {
					one.Lock()
					defer one.Unlock()
					return next.HandleFinalize(ctx, in)
				}), middleware.After)
		})
	}
}
