package teams

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// listResponse is the body of GET /workspaceapi/teams.
type listResponse struct {
	Teams []Summary `json:"teams"`
}

// nameRequest is the body of POST /workspaceapi/teams and of
// PATCH /workspaceapi/teams/{teamId}.
type nameRequest struct {
	Name *string `json:"name"`
}

// name returns the request's name, trimmed and checked.
func (req nameRequest) name() (string, error) {
	if req.Name == nil {
		return "", workspace.Invalid("name is required")
	}
	return workspace.TeamName(*req.Name)
}

// visibleTeam returns the team id of r's path, or workspace.ErrTeamNotFound
// without reading anything when it cannot name a team the caller sees: too
// long, or another team than a team-scoped key's own.
func visibleTeam(r *http.Request, caller workspace.Caller) (string, error) {
	id := r.PathValue("teamId")
	if !workspace.PlausibleID(id) || (caller.TeamScoped() && id != caller.TeamID) {
		return "", workspace.ErrTeamNotFound
	}
	return id, nil
}

// listTeams handles GET /workspaceapi/teams: every team of the workspace in
// id order. Workspace-wide: a team-scoped key gets 403.
func listTeams(store Store) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		teams, err := store.ListTeams(r.Context(), caller.WorkspaceID)
		if err != nil {
			return err
		}
		body := listResponse{Teams: make([]Summary, len(teams))}
		for i, t := range teams {
			body.Teams[i] = NewSummary(t)
		}
		httpapi.JSON(w, http.StatusOK, body)
		return nil
	}
}

// createTeam handles POST /workspaceapi/teams: a new team with the trimmed
// name, answered 201 with the team. A name another team has, compared by
// workspace.TeamNameKey, is 409 however many requests race for it.
// Workspace-wide: a team-scoped key gets 403. The body is checked (400)
// before the role: a key whose owner is not a workspace admin gets 403
// without any read.
func createTeam(store Store, clock workspace.Clock, ids workspace.IDGenerator) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req nameRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		name, err := req.name()
		if err != nil {
			return err
		}
		if err := workspace.CanCreateTeam(caller); err != nil {
			return err
		}
		id, err := ids.NewID("team_")
		if err != nil {
			return err
		}
		t := workspace.Team{ID: id, WorkspaceID: caller.WorkspaceID, Name: name, Tags: []string{}, CreatedAt: clock.Now()}
		if err := store.CreateTeam(r.Context(), httpapi.Actor(r, caller), t, t.CreatedAt); err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusCreated, NewResource(workspace.TeamDetail{Team: t}))
		return nil
	}
}

// getTeam handles GET /workspaceapi/teams/{teamId}: the team with this
// month's credits, its paused state, its members and its agents' ids. A
// team-scoped key sees its own team only.
func getTeam(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		id, err := visibleTeam(r, caller)
		if err != nil {
			return err
		}
		d, err := store.TeamDetail(r.Context(), caller.WorkspaceID, id, clock.Now())
		if err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, NewResource(d))
		return nil
	}
}

// renameTeam handles PATCH /workspaceapi/teams/{teamId}: renames the team
// (same rules and 409 as create) and answers the team as GET shows it. A
// team-scoped key may rename its own team. The body is checked (400), then
// the id (404 without reading), then the role (403, workspace.MayChangeTeam), then the
// team itself.
func renameTeam(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req nameRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		name, err := req.name()
		if err != nil {
			return err
		}
		id, err := visibleTeam(r, caller)
		if err != nil {
			return err
		}
		asTeamAdmin, err := workspace.MayChangeTeam(r.Context(), store, caller, id)
		if err != nil {
			return err
		}
		if err := store.RenameTeam(r.Context(), httpapi.Actor(r, caller), asTeamAdmin, caller.WorkspaceID, id, name, clock.Now()); err != nil {
			return err
		}
		d, err := store.TeamDetail(r.Context(), caller.WorkspaceID, id, clock.Now())
		if err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, NewResource(d))
		return nil
	}
}
