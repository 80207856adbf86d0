package credits

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// statusRequest is the body of POST /workspaceapi/agents/status.
type statusRequest struct {
	IDs    []string `json:"ids"`
	Status string   `json:"status"`
}

// appliedStatus is the applied value of an agent status result: the status
// now in force, "disabled" or "enabled".
type appliedStatus struct {
	Status string `json:"status"`
}

// setAgentStatus handles POST /workspaceapi/agents/status: a batch that
// disables or enables the listed agents. A disabled agent shows status and
// reason "disabled" over every other; enabling re-evaluates its limits at
// once, and impact says how it came back.
func setAgentStatus(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req statusRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		ids, err := httpapi.UniqueIDs(req.IDs)
		if err != nil {
			return err
		}
		disable, err := workspace.ParseAgentStatus(req.Status)
		if err != nil {
			return err
		}
		outs := store.SetAgentStatus(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, caller.TeamID, ids, disable, clock.Now())
		httpapi.WriteOutcomes(w, r, outs, creditOutcome(func(workspace.CreditOutcome) any {
			return appliedStatus{Status: req.Status}
		}), agentLog("agent status batch", caller))
		return nil
	}
}
