package invites

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Paging of GET /workspaceapi/invites (docs/endpoints.md).
const (
	minPage = 1
	maxPage = 1000
)

// listResponse is the body of GET /workspaceapi/invites.
type listResponse struct {
	Invites    []Resource `json:"invites"`
	NextCursor *string    `json:"nextCursor"`
}

// listInvites handles GET /workspaceapi/invites: the pending and expired
// invitations of the workspace in id order, which is creation order for
// invitations made through the API. Without limit it answers every one
// (cursor, if given, starts after it) and nextCursor is null; with limit it
// answers one page and the cursor of the next, or null after the last.
func listInvites(store Store, clock workspace.Clock) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeRead)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		limit, paged, err := httpapi.QueryInt(r, "limit", minPage, maxPage)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		after, err := httpapi.QueryCursor(r)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		var invs []workspace.Invitation
		more := false
		if paged {
			invs, more, err = store.InvitationPage(r.Context(), caller.WorkspaceID, after, limit)
		} else {
			invs, err = store.Invitations(r.Context(), caller.WorkspaceID, after)
		}
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		now := clock.Now()
		body := listResponse{Invites: make([]Resource, len(invs))}
		for i, inv := range invs {
			body.Invites[i] = NewResource(inv, now)
		}
		if more {
			next := httpapi.EncodeCursor(invs[len(invs)-1].ID)
			body.NextCursor = &next
		}
		httpapi.JSON(w, http.StatusOK, body)
	}
}
