package invites

import (
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Resource is the Invitation resource of the API (docs/endpoints.md, The
// invitation resource), the one wire form of an invitation: responses carry
// it, and fixtures give invitations in it. Timestamps are workspace.TimeFormat.
type Resource struct {
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
}

// Group is one team of an invitation, as the API shows it.
type Group struct {
	GroupID string `json:"groupId"`
	Role    string `json:"role"`
}

// AgentAccess is the agent a guest invitation grants, as the API shows it.
type AgentAccess struct {
	AgentID string `json:"agentId"`
	Level   string `json:"level"`
}

// NewResource shows inv as it stands at now: its status follows its expiry.
func NewResource(inv workspace.Invitation, now time.Time) Resource {
	r := Resource{
		ID: inv.ID, Type: inv.Type, Email: inv.Email,
		CustomerID: inv.WorkspaceID, CustomerName: inv.WorkspaceName, CustomerRole: inv.Role,
		Status: inv.Status(now), IsExpired: inv.Expired(now),
		CreatedAt: workspace.FormatTime(inv.CreatedAt), ExpiresAt: workspace.FormatTime(inv.ExpiresAt),
		InvitedByUserName: inv.InvitedByUserName, DisplayName: inv.DisplayName,
	}
	for _, g := range inv.Groups {
		r.Groups = append(r.Groups, Group{GroupID: g.GroupID, Role: g.Role})
	}
	if a := inv.AgentAccess; a != nil {
		r.AgentAccess = &AgentAccess{AgentID: a.AgentID, Level: a.Level}
	}
	return r
}

// Invitation returns the invitation r describes. It returns a KindInvalid
// error naming the field when a timestamp is not RFC 3339. The status, which
// follows from the expiry, and the seat, which the store decides, are not
// taken from r.
func (r Resource) Invitation() (workspace.Invitation, error) {
	created, err := workspace.ParseTime("createdAt", r.CreatedAt)
	if err != nil {
		return workspace.Invitation{}, err
	}
	expires, err := workspace.ParseTime("expiresAt", r.ExpiresAt)
	if err != nil {
		return workspace.Invitation{}, err
	}
	inv := workspace.Invitation{
		ID: r.ID, Type: r.Type, Email: r.Email, WorkspaceID: r.CustomerID, WorkspaceName: r.CustomerName,
		Role: r.CustomerRole, CreatedAt: created, ExpiresAt: expires,
		InvitedByUserName: r.InvitedByUserName, DisplayName: r.DisplayName,
	}
	for _, g := range r.Groups {
		inv.Groups = append(inv.Groups, workspace.Group{GroupID: g.GroupID, Role: g.Role})
	}
	if a := r.AgentAccess; a != nil {
		inv.AgentAccess = &workspace.AgentAccess{AgentID: a.AgentID, Level: a.Level}
	}
	return inv, nil
}
