package dynamo

import (
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file holds the limit events' outbox (docs/limit-events.md): each
// event is an item written in the same transaction as the change it tells
// of, so there is no change without its event and no event without its
// change; the table's stream carries the item's insertion to the events
// function, which publishes it. Threshold markers make a threshold's event
// once per period: the marker is put with attribute_not_exists in the
// event's transaction.

// outboxItem is one limit event waiting in the table's stream. It is never
// read back from the table: the time to live removes it after
// workspace.OutboxKeep, once the stream no longer holds its insertion.
type outboxItem struct {
	keys
	ID          string   `dynamodbav:"id"`
	WorkspaceID string   `dynamodbav:"workspaceId"`
	DetailType  string   `dynamodbav:"detailType"`
	TargetType  string   `dynamodbav:"targetType"`
	TargetID    string   `dynamodbav:"targetId"`
	Reason      string   `dynamodbav:"reason,omitempty"`
	Status      string   `dynamodbav:"status,omitempty"`
	Credits     float64  `dynamodbav:"credits"`
	Limit       *float64 `dynamodbav:"limit"`
	Threshold   int      `dynamodbav:"threshold,omitempty"`
	Period      string   `dynamodbav:"period,omitempty"`
	At          string   `dynamodbav:"at"`
}

func toOutboxItem(ev workspace.LimitEvent, now time.Time) outboxItem {
	return outboxItem{
		keys: keys{PK: outboxPK(ev.WorkspaceID, ev.ID), SK: skOutbox, Entity: typeOutbox, TTL: epoch(now.Add(workspace.OutboxKeep))},
		ID:   ev.ID, WorkspaceID: ev.WorkspaceID, DetailType: ev.DetailType,
		TargetType: string(ev.Target.Type), TargetID: ev.Target.ID, Reason: ev.Reason, Status: ev.Status,
		Credits: ev.Credits, Limit: ev.Limit, Threshold: ev.Threshold, Period: ev.Period, At: storedTime(ev.At),
	}
}

func (i outboxItem) domain() workspace.LimitEvent {
	return workspace.LimitEvent{
		ID: i.ID, WorkspaceID: i.WorkspaceID, DetailType: i.DetailType,
		Target: workspace.EventTarget{Type: workspace.TargetType(i.TargetType), ID: i.TargetID}, Reason: i.Reason, Status: i.Status,
		Credits: i.Credits, Limit: i.Limit, Threshold: i.Threshold, Period: i.Period, At: loadedTime(i.At),
	}
}

// thresholdItem marks that a threshold's event was written for its period.
// It outlives the period (thresholdKeep after the time it was written), so
// a period never sees the event twice.
type thresholdItem struct {
	keys
	WorkspaceID string `dynamodbav:"workspaceId"`
	EventID     string `dynamodbav:"eventId"`
}

// thresholdKeep is how long a threshold marker is kept: longer than the
// longest period (a month), so the time to live removes it only once its
// period is over.
const thresholdKeep = 32 * 24 * time.Hour

// eventID returns the stable id of the event that parts (the workspace, the
// target and what makes the change unique: a state's new version, a
// threshold's limit, share and period) name: the same change always has the
// same id, so a decision taken again writes the same event, and the
// subscribers' de-duplication holds across redeliveries.
func eventID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return "evt_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}

// outboxPut is a transaction's Put of ev's outbox item; ev.ID must be set.
// The item is new (attribute_not_exists): an event id is written once.
func (s *Store) outboxPut(ev workspace.LimitEvent, now time.Time) (types.TransactWriteItem, error) {
	if ev.ID == "" {
		return types.TransactWriteItem{}, fmt.Errorf("outbox: an event without an id (%s)", ev.DetailType)
	}
	return s.putNew(toOutboxItem(ev, now))
}

// thresholdPuts are a transaction's Puts of a threshold crossing: its
// marker, new in its period (attribute_not_exists, so a second writer's
// transaction fails and that writer finds the marker on its next read), and
// its event. The target's partition (an agent's or a team's) holds the
// marker.
func (s *Store) thresholdPuts(ws string, target workspace.EventTarget, c workspace.Crossing, now time.Time) (
	[]types.TransactWriteItem, error) {
	ev := workspace.ThresholdEvent(ws, target, c, now)
	ev.ID = eventID(ws, string(target.Type), target.ID, "threshold", c.Limit, c.Period, fmt.Sprint(c.Percent))
	marker, err := s.putNew(thresholdItem{
		keys:        keys{PK: thresholdPK(ws, target), SK: thresholdSK(c.Limit, c.Period, c.Percent), Entity: typeThreshold, TTL: epoch(now.Add(thresholdKeep))},
		WorkspaceID: ws, EventID: ev.ID,
	})
	if err != nil {
		return nil, err
	}
	put, err := s.outboxPut(ev, now)
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{marker, put}, nil
}

func agentTarget(id string) workspace.EventTarget {
	return workspace.EventTarget{Type: workspace.TargetAgent, ID: id}
}

func teamTarget(id string) workspace.EventTarget {
	return workspace.EventTarget{Type: workspace.TargetTeam, ID: id}
}

// thresholdKeys are the keys (PK, SK) of target's threshold markers of
// now's periods: an agent's daily ones of today and monthly ones of this
// month, a team's of this month.
func thresholdKeys(ws string, target workspace.EventTarget, now time.Time) [][2]string {
	periods := [][2]string{{workspace.LimitDaily, workspace.DayKey(now)}, {workspace.LimitMonthly, workspace.MonthKey(now)}}
	if target.Type == workspace.TargetTeam {
		periods = [][2]string{{workspace.LimitTeam, workspace.MonthKey(now)}}
	}
	var out [][2]string
	for _, p := range periods {
		for _, pct := range workspace.Thresholds {
			out = append(out, [2]string{thresholdPK(ws, target), thresholdSK(p[0], p[1], pct)})
		}
	}
	return out
}

// unmarked keeps the crossings of target whose marker a read (which
// included thresholdKeys) did not find: the ones whose events are new.
func unmarked(items map[[2]string]item, ws string, target workspace.EventTarget, cs []workspace.Crossing) []workspace.Crossing {
	var out []workspace.Crossing
	for _, c := range cs {
		if _, marked := items[[2]string{thresholdPK(ws, target), thresholdSK(c.Limit, c.Period, c.Percent)}]; !marked {
			out = append(out, c)
		}
	}
	return out
}

// crossingPuts are a transaction's Puts of new crossings cs of target: a
// marker and an event each (thresholdPuts).
func (s *Store) crossingPuts(ws string, target workspace.EventTarget, cs []workspace.Crossing, now time.Time) ([]types.TransactWriteItem, error) {
	var out []types.TransactWriteItem
	for _, c := range cs {
		puts, err := s.thresholdPuts(ws, target, c, now)
		if err != nil {
			return nil, err
		}
		out = append(out, puts...)
	}
	return out, nil
}

// agentEventPuts are a transaction's Put of the event of agent (ws, agent)
// changing from before to after (workspace.AgentEvent), written as version
// of its state item; none when the change publishes nothing.
func (s *Store) agentEventPuts(ws, agent string, before, after workspace.AgentCredit, version int64, now time.Time) ([]types.TransactWriteItem, error) {
	ev, ok := workspace.AgentEvent(ws, agent, before, after, now)
	return s.stateEventPuts(ev, ok, version, now)
}

// teamEventPuts are a transaction's Put of the event of team (ws, team)
// pausing or resuming (workspace.TeamStateEvent) as version of its state
// item; none when its pause does not change.
func (s *Store) teamEventPuts(ws, team string, t workspace.TeamStanding, paused bool, version int64, now time.Time) ([]types.TransactWriteItem, error) {
	ev, ok := workspace.TeamStateEvent(ws, team, t, t.Paused, paused, now)
	return s.stateEventPuts(ev, ok, version, now)
}

// stateEventPuts are the Put of ev, the event of a state change written as
// version of its target's state item (none unless ok). The new version
// names the event, so the same change always has the same id.
func (s *Store) stateEventPuts(ev workspace.LimitEvent, ok bool, version int64, now time.Time) ([]types.TransactWriteItem, error) {
	if !ok {
		return nil, nil
	}
	ev.ID = eventID(ev.WorkspaceID, string(ev.Target.Type), ev.Target.ID, "state", fmt.Sprint(version))
	put, err := s.outboxPut(ev, now)
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{put}, nil
}

// thresholdPK is the partition of target's credit items.
func thresholdPK(ws string, target workspace.EventTarget) string {
	if target.Type == workspace.TargetTeam {
		return teamDataPK(ws, target.ID)
	}
	return agentDataPK(ws, target.ID)
}

// OutboxEvent reports whether a stream record is an outbox item's insertion,
// and returns its event. The filter of the events function's event source
// lets only such records through; this check holds without it. A record
// that is one but cannot be decoded is an error: the publisher reports it
// rather than dropping it.
func OutboxEvent(rec events.DynamoDBEventRecord) (ev workspace.LimitEvent, ok bool, err error) {
	img := rec.Change.NewImage
	if rec.EventName != string(events.DynamoDBOperationTypeInsert) {
		return workspace.LimitEvent{}, false, nil
	}
	if e, found := img[attrEntity]; !found || e.DataType() != events.DataTypeString || e.String() != typeOutbox {
		return workspace.LimitEvent{}, false, nil
	}
	m, err := fromStreamImage(img)
	if err != nil {
		return workspace.LimitEvent{}, true, err
	}
	var it outboxItem
	if err := unmarshal(m, &it); err != nil {
		return workspace.LimitEvent{}, true, err
	}
	ev = it.domain()
	if !ev.Valid() {
		return workspace.LimitEvent{}, true, fmt.Errorf("outbox item %q is not a well-formed limit event", it.ID)
	}
	return ev, true, nil
}

// fromStreamImage converts a stream record's image, as Lambda's event
// source delivers it, into the attribute values the item codec takes.
func fromStreamImage(img map[string]events.DynamoDBAttributeValue) (item, error) {
	out := make(item, len(img))
	for k, v := range img {
		av, err := fromStreamValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

func fromStreamValue(v events.DynamoDBAttributeValue) (types.AttributeValue, error) {
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}, nil
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}, nil
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}, nil
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case events.DataTypeList:
		list := v.List()
		out := make([]types.AttributeValue, len(list))
		for i, e := range list {
			av, err := fromStreamValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = av
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case events.DataTypeMap:
		m, err := fromStreamImage(v.Map())
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown attribute type %d", v.DataType())
}
