// Package benchbaseline holds what `make bench` (infra/cmd/benchtable)
// compares the functions with: two minimal Lambda functions built with the
// Makefile's own flags (hello, which answers without any call, and
// samecalls, which makes the DynamoDB calls its event lists and nothing
// else), and the recording and replaying of a function's DynamoDB calls that
// samecalls and the warm comparison share.
//
// A call is recorded as its operation, the exact JSON body the SDK sent and
// its step (roundtrip.Counter: calls the function sent at once share a
// step), and replayed by sending that body again through a DynamoDB client
// of the SDK, step after step, the calls of a step at once, so that the
// baseline makes the same calls in the same order and shape: so a baseline pays what any Go function making those calls pays (the
// SDK, signing, the HTTP round trip, the response's decoding) and nothing of
// the function's own work (routing, validation, domain rules, encoding).
// It ships nowhere.
package benchbaseline

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/agentplatform/workspaceapi/shared/roundtrip"
)

// Call is one DynamoDB call: the operation and the JSON body sent for it,
// and its step: how deep it was in the calls' critical path (1 for the
// calls sent before any answer came).
type Call struct {
	Op   string          `json:"op"`
	Body json.RawMessage `json:"body"`
	Step int             `json:"step"`
}

// Event is the samecalls function's event: the calls it makes, in order.
type Event struct {
	Calls []Call `json:"calls"`
}

// Result is the samecalls function's answer.
type Result struct {
	// Calls is how many calls it made; Failed how many DynamoDB refused
	// (a replayed conditional write whose condition no longer holds).
	Calls, Failed int
}

// Recorder records the calls a DynamoDB client sends, once per call
// (retries are not calls of their own), with their steps, so that they can
// be replayed.
type Recorder struct {
	mu    sync.Mutex
	calls []Call
	steps roundtrip.Counter
}

// Option returns the client option that records every call.
func (r *Recorder) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			// After the operation's serializer: the body is the one sent.
			return s.Serialize.Add(middleware.SerializeMiddlewareFunc("BenchRecordCall",
				func(ctx context.Context, in middleware.SerializeInput, next middleware.SerializeHandler) (
					middleware.SerializeOutput, middleware.Metadata, error) {
					step, end := r.steps.Begin(ctx)
					defer end()
					if req, ok := in.Request.(*smithyhttp.Request); ok {
						if body, err := readBody(req); err == nil {
							r.mu.Lock()
							r.calls = append(r.calls, Call{Op: middleware.GetOperationName(ctx), Body: body, Step: step})
							r.mu.Unlock()
						}
					}
					return next.HandleSerialize(ctx, in)
				}), middleware.After)
		})
	}
}

// readBody reads a serialized request's body and puts it back.
func readBody(req *smithyhttp.Request) ([]byte, error) {
	stream := req.GetStream()
	if stream == nil {
		return nil, errors.New("no body")
	}
	body, err := io.ReadAll(stream)
	if err != nil {
		return nil, err
	}
	sreq, err := req.SetStream(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	*req = *sreq
	return body, nil
}

// Reset forgets the calls recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
	r.steps.Reset()
}

// Calls returns the calls recorded since the last Reset, in order.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Replay sends the calls again through client as they were sent: step
// after step, in order, the calls of one step at once (each step's calls
// were in flight together, so the function's own bound holds them). A call
// DynamoDB refuses (a replayed conditional write whose condition no longer
// holds, a transaction it cancels) still cost its round trip and counts in
// Failed; any other failure (the connection, the client) ends the replay
// with an error.
func Replay(ctx context.Context, client *dynamodb.Client, calls []Call) (Result, error) {
	var res Result
	for _, step := range Steps(calls) {
		errs := make([]error, len(step))
		var wg sync.WaitGroup
		for i, c := range step {
			wg.Go(func() { errs[i] = send(ctx, client, c) })
		}
		wg.Wait()
		for i, err := range errs {
			res.Calls++
			var apiErr smithy.APIError
			switch {
			case err == nil:
			case errors.As(err, &apiErr):
				res.Failed++
			default:
				return res, fmt.Errorf("replay %s: %w", step[i].Op, err)
			}
		}
	}
	return res, nil
}

// Steps groups calls by step, steps in order, calls of a step in their
// order; calls without a step (0) are each a step of their own, in order.
func Steps(calls []Call) [][]Call {
	sorted := slices.Clone(calls)
	slices.SortStableFunc(sorted, func(a, b Call) int { return cmp.Compare(a.Step, b.Step) })
	var out [][]Call
	for i, c := range sorted {
		if i > 0 && c.Step != 0 && c.Step == sorted[i-1].Step {
			out[len(out)-1] = append(out[len(out)-1], c)
			continue
		}
		out = append(out, []Call{c})
	}
	return out
}

// send sends one call: the operation's method with a placeholder input (the
// client checks its required fields), whose serialized body is then
// replaced by the recorded one before the request is signed.
func send(ctx context.Context, client *dynamodb.Client, c Call) error {
	swap := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Serialize.Add(middleware.SerializeMiddlewareFunc("BenchReplayBody",
				func(ctx context.Context, in middleware.SerializeInput, next middleware.SerializeHandler) (
					middleware.SerializeOutput, middleware.Metadata, error) {
					req, ok := in.Request.(*smithyhttp.Request)
					if !ok {
						return middleware.SerializeOutput{}, middleware.Metadata{}, fmt.Errorf("unexpected transport type %T", in.Request)
					}
					sreq, err := req.SetStream(bytes.NewReader(c.Body))
					if err != nil {
						return middleware.SerializeOutput{}, middleware.Metadata{}, err
					}
					*req = *sreq
					return next.HandleSerialize(ctx, in)
				}), middleware.After)
		})
	}
	table := aws.String("placeholder")
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "placeholder"}}
	var err error
	switch c.Op {
	case "GetItem":
		_, err = client.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key}, swap)
	case "Query":
		_, err = client.Query(ctx, &dynamodb.QueryInput{TableName: table}, swap)
	case "Scan":
		_, err = client.Scan(ctx, &dynamodb.ScanInput{TableName: table}, swap)
	case "BatchGetItem":
		_, err = client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
			RequestItems: map[string]types.KeysAndAttributes{"placeholder": {Keys: []map[string]types.AttributeValue{key}}}}, swap)
	case "BatchWriteItem":
		_, err = client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{"placeholder": {{DeleteRequest: &types.DeleteRequest{Key: key}}}}}, swap)
	case "PutItem":
		_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: key}, swap)
	case "UpdateItem":
		_, err = client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: key}, swap)
	case "DeleteItem":
		_, err = client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: key}, swap)
	case "TransactWriteItems":
		_, err = client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: []types.TransactWriteItem{{ConditionCheck: &types.ConditionCheck{
				TableName: table, Key: key, ConditionExpression: aws.String("attribute_exists(PK)")}}}}, swap)
	case "TransactGetItems":
		_, err = client.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{
			TransactItems: []types.TransactGetItem{{Get: &types.Get{TableName: table, Key: key}}}}, swap)
	default:
		return fmt.Errorf("replay: operation %q is not supported", c.Op)
	}
	return err
}

// Retarget returns calls sent to table from as sent to table to instead
// (the table's name as a JSON string: "TableName" and the keys of
// "RequestItems"), so that they can be replayed on a twin table. A
// transaction gets a fresh idempotency token: the SDK gave it one, and
// DynamoDB refuses the token again with other parameters for ten minutes.
func Retarget(calls []Call, from, to string) ([]Call, error) {
	old, _ := json.Marshal(from) // strings always marshal
	repl, _ := json.Marshal(to)
	out := make([]Call, len(calls))
	for i, c := range calls {
		body := bytes.ReplaceAll(c.Body, old, repl)
		if c.Op == "TransactWriteItems" {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(body, &fields); err != nil {
				return nil, fmt.Errorf("retarget %s: %w", c.Op, err)
			}
			if _, ok := fields["ClientRequestToken"]; ok {
				fields["ClientRequestToken"], _ = json.Marshal(newToken())
				var err error
				if body, err = json.Marshal(fields); err != nil {
					return nil, err
				}
			}
		}
		out[i] = Call{Op: c.Op, Body: body, Step: c.Step}
	}
	return out, nil
}

// newToken returns a random UUID, the form of the SDK's idempotency tokens.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
