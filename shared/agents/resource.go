package agents

import (
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Resource is an agent as GET /workspaceapi/agents lists it.
type Resource struct {
	ID                   string   `json:"id"`
	Name                 string   `json:"name"`
	Description          string   `json:"description"`
	ImageURL             string   `json:"imageUrl"`
	TeamID               *string  `json:"teamId"` // null: no team
	IsPrivate            bool     `json:"isPrivate"`
	AgentDiscoverability string   `json:"agentDiscoverability"`
	Tags                 []string `json:"tags"`
	// Overview is present only with includeOverview=true.
	Overview *Overview `json:"overview,omitempty"`
}

// Overview is an agent's credit standing in the current UTC day and month
// (docs/endpoints.md, Agents).
type Overview struct {
	httpapi.AgentState
	DailyCreditLimit          *float64 `json:"dailyCreditLimit"`
	EffectiveDailyCreditLimit *float64 `json:"effectiveDailyCreditLimit"`
	MonthlyCreditLimit        *float64 `json:"monthlyCreditLimit"`
	CreditsToday              float64  `json:"creditsToday"`
	CreditsThisMonth          float64  `json:"creditsThisMonth"`
	ShowTokenOptimisationInfo bool     `json:"showTokenOptimisationInfo"`
	LastActivityAt            *string  `json:"lastActivityAt"` // null: no usage recorded
}

// NewResource returns a's listed form, without overview.
func NewResource(a workspace.Agent) Resource {
	r := Resource{
		ID: a.ID, Name: a.Name, Description: a.Description, ImageURL: a.ImageURL,
		IsPrivate: a.IsPrivate, AgentDiscoverability: a.AgentDiscoverability, Tags: a.Tags,
	}
	if a.TeamID != "" {
		team := a.TeamID
		r.TeamID = &team
	}
	if r.Tags == nil {
		r.Tags = []string{}
	}
	return r
}

// NewOverview returns the overview of agent a whose credit standing is c.
func NewOverview(a workspace.Agent, c workspace.AgentCredit) *Overview {
	limits := c.Limits()
	o := &Overview{
		AgentState:       httpapi.NewAgentState(c.State()),
		DailyCreditLimit: limits.Daily, EffectiveDailyCreditLimit: limits.EffectiveDaily, MonthlyCreditLimit: limits.Monthly,
		CreditsToday: c.Position.Today, CreditsThisMonth: c.Position.Month,
		ShowTokenOptimisationInfo: a.ShowTokenOptimisationInfo,
	}
	if !c.LastActivityAt.IsZero() {
		at := workspace.FormatTime(c.LastActivityAt)
		o.LastActivityAt = &at
	}
	return o
}
