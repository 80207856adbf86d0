package agents

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// listAgents handles GET /workspaceapi/agents: one page of the workspace's
// agents in id order, private agents included (a team-scoped key sees only
// its team's), and the cursor of the next page or null after the last. With
// includeOverview=true each carries its credit overview. A page costs one
// Query, and with overviews one BatchGetItem per 100 keys of their standings.
func listAgents(store Store, clock workspace.Clock, cursors *httpapi.Cursors) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		overview, _, err := httpapi.QueryBool(r, "includeOverview")
		if err != nil {
			return err
		}
		limit, after, key, err := cursors.QueryPage(r, httpapi.DefaultPageLimit)
		if err != nil {
			return err
		}
		agents, more, err := store.AgentPage(r.Context(), caller.WorkspaceID, caller.TeamID, after, limit)
		if err != nil {
			return err
		}
		var credits map[string]workspace.AgentCredit
		if overview {
			if credits, err = store.AgentCredits(r.Context(), caller.WorkspaceID, agents, clock.Now()); err != nil {
				return err
			}
		}
		list := make([]Resource, len(agents))
		for i, a := range agents {
			list[i] = NewResource(a)
			if overview {
				list[i].Overview = NewOverview(a, credits[a.ID])
			}
		}
		httpapi.WritePage(w, r, key, "agents", list, more, func(a Resource) string { return a.ID })
		return nil
	}
}
