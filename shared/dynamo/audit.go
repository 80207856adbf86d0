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
	pos, shard := auditPosition(e.At, e.ID), auditShardOf(e.ID)
	it := auditItem{
		keys: keys{
			PK: auditPK(ws, shard), SK: pos, Entity: typeAudit,
			GSI1PK: auditTargetGSI1PK(ws, e.Target.ID), GSI1SK: pos,
			TTL: epoch(e.At.Add(retention)),
		},
		GSI3PK: auditActionGSI3PK(ws, shard, e.Action), GSI3SK: pos,
		ID: e.ID, WorkspaceID: ws, At: storedTime(e.At), Action: string(e.Action),
		ActorType: string(e.Actor.Type), TargetType: string(e.Target.Type), TargetID: e.Target.ID,
		Changes: make(map[string]auditChange, len(e.Changes)),
	}
	switch e.Actor.Type {
	case workspace.ActorKey:
		it.ActorKeyID, it.ActorUserID, it.RequestID = e.Actor.KeyID, e.Actor.UserID, e.Actor.RequestID
		it.GSI2PK, it.GSI2SK = auditKeyGSI2PK(ws, shard, e.Actor.KeyID), pos
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
// A page merges the partitions f's entries live in: the filter with an
// index of its own picks them (targetId its one GSI1 partition, then
// actorKeyId GSI2, then action GSI3, else the workspace's log; each of the
// last three in every shard, auditReadShards). It sends one Query to each
// at once, for at most limit + 1 entries (limit + 2 when the position is
// its key condition's inclusive end), whatever the size of the log; since,
// until and the position bound their sort keys. The filters left over when
// more than one is given are applied to the entries those Queries read, so
// such a page may hold fewer than limit entries, even none, and still have
// a next one: the work stays bounded by the page.
//
// The page is exact whatever each Query stops at: a partition read to its
// end has nothing older, and one that stopped (its limit, or DynamoDB's
// 1 MB) has nothing newer than where it stopped that it did not answer. So
// every entry down to the newest of those stops, the frontier, was read in
// every partition; the page is the newest limit of them, and the next page
// starts after its last entry, or after the frontier when it holds fewer.
// Queries read eventually consistent, as the one partition did.
func (s *Store) AuditPage(ctx context.Context, ws string, f workspace.AuditFilter, after string, limit int) (
	entries []workspace.AuditEntry, next string, err error) {
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return []workspace.AuditEntry{}, "", nil
	}
	var b auditBounds
	if !f.Since.IsZero() {
		b.lo = storedTime(f.Since)
	}
	if !f.Until.IsZero() {
		b.hi = storedTime(f.Until)
	}
	if after != "" {
		at, id, ok := parseAuditPosition(after)
		if !ok {
			return nil, "", workspace.Invalid("cursor is not a cursor this API returned")
		}
		if pos := auditPosition(at, id); b.hi == "" || pos < b.hi {
			b.hi, b.atPosition = pos, true
		}
	}
	if b.lo != "" && b.hi != "" && b.hi <= b.lo {
		return []workspace.AuditEntry{}, "", nil
	}
	parts := auditPartitions(ws, f)
	reads := make([]read, len(parts))
	got := make([]auditRead, len(parts))
	for i, p := range parts {
		in, err := auditQuery(p, f, b)
		if err != nil {
			return nil, "", err
		}
		in.TableName = aws.String(s.table)
		in.Limit = aws.Int32(int32(limit + 1))
		if b.atPosition && b.lo != "" {
			in.Limit = aws.Int32(int32(limit + 2))
		}
		reads[i] = func(ctx context.Context) error {
			out, err := s.db.Query(ctx, in)
			if err != nil {
				return fmt.Errorf("query audit log: %w", err)
			}
			got[i] = readAuditPartition(out, b)
			return nil
		}
	}
	if err := readAllUpTo(ctx, len(reads), reads...); err != nil {
		return nil, "", err
	}
	page, next := mergeAuditReads(got, limit)
	entries = make([]workspace.AuditEntry, 0, len(page))
	for _, raw := range page {
		var it auditItem
		if err := unmarshal(raw.item, &it); err != nil {
			return nil, "", err
		}
		entries = append(entries, it.domain())
	}
	return entries, next, nil
}

// auditBounds bound the sort keys a page reads: from lo (inclusive, since)
// to hi (exclusive: until, or the page's position when atPosition); ""
// leaves a side open.
type auditBounds struct {
	lo, hi     string
	atPosition bool
}

// auditPartition is one partition of the table or an index that a page
// reads.
type auditPartition struct {
	index, pkName, skName, pk string
}

// auditPartitions are the partitions f's entries live in: the index of its
// most selective filter, or the workspace's log without one; every shard
// of it but for a target, whose entries share one partition.
func auditPartitions(ws string, f workspace.AuditFilter) []auditPartition {
	if f.TargetID != "" {
		return []auditPartition{{IndexGSI1, attrGSI1PK, attrGSI1SK, auditTargetGSI1PK(ws, f.TargetID)}}
	}
	shards := auditReadShards()
	parts := make([]auditPartition, len(shards))
	for i, n := range shards {
		switch {
		case f.ActorKeyID != "":
			parts[i] = auditPartition{IndexGSI2, attrGSI2PK, attrGSI2SK, auditKeyGSI2PK(ws, n, f.ActorKeyID)}
		case f.Action != "":
			parts[i] = auditPartition{IndexGSI3, attrGSI3PK, attrGSI3SK, auditActionGSI3PK(ws, n, f.Action)}
		default:
			parts[i] = auditPartition{"", attrPK, attrSK, auditPK(ws, n)}
		}
	}
	return parts
}

// auditQuery is the Query of f's entries within b in partition p, newest
// first, with the filters its key condition does not apply.
func auditQuery(p auditPartition, f workspace.AuditFilter, b auditBounds) (*dynamodb.QueryInput, error) {
	sk := expression.Key(p.skName)
	cond := expression.Key(p.pkName).Equal(expression.Value(p.pk))
	switch {
	case b.lo != "" && b.hi != "":
		// Every sort key is "<at>#<id>", so BETWEEN since AND until holds
		// since's entries and none of until's: the range is half-open. A
		// position as the end is the one entry that can equal it, which
		// readAuditPartition leaves out.
		cond = cond.And(sk.Between(expression.Value(b.lo), expression.Value(b.hi)))
	case b.lo != "":
		cond = cond.And(sk.GreaterThanEqual(expression.Value(b.lo)))
	case b.hi != "":
		cond = cond.And(sk.LessThan(expression.Value(b.hi)))
	}
	eb := expression.NewBuilder().WithKeyCondition(cond)
	var filter expression.ConditionBuilder
	add := func(c expression.ConditionBuilder) {
		if filter.IsSet() {
			filter = filter.And(c)
		} else {
			filter = c
		}
	}
	if f.ActorKeyID != "" && p.index != IndexGSI2 {
		add(expression.Name(attrActorKeyID).Equal(expression.Value(f.ActorKeyID)))
	}
	if f.Action != "" && p.index != IndexGSI3 {
		add(expression.Name(attrAction).Equal(expression.Value(string(f.Action))))
	}
	if filter.IsSet() {
		eb = eb.WithFilter(filter)
	}
	e, err := build(eb)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{
		KeyConditionExpression: e.KeyCondition(), FilterExpression: e.Filter(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		ScanIndexForward: aws.Bool(false),
	}
	if p.index != "" {
		in.IndexName = aws.String(p.index)
	}
	return in, nil
}

// auditRead is what one partition's Query answered: its entries, by
// position, and where it stopped ("" when it read the partition to its
// end).
type auditRead struct {
	found   []auditFound
	stopped string
}

// auditFound is an entry as read, with its position (its sort key).
type auditFound struct {
	pos  string
	item item
}

// readAuditPartition keeps the entries of a Query's answer within b.
func readAuditPartition(out *dynamodb.QueryOutput, b auditBounds) auditRead {
	var r auditRead
	for _, raw := range out.Items {
		pos, _ := raw[attrSK].(*types.AttributeValueMemberS)
		if pos == nil || (b.atPosition && pos.Value == b.hi) {
			continue
		}
		r.found = append(r.found, auditFound{pos: pos.Value, item: raw})
	}
	// Every index's key names the table's key too, and an entry's SK is
	// its position in every index.
	if sk, ok := out.LastEvaluatedKey[attrSK].(*types.AttributeValueMemberS); ok {
		r.stopped = sk.Value
	}
	return r
}

// mergeAuditReads is the page the partitions' reads make, newest first: up
// to limit entries, all newer than the frontier (the newest place a
// partition stopped at, before which every partition was read), and the
// position of the next page: the page's last entry when entries were left
// over, the frontier when a partition stopped, "" at the end of the log.
func mergeAuditReads(reads []auditRead, limit int) (page []auditFound, next string) {
	frontier := ""
	for _, r := range reads {
		frontier = max(frontier, r.stopped)
	}
	for _, r := range reads {
		for _, e := range r.found {
			if e.pos >= frontier {
				page = append(page, e)
			}
		}
	}
	slices.SortFunc(page, func(a, b auditFound) int { return strings.Compare(b.pos, a.pos) })
	if len(page) > limit {
		page = page[:limit]
		return page, page[limit-1].pos
	}
	return page, frontier
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
