package tableops

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Snapshot is one workspace's whole state as the fixture gives it.
type Snapshot struct {
	Workspace   workspace.Workspace // SeatsUsed is computed by PutSnapshot, not taken from here
	Members     []workspace.Member
	Teams       []workspace.Team
	TeamMembers []workspace.TeamMembership
	Agents      []workspace.Agent
	Invitations []workspace.Invitation
	APIKeys     []workspace.APIKey
}

// PutSnapshot writes every item of the snapshot into store's table with
// BatchWriteItem, idempotently: the same snapshot at the same now yields the
// same items.
//
// Entities whose workspace id is empty are taken to belong to the snapshot's
// workspace; one naming another workspace is an error. An invitation holds a
// seat when the snapshot says it does and it has not expired at now; the
// workspace's seatsUsed is its members plus the invitations holding a seat,
// and its key count is the number of its API keys.
// Items already in the table and absent from the snapshot are left as they are.
//
// It writes over items unconditionally, counters included: for tests and
// benchmarks that build a fresh table, never for a table in use, which
// LoadSnapshots and CreateSnapshot write without ever overwriting an item.
func PutSnapshot(ctx context.Context, store *dynamo.Store, snap Snapshot, now time.Time) error {
	items, err := snapshotItems(snap, now)
	if err != nil {
		return err
	}
	return PutItems(ctx, store, items)
}

// snapshotItems encodes the items of a snapshot, the workspace item last.
func snapshotItems(snap Snapshot, now time.Time) ([]map[string]types.AttributeValue, error) {
	ws := snap.Workspace.ID
	if ws == "" {
		return nil, fmt.Errorf("snapshot: workspace id is empty")
	}
	belongs := func(kind, id, owner string) error {
		if owner != "" && owner != ws {
			return fmt.Errorf("snapshot of workspace %s: %s %s belongs to workspace %s", ws, kind, id, owner)
		}
		return nil
	}
	var entities []any
	seats := 0
	// Each member item carries its teams (shared/dynamo/keys.go), so a
	// membership is written twice: as its own item and in its member's
	// teams map.
	teamsOf := map[string][]workspace.MemberTeam{}
	for _, tm := range snap.TeamMembers {
		teamsOf[tm.UserID] = append(teamsOf[tm.UserID], workspace.MemberTeam{TeamID: tm.TeamID, Role: tm.Role})
	}
	for _, m := range snap.Members {
		if err := belongs("member", m.ID, m.WorkspaceID); err != nil {
			return nil, err
		}
		m.WorkspaceID = ws
		m.Teams = teamsOf[m.ID]
		entities = append(entities, m)
		seats++
	}
	for _, t := range snap.Teams {
		if err := belongs("team", t.ID, t.WorkspaceID); err != nil {
			return nil, err
		}
		t.WorkspaceID = ws
		entities = append(entities, t)
	}
	for _, tm := range snap.TeamMembers {
		if err := belongs("team membership", tm.TeamID+"/"+tm.UserID, tm.WorkspaceID); err != nil {
			return nil, err
		}
		tm.WorkspaceID = ws
		entities = append(entities, tm)
	}
	for _, a := range snap.Agents {
		if err := belongs("agent", a.ID, a.WorkspaceID); err != nil {
			return nil, err
		}
		a.WorkspaceID = ws
		entities = append(entities, a)
	}
	for _, inv := range snap.Invitations {
		if err := belongs("invitation", inv.ID, inv.WorkspaceID); err != nil {
			return nil, err
		}
		inv.WorkspaceID = ws
		inv.HoldsSeat = inv.HoldsSeat && !inv.Expired(now)
		if inv.HoldsSeat {
			seats++
		}
		entities = append(entities, inv)
	}
	for _, k := range snap.APIKeys {
		if err := belongs("API key", k.ID, k.WorkspaceID); err != nil {
			return nil, err
		}
		k.WorkspaceID = ws
		entities = append(entities, k)
	}
	// Every key gets a reference, and the count is theirs (shared/dynamo/keys.go).
	entities = append(entities, dynamo.KeyCount{WorkspaceID: ws, Count: len(snap.APIKeys)})
	w := snap.Workspace
	w.SeatsUsed = seats
	var items []map[string]types.AttributeValue
	for _, e := range append(entities, w) {
		its, err := dynamo.EntityItems(e)
		if err != nil {
			return nil, err
		}
		items = append(items, its...)
	}
	return items, nil
}

// maxBatchWrite is BatchWriteItem's limit of requests per call.
const maxBatchWrite = 25

// maxUnprocessedRetries bounds the retries of items DynamoDB left
// unprocessed.
const maxUnprocessedRetries = 8

// PutItems writes items into store's table with BatchWriteItem, 25 a call,
// retrying unprocessed ones: for loading state in bulk, never a request path.
func PutItems(ctx context.Context, store *dynamo.Store, items []map[string]types.AttributeValue) error {
	for start := 0; start < len(items); start += maxBatchWrite {
		var reqs []types.WriteRequest
		for _, item := range items[start:min(start+maxBatchWrite, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		}
		pending := map[string][]types.WriteRequest{store.Table(): reqs}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > maxUnprocessedRetries {
				return errors.New("batch write: items still unprocessed after retries")
			}
			if attempt > 0 {
				pause(ctx, attempt)
			}
			out, err := store.Client().BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				return fmt.Errorf("batch write: %w", err)
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

// pause sleeps an exponentially growing, jittered time before retry attempt n.
func pause(ctx context.Context, attempt int) {
	d := time.Duration(1<<min(attempt, 6)) * 5 * time.Millisecond
	t := time.NewTimer(d/2 + rand.N(d/2+1))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// ScanItems returns every item of store's table, ordered by PK and then SK.
// It reads the whole table: for tests and operators' checks, never a request
// path.
func ScanItems(ctx context.Context, store *dynamo.Store) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(store.Client(), &dynamodb.ScanInput{TableName: aws.String(store.Table()), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		items = append(items, page.Items...)
	}
	slices.SortFunc(items, func(a, b map[string]types.AttributeValue) int {
		return cmp.Or(strings.Compare(keyOf(a, attrPK), keyOf(b, attrPK)), strings.Compare(keyOf(a, attrSK), keyOf(b, attrSK)))
	})
	return items, nil
}

// keyOf returns an item's string key attribute attr.
func keyOf(item map[string]types.AttributeValue, attr string) string {
	s, _ := item[attr].(*types.AttributeValueMemberS)
	if s == nil {
		return ""
	}
	return s.Value
}

// WorkspaceItems returns the items of store's table in workspace ws's own
// partition (PK WS#<ws>) whose entity is one of entities, ordered by sort
// key. It scans the whole table (ScanItems): for tests, never a request path.
func WorkspaceItems(ctx context.Context, store *dynamo.Store, ws string, entities ...string) ([]map[string]types.AttributeValue, error) {
	all, err := ScanItems(ctx, store)
	if err != nil {
		return nil, err
	}
	var out []map[string]types.AttributeValue
	for _, it := range all {
		if keyOf(it, attrPK) == "WS#"+ws && slices.Contains(entities, keyOf(it, attrEntity)) {
			out = append(out, it)
		}
	}
	return out, nil
}
