package invites

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// createInvite handles POST /workspaceapi/invites. The rules run in this order:
// the body's own rules (400), team settings (400), the e-mail domain (400),
// unknown teams (404), an existing member or pending invitation (400), and a
// free seat (403), the last two enforced inside the storing transaction.
func createInvite(store Store, mailer Mailer, clock workspace.Clock, ids workspace.IDGenerator, acceptURL string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeInvite)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		var req workspace.InviteRequest
		if err := httpapi.Decode(r, &req); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		if err := req.Validate(); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		email := *req.Email
		setup, err := store.InviteSetup(r.Context(), caller.WorkspaceID, caller.UserID, email, req.TeamIDs())
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		now := clock.Now()
		if err := checkInvite(req, setup.Workspace, setup.Teams, setup.Claim, now); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		id, err := ids.NewID("inv_")
		if err != nil {
			httpapi.Error(w, r, fmt.Errorf("new invitation id: %w", err))
			return
		}
		inv := newInvitation(id, req, setup.Workspace, setup.Inviter, now)
		if err := store.CreateInvitation(r.Context(), inv, setup.Claim, setup.Workspace.Seats, now); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		// Exactly one e-mail per created invitation: a retry of the same
		// address is refused above, so it never reaches this point again.
		if err := mailer.Send(r.Context(), invitationEmail(inv, acceptURL)); err != nil {
			slog.ErrorContext(r.Context(), "invitation e-mail failed; withdrawing the invitation",
				"workspaceId", inv.CustomerID, "inviteId", inv.ID, "error", err)
			inv.HoldsSeat = true
			if derr := store.DeleteInvitation(r.Context(), inv); derr != nil {
				slog.ErrorContext(r.Context(), "withdraw invitation after e-mail failure",
					"workspaceId", inv.CustomerID, "inviteId", inv.ID, "error", derr)
			}
			httpapi.Error(w, r, workspace.Unavailable("the invitation e-mail could not be sent, so no invitation was created; try again"))
			return
		}
		httpapi.JSON(w, http.StatusCreated, inv)
	}
}

// checkInvite applies the rules that need the workspace's stored state.
func checkInvite(req workspace.InviteRequest, ws workspace.Workspace, teams map[string]bool, claim workspace.EmailClaim, now time.Time) error {
	if len(req.Teams) > 0 && !ws.TeamSettingsEnabled {
		return workspace.Invalid("teams cannot be set: team settings are not enabled for this workspace")
	}
	if !ws.AllowsDomainOf(*req.Email) {
		return workspace.Invalid("the e-mail domain %q is not allowed in this workspace", workspace.EmailDomain(*req.Email))
	}
	for _, t := range req.Teams {
		if !teams[t.TeamID] {
			return workspace.NotFound("team %q not found", t.TeamID)
		}
	}
	if claim.MemberID != "" {
		return workspace.Invalid("this person is already a member of the workspace")
	}
	if claim.PendingInvite(now) {
		return workspace.Invalid("this person already has a pending invitation")
	}
	return nil
}

// newInvitation builds the invitation a valid request creates.
func newInvitation(id string, req workspace.InviteRequest, ws workspace.Workspace, inviter workspace.Member, now time.Time) workspace.Invitation {
	inv := workspace.Invitation{
		ID: id, Type: workspace.InviteTypeWorkspace, Email: *req.Email,
		CustomerID: ws.ID, CustomerName: ws.Name, CustomerRole: *req.Role,
		Status: workspace.InviteStatusPending, IsExpired: false,
		CreatedAt:         workspace.FormatTime(now),
		ExpiresAt:         workspace.FormatTime(now.Add(time.Duration(req.Days()) * 24 * time.Hour)),
		InvitedByUserName: inviter.Name,
		HoldsSeat:         true,
	}
	for _, t := range req.Teams {
		inv.Groups = append(inv.Groups, workspace.Group{GroupID: t.TeamID, Role: t.Role})
	}
	return inv
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
		Subject: fmt.Sprintf("You are invited to join %s", inv.CustomerName),
		Text: fmt.Sprintf("%s invited you to join the workspace %s as %s.\n\nAccept the invitation: %s\n\nThe invitation expires at %s.\n",
			inviter, inv.CustomerName, inv.CustomerRole, link, inv.ExpiresAt),
	}
}
