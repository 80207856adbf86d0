package agents

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// listResponse is the body of GET /workspaceapi/agents.
type listResponse struct {
	Agents     []Resource `json:"agents"`
	NextCursor *string    `json:"nextCursor"`
}

// listAgents handles GET /workspaceapi/agents: one page of the workspace's
// agents in id order, private agents included (a team-scoped key sees only
// its team's), and the cursor of the next page or null after the last. With
// includeOverview=true each carries its credit overview. A page costs one
// Query, and with overviews one BatchGetItem per 100 keys of their standings.
func listAgents(store Store, clock workspace.Clock) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.Caller(r, workspace.ScopeRead)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		overview, _, err := httpapi.QueryBool(r, "includeOverview")
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		limit, after, err := httpapi.QueryPage(r)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		agents, more, err := store.AgentPage(r.Context(), caller.WorkspaceID, caller.TeamID, after, limit)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		var credits map[string]workspace.AgentCredit
		if overview {
			if credits, err = store.AgentCredits(r.Context(), caller.WorkspaceID, agents, clock.Now()); err != nil {
				httpapi.Error(w, r, err)
				return
			}
		}
		body := listResponse{Agents: make([]Resource, len(agents))}
		for i, a := range agents {
			body.Agents[i] = NewResource(a)
			if overview {
				body.Agents[i].Overview = NewOverview(a, credits[a.ID])
			}
		}
		if more {
			next := httpapi.EncodeCursor(agents[len(agents)-1].ID)
			body.NextCursor = &next
		}
		httpapi.JSON(w, http.StatusOK, body)
	}
}
