// Package retention is the function that follows the table's time to live:
// when it removes an invitation that still held a seat (its retention period
// passed before any invitation needed the seat back), the seat is freed, so
// the workspace's seat count stays exact however long nobody looks.
package retention

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the function uses.
type Store interface {
	ReleaseRemovedSeat(ctx context.Context, ws, inviteID string, now time.Time) error
}

// Handler is the function's Lambda handler: a DynamoDB stream batch in, the
// records it could not apply out (the event source retries those alone).
type Handler func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// New returns the handler. A record that is not the time to live removing a
// seat holder is skipped; one whose release fails is reported by its sequence
// number, so Lambda retries it and only it.
func New(store Store, clock workspace.Clock) Handler {
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		res := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
		for _, rec := range ev.Records {
			ws, id, ok := dynamo.RemovedSeatHolder(rec)
			if !ok {
				continue
			}
			if err := store.ReleaseRemovedSeat(ctx, ws, id, clock.Now()); err != nil {
				slog.ErrorContext(ctx, "release the seat of a removed invitation", "workspaceId", ws, "inviteId", id, "error", err)
				res.BatchItemFailures = append(res.BatchItemFailures,
					events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
			}
		}
		return res, nil
	}
}
