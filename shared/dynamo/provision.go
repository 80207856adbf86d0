package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file applies provisioning events (docs/ingest-events.md): each reads
// the entity, its provisioning record and what the rule needs, asks the
// domain (workspace.Decide*), and commits the outcome in one transaction
// with the event's marker, the provisioning record's new version
// (conditioned on the version read) and every entity write conditioned on
// the state read; a lost race is read and decided again. A transaction
// stays inside the event's workspace.
//
// An operator's tool may apply entities through these same functions
// (ApplyWorkspaceUpsert, ApplyMemberUpsert, ApplyAgentUpsert, ...), naming
// itself in workspace.Provision.By (workspace.Unrecorded records nothing);
// wsadmin workspace create does, with workspace.Provision.Create (a
// creation at version 0, failing on an entity that exists). The fixture
// loader asks the same domain rules and writes their entities through the
// same mapping (EntityItems) with its own conditional Puts.

// Kinds of provisioning records.
const (
	provisionWorkspace = "workspace"
	provisionMember    = "member"
	provisionAgent     = "agent"
)

// typeProvisioned is the entity of a provisioning record.
const typeProvisioned = "provisioned"

// provisionedSK is the key of entity id's provisioning record (the
// workspace's own record uses the workspace id).
func provisionedSK(kind, id string) string { return "PROVISIONED#" + kind + "#" + id }

// provisionedItem is the newest version applied to a provisioned entity,
// kept after the entity is removed so that an older event never brings it
// back.
type provisionedItem struct {
	keys
	Version int64  `dynamodbav:"version"`
	Removed bool   `dynamodbav:"removed"`
	Name    string `dynamodbav:"name,omitempty"`
}

func (i provisionedItem) domain() workspace.Provisioned {
	return workspace.Provisioned{Version: i.Version, Removed: i.Removed, Name: i.Name}
}

// provisionRead is what one attempt read: items by key, and the
// provisioning record of the event's entity.
type provisionRead struct {
	items  map[[2]string]item
	record workspace.Provisioned
	found  bool // the record exists
}

// readProvision reads keys and the record of kind/id of ws in one
// BatchGetItem (strongly consistent).
func (s *Store) readProvision(ctx context.Context, ws, kind, id string, keys ...item) (provisionRead, error) {
	found, err := s.batchGet(ctx, append(keys, key(wsPK(ws), provisionedSK(kind, id))))
	if err != nil {
		return provisionRead{}, err
	}
	rec, ok, err := decodeAt[provisionedItem](found, wsPK(ws), provisionedSK(kind, id))
	return provisionRead{items: found, record: rec.domain(), found: ok}, err
}

// readEntity reads the item at sk of ws (an I), kind/id's provisioning
// record and more, in one BatchGetItem; current is nil when the item is
// absent.
func readEntity[I domainOf[D], D any](ctx context.Context, s *Store, ws, kind, id, sk string, more ...item) (
	r provisionRead, it I, current *D, err error) {
	r, err = s.readProvision(ctx, ws, kind, id, append([]item{key(wsPK(ws), sk)}, more...)...)
	if err != nil {
		return r, it, nil, err
	}
	it, found, err := decodeAt[I](r.items, wsPK(ws), sk)
	if err != nil || !found {
		return r, it, nil, err
	}
	d := it.domain()
	return r, it, &d, nil
}

// requireWorkspace returns workspace.ErrWorkspaceNotFound unless the read
// holds workspace ws's item: events of entities of a workspace need it.
func (r provisionRead) requireWorkspace(ws string) error {
	if _, ok := r.items[[2]string{wsPK(ws), skMeta}]; !ok {
		return workspace.ErrWorkspaceNotFound
	}
	return nil
}

// recordWrite is the Put of kind/id's provisioning record at version,
// conditioned on the record read (its version, or its absence).
func (s *Store) recordWrite(ws, kind, id string, r provisionRead, version int64, removed bool, name string) (types.TransactWriteItem, error) {
	it, err := marshal(provisionedItem{keys: keys{PK: wsPK(ws), SK: provisionedSK(kind, id), Entity: typeProvisioned},
		Version: version, Removed: removed, Name: name})
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	cond := expression.AttributeNotExists(expression.Name(attrPK))
	if r.found {
		cond = expression.Name(attrVersion).Equal(expression.Value(r.record.Version))
	}
	b, err := build(expression.NewBuilder().WithCondition(cond))
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return s.put(it, b), nil
}

// provisionStep is one attempt of a provisioning event: it reads, decides
// and returns the transaction's items and entries, or done when nothing is
// to be written (a version not above the stored one).
type provisionStep func(ctx context.Context) (items []types.TransactWriteItem, entries []workspace.AuditEntry, done bool, err error)

// applyProvision runs step until its transaction commits, with the event's
// marker first: a marker already there means an earlier delivery applied
// the event. Any other failed condition means the state read changed: the
// step reads and decides again, up to maxReevaluations times.
func (s *Store) applyProvision(ctx context.Context, p workspace.Provision, eventType string, now time.Time, step provisionStep) error {
	marker, err := s.putNew(eventItem{keys: keys{PK: eventPK(p.WorkspaceID, p.EventID), SK: skEvent, Entity: typeEvent,
		TTL: epoch(now.Add(EventDedupWindow))}, Type: eventType})
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		items, entries, done, err := step(ctx)
		if err != nil || done {
			return err
		}
		failed, err := s.transactAudited(ctx, p.WorkspaceID, append([]types.TransactWriteItem{marker}, items...), entries...)
		switch {
		case err != nil:
			return err
		case len(failed) == 0, slices.Contains(failed, 0):
			return nil
		case attempt >= maxReevaluations:
			return workspace.ErrBusy
		}
	}
}

// fieldWrites collects the SETs of an entity's changed fields, each
// conditioned on the value read.
type fieldWrites struct {
	upd  expression.UpdateBuilder
	cond expression.ConditionBuilder
	n    int
}

// set SETs attr to to, conditioned on it holding from.
func (f *fieldWrites) set(attr string, from, to any) {
	f.setIf(attr, expression.Name(attr).Equal(expression.Value(from)), to)
}

// setIf SETs attr to to, conditioned on c.
func (f *fieldWrites) setIf(attr string, c expression.ConditionBuilder, to any) {
	f.upd = f.upd.Set(expression.Name(attr), expression.Value(to))
	f.and(c)
}

func (f *fieldWrites) and(c expression.ConditionBuilder) {
	if f.cond.IsSet() {
		f.cond = f.cond.And(c)
	} else {
		f.cond = c
	}
	f.n++
}

// fieldUpdate is the Update of the item at k, conditioned on its existing and on
// every field read; ok is false when nothing changes.
func (s *Store) fieldUpdate(k item, f fieldWrites) (w types.TransactWriteItem, ok bool, err error) {
	if f.n == 0 {
		return types.TransactWriteItem{}, false, nil
	}
	cond := expression.AttributeExists(expression.Name(attrPK)).And(f.cond)
	w, err = s.update(k, f.upd, &cond)
	return w, err == nil, err
}

// ApplyWorkspaceUpsert applies a workspace.upserted event: the workspace is
// created (no seat used) or its given fields updated, each conditioned on
// the value read, and workspace.created or workspace.updated is recorded.
// One BatchGetItem and one transaction; a version not above the stored one
// changes nothing.
func (s *Store) ApplyWorkspaceUpsert(ctx context.Context, p workspace.Provision, f workspace.WorkspaceFields, now time.Time) error {
	ws := p.WorkspaceID
	return s.applyProvision(ctx, p, "workspace.upserted", now, func(ctx context.Context) ([]types.TransactWriteItem, []workspace.AuditEntry, bool, error) {
		r, cur, current, err := readEntity[workspaceItem](ctx, s, ws, provisionWorkspace, ws, skMeta)
		if err != nil {
			return nil, nil, false, err
		}
		after, entries, apply, err := workspace.DecideWorkspace(p, current, r.record, f, now)
		if err != nil || !apply {
			return nil, nil, true, err
		}
		version, err := s.recordWrite(ws, provisionWorkspace, ws, r, p.Version, false, "")
		if err != nil {
			return nil, nil, false, err
		}
		items := []types.TransactWriteItem{version}
		if current == nil {
			put, err := s.putNew(toWorkspaceItem(after))
			return append(items, put), entries, false, err
		}
		var fw fieldWrites
		if after.Name != cur.Name {
			fw.set(attrName, cur.Name, after.Name)
		}
		if after.Seats != cur.Seats {
			fw.set(attrSeats, cur.Seats, after.Seats)
		}
		if after.TeamSettingsEnabled != cur.TeamSettingsEnabled {
			fw.set("teamSettingsEnabled", cur.TeamSettingsEnabled, after.TeamSettingsEnabled)
		}
		if !slices.Equal(after.AllowedEmailDomains, cur.AllowedEmailDomains) {
			fw.set("allowedEmailDomains", listOrEmpty(cur.AllowedEmailDomains), listOrEmpty(after.AllowedEmailDomains))
		}
		if !sameLimitValue(after.DefaultDailyCreditLimit, cur.DefaultDailyCreditLimit) {
			fw.setIf("defaultDailyCreditLimit", limitIs("defaultDailyCreditLimit", cur.DefaultDailyCreditLimit), after.DefaultDailyCreditLimit)
		}
		upd, ok, err := s.fieldUpdate(key(wsPK(ws), skMeta), fw)
		if ok {
			items = append(items, upd)
		}
		return items, entries, false, err
	})
}

// sameLimitValue reports whether two optional limits are equal.
func sameLimitValue(a, b *float64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// seatWrite is the ADD of delta to ws's used seats, conditioned on the
// workspace existing.
func (s *Store) seatWrite(ws string, delta int) (types.TransactWriteItem, error) {
	return s.update(key(wsPK(ws), skMeta), expression.Add(expression.Name(attrSeatsUsed), expression.Value(delta)),
		ptr(expression.AttributeExists(expression.Name(attrPK))))
}

// ApplyMemberUpsert applies a member.upserted event for user userID: a new
// member is Put with the claim on their address (both new) and takes a
// seat; an existing one has the given fields updated, each conditioned on
// the value read, and their claim moved when the address changes. Tags and
// team roles are left to the API. One BatchGetItem and one transaction.
// Errors: workspace.ErrWorkspaceNotFound, ErrAddressOfOtherMember,
// ErrAddressInvited, a KindInvalid error for a new member without email,
// name or role.
func (s *Store) ApplyMemberUpsert(ctx context.Context, p workspace.Provision, userID string, f workspace.MemberFields, now time.Time) error {
	ws, pk := p.WorkspaceID, wsPK(p.WorkspaceID)
	return s.applyProvision(ctx, p, "member.upserted", now, func(ctx context.Context) ([]types.TransactWriteItem, []workspace.AuditEntry, bool, error) {
		more := []item{key(pk, skMeta)}
		if f.Email != nil {
			more = append(more, key(pk, emailSK(*f.Email)))
		}
		r, cur, current, err := readEntity[memberItem](ctx, s, ws, provisionMember, userID, memberSK(userID), more...)
		if err := cmp.Or(err, r.requireWorkspace(ws)); err != nil {
			return nil, nil, false, err
		}
		var claim workspace.EmailClaim
		if f.Email != nil {
			c, _, err := decodeAt[claimItem](r.items, pk, emailSK(*f.Email))
			if err != nil {
				return nil, nil, false, err
			}
			claim = c.domain()
		}
		d, err := workspace.DecideMember(p, userID, current, r.record, f, claim, now)
		if err != nil || !d.Apply {
			return nil, nil, true, err
		}
		version, err := s.recordWrite(ws, provisionMember, userID, r, p.Version, false, "")
		if err != nil {
			return nil, nil, false, err
		}
		items := []types.TransactWriteItem{version}
		if d.New {
			member, err := s.putNew(toMemberItem(d.Member))
			if err != nil {
				return nil, nil, false, err
			}
			claim, err := s.putNew(memberClaim(d.Member))
			if err != nil {
				return nil, nil, false, err
			}
			seat, err := s.seatWrite(ws, 1)
			return append(items, member, claim, seat), d.Entries, false, err
		}
		var fw fieldWrites
		for _, c := range []struct{ attr, from, to string }{
			{"email", cur.Email, d.Member.Email}, {attrName, cur.Name, d.Member.Name}, {"role", cur.Role, string(d.Member.Role)},
			{"joinedAt", cur.JoinedAt, storedTime(d.Member.JoinedAt)},
		} {
			if c.from != c.to {
				fw.set(c.attr, c.from, c.to)
			}
		}
		upd, ok, err := s.fieldUpdate(key(pk, memberSK(userID)), fw)
		if err != nil {
			return nil, nil, false, err
		}
		if ok {
			items = append(items, upd)
		}
		if d.EmailChanged {
			old, err := s.deleteIf(key(pk, emailSK(cur.Email)), expression.Name("userId").Equal(expression.Value(userID)))
			if err != nil {
				return nil, nil, false, err
			}
			claim, err := s.putNew(memberClaim(d.Member))
			if err != nil {
				return nil, nil, false, err
			}
			items = append(items, old, claim)
		}
		return items, d.Entries, false, nil
	})
}

// Bounds of a member's removal (docs/bounds.md): the keys revoked per
// transaction (keysPerReclaim, two deletes and an entry each), and the
// team memberships a transaction ends, two items each (the membership and
// its entry) beside the six of the removal itself (marker, record, member,
// claim, seat, entry).
const teamsPerRemoval = 40

// ApplyMemberRemoval applies a member.removed event for user userID. The
// member's API keys are revoked first, keysPerReclaim per transaction
// (key.revoked each), so they stop working whatever follows; then, when the
// member is in more than teamsPerRemoval teams, the others are left in
// transactions of teamsPerRemoval (team.member_removed each); then one
// transaction removes the member (conditioned on the teams read), their
// remaining memberships, their e-mail claim and their seat, and records
// member.removed. Keys made in between are revoked after it, and again
// when the event is delivered again (that revocation may have failed). A member
// unknown at a newer version only has the version recorded, so an older
// member.upserted arriving later changes nothing.
func (s *Store) ApplyMemberRemoval(ctx context.Context, p workspace.Provision, userID string, now time.Time) error {
	ws := p.WorkspaceID
	revoked := false
	err := s.applyProvision(ctx, p, "member.removed", now, func(ctx context.Context) ([]types.TransactWriteItem, []workspace.AuditEntry, bool, error) {
		for round := 0; ; round++ {
			r, cur, current, err := readEntity[memberItem](ctx, s, ws, provisionMember, userID, memberSK(userID), key(wsPK(ws), skMeta))
			if err := cmp.Or(err, r.requireWorkspace(ws)); err != nil {
				return nil, nil, false, err
			}
			d := workspace.DecideMemberRemoval(p, userID, current, r.record, now)
			if !d.Apply {
				// A redelivered removal (its transaction committed, but the
				// revocation after it failed) finds nothing to decide; the
				// keys of a user who is no member must still go, or they
				// would work again if the user came back.
				revoked = revoked || (current == nil && r.record.Removed)
				return nil, nil, true, nil
			}
			if d.Remove && !revoked {
				if err := s.revokeKeysOf(ctx, p.Actor(), ws, userID, now); err != nil {
					return nil, nil, false, err
				}
				revoked = true
			}
			teams := slices.Sorted(maps.Keys(cur.Teams))
			if len(teams) > teamsPerRemoval {
				if round > maxReevaluations+len(teams)/teamsPerRemoval {
					return nil, nil, false, workspace.ErrBusy
				}
				if err := s.leaveTeams(ctx, p.Actor(), ws, userID, cur.Teams, teams[teamsPerRemoval:], now); err != nil {
					return nil, nil, false, err
				}
				continue // read the member again
			}
			items, entries, err := s.removalItems(p.Actor(), ws, userID, r, p.Version, current, now)
			return items, append(entries, d.Entries...), false, err
		}
	})
	if err != nil || !revoked {
		return err
	}
	// A key created while the removal ran (its owner was still a member)
	// goes too; none can be created after it.
	return s.revokeKeysOf(ctx, p.Actor(), ws, userID, now)
}

// removalItems are the final transaction of a member's removal: the record
// (removed), and when current is not nil, the member's Delete conditioned
// on the teams read, the Deletes of those memberships (with their
// team.member_removed entries), of the e-mail claim (still naming them) and
// the freed seat.
func (s *Store) removalItems(by workspace.Actor, ws, userID string, r provisionRead, version int64, current *workspace.Member, now time.Time) (
	[]types.TransactWriteItem, []workspace.AuditEntry, error) {
	record, err := s.recordWrite(ws, provisionMember, userID, r, version, true, "")
	if err != nil {
		return nil, nil, err
	}
	items := []types.TransactWriteItem{record}
	if current == nil {
		return items, nil, nil
	}
	pk := wsPK(ws)
	member, err := s.deleteIf(key(pk, memberSK(userID)), expression.Name(attrTeams).Equal(expression.Value(memberTeamsAttr(current.Teams))))
	if err != nil {
		return nil, nil, err
	}
	claim, err := s.deleteIf(key(pk, emailSK(current.Email)), expression.Name("userId").Equal(expression.Value(userID)))
	if err != nil {
		return nil, nil, err
	}
	seat, err := s.seatWrite(ws, -1)
	if err != nil {
		return nil, nil, err
	}
	items = append(items, member, claim, seat)
	var entries []workspace.AuditEntry
	for _, t := range current.Teams {
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: key(pk, teamMemberSK(t.TeamID, userID)),
		}})
		entries = append(entries, workspace.TeamMemberRemovedEntry(now, by, t.TeamID, userID, t.Role))
	}
	return items, entries, nil
}

// leaveTeams takes user out of up to teamsPerRemoval of teams (ids of the
// member's teams map as read, roles) in one transaction: the memberships'
// Deletes and the member's map entries, each conditioned on the role read,
// with a team.member_removed entry each. A failed condition is no error:
// the caller reads the member again.
func (s *Store) leaveTeams(ctx context.Context, by workspace.Actor, ws, userID string, roles map[string]string, teams []string, now time.Time) error {
	teams = teams[:min(len(teams), teamsPerRemoval)]
	var upd expression.UpdateBuilder
	var cond expression.ConditionBuilder
	items := make([]types.TransactWriteItem, 0, len(teams)+1)
	entries := make([]workspace.AuditEntry, 0, len(teams))
	for i, t := range teams {
		entry := expression.Name(attrTeams).AppendName(expression.Name(t))
		upd = upd.Remove(entry)
		c := entry.Equal(expression.Value(roles[t]))
		if i == 0 {
			cond = c
		} else {
			cond = cond.And(c)
		}
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: key(wsPK(ws), teamMemberSK(t, userID)),
		}})
		entries = append(entries, workspace.TeamMemberRemovedEntry(now, by, t, userID, workspace.TeamRole(roles[t])))
	}
	member, err := s.update(key(wsPK(ws), memberSK(userID)), upd, &cond)
	if err != nil {
		return err
	}
	_, err = s.transactAudited(ctx, ws, append(items, member), entries...)
	return err
}

// revokeKeysOf revokes every API key of ws that user owns (those with a
// reference: at most the key count's bound), keysPerReclaim per
// transaction, each with its key.revoked entry by by: one
// strongly consistent Query of the references, one BatchGetItem of the
// keys, and a transaction per chunk. A key a racing revoke removed first
// cancels its chunk, which is read and revoked again.
func (s *Store) revokeKeysOf(ctx context.Context, by workspace.Actor, ws, userID string, now time.Time) error {
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		refs, err := s.keyRefs(ctx, ws)
		if err != nil {
			return err
		}
		keys := make([]item, len(refs))
		byHash := make(map[string]apiKeyRefItem, len(refs))
		for i, r := range refs {
			keys[i], byHash[r.KeyHash] = key(keyPK(r.KeyHash), skKey), r
		}
		found, err := s.batchGet(ctx, keys)
		if err != nil {
			return err
		}
		var all []workspace.APIKey
		for _, raw := range found {
			var it apiKeyItem
			if err := unmarshal(raw, &it); err != nil {
				return err
			}
			if r, ok := byHash[hashOfKeyPK(it.PK)]; ok && r.ID == it.ID {
				all = append(all, it.domain())
			}
		}
		owned := workspace.KeysOwnedBy(all, ws, userID)
		slices.SortFunc(owned, func(a, b workspace.APIKey) int { return strings.Compare(a.ID, b.ID) })
		lost := false
		for chunk := range slices.Chunk(owned, keysPerReclaim) {
			items := make([]types.TransactWriteItem, 0, 2*len(chunk)+1)
			entries := make([]workspace.AuditEntry, 0, len(chunk))
			for _, k := range chunk {
				del, err := s.deleteKeyItems(ws, byHash[k.Hash])
				if err != nil {
					return err
				}
				items = append(items, del...)
				entries = append(entries, workspace.KeyRevokedEntry(now, by, k.ID))
			}
			count, err := s.update(key(wsPK(ws), skKeyCount), expression.Add(expression.Name(attrCount), expression.Value(-len(chunk))), nil)
			if err != nil {
				return err
			}
			failed, err := s.transactAudited(ctx, ws, append(items, count), entries...)
			if err != nil {
				return err
			}
			lost = lost || len(failed) > 0
		}
		switch {
		case !lost:
			return nil
		case attempt >= maxReevaluations:
			return workspace.ErrBusy
		}
	}
}

// ApplyInviteAcceptance applies an invite.accepted event: in one
// transaction the invitation is deleted (conditioned on its seat state
// read), its e-mail claim becomes the member's (conditioned on naming the
// invitation), the member is Put (new) with its memberships of the
// invitation's teams that exist, the seat passes from the invitation to the
// member (or is taken again when the invitation's was released after it
// expired), and invite.accepted is recorded. The version is the member's.
// Two BatchGetItems (the invitation, member and record; the teams) and one
// transaction. Errors: ErrWorkspaceNotFound, ErrInvitationUnknown,
// ErrInvitationExpired, ErrInvitationNoRole, ErrAlreadyMemberUser,
// ErrInvitationTooWide.
func (s *Store) ApplyInviteAcceptance(ctx context.Context, p workspace.Provision, a workspace.Acceptance, now time.Time) error {
	ws, pk := p.WorkspaceID, wsPK(p.WorkspaceID)
	return s.applyProvision(ctx, p, "invite.accepted", now, func(ctx context.Context) ([]types.TransactWriteItem, []workspace.AuditEntry, bool, error) {
		r, _, member, err := readEntity[memberItem](ctx, s, ws, provisionMember, a.UserID, memberSK(a.UserID),
			key(pk, skMeta), key(pk, inviteSK(a.InviteID)))
		if err := cmp.Or(err, r.requireWorkspace(ws)); err != nil {
			return nil, nil, false, err
		}
		invIt, invFound, err := decodeAt[invitationItem](r.items, pk, inviteSK(a.InviteID))
		if err != nil {
			return nil, nil, false, err
		}
		var inv *workspace.Invitation
		var teams map[string]bool
		if invFound {
			i := invIt.domain()
			inv = &i
			ids := make([]string, 0, len(i.Groups))
			for _, g := range i.Groups {
				if mapKeySafe(g.GroupID) {
					ids = append(ids, g.GroupID)
				}
			}
			if len(ids) <= workspace.MaxAcceptedTeams {
				if teams, err = s.ExistingTeams(ctx, ws, ids); err != nil {
					return nil, nil, false, err
				}
			}
		}
		d, err := workspace.DecideAcceptance(p, a, inv, member, r.record, teams, now)
		if err != nil || !d.Apply {
			return nil, nil, true, err
		}
		version, err := s.recordWrite(ws, provisionMember, a.UserID, r, p.Version, false, "")
		if err != nil {
			return nil, nil, false, err
		}
		delInv, err := s.deleteIf(key(pk, inviteSK(inv.ID)), expression.Name(attrHoldsSeat).Equal(expression.Value(inv.HoldsSeat)))
		if err != nil {
			return nil, nil, false, err
		}
		claimIt, err := marshal(memberClaim(d.Member))
		if err != nil {
			return nil, nil, false, err
		}
		claimCond, err := build(expression.NewBuilder().WithCondition(expression.Name(attrInviteID).Equal(expression.Value(inv.ID))))
		if err != nil {
			return nil, nil, false, err
		}
		memberPut, err := s.putNew(toMemberItem(d.Member))
		if err != nil {
			return nil, nil, false, err
		}
		items := []types.TransactWriteItem{version, delInv, s.put(claimIt, claimCond), memberPut}
		for _, tm := range d.Memberships {
			put, err := s.putNew(toTeamMemberItem(tm))
			if err != nil {
				return nil, nil, false, err
			}
			items = append(items, put)
		}
		if d.TakesSeat {
			seat, err := s.seatWrite(ws, 1)
			if err != nil {
				return nil, nil, false, err
			}
			items = append(items, seat)
		}
		return items, d.Entries, false, nil
	})
}

// ApplyAgentUpsert applies an agent.upserted event for agent agentID: a new
// agent is Put (running, no limits, no tags), an existing one has the given
// fields updated, each conditioned on the value read (a team change moves
// its team index keys, so later usage counts toward the new team), with a
// ConditionCheck that a named team exists, and agent.added or agent.updated
// is recorded. One BatchGetItem and one transaction. Errors:
// ErrWorkspaceNotFound, ErrAgentTeamNotFound, ErrAgentRemoved, a KindInvalid
// error for a new agent without a name.
func (s *Store) ApplyAgentUpsert(ctx context.Context, p workspace.Provision, agentID string, f workspace.AgentFields, now time.Time) error {
	ws, pk := p.WorkspaceID, wsPK(p.WorkspaceID)
	team, _ := f.TeamID.Get()
	return s.applyProvision(ctx, p, "agent.upserted", now, func(ctx context.Context) ([]types.TransactWriteItem, []workspace.AuditEntry, bool, error) {
		more := []item{key(pk, skMeta)}
		if team != "" {
			more = append(more, key(pk, teamSK(team)))
		}
		r, cur, current, err := readEntity[agentItem](ctx, s, ws, provisionAgent, agentID, agentSK(agentID), more...)
		if err := cmp.Or(err, r.requireWorkspace(ws)); err != nil {
			return nil, nil, false, err
		}
		_, teamExists := r.items[[2]string{pk, teamSK(team)}]
		d, err := workspace.DecideAgent(p, agentID, current, r.record, f, teamExists, now)
		if err != nil || !d.Apply {
			return nil, nil, true, err
		}
		version, err := s.recordWrite(ws, provisionAgent, agentID, r, p.Version, false, "")
		if err != nil {
			return nil, nil, false, err
		}
		items := []types.TransactWriteItem{version}
		if d.TeamChanged && d.Agent.TeamID != "" {
			check, err := s.check(key(pk, teamSK(d.Agent.TeamID)), expression.AttributeExists(expression.Name(attrPK)))
			if err != nil {
				return nil, nil, false, err
			}
			items = append(items, check)
		}
		if d.New {
			put, err := s.putNew(toAgentItem(d.Agent))
			return append(items, put), d.Entries, false, err
		}
		upd, ok, err := s.fieldUpdate(key(pk, agentSK(agentID)), agentFieldWrites(cur, toAgentItem(d.Agent)))
		if ok {
			items = append(items, upd)
		}
		return items, d.Entries, false, err
	})
}

// agentFieldWrites are the SETs (and, for a team left, REMOVEs) of an
// agent item's provisioned fields that differ between from, as read, and
// to, each conditioned on the value read.
func agentFieldWrites(from, to agentItem) fieldWrites {
	var fw fieldWrites
	for _, c := range []struct{ attr, from, to string }{
		{attrName, from.Name, to.Name}, {"description", from.Description, to.Description},
		{"imageUrl", from.ImageURL, to.ImageURL}, {"agentDiscoverability", from.AgentDiscoverability, to.AgentDiscoverability},
	} {
		if c.from != c.to {
			fw.set(c.attr, c.from, c.to)
		}
	}
	if from.IsPrivate != to.IsPrivate {
		fw.set("isPrivate", from.IsPrivate, to.IsPrivate)
	}
	if !slices.Equal(from.KeyMetrics, to.KeyMetrics) {
		fw.set("keyMetrics", from.KeyMetrics, to.KeyMetrics)
	}
	if !slices.Equal(from.Connections, to.Connections) {
		fw.set("connections", listOrEmpty(from.Connections), to.Connections)
	}
	if from.TeamID != to.TeamID {
		read := expression.AttributeNotExists(expression.Name(attrTeamID))
		if from.TeamID != "" {
			read = expression.Name(attrTeamID).Equal(expression.Value(from.TeamID))
		}
		fw.and(read)
		if to.TeamID == "" {
			fw.upd = fw.upd.Remove(expression.Name(attrTeamID)).Remove(expression.Name(attrGSI1PK)).Remove(expression.Name(attrGSI1SK))
		} else {
			fw.upd = fw.upd.Set(expression.Name(attrTeamID), expression.Value(to.TeamID)).
				Set(expression.Name(attrGSI1PK), expression.Value(to.GSI1PK)).Set(expression.Name(attrGSI1SK), expression.Value(to.GSI1SK))
		}
	}
	return fw
}

// ApplyAgentRemoval applies an agent.removed event for agent agentID: the
// agent item is deleted and its record marks it removed (keeping its name
// for the usage export), with agent.removed, in one transaction after one
// BatchGetItem. Its usage counters, running state and data stay, so the
// credits report's totals and the usage export keep its usage; every later
// event for it fails (the agent is not found, or ErrAgentRemoved). An agent
// unknown at a newer version only has the removal recorded.
func (s *Store) ApplyAgentRemoval(ctx context.Context, p workspace.Provision, agentID string, now time.Time) error {
	ws, pk := p.WorkspaceID, wsPK(p.WorkspaceID)
	return s.applyProvision(ctx, p, "agent.removed", now, func(ctx context.Context) ([]types.TransactWriteItem, []workspace.AuditEntry, bool, error) {
		r, _, current, err := readEntity[agentItem](ctx, s, ws, provisionAgent, agentID, agentSK(agentID), key(pk, skMeta))
		if err := cmp.Or(err, r.requireWorkspace(ws)); err != nil {
			return nil, nil, false, err
		}
		d := workspace.DecideAgentRemoval(p, agentID, current, r.record, now)
		if !d.Apply {
			return nil, nil, true, nil
		}
		name := r.record.Name
		if current != nil {
			name = current.Name
		}
		record, err := s.recordWrite(ws, provisionAgent, agentID, r, p.Version, true, name)
		if err != nil {
			return nil, nil, false, err
		}
		items := []types.TransactWriteItem{record}
		if d.Remove {
			del, err := s.deleteIf(key(pk, agentSK(agentID)), expression.AttributeExists(expression.Name(attrPK)))
			if err != nil {
				return nil, nil, false, err
			}
			items = append(items, del)
		}
		return items, d.Entries, false, nil
	})
}

// ProvisionedVersion returns the newest version applied to kind ("workspace",
// "member" or "agent") entity id of ws, and whether it removed the entity;
// zero when no event touched it. One GetItem, for tests and operators.
func (s *Store) ProvisionedVersion(ctx context.Context, ws, kind, id string) (workspace.Provisioned, error) {
	it, _, err := getItem[provisionedItem](ctx, s, key(wsPK(ws), provisionedSK(kind, id)), "provisioning record")
	if err != nil {
		return workspace.Provisioned{}, fmt.Errorf("read provisioning record: %w", err)
	}
	return it.domain(), nil
}

// removedAgentNames adds to names (agent id to name) the names of those of
// agentIDs that names lacks and that agent.removed removed, from their
// provisioning records: one BatchGetItem per 100 of them, none when every
// agent was found.
func (s *Store) removedAgentNames(ctx context.Context, ws string, agentIDs []string, names map[string]string) error {
	var keys []item
	for _, id := range agentIDs {
		if _, ok := names[id]; !ok {
			keys = append(keys, key(wsPK(ws), provisionedSK(provisionAgent, id)))
		}
	}
	if len(keys) == 0 {
		return nil
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return err
	}
	for _, id := range agentIDs {
		rec, ok, err := decodeAt[provisionedItem](found, wsPK(ws), provisionedSK(provisionAgent, id))
		if err != nil {
			return err
		}
		if ok && rec.Removed {
			names[id] = rec.Name
		}
	}
	return nil
}
