package members

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Resource is a member as GET /workspaceapi/members lists it (docs/endpoints.md).
type Resource struct {
	ID       string     `json:"id"`
	Email    string     `json:"email"`
	Name     string     `json:"name"`
	Role     string     `json:"role"`
	Tags     []string   `json:"tags"`
	Teams    []TeamRole `json:"teams"`
	JoinedAt string     `json:"joinedAt"`
}

// TeamRole is one team of a member, with the member's role in it.
type TeamRole struct {
	TeamID string `json:"teamId"`
	Role   string `json:"role"`
}

// NewResource returns m's listed form.
func NewResource(m workspace.Member) Resource {
	r := Resource{ID: m.ID, Email: m.Email, Name: m.Name, Role: string(m.Role), Tags: m.Tags,
		Teams: make([]TeamRole, len(m.Teams)), JoinedAt: workspace.FormatTime(m.JoinedAt)}
	if r.Tags == nil {
		r.Tags = []string{}
	}
	for i, t := range m.Teams {
		r.Teams[i] = TeamRole{TeamID: t.TeamID, Role: string(t.Role)}
	}
	return r
}

// listMembers handles GET /workspaceapi/members: one page of the
// workspace's members in user id order, each with its tags and teams, and
// the cursor of the next page or null after the last. A team-scoped key sees
// only its team's members, each with that team alone. A page is one Query
// (a team-scoped one adds one BatchGetItem per 100 members).
func listMembers(store Store, cursors *httpapi.Cursors) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		limit, after, key, err := cursors.QueryPage(r, httpapi.DefaultPageLimit)
		if err != nil {
			return err
		}
		members, more, err := store.MemberPage(r.Context(), caller.WorkspaceID, caller.TeamID, after, limit)
		if err != nil {
			return err
		}
		list := make([]Resource, len(members))
		for i, m := range members {
			list[i] = NewResource(m)
		}
		httpapi.WritePage(w, r, key, "members", list, more, func(m Resource) string { return m.ID })
		return nil
	}
}
