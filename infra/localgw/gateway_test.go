package localgw_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/agentplatform/workspaceapi/infra/localgw"
)

func TestProxyEventDescribesRequest(t *testing.T) {
	fn := &proxyFunc{}
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn.handler(),
	}, localgw.Options{})
	req := httptest.NewRequest("POST", "/workspaceapi/invites?teamId=t1&tag=a&tag=b", strings.NewReader(`{"email": "a@example.com"}`))
	req.Header.Set("Authorization", testKey)
	req.Header.Add("X-Trace", "one")
	req.Header.Add("X-Trace", "two")
	g.ServeHTTP(httptest.NewRecorder(), req)

	ev := fn.last
	checks := []struct{ field, got, want string }{
		{"resource", ev.Resource, "/workspaceapi/invites"},
		{"path", ev.Path, "/workspaceapi/invites"},
		{"httpMethod", ev.HTTPMethod, "POST"},
		{"body", ev.Body, `{"email": "a@example.com"}`},
		{"headers.Authorization", ev.Headers["Authorization"], testKey},
		{"headers.X-Trace (last value)", ev.Headers["X-Trace"], "two"},
		{"headers.Host", ev.Headers["Host"], "example.com"},
		{"queryStringParameters.tag (last value)", ev.QueryStringParameters["tag"], "b"},
		{"queryStringParameters.teamId", ev.QueryStringParameters["teamId"], "t1"},
		{"requestContext.path", ev.RequestContext.Path, "/v1/workspaceapi/invites"},
		{"requestContext.resourcePath", ev.RequestContext.ResourcePath, "/workspaceapi/invites"},
		{"requestContext.stage", ev.RequestContext.Stage, "v1"},
		{"requestContext.httpMethod", ev.RequestContext.HTTPMethod, "POST"},
		{"requestContext.accountId", ev.RequestContext.AccountID, "123456789012"},
		{"requestContext.apiId", ev.RequestContext.APIID, "local"},
		{"requestContext.identity.sourceIp", ev.RequestContext.Identity.SourceIP, "192.0.2.1"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.field, c.got, c.want)
		}
	}
	if got := ev.MultiValueHeaders["X-Trace"]; !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("multiValueHeaders.X-Trace: got %q, want [one two]", got)
	}
	if got := ev.MultiValueQueryStringParameters["tag"]; !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("multiValueQueryStringParameters.tag: got %q, want [a b]", got)
	}
	if ev.IsBase64Encoded {
		t.Error("isBase64Encoded: got true for a UTF-8 body")
	}
	if ev.PathParameters != nil {
		t.Errorf("pathParameters: got %v, want nil for a path without parameters", ev.PathParameters)
	}
	if got, want := ev.RequestContext.RequestTimeEpoch, testNow.UnixMilli(); got != want {
		t.Errorf("requestContext.requestTimeEpoch: got %d, want %d", got, want)
	}
	if ev.RequestContext.RequestID == "" {
		t.Error("requestContext.requestId: got empty")
	}
}

func TestProxyEventOptionalParts(t *testing.T) {
	binary := []byte{0xff, 0xfe, 0x00, 0x01}
	tests := []struct {
		name      string
		target    string
		body      string
		wantBody  string
		wantB64   bool
		wantQuery bool
	}{
		{"no query string gives nil maps", "/workspaceapi/invites", "", "", false, false},
		{"non-UTF-8 body is base64", "/workspaceapi/invites", string(binary), base64.StdEncoding.EncodeToString(binary), true, false},
		{"query string gives both maps", "/workspaceapi/invites?a=1", "", "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := &proxyFunc{}
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn.handler(),
			}, localgw.Options{})

			send(t, g, "POST", tc.target, tc.body, withKey())

			ev := fn.last
			if ev.Body != tc.wantBody || ev.IsBase64Encoded != tc.wantB64 {
				t.Errorf("body: got %q (base64 %v), want %q (base64 %v)", ev.Body, ev.IsBase64Encoded, tc.wantBody, tc.wantB64)
			}
			if gotQuery := ev.QueryStringParameters != nil && ev.MultiValueQueryStringParameters != nil; gotQuery != tc.wantQuery ||
				(ev.QueryStringParameters == nil) != (ev.MultiValueQueryStringParameters == nil) {
				t.Errorf("query maps: got %v and %v, want present: %v", ev.QueryStringParameters, ev.MultiValueQueryStringParameters, tc.wantQuery)
			}
		})
	}
}

// A semicolon in a query string splits it as an ampersand does, as API
// Gateway's REST APIs document; no pair that holds one is dropped.
func TestQuerySemicolonSplitsAsTheGatewayDoes(t *testing.T) {
	tests := []struct {
		target string
		want   map[string][]string
	}{
		{"/workspaceapi/invites?a=1;b=2", map[string][]string{"a": {"1"}, "b": {"2"}}},
		{"/workspaceapi/invites?cursor=x;y&limit=5", map[string][]string{"cursor": {"x"}, "y": {""}, "limit": {"5"}}},
		{"/workspaceapi/invites?tag=a%3Bb", map[string][]string{"tag": {"a;b"}}},
		{"/workspaceapi/invites?a=1;a=2", map[string][]string{"a": {"1", "2"}}},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			fn := &proxyFunc{}
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn.handler(),
			}, localgw.Options{})
			send(t, g, "POST", tc.target, "", withKey())
			got := fn.last.MultiValueQueryStringParameters
			if len(got) != len(tc.want) {
				t.Fatalf("multiValueQueryStringParameters: got %q, want %q", got, tc.want)
			}
			for k, vs := range tc.want {
				if !slices.Equal(got[k], vs) {
					t.Errorf("multiValueQueryStringParameters[%q]: got %q, want %q", k, got[k], vs)
				}
				if last := fn.last.QueryStringParameters[k]; last != vs[len(vs)-1] {
					t.Errorf("queryStringParameters[%q]: got %q, want %q", k, last, vs[len(vs)-1])
				}
			}
		})
	}
}

func TestProxyResponseIsWritten(t *testing.T) {
	tests := []struct {
		name       string
		reply      events.APIGatewayProxyResponse
		wantStatus int
		wantBody   string
		wantHeader map[string][]string
	}{
		{
			name:       "status, body and content type",
			reply:      events.APIGatewayProxyResponse{StatusCode: 201, Headers: map[string]string{"Content-Type": "application/json"}, Body: `{"id": "inv_1"}`},
			wantStatus: 201, wantBody: `{"id": "inv_1"}`,
			wantHeader: map[string][]string{"Content-Type": {"application/json"}},
		},
		{
			name: "headers and multiValueHeaders merge",
			reply: events.APIGatewayProxyResponse{StatusCode: 200,
				Headers:           map[string]string{"X-A": "1", "X-B": "single"},
				MultiValueHeaders: map[string][]string{"X-A": {"1", "2"}, "X-C": {"3"}}},
			wantStatus: 200,
			wantHeader: map[string][]string{"X-A": {"1", "2"}, "X-B": {"single"}, "X-C": {"3"}},
		},
		{
			name:       "missing content type is application/json",
			reply:      events.APIGatewayProxyResponse{StatusCode: 200, Body: `[]`},
			wantStatus: 200, wantBody: `[]`,
			wantHeader: map[string][]string{"Content-Type": {"application/json"}},
		},
		{
			name:       "base64 body is decoded",
			reply:      events.APIGatewayProxyResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "image/png"}, Body: base64.StdEncoding.EncodeToString([]byte{0x89, 'P', 'N', 'G'}), IsBase64Encoded: true},
			wantStatus: 200, wantBody: "\x89PNG",
			wantHeader: map[string][]string{"Content-Type": {"image/png"}},
		},
		{
			name:       "no content",
			reply:      events.APIGatewayProxyResponse{StatusCode: 204},
			wantStatus: 204,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := &proxyFunc{reply: func(events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) { return tc.reply, nil }}
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn.handler(),
			}, localgw.Options{})

			header := withKey()
			header["Accept"] = "*/*" // matches the template's BinaryMediaTypes, so base64 bodies decode
			rec := send(t, g, "GET", "/workspaceapi/invites", "", header)

			if rec.Code != tc.wantStatus || rec.Body.String() != tc.wantBody {
				t.Errorf("got %d %q, want %d %q", rec.Code, rec.Body, tc.wantStatus, tc.wantBody)
			}
			for name, want := range tc.wantHeader {
				got := slices.Sorted(slices.Values(rec.Header().Values(name)))
				if !slices.Equal(got, want) {
					t.Errorf("header %s: got %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestIntegrationFailureIs502(t *testing.T) {
	tests := []struct {
		name    string
		handler lambda.Handler
	}{
		{"handler error", lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
			return events.APIGatewayProxyResponse{}, errors.New("dynamodb: connection refused")
		})},
		{"handler panic", lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
			panic("boom")
		})},
		{"missing statusCode", lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
			return events.APIGatewayProxyResponse{Body: "{}"}, nil
		})},
		{"invalid base64 body", lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
			return events.APIGatewayProxyResponse{StatusCode: 200, Body: "not base64!", IsBase64Encoded: true}, nil
		})},
		{"not a proxy response", lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (map[string]any, error) {
			return map[string]any{"invites": []string{}}, nil
		})},
		{"extra key", lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (map[string]any, error) {
			return map[string]any{"statusCode": 200, "body": "{}", "cookies": []string{"a=b"}}, nil
		})},
		{"body not a string", lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (map[string]any, error) {
			return map[string]any{"statusCode": 200, "body": map[string]any{"ok": true}}, nil
		})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "InvitesFunction": tc.handler,
			}, localgw.Options{})

			header := withKey()
			header["Accept"] = "application/octet-stream" // a binary type: base64 bodies are decoded
			wantError(t, send(t, g, "GET", "/workspaceapi/invites", "", header), http.StatusBadGateway, "internal error")
		})
	}
}

func TestRequestTooLargeIs413(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		chunked       bool // no Content-Length: the size is known only by reading
		wantStatus    int
		wantAuthCalls int
		wantFnCalls   int
	}{
		{"declared body over API Gateway's 10 MB is refused before the authorizer", strings.Repeat("x", 10<<20+1), false, 413, 0, 0},
		{"chunked body over 10 MB is refused after the authorizer, when read", strings.Repeat("x", 10<<20+1), true, 413, 1, 0},
		{"event over Lambda's 6 MB is refused without invoking the function", strings.Repeat("x", 6<<20), false, 413, 1, 0},
		{"event under Lambda's 6 MB reaches the function", strings.Repeat("x", 5<<20), false, 200, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := &proxyFunc{}
			auth := allowAll()
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": auth.handler(), "InvitesFunction": fn.handler(),
			}, localgw.Options{})
			req := httptest.NewRequest("POST", "/workspaceapi/invites", strings.NewReader(tc.body))
			if tc.chunked {
				req.ContentLength = -1
			}
			req.Header.Set("Authorization", testKey)
			rec := httptest.NewRecorder()

			g.ServeHTTP(rec, req)

			if tc.wantStatus == http.StatusRequestEntityTooLarge {
				wantError(t, rec, tc.wantStatus, "request body too large")
			} else if rec.Code != tc.wantStatus {
				t.Errorf("status: got %d, want %d", rec.Code, tc.wantStatus)
			}
			if auth.calls != tc.wantAuthCalls || fn.calls != tc.wantFnCalls {
				t.Errorf("calls: got authorizer %d, function %d; want %d and %d", auth.calls, fn.calls, tc.wantAuthCalls, tc.wantFnCalls)
			}
		})
	}
}

func TestGatewayResponsesFallBackLikeAPIGateway(t *testing.T) {
	const default4xx = `
      GatewayResponses:
        DEFAULT_4XX:
          ResponseTemplates: {application/json: '{"error": $context.error.messageString}'}
        DEFAULT_5XX:
          StatusCode: "599"
          ResponseParameters: {Headers: {X-Gateway: "'yes'"}}
          ResponseTemplates: {application/json: '{"error": "$context.error.message"}'}
`
	tests := []struct {
		name       string
		responses  string // GatewayResponses added to bareTemplate's API
		target     string
		key        bool
		failing    bool // the function returns an error
		wantStatus int
		wantBody   string
	}{
		{"API Gateway's own missing route", "", "/nope", true, false, 403, `{"message":"Missing Authentication Token"}`},
		{"API Gateway's own missing key", "", "/items", false, false, 401, `{"message":"Unauthorized"}`},
		{"API Gateway's own integration failure", "", "/items", true, true, 502, `{"message":"Internal server error"}`},
		{"DEFAULT_4XX keeps the type's status", default4xx, "/nope", true, false, 403, `{"error": "Missing Authentication Token"}`},
		{"DEFAULT_4XX for a missing key", default4xx, "/items", false, false, 401, `{"error": "Unauthorized"}`},
		{"DEFAULT_5XX for an integration failure, with 502", default4xx, "/items", true, true, 502, `{"error": "Internal server error"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(bareTemplate, "      StageName: v1\n", "      StageName: v1\n"+strings.TrimPrefix(tc.responses, "\n"), 1)
			fn := &proxyFunc{}
			if tc.failing {
				fn.reply = func(events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
					return events.APIGatewayProxyResponse{}, errors.New("boom")
				}
			}
			g := newGateway(t, parseTemplate(t, src), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "ItemsFunction": fn.handler(),
			}, localgw.Options{})
			header := map[string]string{}
			if tc.key {
				header = withKey()
			}

			rec := send(t, g, "GET", tc.target, "", header)

			if rec.Code != tc.wantStatus || rec.Body.String() != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", rec.Code, rec.Body, tc.wantStatus, tc.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type: got %q, want application/json", ct)
			}
		})
	}
}

func TestLambdaContextCarriesTimeout(t *testing.T) {
	var deadline time.Duration
	var arn string
	fn := lambda.NewHandler(func(ctx context.Context, _ events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		d, _ := ctx.Deadline()
		deadline = time.Until(d)
		if lc, ok := lambdacontext.FromContext(ctx); ok {
			arn = lc.InvokedFunctionArn
		}
		return events.APIGatewayProxyResponse{StatusCode: 200}, nil
	})
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn,
	}, localgw.Options{})

	send(t, g, "GET", "/workspaceapi/invites", "", withKey())

	if deadline <= 28*time.Second || deadline > 29*time.Second { // InvitesFunction's Timeout: 29
		t.Errorf("deadline: got %v from now, want about 29s", deadline)
	}
	if want := "arn:aws:lambda:us-east-1:123456789012:function:InvitesFunction"; arn != want {
		t.Errorf("InvokedFunctionArn: got %q, want %q", arn, want)
	}
}

func TestConcurrentRequestsGetTheirOwnResults(t *testing.T) {
	fn := func() lambda.Handler {
		return lambda.NewHandler(func(_ context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
			return events.APIGatewayProxyResponse{StatusCode: 200, Body: strings.Repeat(ev.QueryStringParameters["n"], 4096)}, nil
		})
	}
	auth := allowAll()
	g := newGatewayFactories(t, loadTemplate(t), map[string]localgw.Factory{
		"AuthorizerFunction": func() lambda.Handler { return auth.handler() }, "InvitesFunction": fn,
	}, localgw.Options{})

	var wg sync.WaitGroup
	errs := make(chan string, 400)
	for i := range 20 {
		wg.Go(func() {
			n := fmt.Sprint(i % 10)
			for range 20 {
				req := httptest.NewRequest("GET", "/workspaceapi/invites?n="+n, nil)
				req.Header.Set("Authorization", testKey)
				rec := httptest.NewRecorder()
				g.ServeHTTP(rec, req)
				if rec.Code != 200 || rec.Body.String() != strings.Repeat(n, 4096) {
					errs <- fmt.Sprintf("n=%s: got %d %.20q...", n, rec.Code, rec.Body)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestEachRequestIsLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": allowAll().handler(), "InvitesFunction": (&proxyFunc{}).handler(),
	}, localgw.Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})

	send(t, g, "GET", "/workspaceapi/invites", "", withKey())

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("log: got %d lines, want 1:\n%s", len(lines), buf.String())
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &entry); err != nil {
		t.Fatalf("log line %s: %v", lines[0], err)
	}
	for key, want := range map[string]any{"level": "INFO", "method": "GET", "path": "/workspaceapi/invites", "status": float64(200), "function": "InvitesFunction"} {
		if entry[key] != want {
			t.Errorf("log %s: got %v, want %v", key, entry[key], want)
		}
	}
	if _, ok := entry["duration"]; !ok {
		t.Error("log: no duration")
	}
	if strings.Contains(buf.String(), testKey) {
		t.Error("log: contains the API key")
	}
}
