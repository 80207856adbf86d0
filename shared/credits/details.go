package credits

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// detailsRequest is the body of POST /workspaceapi/agents/credit-details;
// the flag is a pointer so that a missing one is told from false.
type detailsRequest struct {
	IDs                       []string `json:"ids"`
	ShowTokenOptimisationInfo *bool    `json:"showTokenOptimisationInfo"`
}

// appliedDetails is the applied value of a credit-details result.
type appliedDetails struct {
	ShowTokenOptimisationInfo bool `json:"showTokenOptimisationInfo"`
}

// setCreditDetails handles POST /workspaceapi/agents/credit-details: a batch
// that shows or hides the per-message credit details in the listed agents'
// chats. Display only: it never touches limits or running states, so no
// result carries impact. A team-scoped key reaches only its team's agents.
func setCreditDetails(store Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		var req detailsRequest
		if err := httpapi.Decode(r, &req); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		ids, err := httpapi.UniqueIDs(req.IDs)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		if req.ShowTokenOptimisationInfo == nil {
			httpapi.Error(w, r, workspace.Invalid("showTokenOptimisationInfo is required: true or false"))
			return
		}
		outs := store.SetCreditDetails(r.Context(), caller.WorkspaceID, caller.TeamID, ids, *req.ShowTokenOptimisationInfo)
		items := make([]httpapi.BatchItem, len(outs))
		for i, o := range outs {
			switch {
			case o.Err == nil:
				items[i] = httpapi.Succeeded(o.ID, o.Name, o.Unchanged, appliedDetails{ShowTokenOptimisationInfo: o.Show})
			case workspace.IsNotFound(o.Err):
				items[i] = httpapi.Failed(o.ID, "", workspace.ErrAgentNotFound.Error())
			default:
				items[i] = httpapi.FailedUnexpectedly(r.Context(), o.ID, o.Name, o.Err, "credit details", "workspaceId", caller.WorkspaceID, "agentId", o.ID)
			}
		}
		httpapi.WriteBatch(w, r, items)
	}
}
