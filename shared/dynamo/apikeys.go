package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// APIKey returns the key whose plaintext hashes to hash, or a KindNotFound
// error when there is none. One GetItem.
func (s *Store) APIKey(ctx context.Context, hash string) (workspace.APIKey, error) {
	it, found, err := getItem[apiKeyItem](ctx, s, key(keyPK(hash), skKey), "api key")
	if err != nil {
		return workspace.APIKey{}, err
	}
	if !found {
		return workspace.APIKey{}, workspace.ErrAPIKeyNotFound
	}
	return it.domain(), nil
}

// Member returns a member of workspace ws, or a KindNotFound error when the
// user is not one. One GetItem.
func (s *Store) Member(ctx context.Context, ws, userID string) (workspace.Member, error) {
	it, found, err := getItem[memberItem](ctx, s, key(wsPK(ws), memberSK(userID)), "member")
	if err != nil {
		return workspace.Member{}, err
	}
	if !found {
		return workspace.Member{}, workspace.ErrMemberNotFound
	}
	m := it.domain()
	m.WorkspaceID = ws
	return m, nil
}

// maxReclaimRounds bounds how often a create that finds the key count full
// deletes expired keys and tries again: each round frees every key expired
// at that moment, so a second full count means the keys are live (or other
// creates took the freed places).
const maxReclaimRounds = 2

// CreateAPIKey stores the new key k (its hash, workspace and owner set), its
// reference and one more in its workspace's key count, in one transaction
// conditioned on the count being under workspace.MaxLiveKeys, on the owner
// being a member and, for a team-scoped key, on the team existing. When the
// count is full it deletes the workspace's expired keys (reclaimExpiredKeys)
// and tries again. Errors: workspace.ErrKeyLimit, ErrMemberNotFound,
// ErrTeamNotFound, and a KindConflict error when the hash or id is taken.
// The transaction records the key.created entry (by, at now), and each
// reclaimed key its key.revoked entry.
func (s *Store) CreateAPIKey(ctx context.Context, by workspace.Actor, k workspace.APIKey, now time.Time) error {
	items, err := s.createKeyItems(k)
	if err != nil {
		return err
	}
	for round := 0; ; round++ {
		failed, err := s.transactAudited(ctx, k.WorkspaceID, items, k.CreatedEntry(now, by))
		if err != nil {
			return err
		}
		switch {
		case len(failed) == 0:
			return nil
		case failed[0] == 1:
			return workspace.ErrMemberNotFound
		case failed[0] == 2:
			return workspace.ErrTeamNotFound
		case failed[0] > 2:
			return workspace.Conflict("an API key with this value exists")
		case round+1 >= maxReclaimRounds:
			return workspace.ErrKeyLimit
		}
		freed, err := s.reclaimExpiredKeys(ctx, by, k.WorkspaceID, now)
		if err != nil {
			return err
		}
		if freed == 0 {
			return workspace.ErrKeyLimit
		}
	}
}

// createKeyItems is the transaction of CreateAPIKey: the count (0), the
// owner check (1), the team check (2, always there: a workspace-wide key
// checks the workspace item instead), the key (3) and its reference (4).
func (s *Store) createKeyItems(k workspace.APIKey) ([]types.TransactWriteItem, error) {
	count, err := s.update(key(wsPK(k.WorkspaceID), skKeyCount),
		expression.Add(expression.Name(attrCount), expression.Value(1)).
			Set(expression.Name(attrEntity), expression.Value(typeKeyCount)),
		ptr(expression.Or(expression.AttributeNotExists(expression.Name(attrCount)),
			expression.Name(attrCount).LessThan(expression.Value(workspace.MaxLiveKeys)))))
	if err != nil {
		return nil, err
	}
	exists := expression.AttributeExists(expression.Name(attrPK))
	owner, err := s.check(key(wsPK(k.WorkspaceID), memberSK(k.UserID)), exists)
	if err != nil {
		return nil, err
	}
	teamKey := key(wsPK(k.WorkspaceID), skMeta)
	if k.TeamID != "" {
		teamKey = key(wsPK(k.WorkspaceID), teamSK(k.TeamID))
	}
	team, err := s.check(teamKey, exists)
	if err != nil {
		return nil, err
	}
	it, err := s.putNew(toAPIKeyItem(k))
	if err != nil {
		return nil, err
	}
	ref, err := s.putNew(toAPIKeyRefItem(k))
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{count, owner, team, it, ref}, nil
}

// keysPerReclaim is how many expired keys one reclaiming transaction
// deletes: two items each and the count make 65 of a transaction's 100, so
// an audit entry per key still fits beside them.
const keysPerReclaim = 32

// reclaimExpiredKeys deletes the keys of ws that have expired at now, with
// their references, and subtracts them from the key count, keysPerReclaim
// keys per transaction; it returns how many it deleted. Each delete is
// conditioned on the reference still being there, so a key that a racing
// revoke or reclaim removed first cancels that transaction and is not
// subtracted twice; the creator then simply tries again.
func (s *Store) reclaimExpiredKeys(ctx context.Context, by workspace.Actor, ws string, now time.Time) (int, error) {
	refs, err := s.keyRefs(ctx, ws)
	if err != nil {
		return 0, err
	}
	var expired []apiKeyRefItem
	for _, r := range refs {
		if r.expired(now) {
			expired = append(expired, r)
		}
	}
	freed := 0
	for chunk := range slices.Chunk(expired, keysPerReclaim) {
		items := make([]types.TransactWriteItem, 0, 2*len(chunk)+1)
		entries := make([]workspace.AuditEntry, 0, len(chunk))
		for _, r := range chunk {
			del, err := s.deleteKeyItems(ws, r)
			if err != nil {
				return freed, err
			}
			items = append(items, del...)
			entries = append(entries, workspace.KeyRevokedEntry(now, by, r.ID))
		}
		count, err := s.update(key(wsPK(ws), skKeyCount),
			expression.Add(expression.Name(attrCount), expression.Value(-len(chunk))), nil)
		if err != nil {
			return freed, err
		}
		failed, err := s.transactAudited(ctx, ws, append(items, count), entries...)
		if err != nil {
			return freed, err
		}
		if len(failed) == 0 {
			freed += len(chunk)
		}
	}
	return freed, nil
}

// deleteKeyItems are a transaction's deletes of the key that ref refers to
// and of ref itself, each conditioned on being there (and the key on being
// ref's key of ws).
func (s *Store) deleteKeyItems(ws string, ref apiKeyRefItem) ([]types.TransactWriteItem, error) {
	delKey, err := s.deleteIf(key(keyPK(ref.KeyHash), skKey), expression.AttributeExists(expression.Name(attrPK)).
		And(expression.Name(attrWorkspace).Equal(expression.Value(ws))).
		And(expression.Name(attrID).Equal(expression.Value(ref.ID))))
	if err != nil {
		return nil, err
	}
	delRef, err := s.deleteIf(key(wsPK(ws), keyRefSK(ref.ID)), expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{delKey, delRef}, nil
}

// keyRefs reads the key references of ws in id order: one strongly
// consistent Query of at most the count's bound of items.
func (s *Store) keyRefs(ctx context.Context, ws string) ([]apiKeyRefItem, error) {
	e, err := build(expression.NewBuilder().WithKeyCondition(
		expression.Key(attrPK).Equal(expression.Value(wsPK(ws))).And(expression.Key(attrSK).BeginsWith(prefixKeyRef))))
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s, &dynamodb.QueryInput{
		KeyConditionExpression: e.KeyCondition(), ConsistentRead: aws.Bool(true),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}, "api key references", func(it apiKeyRefItem) apiKeyRefItem { return it })
}

// keyRef reads the reference of key keyID of ws; ErrAPIKeyNotFound when
// there is none (or keyID cannot be an id). One GetItem.
func (s *Store) keyRef(ctx context.Context, ws, keyID string) (apiKeyRefItem, error) {
	if !workspace.PlausibleID(keyID) {
		return apiKeyRefItem{}, workspace.ErrAPIKeyNotFound
	}
	ref, found, err := getItem[apiKeyRefItem](ctx, s, key(wsPK(ws), keyRefSK(keyID)), "api key reference")
	if err != nil {
		return apiKeyRefItem{}, err
	}
	if !found {
		return apiKeyRefItem{}, workspace.ErrAPIKeyNotFound
	}
	return ref, nil
}

// APIKeys lists the keys of workspace ws in id order, revoked ones gone and
// expired ones included (until reclaimed): one strongly consistent Query of
// their references and one BatchGetItem per 100 keys.
func (s *Store) APIKeys(ctx context.Context, ws string) ([]workspace.APIKey, error) {
	refs, err := s.keyRefs(ctx, ws)
	if err != nil {
		return nil, err
	}
	keys := make([]item, len(refs))
	for i, r := range refs {
		keys[i] = key(keyPK(r.KeyHash), skKey)
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]workspace.APIKey, 0, len(refs))
	for _, r := range refs {
		raw, ok := found[[2]string{keyPK(r.KeyHash), skKey}]
		if !ok {
			continue // revoked between the two reads
		}
		var it apiKeyItem
		if err := unmarshal(raw, &it); err != nil {
			return nil, err
		}
		if it.WorkspaceID == ws && it.ID == r.ID {
			out = append(out, it.domain())
		}
	}
	return out, nil
}

// UpdateAPIKey applies ch to key keyID of ws and returns the key as it now
// is: one GetItem of its reference, one of the key and, unless ch changes
// nothing, one transaction of the key's Update (conditioned on the key still
// being ws's keyID with the name and disabled flag read) and its key.updated
// entry (by, at now); read again after a lost race. ErrAPIKeyNotFound when
// there is no such key (another workspace's id included); ch.Permits's
// error when ch's caller may not change the key as read.
func (s *Store) UpdateAPIKey(ctx context.Context, by workspace.Actor, ws, keyID string, ch workspace.KeyChange, now time.Time) (workspace.APIKey, error) {
	ref, err := s.keyRef(ctx, ws, keyID)
	if err != nil {
		return workspace.APIKey{}, err
	}
	k := key(keyPK(ref.KeyHash), skKey)
	return decideAndCommit(ctx, func(int) (workspace.APIKey, error) {
		it, found, err := getItem[apiKeyItem](ctx, s, k, "api key")
		if err != nil {
			return workspace.APIKey{}, err
		}
		if !found || it.WorkspaceID != ws || it.ID != keyID {
			return workspace.APIKey{}, workspace.ErrAPIKeyNotFound
		}
		before := it.domain()
		if err := ch.Permits(before); err != nil {
			return workspace.APIKey{}, err
		}
		entry, changed := before.UpdatedEntry(now, by, ch)
		if !changed {
			return before, nil
		}
		var upd expression.UpdateBuilder
		after := before
		if ch.Name != nil {
			upd, after.Name = upd.Set(expression.Name(attrName), expression.Value(*ch.Name)), *ch.Name
		}
		if ch.Disabled != nil {
			upd, after.Disabled = upd.Set(expression.Name(attrDisabled), expression.Value(*ch.Disabled)), *ch.Disabled
		}
		cond := expression.AttributeExists(expression.Name(attrPK)).
			And(expression.Name(attrWorkspace).Equal(expression.Value(ws))).
			And(expression.Name(attrID).Equal(expression.Value(keyID))).
			And(expression.Name(attrName).Equal(expression.Value(it.Name))).
			And(expression.Name(attrDisabled).Equal(expression.Value(it.Disabled)))
		write, err := s.update(k, upd, &cond)
		if err != nil {
			return workspace.APIKey{}, err
		}
		failed, err := s.transactAudited(ctx, ws, []types.TransactWriteItem{write}, entry)
		switch {
		case err != nil:
			return workspace.APIKey{}, err
		case len(failed) > 0:
			return workspace.APIKey{}, errLost // changed or revoked meanwhile: read again
		}
		return after, nil
	})
}

// RevokeAPIKey deletes key keyID of ws and its reference and frees its place
// in the key count: one GetItem of its reference and one transaction whose
// deletes are conditioned on both being there, so of two racing revokes one
// succeeds and the other is ErrAPIKeyNotFound, and the count goes down once.
// The transaction records the key.revoked entry (by, at now).
func (s *Store) RevokeAPIKey(ctx context.Context, by workspace.Actor, ws, keyID string, now time.Time) error {
	ref, err := s.keyRef(ctx, ws, keyID)
	if err != nil {
		return err
	}
	items, err := s.deleteKeyItems(ws, ref)
	if err != nil {
		return err
	}
	count, err := s.update(key(wsPK(ws), skKeyCount), expression.Add(expression.Name(attrCount), expression.Value(-1)), nil)
	if err != nil {
		return err
	}
	failed, err := s.transactAudited(ctx, ws, append(items, count), workspace.KeyRevokedEntry(now, by, keyID))
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return workspace.ErrAPIKeyNotFound
	}
	return nil
}

// TouchAPIKey records that the key whose plaintext hashes to hash was used
// at now: one UpdateItem of lastUsedAt, conditioned on it being absent or
// older than workspace.LastUsedResolution (and on the key being there), so
// the key costs at most one write per period however many authorizers race.
// A failed condition is no error: someone recorded it already.
func (s *Store) TouchAPIKey(ctx context.Context, hash string, now time.Time) error {
	last := expression.Name(attrLastUsed)
	e, err := build(expression.NewBuilder().
		WithUpdate(expression.Set(last, expression.Value(storedTime(now)))).
		WithCondition(expression.AttributeExists(expression.Name(attrPK)).And(expression.Or(
			expression.AttributeNotExists(last),
			last.LessThan(expression.Value(storedTime(now.Add(-workspace.LastUsedResolution))))))))
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: key(keyPK(hash), skKey),
		UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("record api key use: %w", err)
	}
	return nil
}

// isConditionFailed reports whether err is a failed condition of a single-item write.
func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return err != nil && errors.As(err, &ccf)
}

// keysGSI1PK is where release 1 listed a workspace's keys: its key items
// carried GSI1PK WS#<ws>#KEYS and GSI1SK KEY#<keyId>, and no reference.
// Only such keys are in it, so it is what BackfillKeyReferences reads.
func keysGSI1PK(ws string) string { return wsPK(ws) + "#KEYS" }

// BackfillKeyReferences gives every key of ws stored before references
// existed its reference and its place in the key count (the migration step
// api-key-references): one Query of GSI1's WS#<ws>#KEYS, where only such
// keys are, then per key one transaction that puts the reference
// (attribute_not_exists), ADDs 1 to the count and takes the key out of that
// listing (conditioned on it still being in it, of ws, with its id), so a
// key is counted once however often the step runs. The count is not bounded
// here: a workspace that held more than workspace.MaxLiveKeys such keys
// keeps them all, and creates are refused until enough are revoked or
// expire. The writes record no audit entry: nothing about the keys changes.
func (s *Store) BackfillKeyReferences(ctx context.Context, ws string) (workspace.MigrationCounts, error) {
	in, err := s.keyQuery(IndexGSI1, expression.Key(attrGSI1PK).Equal(expression.Value(keysGSI1PK(ws))))
	if err != nil {
		return workspace.MigrationCounts{}, err
	}
	olds, err := queryAll(ctx, s, in, "release-1 api keys", func(it apiKeyItem) apiKeyItem { return it })
	if err != nil {
		return workspace.MigrationCounts{}, err
	}
	var counts workspace.MigrationCounts
	for _, it := range olds {
		if it.WorkspaceID != ws {
			continue
		}
		k := it.domain()
		ref, err := s.putNew(toAPIKeyRefItem(k))
		if err != nil {
			return counts, err
		}
		count, err := s.update(key(wsPK(ws), skKeyCount),
			expression.Add(expression.Name(attrCount), expression.Value(1)).
				Set(expression.Name(attrEntity), expression.Value(typeKeyCount)), nil)
		if err != nil {
			return counts, err
		}
		listed := expression.Name(attrGSI1PK).Equal(expression.Value(keysGSI1PK(ws))).
			And(expression.Name(attrWorkspace).Equal(expression.Value(ws))).
			And(expression.Name(attrID).Equal(expression.Value(k.ID)))
		unlist, err := s.update(key(it.PK, skKey),
			expression.Remove(expression.Name(attrGSI1PK)).Remove(expression.Name(attrGSI1SK)), &listed)
		if err != nil {
			return counts, err
		}
		failed, err := s.transact(ctx, []types.TransactWriteItem{ref, count, unlist})
		if err != nil {
			return counts, err
		}
		switch {
		case len(failed) == 0:
			counts.Changed += 3
		case failed[0] == 0:
			// A reference with the key's id is there already: another key
			// of the workspace holds the id. The key stays as it is, and
			// an operator reissues it.
			counts.Conflicts = append(counts.Conflicts, fmt.Sprintf("api key %s of %s: a reference with its id exists", k.ID, ws))
		}
		// failed[0] == 2: another run migrated the key first.
	}
	counts.Workspaces = 1
	return counts, nil
}
