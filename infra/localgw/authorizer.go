package localgw

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// authCache keeps authorizer responses per authorizer and identity, as API
// Gateway's authorizer cache does. The whole response is kept and its policy
// evaluated again for every method ARN the identity calls.
type authCache struct {
	mu      sync.Mutex
	entries map[string]authCacheEntry
	// gen counts flushes: an answer obtained before a flush is not cached
	// after it, so a request racing a revoke cannot put the revoked key's
	// answer back.
	gen uint64
}

type authCacheEntry struct {
	output  *authorizerOutput
	expires time.Time
}

func (c *authCache) get(key string, now time.Time) (*authorizerOutput, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.expires) {
		return nil, false
	}
	return e.output, true
}

func (c *authCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *authCache) put(key string, out *authorizerOutput, expires, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	for k, e := range c.entries { // drop expired entries so the map stays small
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
	c.entries[key] = authCacheEntry{output: out, expires: expires}
}

// flush drops every cached answer.
func (c *authCache) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
	c.gen++
}

// authorize runs the route's authorizer for a request, or answers its cached
// response, and evaluates the policy against the request's method ARN. It
// returns the value of requestContext.authorizer for the integration and the
// response's usageIdentifierKey, or the gateway error to answer instead.
func (g *Gateway) authorize(ctx context.Context, req *request, spec authorizerSpec) (map[string]any, string, *gatewayError) {
	identity, ok := identitySources(req, spec)
	if !ok {
		return nil, "", &gatewayError{responseType: unauthorized, message: "Unauthorized"}
	}
	ttl := spec.ttl
	if g.authorizerTTL != nil {
		ttl = *g.authorizerTTL
	}
	key := spec.name + "\x00" + identity
	start := g.now()

	out, cached := (*authorizerOutput)(nil), false
	if ttl > 0 {
		out, cached = g.cache.get(key, start)
	}
	if !cached {
		gen := g.cache.generation()
		payload, err := json.Marshal(g.authorizerEvent(req))
		if err != nil { // the event holds only strings and maps of strings
			g.logger.Error("authorizer event", "requestId", req.id, "error", err)
			return nil, "", &gatewayError{responseType: authorizerFailure}
		}
		result, err := g.invoke(ctx, spec.functionID, payload)
		if err != nil {
			if err.Error() == "Unauthorized" {
				return nil, "", &gatewayError{responseType: unauthorized, message: "Unauthorized"}
			}
			g.logger.Error("authorizer failed", "function", spec.functionID, "requestId", req.id,
				"method", req.method, "path", workspace.RedactKeys(req.path), "error", workspace.RedactKeys(err.Error()))
			return nil, "", &gatewayError{responseType: authorizerFailure}
		}
		if out, err = parseAuthorizerOutput(result); err != nil {
			g.logger.Error("invalid authorizer response", "function", spec.functionID, "requestId", req.id,
				"method", req.method, "path", workspace.RedactKeys(req.path), "error", workspace.RedactKeys(err.Error()))
			return nil, "", &gatewayError{responseType: authorizerFailure}
		}
		if ttl > 0 {
			g.cache.put(key, out, start.Add(ttl), start, gen)
		}
	}

	allowed, explicitDeny := out.PolicyDocument.allows(req.methodArn)
	if !allowed {
		msg := "User is not authorized to access this resource"
		if explicitDeny {
			msg += " with an explicit deny"
		}
		return nil, "", &gatewayError{responseType: accessDenied, message: msg}
	}

	authorizer := make(map[string]any, len(out.Context)+2)
	for k, v := range out.Context {
		authorizer[k] = v
	}
	authorizer["principalId"] = out.PrincipalID
	latency := int64(0)
	if !cached {
		latency = g.now().Sub(start).Milliseconds()
	}
	authorizer["integrationLatency"] = latency
	return authorizer, out.UsageIdentifierKey, nil
}

// minAPIKeyLength is the shortest value API Gateway accepts for an API key.
const minAPIKeyLength = 20

// checkAPIKey is API Gateway's check of a method that requires an API key,
// made after the authorizer allowed the request: the key comes from the
// authorizer's usageIdentifierKey when the API's key source is AUTHORIZER,
// else from the x-api-key header, and must be an enabled key of a usage plan
// of the stage, or the answer is 403 INVALID_API_KEY. Locally every workspace
// counts as registered in the default plan, so any value that could be an API
// key (20 characters or more) passes; none, or a shorter one, is refused.
func (g *Gateway) checkAPIKey(req *request, usageIdentifierKey string) *gatewayError {
	key := usageIdentifierKey
	if g.tmpl.apiKeySource != apiKeySourceAuthorizer {
		key = req.header.Get("x-api-key")
	}
	if len(key) < minAPIKeyLength {
		return &gatewayError{responseType: invalidAPIKey, message: "Forbidden"}
	}
	return nil
}

// identitySources returns the values of the authorizer's identity sources as
// a cache key, and false when one is missing or empty: API Gateway then
// answers 401 without invoking the authorizer. The key holds every value of a
// repeated header or query string, in order, so a request that repeats one
// (two Authorization headers, say) can never be answered by, nor leave its
// decision under, the key of a request that sends one of those values alone.
func identitySources(req *request, spec authorizerSpec) (string, bool) {
	values := make([][]string, 0, len(spec.headers)+len(spec.queryStrings))
	for _, h := range spec.headers {
		values = append(values, req.header.Values(h))
	}
	for _, q := range spec.queryStrings {
		values = append(values, req.query[q])
	}
	for _, vs := range values {
		if len(vs) == 0 || slices.Contains(vs, "") {
			return "", false
		}
	}
	key, _ := json.Marshal(values) // strings always marshal; JSON keeps the parts apart
	return string(key), true
}

// authorizerEvent is the REQUEST authorizer's input.
func (g *Gateway) authorizerEvent(req *request) events.APIGatewayCustomAuthorizerRequestTypeRequest {
	return events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type:                            "REQUEST",
		MethodArn:                       req.methodArn,
		Resource:                        req.route.Path,
		Path:                            req.path,
		HTTPMethod:                      req.method,
		Headers:                         req.headers,
		MultiValueHeaders:               req.multiValueHeaders,
		QueryStringParameters:           req.queryStringParameters,
		MultiValueQueryStringParameters: req.multiValueQueryStringParameters,
		PathParameters:                  req.pathParameters,
		RequestContext: events.APIGatewayCustomAuthorizerRequestTypeRequestContext{
			Path:         "/" + g.stage + req.path,
			AccountID:    g.accountID,
			ResourceID:   resourceID(req.route.Path),
			Stage:        g.stage,
			RequestID:    req.id,
			Identity:     events.APIGatewayCustomAuthorizerRequestTypeRequestIdentity{SourceIP: req.sourceIP},
			ResourcePath: req.route.Path,
			HTTPMethod:   req.method,
			APIID:        g.apiID,
		},
	}
}
