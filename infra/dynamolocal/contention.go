package dynamolocal

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Contention makes DynamoDB Local contend as DynamoDB does, item by item,
// for every client given its Option (several simulated Lambda environments
// share one Contention, as they share one table). DynamoDB Local runs
// transactions on the same item one after another; DynamoDB instead:
//
//   - holds a TransactWriteItems' items while it runs and commits, and
//     cancels another TransactWriteItems naming one of them before it
//     starts: TransactionCanceledException with one CancellationReason per
//     item, "TransactionConflict" (message "Transaction is ongoing for the
//     item.") on each held one, "None" on the others;
//   - cancels a TransactGetItems naming an item a transaction holds or a
//     single write is writing, the same way;
//   - refuses a PutItem, UpdateItem or DeleteItem of a held item with
//     TransactionConflictException, and so a BatchWriteItem naming one
//     (its writes are PutItems and DeleteItems; the whole call fails, the
//     stricter reading of the documentation, which does not say whether
//     the other items were written);
//   - serves about PartitionWCU write units a second per partition key,
//     and throttles past it: a single write with ThrottlingException
//     (reason TableWriteKeyRangeThroughputExceeded, what an on-demand
//     table answers for a hot key), a transaction with a cancellation
//     whose throttled items say "ThrottlingError", a BatchWriteItem as a
//     whole with ThrottlingException (DynamoDB returns the throttled items
//     as UnprocessedItems when only some are; no store path writes with
//     BatchWriteItem).
//
// The model sits after the SDK's retry middleware, so it judges every
// attempt and the SDK's retryer sees its answers as production's: it
// retries ThrottlingException (a throttle error, up to the client's
// attempts, costing the retry quota), and never retries
// TransactionConflictException or TransactionCanceledException (the
// store's own loops do). A refused attempt is never sent.
//
// Not modelled: read throughput, global secondary index partitions (whose
// throttling throttles base-table writes in DynamoDB), and adaptive
// capacity splitting a hot partition.
type Contention struct {
	// CommitTime is how long a transaction keeps holding its items after
	// DynamoDB Local answered it: the commit phase a DynamoDB transaction
	// still runs then. 0 means DefaultCommitTime.
	CommitTime time.Duration
	// PartitionWCU is the write units per second one partition key
	// serves, with up to a second of them saved up; 0 means
	// DefaultPartitionWCU, a negative value no budget. A plain write costs
	// 1 unit per KB of the item, a transactional one 2 per KB (each rounded
	// up), the size estimated from the request's item, or key and values.
	PartitionWCU float64

	// clock replaces time.Now in the package's tests.
	clock func() time.Time

	mu       sync.Mutex
	held     map[itemRef]*hold
	buckets  map[partitionRef]*bucket
	sweptAt  time.Time
	cancels  atomic.Int64
	gets     atomic.Int64
	refused  atomic.Int64
	throttle atomic.Int64
}

// The model's defaults: DynamoDB's partition write throughput, and a commit
// phase of a few milliseconds.
const (
	DefaultCommitTime   = 5 * time.Millisecond
	DefaultPartitionWCU = 1000
)

// Messages DynamoDB answers with (the SDK documents them with the codes).
const (
	conflictMessage = "Transaction is ongoing for the item."
	throttleMessage = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically " +
		"scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: " +
		"https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html."
	cancelledMessage = "Transaction cancelled, please refer cancellation reasons for specific reasons"
)

// ContentionStats counts what the model refused.
type ContentionStats struct {
	// TransactionsCancelled are TransactWriteItems attempts cancelled for
	// a held item.
	TransactionsCancelled int64
	// ReadsCancelled are TransactGetItems attempts cancelled for an item
	// being written.
	ReadsCancelled int64
	// WritesRefused are single writes (and BatchWriteItems) refused with
	// TransactionConflictException.
	WritesRefused int64
	// Throttled are attempts throttled, wholly or (a transaction's or a
	// batch's) in part.
	Throttled int64
}

// Conflicts is every refusal for a held item.
func (s ContentionStats) Conflicts() int64 {
	return s.TransactionsCancelled + s.ReadsCancelled + s.WritesRefused
}

// Stats returns the counts so far.
func (c *Contention) Stats() ContentionStats {
	return ContentionStats{
		TransactionsCancelled: c.cancels.Load(), ReadsCancelled: c.gets.Load(),
		WritesRefused: c.refused.Load(), Throttled: c.throttle.Load(),
	}
}

// itemRef names an item; partitionRef its partition key.
type (
	itemRef      struct{ table, pk, sk string }
	partitionRef struct{ table, pk string }
)

// hold is an item's state: transactions holding it (until the last one's
// commit ends), single writes writing it.
type hold struct {
	txs     int       // transactions in flight
	until   time.Time // end of the last commit phase
	writing int       // single writes in flight
}

func (h *hold) heldByTransaction(now time.Time) bool { return h.txs > 0 || now.Before(h.until) }

// bucket is a partition's write budget (a token bucket).
type bucket struct {
	tokens float64
	at     time.Time
}

// paramsKey carries an operation's input from the initialize step, where
// it is visible, to the finalize step after the retry middleware, where
// each attempt passes.
type paramsKey struct{}

// Option returns the client option that applies the model.
func (c *Contention) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			if err := s.Initialize.Add(middleware.InitializeMiddlewareFunc("ContentionParams",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					return next.HandleInitialize(middleware.WithStackValue(ctx, paramsKey{}, in.Parameters), in)
				}), middleware.After); err != nil {
				return err
			}
			return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("Contention",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
					middleware.FinalizeOutput, middleware.Metadata, error) {
					send := func() (middleware.FinalizeOutput, middleware.Metadata, error) {
						return next.HandleFinalize(ctx, in)
					}
					switch p := middleware.GetStackValue(ctx, paramsKey{}).(type) {
					case *dynamodb.TransactWriteItemsInput:
						return c.transactWrite(p, send)
					case *dynamodb.TransactGetItemsInput:
						return c.transactGet(p, send)
					case *dynamodb.PutItemInput:
						return c.single(itemRef{aws.ToString(p.TableName), keyPart(p.Item, "PK"), keyPart(p.Item, "SK")}, itemSize(p.Item, nil), send)
					case *dynamodb.UpdateItemInput:
						return c.single(itemRef{aws.ToString(p.TableName), keyPart(p.Key, "PK"), keyPart(p.Key, "SK")},
							itemSize(p.Key, p.ExpressionAttributeValues), send)
					case *dynamodb.DeleteItemInput:
						return c.single(itemRef{aws.ToString(p.TableName), keyPart(p.Key, "PK"), keyPart(p.Key, "SK")}, itemSize(p.Key, nil), send)
					case *dynamodb.BatchWriteItemInput:
						return c.batchWrite(p, send)
					}
					return send()
				}), middleware.After)
		})
	}
}

// sendFunc sends the attempt on.
type sendFunc func() (middleware.FinalizeOutput, middleware.Metadata, error)

func (c *Contention) now() time.Time {
	if c.clock != nil {
		return c.clock()
	}
	return time.Now()
}

func (c *Contention) commitTime() time.Duration {
	if c.CommitTime > 0 {
		return c.CommitTime
	}
	return DefaultCommitTime
}

// stateLocked returns the item's state, made on first use; c.mu is held.
func (c *Contention) stateLocked(r itemRef) *hold {
	if c.held == nil {
		c.held = map[itemRef]*hold{}
	}
	h := c.held[r]
	if h == nil {
		h = &hold{}
		c.held[r] = h
	}
	return h
}

// peekLocked returns the item's state or nil; c.mu is held.
func (c *Contention) peekLocked(r itemRef) *hold { return c.held[r] }

// sweepLocked forgets released items now and then, so the map holds about
// the items in use; c.mu is held.
func (c *Contention) sweepLocked(now time.Time) {
	if now.Sub(c.sweptAt) < time.Second {
		return
	}
	c.sweptAt = now
	for r, h := range c.held {
		if h.txs == 0 && h.writing == 0 && !now.Before(h.until) {
			delete(c.held, r)
		}
	}
}

// chargeLocked takes cost units from each partition's budget when every
// one of them has them, and returns the partitions that do not (taking
// nothing then); c.mu is held.
func (c *Contention) chargeLocked(now time.Time, cost map[partitionRef]float64) map[partitionRef]bool {
	rate := c.PartitionWCU
	if rate == 0 {
		rate = DefaultPartitionWCU
	}
	if rate < 0 {
		return nil
	}
	if c.buckets == nil {
		c.buckets = map[partitionRef]*bucket{}
	}
	var short map[partitionRef]bool
	for p, units := range cost {
		b := c.buckets[p]
		if b == nil {
			b = &bucket{tokens: rate, at: now}
			c.buckets[p] = b
		}
		b.tokens = math.Min(rate, b.tokens+rate*now.Sub(b.at).Seconds())
		b.at = now
		if b.tokens < units {
			if short == nil {
				short = map[partitionRef]bool{}
			}
			short[p] = true
		}
	}
	if short != nil {
		return short
	}
	for p, units := range cost {
		c.buckets[p].tokens -= units
	}
	return nil
}

// transactWrite cancels the transaction when another holds one of its
// items or a partition's budget is spent, and else holds its items while
// it runs and for the commit time after.
func (c *Contention) transactWrite(tx *dynamodb.TransactWriteItemsInput, send sendFunc) (middleware.FinalizeOutput, middleware.Metadata, error) {
	refs := make([]itemRef, len(tx.TransactItems))
	cost := map[partitionRef]float64{}
	for i, it := range tx.TransactItems {
		var size int
		refs[i], size = transactItem(it)
		cost[partitionRef{refs[i].table, refs[i].pk}] += 2 * units(size)
	}
	now := c.now()
	c.mu.Lock()
	c.sweepLocked(now)
	reasons := make([]types.CancellationReason, len(refs))
	conflict := false
	for i, r := range refs {
		reasons[i] = types.CancellationReason{Code: aws.String("None")}
		if h := c.peekLocked(r); h != nil && h.heldByTransaction(now) {
			reasons[i] = types.CancellationReason{Code: aws.String("TransactionConflict"), Message: aws.String(conflictMessage)}
			conflict = true
		}
	}
	if conflict {
		c.mu.Unlock()
		c.cancels.Add(1)
		return middleware.FinalizeOutput{}, middleware.Metadata{}, cancelled(reasons)
	}
	if short := c.chargeLocked(now, cost); short != nil {
		c.mu.Unlock()
		c.throttle.Add(1)
		for i, r := range refs {
			if short[partitionRef{r.table, r.pk}] {
				reasons[i] = types.CancellationReason{Code: aws.String("ThrottlingError"), Message: aws.String(throttleMessage)}
			}
		}
		return middleware.FinalizeOutput{}, middleware.Metadata{}, cancelled(reasons)
	}
	for _, r := range refs {
		c.stateLocked(r).txs++
	}
	c.mu.Unlock()

	out, md, err := send()

	until := c.now().Add(c.commitTime())
	c.mu.Lock()
	for _, r := range refs {
		h := c.stateLocked(r)
		h.txs--
		if err == nil && until.After(h.until) {
			h.until = until
		}
	}
	c.mu.Unlock()
	return out, md, err
}

// cancelled is DynamoDB's TransactionCanceledException for reasons.
func cancelled(reasons []types.CancellationReason) error {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = aws.ToString(r.Code)
	}
	return &types.TransactionCanceledException{
		Message:             aws.String(cancelledMessage + " [" + strings.Join(codes, ", ") + "]"),
		CancellationReasons: reasons,
	}
}

// transactGet cancels the read when a transaction holds one of its items
// or a single write is writing it.
func (c *Contention) transactGet(tx *dynamodb.TransactGetItemsInput, send sendFunc) (middleware.FinalizeOutput, middleware.Metadata, error) {
	now := c.now()
	reasons := make([]types.CancellationReason, len(tx.TransactItems))
	conflict := false
	c.mu.Lock()
	for i, it := range tx.TransactItems {
		reasons[i] = types.CancellationReason{Code: aws.String("None")}
		if it.Get == nil {
			continue
		}
		r := itemRef{aws.ToString(it.Get.TableName), keyPart(it.Get.Key, "PK"), keyPart(it.Get.Key, "SK")}
		if h := c.peekLocked(r); h != nil && (h.heldByTransaction(now) || h.writing > 0) {
			reasons[i] = types.CancellationReason{Code: aws.String("TransactionConflict"), Message: aws.String(conflictMessage)}
			conflict = true
		}
	}
	c.mu.Unlock()
	if conflict {
		c.gets.Add(1)
		return middleware.FinalizeOutput{}, middleware.Metadata{}, cancelled(reasons)
	}
	return send()
}

// single refuses a write of a held item and throttles one past its
// partition's budget; else the item is being written while it is sent.
func (c *Contention) single(r itemRef, size int, send sendFunc) (middleware.FinalizeOutput, middleware.Metadata, error) {
	now := c.now()
	c.mu.Lock()
	c.sweepLocked(now)
	if h := c.peekLocked(r); h != nil && h.heldByTransaction(now) {
		c.mu.Unlock()
		c.refused.Add(1)
		return middleware.FinalizeOutput{}, middleware.Metadata{}, &types.TransactionConflictException{Message: aws.String(conflictMessage)}
	}
	if short := c.chargeLocked(now, map[partitionRef]float64{{r.table, r.pk}: units(size)}); short != nil {
		c.mu.Unlock()
		c.throttle.Add(1)
		return middleware.FinalizeOutput{}, middleware.Metadata{}, throttled(r.table)
	}
	c.stateLocked(r).writing++
	c.mu.Unlock()
	defer c.doneWriting(r)
	return send()
}

// throttled is DynamoDB's ThrottlingException for a hot partition of table.
func throttled(table string) error {
	return &types.ThrottlingException{
		Message: aws.String(throttleMessage),
		ThrottlingReasons: []types.ThrottlingReason{{
			Reason:   aws.String("TableWriteKeyRangeThroughputExceeded"),
			Resource: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/" + table),
		}},
	}
}

// batchWrite refuses the batch when one of its items is held, and
// throttles it when one of its partitions' budget is spent; else its items
// are being written while it is sent.
func (c *Contention) batchWrite(batch *dynamodb.BatchWriteItemInput, send sendFunc) (middleware.FinalizeOutput, middleware.Metadata, error) {
	var refs []itemRef
	cost := map[partitionRef]float64{}
	for table, reqs := range batch.RequestItems {
		for _, w := range reqs {
			var r itemRef
			var size int
			switch {
			case w.PutRequest != nil:
				r, size = itemRef{table, keyPart(w.PutRequest.Item, "PK"), keyPart(w.PutRequest.Item, "SK")}, itemSize(w.PutRequest.Item, nil)
			case w.DeleteRequest != nil:
				r, size = itemRef{table, keyPart(w.DeleteRequest.Key, "PK"), keyPart(w.DeleteRequest.Key, "SK")}, itemSize(w.DeleteRequest.Key, nil)
			}
			refs = append(refs, r)
			cost[partitionRef{table, r.pk}] += units(size)
		}
	}
	now := c.now()
	c.mu.Lock()
	c.sweepLocked(now)
	for _, r := range refs {
		if h := c.peekLocked(r); h != nil && h.heldByTransaction(now) {
			c.mu.Unlock()
			c.refused.Add(1)
			return middleware.FinalizeOutput{}, middleware.Metadata{}, &types.TransactionConflictException{Message: aws.String(conflictMessage)}
		}
	}
	if short := c.chargeLocked(now, cost); short != nil {
		c.mu.Unlock()
		c.throttle.Add(1)
		return middleware.FinalizeOutput{}, middleware.Metadata{}, throttled(refs[0].table)
	}
	for _, r := range refs {
		c.stateLocked(r).writing++
	}
	c.mu.Unlock()
	defer c.doneWriting(refs...)
	return send()
}

// doneWriting ends the single writes of refs.
func (c *Contention) doneWriting(refs ...itemRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range refs {
		c.stateLocked(r).writing--
	}
}

// transactItem returns the item a transaction's action is on and its size.
func transactItem(it types.TransactWriteItem) (itemRef, int) {
	switch {
	case it.Put != nil:
		return itemRef{aws.ToString(it.Put.TableName), keyPart(it.Put.Item, "PK"), keyPart(it.Put.Item, "SK")},
			itemSize(it.Put.Item, nil)
	case it.Update != nil:
		return itemRef{aws.ToString(it.Update.TableName), keyPart(it.Update.Key, "PK"), keyPart(it.Update.Key, "SK")},
			itemSize(it.Update.Key, it.Update.ExpressionAttributeValues)
	case it.Delete != nil:
		return itemRef{aws.ToString(it.Delete.TableName), keyPart(it.Delete.Key, "PK"), keyPart(it.Delete.Key, "SK")},
			itemSize(it.Delete.Key, nil)
	case it.ConditionCheck != nil:
		return itemRef{aws.ToString(it.ConditionCheck.TableName), keyPart(it.ConditionCheck.Key, "PK"), keyPart(it.ConditionCheck.Key, "SK")},
			itemSize(it.ConditionCheck.Key, nil)
	}
	return itemRef{}, 0
}

// keyPart returns the string attribute name of m ("" when absent).
func keyPart(m map[string]types.AttributeValue, name string) string {
	if s, ok := m[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// units is the write units of size bytes: 1 per KB, rounded up, at least 1.
func units(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }

// itemSize estimates the size of an item from its attributes, or of an
// update from its key and values, as DynamoDB sizes items: names and
// values in bytes.
func itemSize(item map[string]types.AttributeValue, values map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + avSize(v)
	}
	for name, v := range values {
		n += len(name) + avSize(v)
	}
	return n
}

// avSize is an attribute value's size (numbers about one byte per two
// digits, containers 3 bytes plus their elements).
func avSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)/2 + 1
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberSS:
		return lengths(v.Value)
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += len(s)/2 + 1
		}
		return n
	case *types.AttributeValueMemberBS:
		return lengths(v.Value)
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + avSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for name, e := range v.Value {
			n += 1 + len(name) + avSize(e)
		}
		return n
	}
	return 1 // BOOL, NULL
}

// lengths is the sum of the lengths of a set's members.
func lengths[T ~string | ~[]byte](set []T) int {
	n := 0
	for _, m := range set {
		n += len(m)
	}
	return n
}
