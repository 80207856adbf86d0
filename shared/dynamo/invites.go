package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// InviteSetup is the state POST /workspaceapi/invites decides on, read in one
// round trip.
type InviteSetup struct {
	Workspace workspace.Workspace
	Inviter   workspace.Member
	Claim     workspace.EmailClaim
}

// InviteSetup reads workspace ws, the inviting member and the claim on email
// with one BatchGetItem. It returns a KindNotFound error when the workspace
// does not exist.
func (s *Store) InviteSetup(ctx context.Context, ws, inviterID, email string) (InviteSetup, error) {
	pk := wsPK(ws)
	found, err := s.batchGet(ctx, []item{key(pk, skMeta), key(pk, memberSK(inviterID)), key(pk, emailSK(email))})
	if err != nil {
		return InviteSetup{}, err
	}
	w, ok, err := decodeAt[workspaceItem](found, pk, skMeta)
	if err != nil || !ok {
		return InviteSetup{}, cmp.Or(err, workspace.ErrWorkspaceNotFound)
	}
	m, ok, err := decodeAt[memberItem](found, pk, memberSK(inviterID))
	if err != nil {
		return InviteSetup{}, err
	}
	setup := InviteSetup{Workspace: w.domain()}
	if ok {
		setup.Inviter = m.domain()
	}
	c, _, err := decodeAt[claimItem](found, pk, emailSK(email))
	setup.Claim = c.domain()
	return setup, err
}

// ExistingTeams returns which of the team ids exist in workspace ws, reading
// only their keys, in ceil(len(ids)/100) BatchGetItem calls.
func (s *Store) ExistingTeams(ctx context.Context, ws string, ids []string) (map[string]bool, error) {
	exists := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return exists, nil
	}
	keys := make([]item, len(ids))
	for i, id := range ids {
		keys[i] = key(wsPK(ws), teamSK(id))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		_, exists[id] = found[[2]string{wsPK(ws), teamSK(id)}]
	}
	return exists, nil
}

// maxReleases bounds the expired invitations one creation releases the seats
// of; each release writes two items of a 100-item transaction.
const maxReleases = 40

// CreateInvitation stores inv, which must hold a seat, in one transaction: the
// invitation, the claim on its e-mail and the seat. prior is the claim observed
// on the e-mail; an expired invitation holding it is replaced, and its seat
// passes to inv only while the invitation itself still holds it (the time to
// live may have removed it before its claim, and the retention function frees
// the seat of such a one). The transaction is conditioned on prior still
// standing and on a free seat, so concurrent creations can neither share an
// address nor exceed the seats.
//
// When no seat is free it releases the seats of up to maxReleases expired
// invitations, found through the seat index, in the same transaction. It
// returns workspace.ErrAlreadyMember or workspace.ErrAlreadyInvited when the
// address is taken, and workspace.ErrNoSeats when no seat can be had. The
// transaction records the invite.created entry (by, at now).
func (s *Store) CreateInvitation(ctx context.Context, by workspace.Actor, inv workspace.Invitation, prior workspace.EmailClaim, seats int, now time.Time) error {
	var released []workspace.Invitation
	for round := 0; ; round++ {
		items, idx, err := s.createInvitationItems(inv, prior, released, seats, now)
		if err != nil {
			return err
		}
		failed, err := s.transactAudited(ctx, inv.WorkspaceID, items, inv.CreatedEntry(now, by))
		if err != nil {
			return err
		}
		claimIdx, seatIdx := idx.claim, idx.seat
		switch {
		case len(failed) == 0:
			return nil
		case slices.Contains(failed, claimIdx):
			// Someone else claimed the address since it was read: say who.
			claim, err := s.emailClaim(ctx, inv.WorkspaceID, inv.Email)
			if err != nil {
				return err
			}
			if err := claim.Taken(now); err != nil || round >= 3 {
				return cmp.Or(err, workspace.ErrAlreadyInvited)
			}
			prior = claim
		case slices.Contains(failed, idx.prior):
			// The claim still names the expired invitation, but the invitation
			// itself is gone: the time to live removed it while it held its
			// seat, and the retention function frees that seat. It cannot
			// pass to the new invitation, which takes a seat of its own.
			prior.InviteHoldsSeat = false
		case slices.Contains(failed, seatIdx) && len(released) == 0 && round < 3:
			released, err = s.expiredSeatHolders(ctx, inv.WorkspaceID, now)
			if err != nil {
				return err
			}
			released = slices.DeleteFunc(released, func(r workspace.Invitation) bool { return r.ID == prior.InviteID })
			if len(released) == 0 {
				return workspace.ErrNoSeats
			}
		case slices.Contains(failed, seatIdx) || round >= 3:
			return workspace.ErrNoSeats
		default:
			// A released invitation changed under us (the seat index lags
			// the table): read the seat holders again.
			released = nil
		}
	}
}

// createIndexes are the positions, in the transaction of CreateInvitation, of
// the items whose failed conditions it tells apart; -1 when there is none.
type createIndexes struct {
	claim int // the claim on the e-mail
	prior int // the deletion of the expired invitation whose seat passes on
	seat  int // the update of the seat count
}

// createInvitationItems builds the transaction of CreateInvitation and returns
// the indexes of the items whose conditions CreateInvitation tells apart.
func (s *Store) createInvitationItems(inv workspace.Invitation, prior workspace.EmailClaim, released []workspace.Invitation, seats int, now time.Time) (
	items []types.TransactWriteItem, idx createIndexes, err error) {
	idx = createIndexes{claim: -1, prior: -1, seat: -1}
	pk := wsPK(inv.WorkspaceID)
	inv.HoldsSeat = true
	invItem, err := marshal(toInvitationItem(inv))
	if err != nil {
		return nil, idx, err
	}
	claim, err := marshal(inviteClaim(inv))
	if err != nil {
		return nil, idx, err
	}
	absent, err := notExistsCond()
	if err != nil {
		return nil, idx, err
	}
	items = append(items, s.put(invItem, absent))

	claimCond := absent
	if prior.InviteID != "" {
		// Replace the expired invitation: its claim must still be what was read.
		c := expression.Name(attrInviteID).Equal(expression.Value(prior.InviteID)).
			And(expression.Name(attrExpiresAt).LessThanEqual(expression.Value(storedTime(now))))
		del := types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: key(pk, inviteSK(prior.InviteID)),
		}}
		if prior.InviteHoldsSeat {
			// The seat passes only if the invitation itself still holds it:
			// one the time to live removed has its seat freed by the
			// retention function, though its claim may outlive it a while.
			c = c.And(expression.Name(attrHoldsSeat).Equal(expression.Value(true)))
			if del, err = s.deleteIf(key(pk, inviteSK(prior.InviteID)),
				expression.Name(attrHoldsSeat).Equal(expression.Value(true))); err != nil {
				return nil, idx, err
			}
			idx.prior = len(items)
		}
		// A claim that held no seat when read never holds one again.
		if claimCond, err = build(expression.NewBuilder().WithCondition(c)); err != nil {
			return nil, idx, err
		}
		items = append(items, del)
	}
	idx.claim = len(items)
	items = append(items, s.put(claim, claimCond))

	seatDelta := workspace.SeatChange(prior.InviteID != "" && prior.InviteHoldsSeat, len(released))
	for _, r := range released {
		release, err := s.releaseSeatItems(r, now)
		if err != nil {
			return nil, idx, err
		}
		items = append(items, release...)
	}
	if seatDelta != 0 || len(released) > 0 {
		cond := expression.Name(attrSeatsUsed).LessThan(expression.Name(attrSeats))
		if len(released) > 0 {
			// seatsUsed still counts the released invitations until this
			// transaction commits, and conditions cannot add: compare with a cap.
			cond = expression.Name(attrSeats).Equal(expression.Value(seats)).
				And(expression.Name(attrSeatsUsed).LessThan(expression.Value(seats + len(released))))
		}
		update, err := s.update(key(pk, skMeta), expression.Add(expression.Name(attrSeatsUsed), expression.Value(seatDelta)), &cond)
		if err != nil {
			return nil, idx, err
		}
		idx.seat = len(items)
		items = append(items, update)
	}
	return items, idx, nil
}

// releaseSeatItems marks an expired invitation and its claim as no longer
// holding a seat, and takes the invitation out of the seat index, conditioned
// on both still holding it.
func (s *Store) releaseSeatItems(inv workspace.Invitation, now time.Time) ([]types.TransactWriteItem, error) {
	pk := wsPK(inv.WorkspaceID)
	invCond := expression.Name(attrHoldsSeat).Equal(expression.Value(true)).
		And(expression.Name(attrExpiresAt).LessThanEqual(expression.Value(storedTime(now))))
	invUpdate, err := s.update(key(pk, inviteSK(inv.ID)),
		expression.Set(expression.Name(attrHoldsSeat), expression.Value(false)).
			Remove(expression.Name(attrGSI1PK)).Remove(expression.Name(attrGSI1SK)), &invCond)
	if err != nil {
		return nil, err
	}
	claimCond := expression.Name(attrInviteID).Equal(expression.Value(inv.ID)).
		And(expression.Name(attrHoldsSeat).Equal(expression.Value(true)))
	claimUpdate, err := s.update(key(pk, emailSK(inv.Email)), expression.Remove(expression.Name(attrHoldsSeat)), &claimCond)
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{invUpdate, claimUpdate}, nil
}

// expiredSeatHolders returns up to maxReleases invitations of ws that expired
// by now but still hold a seat, from the seat index: one Query that reads only
// those, however many invitations the workspace has.
func (s *Store) expiredSeatHolders(ctx context.Context, ws string, now time.Time) ([]workspace.Invitation, error) {
	in, err := s.keyQuery(IndexGSI1, expression.Key(attrGSI1PK).Equal(expression.Value(seatsGSI1PK(ws))).
		And(expression.Key(attrGSI1SK).LessThan(expression.Value(seatsExpiredBy(now)))))
	if err != nil {
		return nil, err
	}
	in.Limit = aws.Int32(maxReleases)
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("query expired seat holders: %w", err)
	}
	invs := make([]workspace.Invitation, 0, len(out.Items))
	for _, raw := range out.Items {
		var it invitationItem
		if err := unmarshal(raw, &it); err != nil {
			return nil, err
		}
		invs = append(invs, it.domain())
	}
	return invs, nil
}

// emailClaim reads who holds email in ws now.
func (s *Store) emailClaim(ctx context.Context, ws, email string) (workspace.EmailClaim, error) {
	c, _, err := getItem[claimItem](ctx, s, key(wsPK(ws), emailSK(email)), "e-mail claim")
	if err != nil {
		return workspace.EmailClaim{}, err
	}
	return c.domain(), nil
}

// Invitations lists every invitation of ws in id order (invitation ids sort by
// creation time), one round trip per 1 MB page; after is an invitation id
// (exclusive) to start from, or "" for the beginning.
func (s *Store) Invitations(ctx context.Context, ws, after string) ([]workspace.Invitation, error) {
	in, err := s.keyQuery("", prefixed(wsPK(ws), prefixInvite))
	if err != nil {
		return nil, err
	}
	if after != "" {
		in.ExclusiveStartKey = key(wsPK(ws), inviteSK(after))
	}
	return queryAll(ctx, s, in, "invitations", invitationItem.domain)
}

// InvitationPage lists up to limit invitations of ws in id order, starting
// after the invitation id after ("" for the first page); more tells whether
// others follow the last one.
func (s *Store) InvitationPage(ctx context.Context, ws, after string, limit int) (invs []workspace.Invitation, more bool, err error) {
	in, err := s.keyQuery("", prefixed(wsPK(ws), prefixInvite))
	if err != nil {
		return nil, false, err
	}
	var start item
	if after != "" {
		start = key(wsPK(ws), inviteSK(after))
	}
	return queryPage(ctx, s, in, start, limit, "invitations", invitationItem.domain)
}

// InvitationsByID reads the invitations ids of ws with BatchGetItem and returns
// those that exist, by id.
func (s *Store) InvitationsByID(ctx context.Context, ws string, ids []string) (map[string]workspace.Invitation, error) {
	keys := make([]item, len(ids))
	for i, id := range ids {
		keys[i] = key(wsPK(ws), inviteSK(id))
	}
	invs, err := batchDecode[invitationItem](ctx, s, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]workspace.Invitation, len(invs))
	for _, it := range invs {
		out[it.ID] = it.domain()
	}
	return out, nil
}

// maxRevokesPerTransaction is how many invitations one revoke transaction
// deletes: two items and an audit entry each, one seat update and the mark
// of a request's Idempotency-Key (appliedMark), within DynamoDB's 100.
const maxRevokesPerTransaction = 32

// DeleteInvitations removes each invitation of invs (all of one workspace),
// its e-mail claim and, when it holds one, its seat. It writes one transaction
// per maxRevokesPerTransaction invitations, each freeing its seats with one
// ADD on the workspace item, so a 100-id revoke touches that hot item three
// times, not a hundred. The result has one error per invitation, in order: nil
// when it was deleted, a KindNotFound error when it was already gone or has
// changed since it was read, another error when storage failed. Each
// deleted invitation records its invite.revoked entry (by, at now) in its
// transaction.
func (s *Store) DeleteInvitations(ctx context.Context, by workspace.Actor, invs []workspace.Invitation, now time.Time) []error {
	errs := make([]error, len(invs))
	for start := 0; start < len(invs); start += maxRevokesPerTransaction {
		end := min(start+maxRevokesPerTransaction, len(invs))
		s.deleteChunk(ctx, by, invs[start:end], errs[start:end], now)
	}
	return errs
}

// deleteChunk deletes invs in one transaction, filling errs. An invitation
// whose condition fails is marked not found and left out of a retry of the
// others, unless it is still there and only its seat was released since it
// was read (a creation frees expired seats): it is then retried as it now
// stands. Each retry drops an invitation or a seat, so there are at most
// 2*len(invs) of them.
func (s *Store) deleteChunk(ctx context.Context, by workspace.Actor, invs []workspace.Invitation, errs []error, now time.Time) {
	pending := make([]int, len(invs))
	for i := range invs {
		pending[i] = i
	}
	for len(pending) > 0 {
		items, err := s.deleteItems(invs, pending)
		if err == nil {
			entries := make([]workspace.AuditEntry, len(pending))
			for k, i := range pending {
				entries[k] = invs[i].RevokedEntry(now, by)
			}
			var failed []int
			failed, err = s.transactAudited(ctx, invs[0].WorkspaceID, items, entries...)
			if err == nil && len(failed) == 0 {
				return
			}
			if err == nil {
				done, changed := s.failedDeletes(ctx, invs, pending, failed, errs)
				if len(done) == 0 && !changed {
					err = fmt.Errorf("revoke: the seat update failed its condition")
				} else {
					pending = slices.DeleteFunc(pending, func(i int) bool { return done[i] })
					continue
				}
			}
		}
		for _, i := range pending {
			errs[i] = err
		}
		return
	}
}

// failedDeletes sorts out the invitations of a cancelled revoke transaction
// (two items each, the seat update last) whose conditions failed: done holds
// those that have their result in errs, not found or a failed read; changed
// is true when one was found still there with its seat released since it was
// read, and its HoldsSeat in invs updated for a retry.
func (s *Store) failedDeletes(ctx context.Context, invs []workspace.Invitation, pending, failed []int, errs []error) (done map[int]bool, changed bool) {
	done = make(map[int]bool, len(failed))
	for _, f := range failed {
		if f/2 >= len(pending) {
			continue
		}
		i := pending[f/2]
		if f%2 == 0 && invs[i].HoldsSeat {
			it, found, err := getItem[invitationItem](ctx, s, key(wsPK(invs[i].WorkspaceID), inviteSK(invs[i].ID)), "invitation")
			if err != nil {
				errs[i], done[i] = err, true
				continue
			}
			if found && !it.HoldsSeat {
				invs[i].HoldsSeat, changed = false, true
				continue
			}
		}
		errs[i], done[i] = workspace.ErrInvitationNotFound, true
	}
	return done, changed
}

// deleteItems builds the transaction deleting the invitations at idx: each
// invitation conditioned on its seat state as read, each claim on still naming
// it, and one ADD freeing the seats they held.
func (s *Store) deleteItems(invs []workspace.Invitation, idx []int) ([]types.TransactWriteItem, error) {
	var items []types.TransactWriteItem
	freed := 0
	for _, i := range idx {
		inv := invs[i]
		pk := wsPK(inv.WorkspaceID)
		del, err := s.deleteIf(key(pk, inviteSK(inv.ID)), expression.Name(attrHoldsSeat).Equal(expression.Value(inv.HoldsSeat)))
		if err != nil {
			return nil, err
		}
		claim, err := s.deleteIf(key(pk, emailSK(inv.Email)), expression.Name(attrInviteID).Equal(expression.Value(inv.ID)))
		if err != nil {
			return nil, err
		}
		items = append(items, del, claim)
		if inv.HoldsSeat {
			freed++
		}
	}
	if freed > 0 {
		upd, err := s.update(key(wsPK(invs[idx[0]].WorkspaceID), skMeta),
			expression.Add(expression.Name(attrSeatsUsed), expression.Value(-freed)), nil)
		if err != nil {
			return nil, err
		}
		items = append(items, upd)
	}
	return items, nil
}
