// Package retention is the function that follows the table's time to live:
// every invitation it removes is recorded in the workspace's audit log
// (invite.removed), and when one still held a seat (its retention period
// passed before any invitation needed the seat back), the seat is freed in
// the same transaction, so the workspace's seat count stays exact however
// long nobody looks.
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
	RecordRemovedInvitation(ctx context.Context, by workspace.Actor, ws, inviteID string, heldSeat bool, now time.Time) error
}

// Handler is the function's Lambda handler: a DynamoDB stream batch in, the
// records it could not apply out (the event source retries those alone).
type Handler func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// New returns the handler. A record that is not the time to live removing an
// invitation is skipped; one whose handling fails is reported by its sequence
// number, so Lambda retries it and only it.
func New(store Store, clock workspace.Clock) Handler {
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		res := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
		for _, rec := range ev.Records {
			ws, id, heldSeat, ok := dynamo.RemovedInvitation(rec)
			if !ok {
				continue
			}
			if err := store.RecordRemovedInvitation(ctx, workspace.SystemActor(workspace.SystemRetention), ws, id, heldSeat, clock.Now()); err != nil {
				slog.ErrorContext(ctx, "record a removed invitation", "workspaceId", ws, "inviteId", id, "error", err)
				res.BatchItemFailures = append(res.BatchItemFailures,
					events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
			}
		}
		return res, nil
	}
}
