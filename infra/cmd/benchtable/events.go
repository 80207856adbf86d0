package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

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

// sqsEvent is the batch Lambda's SQS event source delivers: one record per
// message body.
func sqsEvent(bodies []string) []byte {
	var ev events.SQSEvent
	sent := fmt.Sprint(time.Now().UnixMilli())
	for i, body := range bodies {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: fmt.Sprintf("msg-%d", i+1), ReceiptHandle: fmt.Sprintf("AQEB-bench-%d", i+1), Body: body,
			Md5OfBody: "00000000000000000000000000000000",
			Attributes: map[string]string{
				"ApproximateReceiveCount": "1", "SentTimestamp": sent, "SenderId": "AIDABENCH", "ApproximateFirstReceiveTimestamp": sent,
			},
			MessageAttributes: map[string]events.SQSMessageAttribute{},
			EventSource:       "aws:sqs",
			EventSourceARN:    "arn:aws:sqs:us-east-1:123456789012:workspace-api-bench-ingest",
			AWSRegion:         region,
		})
	}
	return mustJSON(ev)
}

// scheduledEvent is the event EventBridge's schedule sends at t.
func scheduledEvent(at time.Time) []byte {
	return mustJSON(map[string]any{
		"version": "0", "id": "bench-tick", "detail-type": "Scheduled Event", "source": "aws.events",
		"account": "123456789012", "time": at.Format(time.RFC3339), "region": region,
		"resources": []string{"arn:aws:events:us-east-1:123456789012:rule/workspace-api-bench-daily"}, "detail": map[string]any{},
	})
}

// ttlRemovals is the stream batch of the TTL removals of seat-holding
// invitations ids of workspace ws, as Lambda's DynamoDB event source
// delivers it past the template's filter.
func ttlRemovals(table, ws string, ids []string) []byte {
	s := func(v string) map[string]string { return map[string]string{"S": v} }
	var recs []any
	for i, id := range ids {
		keys := map[string]any{"PK": s("WS#" + ws), "SK": s("INVITE#" + id)}
		old := map[string]any{"PK": s("WS#" + ws), "SK": s("INVITE#" + id), "entity": s("invitation"),
			"holdsSeat": map[string]bool{"BOOL": true}, "workspaceId": s(ws), "id": s(id),
			"email": s(id + "@bench.example"), "status": s("pending")}
		recs = append(recs, map[string]any{
			"eventID": fmt.Sprintf("bench-ttl-%d", i+1), "eventName": "REMOVE", "eventVersion": "1.1", "eventSource": "aws:dynamodb", "awsRegion": region,
			"eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/" + table + "/stream/2026-11-21T00:00:00.000",
			"userIdentity":   map[string]string{"type": "Service", "principalId": "dynamodb.amazonaws.com"},
			"dynamodb": map[string]any{
				"ApproximateCreationDateTime": time.Now().Unix(), "SequenceNumber": fmt.Sprintf("44215845%020d", i+1),
				"SizeBytes": 300, "StreamViewType": "OLD_IMAGE", "Keys": keys, "OldImage": old,
			},
		})
	}
	return mustJSON(map[string]any{"Records": recs})
}

// outboxInserts is a stream batch of n insertions of limit events' outbox
// items of ws, as the events function's event source delivers it (the bus
// is the bootstrap's recorder: it runs without EVENT_BUS_NAME).
func outboxInserts(table, ws, nonce string, n int) []byte {
	s := func(v string) map[string]string { return map[string]string{"S": v} }
	num := func(v string) map[string]string { return map[string]string{"N": v} }
	var recs []any
	for i := range n {
		id := fmt.Sprintf("evt_bench_%s_%03d", nonce, i)
		img := map[string]any{"PK": s("WS#" + ws + "#OUTBOX#" + id), "SK": s("OUTBOX"), "entity": s("outbox"), "id": s(id),
			"workspaceId": s(ws), "detailType": s("Credit Threshold Reached"), "targetType": s("agent"), "targetId": s("agt_kb_search"),
			"reason": s("daily_limit"), "credits": num("8"), "limit": num("10"), "threshold": num("80"), "period": s("2026-11-21"),
			"at": s(time.Now().UTC().Format(time.RFC3339)), "ttl": num(fmt.Sprint(time.Now().Add(48 * time.Hour).Unix()))}
		recs = append(recs, map[string]any{
			"eventID": fmt.Sprintf("bench-outbox-%d", i+1), "eventName": "INSERT", "eventVersion": "1.1", "eventSource": "aws:dynamodb", "awsRegion": region,
			"eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/" + table + "/stream/2026-11-21T00:00:00.000",
			"dynamodb": map[string]any{
				"ApproximateCreationDateTime": time.Now().Unix(), "SequenceNumber": fmt.Sprintf("54215845%020d", i+1),
				"SizeBytes": 400, "StreamViewType": "NEW_AND_OLD_IMAGES", "Keys": map[string]any{"PK": img["PK"], "SK": img["SK"]}, "NewImage": img,
			},
		})
	}
	return mustJSON(map[string]any{"Records": recs})
}
