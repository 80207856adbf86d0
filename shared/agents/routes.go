// Package agents is the agents endpoint group: GET /workspaceapi/agents, the
// listing of a workspace's agents with, on request, each one's credit
// overview.
package agents

import (
	"context"
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	AgentPage(ctx context.Context, ws, team, after string, limit int) ([]workspace.Agent, bool, error)
	AgentCredits(ctx context.Context, ws string, agents []workspace.Agent, now time.Time) (map[string]workspace.AgentCredit, error)
}

// Deps are the group's dependencies.
type Deps struct {
	Store Store
	Clock workspace.Clock
	// Cursors makes and reads the list's cursors.
	Cursors *httpapi.Cursors
}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("GET /workspaceapi/agents", listAgents(d.Store, d.Clock, d.Cursors))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), httpapi.ReadOnly) }
