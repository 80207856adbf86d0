package teams

import "github.com/agentplatform/workspaceapi/shared/workspace"

// Summary is a team as GET /workspaceapi/teams lists it: the team's own
// fields, without the members, agents and credit figures that only
// GET /workspaceapi/teams/{teamId} reads.
type Summary struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	MonthlyCreditLimit *float64 `json:"monthlyCreditLimit"`
	Tags               []string `json:"tags"`
	CreatedAt          string   `json:"createdAt"`
}

// Resource is a team as GET /workspaceapi/teams/{teamId} shows it
// (docs/endpoints.md).
type Resource struct {
	ID                 string       `json:"id"`
	Name               string       `json:"name"`
	MonthlyCreditLimit *float64     `json:"monthlyCreditLimit"`
	CreditsThisMonth   float64      `json:"creditsThisMonth"`
	Paused             bool         `json:"paused"`
	Tags               []string     `json:"tags"`
	Members            []TeamMember `json:"members"`
	AgentIDs           []string     `json:"agentIds"`
	CreatedAt          string       `json:"createdAt"`
}

// TeamMember is one member of a team, with their role in it: GET
// /workspaceapi/teams/{teamId} lists a team's members in it, and fixtures
// give a team's memberships in it.
type TeamMember struct {
	UserID string `json:"userId"`
	Role   string `json:"role"`
}

// Membership is the answer of PUT /workspaceapi/teams/{teamId}/members/{userId}.
type Membership struct {
	TeamID string `json:"teamId"`
	UserID string `json:"userId"`
	Role   string `json:"role"`
}

// NewSummary returns t's listed form.
func NewSummary(t workspace.Team) Summary {
	return Summary{ID: t.ID, Name: t.Name, MonthlyCreditLimit: t.MonthlyCreditLimit, Tags: orEmpty(t.Tags),
		CreatedAt: workspace.FormatTime(t.CreatedAt)}
}

// NewResource returns d's wire form.
func NewResource(d workspace.TeamDetail) Resource {
	r := Resource{
		ID: d.Team.ID, Name: d.Team.Name, MonthlyCreditLimit: d.Team.MonthlyCreditLimit,
		CreditsThisMonth: d.CreditsThisMonth, Paused: d.Paused, Tags: orEmpty(d.Team.Tags),
		Members: make([]TeamMember, len(d.Members)), AgentIDs: orEmpty(d.AgentIDs),
		CreatedAt: workspace.FormatTime(d.Team.CreatedAt),
	}
	for i, m := range d.Members {
		r.Members[i] = TeamMember{UserID: m.UserID, Role: string(m.Role)}
	}
	return r
}

// orEmpty returns s, or an empty list when s is nil, so lists are never null.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
