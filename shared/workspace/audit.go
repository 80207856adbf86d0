package workspace

import (
	"slices"
	"time"
)

// The audit log (docs/audit-log.md): every change made to a workspace, by
// a key through the API or by the service itself (ingest, scheduler,
// retention), is written with an entry in the same transaction, so there is
// no change without its entry and no entry without its change.

// AuditAction names what an audit entry records.
type AuditAction string

// The audit actions. Each names the entity it changes, then the change.
const (
	ActionInviteCreated        AuditAction = "invite.created"
	ActionInviteRevoked        AuditAction = "invite.revoked"
	ActionInviteRemoved        AuditAction = "invite.removed"
	ActionAgentLimitsChanged   AuditAction = "agent.limits_changed"
	ActionAgentDailyUsageReset AuditAction = "agent.daily_usage_reset"
	ActionAgentCreditDetails   AuditAction = "agent.credit_details_changed"
	ActionAgentTagsChanged     AuditAction = "agent.tags_changed"
	ActionMemberTagsChanged    AuditAction = "member.tags_changed"
	ActionTeamTagsChanged      AuditAction = "team.tags_changed"
	ActionTeamCreated          AuditAction = "team.created"
	ActionTeamRenamed          AuditAction = "team.renamed"
	ActionTeamLimitChanged     AuditAction = "team.limit_changed"
	ActionTeamMemberSet        AuditAction = "team.member_set"
	ActionTeamMemberRemoved    AuditAction = "team.member_removed"
	ActionAgentStopped         AuditAction = "agent.stopped"
	ActionAgentResumed         AuditAction = "agent.resumed"
	ActionTeamPaused           AuditAction = "team.paused"
	ActionTeamResumed          AuditAction = "team.resumed"
	ActionAgentDisabled        AuditAction = "agent.disabled"
	ActionAgentEnabled         AuditAction = "agent.enabled"
	ActionKeyCreated           AuditAction = "key.created"
	ActionKeyUpdated           AuditAction = "key.updated"
	ActionKeyRevoked           AuditAction = "key.revoked"
	ActionWebhookCreated       AuditAction = "webhook.created"
	ActionWebhookUpdated       AuditAction = "webhook.updated"
	ActionWebhookDeleted       AuditAction = "webhook.deleted"
	ActionWebhookDisabled      AuditAction = "webhook.disabled"
)

// AuditActions lists every action, in the order the documentation gives them.
var AuditActions = []AuditAction{
	ActionInviteCreated, ActionInviteRevoked, ActionInviteRemoved,
	ActionAgentLimitsChanged, ActionAgentDailyUsageReset, ActionAgentCreditDetails, ActionAgentTagsChanged,
	ActionMemberTagsChanged, ActionTeamTagsChanged,
	ActionTeamCreated, ActionTeamRenamed, ActionTeamLimitChanged, ActionTeamMemberSet, ActionTeamMemberRemoved,
	ActionAgentStopped, ActionAgentResumed, ActionTeamPaused, ActionTeamResumed,
	ActionAgentDisabled, ActionAgentEnabled,
	ActionKeyCreated, ActionKeyUpdated, ActionKeyRevoked,
	ActionWorkspaceCreated, ActionWorkspaceUpdated,
	ActionMemberAdded, ActionMemberUpdated, ActionMemberRemoved, ActionInviteAccepted,
	ActionAgentAdded, ActionAgentUpdated, ActionAgentRemoved,
	ActionWebhookCreated, ActionWebhookUpdated, ActionWebhookDeleted, ActionWebhookDisabled,
}

// Valid reports whether a is one of AuditActions.
func (a AuditAction) Valid() bool { return slices.Contains(AuditActions, a) }

// ActorType tells who made a change: a key through the API, or the service.
type ActorType string

// Actor types.
const (
	ActorKey    ActorType = "key"
	ActorSystem ActorType = "system"
)

// SystemActorName names the part of the service that made a change on its own.
type SystemActorName string

// The service's own actors.
const (
	SystemIngest    SystemActorName = "ingest"
	SystemScheduler SystemActorName = "scheduler"
	SystemRetention SystemActorName = "retention"
	SystemWebhooks  SystemActorName = "webhooks"
)

// Actor is who makes a change, handed explicitly to every store write that
// records one. A key actor is the API key's id and its owner's user id, and
// the gateway's id of the request; never the key or its hash.
type Actor struct {
	Type      ActorType
	KeyID     string          // key actors
	UserID    string          // key actors
	System    SystemActorName // system actors
	RequestID string          // key actors: the API Gateway request id
}

// KeyActor is the actor of a request made by caller, whose gateway request
// id is requestID.
func KeyActor(c Caller, requestID string) Actor {
	return Actor{Type: ActorKey, KeyID: c.KeyID, UserID: c.UserID, RequestID: requestID}
}

// Unrecorded is the actor of changes the audit log does not record: an
// operator's tool working on the table outside the service (wsadmin). The
// log records what the API, ingest, the scheduler and retention change.
var Unrecorded = Actor{}

// SystemActor is the service's own actor name.
func SystemActor(name SystemActorName) Actor { return Actor{Type: ActorSystem, System: name} }

// TargetType is the kind of entity an audit entry is about.
type TargetType string

// Target types.
const (
	TargetInvite  TargetType = "invite"
	TargetAgent   TargetType = "agent"
	TargetMember  TargetType = "member"
	TargetTeam    TargetType = "team"
	TargetKey     TargetType = "key"
	TargetWebhook TargetType = "webhook"
)

// AuditTarget is the entity an entry is about.
type AuditTarget struct {
	Type TargetType
	ID   string
}

// Change is one field's value before and after a change; nil is null (a
// field that did not exist before, or no longer does after, or a limit
// that is not set).
type Change struct {
	From any `json:"from"`
	To   any `json:"to"`
}

// Changes are an entry's changed fields, by their API names.
type Changes map[string]Change

// AuditEntry is one change, as the audit log lists it.
type AuditEntry struct {
	// ID is unique; the store gives an entry without one a fresh id.
	ID      string
	At      time.Time
	Action  AuditAction
	Actor   Actor
	Target  AuditTarget
	Changes Changes
}

// NewAuditEntry is the entry of action on target by actor at at, with its
// changes; the store gives it its id when it is written.
func NewAuditEntry(at time.Time, actor Actor, action AuditAction, target AuditTarget, changes Changes) AuditEntry {
	if changes == nil {
		changes = Changes{}
	}
	return AuditEntry{At: at.UTC(), Action: action, Actor: actor, Target: target, Changes: changes}
}

// AuditFilter selects entries of the audit log: every set field must match.
// Since and Until bound the time half-open, [Since, Until); a zero one does
// not bound.
type AuditFilter struct {
	Action     AuditAction
	TargetID   string
	ActorKeyID string
	Since      time.Time
	Until      time.Time
}

// DefaultAuditRetention is how long entries are kept when the configuration
// says nothing: 400 days, more than a year, so a year's changes can be
// compared with the year before.
const DefaultAuditRetention = 400 * 24 * time.Hour

// AuditIDPrefix starts every audit entry id.
const AuditIDPrefix = "aud_"

// AgentStateEntry is the entry of agent id's running state moving from from
// to to, made by actor at at: agent.resumed when it runs again,
// agent.stopped when it stops or stays stopped for another reason (a paused
// agent is stopped by its team's limit). ok is false when the state stands.
func AgentStateEntry(at time.Time, actor Actor, id string, from, to AgentState) (e AuditEntry, ok bool) {
	if from == to {
		return AuditEntry{}, false
	}
	action := ActionAgentStopped
	if to.IsRunning() {
		action = ActionAgentResumed
	}
	return NewAuditEntry(at, actor, action, AuditTarget{Type: TargetAgent, ID: id}, stateChanges(from, to)), true
}

// stateChanges are the status and statusReason fields that differ between
// from and to.
func stateChanges(from, to AgentState) Changes {
	changes := Changes{}
	if from.Status != to.Status {
		changes["status"] = Change{From: from.Status, To: to.Status}
	}
	if from.Reason != to.Reason {
		changes["statusReason"] = Change{From: nullIfEmpty(from.Reason), To: nullIfEmpty(to.Reason)}
	}
	return changes
}

// AgentCreditEntries are the entries of agent id's credit moving from
// before to after, made by actor at at. An enabled agent's own state moving
// records agent.stopped or agent.resumed (AgentStateEntry). A disable or
// enable records agent.disabled or agent.enabled with the status every
// reader sees before and after it, and an enable that re-evaluates the agent
// into a held state (stopped by its limits, paused by its team) also records
// that agent.stopped. While the agent stays disabled its own state moves
// underneath, unseen: that records nothing until the enable shows it.
func AgentCreditEntries(at time.Time, actor Actor, id string, before, after AgentCredit) []AuditEntry {
	from, to := before.State(), after.State()
	switch {
	case !before.Disabled && !after.Disabled:
		return EntriesIf(AgentStateEntry(at, actor, id, before.Own, after.Own))
	case before.Disabled && after.Disabled:
		return nil
	case after.Disabled:
		return []AuditEntry{NewAuditEntry(at, actor, ActionAgentDisabled, AuditTarget{Type: TargetAgent, ID: id}, stateChanges(from, to))}
	}
	entries := []AuditEntry{NewAuditEntry(at, actor, ActionAgentEnabled, AuditTarget{Type: TargetAgent, ID: id}, stateChanges(from, to))}
	if !to.IsRunning() {
		entries = append(entries, NewAuditEntry(at, actor, ActionAgentStopped, AuditTarget{Type: TargetAgent, ID: id}, stateChanges(from, to)))
	}
	return entries
}

// EntriesIf is the entry e when ok, for a change that may record none.
func EntriesIf(e AuditEntry, ok bool) []AuditEntry {
	if !ok {
		return nil
	}
	return []AuditEntry{e}
}

// TeamPauseEntry is the entry of team id's pause moving from from to to,
// made by actor at at; ok is false when it stands.
func TeamPauseEntry(at time.Time, actor Actor, id string, from, to bool) (e AuditEntry, ok bool) {
	if from == to {
		return AuditEntry{}, false
	}
	action := ActionTeamResumed
	if to {
		action = ActionTeamPaused
	}
	return NewAuditEntry(at, actor, action, AuditTarget{Type: TargetTeam, ID: id}, Changes{"paused": {From: from, To: to}}), true
}

// LimitChanges are the changes of a credit limit field from from to to
// (nil: not set); empty when it stands.
func LimitChanges(field string, from, to *float64) Changes {
	if sameLimit(from, to) {
		return Changes{}
	}
	return Changes{field: {From: limitValue(from), To: limitValue(to)}}
}

// Merge adds other's changes to c and returns c.
func (c Changes) Merge(other Changes) Changes {
	for k, v := range other {
		c[k] = v
	}
	return c
}

func sameLimit(a, b *float64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// limitValue is a limit as an entry holds it: a number, or nil for none.
func limitValue(l *float64) any {
	if l == nil {
		return nil
	}
	return *l
}

// nullIfEmpty is s, or nil (null) for "".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TagsAction is the action of a change to the tags of an entity of kind k,
// and the entity's target type.
func (k Taggable) TagsAction() (AuditAction, TargetType) {
	switch k {
	case TaggableMember:
		return ActionMemberTagsChanged, TargetMember
	case TaggableTeam:
		return ActionTeamTagsChanged, TargetTeam
	}
	return ActionAgentTagsChanged, TargetAgent
}

// AuditEntries are the entries that record c, a write to agent a decided on
// standing sd, made by by at at: agent.daily_usage_reset (creditsToday to
// 0) or agent.limits_changed (the limits that changed), then the entries of
// its running state (AgentCreditEntries): agent.stopped or agent.resumed
// when the own state of an enabled agent moves, agent.disabled or
// agent.enabled for a disable or an enable.
func (c AgentChange) AuditEntries(at time.Time, by Actor, a Agent, sd AgentStanding) []AuditEntry {
	if c.SetStatus {
		after := sd.Credit
		after.Disabled, after.Own = c.Disabled, c.To
		return AgentCreditEntries(at, by, a.ID, sd.Credit, after)
	}
	target := AuditTarget{Type: TargetAgent, ID: a.ID}
	var entries []AuditEntry
	if c.ResetToday {
		entries = append(entries, NewAuditEntry(at, by, ActionAgentDailyUsageReset, target,
			Changes{"creditsToday": {From: sd.Credit.Position.Today, To: 0.0}}))
	} else if changes := LimitChanges("dailyCreditLimit", a.DailyCreditLimit, c.Daily).
		Merge(LimitChanges("monthlyCreditLimit", a.MonthlyCreditLimit, c.Monthly)); len(changes) > 0 {
		entries = append(entries, NewAuditEntry(at, by, ActionAgentLimitsChanged, target, changes))
	}
	after := sd.Credit
	after.Own = c.To
	return append(entries, AgentCreditEntries(at, by, a.ID, sd.Credit, after)...)
}

// CreatedEntry is the invite.created entry of inv, made by by at at: the
// address, the role, the teams, the expiry and the status, each from null.
func (inv Invitation) CreatedEntry(at time.Time, by Actor) AuditEntry {
	teams := make([]any, len(inv.Groups))
	for i, g := range inv.Groups {
		teams[i] = map[string]any{"teamId": g.GroupID, "role": g.Role}
	}
	return NewAuditEntry(at, by, ActionInviteCreated, AuditTarget{Type: TargetInvite, ID: inv.ID}, Changes{
		"email":     {From: nil, To: inv.Email},
		"role":      {From: nil, To: inv.Role},
		"teams":     {From: nil, To: teams},
		"expiresAt": {From: nil, To: FormatTime(inv.ExpiresAt)},
		"status":    {From: nil, To: inv.Status(at)},
	})
}

// RevokedEntry is the invite.revoked entry of inv, made by by at at: its
// status, pending or expired, to revoked.
func (inv Invitation) RevokedEntry(at time.Time, by Actor) AuditEntry {
	return NewAuditEntry(at, by, ActionInviteRevoked, AuditTarget{Type: TargetInvite, ID: inv.ID},
		Changes{"status": {From: inv.Status(at), To: "revoked"}})
}

// RemovedInvitationEntry is the invite.removed entry of invitation id, which
// the table's time to live removed once its retention period had passed:
// its status, expired, to null. by is the retention function.
func RemovedInvitationEntry(at time.Time, by Actor, id string) AuditEntry {
	return NewAuditEntry(at, by, ActionInviteRemoved, AuditTarget{Type: TargetInvite, ID: id},
		Changes{"status": {From: "expired", To: nil}})
}

// CreatedEntry is the key.created entry of k, made by by at at: its name,
// owner, scopes, team and expiry, each from null. Never the key or its hash.
func (k APIKey) CreatedEntry(at time.Time, by Actor) AuditEntry {
	scopes := make([]any, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	var expires any
	if k.ExpiresAt != nil {
		expires = FormatTime(*k.ExpiresAt)
	}
	return NewAuditEntry(at, by, ActionKeyCreated, AuditTarget{Type: TargetKey, ID: k.ID}, Changes{
		"name":      {From: nil, To: k.Name},
		"userId":    {From: nil, To: k.UserID},
		"scopes":    {From: nil, To: scopes},
		"teamId":    {From: nil, To: nullIfEmpty(k.TeamID)},
		"expiresAt": {From: nil, To: expires},
	})
}

// UpdatedEntry is the key.updated entry of ch applied to k, made by by at
// at: the name and disabled flag where ch changes them. ok is false when ch
// changes nothing.
func (k APIKey) UpdatedEntry(at time.Time, by Actor, ch KeyChange) (e AuditEntry, ok bool) {
	changes := Changes{}
	if ch.Name != nil && *ch.Name != k.Name {
		changes["name"] = Change{From: k.Name, To: *ch.Name}
	}
	if ch.Disabled != nil && *ch.Disabled != k.Disabled {
		changes["disabled"] = Change{From: k.Disabled, To: *ch.Disabled}
	}
	if len(changes) == 0 {
		return AuditEntry{}, false
	}
	return NewAuditEntry(at, by, ActionKeyUpdated, AuditTarget{Type: TargetKey, ID: k.ID}, changes), true
}

// KeyRevokedEntry is the key.revoked entry of key id, made by by at at: a
// revoke, or an expired key removed to make room for a new one.
func KeyRevokedEntry(at time.Time, by Actor, id string) AuditEntry {
	return NewAuditEntry(at, by, ActionKeyRevoked, AuditTarget{Type: TargetKey, ID: id},
		Changes{"revoked": {From: false, To: true}})
}
