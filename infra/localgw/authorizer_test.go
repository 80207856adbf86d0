package localgw_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/localgw"
)

func TestAuthorizerOutcomes(t *testing.T) {
	tests := []struct {
		name          string
		header        map[string]string
		auth          *authorizerFunc
		wantStatus    int
		wantError     string // "" when the function answers
		wantAuthCalls int
	}{
		{"missing header is 401 without invoking the authorizer", nil, allowAll(), 401, "missing or invalid API key", 0},
		{"empty header is 401 without invoking the authorizer", map[string]string{"Authorization": ""}, allowAll(), 401, "missing or invalid API key", 0},
		{"authorizer error Unauthorized is 401", withKey(), failingAuthorizer("Unauthorized"), 401, "missing or invalid API key", 1},
		{"authorizer error other than Unauthorized is 503, retry", withKey(), failingAuthorizer("unauthorized: unknown key"), 503, "the API key could not be checked right now; retry the request shortly", 1},
		{"explicit deny is 403", withKey(), &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			return policy("user_1", "Deny", ev.MethodArn), nil
		}}, 403, "this API key is not allowed to call this operation", 1},
		{"deny beats allow", withKey(), &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			p := policy("user_1", "Allow", arnPrefix+"*")
			p.PolicyDocument.Statement = append(p.PolicyDocument.Statement, policy("", "Deny", arnPrefix+"GET/*").PolicyDocument.Statement...)
			return p, nil
		}}, 403, "this API key is not allowed to call this operation", 1},
		{"policy for another route is 403", withKey(), &authorizerFunc{reply: func(events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			return policy("user_1", "Allow", arnPrefix+"POST/workspaceapi/invites"), nil
		}}, 403, "this API key is not allowed to call this operation", 1},
		{"policy for another action is 403", withKey(), &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			p := policy("user_1", "Allow", ev.MethodArn)
			p.PolicyDocument.Statement[0].Action = []string{"execute-api:ManageConnections"}
			return p, nil
		}}, 403, "this API key is not allowed to call this operation", 1},
		{"empty policy is 403", withKey(), &authorizerFunc{reply: func(events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			return events.APIGatewayCustomAuthorizerResponse{PrincipalID: "user_1"}, nil
		}}, 403, "this API key is not allowed to call this operation", 1},
		{"invalid Effect is 503 (the template's AUTHORIZER_CONFIGURATION_ERROR)", withKey(), &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			return policy("user_1", "allow", ev.MethodArn), nil
		}}, 503, "the API key could not be checked right now; retry the request shortly", 1},
		{"object context value is 500", withKey(), &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			p := policy("user_1", "Allow", ev.MethodArn)
			p.Context = map[string]any{"scopes": []string{"read"}}
			return p, nil
		}}, 503, "the API key could not be checked right now; retry the request shortly", 1},
		{"allow for the method ARN reaches the function", withKey(), allowMethod(), 200, "", 1},
		{"wildcard allow reaches the function", withKey(), allowAll(), 200, "", 1},
		{"action wildcard reaches the function", withKey(), &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			p := policy("user_1", "Allow", "arn:aws:execute-api:us-east-1:123456789012:local/v?/*/workspaceapi/*")
			p.PolicyDocument.Statement[0].Action = []string{"execute-api:*"}
			return p, nil
		}}, 200, "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := &proxyFunc{}
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": tc.auth.handler(), "InvitesFunction": fn.handler(),
			}, localgw.Options{})

			rec := send(t, g, "GET", "/workspaceapi/invites", "", tc.header)

			if tc.wantError != "" {
				wantError(t, rec, tc.wantStatus, tc.wantError)
				if fn.calls != 0 {
					t.Errorf("function calls: got %d, want 0", fn.calls)
				}
			} else if rec.Code != tc.wantStatus || fn.calls != 1 {
				t.Errorf("got status %d and %d function calls, want %d and 1 (body %s)", rec.Code, fn.calls, tc.wantStatus, rec.Body)
			}
			if tc.auth.calls != tc.wantAuthCalls {
				t.Errorf("authorizer calls: got %d, want %d", tc.auth.calls, tc.wantAuthCalls)
			}
		})
	}
}

func TestAuthorizerEventIsRequestType(t *testing.T) {
	auth := allowMethod()
	g := newGateway(t, parseTemplate(t, routesTemplate), map[string]lambda.Handler{
		"AuthorizerFunction": auth.handler(), "AgentsFunction": (&proxyFunc{}).handler(),
	}, localgw.Options{Region: "eu-west-1", AccountID: "111122223333", APIID: "abc123"})

	rec := send(t, g, "PUT", "/workspaceapi/teams/t1/members/u1?x=1&x=2", `{"role": "admin"}`, withKey())

	if rec.Code != http.StatusOK {
		t.Errorf("status: got %d, want 200 (body %s)", rec.Code, rec.Body)
	}
	ev := auth.last
	checks := []struct{ field, got, want string }{
		{"type", ev.Type, "REQUEST"},
		{"methodArn", ev.MethodArn, "arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/PUT/workspaceapi/teams/t1/members/u1"},
		{"resource", ev.Resource, "/workspaceapi/teams/{teamId}/members/{userId}"},
		{"path", ev.Path, "/workspaceapi/teams/t1/members/u1"},
		{"httpMethod", ev.HTTPMethod, "PUT"},
		{"headers.Authorization", ev.Headers["Authorization"], testKey},
		{"queryStringParameters.x", ev.QueryStringParameters["x"], "2"},
		{"pathParameters.userId", ev.PathParameters["userId"], "u1"},
		{"requestContext.path", ev.RequestContext.Path, "/v1/workspaceapi/teams/t1/members/u1"},
		{"requestContext.stage", ev.RequestContext.Stage, "v1"},
		{"requestContext.accountId", ev.RequestContext.AccountID, "111122223333"},
		{"requestContext.apiId", ev.RequestContext.APIID, "abc123"},
		{"requestContext.resourcePath", ev.RequestContext.ResourcePath, "/workspaceapi/teams/{teamId}/members/{userId}"},
		{"requestContext.httpMethod", ev.RequestContext.HTTPMethod, "PUT"},
		{"requestContext.identity.sourceIp", ev.RequestContext.Identity.SourceIP, "192.0.2.1"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.field, c.got, c.want)
		}
	}
	if got := ev.MultiValueQueryStringParameters["x"]; len(got) != 2 {
		t.Errorf("multiValueQueryStringParameters.x: got %q, want [1 2]", got)
	}
	if ev.RequestContext.RequestID == "" {
		t.Error("requestContext.requestId: got empty")
	}
}

func TestAuthorizerCacheReusesPolicyAcrossRoutes(t *testing.T) {
	zero, ttl := time.Duration(0), 60*time.Second
	tests := []struct {
		name          string
		auth          func() *authorizerFunc
		ttl           *time.Duration
		advance       time.Duration // clock move between the two requests
		otherKey      bool          // second request with another key
		wantSecond    int
		wantAuthCalls int
	}{
		{"policy for one method ARN makes a second route 403 while cached", allowMethod, nil, 0, false, 403, 1},
		{"wildcard policy keeps working while cached", allowAll, nil, 0, false, 200, 1},
		{"TTL 0 invokes the authorizer every time", allowMethod, &zero, 0, false, 200, 2},
		{"template TTL (60s) still holds after 59s", allowMethod, nil, 59 * time.Second, false, 403, 1},
		{"cache entry expires after the template TTL", allowMethod, nil, 60 * time.Second, false, 200, 2},
		{"Options.AuthorizerTTL replaces the template TTL", allowMethod, &ttl, 60 * time.Second, false, 200, 2},
		{"cache is per key", allowMethod, nil, 0, true, 200, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := apitest.NewClock(testNow)
			auth, fn := tc.auth(), &proxyFunc{}
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": auth.handler(), "InvitesFunction": fn.handler(),
			}, localgw.Options{AuthorizerTTL: tc.ttl, Now: clk.Now})

			if rec := send(t, g, "GET", "/workspaceapi/invites", "", withKey()); rec.Code != http.StatusOK {
				t.Fatalf("first request: got %d, want 200 (body %s)", rec.Code, rec.Body)
			}
			clk.Advance(tc.advance)
			header := withKey()
			if tc.otherKey {
				header["Authorization"] = testKey + "x"
			}
			rec := send(t, g, "POST", "/workspaceapi/invites", `{}`, header)

			if tc.wantSecond == http.StatusForbidden {
				wantError(t, rec, http.StatusForbidden, "this API key is not allowed to call this operation")
			} else if rec.Code != tc.wantSecond {
				t.Errorf("second request: got %d, want %d (body %s)", rec.Code, tc.wantSecond, rec.Body)
			}
			if auth.calls != tc.wantAuthCalls {
				t.Errorf("authorizer calls: got %d, want %d", auth.calls, tc.wantAuthCalls)
			}
		})
	}
}

func TestAuthorizerContextReachesFunction(t *testing.T) {
	auth := &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		p := policy("user_1", "Allow", arnPrefix+"*")
		p.Context = map[string]any{"workspaceId": "ws_1", "limit": 3, "ratio": 1.5, "admin": true, "teamId": nil}
		return p, nil
	}}
	fn := &proxyFunc{}
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": auth.handler(), "InvitesFunction": fn.handler(),
	}, localgw.Options{})

	for _, method := range []string{"GET", "DELETE"} { // the second answer comes from the cache
		rec := send(t, g, method, "/workspaceapi/invites", "", withKey())
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: got %d, want 200 (body %s)", method, rec.Code, rec.Body)
		}
		// REST APIs hand context values to a Lambda proxy integration stringified.
		want := map[string]any{
			"workspaceId": "ws_1", "limit": "3", "ratio": "1.5", "admin": "true", "teamId": nil,
			"principalId": "user_1", "integrationLatency": float64(0),
		}
		if got := fn.last.RequestContext.Authorizer; !maps.Equal(got, want) {
			t.Errorf("%s: requestContext.authorizer: got %v, want %v", method, got, want)
		}
	}
	if auth.calls != 1 {
		t.Errorf("authorizer calls: got %d, want 1", auth.calls)
	}
}

func TestAuthorizerAcceptsIAMShorthand(t *testing.T) {
	// A policy written by hand (or another runtime): Action and Resource as
	// strings, Statement as one object.
	raw := json.RawMessage(`{"principalId": "user_1", "usageIdentifierKey": "` + testUsageIdentifier + `", "policyDocument": {"Version": "2012-10-17",
		"Statement": {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": "` + arnPrefix + `GET/workspaceapi/invites"}}}`)
	auth := lambda.NewHandler(func(context.Context, events.APIGatewayCustomAuthorizerRequestTypeRequest) (json.RawMessage, error) {
		return raw, nil
	})
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": auth, "InvitesFunction": (&proxyFunc{}).handler(),
	}, localgw.Options{})

	if rec := send(t, g, "GET", "/workspaceapi/invites", "", withKey()); rec.Code != http.StatusOK {
		t.Errorf("allowed route: got %d, want 200 (body %s)", rec.Code, rec.Body)
	}
	wantError(t, send(t, g, "DELETE", "/workspaceapi/invites", "", withKey()), http.StatusForbidden, "this API key is not allowed to call this operation")
}

func TestAuthorizerCacheKeepsRepeatedIdentityHeadersApart(t *testing.T) {
	const a, b = "Bearer wk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Bearer wk_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	tests := []struct {
		name          string
		first, second []string // Authorization values of two requests
		wantAuthCalls int
	}{
		{"a repeated header does not reuse a single value's decision", []string{a}, []string{b, a}, 2},
		{"a repeated header does not reuse its first value's decision", []string{a}, []string{a, b}, 2},
		{"a repeated header's decision is not reused by its last value", []string{b, a}, []string{a}, 2},
		{"a repeated header's decision is not reused by its first value", []string{b, a}, []string{b}, 2},
		{"the same single value is cached", []string{a}, []string{a}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			auth := allowAll()
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": auth.handler(), "InvitesFunction": (&proxyFunc{}).handler(),
			}, localgw.Options{})

			for _, values := range [][]string{tc.first, tc.second} {
				req := httptest.NewRequest("GET", "/workspaceapi/invites", nil)
				for _, v := range values {
					req.Header.Add("Authorization", v)
				}
				g.ServeHTTP(httptest.NewRecorder(), req)
			}

			if auth.calls != tc.wantAuthCalls {
				t.Errorf("authorizer calls: got %d, want %d", auth.calls, tc.wantAuthCalls)
			}
		})
	}
}

func TestAuthorizerEventCarriesEveryAuthorizationValue(t *testing.T) {
	auth := allowAll()
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": auth.handler(), "InvitesFunction": (&proxyFunc{}).handler(),
	}, localgw.Options{})
	req := httptest.NewRequest("GET", "/workspaceapi/invites", nil)
	req.Header.Add("Authorization", "Bearer one")
	req.Header.Add("authorization", "Bearer two") // one header, spelled in another case

	g.ServeHTTP(httptest.NewRecorder(), req)

	if got, want := auth.last.MultiValueHeaders["Authorization"], []string{"Bearer one", "Bearer two"}; !slices.Equal(got, want) {
		t.Errorf("multiValueHeaders.Authorization: got %q, want %q", got, want)
	}
	if got := auth.last.Headers["Authorization"]; got != "Bearer two" {
		t.Errorf("headers.Authorization: got %q, want the last value", got)
	}
}
