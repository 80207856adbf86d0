package dynamo

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// InviteSetup is the state POST /workspaceapi/invites decides on, read in one
// round trip.
type InviteSetup struct {
	Workspace workspace.Workspace
	Inviter   workspace.Member
	Claim     workspace.EmailClaim
	// Teams holds the requested team ids that exist in the workspace.
	Teams map[string]bool
}

// InviteSetup reads workspace ws, the inviting member, the claim on email and
// the teams teamIDs with one BatchGetItem. It returns a KindNotFound error when
// the workspace does not exist.
func (s *Store) InviteSetup(ctx context.Context, ws, inviterID, email string, teamIDs []string) (InviteSetup, error) {
	pk := wsPK(ws)
	keys := []map[string]types.AttributeValue{key(pk, skMeta), key(pk, memberSK(inviterID)), key(pk, emailSK(email))}
	for _, id := range teamIDs {
		keys = append(keys, key(pk, teamSK(id)))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return InviteSetup{}, err
	}
	var setup InviteSetup
	meta, ok := found[[2]string{pk, skMeta}]
	if !ok {
		return InviteSetup{}, workspace.NotFound("workspace not found")
	}
	var w workspaceItem
	if err := unmarshal(meta, &w); err != nil {
		return InviteSetup{}, err
	}
	setup.Workspace = w.domain()
	if raw, ok := found[[2]string{pk, memberSK(inviterID)}]; ok {
		var m memberItem
		if err := unmarshal(raw, &m); err != nil {
			return InviteSetup{}, err
		}
		setup.Inviter = m.domain(ws)
	}
	if raw, ok := found[[2]string{pk, emailSK(email)}]; ok {
		var c claimItem
		if err := unmarshal(raw, &c); err != nil {
			return InviteSetup{}, err
		}
		setup.Claim = c.domain()
	}
	setup.Teams = make(map[string]bool, len(teamIDs))
	for _, id := range teamIDs {
		_, setup.Teams[id] = found[[2]string{pk, teamSK(id)}]
	}
	return setup, nil
}

// Errors CreateInvitation returns for the rules of POST /workspaceapi/invites.
var (
	errAlreadyMember  = workspace.Invalid("this person is already a member of the workspace")
	errAlreadyInvited = workspace.Invalid("this person already has a pending invitation")
	errNoSeats        = workspace.Forbidden("the workspace has no free seats")
)

// maxReleases bounds the expired invitations one creation releases the seats
// of; each release writes two items of a 100-item transaction.
const maxReleases = 40

// CreateInvitation stores inv, which must hold a seat, in one transaction: the
// invitation, the claim on its e-mail and the seat. prior is the claim observed
// on the e-mail; an expired invitation holding it is replaced. The transaction
// is conditioned on prior still standing and on a free seat, so concurrent
// creations can neither share an address nor exceed the seats.
//
// It returns a KindInvalid error when the address belongs to a member or a
// pending invitation, and a KindForbidden error when no seat is free even after
// releasing the seats of expired invitations.
func (s *Store) CreateInvitation(ctx context.Context, inv workspace.Invitation, prior workspace.EmailClaim, seats int, now time.Time) error {
	var released []workspace.Invitation
	for round := 0; ; round++ {
		items, claimIdx, seatIdx, err := s.createInvitationItems(inv, prior, released, seats, now)
		if err != nil {
			return err
		}
		failed, err := s.transact(ctx, items)
		if err != nil {
			return err
		}
		switch {
		case failed < 0:
			return nil
		case failed == claimIdx:
			// Someone else claimed the address since it was read: say who.
			claim, err := s.emailClaim(ctx, inv.CustomerID, inv.Email)
			if err != nil {
				return err
			}
			if claim.MemberID != "" {
				return errAlreadyMember
			}
			if claim.Free() || !claim.PendingInvite(now) {
				if round >= 3 {
					return errAlreadyInvited
				}
				prior = claim
				continue
			}
			return errAlreadyInvited
		case failed == seatIdx && len(released) == 0 && round < 3:
			released, err = s.expiredSeatHolders(ctx, inv.CustomerID, now)
			if err != nil {
				return err
			}
			released = slices.DeleteFunc(released, func(r workspace.Invitation) bool { return r.ID == prior.InviteID })
			if len(released) == 0 {
				return errNoSeats
			}
		case failed == seatIdx:
			return errNoSeats
		default:
			// A released invitation changed under us: read them again.
			if round >= 3 {
				return errNoSeats
			}
			released = nil
		}
	}
}

// createInvitationItems builds the transaction of CreateInvitation and returns
// the indexes of the claim item and of the seat update (-1 when none).
func (s *Store) createInvitationItems(inv workspace.Invitation, prior workspace.EmailClaim, released []workspace.Invitation, seats int, now time.Time) (
	items []types.TransactWriteItem, claimIdx, seatIdx int, err error) {
	pk := wsPK(inv.CustomerID)
	inv.HoldsSeat = true
	invItem, err := marshal(newInvitationItem(inv))
	if err != nil {
		return nil, 0, 0, err
	}
	claim, err := marshal(inviteClaim(inv))
	if err != nil {
		return nil, 0, 0, err
	}
	nowS := workspace.FormatTime(now)

	items = append(items, types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(s.table), Item: invItem,
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	}})
	claimPut := &types.Put{TableName: aws.String(s.table), Item: claim}
	seatDelta := 1
	if prior.InviteID == "" {
		claimPut.ConditionExpression = aws.String("attribute_not_exists(PK)")
	} else {
		// Replace the expired invitation: its claim must still be what was read.
		claimPut.ConditionExpression = aws.String("inviteId = :old AND expiresAt <= :now AND holdsSeat = :held")
		if !prior.InviteHoldsSeat {
			claimPut.ConditionExpression = aws.String("inviteId = :old AND expiresAt <= :now AND attribute_not_exists(holdsSeat)")
		}
		claimPut.ExpressionAttributeValues = map[string]types.AttributeValue{
			":old": str(prior.InviteID), ":now": str(nowS),
		}
		if prior.InviteHoldsSeat {
			claimPut.ExpressionAttributeValues[":held"] = boolean(true)
			seatDelta = 0 // the expired invitation's seat passes to the new one
		}
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: key(pk, inviteSK(prior.InviteID)),
		}})
	}
	claimIdx = len(items)
	items = append(items, types.TransactWriteItem{Put: claimPut})

	seatIdx = -1
	seatDelta -= len(released)
	for _, r := range released {
		items = append(items, releaseSeatItems(s.table, r, nowS)...)
	}
	if seatDelta != 0 || len(released) > 0 {
		seatIdx = len(items)
		update := &types.Update{
			TableName: aws.String(s.table), Key: key(pk, skMeta),
			UpdateExpression:          aws.String("ADD seatsUsed :d"),
			ConditionExpression:       aws.String("seatsUsed < seats"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":d": num(seatDelta)},
		}
		if len(released) > 0 {
			// seatsUsed still counts the released invitations until this
			// transaction commits, and conditions cannot add: compare with a cap.
			update.ConditionExpression = aws.String("seats = :seats AND seatsUsed < :cap")
			update.ExpressionAttributeValues[":seats"] = num(seats)
			update.ExpressionAttributeValues[":cap"] = num(seats + len(released))
		}
		items = append(items, types.TransactWriteItem{Update: update})
	}
	return items, claimIdx, seatIdx, nil
}

// releaseSeatItems marks an expired invitation and its claim as no longer
// holding a seat, conditioned on both still holding it.
func releaseSeatItems(table string, inv workspace.Invitation, now string) []types.TransactWriteItem {
	pk := wsPK(inv.CustomerID)
	vals := map[string]types.AttributeValue{":f": boolean(false), ":t": boolean(true), ":now": str(now)}
	claimVals := map[string]types.AttributeValue{":t": boolean(true), ":id": str(inv.ID)}
	return []types.TransactWriteItem{
		{Update: &types.Update{
			TableName: aws.String(table), Key: key(pk, inviteSK(inv.ID)),
			UpdateExpression:          aws.String("SET holdsSeat = :f"),
			ConditionExpression:       aws.String("holdsSeat = :t AND expiresAt <= :now"),
			ExpressionAttributeValues: vals,
		}},
		{Update: &types.Update{
			TableName: aws.String(table), Key: key(pk, emailSK(inv.Email)),
			UpdateExpression:          aws.String("REMOVE holdsSeat"),
			ConditionExpression:       aws.String("inviteId = :id AND holdsSeat = :t"),
			ExpressionAttributeValues: claimVals,
		}},
	}
}

// expiredSeatHolders returns up to maxReleases invitations of ws that expired
// by now but still hold a seat.
func (s *Store) expiredSeatHolders(ctx context.Context, ws string, now time.Time) ([]workspace.Invitation, error) {
	var out []workspace.Invitation
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		FilterExpression:       aws.String("holdsSeat = :t AND expiresAt <= :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(wsPK(ws)), ":prefix": str(prefixInvite), ":t": boolean(true),
			":now": str(workspace.FormatTime(now)),
		},
		ConsistentRead: aws.Bool(true),
	})
	for p.HasMorePages() && len(out) < maxReleases {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query expired invitations: %w", err)
		}
		for _, raw := range page.Items {
			var item invitationItem
			if err := unmarshal(raw, &item); err != nil {
				return nil, err
			}
			if len(out) < maxReleases {
				out = append(out, item.domain())
			}
		}
	}
	return out, nil
}

// emailClaim reads who holds email in ws now.
func (s *Store) emailClaim(ctx context.Context, ws, email string) (workspace.EmailClaim, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: key(wsPK(ws), emailSK(email)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return workspace.EmailClaim{}, fmt.Errorf("get e-mail claim: %w", err)
	}
	var c claimItem
	if out.Item != nil {
		if err := unmarshal(out.Item, &c); err != nil {
			return workspace.EmailClaim{}, err
		}
	}
	return c.domain(), nil
}

// Invitations lists every invitation of ws, oldest first (createdAt, then id),
// paging through the partition one 1 MB Query page per round trip.
func (s *Store) Invitations(ctx context.Context, ws string) ([]workspace.Invitation, error) {
	invs := []workspace.Invitation{}
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(wsPK(ws)), ":prefix": str(prefixInvite),
		},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query invitations: %w", err)
		}
		for _, raw := range page.Items {
			var item invitationItem
			if err := unmarshal(raw, &item); err != nil {
				return nil, err
			}
			invs = append(invs, item.domain())
		}
	}
	sort.SliceStable(invs, func(i, j int) bool {
		if invs[i].CreatedAt != invs[j].CreatedAt {
			return invs[i].CreatedAt < invs[j].CreatedAt
		}
		return invs[i].ID < invs[j].ID
	})
	return invs, nil
}

// InvitationsByID reads the invitations ids of ws with BatchGetItem and returns
// those that exist, by id.
func (s *Store) InvitationsByID(ctx context.Context, ws string, ids []string) (map[string]workspace.Invitation, error) {
	keys := make([]map[string]types.AttributeValue, len(ids))
	for i, id := range ids {
		keys[i] = key(wsPK(ws), inviteSK(id))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]workspace.Invitation, len(found))
	for _, raw := range found {
		var item invitationItem
		if err := unmarshal(raw, &item); err != nil {
			return nil, err
		}
		out[item.ID] = item.domain()
	}
	return out, nil
}

// DeleteInvitation removes inv, its e-mail claim and, when it holds one, its
// seat, in one transaction. It returns a KindNotFound error when the invitation
// is already gone or has changed since it was read.
func (s *Store) DeleteInvitation(ctx context.Context, inv workspace.Invitation) error {
	pk := wsPK(inv.CustomerID)
	held := map[string]types.AttributeValue{":h": boolean(inv.HoldsSeat)}
	items := []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: key(pk, inviteSK(inv.ID)),
			ConditionExpression: aws.String("holdsSeat = :h"), ExpressionAttributeValues: held,
		}},
		{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: key(pk, emailSK(inv.Email)),
			ConditionExpression:       aws.String("inviteId = :id"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":id": str(inv.ID)},
		}},
	}
	if inv.HoldsSeat {
		items = append(items, types.TransactWriteItem{Update: &types.Update{
			TableName: aws.String(s.table), Key: key(pk, skMeta),
			UpdateExpression:          aws.String("ADD seatsUsed :d"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":d": num(-1)},
		}})
	}
	failed, err := s.transact(ctx, items)
	if err != nil {
		return err
	}
	if failed >= 0 {
		return workspace.NotFound("invitation not found")
	}
	return nil
}
