package invites

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Time kept for withdrawing an invitation whose e-mail failed. The e-mail
// may use the request's remaining time less withdrawReserve (at least half of
// it), so that the withdrawal, which runs on a context of its own, still ends
// before the Lambda deadline and the answer can tell the truth.
const (
	withdrawReserve = 2 * time.Second
	// maxMailTime bounds the e-mail whatever the request's deadline: SES
	// answers in well under a second, or is not going to answer.
	maxMailTime = 10 * time.Second
)

// createInvite handles POST /workspaceapi/invites. The rules run in this order:
// the body's own rules (400), team settings and the e-mail domain (400), both
// before any team is read, unknown teams (404), an existing member or pending
// invitation (400), and a free seat (403), the last two enforced inside the
// storing transaction.
//
// The invitation is stored before its e-mail is sent, so that a retry is
// refused instead of mailing twice. When the e-mail fails, times out or its
// sender panics, the invitation is withdrawn on a context that outlives the
// request's; the answer says whether that worked, so a client either retries
// with success or knows which invitation to revoke.
func createInvite(store Store, mailer Mailer, clock workspace.Clock, ids workspace.IDGenerator, acceptURL string, retention time.Duration) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeInvite)
		if err != nil {
			return err
		}
		var req workspace.InviteRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		if err := req.Validate(); err != nil {
			return err
		}
		setup, err := store.InviteSetup(ctx, caller.WorkspaceID, caller.UserID, *req.Email)
		if err != nil {
			return err
		}
		if err := workspace.CheckInviteSettings(req, setup.Workspace); err != nil {
			return err
		}
		teams, err := store.ExistingTeams(ctx, caller.WorkspaceID, req.TeamIDs())
		if err != nil {
			return err
		}
		now := clock.Now()
		if err := workspace.CheckInvite(req, setup.Workspace, teams, setup.Claim, now); err != nil {
			return err
		}
		id, err := ids.NewID("inv_")
		if err != nil {
			return fmt.Errorf("new invitation id: %w", err)
		}
		inv := workspace.NewInvitation(id, req, setup.Workspace, setup.Inviter, now, retention)
		by := httpapi.Actor(r, caller)
		if err := store.CreateInvitation(ctx, by, inv, setup.Claim, setup.Workspace.Seats, now); err != nil {
			return err
		}
		// Exactly one e-mail per created invitation: a retry of the same
		// address is refused above, so it never reaches this point again.
		if err := sendWithin(ctx, mailer, invitationEmail(inv, acceptURL)); err != nil {
			slog.ErrorContext(ctx, "invitation e-mail failed; withdrawing the invitation",
				"workspaceId", inv.WorkspaceID, "inviteId", inv.ID, "error", err)
			return withdraw(ctx, store, by, inv, clock.Now())
		}
		httpapi.JSON(w, http.StatusCreated, NewResource(inv, now))
		return nil
	}
}

// sendWithin sends m, giving up when the request's time less withdrawReserve
// has passed, even if the mailer ignores its context; a panicking mailer is a
// failed send.
func sendWithin(ctx context.Context, mailer Mailer, m mail.Message) error {
	budget := maxMailTime
	if deadline, ok := ctx.Deadline(); ok {
		left := time.Until(deadline)
		budget = min(budget, max(left-withdrawReserve, left/2))
	}
	mctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("mailer panicked: %v", p)
			}
		}()
		done <- mailer.Send(mctx, m)
	}()
	select {
	case err := <-done:
		return err
	case <-mctx.Done():
		return fmt.Errorf("e-mail not sent in %s: %w", budget, mctx.Err())
	}
}

// withdraw deletes inv after its e-mail failed, on a context detached from the
// request's (whose deadline may have passed), and returns the error that tells
// the client what happened: nothing was created, or the invitation exists and
// must be revoked before the address can be invited again.
func withdraw(ctx context.Context, store Store, by workspace.Actor, inv workspace.Invitation, now time.Time) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), withdrawReserve)
	defer cancel()
	err := store.DeleteInvitations(wctx, by, []workspace.Invitation{inv}, now)[0]
	if err == nil || workspace.IsNotFound(err) { // gone either way
		return workspace.Unavailable("the invitation e-mail could not be sent, so no invitation was created; try again")
	}
	slog.ErrorContext(ctx, "withdraw invitation after e-mail failure",
		"workspaceId", inv.WorkspaceID, "inviteId", inv.ID, "error", err)
	return workspace.Unavailable("the invitation e-mail could not be sent and invitation %s could not be withdrawn; "+
		"revoke it (DELETE /workspaceapi/invites) before inviting this address again", inv.ID)
}

// invitationEmail is the message an invitee receives.
func invitationEmail(inv workspace.Invitation, acceptURL string) mail.Message {
	link := acceptURL + "?invite=" + url.QueryEscape(inv.ID)
	inviter := inv.InvitedByUserName
	if inviter == "" {
		inviter = "A workspace admin"
	}
	return mail.Message{
		To:      inv.Email,
		Subject: fmt.Sprintf("You are invited to join %s", inv.WorkspaceName),
		Text: fmt.Sprintf("%s invited you to join the workspace %s as %s.\n\nAccept the invitation: %s\n\nThe invitation expires at %s.\n",
			inviter, inv.WorkspaceName, inv.Role, link, workspace.FormatTime(inv.ExpiresAt)),
	}
}
