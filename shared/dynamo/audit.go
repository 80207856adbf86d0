package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file stores the audit log (keys.go has its keys): the Puts a
// change's transaction carries for its entries, and the paged, filtered
// read of the log.

// auditItem is one audit entry. Its changes are a map of {from, to} pairs
// whose values are stored as they are (numbers, strings, lists, null).
type auditItem struct {
	keys
	GSI3PK      string                 `dynamodbav:"GSI3PK,omitempty"`
	GSI3SK      string                 `dynamodbav:"GSI3SK,omitempty"`
	ID          string                 `dynamodbav:"id"`
	WorkspaceID string                 `dynamodbav:"workspaceId"`
	At          string                 `dynamodbav:"at"`
	Action      string                 `dynamodbav:"action"`
	ActorType   string                 `dynamodbav:"actorType"`
	ActorKeyID  string                 `dynamodbav:"actorKeyId,omitempty"`
	ActorUserID string                 `dynamodbav:"actorUserId,omitempty"`
	ActorSystem string                 `dynamodbav:"actorSystem,omitempty"`
	RequestID   string                 `dynamodbav:"requestId,omitempty"`
	TargetType  string                 `dynamodbav:"targetType"`
	TargetID    string                 `dynamodbav:"targetId"`
	Changes     map[string]auditChange `dynamodbav:"changes"`
}

// auditChange is one field's change in an audit item.
type auditChange struct {
	From any `dynamodbav:"from"`
	To   any `dynamodbav:"to"`
}

// Attribute names the audit log's filters refer to.
const (
	attrAction     = "action"
	attrActorKeyID = "actorKeyId"
)

func toAuditItem(ws string, e workspace.AuditEntry, retention time.Duration) auditItem {
	pos := auditPosition(e.At, e.ID)
	it := auditItem{
		keys: keys{
			PK: auditPK(ws), SK: pos, Entity: typeAudit,
			GSI1PK: auditTargetGSI1PK(ws, e.Target.ID), GSI1SK: pos,
			TTL: epoch(e.At.Add(retention)),
		},
		GSI3PK: auditActionGSI3PK(ws, e.Action), GSI3SK: pos,
		ID: e.ID, WorkspaceID: ws, At: storedTime(e.At), Action: string(e.Action),
		ActorType: string(e.Actor.Type), TargetType: string(e.Target.Type), TargetID: e.Target.ID,
		Changes: make(map[string]auditChange, len(e.Changes)),
	}
	switch e.Actor.Type {
	case workspace.ActorKey:
		it.ActorKeyID, it.ActorUserID, it.RequestID = e.Actor.KeyID, e.Actor.UserID, e.Actor.RequestID
		it.GSI2PK, it.GSI2SK = auditKeyGSI2PK(ws, e.Actor.KeyID), pos
	case workspace.ActorSystem:
		it.ActorSystem = string(e.Actor.System)
	}
	for field, c := range e.Changes {
		it.Changes[field] = auditChange(c)
	}
	return it
}

func (i auditItem) domain() workspace.AuditEntry {
	e := workspace.AuditEntry{
		ID: i.ID, At: loadedTime(i.At), Action: workspace.AuditAction(i.Action),
		Actor: workspace.Actor{
			Type: workspace.ActorType(i.ActorType), KeyID: i.ActorKeyID, UserID: i.ActorUserID,
			System: workspace.SystemActorName(i.ActorSystem), RequestID: i.RequestID,
		},
		Target:  workspace.AuditTarget{Type: workspace.TargetType(i.TargetType), ID: i.TargetID},
		Changes: make(workspace.Changes, len(i.Changes)),
	}
	for field, c := range i.Changes {
		e.Changes[field] = workspace.Change(c)
	}
	return e
}

// AuditPuts returns the Puts of entries of workspace ws, for the one
// transaction of the change they record: a change's transaction carries
// them, so the entries land exactly when the change does. An entry without
// an id gets a fresh one, sortable by its time. The Puts have no condition
// (an entry's id is new), so they never cancel a transaction and a caller
// reading its cancellation reasons by index may append them last. An entry
// by workspace.Unrecorded (an operator's tool) is left out.
// infra/tableops seeds the log through it too.
func (s *Store) AuditPuts(ws string, entries ...workspace.AuditEntry) ([]types.TransactWriteItem, error) {
	puts := make([]types.TransactWriteItem, 0, len(entries))
	for _, e := range entries {
		if e.Actor == workspace.Unrecorded {
			continue
		}
		if e.ID == "" {
			id, err := (workspace.SortableIDs{Clock: fixedClock(e.At)}).NewID(workspace.AuditIDPrefix)
			if err != nil {
				return nil, fmt.Errorf("audit entry id: %w", err)
			}
			e.ID = id
		}
		it, err := marshal(toAuditItem(ws, e, s.auditRetention()))
		if err != nil {
			return nil, err
		}
		puts = append(puts, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: it}})
	}
	return puts, nil
}

// transactAudited runs the transaction of a change, items, with the Puts of
// the entries that record it appended last (so the indexes of failed
// conditions are the items' own): the change and its entries land together
// or not at all. In a request sent with an Idempotency-Key, the request's
// first transaction to commit also marks its key's record applied
// (workspace.IdempotencyClaim.Applying, appliedMark, last of all). Results
// as transact.
func (s *Store) transactAudited(ctx context.Context, ws string, items []types.TransactWriteItem, entries ...workspace.AuditEntry) (failed []int, err error) {
	puts, err := s.AuditPuts(ws, entries...)
	if err != nil {
		return nil, err
	}
	items = append(items, puts...)
	claim := workspace.IdempotencyClaimOf(ctx)
	if claim == nil {
		return s.transact(ctx, items)
	}
	claim.Applying(func(mark bool) bool {
		tx := items
		if mark {
			m, e := s.appliedMark(claim)
			if e != nil {
				err = e
				return false
			}
			tx = append(slices.Clip(items), m)
		}
		failed, err = s.transact(ctx, tx)
		if err == nil && mark && slices.Contains(failed, len(items)) {
			failed, err = nil, errors.New("write under an idempotency key: its claim was taken over after its lease")
		}
		return err == nil && len(failed) == 0
	})
	return failed, err
}

// fixedClock tells one time: an entry's id carries the entry's own time.
type fixedClock time.Time

// Now returns the fixed time.
func (c fixedClock) Now() time.Time { return time.Time(c) }

// auditRetention is how long the table keeps an entry before its TTL
// removes it.
func (s *Store) auditRetention() time.Duration {
	if s.auditKeep > 0 {
		return s.auditKeep
	}
	return workspace.DefaultAuditRetention
}

// WithAuditRetention returns a store over the same table whose audit
// entries are kept for d (the AuditRetentionDays template parameter).
func (s *Store) WithAuditRetention(d time.Duration) *Store {
	c := *s
	c.auditKeep = d
	return &c
}

// AuditPage reads one page of ws's audit log, newest first: up to limit
// entries matching f, after the position after ("" for the first page), and
// the position to continue from ("" after the last page).
//
// A page is one Query (more only when DynamoDB's 1 MB page ends it first),
// whatever the size of the log: the filter with an index of its own picks
// the partition read (targetId GSI1, then actorKeyId GSI2, then action
// GSI3, else the workspace's log) and since and until bound its sort key.
// The filters left over when more than one is given are applied to the
// limit entries that Query reads, so such a page may hold fewer than limit
// entries, even none, and still have a next one: the work stays bounded by
// the page.
func (s *Store) AuditPage(ctx context.Context, ws string, f workspace.AuditFilter, after string, limit int) (
	entries []workspace.AuditEntry, next string, err error) {
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return []workspace.AuditEntry{}, "", nil
	}
	var start item
	if after != "" {
		at, id, ok := parseAuditPosition(after)
		if !ok {
			return nil, "", workspace.Invalid("cursor is not a cursor this API returned")
		}
		start = auditStartKey(ws, f, auditPosition(at, id))
	}
	in, residual, err := s.auditQuery(ws, f)
	if err != nil {
		return nil, "", err
	}
	if !residual {
		got, more, err := queryPage(ctx, s, in, start, limit, "audit log", auditItem.domain)
		if err != nil || !more {
			return got, "", err
		}
		last := got[len(got)-1]
		return got, auditPosition(last.At, last.ID), nil
	}
	in.TableName = aws.String(s.table)
	in.ExclusiveStartKey = start
	in.Limit = aws.Int32(int32(limit))
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("query audit log: %w", err)
	}
	entries = make([]workspace.AuditEntry, 0, len(out.Items))
	for _, raw := range out.Items {
		var it auditItem
		if err := unmarshal(raw, &it); err != nil {
			return nil, "", err
		}
		entries = append(entries, it.domain())
	}
	if sk, ok := out.LastEvaluatedKey[attrSK].(*types.AttributeValueMemberS); ok {
		next = sk.Value
	}
	return entries, next, nil
}

// auditQuery is the Query of f's entries, newest first; residual tells
// whether filters are left that its key condition does not apply.
func (s *Store) auditQuery(ws string, f workspace.AuditFilter) (in *dynamodb.QueryInput, residual bool, err error) {
	index, pkName, skName, pk := auditIndexOf(ws, f)
	sk := expression.Key(skName)
	cond := expression.Key(pkName).Equal(expression.Value(pk))
	switch lo, hi := storedTime(f.Since), storedTime(f.Until); {
	case !f.Since.IsZero() && !f.Until.IsZero():
		// Every sort key is "<at>#<id>", so BETWEEN since AND until holds
		// since's entries and none of until's: the range is half-open.
		cond = cond.And(sk.Between(expression.Value(lo), expression.Value(hi)))
	case !f.Since.IsZero():
		cond = cond.And(sk.GreaterThanEqual(expression.Value(lo)))
	case !f.Until.IsZero():
		cond = cond.And(sk.LessThan(expression.Value(hi)))
	}
	b := expression.NewBuilder().WithKeyCondition(cond)
	var filter expression.ConditionBuilder
	add := func(c expression.ConditionBuilder) {
		if filter.IsSet() {
			filter = filter.And(c)
		} else {
			filter = c
		}
	}
	if f.ActorKeyID != "" && index != IndexGSI2 {
		add(expression.Name(attrActorKeyID).Equal(expression.Value(f.ActorKeyID)))
	}
	if f.Action != "" && index != IndexGSI3 {
		add(expression.Name(attrAction).Equal(expression.Value(string(f.Action))))
	}
	if filter.IsSet() {
		b = b.WithFilter(filter)
	}
	e, err := build(b)
	if err != nil {
		return nil, false, err
	}
	in = &dynamodb.QueryInput{
		KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ScanIndexForward: aws.Bool(false),
	}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	return in, filter.IsSet(), nil
}

// auditIndexOf picks where f's entries are read: the index of its most
// selective filter, or the workspace's log ("" index) without one.
func auditIndexOf(ws string, f workspace.AuditFilter) (index, pkName, skName, pk string) {
	switch {
	case f.TargetID != "":
		return IndexGSI1, attrGSI1PK, attrGSI1SK, auditTargetGSI1PK(ws, f.TargetID)
	case f.ActorKeyID != "":
		return IndexGSI2, attrGSI2PK, attrGSI2SK, auditKeyGSI2PK(ws, f.ActorKeyID)
	case f.Action != "":
		return IndexGSI3, attrGSI3PK, attrGSI3SK, auditActionGSI3PK(ws, f.Action)
	}
	return "", attrPK, attrSK, auditPK(ws)
}

// auditStartKey is the ExclusiveStartKey of the entry at position pos in
// the partition f reads: an index's key names the table's key too.
func auditStartKey(ws string, f workspace.AuditFilter, pos string) item {
	k := key(auditPK(ws), pos)
	index, pkName, skName, pk := auditIndexOf(ws, f)
	if index != "" {
		k[pkName] = &types.AttributeValueMemberS{Value: pk}
		k[skName] = &types.AttributeValueMemberS{Value: pos}
	}
	return k
}

// parseAuditPosition reads a position auditPosition wrote.
func parseAuditPosition(pos string) (at time.Time, id string, ok bool) {
	stamp, id, found := strings.Cut(pos, "#")
	at, err := time.Parse(workspace.TimeFormat, stamp)
	if !found || err != nil || storedTime(at) != stamp || !workspace.PlausibleID(id) {
		return time.Time{}, "", false
	}
	return at, id, true
}
