package invites

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// listInvites handles GET /workspaceapi/invites: the pending and expired
// invitations of the workspace in id order, which is creation order for
// invitations made through the API. Without limit it answers every one
// (cursor, if given, starts after it) and nextCursor is null; with limit it
// answers one page and the cursor of the next, or null after the last.
func listInvites(store Store, clock workspace.Clock, cursors *httpapi.Cursors) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		limit, after, key, err := cursors.QueryPage(r, 0) // no limit: every invitation
		if err != nil {
			return err
		}
		var invs []workspace.Invitation
		more := false
		if limit > 0 {
			invs, more, err = store.InvitationPage(r.Context(), caller.WorkspaceID, after, limit)
		} else {
			invs, err = store.Invitations(r.Context(), caller.WorkspaceID, after)
		}
		if err != nil {
			return err
		}
		now := clock.Now()
		list := make([]Resource, len(invs))
		for i, inv := range invs {
			list[i] = NewResource(inv, now)
		}
		httpapi.WritePage(w, r, key, "invites", list, more, func(inv Resource) string { return inv.ID })
		return nil
	}
}
