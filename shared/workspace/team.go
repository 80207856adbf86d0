package workspace

import "time"

// Team is a group of a workspace's members and agents that can share a monthly
// credit limit. Team settings must be enabled for the workspace to use teams.
type Team struct {
	ID          string
	WorkspaceID string // the owning workspace
	Name        string
	// MonthlyCreditLimit is the credits all of the team's agents may use
	// together per UTC calendar month; nil: no limit.
	MonthlyCreditLimit *float64
	Tags               []string
	CreatedAt          time.Time
}

// TeamMembership is one member's role in one team.
type TeamMembership struct {
	WorkspaceID string // the owning workspace
	TeamID      string
	UserID      string
	Role        TeamRole
}
