package dynamo

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Idempotency records (docs/idempotency.md). A request sent with an
// idempotency key claims it with one conditional PutItem: the record is new,
// or its time to live has passed (DynamoDB removes expired items only
// eventually), or its request was released (it answered 5xx) or held it
// past its lease (it crashed). A claim that fails returns the record as it
// stands in the same round trip (ReturnValuesOnConditionCheckFailure), so a
// repeat costs that one call and writes nothing. The claimant then keeps its
// answer, or releases the key, with an UpdateItem conditioned on its claim
// token still being there: a claim taken over after its lease can never
// overwrite its successor's answer.
//
// Every transaction of the claimant's writes also marks its record applied
// (appliedMark), conditioned on its claim: when its answer could not be kept,
// the key is never taken over after the lease (its writes landed), and a
// repeat answers workspace.ErrIdempotentAnswerLost instead of running again.

// States of an idempotency record.
const (
	idemRunning  = "running"
	idemDone     = "done"
	idemReleased = "released"
)

// typeIdempotency is the entity of an idempotency record.
const typeIdempotency = "idempotency"

// Attribute names of idempotency records.
const (
	attrIdemState = "state"
	attrIdemClaim = "claim"
	attrIdemLease = "leaseUntil"
	attrIdemBody  = "body"
	attrIdemCode  = "status"
	attrIdemType  = "contentType"
	attrIdemLoc   = "location"
	attrIdemDone  = "applied"
)

// maxKeptAnswerBytes bounds a kept answer's compressed body, well inside
// DynamoDB's 400 KB item limit with the record's other attributes. Write
// answers are far smaller (a batch of 100 results is tens of KB before
// compression); one past it is not kept (ErrAnswerNotKept).
const maxKeptAnswerBytes = 350_000

// ErrAnswerNotKept is returned by KeepIdempotentAnswer when the answer's
// body is too large to keep even compressed: the key is released instead,
// so a repeat runs again, as after a 5xx.
var ErrAnswerNotKept = errors.New("the answer is too large to keep; the idempotency key was released")

// idempotencyItem is one idempotency record. Body is the answer's body,
// gzip-compressed.
type idempotencyItem struct {
	keys
	WorkspaceID string `dynamodbav:"workspaceId"`
	KeyID       string `dynamodbav:"keyId"`
	Fingerprint string `dynamodbav:"fingerprint"`
	State       string `dynamodbav:"state"`
	Claim       string `dynamodbav:"claim"`
	LeaseUntil  string `dynamodbav:"leaseUntil"`
	CreatedAt   string `dynamodbav:"createdAt"`
	Status      int    `dynamodbav:"status,omitempty"`
	ContentType string `dynamodbav:"contentType,omitempty"`
	Location    string `dynamodbav:"location,omitempty"`
	Body        []byte `dynamodbav:"body,omitempty"`
	// Applied is set by the first transaction of the claimant's writes.
	Applied bool `dynamodbav:"applied,omitempty"`
}

// record returns the domain form of a record read back at now; a body that
// does not decompress is an error (a record this code did not write). A
// running record whose writes landed is lost once its lease has ended.
func (i idempotencyItem) record(now time.Time) (workspace.IdempotencyRecord, error) {
	r := workspace.IdempotencyRecord{Fingerprint: i.Fingerprint, Done: i.State == idemDone,
		Lost: i.State == idemRunning && i.Applied && i.LeaseUntil < storedTime(now)}
	if !r.Done {
		return r, nil
	}
	body, err := gunzip(i.Body)
	if err != nil {
		return r, fmt.Errorf("idempotency record body: %w", err)
	}
	r.Answer = workspace.IdempotentAnswer{Status: i.Status, ContentType: i.ContentType, Location: i.Location, Body: body}
	return r, nil
}

// ClaimIdempotencyKey claims k for a request with fingerprint fp, under the
// caller's unique claim token, at now. It returns claimed true when the
// request is to run; otherwise the record that holds the key (running or
// done, for the same request or another), read in the same round trip.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, k workspace.IdempotencyKey, fp, claim string, now time.Time) (
	prior workspace.IdempotencyRecord, claimed bool, err error) {
	it, err := marshal(idempotencyItem{
		keys:        keys{PK: idempotencyPK(k), SK: skIdempotency, Entity: typeIdempotency, TTL: epoch(now.Add(workspace.IdempotencyKeep))},
		WorkspaceID: k.WorkspaceID, KeyID: k.KeyID, Fingerprint: fp, State: idemRunning, Claim: claim,
		LeaseUntil: storedTime(now.Add(workspace.IdempotencyLease)), CreatedAt: storedTime(now),
	})
	if err != nil {
		return prior, false, err
	}
	state := expression.Name(attrIdemState)
	free := expression.AttributeNotExists(expression.Name(attrPK)).
		Or(expression.Name(AttrTTL).LessThanEqual(expression.Value(epoch(now)))).
		Or(state.Equal(expression.Value(idemReleased))).
		Or(state.Equal(expression.Value(idemRunning)).And(expression.Name(attrIdemLease).LessThan(expression.Value(storedTime(now)))).
			And(expression.AttributeNotExists(expression.Name(attrIdemDone))))
	e, err := build(expression.NewBuilder().WithCondition(free))
	if err != nil {
		return prior, false, err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it, ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var held *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		return prior, true, nil
	case !errors.As(err, &held):
		return prior, false, fmt.Errorf("claim idempotency key: %w", err)
	}
	var old idempotencyItem
	if err := unmarshal(held.Item, &old); err != nil {
		return prior, false, err
	}
	prior, err = old.record(now)
	return prior, false, err
}

// KeepIdempotentAnswer keeps a as the answer of k's request, which holds
// claim, for workspace.IdempotencyKeep from now. It fails when the claim is
// no longer there (taken over after its lease, which a request within its
// function's timeout never outlives); an answer too large to keep releases
// the key and returns ErrAnswerNotKept.
func (s *Store) KeepIdempotentAnswer(ctx context.Context, k workspace.IdempotencyKey, claim string,
	a workspace.IdempotentAnswer, now time.Time) error {
	body, err := gzipBytes(a.Body)
	if err != nil {
		return err
	}
	if len(body) > maxKeptAnswerBytes {
		if err := s.ReleaseIdempotencyKey(ctx, k, claim); err != nil {
			return err
		}
		return ErrAnswerNotKept
	}
	upd := expression.Set(expression.Name(attrIdemState), expression.Value(idemDone)).
		Set(expression.Name(attrIdemCode), expression.Value(a.Status)).
		Set(expression.Name(attrIdemBody), expression.Value(body)).
		Set(expression.Name(AttrTTL), expression.Value(epoch(now.Add(workspace.IdempotencyKeep)))).
		Remove(expression.Name(attrIdemLease))
	for name, v := range map[string]string{attrIdemType: a.ContentType, attrIdemLoc: a.Location} {
		if v != "" {
			upd = upd.Set(expression.Name(name), expression.Value(v))
		}
	}
	return s.updateClaim(ctx, k, claim, upd, "keep idempotent answer")
}

// ReleaseIdempotencyKey frees k, which claim holds, without keeping an
// answer: its request failed with a 5xx or panicked, and a repeat is to run
// again. The record stays (released) until its time to live.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, k workspace.IdempotencyKey, claim string) error {
	upd := expression.Set(expression.Name(attrIdemState), expression.Value(idemReleased)).Remove(expression.Name(attrIdemLease))
	return s.updateClaim(ctx, k, claim, upd, "release idempotency key")
}

// updateClaim applies upd to k's record while claim holds it running.
func (s *Store) updateClaim(ctx context.Context, k workspace.IdempotencyKey, claim string, upd expression.UpdateBuilder, what string) error {
	mine := expression.Name(attrIdemClaim).Equal(expression.Value(claim)).
		And(expression.Name(attrIdemState).Equal(expression.Value(idemRunning)))
	e, err := build(expression.NewBuilder().WithUpdate(upd).WithCondition(mine))
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: key(idempotencyPK(k), skIdempotency),
		UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	})
	if isConditionFailed(err) {
		return fmt.Errorf("%s: the claim was taken over after its lease", what)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// appliedMark is the Update a transaction of the writes of the request that
// holds c carries: it marks the record applied, conditioned on c still
// holding it running (a claim taken over can apply nothing more).
func (s *Store) appliedMark(c *workspace.IdempotencyClaim) (types.TransactWriteItem, error) {
	return s.update(key(idempotencyPK(c.Key), skIdempotency), expression.Set(expression.Name(attrIdemDone), expression.Value(true)),
		ptr(expression.Name(attrIdemClaim).Equal(expression.Value(c.Token)).
			And(expression.Name(attrIdemState).Equal(expression.Value(idemRunning)))))
}

// gzipBytes compresses b; answers are JSON, which compresses several-fold.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, fmt.Errorf("compress answer: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress answer: %w", err)
	}
	return buf.Bytes(), nil
}

// gunzip reverses gzipBytes.
func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
}
