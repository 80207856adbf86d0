package awsevents_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
)

// roundTrip sends v through JSON into out, as the Lambda runtime hands an
// event to a handler.
func roundTrip(t *testing.T, v, out any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}

func TestAnSQSBatchCarriesEachBodyUnderItsOwnID(t *testing.T) {
	var got events.SQSEvent
	roundTrip(t, awsevents.SQSBatch(`{"a": 1}`, "not json"), &got)
	var ids, bodies []string
	for _, m := range got.Records {
		ids, bodies = append(ids, m.MessageId), append(bodies, m.Body)
	}
	if want := []string{"msg-1", "msg-2"}; !slices.Equal(ids, want) {
		t.Errorf("ids: got %v, want %v", ids, want)
	}
	if want := []string{`{"a": 1}`, "not json"}; !slices.Equal(bodies, want) {
		t.Errorf("bodies: got %v, want %v", bodies, want)
	}
}

func TestAnSQSMessageSendsANonStringBodyAsItsJSON(t *testing.T) {
	tests := []struct {
		name string
		body any
		want string
	}{
		{"a string is the text itself", `{"type": "credits.used"}`, `{"type": "credits.used"}`},
		{"a map is its JSON", map[string]any{"type": "credits.used"}, `{"type":"credits.used"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := awsevents.SQSMessage("m1", tc.body).Body; got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestTheScheduledEventIsAtTheWholeSecondGiven(t *testing.T) {
	at := time.Date(2026, 11, 22, 0, 0, 0, 500, time.FixedZone("CET", 3600))
	var got events.EventBridgeEvent
	roundTrip(t, awsevents.Scheduled("tick", at), &got)
	if want := at.Truncate(time.Second); !got.Time.Equal(want) || got.ID != "tick" || got.DetailType != "Scheduled Event" {
		t.Errorf("got %s at %s (%s), want tick at %s (Scheduled Event)", got.ID, got.Time, got.DetailType, want)
	}
}

func TestAStreamRemovalIsTheTimeToLivesOnlyWhenMarkedSo(t *testing.T) {
	tests := []struct {
		name   string
		record events.DynamoDBEventRecord
		wantOK bool
		held   bool
	}{
		{"the TTL removed a seat holder", awsevents.TTLRemoval("1", "ws_a", "inv_1", true), true, true},
		{"the TTL removed an invitation without a seat", awsevents.TTLRemoval("2", "ws_a", "inv_1", false), true, false},
		{"a request removed it", awsevents.Removal("3", awsevents.Item(awsevents.Invitation("ws_a", "inv_1", true)), false), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rec events.DynamoDBEventRecord
			roundTrip(t, tc.record, &rec)
			ws, id, held, ok := dynamo.RemovedInvitation(rec)
			if ok != tc.wantOK || (ok && (ws != "ws_a" || id != "inv_1" || held != tc.held)) {
				t.Errorf("got %s %s held %v ok %v, want ws_a inv_1 held %v ok %v", ws, id, held, ok, tc.held, tc.wantOK)
			}
			if keys := rec.Change.Keys; keys["PK"].String() != "WS#ws_a" || keys["SK"].String() != "INVITE#inv_1" {
				t.Errorf("keys: got %v, want the invitation's PK and SK", keys)
			}
		})
	}
}

func TestAnOutboxInsertionIsAWellFormedLimitEvent(t *testing.T) {
	var rec events.DynamoDBEventRecord
	roundTrip(t, awsevents.OutboxInsert("1", "ws_a", "evt_1"), &rec)
	ev, isOutbox, err := dynamo.OutboxEvent(rec)
	if !isOutbox || err != nil || ev.ID != "evt_1" || ev.WorkspaceID != "ws_a" {
		t.Errorf("got %+v (outbox %v, %v), want limit event evt_1 of ws_a", ev, isOutbox, err)
	}
}
