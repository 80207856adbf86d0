package webhookdelivery

import (
	"context"
	"encoding/json"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Subscriptions reads a workspace's webhook subscriptions (at most
// workspace.MaxWebhooks, one Query).
type Subscriptions interface {
	Webhooks(ctx context.Context, ws string) ([]workspace.Webhook, error)
}

// FanOut queues ev, whose wire detail is data, for every subscription of
// its workspace that wants it (workspace.Webhook.Wants: enabled, its event
// type, and for a threshold its own percent): one message each, due now.
// The events function calls it for each limit event after publishing it,
// from the stream, so ingest never waits for a webhook.
func FanOut(ctx context.Context, subs Subscriptions, queue Queue, ev workspace.LimitEvent, data json.RawMessage) error {
	hooks, err := subs.Webhooks(ctx, ev.WorkspaceID)
	if err != nil {
		return err
	}
	for _, h := range hooks {
		if !h.Wants(ev.DetailType, ev.Threshold) {
			continue
		}
		m := Message{WorkspaceID: ev.WorkspaceID, WebhookID: h.ID, EventID: ev.ID, EventType: ev.DetailType,
			Timestamp: workspace.FormatTime(ev.At), Data: data}
		if err := queue.Enqueue(ctx, m, 0); err != nil {
			return err
		}
	}
	return nil
}
