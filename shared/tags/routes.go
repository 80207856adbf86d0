// Package tags is the tags endpoint group: POST /workspaceapi/members/tags,
// /agents/tags and /teams/tags, one handler serving all three, parameterised
// by the kind of entity.
package tags

import (
	"context"
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	SetTags(ctx context.Context, by workspace.Actor, ws string, kind workspace.Taggable, scope string, ids []string, change workspace.TagChange, now time.Time) ([]workspace.TagOutcome, error)
}

// Deps are the group's dependencies.
type Deps struct {
	Store Store
	// Clock dates the audit entries of the changes.
	Clock workspace.Clock
	// Idempotency keeps the answers of writes sent with an Idempotency-Key.
	Idempotency httpapi.Idempotency
}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("POST /workspaceapi/members/tags", setTags(d.Store, d.Clock, workspace.TaggableMember))
	mux.Handle("POST /workspaceapi/agents/tags", setTags(d.Store, d.Clock, workspace.TaggableAgent))
	mux.Handle("POST /workspaceapi/teams/tags", setTags(d.Store, d.Clock, workspace.TaggableTeam))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), d.Idempotency) }
