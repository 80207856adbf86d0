package localgw_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/localgw"
)

// usageKeyAuthorizer allows every route and names key as the request's
// usageIdentifierKey ("" names none).
func usageKeyAuthorizer(key string) *authorizerFunc {
	return &authorizerFunc{reply: func(events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		p := policy("user_1", "Allow", arnPrefix+"*")
		p.UsageIdentifierKey = key
		return p, nil
	}}
}

// template.yaml requires an API key on every method, read from the
// authorizer's response (ApiKeySourceType AUTHORIZER). API Gateway refuses a
// request whose key is in no usage plan with its INVALID_API_KEY response;
// locally every workspace counts as registered, so only a missing key, or
// one too short to be an API key, is refused.
func TestMethodsRequireTheAuthorizersUsageIdentifier(t *testing.T) {
	tests := []struct {
		name       string
		usageKey   string
		wantStatus int
	}{
		{"a workspace's usage identifier reaches the function", "workspace-api-usage-ws_acme", http.StatusOK},
		{"no usage identifier is 403", "", http.StatusForbidden},
		{"a value API Gateway could not hold as a key (under 20 characters) is 403", "ws_acme", http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := &proxyFunc{}
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": usageKeyAuthorizer(tc.usageKey).handler(), "InvitesFunction": fn.handler(),
			}, localgw.Options{})

			rec := send(t, g, "GET", "/workspaceapi/invites", "", withKey())

			if tc.wantStatus == http.StatusOK {
				if rec.Code != http.StatusOK || fn.calls != 1 {
					t.Errorf("got %d and %d function calls, want 200 and 1 (body %s)", rec.Code, fn.calls, rec.Body)
				}
				return
			}
			wantError(t, rec, http.StatusForbidden, "this workspace is not enabled on this API")
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control: got %q, want no-store (template.yaml's INVALID_API_KEY)", got)
			}
			if fn.calls != 0 {
				t.Errorf("function calls: got %d, want 0", fn.calls)
			}
		})
	}
}

// The usage identifier is part of the authorizer's response, so a decision
// answered from the cache carries it as well.
func TestCachedAuthorizerDecisionKeepsItsUsageIdentifier(t *testing.T) {
	ttl := 5 * time.Minute
	auth := usageKeyAuthorizer("workspace-api-usage-ws_acme")
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": auth.handler(), "InvitesFunction": (&proxyFunc{}).handler(),
	}, localgw.Options{AuthorizerTTL: &ttl})

	for _, method := range []string{"GET", "DELETE"} {
		if rec := send(t, g, method, "/workspaceapi/invites", "", withKey()); rec.Code != http.StatusOK {
			t.Errorf("%s: got %d, want 200 (body %s)", method, rec.Code, rec.Body)
		}
	}
	if auth.calls != 1 {
		t.Errorf("authorizer calls: got %d, want 1 (the second answered from the cache)", auth.calls)
	}
}

// The key source and the requirement follow the template: the x-api-key
// header when the source is HEADER (API Gateway's default), the API's
// Auth.ApiKeyRequired for every route, and an event's own Auth.ApiKeyRequired
// over it.
func TestAPIKeyRequirementFollowsTheTemplate(t *testing.T) {
	const api = `
Resources:
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      ApiKeySourceType: SOURCE
      Auth:
        ApiKeyRequired: true
        DefaultAuthorizer: KeyAuthorizer
        Authorizers:
          KeyAuthorizer:
            FunctionPayloadType: REQUEST
            FunctionArn: !GetAtt AuthorizerFunction.Arn
            Identity: {Headers: [Authorization], ReauthorizeEvery: 0}
  AuthorizerFunction:
    Type: AWS::Serverless::Function
  ItemsFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        ListItems: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /items, Method: get}}
        Health: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /health, Method: get, Auth: {ApiKeyRequired: false}}}
`
	const headerKey = "abcdefghijklmnopqrstuvwxyz"
	tests := []struct {
		name       string
		source     string
		target     string
		apiKey     string // the x-api-key header; "" sends none
		usageKey   string // the authorizer's usageIdentifierKey
		wantStatus int
	}{
		{"HEADER: the x-api-key header is the key", "HEADER", "/items", headerKey, "", http.StatusOK},
		{"HEADER: without x-api-key, 403", "HEADER", "/items", "", testUsageIdentifier, http.StatusForbidden},
		{"AUTHORIZER: x-api-key is not read", "AUTHORIZER", "/items", headerKey, "", http.StatusForbidden},
		{"AUTHORIZER: the authorizer's usage identifier is the key", "AUTHORIZER", "/items", "", testUsageIdentifier, http.StatusOK},
		{"a route with ApiKeyRequired false needs none", "AUTHORIZER", "/health", "", "", http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateway(t, parseTemplate(t, strings.Replace(api, "SOURCE", tc.source, 1)), map[string]lambda.Handler{
				"AuthorizerFunction": usageKeyAuthorizer(tc.usageKey).handler(), "ItemsFunction": (&proxyFunc{}).handler(),
			}, localgw.Options{})
			header := withKey()
			if tc.apiKey != "" {
				header["x-api-key"] = tc.apiKey
			}

			rec := send(t, g, "GET", tc.target, "", header)

			if rec.Code != tc.wantStatus {
				t.Errorf("got %d, want %d (body %s)", rec.Code, tc.wantStatus, rec.Body)
			}
			// Without a template entry API Gateway answers its own body.
			if tc.wantStatus == http.StatusForbidden && rec.Body.String() != `{"message":"Forbidden"}` {
				t.Errorf("body: got %s, want API Gateway's {\"message\":\"Forbidden\"}", rec.Body)
			}
		})
	}
}
