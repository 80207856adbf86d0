// Package audit is the audit log endpoint group: GET
// /workspaceapi/audit-log, the paged, filtered list of every change made to
// a workspace, newest first (docs/audit-log.md). The entries themselves are
// written by the groups that make the changes, in the changes' own
// transactions.
package audit

import (
	"context"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	AuditPage(ctx context.Context, ws string, f workspace.AuditFilter, after string, limit int) ([]workspace.AuditEntry, string, error)
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
	mux.Handle("GET /workspaceapi/audit-log", listEntries(d.Store, d.Cursors))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), httpapi.ReadOnly) }
