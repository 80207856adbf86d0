package dynamo

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

// PutSnapshot writes every item of the snapshot with BatchWriteItem,
// idempotently: the same snapshot at the same now yields the same items.
//
// Entities whose workspace id is empty are taken to belong to the snapshot's
// workspace; one naming another workspace is an error, as is an invitation
// timestamp that is not RFC 3339. Every timestamp is stored in
// workspace.TimeFormat. An invitation holds a seat when its status is pending
// and it has not expired at now; the workspace's seatsUsed is its members plus
// the invitations holding a seat. Items already in the table and absent from
// the snapshot are left as they are.
func (s *Store) PutSnapshot(ctx context.Context, snap Snapshot, now time.Time) error {
	items, err := snapshotItems(snap, now)
	if err != nil {
		return err
	}
	raw := make([]map[string]types.AttributeValue, 0, len(items))
	for _, item := range items {
		m, err := marshal(item)
		if err != nil {
			return err
		}
		raw = append(raw, m)
	}
	return s.putAll(ctx, raw)
}

// snapshotItems builds the items of a snapshot, the workspace item last.
func snapshotItems(snap Snapshot, now time.Time) ([]any, error) {
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
	var items []any
	seats := 0
	for _, m := range snap.Members {
		if err := belongs("member", m.ID, m.WorkspaceID); err != nil {
			return nil, err
		}
		m.WorkspaceID = ws
		items = append(items, newMemberItem(m), memberClaim(m))
		seats++
	}
	for _, t := range snap.Teams {
		if err := belongs("team", t.ID, t.WorkspaceID); err != nil {
			return nil, err
		}
		t.WorkspaceID = ws
		items = append(items, newTeamItem(t))
	}
	for _, tm := range snap.TeamMembers {
		if err := belongs("team membership", tm.TeamID+"/"+tm.UserID, tm.WorkspaceID); err != nil {
			return nil, err
		}
		tm.WorkspaceID = ws
		items = append(items, newTeamMemberItem(tm))
	}
	for _, a := range snap.Agents {
		if err := belongs("agent", a.ID, a.WorkspaceID); err != nil {
			return nil, err
		}
		a.WorkspaceID = ws
		items = append(items, newAgentItem(a))
	}
	for _, inv := range snap.Invitations {
		if err := belongs("invitation", inv.ID, inv.CustomerID); err != nil {
			return nil, err
		}
		inv.CustomerID = ws
		created, err := time.Parse(time.RFC3339Nano, inv.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("snapshot: invitation %s: createdAt is not an RFC 3339 timestamp", inv.ID)
		}
		expires, err := time.Parse(time.RFC3339Nano, inv.ExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("snapshot: invitation %s: expiresAt is not an RFC 3339 timestamp", inv.ID)
		}
		inv.CreatedAt, inv.ExpiresAt = workspace.FormatTime(created), workspace.FormatTime(expires)
		inv.HoldsSeat = inv.Status == workspace.InviteStatusPending && !inv.Expired(now)
		if inv.HoldsSeat {
			seats++
		}
		items = append(items, newInvitationItem(inv), inviteClaim(inv))
	}
	for _, k := range snap.APIKeys {
		if err := belongs("API key", k.ID, k.WorkspaceID); err != nil {
			return nil, err
		}
		k.WorkspaceID = ws
		items = append(items, newAPIKeyItem(k))
	}
	w := snap.Workspace
	w.SeatsUsed = seats
	items = append(items, newWorkspaceItem(w))
	return items, nil
}

// teamItem is a team; its memberships are separate items.
type teamItem struct {
	keys
	ID                 string   `json:"id"`
	WorkspaceID        string   `json:"workspaceId"`
	Name               string   `json:"name"`
	MonthlyCreditLimit *float64 `json:"monthlyCreditLimit"`
	Tags               []string `json:"tags"`
	CreatedAt          string   `json:"createdAt"`
}

func newTeamItem(t workspace.Team) teamItem {
	return teamItem{
		keys: keys{PK: wsPK(t.WorkspaceID), SK: teamSK(t.ID), Entity: typeTeam},
		ID:   t.ID, WorkspaceID: t.WorkspaceID, Name: t.Name,
		MonthlyCreditLimit: t.MonthlyCreditLimit, Tags: listOrEmpty(t.Tags),
		CreatedAt: workspace.FormatTime(t.CreatedAt),
	}
}

func (i teamItem) domain() workspace.Team {
	created, _ := time.Parse(time.RFC3339Nano, i.CreatedAt)
	return workspace.Team{
		ID: i.ID, WorkspaceID: i.WorkspaceID, Name: i.Name,
		MonthlyCreditLimit: i.MonthlyCreditLimit, Tags: listOrEmpty(i.Tags), CreatedAt: created,
	}
}

// teamMemberItem is one member's role in one team. GSI1 lists a user's teams.
type teamMemberItem struct {
	keys
	WorkspaceID string `json:"workspaceId"`
	TeamID      string `json:"teamId"`
	UserID      string `json:"userId"`
	Role        string `json:"role"`
}

func newTeamMemberItem(tm workspace.TeamMembership) teamMemberItem {
	return teamMemberItem{
		keys: keys{
			PK: wsPK(tm.WorkspaceID), SK: teamMemberSK(tm.TeamID, tm.UserID),
			GSI1PK: userGSI1PK(tm.WorkspaceID, tm.UserID), GSI1SK: teamSK(tm.TeamID),
			Entity: typeTeamMember,
		},
		WorkspaceID: tm.WorkspaceID, TeamID: tm.TeamID, UserID: tm.UserID, Role: string(tm.Role),
	}
}

// agentItem is an agent. GSI1 lists a team's agents; an agent without a team
// has no GSI1 keys.
type agentItem struct {
	keys
	ID                        string                 `json:"id"`
	WorkspaceID               string                 `json:"workspaceId"`
	Name                      string                 `json:"name"`
	Description               string                 `json:"description"`
	ImageURL                  string                 `json:"imageUrl"`
	TeamID                    string                 `json:"teamId,omitempty"`
	IsPrivate                 bool                   `json:"isPrivate"`
	AgentDiscoverability      string                 `json:"agentDiscoverability"`
	Tags                      []string               `json:"tags"`
	DailyCreditLimit          *float64               `json:"dailyCreditLimit"`
	MonthlyCreditLimit        *float64               `json:"monthlyCreditLimit"`
	ShowTokenOptimisationInfo bool                   `json:"showTokenOptimisationInfo"`
	KeyMetrics                []keyMetricAttr        `json:"keyMetrics"`
	Connections               []string               `json:"connections"`
	PromotionRequests         []promotionRequestAttr `json:"promotionRequests"`
}

// keyMetricAttr is one key metric definition inside an agent item.
type keyMetricAttr struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Measurement measurementAttr `json:"measurement"`
}

// measurementAttr is a key metric's measurement inside an agent item.
type measurementAttr struct {
	Unit        string `json:"unit"`
	Aggregation string `json:"aggregation"`
}

// promotionRequestAttr is one promotion request inside an agent item.
type promotionRequestAttr struct {
	ID                string `json:"id"`
	RequestedByUserID string `json:"requestedByUserId"`
	RequestedAt       string `json:"requestedAt"`
	Status            string `json:"status"`
	Note              string `json:"note"`
}

func newAgentItem(a workspace.Agent) agentItem {
	item := agentItem{
		keys: keys{PK: wsPK(a.WorkspaceID), SK: agentSK(a.ID), Entity: typeAgent},
		ID:   a.ID, WorkspaceID: a.WorkspaceID, Name: a.Name, Description: a.Description,
		ImageURL: a.ImageURL, TeamID: a.TeamID, IsPrivate: a.IsPrivate,
		AgentDiscoverability: a.AgentDiscoverability, Tags: listOrEmpty(a.Tags),
		DailyCreditLimit: a.DailyCreditLimit, MonthlyCreditLimit: a.MonthlyCreditLimit,
		ShowTokenOptimisationInfo: a.ShowTokenOptimisationInfo,
		KeyMetrics:                []keyMetricAttr{}, Connections: listOrEmpty(a.Connections),
		PromotionRequests: []promotionRequestAttr{},
	}
	if a.TeamID != "" {
		item.GSI1PK, item.GSI1SK = teamGSI1PK(a.WorkspaceID, a.TeamID), agentSK(a.ID)
	}
	for _, m := range a.KeyMetrics {
		item.KeyMetrics = append(item.KeyMetrics, keyMetricAttr{
			Name: m.Name, Description: m.Description,
			Measurement: measurementAttr{Unit: m.Measurement.Unit, Aggregation: m.Measurement.Aggregation},
		})
	}
	for _, p := range a.PromotionRequests {
		item.PromotionRequests = append(item.PromotionRequests, promotionRequestAttr{
			ID: p.ID, RequestedByUserID: p.RequestedByUserID, RequestedAt: workspace.FormatTime(p.RequestedAt),
			Status: p.Status, Note: p.Note,
		})
	}
	return item
}

func (i agentItem) domain() workspace.Agent {
	a := workspace.Agent{
		ID: i.ID, WorkspaceID: i.WorkspaceID, Name: i.Name, Description: i.Description,
		ImageURL: i.ImageURL, TeamID: i.TeamID, IsPrivate: i.IsPrivate,
		AgentDiscoverability: i.AgentDiscoverability, Tags: listOrEmpty(i.Tags),
		DailyCreditLimit: i.DailyCreditLimit, MonthlyCreditLimit: i.MonthlyCreditLimit,
		ShowTokenOptimisationInfo: i.ShowTokenOptimisationInfo,
		KeyMetrics:                []workspace.KeyMetricDefinition{}, Connections: listOrEmpty(i.Connections),
		PromotionRequests: []workspace.PromotionRequest{},
	}
	for _, m := range i.KeyMetrics {
		a.KeyMetrics = append(a.KeyMetrics, workspace.KeyMetricDefinition{
			Name: m.Name, Description: m.Description,
			Measurement: workspace.Measurement{Unit: m.Measurement.Unit, Aggregation: m.Measurement.Aggregation},
		})
	}
	for _, p := range i.PromotionRequests {
		at, _ := time.Parse(time.RFC3339Nano, p.RequestedAt)
		a.PromotionRequests = append(a.PromotionRequests, workspace.PromotionRequest{
			ID: p.ID, RequestedByUserID: p.RequestedByUserID, RequestedAt: at, Status: p.Status, Note: p.Note,
		})
	}
	return a
}

// listOrEmpty returns s, or an empty list when s is nil, so lists are stored as
// empty lists rather than NULL.
func listOrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// getWorkspaceItem reads one item of workspace ws with a strongly consistent GetItem;
// it returns a KindNotFound error naming what when there is none.
func (s *Store) getWorkspaceItem(ctx context.Context, ws, sk, what string, v any) error {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: key(wsPK(ws), sk), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("get %s: %w", what, err)
	}
	if out.Item == nil {
		return workspace.NotFound("%s not found", what)
	}
	return unmarshal(out.Item, v)
}

// Workspace returns workspace ws, or a KindNotFound error when it does not
// exist. One GetItem.
func (s *Store) Workspace(ctx context.Context, ws string) (workspace.Workspace, error) {
	var item workspaceItem
	if err := s.getWorkspaceItem(ctx, ws, skMeta, "workspace", &item); err != nil {
		return workspace.Workspace{}, err
	}
	return item.domain(), nil
}

// Team returns team teamID of workspace ws, or a KindNotFound error when the
// workspace has no such team. One GetItem.
func (s *Store) Team(ctx context.Context, ws, teamID string) (workspace.Team, error) {
	var item teamItem
	if err := s.getWorkspaceItem(ctx, ws, teamSK(teamID), "team", &item); err != nil {
		return workspace.Team{}, err
	}
	t := item.domain()
	t.WorkspaceID = ws
	return t, nil
}

// Agent returns agent agentID of workspace ws, or a KindNotFound error when
// the workspace has no such agent. One GetItem.
func (s *Store) Agent(ctx context.Context, ws, agentID string) (workspace.Agent, error) {
	var item agentItem
	if err := s.getWorkspaceItem(ctx, ws, agentSK(agentID), "agent", &item); err != nil {
		return workspace.Agent{}, err
	}
	a := item.domain()
	a.WorkspaceID = ws
	return a, nil
}

// ScanItems returns every item of the table, ordered by PK and then SK. It
// reads the whole table: for tests and operators' checks, never a request path.
func (s *Store) ScanItems(ctx context.Context) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{TableName: aws.String(s.table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		items = append(items, page.Items...)
	}
	sort.Slice(items, func(i, j int) bool {
		a, b := itemKey(items[i]), itemKey(items[j])
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		return a[1] < b[1]
	})
	return items, nil
}
