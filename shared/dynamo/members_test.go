package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// A team's page whose memberships all belong to members who left does not
// end the listing: the next members are still reached.
func TestATeamMemberPageOfLeaversDoesNotEndTheListing(t *testing.T) {
	t.Parallel()
	store, _ := dynamolocal.NewStore(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	err := tableops.PutSnapshot(context.Background(), store, tableops.Snapshot{
		Workspace: workspace.Workspace{ID: "ws1", Name: "W", Seats: 5, TeamSettingsEnabled: true},
		Members:   []workspace.Member{{ID: "u3", Email: "u3@a.example", Role: workspace.RoleMember, JoinedAt: now}},
		Teams:     []workspace.Team{{ID: "t1", Name: "T"}},
		TeamMembers: []workspace.TeamMembership{
			{TeamID: "t1", UserID: "u1", Role: workspace.TeamRoleMember}, // u1 and u2 left the workspace
			{TeamID: "t1", UserID: "u2", Role: workspace.TeamRoleMember},
			{TeamID: "t1", UserID: "u3", Role: workspace.TeamRoleMember},
		},
	}, now)
	if err != nil {
		t.Fatal(err)
	}
	members, more, err := store.MemberPage(context.Background(), "ws1", "t1", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 1 || members[0].ID != "u3" || more {
		t.Errorf("page = %v (more %v), want [u3] and no more", members, more)
	}
}
