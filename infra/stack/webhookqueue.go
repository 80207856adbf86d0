package stack

import (
	"context"
	"log/slog"
	"time"

	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
)

// LocalQueue is the local stack's webhook delivery queue: each message is
// handed to Deliver (the delivery function's code) once its delay has
// passed, in a goroutine of its own, as SQS hands it to the function.
// Deliveries and their outcome show in each subscription's deliveries log
// (GET /workspaceapi/webhooks/{webhookId}/deliveries) and the runner's log.
type LocalQueue struct {
	Deliver func(ctx context.Context, m webhookdelivery.Message) error
}

// Enqueue delivers m after delay.
func (q *LocalQueue) Enqueue(_ context.Context, m webhookdelivery.Message, delay time.Duration) error {
	time.AfterFunc(delay, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := q.Deliver(ctx, m); err != nil {
			slog.Error("local webhook delivery", "webhookId", m.WebhookID, "eventId", m.EventID, "error", err)
			return
		}
		slog.Info("local webhook delivery attempted", "webhookId", m.WebhookID, "eventId", m.EventID,
			"eventType", m.EventType, "attempt", m.Attempt+1)
	})
	return nil
}
