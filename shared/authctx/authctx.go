// Package authctx is the contract between the key authorizer and the
// functions: the keys of the authorizer context API Gateway hands from one to
// the other, and the one mapping between that context and a workspace.Caller.
// It is kept small so the authorizer links nothing of the HTTP layer.
package authctx

import (
	"fmt"
	"strings"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Keys of the authorizer context.
const (
	WorkspaceID = "workspaceId"
	KeyID       = "keyId"
	UserID      = "userId"
	Role        = "role"
	Scopes      = "scopes" // space-separated
	TeamID      = "teamId" // empty for workspace-wide keys
	// KeyExpiresAt is when the caller's key expires (workspace.TimeFormat);
	// empty for a key that never expires.
	KeyExpiresAt = "keyExpiresAt"
)

// Encode returns the authorizer context that describes c. API Gateway allows
// only string, number and boolean values, so scopes are joined with spaces.
func Encode(c workspace.Caller) map[string]any {
	scopes := make([]string, len(c.Scopes))
	for i, s := range c.Scopes {
		scopes[i] = string(s)
	}
	var expires string
	if c.ExpiresAt != nil {
		expires = workspace.FormatTime(*c.ExpiresAt)
	}
	return map[string]any{
		WorkspaceID: c.WorkspaceID, KeyID: c.KeyID, UserID: c.UserID,
		Role: string(c.Role), Scopes: strings.Join(scopes, " "), TeamID: c.TeamID,
		KeyExpiresAt: expires,
	}
}

// Decode reads the caller from an authorizer context as the gateway delivers
// it; ok is false when the context names no workspace or user (the request did
// not pass the key authorizer), or a key expiry that is no timestamp (fail
// closed: it bounds what the key may make).
func Decode(ctx map[string]any) (c workspace.Caller, ok bool) {
	get := func(k string) string {
		if v, ok := ctx[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	c = workspace.Caller{
		WorkspaceID: get(WorkspaceID), KeyID: get(KeyID), UserID: get(UserID),
		Role: workspace.Role(get(Role)), TeamID: get(TeamID),
	}
	for _, s := range strings.Fields(get(Scopes)) {
		c.Scopes = append(c.Scopes, workspace.Scope(s))
	}
	if exp := get(KeyExpiresAt); exp != "" {
		t, err := workspace.ParseTime(KeyExpiresAt, exp)
		if err != nil {
			return workspace.Caller{}, false
		}
		c.ExpiresAt = &t
	}
	if c.WorkspaceID == "" || c.UserID == "" {
		return workspace.Caller{}, false
	}
	return c, true
}
