package invites

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// listResponse is the body of GET /workspaceapi/invites.
type listResponse struct {
	Invites []workspace.Invitation `json:"invites"`
}

// listInvites handles GET /workspaceapi/invites: every pending and expired
// invitation of the workspace, oldest first.
func listInvites(store Store, clock workspace.Clock) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeRead)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		invs, err := store.Invitations(r.Context(), caller.WorkspaceID)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		now := clock.Now()
		for i := range invs {
			invs[i] = invs[i].AsOf(now)
		}
		httpapi.JSON(w, http.StatusOK, listResponse{Invites: invs})
	}
}
