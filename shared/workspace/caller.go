package workspace

import (
	"slices"
	"time"
)

// Caller is who a request acts as, as established by the key authorizer.
type Caller struct {
	WorkspaceID string
	KeyID       string
	UserID      string
	Role        Role
	Scopes      []Scope
	TeamID      string // non-empty for a team-scoped key
	// ExpiresAt is when the caller's key expires; nil: never (an
	// operator's key). A key it makes or changes may not outlive it.
	ExpiresAt *time.Time
}

// Has reports whether the caller's key carries scope s.
func (c Caller) Has(s Scope) bool { return slices.Contains(c.Scopes, s) }

// TeamScoped reports whether the caller's key is bound to one team.
func (c Caller) TeamScoped() bool { return c.TeamID != "" }

// Require returns a KindForbidden error unless the caller's key carries scope s.
func (c Caller) Require(s Scope) error {
	if !c.Has(s) {
		return Forbidden("this API key lacks the %q scope", s)
	}
	return nil
}

// RequireWorkspaceWide returns a KindForbidden error for a team-scoped key,
// which may not call workspace-wide endpoints.
func (c Caller) RequireWorkspaceWide() error {
	if c.TeamScoped() {
		return Forbidden("a team-scoped API key cannot call this workspace-wide endpoint")
	}
	return nil
}
