package dynamolocal

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(RunTests(m)) }

// modelClock is a clock a test moves by hand, so holds and budgets depend
// on no machine's speed.
type modelClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *modelClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *modelClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// contended is a table behind a Contention on a hand-moved clock.
type contended struct {
	t      *testing.T
	model  *Contention
	clock  *modelClock
	client *dynamodb.Client
	table  string
}

func newContended(t *testing.T, model *Contention, more ...func(*dynamodb.Options)) *contended {
	t.Helper()
	clock := &modelClock{t: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	model.clock = clock.now
	client := NewClient(t, nil, append([]func(*dynamodb.Options){model.Option()}, more...)...)
	return &contended{t: t, model: model, clock: clock, client: client, table: NewTable(t, client)}
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}}
}

// update is a transaction's ADD of 1 to the item's n.
func (c *contended) update(pk, sk string) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(c.table), Key: key(pk, sk), UpdateExpression: aws.String("ADD n :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
	}}
}

func (c *contended) transact(items ...types.TransactWriteItem) error {
	_, err := c.client.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

func (c *contended) put(pk, sk string) error {
	_, err := c.client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(c.table), Item: key(pk, sk)})
	return err
}

// reasons returns the codes of a cancellation, or fails the test.
func reasons(t *testing.T, err error) []string {
	t.Helper()
	var cancelled *types.TransactionCanceledException
	if !errors.As(err, &cancelled) {
		t.Fatalf("err = %v, want TransactionCanceledException", err)
	}
	var codes []string
	for _, r := range cancelled.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
		if aws.ToString(r.Code) == "TransactionConflict" && aws.ToString(r.Message) != "Transaction is ongoing for the item." {
			t.Errorf("conflict message %q", aws.ToString(r.Message))
		}
	}
	return codes
}

// A transaction naming an item another transaction holds is cancelled
// before it runs, with one reason per item; one naming other items passes.
func TestATransactionOnAHeldItemIsCancelledWithAReasonPerItem(t *testing.T) {
	t.Parallel()
	c := newContended(t, &Contention{CommitTime: time.Second, PartitionWCU: -1})
	if err := c.transact(c.update("A", "1"), c.update("B", "1")); err != nil {
		t.Fatal(err)
	}
	// A and B are committing for a second of the model's clock.
	err := c.transact(c.update("C", "1"), c.update("A", "1"), c.update("D", "1"))
	if got := reasons(t, err); !slices.Equal(got, []string{"None", "TransactionConflict", "None"}) {
		t.Errorf("reasons %v, want [None TransactionConflict None]", got)
	}
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) && aws.ToString(cancelled.Message) !=
		"Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict, None]" {
		t.Errorf("message %q", aws.ToString(cancelled.Message))
	}
	if err := c.transact(c.update("C", "1"), c.update("D", "1")); err != nil {
		t.Errorf("a transaction on other items: %v, want it to pass", err)
	}
	_, err = c.client.TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String(c.table), Key: key("E", "1")}},
		{Get: &types.Get{TableName: aws.String(c.table), Key: key("B", "1")}},
	}})
	if got := reasons(t, err); !slices.Equal(got, []string{"None", "TransactionConflict"}) {
		t.Errorf("TransactGetItems reasons %v, want [None TransactionConflict]", got)
	}
	if s := c.model.Stats(); s.TransactionsCancelled != 1 || s.ReadsCancelled != 1 || s.Conflicts() != 2 {
		t.Errorf("stats %+v, want one transaction and one read cancelled", s)
	}
}

// A single write of a held item is refused with TransactionConflictException,
// which the SDK does not retry; once the transaction and its commit time are
// over, the item takes writes and transactions again.
func TestASingleWriteOfAHeldItemIsRefusedUntilTheCommitEnds(t *testing.T) {
	t.Parallel()
	c := newContended(t, &Contention{CommitTime: 50 * time.Millisecond, PartitionWCU: -1})
	if err := c.transact(c.update("A", "1")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl := aws.String(c.table)
	writes := map[string]func() error{
		"PutItem": func() error { return c.put("A", "1") },
		"UpdateItem": func() error {
			_, err := c.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key("A", "1"), UpdateExpression: aws.String("SET x = :x"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":x": &types.AttributeValueMemberS{Value: "y"}}})
			return err
		},
		"DeleteItem": func() error {
			_, err := c.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: key("A", "1")})
			return err
		},
		"BatchWriteItem": func() error {
			_, err := c.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{c.table: {
				{PutRequest: &types.PutRequest{Item: key("Z", "1")}}, {PutRequest: &types.PutRequest{Item: key("A", "1")}},
			}}})
			return err
		},
	}
	for op, write := range writes {
		var conflict *types.TransactionConflictException
		if err := write(); !errors.As(err, &conflict) || aws.ToString(conflict.Message) != "Transaction is ongoing for the item." {
			t.Errorf("%s of a held item: %v, want TransactionConflictException", op, err)
		}
	}
	if s := c.model.Stats(); s.WritesRefused != int64(len(writes)) {
		t.Errorf("%d writes refused, want %d: one attempt each, not retried", s.WritesRefused, len(writes))
	}
	c.clock.add(49 * time.Millisecond)
	if err := c.put("A", "1"); err == nil {
		t.Error("a write within the commit time passed")
	}
	c.clock.add(2 * time.Millisecond)
	if err := c.put("A", "1"); err != nil {
		t.Errorf("a write after the commit time: %v", err)
	}
	if err := c.transact(c.update("A", "1")); err != nil {
		t.Errorf("a transaction after the commit time: %v", err)
	}
}

// A partition serves PartitionWCU write units a second: writes within the
// budget pass, the next one is throttled (ThrottlingException, retried by
// the SDK until its attempts are spent; a transaction is cancelled with
// ThrottlingError on the partition's items), and other partitions are not.
func TestAPartitionIsThrottledPastItsWriteBudget(t *testing.T) {
	t.Parallel()
	noRetries := func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }
	c := newContended(t, &Contention{PartitionWCU: 6}, noRetries)
	for i := range 6 {
		if err := c.put("P", string(rune('a'+i))); err != nil {
			t.Fatalf("write %d within the budget: %v", i, err)
		}
	}
	var throttled *types.ThrottlingException
	if err := c.put("P", "x"); !errors.As(err, &throttled) ||
		len(throttled.ThrottlingReasons) != 1 || aws.ToString(throttled.ThrottlingReasons[0].Reason) != "TableWriteKeyRangeThroughputExceeded" {
		t.Fatalf("a write past the budget: %v, want ThrottlingException for the key range", err)
	}
	if err := c.put("Q", "a"); err != nil {
		t.Errorf("another partition: %v, want it to pass", err)
	}
	// Half a second refills 3 units: a transactional write of a small item
	// costs 2, so one passes and the next is cancelled.
	c.clock.add(500 * time.Millisecond)
	if err := c.transact(c.update("P", "a")); err != nil {
		t.Fatalf("a transaction within the refilled budget: %v", err)
	}
	if got := reasons(t, c.transact(c.update("Q", "b"), c.update("P", "b"))); !slices.Equal(got, []string{"None", "ThrottlingError"}) {
		t.Errorf("reasons %v, want [None ThrottlingError]", got)
	}
	if s := c.model.Stats(); s.Throttled != 2 || s.Conflicts() != 0 {
		t.Errorf("stats %+v, want 2 throttled and no conflict", s)
	}

	// The unit left goes to a plain write. With the store's retryer, each
	// attempt after it is throttled again and the call ends as storage
	// unavailable.
	if err := c.put("P", "z"); err != nil {
		t.Fatalf("a plain write of the unit left: %v", err)
	}
	retrying := NewClient(t, nil, c.model.Option())
	before := c.model.Stats().Throttled
	_, err := retrying.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(c.table), Item: key("P", "y")})
	if !errors.As(err, &throttled) || !errors.Is(err, workspace.ErrStorageUnavailable) {
		t.Errorf("err = %v, want ThrottlingException as storage unavailable", err)
	}
	if got := c.model.Stats().Throttled - before; got != 3 {
		t.Errorf("%d attempts throttled, want 3 (the SDK retries throttling)", got)
	}
}
