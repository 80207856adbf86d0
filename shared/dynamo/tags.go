package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file holds the batch writes of one attribute of many entities (tags
// of members, agents and teams; agents' showTokenOptimisationInfo): one
// implementation, parameterised by the kind of entity. A batch of N ids
// costs ceil(N/100) BatchGetItem calls and one transaction per entity it
// changes (its conditional Update and its audit entry's Put), at most
// batchConcurrency at once; an entity the write leaves as it is is not
// written and records no entry. The Update is conditioned on the value read,
// so a write decided on a stale read fails; that entity alone is then read
// again (one BatchGetItem) and decided again.

// entitySK returns the sort key of entity id of kind.
func entitySK(kind workspace.Taggable, id string) string {
	switch kind {
	case workspace.TaggableMember:
		return memberSK(id)
	case workspace.TaggableTeam:
		return teamSK(id)
	}
	return agentSK(id)
}

// entityWrite decides one entity's write: upd, the condition on the value
// read (besides its existence) and the changes its audit entry records, or
// changed false for none. err fails that id alone.
type entityWrite func(e taggedItem) (upd expression.UpdateBuilder, read expression.ConditionBuilder, changes workspace.Changes, changed bool, err error)

// entityAudit is who writes a batch, when, and the action each changed
// entity's entry records.
type entityAudit struct {
	by     workspace.Actor
	now    time.Time
	action workspace.AuditAction
	target workspace.TargetType
}

// entityOutcome is one id's outcome: the entity as read (found false when
// the caller cannot see it), whether it was written, and a per-id error.
type entityOutcome struct {
	entity  taggedItem
	found   bool
	changed bool
	err     error
}

// eachEntity reads ids of kind in ws (in scope) with ceil(N/100)
// BatchGetItem calls and runs decide and its write for each found one, at
// most batchConcurrency at once. decide is called again on a fresh read when a
// write loses a race, so it must be pure. Teams exist only while team
// settings are on: for them the same reads take the workspace too, and
// workspace.ErrTeamSettingsOff is returned, before any write, when they are
// off.
func (s *Store) eachEntity(ctx context.Context, ws string, kind workspace.Taggable, scope string, ids []string, audit entityAudit, decide entityWrite) ([]entityOutcome, error) {
	outs := make([]entityOutcome, len(ids))
	var keys []item
	for _, id := range ids {
		if workspace.PlausibleID(id) {
			keys = append(keys, key(wsPK(ws), entitySK(kind, id)))
		}
	}
	meta := [2]string{wsPK(ws), skMeta}
	if kind == workspace.TaggableTeam {
		keys = append(keys, key(meta[0], meta[1]))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil && kind == workspace.TaggableTeam {
		return nil, err // as when team settings cannot be read: no outcome at all
	}
	if err != nil {
		for i := range outs {
			outs[i].err = err
		}
		return outs, nil
	}
	if kind == workspace.TaggableTeam {
		w, _, err := decodeAt[workspaceItem](found, meta[0], meta[1])
		if err != nil {
			return nil, err
		}
		if err := w.domain().TeamSettings(); err != nil { // a workspace not found reads as one with team settings off
			return nil, err
		}
	}
	var present []int
	for i, id := range ids {
		if _, ok := found[[2]string{wsPK(ws), entitySK(kind, id)}]; ok && workspace.PlausibleID(id) {
			present = append(present, i)
		}
	}
	fanOut(ctx, len(present), func(ctx context.Context, k int) {
		i := present[k]
		outs[i] = s.writeEntity(ctx, ws, kind, scope, found[[2]string{wsPK(ws), entitySK(kind, ids[i])}], audit, decide)
	})
	return outs, nil
}

// writeEntity decides and writes the entity read as raw, again on a fresh
// read after each lost race (decideAndCommit).
func (s *Store) writeEntity(ctx context.Context, ws string, kind workspace.Taggable, scope string, raw item, audit entityAudit, decide entityWrite) entityOutcome {
	k := key(wsPK(ws), itemKey(raw)[1])
	last := entityOutcome{} // the latest decision, reported when the write gives up
	out, err := decideAndCommit(ctx, func(n int) (entityOutcome, error) {
		if n > 0 {
			// The same call as the first read, so the function needs no other.
			got, err := s.batchGet(ctx, []item{k})
			if err != nil {
				return entityOutcome{}, fmt.Errorf("get %s: %w", kind, err)
			}
			if raw = got[itemKey(k)]; raw == nil {
				return entityOutcome{}, nil // removed meanwhile
			}
		}
		var e taggedItem
		if err := unmarshal(raw, &e); err != nil {
			return entityOutcome{}, err
		}
		if !kind.InScope(e.ID, e.TeamID, scope) {
			return entityOutcome{}, nil
		}
		upd, read, changes, changed, err := decide(e)
		last = entityOutcome{entity: e, found: true, changed: changed, err: err}
		if err != nil || !changed {
			return last, nil
		}
		cond := expression.AttributeExists(expression.Name(attrPK)).And(read)
		if kind == workspace.TaggableAgent && scope != "" {
			cond = cond.And(expression.Name(attrTeamID).Equal(expression.Value(scope)))
		}
		change, err := s.update(k, upd, &cond)
		if err != nil {
			return entityOutcome{}, err
		}
		entry := workspace.NewAuditEntry(audit.now, audit.by, audit.action, workspace.AuditTarget{Type: audit.target, ID: e.ID}, changes)
		failed, err := s.transactAudited(ctx, ws, []types.TransactWriteItem{change}, entry)
		switch {
		case err != nil:
			return entityOutcome{}, fmt.Errorf("update %s: %w", kind, err)
		case len(failed) > 0:
			return entityOutcome{}, errLost
		}
		return last, nil
	})
	if err != nil {
		// Nothing was written: the entity stands as last read.
		last.err = err
		return last
	}
	return out
}

// tagsAre is the condition that an entity's tags are still tags as read (an
// item written without any reads as an empty list).
func tagsAre(tags []string) expression.ConditionBuilder {
	is := expression.Name(attrTags).Equal(expression.Value(listOrEmpty(tags)))
	if len(tags) == 0 {
		return is.Or(expression.AttributeNotExists(expression.Name(attrTags)))
	}
	return is
}

// showIs is the condition that an agent's showTokenOptimisationInfo is
// still show as read (an item written without it reads as false).
func showIs(show bool) expression.ConditionBuilder {
	is := expression.Name(attrShowInfo).Equal(expression.Value(show))
	if !show {
		return is.Or(expression.AttributeNotExists(expression.Name(attrShowInfo)))
	}
	return is
}

// SetTags applies change to the tags of each of ids, entities of kind in ws
// (only those a key of team scope sees when scope is not empty: its team's
// agents, its team; others are not found). One outcome per id, in order;
// round trips as the file's comment says. For teams its BatchGetItem reads
// the workspace too, and it returns workspace.ErrTeamSettingsOff when team
// settings are off, before any write.
//
// Each changed entity's transaction records its entry (kind's tags_changed,
// by, at now, the tags before and after).
func (s *Store) SetTags(ctx context.Context, by workspace.Actor, ws string, kind workspace.Taggable, scope string, ids []string, change workspace.TagChange, now time.Time) ([]workspace.TagOutcome, error) {
	var next = make([][]string, len(ids)) // by index: decide runs per id, concurrently
	idx := make(map[string]int, len(ids))
	for i, id := range ids {
		idx[id] = i
	}
	action, target := kind.TagsAction()
	audit := entityAudit{by: by, now: now, action: action, target: target}
	outs, err := s.eachEntity(ctx, ws, kind, scope, ids, audit, func(e taggedItem) (expression.UpdateBuilder, expression.ConditionBuilder, workspace.Changes, bool, error) {
		tags, changed, err := change.Apply(e.Tags)
		next[idx[e.ID]] = tags
		changes := workspace.Changes{"tags": {From: listOrEmpty(e.Tags), To: listOrEmpty(tags)}}
		return expression.Set(expression.Name(attrTags), expression.Value(listOrEmpty(tags))), tagsAre(e.Tags), changes, changed, err
	})
	if err != nil {
		return nil, err
	}
	res := make([]workspace.TagOutcome, len(ids))
	for i, o := range outs {
		res[i] = workspace.TagOutcome{ID: ids[i], Name: o.entity.Name, Err: o.err}
		if !o.found && o.err == nil {
			res[i] = workspace.TagOutcome{ID: ids[i], Err: kind.NotFound()}
			continue
		}
		res[i].Tags, res[i].Unchanged = listOrEmpty(next[i]), !o.changed
		if o.err != nil {
			// Nothing was written: the entity keeps the tags last read.
			res[i].Tags = listOrEmpty(o.entity.Tags)
		}
	}
	return res, nil
}

// SetCreditDetails shows or hides the per-message credit details in the
// chats of each of ids, agents of ws (of team scope when it is not empty).
// Display only: limits and running states are not touched. An agent already
// showing show is not written; round trips as the file's comment says. Each
// changed agent's transaction records its agent.credit_details_changed entry.
func (s *Store) SetCreditDetails(ctx context.Context, by workspace.Actor, ws, scope string, ids []string, show bool, now time.Time) []workspace.DisplayOutcome {
	audit := entityAudit{by: by, now: now, action: workspace.ActionAgentCreditDetails, target: workspace.TargetAgent}
	// Only a batch of teams fails as a whole.
	outs, _ := s.eachEntity(ctx, ws, workspace.TaggableAgent, scope, ids, audit, func(e taggedItem) (expression.UpdateBuilder, expression.ConditionBuilder, workspace.Changes, bool, error) {
		changes := workspace.Changes{"showTokenOptimisationInfo": {From: e.Show, To: show}}
		return expression.Set(expression.Name(attrShowInfo), expression.Value(show)),
			expression.Name(attrEntity).Equal(expression.Value(typeAgent)).And(showIs(e.Show)), changes, e.Show != show, nil
	})
	res := make([]workspace.DisplayOutcome, len(ids))
	for i, o := range outs {
		switch {
		case !o.found && o.err == nil:
			res[i] = workspace.DisplayOutcome{ID: ids[i], Err: workspace.ErrAgentNotFound}
		default:
			res[i] = workspace.DisplayOutcome{ID: ids[i], Name: o.entity.Name, Show: show, Unchanged: !o.changed, Err: o.err}
		}
	}
	return res
}
