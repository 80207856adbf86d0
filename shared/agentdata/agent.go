package agentdata

import (
	"net/http"
	"slices"

	"github.com/agentplatform/workspaceapi/shared/agents"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// agentResource is GET /workspaceapi/agents/{agentId}: the listed agent
// with its key metric definitions.
type agentResource struct {
	agents.Resource
	KeyMetrics []KeyMetricDefinition `json:"keyMetrics"`
}

// KeyMetricDefinition is one key metric an agent counts, the one wire form
// of a definition: GET /workspaceapi/agents/{agentId} answers it, and
// fixtures define an agent's key metrics in it.
type KeyMetricDefinition struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Measurement Measurement `json:"measurement"`
}

// Measurement says how a key metric's values are measured (Unit) and
// aggregated (Aggregation: average or sum).
type Measurement struct {
	Unit        string `json:"unit"`
	Aggregation string `json:"aggregation"`
}

// newDefinition returns d's wire form.
func newDefinition(d workspace.KeyMetricDefinition) KeyMetricDefinition {
	return KeyMetricDefinition{Name: d.Name, Description: d.Description,
		Measurement: Measurement{Unit: d.Measurement.Unit, Aggregation: d.Measurement.Aggregation}}
}

// getAgent handles GET /workspaceapi/agents/{agentId} and GET
// /agents/{agentId}: one GetItem; with includeOverview=true the agent
// carries its credit overview as the list gives it (its running state,
// disabled included), read with one BatchGetItem more.
func getAgent(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		overview, _, err := httpapi.QueryBool(r, "includeOverview")
		if err != nil {
			return err
		}
		caller, a, err := readAgent(r, store, false)
		if err != nil {
			return err
		}
		body := agentResource{Resource: agents.NewResource(a), KeyMetrics: []KeyMetricDefinition{}}
		if overview {
			credits, err := store.AgentCredits(r.Context(), caller.WorkspaceID, []workspace.Agent{a}, clock.Now())
			if err != nil {
				return err
			}
			body.Overview = agents.NewOverview(a, credits[a.ID])
		}
		for _, d := range a.KeyMetrics {
			body.KeyMetrics = append(body.KeyMetrics, newDefinition(d))
		}
		httpapi.JSON(w, http.StatusOK, body)
		return nil
	}
}

// PromotionRequest is an agent's promotion request, the one wire form of
// it: an element of GET .../promotion-requests, and how fixtures give an
// agent's requests. RequestedAt is an RFC 3339 timestamp.
type PromotionRequest struct {
	ID                string `json:"id"`
	RequestedByUserID string `json:"requestedByUserId"`
	RequestedAt       string `json:"requestedAt"`
	Status            string `json:"status"`
	Note              string `json:"note"`
}

// promotionRequests handles GET .../promotion-requests, the one per-agent
// GET allowed on private agents.
func promotionRequests(store Store) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		_, a, err := readAgent(r, store, true)
		if err != nil {
			return err
		}
		out := []PromotionRequest{}
		for _, p := range a.PromotionRequestList() {
			out = append(out, PromotionRequest{ID: p.ID, RequestedByUserID: p.RequestedByUserID,
				RequestedAt: workspace.FormatTime(p.RequestedAt), Status: p.Status, Note: p.Note})
		}
		httpapi.JSON(w, http.StatusOK, map[string]any{"promotionRequests": out})
		return nil
	}
}

// connectedAgent is one entry of GET .../connected-agents; groupId and
// groupName, its team's, are always present: null for an agent without a
// team.
type connectedAgent struct {
	ID                   string  `json:"id"`
	Name                 string  `json:"name"`
	Description          string  `json:"description"`
	ImageURL             string  `json:"imageUrl"`
	GroupID              *string `json:"groupId"`
	GroupName            *string `json:"groupName"`
	AgentDiscoverability string  `json:"agentDiscoverability"`
}

type connectionsResponse struct {
	Outbound  []connectedAgent `json:"outbound"`
	Inbound   []connectedAgent `json:"inbound"`
	Available []connectedAgent `json:"available"`
}

// connectedAgents handles GET .../connected-agents: the agent, every agent
// of the workspace (real connections cross teams, and an agent's inbound
// connections are found only in the agents that make them) and the names
// of the teams of the agents answered (one BatchGetItem per 100 teams).
func connectedAgents(store Store) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, a, err := readAgent(r, store, false)
		if err != nil {
			return err
		}
		all, err := store.AllAgents(r.Context(), caller.WorkspaceID, "")
		if err != nil {
			return err
		}
		inScope := all
		if caller.TeamScoped() {
			inScope = nil
			for _, o := range all {
				if o.TeamID == caller.TeamID {
					inScope = append(inScope, o)
				}
			}
		}
		c := workspace.Connect(a, all, inScope)
		var teamIDs []string
		for _, as := range [][]workspace.Agent{c.Outbound, c.Inbound, c.Available} {
			for _, o := range as {
				if o.TeamID != "" && !slices.Contains(teamIDs, o.TeamID) {
					teamIDs = append(teamIDs, o.TeamID)
				}
			}
		}
		names, err := store.TeamNames(r.Context(), caller.WorkspaceID, teamIDs)
		if err != nil {
			return err
		}
		entries := func(as []workspace.Agent) []connectedAgent {
			out := make([]connectedAgent, len(as))
			for i, o := range as {
				out[i] = connectedAgent{ID: o.ID, Name: o.Name, Description: o.Description, ImageURL: o.ImageURL,
					AgentDiscoverability: o.AgentDiscoverability}
				if o.TeamID != "" {
					id, name := o.TeamID, names[o.TeamID]
					out[i].GroupID, out[i].GroupName = &id, &name
				}
			}
			return out
		}
		httpapi.JSON(w, http.StatusOK, connectionsResponse{Outbound: entries(c.Outbound), Inbound: entries(c.Inbound), Available: entries(c.Available)})
		return nil
	}
}
