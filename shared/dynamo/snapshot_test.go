package dynamo

import (
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestSnapshotItems(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	snap := Snapshot{
		Workspace:   workspace.Workspace{ID: "ws1", Name: "W", Seats: 5, SeatsUsed: 99},
		Members:     []workspace.Member{{ID: "u1", Email: "One@a.example", Role: workspace.RoleAdmin}},
		Teams:       []workspace.Team{{ID: "t1", Name: "T"}},
		TeamMembers: []workspace.TeamMembership{{TeamID: "t1", UserID: "u1", Role: workspace.TeamRoleGuest}},
		Agents: []workspace.Agent{
			{ID: "a1", TeamID: "t1", AgentDiscoverability: "team"},
			{ID: "a2", AgentDiscoverability: "none", PromotionRequests: []workspace.PromotionRequest{
				{ID: "p1", RequestedAt: time.Date(2026, 1, 2, 5, 0, 0, 0, time.FixedZone("x", 2*3600))},
			}},
		},
		Invitations: []workspace.Invitation{
			{ID: "i1", Email: "p@a.example", HoldsSeat: true, CreatedAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.FixedZone("x", 2*3600)),
				ExpiresAt: time.Date(2027, 7, 1, 0, 0, 0, 0, time.UTC), RemoveAt: time.Date(2027, 12, 28, 0, 0, 0, 0, time.UTC)},
			{ID: "i2", Email: "e@a.example", CreatedAt: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), ExpiresAt: time.Date(2026, 10, 8, 0, 0, 0, 0, time.UTC)},
			{ID: "i3", Email: "late@a.example", HoldsSeat: true, CreatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), ExpiresAt: now},
		},
		APIKeys: []workspace.APIKey{{ID: "key_1", Hash: "abc", UserID: "u1", Scopes: []workspace.Scope{"read"}}},
	}
	items, err := snapshotItems(snap, now)
	if err != nil {
		t.Fatal(err)
	}
	// 2 per member, team (its name claim) and invitation, 1 per membership, agent and key, and the workspace.
	if len(items) != 2+2+1+2+6+1+1 {
		t.Fatalf("%d items", len(items))
	}
	for _, it := range items {
		switch it := it.(type) {
		case memberItem:
			if it.Teams["t1"] != "guest" || len(it.Teams) != 1 {
				t.Errorf("member u1's teams = %v, want its membership mirrored (t1: guest)", it.Teams)
			}
		case teamNameItem:
			if it.SK != "TEAMNAME#t" || it.TeamID != "t1" {
				t.Errorf("team name claim = %+v, want TEAMNAME#t for t1", it)
			}
		case workspaceItem:
			if it.SeatsUsed != 2 { // the member and i1; i3 expired at now exactly
				t.Errorf("seatsUsed = %d, want 2", it.SeatsUsed)
			}
		case invitationItem:
			if it.ID == "i1" && (it.CreatedAt != "2026-11-20T08:00:00.000Z" || it.ExpiresAt != "2027-07-01T00:00:00.000Z" || !it.HoldsSeat ||
				it.TTL != time.Date(2027, 12, 28, 0, 0, 0, 0, time.UTC).Unix()) {
				t.Errorf("i1 = %+v", it)
			}
			if it.ID == "i1" && (it.GSI1PK != "WS#ws1#SEATS" || it.GSI1SK != "2027-07-01T00:00:00.000Z#i1") {
				t.Errorf("i1 is not in the seat index: %+v", it)
			}
			if it.ID != "i1" && (it.HoldsSeat || it.GSI1PK != "") {
				t.Errorf("%s holds a seat", it.ID)
			}
			if it.WorkspaceID != "ws1" {
				t.Errorf("%s workspaceId = %q", it.ID, it.WorkspaceID)
			}
		case claimItem:
			if it.SK == "EMAIL#one@a.example" && it.UserID != "u1" {
				t.Errorf("member claim = %+v", it)
			}
		case teamMemberItem:
			if it.PK != "WS#ws1" || it.SK != "TEAMMEMBER#t1#u1" || it.GSI1PK != "WS#ws1#USER#u1" || it.GSI1SK != "TEAM#t1" || it.Entity != typeTeamMember {
				t.Errorf("membership = %+v", it)
			}
		case agentItem:
			if it.ID == "a1" && (it.GSI1PK != "WS#ws1#TEAM#t1" || it.GSI1SK != "AGENT#a1") {
				t.Errorf("a1 = %+v", it)
			}
			if it.ID == "a2" && (it.GSI1PK != "" || it.GSI1SK != "" || it.PromotionRequests[0].RequestedAt != "2026-01-02T03:00:00.000Z") {
				t.Errorf("a2 = %+v", it)
			}
			if it.Tags == nil || it.Connections == nil || it.KeyMetrics == nil || it.PromotionRequests == nil {
				t.Errorf("agent %s has nil lists", it.ID)
			}
		case apiKeyItem:
			if it.WorkspaceID != "ws1" || it.GSI1PK != "WS#ws1#KEYS" {
				t.Errorf("key = %+v", it)
			}
		}
	}

	bad := snap
	bad.Agents = []workspace.Agent{{ID: "a9", WorkspaceID: "ws2"}}
	if _, err := snapshotItems(bad, now); err == nil || !strings.Contains(err.Error(), "agent a9 belongs to workspace ws2") {
		t.Errorf("foreign agent: err = %v", err)
	}
	if _, err := snapshotItems(Snapshot{}, now); err == nil {
		t.Error("a snapshot without a workspace id was accepted")
	}
}
