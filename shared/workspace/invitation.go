package workspace

import (
	"slices"
	"strings"
	"time"
)

// Invitation types (docs/endpoints.md).
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
	// MaxInviteTeams bounds the teams one invitation names (docs/bounds.md).
	MaxInviteTeams = 100
)

// DefaultInviteRetention is how long an expired invitation stays listed
// after its expiry before it and its e-mail claim are removed (docs/bounds.md);
// deployments set their own with the InviteRetentionDays parameter.
const DefaultInviteRetention = 180 * 24 * time.Hour

// Group is one team an invitee joins on accepting.
type Group struct {
	GroupID string
	Role    string
}

// AgentAccess is the agent a guest invitation from an agent's access page grants.
type AgentAccess struct {
	AgentID string
	Level   string
}

// Invitation is an invitation to join a workspace. Its status is not stored:
// it follows from ExpiresAt (see Status).
type Invitation struct {
	ID            string
	Type          string
	Email         string
	WorkspaceID   string
	WorkspaceName string
	// Role is the workspace role the invitee gets on accepting.
	Role              string
	CreatedAt         time.Time
	ExpiresAt         time.Time
	InvitedByUserName string
	DisplayName       string
	Groups            []Group
	AgentAccess       *AgentAccess

	// HoldsSeat is true while the invitation counts against the workspace's
	// seats; an expired invitation's seat is released lazily.
	HoldsSeat bool
	// RemoveAt is when the table's time to live removes the invitation and
	// its e-mail claim: its expiry plus the retention period.
	RemoveAt time.Time
}

// Expired reports whether the invitation has expired at now.
func (inv Invitation) Expired(now time.Time) bool { return !now.Before(inv.ExpiresAt) }

// Status returns InviteStatusPending or InviteStatusExpired as it stands at now.
func (inv Invitation) Status(now time.Time) string {
	if inv.Expired(now) {
		return InviteStatusExpired
	}
	return InviteStatusPending
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
// returns a KindInvalid error naming the first field that breaks one. An e-mail
// holding key-shaped text is refused, never echoed. A team id over MaxIDLength
// is not an error here: like any unknown id it is not found.
func (r InviteRequest) Validate() error {
	if r.Email == nil {
		return Invalid("email is required")
	}
	if err := ValidateEmail(*r.Email); err != nil {
		return err
	}
	if ContainsKey(*r.Email) {
		// The pattern allows wk_ in a local part, but the address would be
		// stored, listed, mailed and logged: no key-shaped text may be
		// (docs/bounds.md), and this is most likely a key pasted by mistake.
		return Invalid("email looks like it holds an API key (not shown); keys go only in the Authorization header")
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
	if len(r.Teams) > MaxInviteTeams {
		return Invalid("teams may list at most %d teams", MaxInviteTeams)
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
			return Invalid("teams[%d].teamId repeats a team listed before", i)
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

// TeamIDs returns the ids of the teams the request names that could exist,
// in order: an id over MaxIDLength is left out, since no team has it.
func (r InviteRequest) TeamIDs() []string {
	ids := make([]string, 0, len(r.Teams))
	for _, t := range r.Teams {
		if PlausibleID(t.TeamID) {
			ids = append(ids, t.TeamID)
		}
	}
	return ids
}

// Errors of the invitation rules that the store enforces atomically; the
// store returns these very values, so each message is written once.
var (
	ErrAlreadyMember  = Invalid("this person is already a member of the workspace")
	ErrAlreadyInvited = Invalid("this person already has a pending invitation")
	ErrNoSeats        = Forbidden("the workspace has no free seats")
)

// CheckInviteSettings applies the rules of POST /workspaceapi/invites that
// need only the workspace's settings: team settings (400), then the e-mail
// domain (400). They run before any team is read.
func CheckInviteSettings(req InviteRequest, ws Workspace) error {
	if len(req.Teams) > 0 && !ws.TeamSettingsEnabled {
		return Invalid("teams cannot be set: team settings are not enabled for this workspace")
	}
	if !ws.AllowsDomainOf(*req.Email) {
		return Invalid("the e-mail domain %q is not allowed in this workspace", EmailDomain(*req.Email))
	}
	return nil
}

// CheckInvite applies the rules of POST /workspaceapi/invites that need the
// workspace's stored state, in the order the endpoint documents them:
// CheckInviteSettings, unknown teams (404), an existing member or pending
// invitation (400). teams holds the requested team ids that exist. Free seats
// (403) are checked when the invitation is stored, since only the storing
// write can hold them under concurrency.
func CheckInvite(req InviteRequest, ws Workspace, teams map[string]bool, claim EmailClaim, now time.Time) error {
	if err := CheckInviteSettings(req, ws); err != nil {
		return err
	}
	for i, t := range req.Teams {
		if !teams[t.TeamID] {
			// The id is not repeated: it may be long, or not an id at all.
			return NotFound("teams[%d].teamId: team not found", i)
		}
	}
	return claim.Taken(now)
}

// SeatChange is how an invitation's creation changes its workspace's used
// seats: it takes one, unless the expired invitation it replaces passes on
// the seat it still holds, and each expired invitation whose seat the
// creation releases frees one.
func SeatChange(inheritsSeat bool, released int) int {
	if inheritsSeat {
		return -released
	}
	return 1 - released
}

// NewInvitation builds the invitation a valid request creates at now: it holds
// a seat and is removed retention after it expires.
func NewInvitation(id string, req InviteRequest, ws Workspace, inviter Member, now time.Time, retention time.Duration) Invitation {
	expires := now.Add(time.Duration(req.Days()) * 24 * time.Hour)
	inv := Invitation{
		ID: id, Type: InviteTypeWorkspace, Email: *req.Email,
		WorkspaceID: ws.ID, WorkspaceName: ws.Name, Role: *req.Role,
		CreatedAt: now, ExpiresAt: expires, InvitedByUserName: inviter.Name,
		HoldsSeat: true, RemoveAt: expires.Add(retention),
	}
	for _, t := range req.Teams {
		inv.Groups = append(inv.Groups, Group{GroupID: t.TeamID, Role: t.Role})
	}
	return inv
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
	// WebhookThresholds is the union of its webhook subscriptions'
	// thresholds, kept by their writes (ThresholdsOf).
	WebhookThresholds []int
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
	// Teams are the teams the member belongs to, in team id order; kept on
	// the member so the members list reads no other item.
	Teams []MemberTeam
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

// Taken is the error of inviting the address c claims at now: a member's
// (ErrAlreadyMember) or a pending invitation's (ErrAlreadyInvited); nil when
// it is free or only an expired invitation holds it.
func (c EmailClaim) Taken(now time.Time) error {
	if c.MemberID != "" {
		return ErrAlreadyMember
	}
	if c.PendingInvite(now) {
		return ErrAlreadyInvited
	}
	return nil
}

// PendingInvite reports whether an unexpired invitation holds the address at now.
func (c EmailClaim) PendingInvite(now time.Time) bool {
	return c.InviteID != "" && now.Before(c.InviteExpiresAt)
}
