package awscalls

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// Invoke sends event to the function with logical id fn through the local
// gateway's POST /_local/invoke at baseURL, as Lambda's event sources would,
// and returns its JSON result; it fails the test unless the function
// answered (200).
func Invoke(t testing.TB, baseURL, fn string, event any) []byte {
	t.Helper()
	body, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(baseURL+"/_local/invoke/"+fn, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("invoke %s: %v", fn, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("invoke %s: %d %s", fn, res.StatusCode, out)
	}
	return out
}

// SQSRecord is an SQS message as Lambda's event source delivers it to
// IngestFunction, with body as its JSON text.
func SQSRecord(messageID string, body any) map[string]any {
	text, ok := body.(string)
	if !ok {
		b, _ := json.Marshal(body)
		text = string(b)
	}
	return map[string]any{
		"messageId": messageID, "receiptHandle": "rh-" + messageID, "body": text,
		"attributes":        map[string]string{"ApproximateReceiveCount": "1", "SentTimestamp": "1795000000000"},
		"messageAttributes": map[string]any{}, "md5OfBody": "", "eventSource": "aws:sqs",
		"eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:ingest", "awsRegion": "us-east-1",
	}
}

// ScheduledEvent is EventBridge's scheduled event at time (RFC 3339).
func ScheduledEvent(id, time string) map[string]any {
	return map[string]any{
		"version": "0", "id": id, "detail-type": "Scheduled Event", "source": "aws.events",
		"account": "123456789012", "time": time, "region": "us-east-1",
		"resources": []string{"arn:aws:events:us-east-1:123456789012:rule/daily"}, "detail": map[string]any{},
	}
}

// TTLRemoval is the stream record DynamoDB writes when its time to live
// removes a seat-holding invitation, as the retention function's event
// source delivers it.
func TTLRemoval(seq, ws, invitationID string) map[string]any {
	return TTLRemovalOf(seq, ws, invitationID, true)
}

// TTLRemovalOf is TTLRemoval of an invitation that held a seat or not.
func TTLRemovalOf(seq, ws, invitationID string, holdsSeat bool) map[string]any {
	return map[string]any{
		"eventID": "ev" + seq, "eventName": "REMOVE", "eventSource": "aws:dynamodb", "eventVersion": "1.1",
		"awsRegion":      "us-east-1",
		"eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/2026-11-21T00:00:00.000",
		"userIdentity":   map[string]string{"type": "Service", "principalId": "dynamodb.amazonaws.com"},
		"dynamodb": map[string]any{
			"ApproximateCreationDateTime": 1795000000, "SequenceNumber": seq, "SizeBytes": 300, "StreamViewType": "OLD_IMAGE",
			"Keys": map[string]any{"PK": map[string]string{"S": "WS#" + ws}, "SK": map[string]string{"S": "INVITE#" + invitationID}},
			"OldImage": map[string]any{
				"PK": map[string]string{"S": "WS#" + ws}, "SK": map[string]string{"S": "INVITE#" + invitationID},
				"entity": map[string]string{"S": "invitation"}, "id": map[string]string{"S": invitationID},
				"workspaceId": map[string]string{"S": ws}, "holdsSeat": map[string]bool{"BOOL": holdsSeat},
			},
		},
	}
}

// OutboxInsert is the stream record of a limit event's outbox item being
// inserted, as the events function's event source delivers it.
func OutboxInsert(seq, ws, eventID string) map[string]any {
	s := func(v string) map[string]string { return map[string]string{"S": v} }
	n := func(v string) map[string]string { return map[string]string{"N": v} }
	return map[string]any{
		"eventID": "ev" + seq, "eventName": "INSERT", "eventSource": "aws:dynamodb", "eventVersion": "1.1",
		"awsRegion":      "us-east-1",
		"eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/2026-11-21T00:00:00.000",
		"dynamodb": map[string]any{
			"ApproximateCreationDateTime": 1795000000, "SequenceNumber": seq, "SizeBytes": 300, "StreamViewType": "NEW_AND_OLD_IMAGES",
			"Keys": map[string]any{"PK": s("WS#" + ws + "#OUTBOX#" + eventID), "SK": s("OUTBOX")},
			"NewImage": map[string]any{
				"PK": s("WS#" + ws + "#OUTBOX#" + eventID), "SK": s("OUTBOX"), "entity": s("outbox"), "id": s(eventID),
				"workspaceId": s(ws), "detailType": s("Agent Stopped"), "targetType": s("agent"), "targetId": s("agt_onboarding"),
				"reason": s("daily_limit"), "status": s("stopped"), "credits": n("6"), "limit": n("5"),
				"at": s("2026-11-21T12:00:00.000Z"), "ttl": n("1795000000"),
			},
		},
	}
}
