package workspace

import (
	"slices"
	"strings"
	"time"
)

// Invitation types (decisions §5).
const (
	InviteTypeWorkspace  = "workspace"
	InviteTypeAgentGuest = "agent_guest"
)

// Invitation statuses; only these two are ever listed.
const (
	InviteStatusPending = "pending"
	InviteStatusExpired = "expired"
)

// Limits of POST /workspaceapi/invites.
const (
	MinInviteDays     = 1
	MaxInviteDays     = 90
	DefaultInviteDays = 7
)

// Group is one team an invitee joins on accepting.
type Group struct {
	GroupID string `json:"groupId"`
	Role    string `json:"role"`
}

// AgentAccess is the agent a guest invitation from an agent's access page grants.
type AgentAccess struct {
	AgentID string `json:"agentId"`
	Level   string `json:"level"`
}

// Invitation is an invitation to join a workspace, in the shape the API returns.
// Status and IsExpired are derived from ExpiresAt when it is listed (see AsOf).
type Invitation struct {
	ID                string       `json:"id"`
	Type              string       `json:"type"`
	Email             string       `json:"email"`
	CustomerID        string       `json:"customerId"`
	CustomerName      string       `json:"customerName,omitempty"`
	CustomerRole      string       `json:"customerRole,omitempty"`
	Status            string       `json:"status"`
	CreatedAt         string       `json:"createdAt"`
	ExpiresAt         string       `json:"expiresAt"`
	IsExpired         bool         `json:"isExpired"`
	InvitedByUserName string       `json:"invitedByUserName,omitempty"`
	DisplayName       string       `json:"displayName,omitempty"`
	Groups            []Group      `json:"groups,omitempty"`
	AgentAccess       *AgentAccess `json:"agentAccess,omitempty"`

	// HoldsSeat is true while the invitation counts against the workspace's
	// seats; an expired invitation's seat is released lazily. Never listed.
	HoldsSeat bool `json:"-"`
}

// Expired reports whether the invitation has expired at now. An unparsable
// expiry counts as expired.
func (inv Invitation) Expired(now time.Time) bool {
	exp, err := time.Parse(time.RFC3339Nano, inv.ExpiresAt)
	return err != nil || !now.Before(exp)
}

// AsOf returns the invitation with Status and IsExpired as they stand at now.
func (inv Invitation) AsOf(now time.Time) Invitation {
	inv.IsExpired = inv.Expired(now)
	inv.Status = InviteStatusPending
	if inv.IsExpired {
		inv.Status = InviteStatusExpired
	}
	return inv
}

// TeamInvite is one element of a request's teams.
type TeamInvite struct {
	TeamID string `json:"teamId"`
	Role   string `json:"role"`
}

// InviteRequest is the body of POST /workspaceapi/invites.
type InviteRequest struct {
	Email         *string      `json:"email"`
	Role          *string      `json:"role"`
	Teams         []TeamInvite `json:"teams"`
	ExpiresInDays *int         `json:"expiresInDays"`
}

// Validate checks the request's own rules (those needing no stored state) and
// returns a KindInvalid error naming the first field that breaks one.
func (r InviteRequest) Validate() error {
	if r.Email == nil {
		return Invalid("email is required")
	}
	if err := ValidateEmail(*r.Email); err != nil {
		return err
	}
	if r.Role == nil {
		return Invalid("role is required")
	}
	switch Role(*r.Role) {
	case RoleMember, RoleCollaborator:
	case RoleAdmin:
		return Invalid("admins cannot be invited through the API; invite as member or collaborator")
	default:
		if *r.Role == string(TeamRoleGuest) {
			return Invalid("guests cannot be invited through the API; invite as member or collaborator")
		}
		return Invalid("role must be one of: member, collaborator")
	}
	seen := make(map[string]bool, len(r.Teams))
	for i, t := range r.Teams {
		if strings.TrimSpace(t.TeamID) == "" {
			return Invalid("teams[%d].teamId is required", i)
		}
		if t.Role == "" {
			return Invalid("teams[%d].role is required", i)
		}
		if !TeamRole(t.Role).Valid() {
			return Invalid("teams[%d].role must be one of: admin, member, guest", i)
		}
		if seen[t.TeamID] {
			return Invalid("teams lists team %q more than once", t.TeamID)
		}
		seen[t.TeamID] = true
	}
	if d := r.ExpiresInDays; d != nil && (*d < MinInviteDays || *d > MaxInviteDays) {
		return Invalid("expiresInDays must be between %d and %d", MinInviteDays, MaxInviteDays)
	}
	return nil
}

// Days returns the requested lifetime in days, the default when not given.
func (r InviteRequest) Days() int {
	if r.ExpiresInDays == nil {
		return DefaultInviteDays
	}
	return *r.ExpiresInDays
}

// TeamIDs returns the ids of the teams the request names, in order.
func (r InviteRequest) TeamIDs() []string {
	ids := make([]string, len(r.Teams))
	for i, t := range r.Teams {
		ids[i] = t.TeamID
	}
	return ids
}

// Workspace is a tenant's workspace and the settings the API enforces.
type Workspace struct {
	ID                      string
	Name                    string
	Seats                   int
	SeatsUsed               int // members plus invitations holding a seat
	TeamSettingsEnabled     bool
	AllowedEmailDomains     []string // empty: any domain
	DefaultDailyCreditLimit *float64
}

// AllowsDomainOf reports whether email's whole domain is allowed, compared
// case-insensitively; subdomains of an allowed domain are not allowed.
func (w Workspace) AllowsDomainOf(email string) bool {
	if len(w.AllowedEmailDomains) == 0 {
		return true
	}
	d := EmailDomain(email)
	return slices.ContainsFunc(w.AllowedEmailDomains, func(a string) bool { return strings.EqualFold(a, d) })
}

// Member is a person in a workspace.
type Member struct {
	ID          string
	WorkspaceID string
	Email       string
	Name        string
	Role        Role
	Tags        []string
	JoinedAt    time.Time
}

// EmailClaim tells who holds an e-mail address in a workspace: a member, an
// invitation, or nobody (both empty).
type EmailClaim struct {
	MemberID string
	InviteID string
	// InviteExpiresAt and InviteHoldsSeat describe the claiming invitation.
	InviteExpiresAt time.Time
	InviteHoldsSeat bool
}

// PendingInvite reports whether an unexpired invitation holds the address at now.
func (c EmailClaim) PendingInvite(now time.Time) bool {
	return c.InviteID != "" && now.Before(c.InviteExpiresAt)
}

// Free reports whether nobody holds the address.
func (c EmailClaim) Free() bool { return c.MemberID == "" && c.InviteID == "" }
