package httpapi

import (
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/agentplatform/workspaceapi/shared/authctx"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func gatewayContext(r *http.Request) (events.APIGatewayProxyRequestContext, bool) {
	return core.GetAPIGatewayContextFromContext(r.Context())
}

// callerFrom reads the caller from the authorizer context of r's gateway event.
func callerFrom(r *http.Request) (workspace.Caller, bool) {
	rc, ok := gatewayContext(r)
	if !ok || rc.Authorizer == nil {
		return workspace.Caller{}, false
	}
	return authctx.Decode(rc.Authorizer)
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

// Actor is who a change that r makes is recorded as in the audit log: c's
// key and user, and the gateway's id of r ("" outside the gateway).
func Actor(r *http.Request, c workspace.Caller) workspace.Actor {
	var requestID string
	if rc, ok := gatewayContext(r); ok {
		requestID = rc.RequestID
	}
	return workspace.KeyActor(c, requestID)
}
