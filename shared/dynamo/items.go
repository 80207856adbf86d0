package dynamo

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file holds one item type per stored entity, with its dynamodbav tags,
// and the one mapping between it and its domain type. Renaming an API field
// changes nothing here; renaming an attribute here changes stored data.

// Item types, stored in the attribute "entity" of every item.
const (
	typeTeamName   = "teamName"
	typeWorkspace  = "workspace"
	typeMember     = "member"
	typeEmailClaim = "emailClaim"
	typeInvitation = "invitation"
	typeTeam       = "team"
	typeTeamMember = "teamMember"
	typeAgent      = "agent"
	typeAPIKey     = "apiKey"
	typeAPIKeyRef  = "apiKeyRef"
	typeKeyCount   = "apiKeyCount"
	typeSeatFreed  = "seatRelease"
	typeAgentState = "agentState"
	typeTeamState  = "teamState"
	typeUsage      = "usage"
	typeEvent      = "event"
	typeChat       = "chat"
	typeAudit      = "audit"
	typeOutbox     = "outbox"
	typeThreshold  = "threshold"
)

// Claim kinds of an e-mail claim item.
const (
	claimMember = "member"
	claimInvite = "invite"
)

// Attribute names the store's expressions refer to.
const (
	attrEntity    = "entity"
	attrSeats     = "seats"
	attrSeatsUsed = "seatsUsed"
	attrHoldsSeat = "holdsSeat"
	attrExpiresAt = "expiresAt"
	attrInviteID  = "inviteId"
	attrDisabled  = "disabled"
	attrWorkspace = "workspaceId"
	attrID        = "id"
	attrAgentID   = "agentId"
	attrTeamID    = "teamId"
	attrStatus    = "status"
	attrReason    = "statusReason"
	attrPeriod    = "period"
	attrVersion   = "version"
	attrPaused    = "paused"
	attrLastAt    = "lastActivityAt"
	attrTotal     = "total"
	attrDaily     = "dailyCreditLimit"
	attrMonthly   = "monthlyCreditLimit"
	attrCredits   = "creditsTotal"
	attrName      = "name"
	attrTags      = "tags"
	attrTeams     = "teams"
	attrShowInfo  = "showTokenOptimisationInfo"
	attrLastUsed  = "lastUsedAt"
)

// keys is the key part every item embeds; TTL is the table's time-to-live
// attribute, omitted on items that live until deleted.
type keys struct {
	PK     string `dynamodbav:"PK"`
	SK     string `dynamodbav:"SK"`
	GSI1PK string `dynamodbav:"GSI1PK,omitempty"`
	GSI1SK string `dynamodbav:"GSI1SK,omitempty"`
	GSI2PK string `dynamodbav:"GSI2PK,omitempty"`
	GSI2SK string `dynamodbav:"GSI2SK,omitempty"`
	Entity string `dynamodbav:"entity"`
	TTL    int64  `dynamodbav:"ttl,omitempty"`
}

type workspaceItem struct {
	keys
	ID                      string   `dynamodbav:"id"`
	Name                    string   `dynamodbav:"name"`
	Seats                   int      `dynamodbav:"seats"`
	SeatsUsed               int      `dynamodbav:"seatsUsed"`
	TeamSettingsEnabled     bool     `dynamodbav:"teamSettingsEnabled"`
	AllowedEmailDomains     []string `dynamodbav:"allowedEmailDomains"`
	DefaultDailyCreditLimit *float64 `dynamodbav:"defaultDailyCreditLimit"`
	// WebhookThresholds is the union of the workspace's webhook
	// thresholds, written by the webhooks' transactions (webhooks.go).
	WebhookThresholds []int `dynamodbav:"webhookThresholds,omitempty"`
}

func toWorkspaceItem(w workspace.Workspace) workspaceItem {
	return workspaceItem{
		keys: keys{PK: wsPK(w.ID), SK: skMeta, Entity: typeWorkspace},
		ID:   w.ID, Name: w.Name, Seats: w.Seats, SeatsUsed: w.SeatsUsed,
		TeamSettingsEnabled: w.TeamSettingsEnabled, AllowedEmailDomains: listOrEmpty(w.AllowedEmailDomains),
		DefaultDailyCreditLimit: w.DefaultDailyCreditLimit,
	}
}

func (i workspaceItem) domain() workspace.Workspace {
	return workspace.Workspace{
		ID: i.ID, Name: i.Name, Seats: i.Seats, SeatsUsed: i.SeatsUsed,
		TeamSettingsEnabled: i.TeamSettingsEnabled, AllowedEmailDomains: i.AllowedEmailDomains,
		DefaultDailyCreditLimit: i.DefaultDailyCreditLimit, WebhookThresholds: i.WebhookThresholds,
	}
}

type memberItem struct {
	keys
	ID          string   `dynamodbav:"id"`
	WorkspaceID string   `dynamodbav:"workspaceId"`
	Email       string   `dynamodbav:"email"`
	Name        string   `dynamodbav:"name"`
	Role        string   `dynamodbav:"role"`
	Tags        []string `dynamodbav:"tags"`
	JoinedAt    string   `dynamodbav:"joinedAt"`
	// Teams maps each team the member belongs to to their role in it: a copy
	// of the membership items, written in the same transactions, so the
	// members list reads nothing else (keys.go).
	Teams map[string]string `dynamodbav:"teams"`
}

func toMemberItem(m workspace.Member) memberItem {
	return memberItem{
		keys: keys{PK: wsPK(m.WorkspaceID), SK: memberSK(m.ID), Entity: typeMember},
		ID:   m.ID, WorkspaceID: m.WorkspaceID, Email: m.Email, Name: m.Name, Role: string(m.Role),
		Tags: listOrEmpty(m.Tags), JoinedAt: storedTime(m.JoinedAt), Teams: memberTeamsAttr(m.Teams),
	}
}

func (i memberItem) domain() workspace.Member {
	return workspace.Member{
		ID: i.ID, WorkspaceID: i.WorkspaceID, Email: i.Email, Name: i.Name,
		Role: workspace.Role(i.Role), Tags: listOrEmpty(i.Tags), JoinedAt: loadedTime(i.JoinedAt),
		Teams: memberTeams(i.Teams),
	}
}

// claimItem reserves one e-mail address in a workspace for a member or an
// invitation; an invitation's claim shares its expiry, seat and removal time.
type claimItem struct {
	keys
	Claim     string `dynamodbav:"claim"`
	UserID    string `dynamodbav:"userId,omitempty"`
	InviteID  string `dynamodbav:"inviteId,omitempty"`
	ExpiresAt string `dynamodbav:"expiresAt,omitempty"`
	HoldsSeat bool   `dynamodbav:"holdsSeat,omitempty"`
}

func memberClaim(m workspace.Member) claimItem {
	return claimItem{
		keys:  keys{PK: wsPK(m.WorkspaceID), SK: emailSK(m.Email), Entity: typeEmailClaim},
		Claim: claimMember, UserID: m.ID,
	}
}

func inviteClaim(inv workspace.Invitation) claimItem {
	return claimItem{
		keys:  keys{PK: wsPK(inv.WorkspaceID), SK: emailSK(inv.Email), Entity: typeEmailClaim, TTL: epoch(inv.RemoveAt)},
		Claim: claimInvite, InviteID: inv.ID, ExpiresAt: storedTime(inv.ExpiresAt), HoldsSeat: inv.HoldsSeat,
	}
}

func (c claimItem) domain() workspace.EmailClaim {
	claim := workspace.EmailClaim{MemberID: c.UserID, InviteID: c.InviteID, InviteHoldsSeat: c.HoldsSeat}
	if c.InviteID != "" {
		// An unparsable expiry reads as long expired, so the address can be re-invited.
		claim.InviteExpiresAt = loadedTime(c.ExpiresAt)
	}
	return claim
}

// invitationItem is an invitation. While it holds a seat it is in GSI1 under
// its workspace's seat holders, sorted by expiry, so the expired ones are
// found without reading the others (keys.go).
type invitationItem struct {
	keys
	ID                string           `dynamodbav:"id"`
	Type              string           `dynamodbav:"type"`
	Email             string           `dynamodbav:"email"`
	WorkspaceID       string           `dynamodbav:"workspaceId"`
	WorkspaceName     string           `dynamodbav:"workspaceName,omitempty"`
	Role              string           `dynamodbav:"role,omitempty"`
	CreatedAt         string           `dynamodbav:"createdAt"`
	ExpiresAt         string           `dynamodbav:"expiresAt"`
	InvitedByUserName string           `dynamodbav:"invitedByUserName,omitempty"`
	DisplayName       string           `dynamodbav:"displayName,omitempty"`
	Groups            []groupAttr      `dynamodbav:"groups,omitempty"`
	AgentAccess       *agentAccessAttr `dynamodbav:"agentAccess,omitempty"`
	HoldsSeat         bool             `dynamodbav:"holdsSeat"`
}

// groupAttr is one team of an invitation.
type groupAttr struct {
	TeamID string `dynamodbav:"teamId"`
	Role   string `dynamodbav:"role"`
}

// agentAccessAttr is the agent a guest invitation grants.
type agentAccessAttr struct {
	AgentID string `dynamodbav:"agentId"`
	Level   string `dynamodbav:"level"`
}

func toInvitationItem(inv workspace.Invitation) invitationItem {
	it := invitationItem{
		keys: keys{PK: wsPK(inv.WorkspaceID), SK: inviteSK(inv.ID), Entity: typeInvitation, TTL: epoch(inv.RemoveAt)},
		ID:   inv.ID, Type: inv.Type, Email: inv.Email, WorkspaceID: inv.WorkspaceID,
		WorkspaceName: inv.WorkspaceName, Role: inv.Role,
		CreatedAt: storedTime(inv.CreatedAt), ExpiresAt: storedTime(inv.ExpiresAt),
		InvitedByUserName: inv.InvitedByUserName, DisplayName: inv.DisplayName, HoldsSeat: inv.HoldsSeat,
	}
	if inv.HoldsSeat {
		it.GSI1PK, it.GSI1SK = seatsGSI1PK(inv.WorkspaceID), seatGSI1SK(inv.ExpiresAt, inv.ID)
	}
	for _, g := range inv.Groups {
		it.Groups = append(it.Groups, groupAttr{TeamID: g.GroupID, Role: g.Role})
	}
	if a := inv.AgentAccess; a != nil {
		it.AgentAccess = &agentAccessAttr{AgentID: a.AgentID, Level: a.Level}
	}
	return it
}

func (i invitationItem) domain() workspace.Invitation {
	inv := workspace.Invitation{
		ID: i.ID, Type: i.Type, Email: i.Email, WorkspaceID: i.WorkspaceID, WorkspaceName: i.WorkspaceName,
		Role: i.Role, CreatedAt: loadedTime(i.CreatedAt), ExpiresAt: loadedTime(i.ExpiresAt),
		InvitedByUserName: i.InvitedByUserName, DisplayName: i.DisplayName, HoldsSeat: i.HoldsSeat,
	}
	if i.TTL != 0 {
		inv.RemoveAt = unixTime(i.TTL)
	}
	for _, g := range i.Groups {
		inv.Groups = append(inv.Groups, workspace.Group{GroupID: g.TeamID, Role: g.Role})
	}
	if a := i.AgentAccess; a != nil {
		inv.AgentAccess = &workspace.AgentAccess{AgentID: a.AgentID, Level: a.Level}
	}
	return inv
}

type apiKeyItem struct {
	keys
	ID          string   `dynamodbav:"id"`
	Name        string   `dynamodbav:"name"`
	WorkspaceID string   `dynamodbav:"workspaceId"`
	UserID      string   `dynamodbav:"userId"`
	Scopes      []string `dynamodbav:"scopes"`
	TeamID      string   `dynamodbav:"teamId,omitempty"`
	ExpiresAt   string   `dynamodbav:"expiresAt,omitempty"`
	Disabled    bool     `dynamodbav:"disabled"`
	CreatedAt   string   `dynamodbav:"createdAt"`
	LastUsedAt  string   `dynamodbav:"lastUsedAt,omitempty"`
}

func toAPIKeyItem(k workspace.APIKey) apiKeyItem {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	it := apiKeyItem{
		keys: keys{PK: keyPK(k.Hash), SK: skKey, Entity: typeAPIKey},
		ID:   k.ID, Name: k.Name, WorkspaceID: k.WorkspaceID, UserID: k.UserID,
		Scopes: scopes, TeamID: k.TeamID, Disabled: k.Disabled, CreatedAt: storedTime(k.CreatedAt),
	}
	if k.ExpiresAt != nil {
		it.ExpiresAt = storedTime(*k.ExpiresAt)
	}
	if k.LastUsedAt != nil {
		it.LastUsedAt = storedTime(*k.LastUsedAt)
	}
	return it
}

func (i apiKeyItem) domain() workspace.APIKey {
	k := workspace.APIKey{
		ID: i.ID, Hash: hashOfKeyPK(i.PK), Name: i.Name, WorkspaceID: i.WorkspaceID,
		UserID: i.UserID, TeamID: i.TeamID, Disabled: i.Disabled, CreatedAt: loadedTime(i.CreatedAt),
	}
	for _, s := range i.Scopes {
		k.Scopes = append(k.Scopes, workspace.Scope(s))
	}
	if i.ExpiresAt != "" {
		// An unparsable expiry reads as the zero time: already expired, fail closed.
		exp := loadedTime(i.ExpiresAt)
		k.ExpiresAt = &exp
	}
	if i.LastUsedAt != "" {
		used := loadedTime(i.LastUsedAt)
		k.LastUsedAt = &used
	}
	return k
}

// apiKeyRefItem is an API key's reference in its workspace's partition: the
// keys endpoints find a key by id through it. KeyHash never leaves the store.
type apiKeyRefItem struct {
	keys
	ID        string `dynamodbav:"id"`
	KeyHash   string `dynamodbav:"keyHash"`
	ExpiresAt string `dynamodbav:"expiresAt,omitempty"`
}

func toAPIKeyRefItem(k workspace.APIKey) apiKeyRefItem {
	it := apiKeyRefItem{keys: keys{PK: wsPK(k.WorkspaceID), SK: keyRefSK(k.ID), Entity: typeAPIKeyRef}, ID: k.ID, KeyHash: k.Hash}
	if k.ExpiresAt != nil {
		it.ExpiresAt = storedTime(*k.ExpiresAt)
	}
	return it
}

// expired reports whether the key referred to has expired at now.
func (i apiKeyRefItem) expired(now time.Time) bool {
	return i.ExpiresAt != "" && !now.Before(loadedTime(i.ExpiresAt))
}

// KeyCount is the number of a workspace's API key references (the key count
// item), for loading state in bulk (EntityItems).
type KeyCount struct {
	WorkspaceID string
	Count       int
}

type keyCountItem struct {
	keys
	Count int `dynamodbav:"count"`
}

func toKeyCountItem(c KeyCount) keyCountItem {
	return keyCountItem{keys: keys{PK: wsPK(c.WorkspaceID), SK: skKeyCount, Entity: typeKeyCount}, Count: c.Count}
}

// teamItem is a team; its memberships are separate items.
type teamItem struct {
	keys
	ID                 string   `dynamodbav:"id"`
	WorkspaceID        string   `dynamodbav:"workspaceId"`
	Name               string   `dynamodbav:"name"`
	MonthlyCreditLimit *float64 `dynamodbav:"monthlyCreditLimit"`
	Tags               []string `dynamodbav:"tags"`
	CreatedAt          string   `dynamodbav:"createdAt"`
}

func toTeamItem(t workspace.Team) teamItem {
	return teamItem{
		keys: keys{PK: wsPK(t.WorkspaceID), SK: teamSK(t.ID), Entity: typeTeam},
		ID:   t.ID, WorkspaceID: t.WorkspaceID, Name: t.Name,
		MonthlyCreditLimit: t.MonthlyCreditLimit, Tags: listOrEmpty(t.Tags), CreatedAt: storedTime(t.CreatedAt),
	}
}

func (i teamItem) domain() workspace.Team {
	return workspace.Team{
		ID: i.ID, WorkspaceID: i.WorkspaceID, Name: i.Name,
		MonthlyCreditLimit: i.MonthlyCreditLimit, Tags: listOrEmpty(i.Tags), CreatedAt: loadedTime(i.CreatedAt),
	}
}

// teamMemberItem is one member's role in one team. GSI1 lists a user's teams.
type teamMemberItem struct {
	keys
	WorkspaceID string `dynamodbav:"workspaceId"`
	TeamID      string `dynamodbav:"teamId"`
	UserID      string `dynamodbav:"userId"`
	Role        string `dynamodbav:"role"`
}

func toTeamMemberItem(tm workspace.TeamMembership) teamMemberItem {
	return teamMemberItem{
		keys: keys{
			PK: wsPK(tm.WorkspaceID), SK: teamMemberSK(tm.TeamID, tm.UserID),
			GSI1PK: userGSI1PK(tm.WorkspaceID, tm.UserID), GSI1SK: teamSK(tm.TeamID),
			Entity: typeTeamMember,
		},
		WorkspaceID: tm.WorkspaceID, TeamID: tm.TeamID, UserID: tm.UserID, Role: string(tm.Role),
	}
}

// agentItem is an agent. GSI1 lists a team's agents; an agent without a team
// has no GSI1 keys.
type agentItem struct {
	keys
	ID                        string                 `dynamodbav:"id"`
	WorkspaceID               string                 `dynamodbav:"workspaceId"`
	Name                      string                 `dynamodbav:"name"`
	Description               string                 `dynamodbav:"description"`
	ImageURL                  string                 `dynamodbav:"imageUrl"`
	TeamID                    string                 `dynamodbav:"teamId,omitempty"`
	IsPrivate                 bool                   `dynamodbav:"isPrivate"`
	AgentDiscoverability      string                 `dynamodbav:"agentDiscoverability"`
	Tags                      []string               `dynamodbav:"tags"`
	DailyCreditLimit          *float64               `dynamodbav:"dailyCreditLimit"`
	MonthlyCreditLimit        *float64               `dynamodbav:"monthlyCreditLimit"`
	ShowTokenOptimisationInfo bool                   `dynamodbav:"showTokenOptimisationInfo"`
	KeyMetrics                []keyMetricAttr        `dynamodbav:"keyMetrics"`
	Connections               []string               `dynamodbav:"connections"`
	PromotionRequests         []promotionRequestAttr `dynamodbav:"promotionRequests"`
}

// keyMetricAttr is one key metric definition inside an agent item.
type keyMetricAttr struct {
	Name        string `dynamodbav:"name"`
	Description string `dynamodbav:"description"`
	Unit        string `dynamodbav:"unit"`
	Aggregation string `dynamodbav:"aggregation"`
}

// promotionRequestAttr is one promotion request inside an agent item.
type promotionRequestAttr struct {
	ID                string `dynamodbav:"id"`
	RequestedByUserID string `dynamodbav:"requestedByUserId"`
	RequestedAt       string `dynamodbav:"requestedAt"`
	Status            string `dynamodbav:"status"`
	Note              string `dynamodbav:"note"`
}

func toAgentItem(a workspace.Agent) agentItem {
	it := agentItem{
		keys: keys{PK: wsPK(a.WorkspaceID), SK: agentSK(a.ID), Entity: typeAgent},
		ID:   a.ID, WorkspaceID: a.WorkspaceID, Name: a.Name, Description: a.Description,
		ImageURL: a.ImageURL, TeamID: a.TeamID, IsPrivate: a.IsPrivate,
		AgentDiscoverability: a.AgentDiscoverability, Tags: listOrEmpty(a.Tags),
		DailyCreditLimit: a.DailyCreditLimit, MonthlyCreditLimit: a.MonthlyCreditLimit,
		ShowTokenOptimisationInfo: a.ShowTokenOptimisationInfo,
		KeyMetrics:                []keyMetricAttr{}, Connections: listOrEmpty(a.Connections),
		PromotionRequests: []promotionRequestAttr{},
	}
	if a.TeamID != "" {
		it.GSI1PK, it.GSI1SK = teamGSI1PK(a.WorkspaceID, a.TeamID), agentSK(a.ID)
	}
	for _, m := range a.KeyMetrics {
		it.KeyMetrics = append(it.KeyMetrics, keyMetricAttr{
			Name: m.Name, Description: m.Description, Unit: m.Measurement.Unit, Aggregation: m.Measurement.Aggregation,
		})
	}
	for _, p := range a.PromotionRequests {
		it.PromotionRequests = append(it.PromotionRequests, promotionRequestAttr{
			ID: p.ID, RequestedByUserID: p.RequestedByUserID, RequestedAt: storedTime(p.RequestedAt),
			Status: p.Status, Note: p.Note,
		})
	}
	return it
}

func (i agentItem) domain() workspace.Agent {
	a := workspace.Agent{
		ID: i.ID, WorkspaceID: i.WorkspaceID, Name: i.Name, Description: i.Description,
		ImageURL: i.ImageURL, TeamID: i.TeamID, IsPrivate: i.IsPrivate,
		AgentDiscoverability: i.AgentDiscoverability, Tags: listOrEmpty(i.Tags),
		DailyCreditLimit: i.DailyCreditLimit, MonthlyCreditLimit: i.MonthlyCreditLimit,
		ShowTokenOptimisationInfo: i.ShowTokenOptimisationInfo,
		KeyMetrics:                []workspace.KeyMetricDefinition{}, Connections: listOrEmpty(i.Connections),
		PromotionRequests: []workspace.PromotionRequest{},
	}
	for _, m := range i.KeyMetrics {
		a.KeyMetrics = append(a.KeyMetrics, workspace.KeyMetricDefinition{
			Name: m.Name, Description: m.Description,
			Measurement: workspace.Measurement{Unit: m.Unit, Aggregation: m.Aggregation},
		})
	}
	for _, p := range i.PromotionRequests {
		a.PromotionRequests = append(a.PromotionRequests, workspace.PromotionRequest{
			ID: p.ID, RequestedByUserID: p.RequestedByUserID, RequestedAt: loadedTime(p.RequestedAt),
			Status: p.Status, Note: p.Note,
		})
	}
	return a
}

// listOrEmpty returns s, or an empty list when s is nil, so lists are stored
// and read as empty lists rather than NULL.
func listOrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// agentStateItem is an agent's stored running state (absent: running, never
// changed) and the time of its latest usage. While a limit holds the agent
// back it sits in the resume index (GSI2) under the period that must end.
type agentStateItem struct {
	keys
	WorkspaceID    string `dynamodbav:"workspaceId"`
	AgentID        string `dynamodbav:"agentId"`
	Status         string `dynamodbav:"status,omitempty"`
	Reason         string `dynamodbav:"statusReason,omitempty"`
	Period         string `dynamodbav:"period,omitempty"` // the day or month the stop lasts
	Version        int64  `dynamodbav:"version"`
	LastActivityAt string `dynamodbav:"lastActivityAt,omitempty"`
	// Disabled is set by POST /workspaceapi/agents/status; the own state
	// above goes on following usage underneath it.
	Disabled bool `dynamodbav:"disabled,omitempty"`
}

// own returns the agent's own state; an item never given one is running.
func (i agentStateItem) own() workspace.AgentState {
	if i.Status == "" || i.Status == workspace.StatusRunning {
		return workspace.Running
	}
	return workspace.AgentState{Status: i.Status, Reason: i.Reason}
}

// teamStateItem is a team's paused flag; while paused it sits in the resume
// index under the month that must end.
type teamStateItem struct {
	keys
	WorkspaceID string `dynamodbav:"workspaceId"`
	TeamID      string `dynamodbav:"teamId"`
	Paused      bool   `dynamodbav:"paused"`
	Period      string `dynamodbav:"period,omitempty"` // the month of the pause
	Version     int64  `dynamodbav:"version"`
}

// eventItem marks an ingest event as applied, for the dedup window.
type eventItem struct {
	keys
	Type string `dynamodbav:"type"`
}

// monthUsage is an agent's usage in one UTC month: the usage item holds the
// total and, per day DD, dDD (credits spent) and cDD (credits counted toward
// that day's limit, zeroed by a daily-usage reset). The day attributes are
// top-level so that one UpdateItem ADDs to them (ADD takes top-level
// attributes only).
type monthUsage struct {
	Total   float64
	Spent   [32]float64 // by day of month
	Counted [32]float64
	// stored holds the numbers exactly as the item stores them (decimal
	// strings), for conditions: a float64 read back need not equal them.
	stored map[string]attributevalue.Number
}

func spentAttr(day int) string   { return fmt.Sprintf("d%02d", day) }
func countedAttr(day int) string { return fmt.Sprintf("c%02d", day) }

// loadMonthUsage decodes a usage item; a missing item (nil) is no usage.
func loadMonthUsage(raw item) (monthUsage, error) {
	var u monthUsage
	if raw == nil {
		return u, nil
	}
	var m map[string]any
	if err := unmarshal(raw, &m); err != nil {
		return u, err
	}
	num := func(name string) float64 { f, _ := m[name].(float64); return f }
	u.stored = map[string]attributevalue.Number{}
	for name, v := range raw {
		if n, ok := v.(*types.AttributeValueMemberN); ok {
			u.stored[name] = attributevalue.Number(n.Value)
		}
	}
	u.Total = num(attrTotal)
	for d := 1; d <= 31; d++ {
		u.Spent[d], u.Counted[d] = num(spentAttr(d)), num(countedAttr(d))
	}
	return u, nil
}

// memberTeamsAttr is a member's teams as the member item stores them: team
// id to role, an empty map (never NULL) when none, so that an update can SET
// one entry.
func memberTeamsAttr(teams []workspace.MemberTeam) map[string]string {
	m := make(map[string]string, len(teams))
	for _, t := range teams {
		m[t.TeamID] = string(t.Role)
	}
	return m
}

// memberTeams reads a member item's teams, in team id order.
func memberTeams(m map[string]string) []workspace.MemberTeam {
	out := make([]workspace.MemberTeam, 0, len(m))
	for team, role := range m {
		out = append(out, workspace.MemberTeam{TeamID: team, Role: workspace.TeamRole(role)})
	}
	slices.SortFunc(out, func(a, b workspace.MemberTeam) int { return strings.Compare(a.TeamID, b.TeamID) })
	return out
}

// teamNameItem claims a team name in a workspace, compared case-insensitively
// (workspace.TeamNameKey): created with attribute_not_exists in the team's
// own transaction, moved in a rename's, so two teams never share a name.
type teamNameItem struct {
	keys
	TeamID string `dynamodbav:"teamId"`
}

func toTeamNameItem(ws, name, teamID string) teamNameItem {
	return teamNameItem{keys: keys{PK: wsPK(ws), SK: teamNameSK(name), Entity: typeTeamName}, TeamID: teamID}
}

// taggedItem is the part of a member, agent or team item that the tag and
// display writes read: one decoding for every kind (workspace.Taggable).
type taggedItem struct {
	ID     string   `dynamodbav:"id"`
	Name   string   `dynamodbav:"name"`
	Tags   []string `dynamodbav:"tags"`
	TeamID string   `dynamodbav:"teamId"`
	Show   bool     `dynamodbav:"showTokenOptimisationInfo"`
}

// EntityItems encodes a domain entity as the items the store keeps for it: a
// workspace.Workspace; a Member and its e-mail claim; a Team and its name
// claim; a TeamMembership; an Agent; an Invitation and its e-mail claim; an
// APIKey and its reference; a KeyCount. For loading state in bulk (infra/tableops), never a request path.
func EntityItems(v any) ([]map[string]types.AttributeValue, error) {
	var its []any
	switch e := v.(type) {
	case workspace.Workspace:
		its = []any{toWorkspaceItem(e)}
	case workspace.Member:
		its = []any{toMemberItem(e), memberClaim(e)}
	case workspace.Team:
		its = []any{toTeamItem(e), toTeamNameItem(e.WorkspaceID, e.Name, e.ID)}
	case workspace.TeamMembership:
		its = []any{toTeamMemberItem(e)}
	case workspace.Agent:
		its = []any{toAgentItem(e)}
	case workspace.Invitation:
		its = []any{toInvitationItem(e), inviteClaim(e)}
	case workspace.APIKey:
		its = []any{toAPIKeyItem(e), toAPIKeyRefItem(e)}
	case KeyCount:
		its = []any{toKeyCountItem(e)}
	default:
		return nil, fmt.Errorf("no items for a %T", v)
	}
	out := make([]item, len(its))
	for i, it := range its {
		var err error
		if out[i], err = marshal(it); err != nil {
			return nil, err
		}
	}
	return out, nil
}
