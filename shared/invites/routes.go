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
	InviteSetup(ctx context.Context, ws, inviterID, email string, teamIDs []string) (dynamo.InviteSetup, error)
	CreateInvitation(ctx context.Context, inv workspace.Invitation, prior workspace.EmailClaim, seats int, now time.Time) error
	Invitations(ctx context.Context, ws string) ([]workspace.Invitation, error)
	InvitationsByID(ctx context.Context, ws string, ids []string) (map[string]workspace.Invitation, error)
	DeleteInvitation(ctx context.Context, inv workspace.Invitation) error
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
}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("POST /workspaceapi/invites", createInvite(d.Store, d.Mailer, d.Clock, d.IDs, d.AcceptURL))
	mux.Handle("GET /workspaceapi/invites", listInvites(d.Store, d.Clock))
	mux.Handle("DELETE /workspaceapi/invites", revokeInvites(d.Store))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d)) }
