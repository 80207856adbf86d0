// Package members is the members endpoint group: GET /workspaceapi/members,
// the paged listing of a workspace's members with their tags and teams; its
// function also serves GET /workspaceapi/version (shared/release).
package members

import (
	"context"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/release"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	MemberPage(ctx context.Context, ws, team, after string, limit int) ([]workspace.Member, bool, error)
}

// Deps are the group's dependencies.
type Deps struct {
	Store Store
	// Cursors makes and reads the list's cursors.
	Cursors *httpapi.Cursors
}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("GET /workspaceapi/members", listMembers(d.Store, d.Cursors))
	// The release's version: it reads nothing, so the lightest read-only
	// function serves it.
	mux.Handle(release.Route, release.VersionHandler())
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), httpapi.ReadOnly) }
