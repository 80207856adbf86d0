// Package awscalls records the AWS API calls each function makes in tests, as
// the IAM actions and resources they need, so a test can hold every
// function's policy in template.yaml to the calls its code really makes: no
// call without its grant, no grant without its call.
package awscalls

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
)

// Call is one IAM authorization an AWS API call needs: a transaction or a
// batch over several tables needs one per action and resource.
type Call struct {
	// Function is the logical id of the function that made the call.
	Function string
	// Operation is the API operation, e.g. TransactWriteItems.
	Operation string
	// Action is the IAM action checked, e.g. dynamodb:UpdateItem.
	Action string
	// Resource names what the action is checked on: "table/<name>",
	// "table/<name>/index/<index>", "ses-identity/<address>" or
	// "event-bus/<name>".
	Resource string
}

// String returns "Function: Action on Resource (Operation)".
func (c Call) String() string {
	return fmt.Sprintf("%s: %s on %s (%s)", c.Function, c.Action, c.Resource, c.Operation)
}

// Recorder keeps the distinct calls of every function. Its zero value is
// ready to use, and safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	calls map[Call]struct{}
}

func (r *Recorder) add(calls ...Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[Call]struct{}{}
	}
	for _, c := range calls {
		r.calls[c] = struct{}{}
	}
}

// Calls returns the distinct calls recorded, sorted.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Call, 0, len(r.calls))
	for c := range r.calls {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Call) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// initialize adds a middleware that sees each operation's typed input once,
// before retries, and records what authorizes it.
func (r *Recorder) initialize(name string, authorizations func(op string, in any) []Call) func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc(name,
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
				middleware.InitializeOutput, middleware.Metadata, error) {
				r.add(authorizations(middleware.GetOperationName(ctx), in.Parameters)...)
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	}
}

// DynamoDB returns a client option recording function's DynamoDB calls.
func (r *Recorder) DynamoDB(function string) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, r.initialize("RecordDynamoDBCalls", func(op string, in any) []Call {
			return dynamoDBCalls(function, op, in)
		}))
	}
}

// SESv2 returns a client option recording function's SES v2 calls.
func (r *Recorder) SESv2(function string) func(*sesv2.Options) {
	return func(o *sesv2.Options) {
		o.APIOptions = append(o.APIOptions, r.initialize("RecordSESCalls", func(op string, in any) []Call {
			if send, ok := in.(*sesv2.SendEmailInput); ok && send.FromEmailAddress != nil {
				return []Call{{Function: function, Operation: op, Action: "ses:SendEmail",
					Resource: "ses-identity/" + *send.FromEmailAddress}}
			}
			return []Call{{Function: function, Operation: op, Action: "ses:" + op, Resource: "*"}}
		}))
	}
}

// EventBridge returns a client option recording function's EventBridge
// calls: PutEvents is authorized on each event bus its entries name (the
// account's default bus for an entry that names none).
func (r *Recorder) EventBridge(function string) func(*eventbridge.Options) {
	return func(o *eventbridge.Options) {
		o.APIOptions = append(o.APIOptions, r.initialize("RecordEventBridgeCalls", func(op string, in any) []Call {
			put, ok := in.(*eventbridge.PutEventsInput)
			if !ok {
				return []Call{{Function: function, Operation: op, Action: "events:" + op, Resource: "*"}}
			}
			var out []Call
			for _, e := range put.Entries {
				bus := "default"
				if e.EventBusName != nil {
					bus = *e.EventBusName
				}
				out = append(out, Call{Function: function, Operation: op, Action: "events:PutEvents", Resource: "event-bus/" + bus})
			}
			return out
		}))
	}
}

// SQS returns a client option recording function's SQS calls:
// SendMessage is authorized on the queue its URL names (its last path
// segment, the queue's logical id in the tests).
func (r *Recorder) SQS(function string) func(*sqs.Options) {
	return func(o *sqs.Options) {
		o.APIOptions = append(o.APIOptions, r.initialize("RecordSQSCalls", func(op string, in any) []Call {
			queue := "?"
			if send, ok := in.(*sqs.SendMessageInput); ok && send.QueueUrl != nil {
				queue = path.Base(*send.QueueUrl)
			}
			return []Call{{Function: function, Operation: op, Action: "sqs:" + op, Resource: "queue/" + queue}}
		}))
	}
}

func table(name *string) string {
	if name == nil {
		return "table/?"
	}
	return "table/" + *name
}

func tableOrIndex(name, index *string) string {
	if index != nil {
		return table(name) + "/index/" + *index
	}
	return table(name)
}

// dynamoDBCalls returns what authorizes one DynamoDB operation. Transactions
// are authorized item by item as the underlying PutItem, UpdateItem,
// DeleteItem, ConditionCheckItem and GetItem (there is no IAM action for
// TransactWriteItems itself); batches per table; a Query or Scan of an index
// on the index's ARN alone.
func dynamoDBCalls(fn, op string, in any) []Call {
	call := func(action, resource string) Call {
		return Call{Function: fn, Operation: op, Action: "dynamodb:" + action, Resource: resource}
	}
	switch v := in.(type) {
	case *dynamodb.GetItemInput:
		return []Call{call("GetItem", table(v.TableName))}
	case *dynamodb.PutItemInput:
		return []Call{call("PutItem", table(v.TableName))}
	case *dynamodb.UpdateItemInput:
		return []Call{call("UpdateItem", table(v.TableName))}
	case *dynamodb.DeleteItemInput:
		return []Call{call("DeleteItem", table(v.TableName))}
	case *dynamodb.QueryInput:
		return []Call{call("Query", tableOrIndex(v.TableName, v.IndexName))}
	case *dynamodb.ScanInput:
		return []Call{call("Scan", tableOrIndex(v.TableName, v.IndexName))}
	case *dynamodb.BatchGetItemInput:
		var out []Call
		for name := range v.RequestItems {
			out = append(out, call("BatchGetItem", "table/"+name))
		}
		return out
	case *dynamodb.BatchWriteItemInput:
		var out []Call
		for name := range v.RequestItems {
			out = append(out, call("BatchWriteItem", "table/"+name))
		}
		return out
	case *dynamodb.TransactWriteItemsInput:
		var out []Call
		for _, it := range v.TransactItems {
			switch {
			case it.Put != nil:
				out = append(out, call("PutItem", table(it.Put.TableName)))
			case it.Update != nil:
				out = append(out, call("UpdateItem", table(it.Update.TableName)))
			case it.Delete != nil:
				out = append(out, call("DeleteItem", table(it.Delete.TableName)))
			case it.ConditionCheck != nil:
				out = append(out, call("ConditionCheckItem", table(it.ConditionCheck.TableName)))
			}
		}
		return out
	case *dynamodb.TransactGetItemsInput:
		var out []Call
		for _, it := range v.TransactItems {
			if it.Get != nil {
				out = append(out, call("GetItem", table(it.Get.TableName)))
			}
		}
		return out
	}
	// An operation this recorder does not know yet: recorded under its own
	// name on every resource, so the policy test reports it rather than
	// letting it pass unseen.
	return []Call{call(op, "*")}
}
