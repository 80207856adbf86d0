package dynamo

import (
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Item types, stored in the attribute "entity" of every item.
const (
	typeWorkspace  = "workspace"
	typeMember     = "member"
	typeEmailClaim = "emailClaim"
	typeInvitation = "invitation"
	typeTeam       = "team"
	typeTeamMember = "teamMember"
	typeAgent      = "agent"
	typeAPIKey     = "apiKey"
)

// Claim kinds of an e-mail claim item.
const (
	claimMember = "member"
	claimInvite = "invite"
)

// keys is the key part every item embeds.
type keys struct {
	PK     string `json:"PK"`
	SK     string `json:"SK"`
	GSI1PK string `json:"GSI1PK,omitempty"`
	GSI1SK string `json:"GSI1SK,omitempty"`
	Entity string `json:"entity"`
}

type workspaceItem struct {
	keys
	ID                      string   `json:"id"`
	Name                    string   `json:"name"`
	Seats                   int      `json:"seats"`
	SeatsUsed               int      `json:"seatsUsed"`
	TeamSettingsEnabled     bool     `json:"teamSettingsEnabled"`
	AllowedEmailDomains     []string `json:"allowedEmailDomains"`
	DefaultDailyCreditLimit *float64 `json:"defaultDailyCreditLimit"`
}

func newWorkspaceItem(w workspace.Workspace) workspaceItem {
	domains := w.AllowedEmailDomains
	if domains == nil {
		domains = []string{}
	}
	return workspaceItem{
		keys: keys{PK: wsPK(w.ID), SK: skMeta, Entity: typeWorkspace},
		ID:   w.ID, Name: w.Name, Seats: w.Seats, SeatsUsed: w.SeatsUsed,
		TeamSettingsEnabled: w.TeamSettingsEnabled, AllowedEmailDomains: domains,
		DefaultDailyCreditLimit: w.DefaultDailyCreditLimit,
	}
}

func (i workspaceItem) domain() workspace.Workspace {
	return workspace.Workspace{
		ID: i.ID, Name: i.Name, Seats: i.Seats, SeatsUsed: i.SeatsUsed,
		TeamSettingsEnabled: i.TeamSettingsEnabled, AllowedEmailDomains: i.AllowedEmailDomains,
		DefaultDailyCreditLimit: i.DefaultDailyCreditLimit,
	}
}

type memberItem struct {
	keys
	ID       string   `json:"id"`
	Email    string   `json:"email"`
	Name     string   `json:"name"`
	Role     string   `json:"role"`
	Tags     []string `json:"tags"`
	JoinedAt string   `json:"joinedAt"`
}

func newMemberItem(m workspace.Member) memberItem {
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	return memberItem{
		keys: keys{PK: wsPK(m.WorkspaceID), SK: memberSK(m.ID), Entity: typeMember},
		ID:   m.ID, Email: m.Email, Name: m.Name, Role: string(m.Role), Tags: tags,
		JoinedAt: workspace.FormatTime(m.JoinedAt),
	}
}

func (i memberItem) domain(ws string) workspace.Member {
	joined, _ := time.Parse(time.RFC3339Nano, i.JoinedAt)
	return workspace.Member{
		ID: i.ID, WorkspaceID: ws, Email: i.Email, Name: i.Name,
		Role: workspace.Role(i.Role), Tags: i.Tags, JoinedAt: joined,
	}
}

// claimItem reserves one e-mail address in a workspace for a member or an invitation.
type claimItem struct {
	keys
	Claim     string `json:"claim"`
	UserID    string `json:"userId,omitempty"`
	InviteID  string `json:"inviteId,omitempty"`
	ExpiresAt string `json:"expiresAt,omitempty"`
	HoldsSeat bool   `json:"holdsSeat,omitempty"`
}

func memberClaim(m workspace.Member) claimItem {
	return claimItem{
		keys:  keys{PK: wsPK(m.WorkspaceID), SK: emailSK(m.Email), Entity: typeEmailClaim},
		Claim: claimMember, UserID: m.ID,
	}
}

func inviteClaim(inv workspace.Invitation) claimItem {
	return claimItem{
		keys:  keys{PK: wsPK(inv.CustomerID), SK: emailSK(inv.Email), Entity: typeEmailClaim},
		Claim: claimInvite, InviteID: inv.ID, ExpiresAt: inv.ExpiresAt, HoldsSeat: inv.HoldsSeat,
	}
}

func (c claimItem) domain() workspace.EmailClaim {
	claim := workspace.EmailClaim{MemberID: c.UserID, InviteID: c.InviteID, InviteHoldsSeat: c.HoldsSeat}
	if c.InviteID != "" {
		// An unparsable expiry reads as long expired, so the address can be re-invited.
		claim.InviteExpiresAt, _ = time.Parse(time.RFC3339Nano, c.ExpiresAt)
	}
	return claim
}

type invitationItem struct {
	keys
	workspace.Invitation
	HoldsSeat bool `json:"holdsSeat"`
}

func newInvitationItem(inv workspace.Invitation) invitationItem {
	return invitationItem{
		keys:       keys{PK: wsPK(inv.CustomerID), SK: inviteSK(inv.ID), Entity: typeInvitation},
		Invitation: inv, HoldsSeat: inv.HoldsSeat,
	}
}

func (i invitationItem) domain() workspace.Invitation {
	inv := i.Invitation
	inv.HoldsSeat = i.HoldsSeat
	return inv
}

type apiKeyItem struct {
	keys
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	WorkspaceID string   `json:"workspaceId"`
	UserID      string   `json:"userId"`
	Scopes      []string `json:"scopes"`
	TeamID      string   `json:"teamId,omitempty"`
	ExpiresAt   string   `json:"expiresAt,omitempty"`
	Disabled    bool     `json:"disabled"`
	CreatedAt   string   `json:"createdAt"`
}

func newAPIKeyItem(k workspace.APIKey) apiKeyItem {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	item := apiKeyItem{
		keys: keys{PK: keyPK(k.Hash), SK: skKey, GSI1PK: keysGSI1PK(k.WorkspaceID),
			GSI1SK: "KEY#" + k.ID, Entity: typeAPIKey},
		ID: k.ID, Name: k.Name, WorkspaceID: k.WorkspaceID, UserID: k.UserID,
		Scopes: scopes, TeamID: k.TeamID, Disabled: k.Disabled,
		CreatedAt: workspace.FormatTime(k.CreatedAt),
	}
	if k.ExpiresAt != nil {
		item.ExpiresAt = workspace.FormatTime(*k.ExpiresAt)
	}
	return item
}

func (i apiKeyItem) domain() workspace.APIKey {
	k := workspace.APIKey{
		ID: i.ID, Hash: i.PK[len("KEY#"):], Name: i.Name, WorkspaceID: i.WorkspaceID,
		UserID: i.UserID, TeamID: i.TeamID, Disabled: i.Disabled,
	}
	for _, s := range i.Scopes {
		k.Scopes = append(k.Scopes, workspace.Scope(s))
	}
	k.CreatedAt, _ = time.Parse(time.RFC3339Nano, i.CreatedAt)
	if i.ExpiresAt != "" {
		// An unparsable expiry counts as already expired: fail closed.
		exp, err := time.Parse(time.RFC3339Nano, i.ExpiresAt)
		if err != nil {
			exp = time.Time{}
		}
		k.ExpiresAt = &exp
	}
	return k
}
