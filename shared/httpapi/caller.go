package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Keys of the authorizer context the key authorizer hands to every function.
const (
	CtxWorkspaceID = "workspaceId"
	CtxKeyID       = "keyId"
	CtxUserID      = "userId"
	CtxRole        = "role"
	CtxScopes      = "scopes" // space-separated
	CtxTeamID      = "teamId" // empty for workspace-wide keys
)

// CallerContext returns the authorizer context that describes c.
func CallerContext(c workspace.Caller) map[string]any {
	scopes := make([]string, len(c.Scopes))
	for i, s := range c.Scopes {
		scopes[i] = string(s)
	}
	return map[string]any{
		CtxWorkspaceID: c.WorkspaceID, CtxKeyID: c.KeyID, CtxUserID: c.UserID,
		CtxRole: string(c.Role), CtxScopes: strings.Join(scopes, " "), CtxTeamID: c.TeamID,
	}
}

func gatewayContext(r *http.Request) (events.APIGatewayProxyRequestContext, bool) {
	return core.GetAPIGatewayContextFromContext(r.Context())
}

// callerFrom reads the caller from the authorizer context of r's gateway event.
func callerFrom(r *http.Request) (workspace.Caller, bool) {
	rc, ok := gatewayContext(r)
	if !ok || rc.Authorizer == nil {
		return workspace.Caller{}, false
	}
	get := func(k string) string {
		if v, ok := rc.Authorizer[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	c := workspace.Caller{
		WorkspaceID: get(CtxWorkspaceID), KeyID: get(CtxKeyID), UserID: get(CtxUserID),
		Role: workspace.Role(get(CtxRole)), TeamID: get(CtxTeamID),
	}
	for _, s := range strings.Fields(get(CtxScopes)) {
		c.Scopes = append(c.Scopes, workspace.Scope(s))
	}
	if c.WorkspaceID == "" || c.UserID == "" {
		return workspace.Caller{}, false
	}
	return c, true
}

// Caller returns who r acts as. It returns a KindUnauthorized error when r
// carries no authorizer context (it did not pass the key authorizer), and a
// KindForbidden error when the caller's key lacks scope: the gateway's policy
// already checks scopes, and each function checks again.
func Caller(r *http.Request, scope workspace.Scope) (workspace.Caller, error) {
	c, ok := callerFrom(r)
	if !ok {
		return workspace.Caller{}, workspace.Unauthorized("missing or invalid API key")
	}
	if err := c.Require(scope); err != nil {
		return workspace.Caller{}, err
	}
	return c, nil
}

// WorkspaceCaller is Caller for workspace-wide endpoints: it also returns a
// KindForbidden error for a team-scoped key.
func WorkspaceCaller(r *http.Request, scope workspace.Scope) (workspace.Caller, error) {
	c, err := Caller(r, scope)
	if err != nil {
		return workspace.Caller{}, err
	}
	if err := c.RequireWorkspaceWide(); err != nil {
		return workspace.Caller{}, err
	}
	return c, nil
}
