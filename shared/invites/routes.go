// Package invites is the invitations endpoint group:
// POST, GET and DELETE /workspaceapi/invites.
package invites

import (
	"context"
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	InviteSetup(ctx context.Context, ws, inviterID, email string) (dynamo.InviteSetup, error)
	ExistingTeams(ctx context.Context, ws string, ids []string) (map[string]bool, error)
	CreateInvitation(ctx context.Context, by workspace.Actor, inv workspace.Invitation, prior workspace.EmailClaim, seats int, now time.Time) error
	Invitations(ctx context.Context, ws, after string) ([]workspace.Invitation, error)
	InvitationPage(ctx context.Context, ws, after string, limit int) ([]workspace.Invitation, bool, error)
	InvitationsByID(ctx context.Context, ws string, ids []string) (map[string]workspace.Invitation, error)
	DeleteInvitations(ctx context.Context, by workspace.Actor, invs []workspace.Invitation, now time.Time) []error
}

// Mailer sends e-mail: SES v2 in AWS, a recorder locally.
type Mailer interface {
	Send(ctx context.Context, m mail.Message) error
}

// Deps are the group's dependencies.
type Deps struct {
	Store  Store
	Mailer Mailer
	Clock  workspace.Clock
	IDs    workspace.IDGenerator
	// AcceptURL is the invitation link's base; the id is appended as ?invite=.
	AcceptURL string
	// Retention is how long an expired invitation stays listed before the
	// table's time to live removes it; zero means workspace.DefaultInviteRetention.
	Retention time.Duration
	// Idempotency keeps the answers of writes sent with an Idempotency-Key.
	Idempotency httpapi.Idempotency
	// Cursors makes and reads the list's cursors.
	Cursors *httpapi.Cursors
}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	retention := d.Retention
	if retention <= 0 {
		retention = workspace.DefaultInviteRetention
	}
	mux := httpapi.NewMux()
	mux.Handle("POST /workspaceapi/invites", createInvite(d.Store, d.Mailer, d.Clock, d.IDs, d.AcceptURL, retention))
	mux.Handle("GET /workspaceapi/invites", listInvites(d.Store, d.Clock, d.Cursors))
	mux.Handle("DELETE /workspaceapi/invites", revokeInvites(d.Store, d.Clock))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), d.Idempotency) }
