package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Webhook subscriptions (docs/webhooks.md) live in the workspace partition
// beside a count item that bounds them, like the API key count; one Query of
// the prefix WEBHOOK reads the count item and every subscription (at most
// workspace.MaxWebhooks). Every change to a subscription rewrites the count
// item conditioned on the version it read, so changes of one workspace's
// subscriptions are serialised, and writes the union of their thresholds on
// the workspace item in the same transaction (workspace.ThresholdsOf).
// Each subscription's delivery attempts are kept in a partition of their
// own, newest first by their sortable ids, until their TTL:
//
//	item                PK                          SK                    (attributes)
//	webhook count       WS#<ws>                     WEBHOOKS              (count, version)
//	webhook             WS#<ws>                     WEBHOOK#<webhookId>   (url, eventTypes, thresholds, disabled, secret, previousSecret, previousExpiresAt)
//	webhook delivery    WS#<ws>#WEBHOOK#<webhookId> DELIVERY#<deliveryId> (ttl: attempt + workspace.DeliveryLogRetention)
//
// A secret is stored as it is: deliveries must be signed with it. No answer,
// log line or audit entry holds it after the one answer that creates it.
const (
	skWebhookCount   = "WEBHOOKS"
	prefixWebhook    = "WEBHOOK#"
	prefixWebhooks   = "WEBHOOK"
	prefixDelivery   = "DELIVERY#"
	typeWebhook      = "webhook"
	typeWebhookCount = "webhookCount"
	typeDelivery     = "webhookDelivery"
	attrCount2       = "count"
	attrThresholds   = "webhookThresholds"
)

func webhookSK(id string) string             { return prefixWebhook + id }
func deliveryPK(ws, webhookID string) string { return wsPK(ws) + "#WEBHOOK#" + webhookID }
func deliverySK(id string) string            { return prefixDelivery + id }

type webhookItem struct {
	keys
	ID                string   `dynamodbav:"id"`
	WorkspaceID       string   `dynamodbav:"workspaceId"`
	URL               string   `dynamodbav:"url"`
	EventTypes        []string `dynamodbav:"eventTypes"`
	Description       string   `dynamodbav:"description"`
	Thresholds        []int    `dynamodbav:"thresholds"`
	Disabled          bool     `dynamodbav:"disabled"`
	CreatedAt         string   `dynamodbav:"createdAt"`
	Secret            string   `dynamodbav:"secret"`
	PreviousSecret    string   `dynamodbav:"previousSecret,omitempty"`
	PreviousExpiresAt string   `dynamodbav:"previousExpiresAt,omitempty"`
}

func toWebhookItem(h workspace.Webhook) webhookItem {
	it := webhookItem{
		keys: keys{PK: wsPK(h.WorkspaceID), SK: webhookSK(h.ID), Entity: typeWebhook},
		ID:   h.ID, WorkspaceID: h.WorkspaceID, URL: h.URL, EventTypes: listOrEmpty(h.EventTypes),
		Description: h.Description, Thresholds: listOrEmpty(h.Thresholds), Disabled: h.Disabled,
		CreatedAt: storedTime(h.CreatedAt), Secret: h.Secret, PreviousSecret: h.PreviousSecret,
	}
	if h.PreviousExpiresAt != nil {
		it.PreviousExpiresAt = storedTime(*h.PreviousExpiresAt)
	}
	return it
}

func (i webhookItem) domain() workspace.Webhook {
	h := workspace.Webhook{
		ID: i.ID, WorkspaceID: i.WorkspaceID, URL: i.URL, EventTypes: listOrEmpty(i.EventTypes),
		Description: i.Description, Thresholds: listOrEmpty(i.Thresholds), Disabled: i.Disabled,
		CreatedAt: loadedTime(i.CreatedAt), Secret: i.Secret, PreviousSecret: i.PreviousSecret,
	}
	if i.PreviousExpiresAt != "" {
		t := loadedTime(i.PreviousExpiresAt)
		h.PreviousExpiresAt = &t
	}
	return h
}

type deliveryItem struct {
	keys
	ID          string  `dynamodbav:"id"`
	WebhookID   string  `dynamodbav:"webhookId"`
	EventID     string  `dynamodbav:"eventId"`
	EventType   string  `dynamodbav:"eventType"`
	Attempt     int     `dynamodbav:"attempt"`
	AttemptedAt string  `dynamodbav:"attemptedAt"`
	Status      *int    `dynamodbav:"status"`
	Error       *string `dynamodbav:"error"`
}

func (i deliveryItem) domain() workspace.Delivery {
	return workspace.Delivery{
		ID: i.ID, WebhookID: i.WebhookID, EventID: i.EventID, EventType: i.EventType, Attempt: i.Attempt,
		AttemptedAt: loadedTime(i.AttemptedAt), Status: i.Status, Error: i.Error,
	}
}

// webhookRow is an item of the prefix WEBHOOK: a subscription, or the
// count item (its SK WEBHOOKS, with its version).
type webhookRow struct {
	webhookItem
	Version int64 `dynamodbav:"version"`
}

// webhookSet is what one read of a workspace's subscriptions found: the
// count item's version (0: none yet) and the subscriptions in id order.
type webhookSet struct {
	version int64
	hooks   []workspace.Webhook
}

// readWebhooks reads ws's count item and subscriptions: one strongly
// consistent Query of at most workspace.MaxWebhooks + 1 items.
func (s *Store) readWebhooks(ctx context.Context, ws string) (webhookSet, error) {
	in, err := s.keyQuery("", prefixed(wsPK(ws), prefixWebhooks))
	if err != nil {
		return webhookSet{}, err
	}
	in.ConsistentRead = aws.Bool(true)
	rows, err := queryAll(ctx, s, in, "webhooks", func(it webhookRow) webhookRow { return it })
	if err != nil {
		return webhookSet{}, err
	}
	var set webhookSet
	for _, r := range rows {
		if r.SK == skWebhookCount {
			set.version = r.Version
			continue
		}
		set.hooks = append(set.hooks, r.domain())
	}
	return set, nil
}

// find returns the subscription id of set, or ErrWebhookNotFound.
func (set webhookSet) find(id string) (workspace.Webhook, error) {
	for _, h := range set.hooks {
		if h.ID == id {
			return h, nil
		}
	}
	return workspace.Webhook{}, workspace.ErrWebhookNotFound
}

// commitWebhooks writes the change of ws's subscriptions from set (as read)
// to after: the count item (count, version + 1) conditioned on the version
// read, the workspace item's union of thresholds (conditioned on it
// existing), writes (the subscription's put or delete) and entries, in one
// transaction. errLost when another change came first;
// ErrWorkspaceNotFound when the workspace is gone.
func (s *Store) commitWebhooks(ctx context.Context, ws string, set webhookSet, after []workspace.Webhook,
	writes []types.TransactWriteItem, entries ...workspace.AuditEntry) error {
	version := expression.Name(attrVersion)
	cond := version.Equal(expression.Value(set.version))
	if set.version == 0 {
		cond = expression.AttributeNotExists(expression.Name(attrPK))
	}
	count, err := s.update(key(wsPK(ws), skWebhookCount),
		expression.Set(expression.Name(attrCount2), expression.Value(len(after))).
			Set(version, expression.Value(set.version+1)).
			Set(expression.Name(attrEntity), expression.Value(typeWebhookCount)), &cond)
	if err != nil {
		return err
	}
	upd := expression.Remove(expression.Name(attrThresholds))
	if union := workspace.WebhookThresholdsUnion(after); len(union) > 0 {
		upd = expression.Set(expression.Name(attrThresholds), expression.Value(union))
	}
	meta, err := s.update(key(wsPK(ws), skMeta), upd, ptr(expression.AttributeExists(expression.Name(attrPK))))
	if err != nil {
		return err
	}
	failed, err := s.transactAudited(ctx, ws, append([]types.TransactWriteItem{count, meta}, writes...), entries...)
	switch {
	case err != nil:
		return err
	case len(failed) == 0:
		return nil
	case failed[0] == 1:
		return workspace.ErrWorkspaceNotFound
	}
	return errLost
}

// Webhooks lists ws's subscriptions in id order (creation order): one Query.
func (s *Store) Webhooks(ctx context.Context, ws string) ([]workspace.Webhook, error) {
	set, err := s.readWebhooks(ctx, ws)
	if err != nil {
		return nil, err
	}
	return listOrEmpty(set.hooks), nil
}

// Webhook returns subscription id of ws, or ErrWebhookNotFound: one GetItem.
func (s *Store) Webhook(ctx context.Context, ws, id string) (workspace.Webhook, error) {
	if !workspace.PlausibleID(id) {
		return workspace.Webhook{}, workspace.ErrWebhookNotFound
	}
	return getOne[webhookItem](ctx, s, ws, webhookSK(id), "webhook", workspace.ErrWebhookNotFound)
}

// CreateWebhook stores the new subscription h with its webhook.created entry
// (by, at now): workspace.ErrWebhookLimit when ws holds
// workspace.MaxWebhooks already; read again after a lost race.
func (s *Store) CreateWebhook(ctx context.Context, by workspace.Actor, h workspace.Webhook, now time.Time) error {
	_, err := decideAndCommit(ctx, func(int) (struct{}, error) {
		set, err := s.readWebhooks(ctx, h.WorkspaceID)
		if err != nil {
			return struct{}{}, err
		}
		if len(set.hooks) >= workspace.MaxWebhooks {
			return struct{}{}, workspace.ErrWebhookLimit
		}
		put, err := s.putNew(toWebhookItem(h))
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, s.commitWebhooks(ctx, h.WorkspaceID, set, append(set.hooks, h),
			[]types.TransactWriteItem{put}, h.CreatedEntry(now, by))
	})
	return err
}

// webhookDecision is a rule's answer for one subscription: its new form,
// the change's audit entries and limit events (an event without an id gets
// one naming the change), and whether there is anything to write.
type webhookDecision struct {
	after   workspace.Webhook
	entries []workspace.AuditEntry
	events  []workspace.LimitEvent
	write   bool
}

// changeWebhook reads ws's subscriptions, asks decide for subscription id's
// decision and commits it; read again after a lost race. It returns the
// subscription as it now is.
func (s *Store) changeWebhook(ctx context.Context, ws, id string, now time.Time,
	decide func(h workspace.Webhook) (webhookDecision, error)) (workspace.Webhook, error) {
	if !workspace.PlausibleID(id) {
		return workspace.Webhook{}, workspace.ErrWebhookNotFound
	}
	return decideAndCommit(ctx, func(int) (workspace.Webhook, error) {
		set, err := s.readWebhooks(ctx, ws)
		if err != nil {
			return workspace.Webhook{}, err
		}
		h, err := set.find(id)
		if err != nil {
			return workspace.Webhook{}, err
		}
		d, err := decide(h)
		if err != nil || !d.write {
			return h, err
		}
		all := make([]workspace.Webhook, len(set.hooks))
		for i, o := range set.hooks {
			all[i] = o
			if o.ID == id {
				all[i] = d.after
			}
		}
		it, err := marshal(toWebhookItem(d.after))
		if err != nil {
			return workspace.Webhook{}, err
		}
		writes := []types.TransactWriteItem{s.put(it, built{})}
		for _, ev := range d.events {
			if ev.ID == "" {
				ev.ID = eventID(ws, ev.DetailType, ev.Target.ID, strconv.FormatInt(set.version+1, 10))
			}
			put, err := s.outboxPut(ev, now)
			if err != nil {
				return workspace.Webhook{}, err
			}
			writes = append(writes, put)
		}
		return d.after, s.commitWebhooks(ctx, ws, set, all, writes, d.entries...)
	})
}

// UpdateWebhook applies ch to subscription id of ws and returns it as it now
// is, with its webhook.updated entry (by, at now) unless ch changes nothing.
func (s *Store) UpdateWebhook(ctx context.Context, by workspace.Actor, ws, id string, ch workspace.WebhookChange, now time.Time) (workspace.Webhook, error) {
	return s.changeWebhook(ctx, ws, id, now, func(h workspace.Webhook) (webhookDecision, error) {
		after, e, ok := ch.Apply(h, now, by)
		return webhookDecision{after: after, entries: []workspace.AuditEntry{e}, write: ok}, nil
	})
}

// RotateWebhookSecret makes secret subscription id's secret, the current one
// signing beside it for workspace.SecretOverlap, with a webhook.updated
// entry that names no secret.
func (s *Store) RotateWebhookSecret(ctx context.Context, by workspace.Actor, ws, id, secret string, now time.Time) (workspace.Webhook, error) {
	return s.changeWebhook(ctx, ws, id, now, func(h workspace.Webhook) (webhookDecision, error) {
		return webhookDecision{after: h.Rotated(secret, now), entries: []workspace.AuditEntry{h.SecretRotatedEntry(now, by)}, write: true}, nil
	})
}

// DisableWebhook disables subscription id of ws after its deliveries failed
// for a day (workspace.Webhook.Disable): the subscription, its
// webhook.disabled entry and its Webhook Disabled event's outbox item in one
// transaction. ok is false when it was disabled or deleted already (by an
// admin, or another delivery), and nothing was written.
func (s *Store) DisableWebhook(ctx context.Context, ws, id string, now time.Time) (ok bool, err error) {
	_, err = s.changeWebhook(ctx, ws, id, now, func(h workspace.Webhook) (webhookDecision, error) {
		after, e, ev, changed := h.Disable(now)
		ok = changed
		return webhookDecision{after: after, entries: []workspace.AuditEntry{e}, events: []workspace.LimitEvent{ev}, write: changed}, nil
	})
	if workspace.IsNotFound(err) {
		return false, nil
	}
	return ok, err
}

// DeleteWebhook deletes subscription id of ws with its webhook.deleted entry
// (by, at now); ErrWebhookNotFound when there is none. Its deliveries log
// is left to its TTL.
func (s *Store) DeleteWebhook(ctx context.Context, by workspace.Actor, ws, id string, now time.Time) error {
	if !workspace.PlausibleID(id) {
		return workspace.ErrWebhookNotFound
	}
	_, err := decideAndCommit(ctx, func(int) (struct{}, error) {
		set, err := s.readWebhooks(ctx, ws)
		if err != nil {
			return struct{}{}, err
		}
		if _, err := set.find(id); err != nil {
			return struct{}{}, err
		}
		var rest []workspace.Webhook
		for _, h := range set.hooks {
			if h.ID != id {
				rest = append(rest, h)
			}
		}
		del, err := s.deleteIf(key(wsPK(ws), webhookSK(id)), expression.AttributeExists(expression.Name(attrPK)))
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, s.commitWebhooks(ctx, ws, set, rest, []types.TransactWriteItem{del},
			workspace.WebhookDeletedEntry(now, by, id))
	})
	return err
}

// RecordDelivery stores one delivery attempt d of ws in its subscription's
// log, kept for workspace.DeliveryLogRetention: one PutItem.
func (s *Store) RecordDelivery(ctx context.Context, ws string, d workspace.Delivery) error {
	it, err := marshal(deliveryItem{
		keys: keys{PK: deliveryPK(ws, d.WebhookID), SK: deliverySK(d.ID), Entity: typeDelivery,
			TTL: epoch(d.AttemptedAt.Add(workspace.DeliveryLogRetention))},
		ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType, Attempt: d.Attempt,
		AttemptedAt: storedTime(d.AttemptedAt), Status: d.Status, Error: d.Error,
	})
	if err != nil {
		return err
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it}); err != nil {
		return fmt.Errorf("record webhook delivery: %w", err)
	}
	return nil
}

// Deliveries returns one page of subscription webhookID's delivery attempts
// of ws, newest first, after the attempt id after ("" for the first page),
// at most limit; next is the last one's id when more follow. One Query.
func (s *Store) Deliveries(ctx context.Context, ws, webhookID, after string, limit int) (ds []workspace.Delivery, next string, err error) {
	in, err := s.keyQuery("", prefixed(deliveryPK(ws, webhookID), prefixDelivery))
	if err != nil {
		return nil, "", err
	}
	in.ScanIndexForward = aws.Bool(false)
	var start item
	if after != "" {
		start = key(deliveryPK(ws, webhookID), deliverySK(after))
	}
	got, more, err := queryPage(ctx, s, in, start, limit, "webhook deliveries", deliveryItem.domain)
	if err != nil || !more {
		return got, "", err
	}
	return got, got[len(got)-1].ID, nil
}
