// Package limitevents is the events function: fed by the table's stream
// (filtered to the insertions of outbox items), it publishes each limit
// event to the stack's EventBridge bus (docs/limit-events.md). Delivery is
// at least once: a record whose event EventBridge did not take is reported
// as a partial batch failure, and Lambda hands it (and the records after
// it) over again; subscribers de-duplicate on the event's stable eventId.
package limitevents

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Bus is the part of the EventBridge client the publisher uses. PutEvents
// may take some entries and refuse others: its answer's FailedEntryCount
// and each entry's ErrorCode say which.
type Bus interface {
	PutEvents(ctx context.Context, in *eventbridge.PutEventsInput, optFns ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error)
}

// maxEntries is how many entries one PutEvents call takes.
const maxEntries = 10

// Handler is the function's Lambda handler: a stream batch in, the records
// whose events were not published out.
type Handler func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// New returns the handler publishing to the bus named busName. Records are
// published in stream order, up to maxEntries per call; at the first call
// or entry that fails, that record and every later one are reported (by
// sequence number) and the later ones are not sent, so a retry delivers
// them in order. A record that is not an outbox insertion is skipped; one
// that is but cannot be decoded is reported, so it ends in the dead-letter
// queue, never dropped unseen.
func New(bus Bus, busName string) Handler { return NewWithWebhooks(bus, busName, nil) }

// Webhooks is where the events function fans each published event out to
// the workspace's webhook subscriptions (webhookdelivery.FanOut).
type Webhooks func(ctx context.Context, ev workspace.LimitEvent, detail json.RawMessage) error

// NewWithWebhooks is New, and each event published is then fanned out to
// the webhook subscriptions by hooks (nil: none). A record whose fan-out
// fails is reported with every later one, as a refused publish is: its
// event is published again on the retry (subscribers de-duplicate on its
// eventId) and fanned out again.
func NewWithWebhooks(bus Bus, busName string, hooks Webhooks) Handler {
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		res := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
		var recs []events.DynamoDBEventRecord
		var evs []workspace.LimitEvent
		var entries []types.PutEventsRequestEntry
		stopped := false // past a record that cannot be published: the rest wait, in order
		for _, rec := range ev.Records {
			le, isOutbox, err := dynamo.OutboxEvent(rec)
			if !isOutbox {
				continue
			}
			recs = append(recs, rec)
			if err != nil && !stopped {
				slog.ErrorContext(ctx, "an outbox record that is not a limit event", "sequenceNumber", rec.Change.SequenceNumber, "error", err)
			}
			stopped = stopped || err != nil
			if !stopped {
				entries = append(entries, Entry(le, busName))
				evs = append(evs, le)
			}
		}
		published := 0
		for published < len(entries) {
			chunk := entries[published:min(published+maxEntries, len(entries))]
			failed := put(ctx, bus, chunk)
			if len(failed) > 0 {
				published += failed[0]
				break
			}
			published += len(chunk)
		}
		for i := 0; hooks != nil && i < published; i++ {
			if err := hooks(ctx, evs[i], json.RawMessage(aws.ToString(entries[i].Detail))); err != nil {
				slog.ErrorContext(ctx, "fan a limit event out to webhooks", "eventId", evs[i].ID, "error", err)
				published = i
			}
		}
		for _, r := range recs[published:] {
			res.BatchItemFailures = append(res.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
		}
		return res, nil
	}
}

// put sends entries in one PutEvents call and returns the indexes of those
// not taken: all of them when the call failed, else the entries with an
// ErrorCode.
func put(ctx context.Context, bus Bus, entries []types.PutEventsRequestEntry) []int {
	out, err := bus.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: entries})
	var failed []int
	if err != nil {
		slog.ErrorContext(ctx, "publish limit events", "entries", len(entries), "error", err)
		for i := range entries {
			failed = append(failed, i)
		}
		return failed
	}
	if out.FailedEntryCount == 0 && len(out.Entries) == len(entries) {
		return nil
	}
	for i := range entries {
		if i >= len(out.Entries) || out.Entries[i].ErrorCode != nil {
			failed = append(failed, i)
		}
	}
	for _, i := range failed {
		var code, msg string
		if i < len(out.Entries) {
			code, msg = aws.ToString(out.Entries[i].ErrorCode), aws.ToString(out.Entries[i].ErrorMessage)
		}
		slog.ErrorContext(ctx, "EventBridge refused a limit event", "detailType", aws.ToString(entries[i].DetailType),
			"errorCode", code, "errorMessage", msg)
	}
	return failed
}

// Detail is the detail of a limit event as subscribers receive it.
type Detail struct {
	EventID     string  `json:"eventId"`
	WorkspaceID string  `json:"workspaceId"`
	Target      Target  `json:"target"`
	Reason      string  `json:"reason"`
	Status      string  `json:"status,omitempty"`
	Credits     float64 `json:"credits"`
	// Limit is null when the agent has no limit the event measures it by.
	Limit     *float64 `json:"limit"`
	Threshold int      `json:"threshold,omitempty"`
	Period    string   `json:"period,omitempty"`
	At        string   `json:"at"`
}

// Target is what an event is about.
type Target struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// DetailOf is ev's wire form.
func DetailOf(ev workspace.LimitEvent) Detail {
	return Detail{
		EventID: ev.ID, WorkspaceID: ev.WorkspaceID, Target: Target{Type: string(ev.Target.Type), ID: ev.Target.ID},
		Reason: ev.Reason, Status: ev.Status, Credits: ev.Credits, Limit: ev.Limit,
		Threshold: ev.Threshold, Period: ev.Period, At: workspace.FormatTime(ev.At),
	}
}

// Entry is ev's PutEvents entry on the bus busName.
func Entry(ev workspace.LimitEvent, busName string) types.PutEventsRequestEntry {
	detail, err := json.Marshal(DetailOf(ev))
	if err != nil {
		// A Detail of strings and finite numbers (Valid) always marshals.
		panic(fmt.Sprintf("marshal a limit event's detail: %v", err))
	}
	at := ev.At.UTC().Truncate(time.Millisecond)
	return types.PutEventsRequestEntry{
		EventBusName: aws.String(busName), Source: aws.String(workspace.EventSource),
		DetailType: aws.String(ev.DetailType), Detail: aws.String(string(detail)), Time: &at,
	}
}
