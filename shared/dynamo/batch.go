package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/fanout"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// maxBatchGet is BatchGetItem's limit of keys per request.
const maxBatchGet = 100

// maxUnprocessedRetries bounds the retries of keys DynamoDB left unprocessed.
const maxUnprocessedRetries = 8

// batchGet reads the items at keys with strongly consistent reads, in as few
// round trips as BatchGetItem allows (up to fanout.Limit of them at once),
// and returns them by PK and SK; missing items are absent from the map.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue) (map[[2]string]map[string]types.AttributeValue, error) {
	found := make(map[[2]string]map[string]types.AttributeValue, len(keys))
	chunks := (len(keys) + maxBatchGet - 1) / maxBatchGet
	var mu sync.Mutex
	errs := make([]error, chunks)
	fanout.Run(ctx, chunks, fanout.Limit, func(ctx context.Context, c int) {
		start := c * maxBatchGet
		errs[c] = s.batchGetChunk(ctx, keys[start:min(start+maxBatchGet, len(keys))], func(item map[string]types.AttributeValue) {
			mu.Lock()
			found[itemKey(item)] = item
			mu.Unlock()
		})
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return found, nil
}

// batchGetChunk reads up to maxBatchGet keys, retrying the unprocessed ones,
// and hands each item found to got.
func (s *Store) batchGetChunk(ctx context.Context, keys []map[string]types.AttributeValue, got func(map[string]types.AttributeValue)) error {
	pending := map[string]types.KeysAndAttributes{s.table: {Keys: keys, ConsistentRead: aws.Bool(true)}}
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt > maxUnprocessedRetries {
			return errors.New("batch get: keys still unprocessed after retries")
		}
		if attempt > 0 {
			backoff(ctx, attempt)
		}
		out, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
		if err != nil {
			return fmt.Errorf("batch get: %w", err)
		}
		for _, item := range out.Responses[s.table] {
			got(item)
		}
		pending = out.UnprocessedKeys
	}
	return nil
}

// itemKey returns an item's PK and SK.
func itemKey(item map[string]types.AttributeValue) [2]string {
	pk, _ := item[attrPK].(*types.AttributeValueMemberS)
	sk, _ := item[attrSK].(*types.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return [2]string{}
	}
	return [2]string{pk.Value, sk.Value}
}

// maxBatchWrite is BatchWriteItem's limit of requests per call.
const maxBatchWrite = 25

// putAll writes items with BatchWriteItem, 25 a call, retrying unprocessed ones.
func (s *Store) putAll(ctx context.Context, items []map[string]types.AttributeValue) error {
	for start := 0; start < len(items); start += maxBatchWrite {
		var reqs []types.WriteRequest
		for _, item := range items[start:min(start+maxBatchWrite, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		}
		pending := map[string][]types.WriteRequest{s.table: reqs}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > maxUnprocessedRetries {
				return errors.New("batch write: items still unprocessed after retries")
			}
			if attempt > 0 {
				backoff(ctx, attempt)
			}
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				return fmt.Errorf("batch write: %w", err)
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

// backoff sleeps an exponentially growing, jittered time before retry attempt n.
func backoff(ctx context.Context, attempt int) {
	d := time.Duration(1<<min(attempt, 6)) * 5 * time.Millisecond
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// maxTransactAttempts bounds the retries of a transaction that lost a race
// (TransactionConflict) without failing any of its conditions.
const maxTransactAttempts = 8

// transact runs a write transaction. It returns nil, nil on success, and the
// indexes of the items whose conditions failed, with a nil error, when it was
// cancelled for them. A cancellation caused only by concurrent transactions on
// the same items (TransactionConflict, which real DynamoDB answers where
// DynamoDB Local queues) or by throttling is retried with backoff, since
// nothing about the data rules the write out. TransactionInProgressException
// is left to the SDK's retryer, which already retries it.
func (s *Store) transact(ctx context.Context, items []types.TransactWriteItem) (failed []int, err error) {
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			backoff(ctx, attempt)
		}
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil, nil
		}
		var cancelled *types.TransactionCanceledException
		if !errors.As(err, &cancelled) {
			return nil, fmt.Errorf("transaction: %w", err)
		}
		conflict := false
		for i, r := range cancelled.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "ConditionalCheckFailed":
				failed = append(failed, i)
			case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
				conflict = true
			}
		}
		switch {
		case len(failed) > 0:
			return failed, nil
		case !conflict:
			return nil, fmt.Errorf("transaction: %w", err)
		case attempt+1 >= maxTransactAttempts:
			return nil, workspace.ErrBusy
		}
	}
}
