package limitevents_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/agentplatform/workspaceapi/shared/limitevents"
)

// outboxRecord is the stream record of an outbox item's insertion, as
// Lambda's event source delivers it to the events function.
func outboxRecord(t *testing.T, seq, id string) events.DynamoDBEventRecord {
	t.Helper()
	s := func(v string) map[string]string { return map[string]string{"S": v} }
	n := func(v string) map[string]string { return map[string]string{"N": v} }
	img := map[string]any{
		"PK": s("WS#ws_a#OUTBOX#" + id), "SK": s("OUTBOX"), "entity": s("outbox"), "ttl": n("1795000000"),
		"id": s(id), "workspaceId": s("ws_a"), "detailType": s("Credit Threshold Reached"),
		"targetType": s("agent"), "targetId": s("agt_1"), "reason": s("daily_limit"),
		"credits": n("8.5"), "limit": n("10"), "threshold": n("80"), "period": s("2026-11-21"), "at": s("2026-11-21T12:00:00.000Z"),
	}
	return record(t, seq, "INSERT", img)
}

func record(t *testing.T, seq, name string, img map[string]any) events.DynamoDBEventRecord {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{
		"eventID": "ev" + seq, "eventName": name, "eventSource": "aws:dynamodb", "eventVersion": "1.1", "awsRegion": "us-east-1",
		"dynamodb": map[string]any{"SequenceNumber": seq, "SizeBytes": 300, "StreamViewType": "NEW_AND_OLD_IMAGES", "NewImage": img},
	})
	var rec events.DynamoDBEventRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// counting counts a bus's PutEvents calls, and fails them all with err when set.
type counting struct {
	limitevents.Bus
	calls int
	err   error
}

func (c *counting) PutEvents(ctx context.Context, in *eventbridge.PutEventsInput, opts ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error) {
	c.calls++
	if c.err != nil {
		return nil, c.err
	}
	return c.Bus.PutEvents(ctx, in, opts...)
}

func eventIDs(t *testing.T, rec *limitevents.Recorder) []string {
	t.Helper()
	var ids []string
	for _, p := range rec.Events() {
		var d limitevents.Detail
		if err := json.Unmarshal(p.Detail, &d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.EventID)
	}
	return ids
}

func failures(res events.DynamoDBEventResponse) []string {
	var out []string
	for _, f := range res.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

func TestTheEventsFunctionPublishesOutboxInsertionsInOrder(t *testing.T) {
	rec := &limitevents.Recorder{Logger: quiet}
	bus := &counting{Bus: rec}
	h := limitevents.New(bus, "the-bus")
	var recs []events.DynamoDBEventRecord
	for i := 1; i <= 23; i++ {
		recs = append(recs, outboxRecord(t, fmt.Sprint(i), fmt.Sprintf("evt_%02d", i)))
	}
	// Not outbox insertions: another item, an outbox item's removal.
	recs = slices.Insert(recs, 3, record(t, "100", "INSERT", map[string]any{"entity": map[string]string{"S": "usage"}}))
	removal := outboxRecord(t, "101", "evt_gone")
	removal.EventName = "REMOVE"
	recs = append(recs, removal)

	res, err := h(t.Context(), events.DynamoDBEvent{Records: recs})
	if err != nil || len(res.BatchItemFailures) != 0 {
		t.Fatalf("got %v %v, want no failures", failures(res), err)
	}
	var want []string
	for i := 1; i <= 23; i++ {
		want = append(want, fmt.Sprintf("evt_%02d", i))
	}
	if got := eventIDs(t, rec); !slices.Equal(got, want) {
		t.Errorf("published %v, want %v", got, want)
	}
	if bus.calls != 3 {
		t.Errorf("PutEvents called %d times, want 3 (10 entries a call)", bus.calls)
	}
	got := rec.Events()[0]
	var detail map[string]any
	_ = json.Unmarshal(got.Detail, &detail)
	wantDetail := map[string]any{"eventId": "evt_01", "workspaceId": "ws_a", "target": map[string]any{"type": "agent", "id": "agt_1"},
		"reason": "daily_limit", "credits": 8.5, "limit": 10.0, "threshold": 80.0, "period": "2026-11-21", "at": "2026-11-21T12:00:00.000Z"}
	if got.DetailType != "Credit Threshold Reached" || fmt.Sprint(detail) != fmt.Sprint(wantDetail) {
		t.Errorf("published %s %v, want Credit Threshold Reached %v", got.DetailType, detail, wantDetail)
	}
}

func TestARefusedEventIsReportedWithEveryLaterOneAndPublishedOnRetry(t *testing.T) {
	rec := &limitevents.Recorder{Logger: quiet}
	h := limitevents.New(rec, "the-bus")
	var recs []events.DynamoDBEventRecord
	for i := 1; i <= 5; i++ {
		recs = append(recs, outboxRecord(t, fmt.Sprint(i), fmt.Sprintf("evt_%d", i)))
	}
	rec.SetFail(func(e types.PutEventsRequestEntry) bool {
		return slices.Contains([]string{"evt_3"}, detailID(aws.ToString(e.Detail)))
	})
	res, _ := h(t.Context(), events.DynamoDBEvent{Records: recs})
	if got, want := failures(res), []string{"3", "4", "5"}; !slices.Equal(got, want) {
		t.Fatalf("failures %v, want %v (the refused record and every later one)", got, want)
	}
	// Lambda hands the batch over again from the lowest failure; the bus
	// has recovered: every event is published, some twice (at least once).
	rec.SetFail(nil)
	res, _ = h(t.Context(), events.DynamoDBEvent{Records: recs[2:]})
	if len(res.BatchItemFailures) != 0 {
		t.Fatalf("failures %v after recovery, want none", failures(res))
	}
	if got, want := eventIDs(t, rec), []string{"evt_1", "evt_2", "evt_4", "evt_5", "evt_3", "evt_4", "evt_5"}; !slices.Equal(got, want) {
		t.Errorf("published %v, want %v", got, want)
	}
}

func TestAFailedCallReportsItsRecordsAndSendsNoLaterOnes(t *testing.T) {
	bus := &counting{Bus: &limitevents.Recorder{Logger: quiet}, err: errors.New("throttled")}
	h := limitevents.New(bus, "the-bus")
	var recs []events.DynamoDBEventRecord
	for i := 1; i <= 12; i++ {
		recs = append(recs, outboxRecord(t, fmt.Sprint(i), fmt.Sprintf("evt_%d", i)))
	}
	res, _ := h(t.Context(), events.DynamoDBEvent{Records: recs})
	if got := len(res.BatchItemFailures); got != 12 || bus.calls != 1 {
		t.Errorf("%d failures after %d calls, want 12 after 1", got, bus.calls)
	}
}

func TestAnOutboxRecordThatIsNoLimitEventIsReportedNotDropped(t *testing.T) {
	rec := &limitevents.Recorder{Logger: quiet}
	h := limitevents.New(rec, "the-bus")
	bad := outboxRecord(t, "2", "evt_bad")
	bad.Change.NewImage["detailType"] = events.NewStringAttribute("Agent Exploded")
	recs := []events.DynamoDBEventRecord{outboxRecord(t, "1", "evt_1"), bad, outboxRecord(t, "3", "evt_3")}
	res, _ := h(t.Context(), events.DynamoDBEvent{Records: recs})
	if got, want := failures(res), []string{"2", "3"}; !slices.Equal(got, want) {
		t.Errorf("failures %v, want %v", got, want)
	}
	if got := eventIDs(t, rec); !slices.Equal(got, []string{"evt_1"}) {
		t.Errorf("published %v, want [evt_1]", got)
	}
}

var quiet = slog.New(slog.DiscardHandler)

func detailID(detail string) string {
	var d limitevents.Detail
	_ = json.Unmarshal([]byte(detail), &d)
	return d.EventID
}
