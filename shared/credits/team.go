package credits

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// teamLimitRequest is the body of PUT /workspaceapi/teams/{teamId}/credit-limit.
type teamLimitRequest struct {
	MonthlyCreditLimit workspace.Nullable[float64] `json:"monthlyCreditLimit"`
}

// teamLimitResponse is its answer: the team credit-limit result
// (docs/endpoints.md, Credits), and whether the team's agents are paused now.
type teamLimitResponse struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	MonthlyCreditLimit *float64 `json:"monthlyCreditLimit"`
	Unchanged          bool     `json:"unchanged"`
	Paused             bool     `json:"paused"`
}

// setTeamLimit handles PUT /workspaceapi/teams/{teamId}/credit-limit: it
// sets the team's monthly limit, or removes it with null, and pauses or
// resumes all the team's agents at once as this month's usage calls for.
// The body is checked first (400); then a team a team-scoped key does not
// belong to, or an id over the length bound, is not found (404) without
// reading; then the role (403): a workspace admin passes without a read,
// anyone else needs the admin role in this team (one read of their member
// item), and is refused alike whether the team exists or not; then team
// settings off (400) and an unknown team (404).
func setTeamLimit(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req teamLimitRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		if req.MonthlyCreditLimit.Omitted() {
			return workspace.Invalid("monthlyCreditLimit is required: a number, or null to remove the limit")
		}
		var limit *float64
		if v, ok := req.MonthlyCreditLimit.Get(); ok {
			if err := workspace.CheckCredits("monthlyCreditLimit", v, false); err != nil {
				return err
			}
			v = workspace.RoundFigure(v)
			limit = &v
		}
		teamID := r.PathValue("teamId")
		if !workspace.PlausibleID(teamID) || (caller.TeamScoped() && teamID != caller.TeamID) {
			return workspace.ErrTeamNotFound
		}
		asTeamAdmin, err := workspace.MayChangeTeam(r.Context(), store, caller, teamID)
		if err != nil {
			return err
		}
		out, err := store.SetTeamLimit(r.Context(), httpapi.Actor(r, caller), asTeamAdmin, caller.WorkspaceID, teamID, limit, clock.Now())
		if err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, teamLimitResponse{
			ID: out.Team.ID, Name: out.Team.Name, MonthlyCreditLimit: out.Team.MonthlyCreditLimit,
			Unchanged: out.Unchanged, Paused: out.Paused,
		})
		return nil
	}
}
