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
func setCreditDetails(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req detailsRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		ids, err := httpapi.UniqueIDs(req.IDs)
		if err != nil {
			return err
		}
		if req.ShowTokenOptimisationInfo == nil {
			return workspace.Invalid("showTokenOptimisationInfo is required: true or false")
		}
		outs := store.SetCreditDetails(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, caller.TeamID, ids, *req.ShowTokenOptimisationInfo, clock.Now())
		httpapi.WriteOutcomes(w, r, outs, func(o workspace.DisplayOutcome) httpapi.Outcome {
			if workspace.IsNotFound(o.Err) {
				return agentNotFound(o.ID)
			}
			return httpapi.Outcome{ID: o.ID, Name: o.Name, Unchanged: o.Unchanged,
				Applied: appliedDetails{ShowTokenOptimisationInfo: o.Show}, Err: o.Err}
		}, agentLog("credit details", caller))
		return nil
	}
}
