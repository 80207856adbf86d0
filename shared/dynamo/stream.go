package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// ttlPrincipal is the principal of the table's time-to-live deletions in a
// stream record's userIdentity.
const ttlPrincipal = "dynamodb.amazonaws.com"

// seatReleaseKeep is how long the tombstone of a handled removal is kept:
// past the 24 hours a stream record can be delivered for.
const seatReleaseKeep = 48 * time.Hour

// RemovedInvitation reports whether a stream record is the time to live
// removing an invitation, names it, and tells whether it still held a seat.
// The filter of the retention function's event source lets only such
// records through; this check holds without it.
func RemovedInvitation(rec events.DynamoDBEventRecord) (ws, inviteID string, heldSeat, ok bool) {
	if rec.EventName != string(events.DynamoDBOperationTypeRemove) || rec.UserIdentity == nil ||
		rec.UserIdentity.Type != "Service" || rec.UserIdentity.PrincipalID != ttlPrincipal {
		return "", "", false, false
	}
	img := rec.Change.OldImage
	str := func(name string) string {
		if v, found := img[name]; found && v.DataType() == events.DataTypeString {
			return v.String()
		}
		return ""
	}
	if str(attrEntity) != typeInvitation {
		return "", "", false, false
	}
	holds, found := img[attrHoldsSeat]
	heldSeat = found && holds.DataType() == events.DataTypeBoolean && holds.Boolean()
	ws, inviteID = str(attrWorkspace), str(attrID)
	return ws, inviteID, heldSeat, ws != "" && inviteID != ""
}

// seatReleaseItem records that the removal of an invitation by the time to
// live was handled: its entry recorded and, when it held one, its seat freed.
type seatReleaseItem struct {
	keys
}

// RecordRemovedInvitation handles invitation inviteID of ws, which the
// table's time to live removed: one transaction records its invite.removed
// entry (by, at now) and, when it still held a seat, frees the seat. It is
// idempotent: the transaction writes a tombstone, and a second delivery of
// the same stream record finds it and changes nothing. A workspace that no
// longer exists records nothing.
func (s *Store) RecordRemovedInvitation(ctx context.Context, by workspace.Actor, ws, inviteID string, heldSeat bool, now time.Time) error {
	tomb, err := s.putNew(seatReleaseItem{keys{
		PK: wsPK(ws), SK: seatReleaseSK(inviteID), Entity: typeSeatFreed, TTL: epoch(now.Add(seatReleaseKeep)),
	}})
	if err != nil {
		return err
	}
	exists := expression.AttributeExists(expression.Name(attrPK))
	var workspaceItem types.TransactWriteItem
	if heldSeat {
		workspaceItem, err = s.update(key(wsPK(ws), skMeta), expression.Add(expression.Name(attrSeatsUsed), expression.Value(-1)), &exists)
	} else {
		workspaceItem, err = s.check(key(wsPK(ws), skMeta), exists)
	}
	if err != nil {
		return err
	}
	// A failed condition means handled before, or the workspace is gone:
	// either way there is nothing left to do, so only errors count.
	_, err = s.transactAudited(ctx, ws, []types.TransactWriteItem{tomb, workspaceItem},
		workspace.RemovedInvitationEntry(now, by, inviteID))
	return err
}
