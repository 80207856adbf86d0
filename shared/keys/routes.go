// Package keys is the API keys endpoint group: list, create, change and
// revoke the workspace's API keys (docs/api-keys.md). Every route needs a
// workspace-wide key whose owner is a workspace admin
// (workspace.CanManageKeys); a new key acts as its creator's user with a
// subset of its creator's scopes, and its plaintext is answered once.
package keys

import (
	"context"
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	APIKeys(ctx context.Context, ws string) ([]workspace.APIKey, error)
	CreateAPIKey(ctx context.Context, by workspace.Actor, k workspace.APIKey, now time.Time) error
	UpdateAPIKey(ctx context.Context, by workspace.Actor, ws, keyID string, ch workspace.KeyChange, now time.Time) (workspace.APIKey, error)
	RevokeAPIKey(ctx context.Context, by workspace.Actor, ws, keyID string, now time.Time) error
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
// longer be allowed: a gateway that caches authorizer answers must drop
// them (the local gateway does at once; API Gateway after its cache TTL).
var CredentialRoutes = []string{"PATCH /workspaceapi/keys/{keyId}", "DELETE /workspaceapi/keys/{keyId}"}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("GET /workspaceapi/keys", listKeys(d.Store))
	mux.Handle("POST /workspaceapi/keys", createKey(d.Store, d.Clock, d.IDs))
	mux.Handle(CredentialRoutes[0], updateKey(d.Store, d.Clock))
	mux.Handle(CredentialRoutes[1], revokeKey(d.Store, d.Clock))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), d.Idempotency) }
