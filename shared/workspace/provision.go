package workspace

import (
	"slices"
	"strings"
	"time"
)

// Provisioning (docs/ingest-events.md, Provisioning events): the platform
// brings workspaces, members and agents into the service with ingest
// events, each carrying a version that grows per entity. The rules below
// decide what one event changes, on the state the store read; the store
// commits the outcome conditioned on that state.

// SystemPlatform is the actor of every change a provisioning event makes.
const SystemPlatform SystemActorName = "platform"

// TargetWorkspace is the target of the workspace's own entries.
const TargetWorkspace TargetType = "workspace"

// The audit actions of provisioning events.
const (
	ActionWorkspaceCreated AuditAction = "workspace.created"
	ActionWorkspaceUpdated AuditAction = "workspace.updated"
	ActionMemberAdded      AuditAction = "member.added"
	ActionMemberUpdated    AuditAction = "member.updated"
	ActionMemberRemoved    AuditAction = "member.removed"
	ActionInviteAccepted   AuditAction = "invite.accepted"
	ActionAgentAdded       AuditAction = "agent.added"
	ActionAgentUpdated     AuditAction = "agent.updated"
	ActionAgentRemoved     AuditAction = "agent.removed"
)

// Bounds of provisioning events (docs/bounds.md), checked before anything
// is read.
const (
	// MaxProvisionVersion is the largest version: integers above 2^53 lose
	// their exactness in JSON numbers.
	MaxProvisionVersion = 1<<53 - 1
	// MaxWorkspaceSeats bounds a workspace's seats.
	MaxWorkspaceSeats = 1_000_000
	// MaxAllowedEmailDomains bounds a workspace's allowed e-mail domains.
	MaxAllowedEmailDomains = 100
	// MaxAgentKeyMetrics bounds an agent's key metric definitions.
	MaxAgentKeyMetrics = 50
	// MaxAgentConnections bounds the agents one agent connects to.
	MaxAgentConnections = 1000
	// MaxAcceptedTeams bounds the teams of an invitation that invite.accepted
	// can turn into memberships: the acceptance is one transaction of at most
	// 100 items, and eight of them are the event's marker, the invitation,
	// the e-mail claim, the member, the seat, the version, the audit entry
	// and one to spare.
	MaxAcceptedTeams = 92
)

// Provisioned is what the store keeps of a provisioned entity beside the
// entity itself, and keeps after the entity is removed: the newest version
// applied, and whether that version removed it. The zero Provisioned is an
// entity no event has touched (version 0; fixture and API entities).
type Provisioned struct {
	Version int64
	Removed bool
	// Name is a removed agent's name, kept for the usage export's rows.
	Name string
}

// Newer reports whether version is above the one stored: only such an
// event changes anything; any other is a no-op, never a failure, so an
// older version never overwrites a newer one and a redelivery changes nothing.
func (p Provisioned) Newer(version int64) bool { return version > p.Version }

// Provision is the part every provisioning event shares.
type Provision struct {
	EventID     string
	WorkspaceID string
	Version     int64
	// By is who the audit log names for the changes; nil is the platform.
	// An operator's tool loading a fixture through the same code may pass
	// Unrecorded.
	By *Actor
	// Create makes an upsert a creation only, as an operator's tool makes
	// one (wsadmin workspace create, the fixture loader): an entity that
	// exists, or that an event has touched, fails with ErrAlreadyProvisioned
	// and nothing is written. Such a creation carries version 0, the
	// version of an entity no event has touched, so the platform's first
	// event for it (version 1) applies over it.
	Create bool
}

// ErrAlreadyProvisioned is the failure of a creation (Provision.Create) of
// an entity that exists or that an event has touched: a creation never
// writes over one.
var ErrAlreadyProvisioned = Conflict("it already exists (or a provisioning event touched it); a creation never writes over it")

// applies reports whether an upsert at p changes an entity that exists or
// not, whose provisioning record is stored: a newer version does; a
// creation does when the entity neither exists nor was touched, and fails
// otherwise.
func (p Provision) applies(stored Provisioned, exists bool) (bool, error) {
	if !p.Create {
		return stored.Newer(p.Version), nil
	}
	if exists || stored.Version > 0 {
		return false, ErrAlreadyProvisioned
	}
	return true, nil
}

// Actor is who the audit log names for p's changes.
func (p Provision) Actor() Actor {
	if p.By != nil {
		return *p.By
	}
	return platform
}

// WorkspaceFields are a workspace.upserted event's fields; a nil or omitted
// one is left as stored on an update.
type WorkspaceFields struct {
	Name                    *string
	Seats                   *int
	TeamSettingsEnabled     *bool
	AllowedEmailDomains     *[]string
	DefaultDailyCreditLimit Nullable[float64]
}

// platform is the actor of provisioning changes.
var platform = SystemActor(SystemPlatform)

// DecideWorkspace decides workspace.upserted on the workspace read (nil:
// none) and its provisioning record: apply is false for a version not
// above the stored one. A new workspace needs name and seats; it starts
// with no seat used. The entry is workspace.created, or workspace.updated
// with the fields that change (none when nothing does).
func DecideWorkspace(p Provision, current *Workspace, stored Provisioned, f WorkspaceFields, at time.Time) (after Workspace, entries []AuditEntry, apply bool, err error) {
	if ok, err := p.applies(stored, current != nil); !ok {
		return Workspace{}, nil, false, err
	}
	target := AuditTarget{Type: TargetWorkspace, ID: p.WorkspaceID}
	if current == nil {
		if f.Name == nil || f.Seats == nil {
			return Workspace{}, nil, false, Invalid("workspace.name and workspace.seats are required for a new workspace")
		}
		after = Workspace{ID: p.WorkspaceID, AllowedEmailDomains: []string{}}
		changes := applyWorkspace(&after, f, true)
		return after, []AuditEntry{NewAuditEntry(at, p.Actor(), ActionWorkspaceCreated, target, changes)}, true, nil
	}
	after = *current
	if changes := applyWorkspace(&after, f, false); len(changes) > 0 {
		entries = []AuditEntry{NewAuditEntry(at, p.Actor(), ActionWorkspaceUpdated, target, changes)}
	}
	return after, entries, true, nil
}

// applyWorkspace sets f's fields on w and returns what changed (every field
// given, from null, when all is set).
func applyWorkspace(w *Workspace, f WorkspaceFields, all bool) Changes {
	c := Changes{}
	if f.Name != nil && (all || *f.Name != w.Name) {
		c["name"] = Change{From: fromValue(all, w.Name), To: *f.Name}
		w.Name = *f.Name
	}
	if f.Seats != nil && (all || *f.Seats != w.Seats) {
		c["seats"] = Change{From: fromValue(all, w.Seats), To: *f.Seats}
		w.Seats = *f.Seats
	}
	if f.TeamSettingsEnabled != nil && (all || *f.TeamSettingsEnabled != w.TeamSettingsEnabled) {
		c["teamSettingsEnabled"] = Change{From: fromValue(all, w.TeamSettingsEnabled), To: *f.TeamSettingsEnabled}
		w.TeamSettingsEnabled = *f.TeamSettingsEnabled
	}
	if f.AllowedEmailDomains != nil && (all || !slices.Equal(*f.AllowedEmailDomains, w.AllowedEmailDomains)) {
		c["allowedEmailDomains"] = Change{From: fromValue(all, stringsValue(w.AllowedEmailDomains)), To: stringsValue(*f.AllowedEmailDomains)}
		w.AllowedEmailDomains = slices.Clone(*f.AllowedEmailDomains)
	}
	if !f.DefaultDailyCreditLimit.Omitted() {
		var to *float64
		if v, ok := f.DefaultDailyCreditLimit.Get(); ok {
			to = &v
		}
		if all || !sameLimit(w.DefaultDailyCreditLimit, to) {
			c["defaultDailyCreditLimit"] = Change{From: fromValue(all, limitValue(w.DefaultDailyCreditLimit)), To: limitValue(to)}
			w.DefaultDailyCreditLimit = to
		}
	}
	return c
}

// fromValue is a change's from: null for a new entity.
func fromValue(created bool, v any) any {
	if created {
		return nil
	}
	return v
}

// stringsValue is a list of strings as an entry holds it.
func stringsValue(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// MemberFields are a member.upserted event's fields; a nil one is left as
// stored on an update.
type MemberFields struct {
	Email    *string
	Name     *string
	Role     *Role
	JoinedAt *time.Time
}

// MemberDecision is what member.upserted changes.
type MemberDecision struct {
	Apply bool
	// New is true when the member joins: a seat is taken.
	New    bool
	Member Member
	// EmailChanged is true when the member's address moves to a new claim.
	EmailChanged bool
	Entries      []AuditEntry
}

// ErrAddressInvited is the failure of a member.upserted whose address an
// invitation holds: the invitation becomes a member through invite.accepted.
var ErrAddressInvited = Conflict("the member's e-mail address has an invitation in this workspace; accept it with invite.accepted, or revoke it first")

// ErrAddressOfOtherMember is the failure of a member.upserted whose address
// another member holds.
var ErrAddressOfOtherMember = Conflict("another member of the workspace has this e-mail address")

// DecideMember decides member.upserted for user id on the member read (nil:
// none), its provisioning record and claim, the claim on the event's e-mail
// address (read when it differs from the member's). A new member needs
// email, name and role; joinedAt defaults to at; tags and teams start
// empty and stay the API's. The seat is taken whatever the workspace's
// seats: the platform decides who is a member (a workspace with fewer seats
// than members keeps them; new invitations then answer 403).
func DecideMember(p Provision, id string, current *Member, stored Provisioned, f MemberFields, claim EmailClaim, at time.Time) (MemberDecision, error) {
	if ok, err := p.applies(stored, current != nil); !ok {
		return MemberDecision{}, err
	}
	target := AuditTarget{Type: TargetMember, ID: id}
	d := MemberDecision{Apply: true}
	if f.Email != nil && (current == nil || !strings.EqualFold(*f.Email, current.Email)) {
		switch {
		case claim.MemberID != "" && claim.MemberID != id:
			return MemberDecision{}, ErrAddressOfOtherMember
		case claim.InviteID != "":
			return MemberDecision{}, ErrAddressInvited
		}
		d.EmailChanged = true
	}
	if current == nil {
		if f.Email == nil || f.Name == nil || f.Role == nil {
			return MemberDecision{}, Invalid("member.email, member.name and member.role are required for a new member")
		}
		joined := at
		if f.JoinedAt != nil {
			joined = *f.JoinedAt
		}
		d.New = true
		d.Member = Member{ID: id, WorkspaceID: p.WorkspaceID, Email: *f.Email, Name: *f.Name, Role: *f.Role,
			Tags: []string{}, JoinedAt: joined.UTC(), Teams: []MemberTeam{}}
		d.Entries = []AuditEntry{NewAuditEntry(at, p.Actor(), ActionMemberAdded, target, Changes{
			"email": {To: d.Member.Email}, "name": {To: d.Member.Name}, "role": {To: string(d.Member.Role)},
			"joinedAt": {To: FormatTime(d.Member.JoinedAt)},
		})}
		return d, nil
	}
	d.Member = *current
	c := Changes{}
	if f.Email != nil && *f.Email != current.Email {
		c["email"] = Change{From: current.Email, To: *f.Email}
		d.Member.Email = *f.Email
	}
	if f.Name != nil && *f.Name != current.Name {
		c["name"] = Change{From: current.Name, To: *f.Name}
		d.Member.Name = *f.Name
	}
	if f.Role != nil && *f.Role != current.Role {
		c["role"] = Change{From: string(current.Role), To: string(*f.Role)}
		d.Member.Role = *f.Role
	}
	if f.JoinedAt != nil && !f.JoinedAt.Equal(current.JoinedAt) {
		c["joinedAt"] = Change{From: FormatTime(current.JoinedAt), To: FormatTime(*f.JoinedAt)}
		d.Member.JoinedAt = f.JoinedAt.UTC()
	}
	if len(c) > 0 {
		d.Entries = []AuditEntry{NewAuditEntry(at, p.Actor(), ActionMemberUpdated, target, c)}
	}
	return d, nil
}

// RemovalDecision is what member.removed or agent.removed changes.
type RemovalDecision struct {
	Apply bool
	// Remove is true when the entity exists and leaves; with Apply alone,
	// only the version is recorded, so that an older upsert arriving later
	// does not bring it back.
	Remove  bool
	Entries []AuditEntry
}

// DecideMemberRemoval decides member.removed for user id on the member read
// (nil: none) and its provisioning record. The member's keys, team
// memberships, e-mail claim and seat go with them; the entries of those are
// RemovalEntries'.
func DecideMemberRemoval(p Provision, id string, current *Member, stored Provisioned, at time.Time) RemovalDecision {
	return decideRemoval(p, stored, current != nil, func() AuditEntry {
		return NewAuditEntry(at, p.Actor(), ActionMemberRemoved, AuditTarget{Type: TargetMember, ID: id}, Changes{
			"email": {From: current.Email}, "role": {From: string(current.Role)},
		})
	})
}

// decideRemoval is the removal of an entity that exists or not, recorded by
// entry when it does.
func decideRemoval(p Provision, stored Provisioned, exists bool, entry func() AuditEntry) RemovalDecision {
	switch {
	case !stored.Newer(p.Version):
		return RemovalDecision{}
	case !exists:
		return RemovalDecision{Apply: true}
	}
	return RemovalDecision{Apply: true, Remove: true, Entries: []AuditEntry{entry()}}
}

// KeysOwnedBy returns the keys of keys that belong to user userID of
// workspace ws: those a member.removed revokes.
func KeysOwnedBy(keys []APIKey, ws, userID string) []APIKey {
	var out []APIKey
	for _, k := range keys {
		if k.WorkspaceID == ws && k.UserID == userID {
			out = append(out, k)
		}
	}
	return out
}

// TeamMemberRemovedEntry is the team.member_removed entry of user leaving
// team, where they had role, by by at at.
func TeamMemberRemovedEntry(at time.Time, by Actor, team, user string, role TeamRole) AuditEntry {
	return NewAuditEntry(at, by, ActionTeamMemberRemoved, AuditTarget{Type: TargetTeam, ID: team},
		Changes{"members." + user: {From: string(role), To: nil}})
}

// PlatformActor is the actor of every provisioning change.
func PlatformActor() Actor { return platform }

// Acceptance is an invite.accepted event.
type Acceptance struct {
	InviteID   string
	UserID     string
	Name       string
	AcceptedAt time.Time
}

// AcceptDecision is what invite.accepted changes.
type AcceptDecision struct {
	Apply       bool
	Member      Member
	Memberships []TeamMembership
	// TakesSeat is true when the invitation no longer held its seat (it was
	// released after it expired): the member takes one. Otherwise the seat
	// passes from the invitation to the member and the count stays.
	TakesSeat bool
	Entries   []AuditEntry
}

// Errors of invite.accepted.
var (
	ErrInvitationUnknown = NotFound("invitation not found: it does not exist, was revoked, or was already accepted")
	ErrInvitationExpired = Invalid("the invitation had expired when it was accepted")
	ErrAlreadyMemberUser = Conflict("the accepting user is already a member of the workspace")
	ErrInvitationNoRole  = Invalid("the invitation gives no workspace role, so it cannot make a member")
	ErrInvitationTooWide = Invalid("the invitation names more teams than one acceptance can join")
)

// DecideAcceptance decides invite.accepted on the invitation read (nil:
// none, revoked ones included, since a revoke deletes), the accepting
// user's member item (nil: none) and provisioning record, and which of the
// invitation's teams exist. The version is the member's. The member gets
// the invitation's address and role and joins its teams that still exist;
// joinedAt is acceptedAt. An invitation expired at acceptedAt, unknown, or
// without a role fails, and so does a user who already is a member.
func DecideAcceptance(p Provision, a Acceptance, inv *Invitation, member *Member, stored Provisioned, teams map[string]bool, at time.Time) (AcceptDecision, error) {
	if !stored.Newer(p.Version) {
		return AcceptDecision{}, nil
	}
	switch {
	case inv == nil:
		return AcceptDecision{}, ErrInvitationUnknown
	case inv.Expired(a.AcceptedAt):
		return AcceptDecision{}, ErrInvitationExpired
	case !Role(inv.Role).Valid():
		return AcceptDecision{}, ErrInvitationNoRole
	case member != nil:
		return AcceptDecision{}, ErrAlreadyMemberUser
	case len(inv.Groups) > MaxAcceptedTeams:
		return AcceptDecision{}, ErrInvitationTooWide
	}
	d := AcceptDecision{Apply: true, TakesSeat: !inv.HoldsSeat}
	d.Member = Member{ID: a.UserID, WorkspaceID: p.WorkspaceID, Email: inv.Email, Name: a.Name, Role: Role(inv.Role),
		Tags: []string{}, JoinedAt: a.AcceptedAt.UTC(), Teams: []MemberTeam{}}
	joined := []any{}
	for _, g := range inv.Groups {
		if !teams[g.GroupID] {
			continue
		}
		d.Memberships = append(d.Memberships, TeamMembership{WorkspaceID: p.WorkspaceID, TeamID: g.GroupID, UserID: a.UserID, Role: TeamRole(g.Role)})
		d.Member.Teams = append(d.Member.Teams, MemberTeam{TeamID: g.GroupID, Role: TeamRole(g.Role)})
		joined = append(joined, map[string]any{"teamId": g.GroupID, "role": g.Role})
	}
	d.Entries = []AuditEntry{NewAuditEntry(at, p.Actor(), ActionInviteAccepted, AuditTarget{Type: TargetInvite, ID: inv.ID}, Changes{
		"status": {From: inv.Status(at), To: "accepted"},
		"userId": {To: a.UserID},
		"role":   {To: inv.Role},
		"teams":  {To: joined},
	})}
	return d, nil
}

// AgentFields are an agent.upserted event's fields; an omitted one is left
// as stored on an update. Limits, tags and showTokenOptimisationInfo are
// not among them: they stay the API's.
type AgentFields struct {
	Name                 *string
	Description          Nullable[string]
	ImageURL             Nullable[string]
	TeamID               Nullable[string]
	IsPrivate            *bool
	AgentDiscoverability *string
	KeyMetrics           *[]KeyMetricDefinition
	Connections          *[]string
}

// ErrAgentRemoved is the failure of an event for an agent that
// agent.removed removed: removal is final.
var ErrAgentRemoved = Conflict("the agent was removed; events for it are no longer applied")

// ErrAgentTeamNotFound is the failure of an agent.upserted naming a team
// the workspace does not have.
var ErrAgentTeamNotFound = NotFound("agent.teamId: team not found")

// AgentDecision is what agent.upserted changes.
type AgentDecision struct {
	Apply bool
	New   bool
	Agent Agent
	// TeamChanged is true when the agent moves to another team (or to none,
	// or from none): its later usage counts toward the new one.
	TeamChanged bool
	Entries     []AuditEntry
}

// DecideAgent decides agent.upserted for agent id on the agent read (nil:
// none), its provisioning record and whether the team the event names
// exists. A new agent needs a name; it starts running, without limits or
// tags, discoverable to the workspace unless the event says otherwise.
func DecideAgent(p Provision, id string, current *Agent, stored Provisioned, f AgentFields, teamExists bool, at time.Time) (AgentDecision, error) {
	if ok, err := p.applies(stored, current != nil); !ok {
		return AgentDecision{}, err
	}
	if stored.Removed {
		return AgentDecision{}, ErrAgentRemoved
	}
	if team, ok := f.TeamID.Get(); ok && team != "" && !teamExists {
		return AgentDecision{}, ErrAgentTeamNotFound
	}
	target := AuditTarget{Type: TargetAgent, ID: id}
	d := AgentDecision{Apply: true}
	if current == nil {
		if f.Name == nil {
			return AgentDecision{}, Invalid("agent.name is required for a new agent")
		}
		d.New = true
		d.Agent = Agent{ID: id, WorkspaceID: p.WorkspaceID, AgentDiscoverability: DiscoverabilityWorkspace,
			Tags: []string{}, KeyMetrics: []KeyMetricDefinition{}, Connections: []string{}, PromotionRequests: []PromotionRequest{}}
		c := applyAgent(&d.Agent, f, true)
		d.TeamChanged = d.Agent.TeamID != ""
		d.Entries = []AuditEntry{NewAuditEntry(at, p.Actor(), ActionAgentAdded, target, c)}
		return d, nil
	}
	d.Agent = *current
	c := applyAgent(&d.Agent, f, false)
	d.TeamChanged = d.Agent.TeamID != current.TeamID
	if len(c) > 0 {
		d.Entries = []AuditEntry{NewAuditEntry(at, p.Actor(), ActionAgentUpdated, target, c)}
	}
	return d, nil
}

// applyAgent sets f's fields on a and returns what changed (every field
// given, from null, when all is set).
func applyAgent(a *Agent, f AgentFields, all bool) Changes {
	c := Changes{}
	str := func(field string, to string, at *string) {
		if all || to != *at {
			c[field] = Change{From: fromValue(all, nullIfEmpty(*at)), To: nullIfEmpty(to)}
			*at = to
		}
	}
	if f.Name != nil {
		str("name", *f.Name, &a.Name)
	}
	if !f.Description.Omitted() {
		v, _ := f.Description.Get()
		str("description", v, &a.Description)
	}
	if !f.ImageURL.Omitted() {
		v, _ := f.ImageURL.Get()
		str("imageUrl", v, &a.ImageURL)
	}
	if !f.TeamID.Omitted() {
		v, _ := f.TeamID.Get()
		str("teamId", v, &a.TeamID)
	}
	if f.IsPrivate != nil && (all || *f.IsPrivate != a.IsPrivate) {
		c["isPrivate"] = Change{From: fromValue(all, a.IsPrivate), To: *f.IsPrivate}
		a.IsPrivate = *f.IsPrivate
	}
	if f.AgentDiscoverability != nil {
		str("agentDiscoverability", *f.AgentDiscoverability, &a.AgentDiscoverability)
	}
	if f.KeyMetrics != nil && (all || !slices.Equal(*f.KeyMetrics, a.KeyMetrics)) {
		c["keyMetrics"] = Change{From: fromValue(all, metricNames(a.KeyMetrics)), To: metricNames(*f.KeyMetrics)}
		a.KeyMetrics = slices.Clone(*f.KeyMetrics)
	}
	if f.Connections != nil && (all || !slices.Equal(*f.Connections, a.Connections)) {
		c["connections"] = Change{From: fromValue(all, stringsValue(a.Connections)), To: stringsValue(*f.Connections)}
		a.Connections = slices.Clone(*f.Connections)
	}
	return c
}

// metricNames are the names of key metric definitions, as an entry holds
// them.
func metricNames(ms []KeyMetricDefinition) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// DecideAgentRemoval decides agent.removed for agent id on the agent read
// (nil: none) and its provisioning record. The agent leaves every listing
// and per-agent read; its usage counters stay, so the credits report's
// totals and the usage export keep its usage.
func DecideAgentRemoval(p Provision, id string, current *Agent, stored Provisioned, at time.Time) RemovalDecision {
	return decideRemoval(p, stored, current != nil, func() AuditEntry {
		return NewAuditEntry(at, p.Actor(), ActionAgentRemoved, AuditTarget{Type: TargetAgent, ID: id}, Changes{
			"name": {From: current.Name}, "teamId": {From: nullIfEmpty(current.TeamID)},
		})
	})
}
