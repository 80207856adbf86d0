package keys

import "github.com/agentplatform/workspaceapi/shared/workspace"

// Resource is an API key as the keys endpoints show it: never the key
// itself nor its hash.
type Resource struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	UserID     string   `json:"userId"`
	Scopes     []string `json:"scopes"`
	TeamID     *string  `json:"teamId"`
	CreatedAt  string   `json:"createdAt"`
	ExpiresAt  *string  `json:"expiresAt"`
	Disabled   bool     `json:"disabled"`
	LastUsedAt *string  `json:"lastUsedAt"`
}

// NewResource shows k.
func NewResource(k workspace.APIKey) Resource {
	r := Resource{
		ID: k.ID, Name: k.Name, UserID: k.UserID, Scopes: make([]string, len(k.Scopes)),
		CreatedAt: workspace.FormatTime(k.CreatedAt), Disabled: k.Disabled,
	}
	for i, s := range k.Scopes {
		r.Scopes[i] = string(s)
	}
	if k.TeamID != "" {
		r.TeamID = &k.TeamID
	}
	if k.ExpiresAt != nil {
		exp := workspace.FormatTime(*k.ExpiresAt)
		r.ExpiresAt = &exp
	}
	if k.LastUsedAt != nil {
		used := workspace.FormatTime(*k.LastUsedAt)
		r.LastUsedAt = &used
	}
	return r
}

// listResponse is the body of GET /workspaceapi/keys.
type listResponse struct {
	Keys []Resource `json:"keys"`
}
