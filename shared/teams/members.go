package teams

import (
	"errors"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// roleRequest is the body of PUT /workspaceapi/teams/{teamId}/members/{userId}.
type roleRequest struct {
	Role *string `json:"role"`
}

// visibleUser returns the user id of r's path, or
// workspace.ErrMemberNotFound without reading when it is too long.
func visibleUser(r *http.Request) (string, error) {
	id := r.PathValue("userId")
	if !workspace.PlausibleID(id) {
		return "", workspace.ErrMemberNotFound
	}
	return id, nil
}

// putMember handles PUT /workspaceapi/teams/{teamId}/members/{userId}: adds
// the workspace member to the team with the role, or changes their role,
// and answers the membership. The body is checked (400), then the ids (404
// without reading), then the role (403, workspace.MayChangeTeam); then an unknown team or
// user is 404.
func putMember(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req roleRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		if req.Role == nil || !workspace.TeamRole(*req.Role).Valid() {
			return workspace.Invalid("role is required: admin, member or guest")
		}
		team, err := visibleTeam(r, caller)
		if err != nil {
			return err
		}
		user, err := visibleUser(r)
		if err != nil {
			return err
		}
		asTeamAdmin, err := workspace.MayChangeTeam(r.Context(), store, caller, team)
		if err != nil {
			return err
		}
		tm := workspace.TeamMembership{WorkspaceID: caller.WorkspaceID, TeamID: team, UserID: user, Role: workspace.TeamRole(*req.Role)}
		if err := store.PutTeamMember(r.Context(), httpapi.Actor(r, caller), asTeamAdmin, tm, clock.Now()); err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, Membership{TeamID: team, UserID: user, Role: string(tm.Role)})
		return nil
	}
}

// deleteMember handles DELETE /workspaceapi/teams/{teamId}/members/{userId}:
// removes the member from the team, 204. A workspace member who is not in
// the team is 204 too (a retried DELETE succeeds), except for a team-scoped
// key, to which they are outside its team: 404 as an unknown user
// (workspace.RemovalOfNonMember); an unknown team or user is 404. It reads
// no body, but one that is sent follows the rules of every body. The order
// of checks is putMember's.
func deleteMember(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		if err := httpapi.DecodeNone(r); err != nil {
			return err
		}
		team, err := visibleTeam(r, caller)
		if err != nil {
			return err
		}
		user, err := visibleUser(r)
		if err != nil {
			return err
		}
		asTeamAdmin, err := workspace.MayChangeTeam(r.Context(), store, caller, team)
		if err != nil {
			return err
		}
		err = store.DeleteTeamMember(r.Context(), httpapi.Actor(r, caller), asTeamAdmin, caller.WorkspaceID, team, user, clock.Now())
		if errors.Is(err, workspace.ErrNotInTeam) {
			err = workspace.RemovalOfNonMember(caller)
		}
		if err != nil {
			return err
		}
		httpapi.NoContent(w)
		return nil
	}
}
