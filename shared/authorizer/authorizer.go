// Package authorizer is the API Gateway Lambda REQUEST authorizer: it turns
// the bearer key of a request into an IAM policy and the caller context every
// function reads.
package authorizer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/authctx"
	"github.com/agentplatform/workspaceapi/shared/roundtrip"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// ErrUnauthorized is the error API Gateway turns into its 401 UNAUTHORIZED
// response: the message must be exactly "Unauthorized".
var ErrUnauthorized = errors.New("Unauthorized")

// KeyStore is what the authorizer reads: two GetItems per request, and at
// most once per key per hour the conditional write of its lastUsedAt.
type KeyStore interface {
	APIKey(ctx context.Context, hash string) (workspace.APIKey, error)
	Member(ctx context.Context, ws, userID string) (workspace.Member, error)
	TouchAPIKey(ctx context.Context, hash string, now time.Time) error
}

// touchTimeout bounds the write of a key's lastUsedAt, so a slow table
// delays an authorization by at most this much; it never fails one.
const touchTimeout = 200 * time.Millisecond

// Handler is the authorizer's Lambda handler.
type Handler func(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error)

// New returns the authorizer. It answers ErrUnauthorized, before reading
// anything, for a missing, malformed or repeated Authorization header, and
// for an unknown, expired or disabled key, one whose owner left the
// workspace, or a team-scoped key whose owner may no longer act for its team
// (workspace.APIKey.OwnerMayUse, read from the owner's member item, which
// holds their teams: no read more); it returns other errors (API Gateway answers 500)
// when the store fails. An allowed request's response names the workspace's
// usage identifier (workspace.UsageIdentifier), without which API Gateway
// refuses the request, since every method requires an API key.
func New(store KeyStore, clock workspace.Clock) Handler {
	return func(ctx context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		credential, single := authorizationHeader(req)
		if !single {
			return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
		}
		token, ok := workspace.BearerToken(credential)
		if !ok || !workspace.WellFormedKey(token) {
			return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
		}
		hash := workspace.HashKey(token)
		key, err := store.APIKey(ctx, hash)
		if workspace.IsNotFound(err) {
			return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
		}
		if err != nil {
			return events.APIGatewayCustomAuthorizerResponse{}, fmt.Errorf("read API key: %w", err)
		}
		now := clock.Now()
		if !key.Usable(now) {
			slog.InfoContext(ctx, "refused unusable API key", "keyId", key.ID, "workspaceId", key.WorkspaceID, "disabled", key.Disabled)
			return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
		}
		readCtx := ctx
		if key.NeedsLastUsed(now) {
			// The write runs beside the owner's read, so the hourly
			// bookkeeping adds a round trip but not a step to the wait.
			ctxs, join := roundtrip.Fork(ctx, 2, 2)
			readCtx = ctxs[1]
			touched := make(chan struct{})
			go func() { defer close(touched); touch(ctxs[0], store, key, hash, now) }()
			defer func() { <-touched; join() }()
		}
		owner, err := store.Member(readCtx, key.WorkspaceID, key.UserID)
		if workspace.IsNotFound(err) {
			slog.InfoContext(ctx, "refused API key whose owner left", "keyId", key.ID, "workspaceId", key.WorkspaceID)
			return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
		}
		if err != nil {
			return events.APIGatewayCustomAuthorizerResponse{}, fmt.Errorf("read key owner: %w", err)
		}
		if !key.OwnerMayUse(owner) {
			slog.InfoContext(ctx, "refused team-scoped API key whose owner left the team", "keyId", key.ID, "workspaceId", key.WorkspaceID, "teamId", key.TeamID)
			return events.APIGatewayCustomAuthorizerResponse{}, ErrUnauthorized
		}
		caller := workspace.Caller{
			WorkspaceID: key.WorkspaceID, KeyID: key.ID, UserID: key.UserID,
			Role: owner.Role, Scopes: key.Scopes, TeamID: key.TeamID, ExpiresAt: key.ExpiresAt,
		}
		return events.APIGatewayCustomAuthorizerResponse{
			PrincipalID:    key.UserID,
			PolicyDocument: Policy(req.MethodArn, key.Scopes),
			Context:        authctx.Encode(caller),
			// The API's key source is AUTHORIZER: API Gateway counts the
			// request against the usage plan holding this value, so every
			// workspace is throttled on its own, whichever of its keys calls.
			UsageIdentifierKey: workspace.UsageIdentifier(key.WorkspaceID),
		}, nil
	}
}

// touch records an allowed key's use (workspace.APIKey.NeedsLastUsed
// said it is due) within touchTimeout. It is bookkeeping: a failure is
// logged, with the key's id only, and the request goes on.
func touch(ctx context.Context, store KeyStore, key workspace.APIKey, hash string, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, touchTimeout)
	defer cancel()
	if err := store.TouchAPIKey(ctx, hash, now); err != nil {
		slog.WarnContext(ctx, "could not record the API key's last use", "keyId", key.ID,
			"workspaceId", key.WorkspaceID, "error", workspace.RedactKeys(err.Error()))
	}
}

// authorizationHeader returns the request's one Authorization value, and
// false when it has more than one (docs/bounds.md: repeated credentials get
// 401). A REQUEST authorizer's event carries headers twice: Headers, the last
// value of each name, and MultiValueHeaders, all of them; either may spell
// the name in any case, and differently spelled names count together, so
// that no value goes unseen. No header at all is "" and true: the caller
// refuses an empty credential anyway.
func authorizationHeader(req events.APIGatewayCustomAuthorizerRequestTypeRequest) (string, bool) {
	const name = "Authorization"
	var all []string
	for k, vs := range req.MultiValueHeaders {
		if strings.EqualFold(k, name) {
			all = append(all, vs...)
		}
	}
	var last []string
	for k, v := range req.Headers {
		if strings.EqualFold(k, name) {
			last = append(last, v)
		}
	}
	switch {
	case len(all) > 1 || len(last) > 1:
		return "", false
	case len(all) == 1 && len(last) == 1 && all[0] != last[0]:
		return "", false // the two views disagree: two credentials were sent
	case len(all) == 1:
		return all[0], true
	case len(last) == 1:
		return last[0], true
	}
	return "", true
}

// invitesPath is the one route whose writes need the invite scope instead of write.
const invitesPath = "/workspaceapi/invites"

// Policy returns the IAM policy for a key with scopes, covering every route of
// the API the key may call. API Gateway caches the policy per key and reuses
// it on other routes, so it must never be scoped to the invoked method alone.
// methodArn is the invoked method's ARN; the policy keeps its API and stage.
func Policy(methodArn string, scopes []workspace.Scope) events.APIGatewayCustomAuthorizerPolicy {
	base := stageARN(methodArn)
	has := func(s workspace.Scope) bool {
		for _, x := range scopes {
			if x == s {
				return true
			}
		}
		return false
	}
	var allow, deny []string
	if has(workspace.ScopeRead) {
		allow = append(allow, base+http.MethodGet+"/*")
	}
	inviteWrites := []string{base + http.MethodPost + invitesPath, base + http.MethodDelete + invitesPath}
	switch {
	case has(workspace.ScopeWrite):
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			allow = append(allow, base+m+"/*")
		}
		if !has(workspace.ScopeInvite) {
			deny = append(deny, inviteWrites...)
		}
	case has(workspace.ScopeInvite):
		allow = append(allow, inviteWrites...)
	}
	policy := events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17"}
	if len(allow) > 0 {
		policy.Statement = append(policy.Statement, events.IAMPolicyStatement{
			Action: []string{"execute-api:Invoke"}, Effect: "Allow", Resource: allow,
		})
	}
	if len(deny) > 0 || len(allow) == 0 {
		if len(deny) == 0 {
			deny = []string{base + "*"}
		}
		policy.Statement = append(policy.Statement, events.IAMPolicyStatement{
			Action: []string{"execute-api:Invoke"}, Effect: "Deny", Resource: deny,
		})
	}
	return policy
}

// stageARN returns "arn:...:apiId/stage/" from a method ARN
// "arn:aws:execute-api:region:account:apiId/stage/METHOD/path".
func stageARN(methodArn string) string {
	parts := strings.SplitN(methodArn, "/", 3)
	if len(parts) < 2 {
		return methodArn + "/"
	}
	return parts[0] + "/" + parts[1] + "/"
}
