package workspace

// Role is a member's workspace role.
type Role string

// Workspace roles. RoleMember is shown as "Creator" in the product.
const (
	RoleAdmin        Role = "admin"
	RoleMember       Role = "member"
	RoleCollaborator Role = "collaborator"
)

// Valid reports whether r is a workspace role.
func (r Role) Valid() bool {
	return r == RoleAdmin || r == RoleMember || r == RoleCollaborator
}

// TeamRole is a member's role within one team.
type TeamRole string

// Team roles.
const (
	TeamRoleAdmin  TeamRole = "admin"
	TeamRoleMember TeamRole = "member"
	TeamRoleGuest  TeamRole = "guest"
)

// Valid reports whether r is a team role.
func (r TeamRole) Valid() bool {
	return r == TeamRoleAdmin || r == TeamRoleMember || r == TeamRoleGuest
}
