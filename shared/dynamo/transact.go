package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file builds and runs the store's write transactions: the builders of
// their items, the transaction of a decision's writes with its premises, and
// the retries of a decision that lost a race.

// put is a transaction's Put of it, conditioned on cond.
func (s *Store) put(it item, cond built) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(s.table), Item: it, ConditionExpression: cond.Condition(),
		ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
	}}
}

// putNew is a transaction's Put of the item v encodes, conditioned on no
// item being at its key yet.
func (s *Store) putNew(v any) (types.TransactWriteItem, error) {
	it, err := marshal(v)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	absent, err := notExistsCond()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return s.put(it, absent), nil
}

// notExistsCond is the condition of an item that must be new.
func notExistsCond() (built, error) {
	return build(expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))))
}

// update is a transaction's Update of the item at k, conditioned on cond when
// it is not nil.
func (s *Store) update(k item, upd expression.UpdateBuilder, cond *expression.ConditionBuilder) (types.TransactWriteItem, error) {
	b := expression.NewBuilder().WithUpdate(upd)
	if cond != nil {
		b = b.WithCondition(*cond)
	}
	e, err := build(b)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: k, UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}}, nil
}

// deleteIf is a transaction's Delete of the item at k, conditioned on cond.
func (s *Store) deleteIf(k item, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	e, err := build(expression.NewBuilder().WithCondition(cond))
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(s.table), Key: k, ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}}, nil
}

// check is a transaction's ConditionCheck of the item at k.
func (s *Store) check(k item, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	e, err := build(expression.NewBuilder().WithCondition(cond))
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(s.table), Key: k, ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}}, nil
}

// ptr returns a pointer to c, for the optional condition of update.
func ptr(c expression.ConditionBuilder) *expression.ConditionBuilder { return &c }

// write is one update of a decision's transaction, conditioned on cond
// unless it is the zero ConditionBuilder.
type write struct {
	key  item
	upd  expression.UpdateBuilder
	cond expression.ConditionBuilder
}

// premise is a condition on an item that a decision rests on
// (workspace.Premises).
type premise struct {
	key  item
	cond expression.ConditionBuilder
}

// decisionTx builds the transaction of a decision: its writes, in order (each
// on an item of its own), then a ConditionCheck per premise. A transaction
// takes one operation per item, so a premise on an item a write or an
// earlier premise is about joins that one's condition.
func (s *Store) decisionTx(writes []write, premises []premise) ([]types.TransactWriteItem, error) {
	ops := make([]write, len(writes), len(writes)+len(premises))
	copy(ops, writes)
	checks := len(ops) // ops from here on are checks
	at := make(map[[2]string]int, cap(ops))
	for i, w := range ops {
		at[itemKey(w.key)] = i
	}
	for _, p := range premises {
		i, ok := at[itemKey(p.key)]
		switch {
		case !ok:
			at[itemKey(p.key)] = len(ops)
			ops = append(ops, write{key: p.key, cond: p.cond})
		case ops[i].cond.IsSet():
			ops[i].cond = ops[i].cond.And(p.cond)
		default:
			ops[i].cond = p.cond
		}
	}
	items := make([]types.TransactWriteItem, len(ops))
	for i, op := range ops {
		var err error
		switch {
		case i >= checks:
			items[i], err = s.check(op.key, op.cond)
		case op.cond.IsSet():
			items[i], err = s.update(op.key, op.upd, &op.cond)
		default:
			items[i], err = s.update(op.key, op.upd, nil)
		}
		if err != nil {
			return nil, err
		}
	}
	return items, nil
}

// maxTransactAttempts bounds the retries of a transaction that lost a race
// (TransactionConflict) without failing any of its conditions, for work
// without a write deadline (workspace.WriteDeadline); a request's write
// retries until its deadline instead.
const maxTransactAttempts = 8

// mayTryAgain reports whether attempt n (counted from 0) of a retried step
// may start: before ctx's write deadline for a request's write (and the
// second attempt always, so that a first one slowed past the deadline still
// gets one look at fresh figures), or while n is below max for work without
// one (ingest, the scheduler).
func mayTryAgain(ctx context.Context, n, max int) bool {
	if deadline, ok := workspace.WriteDeadline(ctx); ok {
		return n < 2 || time.Now().Before(deadline)
	}
	return n < max
}

// transact runs a write transaction. It returns nil, nil on success, and the
// indexes of the items whose conditions failed, with a nil error, when it was
// cancelled for them. A cancellation caused only by concurrent transactions on
// the same items (TransactionConflict, which real DynamoDB answers where
// DynamoDB Local queues) or by throttling is retried with backoff, since
// nothing about the data rules the write out, until mayTryAgain says no
// (workspace.ErrBusy). TransactionInProgressException is left to the SDK's
// retryer, which already retries it.
func (s *Store) transact(ctx context.Context, items []types.TransactWriteItem) (failed []int, err error) {
	return s.transactBuilt(ctx, func([]int) ([]types.TransactWriteItem, error) { return items, nil })
}

// transactBuilt is transact for a transaction whose items may change between
// attempts: build makes each attempt's items, given the indexes of the items
// the previous attempt's cancellation named TransactionConflict (none on the
// first), so a write spread over shards moves to another shard.
func (s *Store) transactBuilt(ctx context.Context, build func(conflicted []int) ([]types.TransactWriteItem, error)) (failed []int, err error) {
	var conflicted []int
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			backoff(ctx, attempt)
		}
		items, err := build(conflicted)
		if err != nil {
			return nil, err
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil, nil
		}
		var cancelled *types.TransactionCanceledException
		if !errors.As(err, &cancelled) {
			return nil, fmt.Errorf("transaction: %w", err)
		}
		conflict := false
		conflicted = nil
		for i, r := range cancelled.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "ConditionalCheckFailed":
				failed = append(failed, i)
			case "TransactionConflict":
				conflict = true
				conflicted = append(conflicted, i)
			case "ThrottlingError", "ProvisionedThroughputExceeded":
				conflict = true
			}
		}
		switch {
		case len(failed) > 0:
			return failed, nil
		case !conflict:
			return nil, fmt.Errorf("transaction: %w", err)
		case !mayTryAgain(ctx, attempt+1, maxTransactAttempts):
			return nil, workspace.ErrBusy
		}
	}
}

// commit runs a decision's writes (a conditional update of a state item of
// workspace ws) with checks of the premises it was taken on (the limits, the
// usage), the further items of its change (its limit events' outbox items
// and threshold markers, each new), and the Puts of the audit entries that
// record it (last, so a failed condition's index still names the item it
// failed on), as one transaction (so conflicts are retried like every
// transaction's), and returns errStale when a condition failed: the
// decision must be taken again on fresh figures.
//
// The checks are needed because a BatchGetItem is not a snapshot: it may
// return a limit from before a limit change's transaction and the state from
// after it, and the state's version alone would then let a decision taken on
// the old limit through.
func (s *Store) commit(ctx context.Context, ws string, writes []write, premises []premise, more []types.TransactWriteItem, entries ...workspace.AuditEntry) error {
	items, err := s.decisionTx(writes, premises)
	if err != nil {
		return err
	}
	failed, err := s.transactAudited(ctx, ws, append(items, more...), entries...)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return errStale
	}
	return nil
}

// errStale reports a state write whose version condition failed: another
// change came first, and the decision must be taken again on fresh figures.
var errStale = errors.New("running state changed concurrently")

// maxReevaluations bounds how often one decision is taken again after losing
// a race, for work without a write deadline (ingest, the scheduler); each
// loss means another writer made progress, so the bound is what a burst of
// writers racing on one item (a team's limit changes and pauses) can take,
// not a guess at luck. A request's write decides again until its deadline
// (workspace.WriteBudget).
const maxReevaluations = 24

// reevaluationBackoffCap caps the backoff before a decision is taken again
// (attempt 4: 40 to 80 ms), so the writers that lost a race spread out without
// stretching a request.
const reevaluationBackoffCap = 4

// pauseBeforeReevaluation waits a jittered moment before attempt n (n > 0) of
// a decision that lost a race, so racing writers do not collide again in step.
func pauseBeforeReevaluation(ctx context.Context, attempt int) {
	if attempt > 0 {
		backoff(ctx, min(attempt, reevaluationBackoffCap))
	}
}

// errLost is what an attempt of decideAndCommit returns when its commit's
// condition failed: what it read changed before it wrote, and it must read
// and decide again.
var errLost = errors.New("lost a race: decide again on a fresh read")

// decideAndCommit is the store's one way to decide and write: attempt reads,
// asks a pure rule of package workspace, and commits with what it read as the
// transaction's condition. When the commit's condition fails it returns
// errLost (errStale counts the same), and decideAndCommit pauses a jittered
// moment and runs it again, on a fresh read; past the request's write
// deadline (or maxReevaluations attempts for work without one) it returns
// workspace.ErrBusy. Any other error, or success, ends it.
func decideAndCommit[T any](ctx context.Context, attempt func(n int) (T, error)) (T, error) {
	for n := 0; ; n++ {
		pauseBeforeReevaluation(ctx, n)
		out, err := attempt(n)
		if !errors.Is(err, errLost) && !errors.Is(err, errStale) {
			return out, err
		}
		if !mayTryAgain(ctx, n+1, maxReevaluations+1) {
			return out, workspace.ErrBusy
		}
	}
}
