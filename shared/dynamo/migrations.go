package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file holds the migration steps' progress (one item per step in the
// MIGRATION partition, keys.go) and the pass over the table's workspaces
// that the steps share. The backfills themselves live with the entities
// they write: BackfillKeyReferences (apikeys.go), BackfillUsageListings
// (usageexport.go), RekeyTeamNameClaims (teams.go).

const (
	pkMigration     = "MIGRATION"
	typeMigration   = "migration"
	attrOwner       = "owner"
	attrLeaseUntil  = "leaseUntil"
	attrStep        = "step"
	attrStartedAt   = "startedAt"
	attrFinishedAt  = "finishedAt"
	attrLastError   = "lastError"
	attrSegments    = "segments"
	attrWorkspaces  = "workspaces"
	attrChanged     = "changed"
	attrConflicts   = "conflicts"
	prefixMigration = "STEP#"
	// segmentAttrPrefix names a segment's place: s0, s1, ...
	segmentAttrPrefix = "s"
)

func migrationSK(step int) string { return fmt.Sprintf("%s%03d", prefixMigration, step) }
func segmentAttr(i int) string    { return fmt.Sprintf("%s%d", segmentAttrPrefix, i) }

// segmentAttrs is a segment's place as stored.
type segmentAttrs struct {
	Page  string `dynamodbav:"page"`
	After string `dynamodbav:"after"`
	Done  bool   `dynamodbav:"done"`
}

// migrationItem is a step's progress. Its segments' places are the
// attributes s0 .. s<segments-1>, each written by its segment's pass alone.
type migrationItem struct {
	keys
	Step       int    `dynamodbav:"step"`
	Name       string `dynamodbav:"name"`
	Status     string `dynamodbav:"status"`
	Segments   int    `dynamodbav:"segments"`
	Workspaces int64  `dynamodbav:"workspaces"`
	Changed    int64  `dynamodbav:"changed"`
	Conflicts  int64  `dynamodbav:"conflicts"`
	Owner      string `dynamodbav:"owner"`
	LeaseUntil string `dynamodbav:"leaseUntil"`
	StartedAt  string `dynamodbav:"startedAt"`
	FinishedAt string `dynamodbav:"finishedAt"`
	LastError  string `dynamodbav:"lastError"`
}

// loadMigration decodes a step's progress item, segments included.
func loadMigration(raw item) (workspace.MigrationProgress, error) {
	var it migrationItem
	if err := unmarshal(raw, &it); err != nil {
		return workspace.MigrationProgress{}, err
	}
	p := workspace.MigrationProgress{
		Step: it.Step, Name: it.Name, Status: workspace.MigrationStatus(it.Status),
		Workspaces: it.Workspaces, Changed: it.Changed, Conflicts: it.Conflicts, Owner: it.Owner, LastError: it.LastError,
		Segments: make([]workspace.MigrationSegment, it.Segments),
	}
	for _, t := range []struct {
		s   string
		dst *time.Time
	}{{it.LeaseUntil, &p.LeaseUntil}, {it.StartedAt, &p.StartedAt}, {it.FinishedAt, &p.FinishedAt}} {
		if t.s != "" {
			*t.dst = loadedTime(t.s)
		}
	}
	for i := range p.Segments {
		var s segmentAttrs
		if m, ok := raw[segmentAttr(i)].(*types.AttributeValueMemberM); ok {
			if err := unmarshal(m.Value, &s); err != nil {
				return workspace.MigrationProgress{}, err
			}
		}
		p.Segments[i] = workspace.MigrationSegment{Page: s.Page, After: s.After, Done: s.Done}
	}
	if p.Status == "" {
		p.Status = workspace.MigrationPending
	}
	return p, nil
}

// MigrationStates returns the recorded progress of every migration step that
// a run has started, in step order: one strongly consistent Query.
func (s *Store) MigrationStates(ctx context.Context) ([]workspace.MigrationProgress, error) {
	e, err := build(expression.NewBuilder().WithKeyCondition(prefixed(pkMigration, prefixMigration)))
	if err != nil {
		return nil, err
	}
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(s.table), KeyConditionExpression: e.KeyCondition(), ConsistentRead: aws.Bool(true),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	})
	if err != nil {
		return nil, fmt.Errorf("query migration steps: %w", err)
	}
	states := make([]workspace.MigrationProgress, 0, len(out.Items))
	for _, raw := range out.Items {
		p, err := loadMigration(raw)
		if err != nil {
			return nil, err
		}
		states = append(states, p)
	}
	return states, nil
}

// ClaimMigration makes owner the holder of step (named name) until until and
// returns its progress: one UpdateItem, conditioned on the step not being
// done and on no other run holding an unexpired lease. A step first claimed
// records segments, the number of segments its pass uses. It returns the
// progress with status done when the step is done already, and
// workspace.ErrMigrationClaimed when another run holds it.
func (s *Store) ClaimMigration(ctx context.Context, step int, name string, segments int, owner string, now, until time.Time) (workspace.MigrationProgress, error) {
	upd := expression.Set(expression.Name(attrEntity), expression.Value(typeMigration)).
		Set(expression.Name(attrStep), expression.Value(step)).
		Set(expression.Name(attrName), expression.Value(name)).
		Set(expression.Name(attrStatus), expression.Value(string(workspace.MigrationRunning))).
		Set(expression.Name(attrOwner), expression.Value(owner)).
		Set(expression.Name(attrLeaseUntil), expression.Value(storedTime(until))).
		Set(expression.Name(attrStartedAt), expression.IfNotExists(expression.Name(attrStartedAt), expression.Value(storedTime(now)))).
		Set(expression.Name(attrSegments), expression.IfNotExists(expression.Name(attrSegments), expression.Value(segments)))
	free := expression.Or(expression.AttributeNotExists(expression.Name(attrOwner)),
		expression.Name(attrLeaseUntil).LessThan(expression.Value(storedTime(now))),
		expression.Name(attrOwner).Equal(expression.Value(owner)))
	notDone := expression.Or(expression.AttributeNotExists(expression.Name(attrStatus)),
		expression.Name(attrStatus).NotEqual(expression.Value(string(workspace.MigrationDone))))
	e, err := build(expression.NewBuilder().WithUpdate(upd).WithCondition(free.And(notDone)))
	if err != nil {
		return workspace.MigrationProgress{}, err
	}
	out, err := s.db.UpdateItem(ctx, withAllValues(s.conditionalUpdate(key(pkMigration, migrationSK(step)), e)))
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		p, err := loadMigration(failed.Item)
		if err != nil {
			return workspace.MigrationProgress{}, err
		}
		if p.Status == workspace.MigrationDone {
			return p, nil
		}
		return p, workspace.ErrMigrationClaimed
	case err != nil:
		return workspace.MigrationProgress{}, fmt.Errorf("claim migration step %d: %w", step, err)
	}
	return loadMigration(out.Attributes)
}

// SaveMigrationSegment records segment seg's new place in step's pass and
// adds counts to the step's, renewing owner's lease until until: one
// UpdateItem conditioned on owner still holding the step
// (workspace.ErrMigrationClaimed when it does not). Each segment writes its
// own attribute, so the segments' passes never overwrite one another.
func (s *Store) SaveMigrationSegment(ctx context.Context, step int, owner string, seg int, at workspace.MigrationSegment,
	counts workspace.MigrationCounts, until time.Time) error {
	upd := expression.Set(expression.Name(segmentAttr(seg)), expression.Value(segmentAttrs{Page: at.Page, After: at.After, Done: at.Done})).
		Set(expression.Name(attrLeaseUntil), expression.Value(storedTime(until))).
		Add(expression.Name(attrWorkspaces), expression.Value(counts.Workspaces)).
		Add(expression.Name(attrChanged), expression.Value(counts.Changed)).
		Add(expression.Name(attrConflicts), expression.Value(len(counts.Conflicts)))
	return s.updateMigration(ctx, step, owner, upd)
}

// EndMigration releases owner's hold on step and records status: done (with
// its finishing time), failed (with lastError) or running (a run that
// stopped at its time bound). One UpdateItem conditioned on owner holding
// the step.
func (s *Store) EndMigration(ctx context.Context, step int, owner string, status workspace.MigrationStatus, lastError string, now time.Time) error {
	upd := expression.Set(expression.Name(attrStatus), expression.Value(string(status))).
		Remove(expression.Name(attrOwner)).Remove(expression.Name(attrLeaseUntil))
	switch status {
	case workspace.MigrationDone:
		upd = upd.Set(expression.Name(attrFinishedAt), expression.Value(storedTime(now))).Remove(expression.Name(attrLastError))
	case workspace.MigrationFailed:
		upd = upd.Set(expression.Name(attrLastError), expression.Value(lastError))
	}
	return s.updateMigration(ctx, step, owner, upd)
}

func (s *Store) updateMigration(ctx context.Context, step int, owner string, upd expression.UpdateBuilder) error {
	e, err := build(expression.NewBuilder().WithUpdate(upd).WithCondition(expression.Name(attrOwner).Equal(expression.Value(owner))))
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, s.conditionalUpdate(key(pkMigration, migrationSK(step)), e))
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		return workspace.ErrMigrationClaimed
	case err != nil:
		return fmt.Errorf("record migration step %d: %w", step, err)
	}
	return nil
}

// WorkspacePage reads one page of segment seg (of total) of the table's
// workspace items, from page ("" for the segment's beginning), and returns
// their ids in the page's order and where the next page starts ("" after
// the last). It is a Scan: the table has no index of its workspaces, and
// every workspace's partition lies apart, so going through all of them
// reads the table once, in pages of at most queryPageItems items. Only the
// migrations call it, never a request.
func (s *Store) WorkspacePage(ctx context.Context, seg, total int, page string) (ids []string, next string, err error) {
	e, err := build(expression.NewBuilder().
		WithFilter(expression.Name(attrSK).Equal(expression.Value(skMeta)).
			And(expression.Name(attrEntity).Equal(expression.Value(typeWorkspace)))).
		WithProjection(expression.NamesList(expression.Name(attrID))))
	if err != nil {
		return nil, "", err
	}
	in := &dynamodb.ScanInput{
		TableName: aws.String(s.table), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(int32(total)),
		FilterExpression: e.Filter(), ProjectionExpression: e.Projection(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		Limit: aws.Int32(queryPageItems),
	}
	if page != "" {
		if in.ExclusiveStartKey, err = decodeScanPosition(page); err != nil {
			return nil, "", err
		}
	}
	out, err := s.db.Scan(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("scan workspaces: %w", err)
	}
	for _, raw := range out.Items {
		var w struct {
			ID string `dynamodbav:"id"`
		}
		if err := unmarshal(raw, &w); err != nil {
			return nil, "", err
		}
		ids = append(ids, w.ID)
	}
	if out.LastEvaluatedKey != nil {
		if next, err = encodeScanPosition(out.LastEvaluatedKey); err != nil {
			return nil, "", err
		}
	}
	return ids, next, nil
}

// encodeScanPosition writes a Scan's LastEvaluatedKey (the table's PK and
// SK) as an opaque string; decodeScanPosition reads it back.
func encodeScanPosition(k item) (string, error) {
	var pos struct {
		PK string `dynamodbav:"PK"`
		SK string `dynamodbav:"SK"`
	}
	if err := unmarshal(k, &pos); err != nil {
		return "", err
	}
	b, err := json.Marshal([2]string{pos.PK, pos.SK})
	return string(b), err
}

func decodeScanPosition(s string) (item, error) {
	var pos [2]string
	if err := json.Unmarshal([]byte(s), &pos); err != nil {
		return nil, fmt.Errorf("migration scan position: %w", err)
	}
	return key(pos[0], pos[1]), nil
}
