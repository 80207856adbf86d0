package workspace

import "time"

// Team is a group of a workspace's members and agents that can share a monthly
// credit limit. Team settings must be enabled for the workspace to use teams.
type Team struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"-"` // the owning workspace; never shown, the key implies it
	Name        string `json:"name"`
	// MonthlyCreditLimit is the credits all of the team's agents may use
	// together per UTC calendar month; nil: no limit.
	MonthlyCreditLimit *float64  `json:"monthlyCreditLimit"`
	Tags               []string  `json:"tags"`
	CreatedAt          time.Time `json:"createdAt"`
}

// TeamMembership is one member's role in one team.
type TeamMembership struct {
	WorkspaceID string   `json:"-"` // the owning workspace; never shown
	TeamID      string   `json:"teamId"`
	UserID      string   `json:"userId"`
	Role        TeamRole `json:"role"`
}
