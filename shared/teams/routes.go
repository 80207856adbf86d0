// Package teams is the teams endpoint group: list, create, read and rename
// teams, and add, change or remove a team's members. Every route answers
// 400 while the workspace has team settings off. Creating a team needs the
// workspace admin role; renaming one and changing its members need that or
// the team's own admin role (workspace.CanCreateTeam, CanChangeTeam).
package teams

import (
	"context"
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	ListTeams(ctx context.Context, ws string) ([]workspace.Team, error)
	CreateTeam(ctx context.Context, by workspace.Actor, t workspace.Team, now time.Time) error
	// asTeamAdmin: the change holds only while by's owner is an admin of
	// the team (workspace.MayChangeTeam).
	RenameTeam(ctx context.Context, by workspace.Actor, asTeamAdmin bool, ws, teamID, name string, now time.Time) error
	TeamDetail(ctx context.Context, ws, teamID string, now time.Time) (workspace.TeamDetail, error)
	PutTeamMember(ctx context.Context, by workspace.Actor, asTeamAdmin bool, tm workspace.TeamMembership, now time.Time) error
	DeleteTeamMember(ctx context.Context, by workspace.Actor, asTeamAdmin bool, ws, teamID, userID string, now time.Time) error
	// Member reads a key owner's member item, for their role in a team
	// (workspace.CanChangeTeam); only for callers who are not workspace admins.
	Member(ctx context.Context, ws, userID string) (workspace.Member, error)
}

// Deps are the group's dependencies.
type Deps struct {
	Store Store
	Clock workspace.Clock
	IDs   workspace.IDGenerator
	// Idempotency keeps the answers of writes sent with an Idempotency-Key.
	Idempotency httpapi.Idempotency
}

// CredentialRoutes are the group's routes after whose success a key may no
// longer be allowed: a member removed from a team stops its team-scoped
// keys (workspace.APIKey.OwnerMayUse), so a gateway that caches authorizer
// answers must drop them (the local gateway does at once; API Gateway after
// its cache TTL).
var CredentialRoutes = []string{"DELETE /workspaceapi/teams/{teamId}/members/{userId}"}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("GET /workspaceapi/teams", listTeams(d.Store))
	mux.Handle("POST /workspaceapi/teams", createTeam(d.Store, d.Clock, d.IDs))
	mux.Handle("GET /workspaceapi/teams/{teamId}", getTeam(d.Store, d.Clock))
	mux.Handle("PATCH /workspaceapi/teams/{teamId}", renameTeam(d.Store, d.Clock))
	mux.Handle("PUT /workspaceapi/teams/{teamId}/members/{userId}", putMember(d.Store, d.Clock))
	mux.Handle(CredentialRoutes[0], deleteMember(d.Store, d.Clock))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), d.Idempotency) }
