package dynamo

import (
	"context"
	"fmt"
	"time"

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
// workspace; one naming another workspace is an error. An invitation holds a
// seat when the snapshot says it does and it has not expired at now; the
// workspace's seatsUsed is its members plus the invitations holding a seat.
// Items already in the table and absent from the snapshot are left as they are.
func (s *Store) PutSnapshot(ctx context.Context, snap Snapshot, now time.Time) error {
	items, err := snapshotItems(snap, now)
	if err != nil {
		return err
	}
	raw := make([]item, 0, len(items))
	for _, it := range items {
		m, err := marshal(it)
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
	// Each member item carries its teams (keys.go), so a membership is
	// written twice: as its own item and in its member's teams map.
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
		items = append(items, toMemberItem(m), memberClaim(m))
		seats++
	}
	for _, t := range snap.Teams {
		if err := belongs("team", t.ID, t.WorkspaceID); err != nil {
			return nil, err
		}
		t.WorkspaceID = ws
		items = append(items, toTeamItem(t), toTeamNameItem(ws, t.Name, t.ID))
	}
	for _, tm := range snap.TeamMembers {
		if err := belongs("team membership", tm.TeamID+"/"+tm.UserID, tm.WorkspaceID); err != nil {
			return nil, err
		}
		tm.WorkspaceID = ws
		items = append(items, toTeamMemberItem(tm))
	}
	for _, a := range snap.Agents {
		if err := belongs("agent", a.ID, a.WorkspaceID); err != nil {
			return nil, err
		}
		a.WorkspaceID = ws
		items = append(items, toAgentItem(a))
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
		items = append(items, toInvitationItem(inv), inviteClaim(inv))
	}
	for _, k := range snap.APIKeys {
		if err := belongs("API key", k.ID, k.WorkspaceID); err != nil {
			return nil, err
		}
		k.WorkspaceID = ws
		items = append(items, toAPIKeyItem(k))
	}
	w := snap.Workspace
	w.SeatsUsed = seats
	items = append(items, toWorkspaceItem(w))
	return items, nil
}
