package workspace

import "context"

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

// ErrCreateTeamForbidden is the 403 of POST /workspaceapi/teams from a key
// whose owner is not a workspace admin.
var ErrCreateTeamForbidden = Forbidden("only workspace admins can create teams")

// ErrChangeTeamForbidden is the 403 of a rename, a membership change or a
// team credit limit from a key whose owner is neither a workspace admin nor
// an admin of that team. A team that does not exist, or is another
// workspace's, answers it too, so the 403 tells nothing about other teams.
var ErrChangeTeamForbidden = Forbidden("only workspace admins and the team's admins can change this team")

// CanCreateTeam returns ErrCreateTeamForbidden unless c's owner is a
// workspace admin: creating a team needs the workspace admin role.
func CanCreateTeam(c Caller) error {
	if c.Role != RoleAdmin {
		return ErrCreateTeamForbidden
	}
	return nil
}

// CanChangeTeam returns ErrChangeTeamForbidden unless c's owner is a
// workspace admin or roleInTeam, the owner's role in the team being changed
// ("" when not in it), is TeamRoleAdmin: renaming a team, changing its
// members and setting its monthly credit limit need one or the other.
func CanChangeTeam(c Caller, roleInTeam TeamRole) error {
	if c.Role == RoleAdmin {
		return nil
	}
	return CanChangeTeamAsAdmin(roleInTeam)
}

// CanChangeTeamAsAdmin returns ErrChangeTeamForbidden unless roleInTeam is
// TeamRoleAdmin: the rule of a change whose right rests on the caller's
// team role (MayChangeTeam's asTeamAdmin), which the store applies again to
// the role its write reads.
func CanChangeTeamAsAdmin(roleInTeam TeamRole) error {
	if roleInTeam != TeamRoleAdmin {
		return ErrChangeTeamForbidden
	}
	return nil
}

// NeedsTeamRole reports whether CanChangeTeam's answer for c depends on the
// owner's role in the team, so it must be read: not for a workspace admin.
func NeedsTeamRole(c Caller) bool { return c.Role != RoleAdmin }

// MemberReader reads a key owner's member item, whose teams hold their team
// roles.
type MemberReader interface {
	Member(ctx context.Context, ws, userID string) (Member, error)
}

// MayChangeTeam returns nil when c may change team teamID, and
// ErrChangeTeamForbidden otherwise (CanChangeTeam): a workspace admin at
// once, anyone else after one read of their own member item. The owner's
// member item gone (they left; the gateway caches its decision for a while)
// is no role. asTeamAdmin reports that c may change the team only as its
// admin: the write must then hold only while they still are one, since a
// demotion may land between this read and the write.
func MayChangeTeam(ctx context.Context, members MemberReader, c Caller, teamID string) (asTeamAdmin bool, err error) {
	if !NeedsTeamRole(c) {
		return false, nil
	}
	m, err := members.Member(ctx, c.WorkspaceID, c.UserID)
	if err != nil && !IsNotFound(err) {
		return false, err
	}
	return true, CanChangeTeam(c, m.RoleIn(teamID))
}

// ErrAuditLogForbidden is the 403 of the audit log from a key whose owner is
// not a workspace admin.
var ErrAuditLogForbidden = Forbidden("only workspace admins can read the audit log")

// CanReadAuditLog returns ErrAuditLogForbidden unless c's owner is a
// workspace admin: the audit log shows every change to the workspace.
func CanReadAuditLog(c Caller) error {
	if c.Role != RoleAdmin {
		return ErrAuditLogForbidden
	}
	return nil
}
