// Package ingest is the SQS-fed function that brings the platform's events
// into the service (docs/ingest-events.md): credit usage, chat messages,
// diary entries, key-metric records, and the provisioning events that bring
// workspaces, members and agents in. Each SQS message body is one event.
// A batch's valid usage events are applied together, exactly once each, and
// settle the agents' and teams' running states; every record that cannot be
// applied is named in the answer's batchItemFailures, so the queue delivers
// it again and finally moves it to the dead-letter queue, and nothing is
// dropped silently.
//
// The fixture loader (docs/fixture-format.md) applies its events through
// Applier, which runs exactly the code the function runs.
package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the function uses: credit usage, and the
// provisioning events' entities.
type Store interface {
	Provisioner
	// ApplyUsage applies validated credits.used events, each exactly once,
	// and reports one error per event (nil: applied, now or by an earlier
	// delivery) and the running states it changed.
	ApplyUsage(ctx context.Context, by workspace.Actor, events []workspace.Usage, now time.Time) dynamo.UsageReport
}

// AgentData stores what an agent produces besides usage: chats, diary entries
// and key-metric records. Each method applies one validated event exactly
// once (a redelivered event id changes nothing and returns nil), returns
// workspace.ErrAgentNotFound when the agent does not exist in the workspace,
// and any other error when the event could not be stored (it is then
// delivered again).
type AgentData interface {
	StoreChatMessage(ctx context.Context, m ChatMessage) error
	StoreDiaryEntry(ctx context.Context, e DiaryEntry) error
	StoreMetricRecord(ctx context.Context, r MetricRecord) error
}

// ErrAgentDataNotStored is what NotStoredYet returns for every event.
var ErrAgentDataNotStored = errors.New("the agent-data store (chats, diary entries, key-metric records) is not built yet; the event is not applied")

// NotStoredYet is the AgentData of this build, which has no store for chats,
// diary entries and metric records yet: it refuses every such event, so they
// stay in the queue (and end in its dead-letter queue) rather than being
// acknowledged and lost.
type NotStoredYet struct{}

// StoreChatMessage returns ErrAgentDataNotStored.
func (NotStoredYet) StoreChatMessage(context.Context, ChatMessage) error {
	return ErrAgentDataNotStored
}

// StoreDiaryEntry returns ErrAgentDataNotStored.
func (NotStoredYet) StoreDiaryEntry(context.Context, DiaryEntry) error { return ErrAgentDataNotStored }

// StoreMetricRecord returns ErrAgentDataNotStored.
func (NotStoredYet) StoreMetricRecord(context.Context, MetricRecord) error {
	return ErrAgentDataNotStored
}

// Handler is the function's Lambda handler: an SQS batch in, the messages it
// could not apply out (with ReportBatchItemFailures, the queue redelivers
// those alone).
type Handler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// ingester holds what the handler and the Applier share.
type ingester struct {
	store Store
	data  AgentData
	clock workspace.Clock
}

// New returns the handler. It never fails the whole batch: each record that
// is malformed, of an unknown type, for an unknown agent, or that storage
// refused is reported by its messageId and logged (without its body); the
// others are applied.
func New(store Store, data AgentData, clock workspace.Clock) Handler {
	in := &ingester{store: store, data: data, clock: clock}
	return in.handle
}

func (in *ingester) handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	res := events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{}}
	bodies := make([][]byte, len(ev.Records))
	for i, rec := range ev.Records {
		bodies[i] = []byte(rec.Body)
	}
	heads, errs := in.apply(ctx, bodies)
	for i, err := range errs {
		if err == nil {
			continue
		}
		logFailure(ctx, ev.Records[i].MessageId, heads[i], err)
		res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: ev.Records[i].MessageId})
	}
	return res, nil
}

// apply decodes, validates and applies the events, and returns each one's
// head (as far as it could be read) and error (nil: applied). A
// provisioning event is applied alone, in its place: the events before it
// in the batch are applied before it, those after it after it, so an agent
// provisioned earlier in a batch is there for its usage, and usage sent
// before an agent.removed still counts. Between provisioning events, the
// valid usage events go to the store in one call, in their order, so that
// an agent's events share one counter write.
func (in *ingester) apply(ctx context.Context, bodies [][]byte) ([]Head, []error) {
	now := in.clock.Now()
	heads := make([]Head, len(bodies))
	errs := make([]error, len(bodies))
	parsed := make([]Event, len(bodies))
	for i, body := range bodies {
		ev, err := Parse(body)
		heads[i], parsed[i], errs[i] = ev.Head, ev, err
	}
	start := 0
	for i, ev := range parsed {
		if errs[i] != nil || ev.Provision == nil {
			continue
		}
		in.applyRun(ctx, parsed[start:i], errs[start:i], now)
		errs[i] = ev.Provision.apply(ctx, in.store, now)
		start = i + 1
	}
	in.applyRun(ctx, parsed[start:], errs[start:], now)
	return heads, errs
}

// applyRun applies a run of parsed events without provisioning events
// among them, filling errs for those not failed already: the usage events
// in one store call, then the agent-data events.
func (in *ingester) applyRun(ctx context.Context, parsed []Event, errs []error, now time.Time) {
	var usage []workspace.Usage
	var usageAt []int
	for i, ev := range parsed {
		if errs[i] != nil || ev.Usage == nil {
			continue
		}
		if limit := now.Add(workspace.MaxUsageSkew); ev.Usage.OccurredAt.After(limit) {
			errs[i] = workspace.Invalid("occurredAt must not be more than %s after now (it is %s, now is %s)",
				workspace.MaxUsageSkew, workspace.FormatTime(ev.Usage.OccurredAt), workspace.FormatTime(now))
			continue
		}
		usage = append(usage, *ev.Usage)
		usageAt = append(usageAt, i)
	}
	if len(usage) > 0 {
		rep := in.store.ApplyUsage(ctx, workspace.SystemActor(workspace.SystemIngest), usage, now)
		for k, i := range usageAt {
			if k < len(rep.Errs) {
				errs[i] = rep.Errs[k]
			} else {
				errs[i] = fmt.Errorf("the store reported %d results for %d events", len(rep.Errs), len(usage))
			}
		}
		for _, tr := range rep.Transitions {
			logTransition(ctx, tr)
		}
	}
	for i, ev := range parsed {
		if errs[i] != nil {
			continue
		}
		switch {
		case ev.Chat != nil:
			errs[i] = in.data.StoreChatMessage(ctx, *ev.Chat)
		case ev.Diary != nil:
			errs[i] = in.data.StoreDiaryEntry(ctx, *ev.Diary)
		case ev.Metric != nil:
			errs[i] = in.data.StoreMetricRecord(ctx, *ev.Metric)
		}
	}
}

// logFailure logs why a record was not applied, with the event's context but
// never its body. A problem with the event itself (invalid, unknown agent)
// is the sender's to fix and is a warning; anything else, a write that kept
// losing races included, is an error.
func logFailure(ctx context.Context, messageID string, h Head, err error) {
	level := slog.LevelError
	if workspace.KindOf(err) != 0 && !workspace.IsBusy(err) {
		level = slog.LevelWarn
	}
	slog.Log(ctx, level, "ingest event not applied",
		"messageId", messageID, "type", h.Type, "eventId", h.ID, "workspaceId", h.WorkspaceID, "agentId", h.AgentID,
		"reason", workspace.RedactKeys(err.Error()))
}

// logTransition logs a running-state change usage caused.
func logTransition(ctx context.Context, tr workspace.Transition) {
	if tr.AgentID == "" {
		msg := "team paused"
		if tr.State.IsRunning() {
			msg = "team resumed"
		}
		slog.InfoContext(ctx, msg, "workspaceId", tr.WorkspaceID, "teamId", tr.TeamID)
		return
	}
	msg := "agent " + tr.State.Status
	if tr.State.IsRunning() {
		msg = "agent resumed"
	}
	slog.InfoContext(ctx, msg, "workspaceId", tr.WorkspaceID, "agentId", tr.AgentID,
		"status", tr.State.Status, "statusReason", tr.State.Reason)
}

// Applier applies single events through exactly the code path of the
// function (decode, validate, apply); the fixture loader uses it for a
// fixture's events (docs/fixture-format.md).
type Applier struct {
	in *ingester
}

// NewApplier returns an Applier over the same dependencies the function
// takes.
func NewApplier(store Store, data AgentData, clock workspace.Clock) Applier {
	return Applier{in: &ingester{store: store, data: data, clock: clock}}
}

// Apply applies one event and returns why it could not be, or nil when it is
// applied (now, or by an earlier delivery of the same id).
func (a Applier) Apply(ctx context.Context, event json.RawMessage) error {
	_, errs := a.in.apply(ctx, [][]byte{event})
	return errs[0]
}

// AgentDataStore is the storage StoredAgentData writes to (shared/dynamo's
// Store): each method applies one event exactly once per event id.
type AgentDataStore interface {
	PutChatMessage(ctx context.Context, eventID, ws, agent, chatID string, c workspace.ChatUpdate, m workspace.Message, now time.Time) error
	PutDiaryEntry(ctx context.Context, eventID, ws string, e workspace.DiaryEntry, now time.Time) error
	PutMetricRecord(ctx context.Context, eventID, ws, agent string, r workspace.MetricRecord, now time.Time) error
}

// StoredAgentData is the AgentData of the service: it stores each event in
// Store, with event markers that expire Clock's now plus the dedup window.
type StoredAgentData struct {
	Store AgentDataStore
	Clock workspace.Clock
}

// StoreChatMessage stores the message and the chat fields it carries.
func (d StoredAgentData) StoreChatMessage(ctx context.Context, m ChatMessage) error {
	return d.Store.PutChatMessage(ctx, m.ID, m.WorkspaceID, m.AgentID, m.ChatID, m.Chat, m.Message, d.Clock.Now())
}

// StoreDiaryEntry stores the entry and counts it in its month's summary.
func (d StoredAgentData) StoreDiaryEntry(ctx context.Context, e DiaryEntry) error {
	return d.Store.PutDiaryEntry(ctx, e.ID, e.WorkspaceID, e.Entry, d.Clock.Now())
}

// StoreMetricRecord stores the record and adds it to its day's summary and
// its metric's total.
func (d StoredAgentData) StoreMetricRecord(ctx context.Context, r MetricRecord) error {
	return d.Store.PutMetricRecord(ctx, r.ID, r.WorkspaceID, r.AgentID, r.Record, d.Clock.Now())
}
