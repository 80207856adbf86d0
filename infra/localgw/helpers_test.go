package localgw_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/localgw"
)

const (
	realTemplate = "../../template.yaml"
	testKey      = "Bearer wk_0123456789abcdefghijklmnopqrstuv"
	// arnPrefix is the method ARN of the gateway's defaults, up to the stage.
	arnPrefix = "arn:aws:execute-api:us-east-1:123456789012:local/v1/"
)

var testNow = time.Date(2026, 11, 21, 22, 33, 1, 0, time.UTC)

// routesTemplate has path parameters, a literal resource beside a {param}
// one, and a route without authorizer.
const routesTemplate = `
Parameters:
  Stage: {Type: String, Default: v1}
  AuthorizerCacheTtl: {Type: Number, Default: 300}
Resources:
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: !Ref Stage
      Auth:
        DefaultAuthorizer: KeyAuthorizer
        Authorizers:
          KeyAuthorizer:
            FunctionPayloadType: REQUEST
            FunctionArn: !GetAtt AuthorizerFunction.Arn
            Identity:
              Headers: [Authorization]
              ReauthorizeEvery: !Ref AuthorizerCacheTtl
      GatewayResponses:
        MISSING_AUTHENTICATION_TOKEN:
          StatusCode: "404"
          ResponseParameters: {Headers: {Content-Type: "'application/json'"}}
          ResponseTemplates: {application/json: '{"error": "not found"}'}
        DEFAULT_4XX:
          ResponseTemplates: {application/json: '{"error": $context.error.messageString}'}
        DEFAULT_5XX:
          ResponseTemplates: {application/json: '{"error": "internal error"}'}
  AuthorizerFunction:
    Type: AWS::Serverless::Function
    Properties: {Timeout: 5}
  AgentsFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        GetAgent: {Type: Api, Properties: {RestApiId: !Ref Api, Path: "/agents/{agentId}", Method: get}}
        GetWorkspaceAgent: {Type: Api, Properties: {RestApiId: !Ref Api, Path: "/workspaceapi/agents/{agentId}", Method: get}}
        AgentTags: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /workspaceapi/agents/tags, Method: post}}
        TeamMember: {Type: Api, Properties: {RestApiId: !Ref Api, Path: "/workspaceapi/teams/{teamId}/members/{userId}", Method: put}}
        CreditLimit: {Type: Api, Properties: {RestApiId: !Ref Api, Path: "/workspaceapi/teams/{teamId}/credit-limit", Method: put}}
        Health: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /health, Method: get, Auth: {Authorizer: NONE}}}
`

// bareTemplate has no gateway responses, so API Gateway's own apply.
const bareTemplate = `
Resources:
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      Auth:
        DefaultAuthorizer: KeyAuthorizer
        Authorizers:
          KeyAuthorizer:
            FunctionPayloadType: REQUEST
            FunctionArn: !GetAtt [AuthorizerFunction, Arn]
            Identity: {Headers: [Authorization], ReauthorizeEvery: 0}
  AuthorizerFunction:
    Type: AWS::Serverless::Function
  ItemsFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        ListItems: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /items, Method: get}}
`

func loadTemplate(t *testing.T) *localgw.Template {
	t.Helper()
	tmpl, err := localgw.LoadTemplate(realTemplate)
	if err != nil {
		t.Fatalf("LoadTemplate(%s): %v", realTemplate, err)
	}
	return tmpl
}

func parseTemplate(t *testing.T, src string) *localgw.Template {
	t.Helper()
	tmpl, err := localgw.ParseTemplate([]byte(src))
	if err != nil {
		t.Fatalf("ParseTemplate: %v", err)
	}
	return tmpl
}

func newGateway(t *testing.T, tmpl *localgw.Template, functions map[string]lambda.Handler, opts localgw.Options) *localgw.Gateway {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	factories := make(map[string]localgw.Factory, len(functions))
	for id, h := range functions {
		if h == nil {
			factories[id] = nil
			continue
		}
		factories[id] = func() lambda.Handler { return h }
	}
	return newGatewayFactories(t, tmpl, factories, opts)
}

// newGatewayFactories is newGateway with one handler per execution environment.
func newGatewayFactories(t *testing.T, tmpl *localgw.Template, functions map[string]localgw.Factory, opts localgw.Options) *localgw.Gateway {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	// Functions a test does not exercise (those no API route invokes, such as
	// the stream-fed ones) get a handler that answers null.
	for _, id := range tmpl.FunctionIDs() {
		if _, given := functions[id]; !given {
			functions[id] = func() lambda.Handler { return idle{} }
		}
	}
	g, err := localgw.New(tmpl, functions, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

// idle is a function a test does not call.
type idle struct{}

// Invoke answers null.
func (idle) Invoke(context.Context, []byte) ([]byte, error) { return []byte("null"), nil }

// send serves one request; header values are set on the request.
func send(t *testing.T, h http.Handler, method, target, body string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func withKey() map[string]string { return map[string]string{"Authorization": testKey} }

// wantError checks an error the gateway wrote itself: the status, JSON
// content type, and a body that is exactly {"error": want}.
func wantError(t *testing.T, rec *httptest.ResponseRecorder, status int, want string) {
	t.Helper()
	if rec.Code != status {
		t.Errorf("status: got %d, want %d (body %s)", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type: got %q, want application/json", ct)
	}
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %s: %v", rec.Body, err)
	}
	msg, ok := body["error"].(string)
	if len(body) != 1 || !ok {
		t.Fatalf("body: got %s, want exactly one \"error\" string key", rec.Body)
	}
	if msg != want {
		t.Errorf("error: got %q, want %q", msg, want)
	}
}

// wantErrorPrefix is wantError for a message that starts with want (the rest
// varies, e.g. a request id).
func wantErrorPrefix(t *testing.T, rec *httptest.ResponseRecorder, status int, want string) {
	t.Helper()
	var body struct{ Error string }
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if strings.HasPrefix(body.Error, want) {
		want = body.Error
	}
	wantError(t, rec, status, want)
}

// authorizerFunc counts its invocations and records the last event.
type authorizerFunc struct {
	mu    sync.Mutex // environments may run it concurrently
	calls int
	last  events.APIGatewayCustomAuthorizerRequestTypeRequest
	reply func(events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error)
}

func (a *authorizerFunc) handler() lambda.Handler {
	return lambda.NewHandler(func(_ context.Context, ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		a.mu.Lock()
		a.calls++
		a.last = ev
		a.mu.Unlock()
		return a.reply(ev)
	})
}

// allowMethod allows exactly the method ARN of the request.
func allowMethod() *authorizerFunc {
	return &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		return policy("user_1", "Allow", ev.MethodArn), nil
	}}
}

// allowAll allows every route of the stage.
func allowAll() *authorizerFunc {
	return &authorizerFunc{reply: func(events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		return policy("user_1", "Allow", arnPrefix+"*"), nil
	}}
}

func failingAuthorizer(msg string) *authorizerFunc {
	return &authorizerFunc{reply: func(events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		return events.APIGatewayCustomAuthorizerResponse{}, errors.New(msg)
	}}
}

// testUsageIdentifier is the usageIdentifierKey the test authorizers return:
// every method of template.yaml requires an API key, which the API reads from
// the authorizer's response.
const testUsageIdentifier = "workspace-api-usage-ws_test"

func policy(principal, effect string, resources ...string) events.APIGatewayCustomAuthorizerResponse {
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID:        principal,
		UsageIdentifierKey: testUsageIdentifier,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
			Version:   "2012-10-17",
			Statement: []events.IAMPolicyStatement{{Action: []string{"execute-api:Invoke"}, Effect: effect, Resource: resources}},
		},
	}
}

// proxyFunc counts its invocations, records the last event and answers reply
// (200 {"ok": true} when nil).
type proxyFunc struct {
	calls int
	last  events.APIGatewayProxyRequest
	reply func(events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)
}

func (p *proxyFunc) handler() lambda.Handler {
	return lambda.NewHandler(func(_ context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		p.calls++
		p.last = ev
		if p.reply != nil {
			return p.reply(ev)
		}
		return events.APIGatewayProxyResponse{StatusCode: http.StatusOK, Body: `{"ok": true}`}, nil
	})
}
