// Package awsevents builds the events Lambda's event sources deliver to the
// functions that no HTTP request reaches: SQS batches for the ingest
// function, EventBridge's scheduled event for the scheduler, and DynamoDB
// stream records for the retention and events functions. The tests, the
// end-to-end session of the packaged binaries and the benchmarks all send
// them, so each shape is written here once, as AWS delivers it: the fields the
// functions read and those they ignore.
//
// The builders are pure: fixed timestamps, no clock and no I/O, so an event is
// the same on every run. They panic only on what cannot happen for the
// plain values they are given (a body or an item that does not marshal).
package awsevents

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The region and account of every event: the stand-ins the local stack and
// the tests run with.
const (
	Region  = "us-east-1"
	Account = "123456789012"
)

// written is when every message was sent and every stream record written, in
// seconds since the epoch (2026-11-18): no function reads it, and a fixed
// instant keeps the events the same on every run.
const written = 1795000000

// SQSMessage is one message of an SQS batch, as Lambda's event source
// delivers it to the ingest function: body is the message's text when it is
// a string, else it is sent as its JSON.
func SQSMessage(id string, body any) events.SQSMessage {
	text, ok := body.(string)
	if !ok {
		text = string(mustJSON("the body of SQS message "+id, body))
	}
	sum := md5.Sum([]byte(text))
	sent := strconv.Itoa(written * 1000)
	return events.SQSMessage{
		MessageId: id, ReceiptHandle: "AQEB-" + id, Body: text, Md5OfBody: hex.EncodeToString(sum[:]),
		Attributes: map[string]string{
			"ApproximateReceiveCount": "1", "SentTimestamp": sent, "SenderId": "AIDAEXAMPLE", "ApproximateFirstReceiveTimestamp": sent,
		},
		MessageAttributes: map[string]events.SQSMessageAttribute{},
		EventSource:       "aws:sqs",
		EventSourceARN:    "arn:aws:sqs:" + Region + ":" + Account + ":workspace-api-ingest",
		AWSRegion:         Region,
	}
}

// SQSBatch is the batch of one message per body, with ids msg-1, msg-2, ...
// (what the function's batchItemFailures name).
func SQSBatch(bodies ...string) events.SQSEvent {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, 0, len(bodies))}
	for i, body := range bodies {
		ev.Records = append(ev.Records, SQSMessage(fmt.Sprintf("msg-%d", i+1), body))
	}
	return ev
}

// Scheduled is the event EventBridge's daily schedule sends at at, id its
// event id. EventBridge's time has whole seconds.
func Scheduled(id string, at time.Time) events.EventBridgeEvent {
	return events.EventBridgeEvent{
		Version: "0", ID: id, DetailType: "Scheduled Event", Source: "aws.events",
		AccountID: Account, Time: at.UTC().Truncate(time.Second), Region: Region,
		Resources: []string{"arn:aws:events:" + Region + ":" + Account + ":rule/workspace-api-daily"},
		Detail:    json.RawMessage(`{}`),
	}
}

// Item is values as a table item, each value as attributevalue marshals it:
// a string as S, a number as N, a bool as BOOL.
func Item(values map[string]any) map[string]types.AttributeValue {
	item, err := attributevalue.MarshalMap(values)
	if err != nil {
		panic(fmt.Sprintf("awsevents: item %v: %v", values, err))
	}
	return item
}

// Removal is the stream record, sequence number seq, of item's removal from
// the table (the OLD_IMAGE view the retention function's source has).
// byTTL marks it as the table's time to live's, as DynamoDB's userIdentity
// does; a removal by a request has none.
func Removal(seq string, item map[string]types.AttributeValue, byTTL bool) events.DynamoDBEventRecord {
	rec := streamRecord(seq, events.DynamoDBOperationTypeRemove, "OLD_IMAGE", item)
	rec.Change.OldImage = image(item)
	if byTTL {
		rec.UserIdentity = &events.DynamoDBUserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}
	}
	return rec
}

// Insertion is the stream record, sequence number seq, of item's insertion
// into the table (the NEW_AND_OLD_IMAGES view the events function's source
// has).
func Insertion(seq string, item map[string]types.AttributeValue) events.DynamoDBEventRecord {
	rec := streamRecord(seq, events.DynamoDBOperationTypeInsert, "NEW_AND_OLD_IMAGES", item)
	rec.Change.NewImage = image(item)
	return rec
}

// streamRecord is the stream record of a change of item, without its images.
// The table's key is PK and SK.
func streamRecord(seq string, name events.DynamoDBOperationType, view string, item map[string]types.AttributeValue) events.DynamoDBEventRecord {
	return events.DynamoDBEventRecord{
		EventID: "ev" + seq, EventName: string(name), EventSource: "aws:dynamodb", EventVersion: "1.1", AWSRegion: Region,
		EventSourceArn: "arn:aws:dynamodb:" + Region + ":" + Account + ":table/workspace-api/stream/2026-11-21T00:00:00.000",
		Change: events.DynamoDBStreamRecord{
			ApproximateCreationDateTime: events.SecondsEpochTime{Time: time.Unix(written, 0)},
			Keys:                        image(map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]}),
			SequenceNumber:              seq, SizeBytes: 300, StreamViewType: view,
		},
	}
}

// image is item in a stream record's form, through the SDK's own JSON
// serializer of attribute values ({"S": "..."}, {"N": "..."}, ...).
func image(item map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	data, err := attributevalue.MarshalMapJSON(item)
	if err != nil {
		panic(fmt.Sprintf("awsevents: item %v: %v", item, err))
	}
	var out map[string]events.DynamoDBAttributeValue
	if err := json.Unmarshal(data, &out); err != nil {
		panic(fmt.Sprintf("awsevents: item %s: %v", data, err))
	}
	return out
}

// Invitation is the item of invitation id of workspace ws with the
// attributes the retention function reads (holdsSeat: whether it still held
// a seat), and more when the caller adds them.
func Invitation(ws, id string, holdsSeat bool) map[string]any {
	return map[string]any{
		"PK": "WS#" + ws, "SK": "INVITE#" + id, "entity": "invitation", "id": id, "workspaceId": ws, "holdsSeat": holdsSeat,
	}
}

// TTLRemoval is the stream record of the time to live removing invitation
// invitationID of ws, as the retention function's event source delivers it.
func TTLRemoval(seq, ws, invitationID string, holdsSeat bool) events.DynamoDBEventRecord {
	return Removal(seq, Item(Invitation(ws, invitationID, holdsSeat)), true)
}

// Outbox is the outbox item of limit event eventID of ws: its keys, and the
// event's own attributes (detailType, targetType, targetId, reason, credits,
// limit, at, ...) from event.
func Outbox(ws, eventID string, event map[string]any) map[string]any {
	item := map[string]any{"PK": "WS#" + ws + "#OUTBOX#" + eventID, "SK": "OUTBOX", "entity": "outbox", "id": eventID, "workspaceId": ws}
	maps.Copy(item, event)
	return item
}

// OutboxInsert is the stream record of the outbox item of limit event eventID
// of ws being inserted, as the events function's event source delivers it:
// agent agt_onboarding stopped at its daily limit.
func OutboxInsert(seq, ws, eventID string) events.DynamoDBEventRecord {
	return Insertion(seq, Item(Outbox(ws, eventID, map[string]any{
		"detailType": "Agent Stopped", "targetType": "agent", "targetId": "agt_onboarding", "reason": "daily_limit",
		"status": "stopped", "credits": 6, "limit": 5, "at": "2026-11-21T12:00:00.000Z", "ttl": written,
	})))
}

// mustJSON marshals what always marshals; what names v in the panic.
func mustJSON(what string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("awsevents: %s: %v", what, err))
	}
	return b
}
