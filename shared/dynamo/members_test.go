package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
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

// A team admin who is not a workspace admin changes a team only while they
// stay its admin: a demotion that lands between the handler's read of their
// role and the change's write fails the write (403), whatever it changes:
// a rename, a membership, the team's credit limit.
func TestATeamAdminDemotedBeforeTheWriteChangesNothing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	lead := workspace.KeyActor(workspace.Caller{KeyID: "key_lead", UserID: "lead"}, "req-1")
	admin := workspace.KeyActor(workspace.Caller{KeyID: "key_admin", UserID: "boss"}, "req-2")
	for _, tc := range []struct {
		name    string
		demote  bool
		write   func(ctx context.Context, s *dynamo.Store) error
		wantErr error
	}{
		{"a rename by an admin of the team", false, func(ctx context.Context, s *dynamo.Store) error {
			return s.RenameTeam(ctx, lead, true, "ws1", "t1", "Renamed", now)
		}, nil},
		{"a rename by an admin demoted meanwhile", true, func(ctx context.Context, s *dynamo.Store) error {
			return s.RenameTeam(ctx, lead, true, "ws1", "t1", "Renamed", now)
		}, workspace.ErrChangeTeamForbidden},
		{"a membership change by an admin demoted meanwhile", true, func(ctx context.Context, s *dynamo.Store) error {
			return s.PutTeamMember(ctx, lead, true, workspace.TeamMembership{WorkspaceID: "ws1", TeamID: "t1", UserID: "u3", Role: workspace.TeamRoleAdmin}, now)
		}, workspace.ErrChangeTeamForbidden},
		{"a team credit limit by an admin demoted meanwhile", true, func(ctx context.Context, s *dynamo.Store) error {
			_, err := s.SetTeamLimit(ctx, lead, true, "ws1", "t1", lim(100), now)
			return err
		}, workspace.ErrChangeTeamForbidden},
		{"leaving the team after being demoted meanwhile", true, func(ctx context.Context, s *dynamo.Store) error {
			return s.DeleteTeamMember(ctx, lead, true, "ws1", "t1", "lead", now)
		}, workspace.ErrChangeTeamForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			gap := &dynamolocal.Interleaver{}
			client := dynamolocal.NewClient(t, nil, gap.Option())
			store := dynamo.New(client, dynamolocal.NewTable(t, client))
			err := tableops.PutSnapshot(ctx, store, tableops.Snapshot{
				Workspace: workspace.Workspace{ID: "ws1", Name: "W", Seats: 5, TeamSettingsEnabled: true},
				Members: []workspace.Member{
					{ID: "boss", Email: "boss@a.example", Role: workspace.RoleAdmin, JoinedAt: now},
					{ID: "lead", Email: "lead@a.example", Role: workspace.RoleMember, JoinedAt: now},
					{ID: "u3", Email: "u3@a.example", Role: workspace.RoleMember, JoinedAt: now},
				},
				Teams: []workspace.Team{{ID: "t1", Name: "T"}},
				TeamMembers: []workspace.TeamMembership{
					{TeamID: "t1", UserID: "lead", Role: workspace.TeamRoleAdmin},
					{TeamID: "t1", UserID: "u3", Role: workspace.TeamRoleMember},
				},
			}, now)
			if err != nil {
				t.Fatal(err)
			}
			if tc.demote {
				gap.Before(func() {
					demotion := workspace.TeamMembership{WorkspaceID: "ws1", TeamID: "t1", UserID: "lead", Role: workspace.TeamRoleMember}
					if err := store.PutTeamMember(ctx, admin, false, demotion, now); err != nil {
						t.Errorf("demotion: %v", err)
					}
				})
			}
			if err := tc.write(ctx, store); err != tc.wantErr {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			d, err := store.TeamDetail(ctx, "ws1", "t1", now)
			if err != nil {
				t.Fatal(err)
			}
			roles := map[string]workspace.TeamRole{}
			for _, m := range d.Members {
				roles[m.UserID] = m.Role
			}
			wantName, wantU3 := "T", workspace.TeamRoleMember
			if tc.wantErr == nil {
				wantName = "Renamed"
			}
			if tc.wantErr != nil && d.Team.MonthlyCreditLimit != nil {
				t.Errorf("team limit = %v, want none", *d.Team.MonthlyCreditLimit)
			}
			if d.Team.Name != wantName || roles["u3"] != wantU3 {
				t.Errorf("team %q with u3 %q, want %q with u3 %q", d.Team.Name, roles["u3"], wantName, wantU3)
			}
			if tc.demote && roles["lead"] != workspace.TeamRoleMember {
				t.Errorf("lead's role = %q, want member (demoted, still in the team)", roles["lead"])
			}
		})
	}
}
