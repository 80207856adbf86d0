package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ttlPrincipal is the principal of the table's time-to-live deletions in a
// stream record's userIdentity.
const ttlPrincipal = "dynamodb.amazonaws.com"

// seatReleaseKeep is how long the tombstone of a seat release is kept: past
// the 24 hours a stream record can be delivered for.
const seatReleaseKeep = 48 * time.Hour

// RemovedSeatHolder reports whether a stream record is the time to live
// removing an invitation that still held a seat, and names it. The filter of
// the retention function's event source lets only such records through;
// this check holds without it.
func RemovedSeatHolder(rec events.DynamoDBEventRecord) (ws, inviteID string, ok bool) {
	if rec.EventName != string(events.DynamoDBOperationTypeRemove) || rec.UserIdentity == nil ||
		rec.UserIdentity.Type != "Service" || rec.UserIdentity.PrincipalID != ttlPrincipal {
		return "", "", false
	}
	img := rec.Change.OldImage
	str := func(name string) string {
		if v, found := img[name]; found && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	holds, found := img[attrHoldsSeat]
	if str(attrEntity) != typeInvitation || !found || holds.DataType() != events.DataTypeBoolean || !holds.Boolean() {
		return "", "", false
	}
	ws, inviteID = str(attrWorkspace), str(attrID)
	return ws, inviteID, ws != "" && inviteID != ""
}

// seatReleaseItem records that the seat of a removed invitation was freed.
type seatReleaseItem struct {
	keys
}

// ReleaseRemovedSeat frees the seat of invitation inviteID of ws, which the
// table's time to live removed while it still held one. It is idempotent: the
// release writes a tombstone in the same transaction, and a second release of
// the same invitation (a redelivered stream record) finds it and does nothing.
func (s *Store) ReleaseRemovedSeat(ctx context.Context, ws, inviteID string, now time.Time) error {
	tomb, err := s.putNew(seatReleaseItem{keys{
		PK: wsPK(ws), SK: seatReleaseSK(inviteID), Entity: typeSeatFreed, TTL: epoch(now.Add(seatReleaseKeep)),
	}})
	if err != nil {
		return err
	}
	exists := expression.AttributeExists(expression.Name(attrPK))
	free, err := s.update(key(wsPK(ws), skMeta), expression.Add(expression.Name(attrSeatsUsed), expression.Value(-1)), &exists)
	if err != nil {
		return err
	}
	// A failed condition means released before, or the workspace is gone:
	// either way there is nothing left to free, so only errors count.
	_, err = s.transact(ctx, []types.TransactWriteItem{tomb, free})
	return err
}
