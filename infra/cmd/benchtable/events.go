package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/stack"
)

// stackHandler returns a new execution environment of function id, in-process.
func stackHandler(d stack.Deps, id string) lambda.Handler { return stack.Functions(d)[id]() }

// mustJSON marshals what always marshals.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ttlRemovals is the stream batch of the TTL removals of seat-holding
// invitations ids of workspace ws, as Lambda's DynamoDB event source
// delivers it past the template's filter.
func ttlRemovals(ws string, ids []string) []byte {
	var ev events.DynamoDBEvent
	for i, id := range ids {
		inv := awsevents.Invitation(ws, id, true)
		inv["email"], inv["status"] = id+"@bench.example", "pending"
		ev.Records = append(ev.Records, awsevents.Removal(fmt.Sprintf("44215845%020d", i+1), awsevents.Item(inv), true))
	}
	return mustJSON(ev)
}

// outboxInserts is a stream batch of n insertions of limit events' outbox
// items of ws, as the events function's event source delivers it (the bus
// is the bootstrap's recorder: it runs without EVENT_BUS_NAME).
func outboxInserts(ws, nonce string, n int) []byte {
	var ev events.DynamoDBEvent
	for i := range n {
		item := awsevents.Outbox(ws, fmt.Sprintf("evt_bench_%s_%03d", nonce, i), map[string]any{
			"detailType": "Credit Threshold Reached", "targetType": "agent", "targetId": "agt_kb_search",
			"reason": "daily_limit", "credits": 8, "limit": 10, "threshold": 80, "period": "2026-11-21",
			"at": time.Now().UTC().Format(time.RFC3339), "ttl": time.Now().Add(48 * time.Hour).Unix(),
		})
		ev.Records = append(ev.Records, awsevents.Insertion(fmt.Sprintf("54215845%020d", i+1), awsevents.Item(item)))
	}
	return mustJSON(ev)
}
