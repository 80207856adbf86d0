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

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// maxBatchGet is BatchGetItem's limit of keys per request.
const maxBatchGet = 100

// maxUnprocessedRetries bounds the retries of keys DynamoDB left unprocessed.
const maxUnprocessedRetries = 8

// batchGet reads the items at keys with strongly consistent reads, in as few
// round trips as BatchGetItem allows (up to batchConcurrency of them at once),
// and returns them by PK and SK; missing items are absent from the map.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue) (map[[2]string]map[string]types.AttributeValue, error) {
	return s.batchRead(ctx, keys, true)
}

// batchGetEventually is batchGet with eventually consistent reads, at half
// the read units: for what only displays what it read (an item may lag a
// write of the last second), never for what a write decides from.
func (s *Store) batchGetEventually(ctx context.Context, keys []item) (map[[2]string]item, error) {
	return s.batchRead(ctx, keys, false)
}

// batchRead is batchGet, with strongly consistent reads when consistent.
func (s *Store) batchRead(ctx context.Context, keys []item, consistent bool) (map[[2]string]item, error) {
	found := make(map[[2]string]map[string]types.AttributeValue, len(keys))
	chunks := (len(keys) + maxBatchGet - 1) / maxBatchGet
	var mu sync.Mutex
	errs := make([]error, chunks)
	fanOut(ctx, chunks, func(ctx context.Context, c int) {
		start := c * maxBatchGet
		errs[c] = s.batchGetChunk(ctx, keys[start:min(start+maxBatchGet, len(keys))], consistent, func(item map[string]types.AttributeValue) {
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

// batchDecode reads the items at keys as batchGet does and decodes each one
// found into an I, in no particular order.
func batchDecode[I any](ctx context.Context, s *Store, keys []item) ([]I, error) {
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]I, 0, len(found))
	for _, raw := range found {
		var it I
		if err := unmarshal(raw, &it); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// batchGetChunk reads up to maxBatchGet keys, retrying the unprocessed ones,
// and hands each item found to got.
func (s *Store) batchGetChunk(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool, got func(map[string]types.AttributeValue)) error {
	pending := map[string]types.KeysAndAttributes{s.table: {Keys: keys, ConsistentRead: aws.Bool(consistent)}}
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

// snapshot reads keys (at most 100) with one TransactGetItems: unlike a
// BatchGetItem, the items are as they all stood at one moment, never some
// from before a transaction that wrote several of them and some from after
// it. DynamoDB cancels the read while a transaction is writing one of the
// items (TransactionConflict); it is read again after a backoff, until the
// request's write deadline (or maxTransactAttempts times for work without
// one), then workspace.ErrBusy.
func (s *Store) snapshot(ctx context.Context, keys []item) (map[[2]string]item, error) {
	gets := make([]types.TransactGetItem, len(keys))
	for i, k := range keys {
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(s.table), Key: k}}
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			backoff(ctx, attempt)
		}
		out, err := s.db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets})
		if err == nil {
			found := make(map[[2]string]item, len(keys))
			for _, r := range out.Responses {
				if len(r.Item) > 0 {
					found[itemKey(r.Item)] = r.Item
				}
			}
			return found, nil
		}
		var cancelled *types.TransactionCanceledException
		if !errors.As(err, &cancelled) {
			return nil, fmt.Errorf("snapshot read: %w", err)
		}
		if !mayTryAgain(ctx, attempt+1, maxTransactAttempts) {
			return nil, workspace.ErrBusy
		}
	}
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

// backoff sleeps an exponentially growing, jittered time before retry attempt
// n, never past ctx's write deadline (workspace.WriteDeadline).
func backoff(ctx context.Context, attempt int) {
	d := time.Duration(1<<min(attempt, 6)) * 5 * time.Millisecond
	d = d/2 + rand.N(d/2+1)
	if deadline, ok := workspace.WriteDeadline(ctx); ok {
		d = max(0, min(d, time.Until(deadline)))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
