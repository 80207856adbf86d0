package localgw_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
)

// timeoutTemplate has a function with a 1 s Timeout and one with 60 s, more
// than API Gateway's 29 s.
const timeoutTemplate = `
Resources:
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      GatewayResponses:
        INTEGRATION_FAILURE:
          StatusCode: "502"
          ResponseParameters: {Headers: {Content-Type: "'application/json'", Cache-Control: "'no-store'"}}
          ResponseTemplates: {application/json: '{"error": "internal error"}'}
        INTEGRATION_TIMEOUT:
          StatusCode: "504"
          ResponseParameters: {Headers: {Content-Type: "'application/json'", Cache-Control: "'no-store'"}}
          ResponseTemplates: {application/json: '{"error": "the request timed out"}'}
  ShortFunction:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 1
      Events:
        Short: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /short, Method: get}}
  LongFunction:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 60
      Events:
        Long: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /long, Method: get}}
`

// serveWithin serves one request and fails the test when no answer comes
// within limit (the gateway would otherwise wait for a stuck handler forever).
func serveWithin(t *testing.T, h http.Handler, req *http.Request, limit time.Duration) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { h.ServeHTTP(rec, req); close(done) }()
	select {
	case <-done:
		return rec
	case <-time.After(limit):
		t.Fatalf("%s %s: no answer within %v", req.Method, req.URL.Path, limit)
		return nil
	}
}

func TestFunctionAndIntegrationTimeouts(t *testing.T) {
	tests := []struct {
		name        string
		path        string
		integration time.Duration // API Gateway's wait; 0 keeps its 29 s
		wantStatus  int
		wantError   string
	}{
		{"a function past its own Timeout (1 s) is an integration failure", "/short", 0, 502, "internal error"},
		{"API Gateway stops waiting after its integration timeout", "/long", 200 * time.Millisecond, 504, "the request timed out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			// The handler ignores its context, as a stuck one would.
			stuck := lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				<-release
				return events.APIGatewayProxyResponse{StatusCode: 200}, nil
			})
			g := newGateway(t, parseTemplate(t, timeoutTemplate), map[string]lambda.Handler{
				"ShortFunction": stuck, "LongFunction": stuck,
			}, localgw.Options{})
			if tc.integration > 0 {
				localgw.SetIntegrationTimeout(g, tc.integration)
			}

			start := time.Now()
			rec := serveWithin(t, g, httptest.NewRequest("GET", tc.path, nil), 10*time.Second)

			wantError(t, rec, tc.wantStatus, tc.wantError)
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control: got %q, want no-store", got)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("answered after %v, want about the timeout", elapsed)
			}
		})
	}
}

func TestIntegrationTimeoutIs29Seconds(t *testing.T) {
	// The handler's deadline is its own Timeout (60 s), not API Gateway's
	// wait: Lambda does not know API Gateway stopped waiting.
	var deadline time.Duration
	fn := lambda.NewHandler(func(ctx context.Context, _ events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		d, _ := ctx.Deadline()
		deadline = time.Until(d)
		return events.APIGatewayProxyResponse{StatusCode: 200}, nil
	})
	g := newGateway(t, parseTemplate(t, timeoutTemplate), map[string]lambda.Handler{
		"ShortFunction": fn, "LongFunction": fn,
	}, localgw.Options{})

	if rec := send(t, g, "GET", "/long", "", nil); rec.Code != http.StatusOK {
		t.Fatalf("status: got %d, want 200", rec.Code)
	}
	if deadline <= 59*time.Second || deadline > 60*time.Second {
		t.Errorf("handler deadline: got %v from now, want about 60s (the function's Timeout)", deadline)
	}
}

// rawResult is a lambda.Handler whose serialized result is exactly itself
// (lambda.NewHandler would marshal, and so copy and check, 6 MB again).
type rawResult []byte

func (r rawResult) Invoke(context.Context, []byte) ([]byte, error) { return r, nil }

// rawProxyResult answers a proxy response whose serialized form is exactly n bytes.
func rawProxyResult(n int) lambda.Handler {
	const head, tail = `{"statusCode":200,"body":"`, `"}`
	return rawResult(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
}

func TestLambdaResponseLimit(t *testing.T) {
	const limit = 6291556 // Lambda's Function.ResponseSizeTooLarge threshold
	tests := []struct {
		name       string
		size       int
		wantStatus int
	}{
		{"a serialized response of exactly 6291556 bytes passes", limit, 200},
		{"one byte more fails the invocation: 502", limit + 1, 502},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "InvitesFunction": rawProxyResult(tc.size),
			}, localgw.Options{})

			rec := send(t, g, "GET", "/workspaceapi/invites", "", withKey())

			if tc.wantStatus == http.StatusBadGateway {
				wantError(t, rec, http.StatusBadGateway, "internal error")
			} else if rec.Code != tc.wantStatus {
				t.Errorf("status: got %d, want %d", rec.Code, tc.wantStatus)
			}
		})
	}
}

func TestLambdaResponseLimitIsMeasuredOnTheBase64Body(t *testing.T) {
	// 4.5 MiB of bytes are 6 MiB of base64: over the limit, though the
	// decoded body is far under it.
	body := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xff}, 4718592+100))
	fn := lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		return events.APIGatewayProxyResponse{StatusCode: 200, Body: body, IsBase64Encoded: true}, nil
	})
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn,
	}, localgw.Options{})
	header := withKey()
	header["Accept"] = "*/*"

	wantError(t, send(t, g, "GET", "/workspaceapi/invites", "", header), http.StatusBadGateway, "internal error")
}

func TestLocalInvokeHoldsLambdaResponseLimit(t *testing.T) {
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": allowAll().handler(), "InvitesFunction": rawProxyResult(6291556 + 1),
	}, localgw.Options{})

	rec := send(t, g, "POST", "/_local/invoke/InvitesFunction", `{}`, map[string]string{"Content-Type": "application/json"})

	wantErrorPrefix(t, rec, http.StatusBadGateway, "the function failed")
}

func TestGatewayResponseLimit(t *testing.T) {
	// Lambda's 6 MB hides API Gateway's 10 MB: both are lowered here, the
	// gateway's below Lambda's, to reach it.
	tests := []struct {
		name       string
		size       int
		wantStatus int
	}{
		{"a body at the gateway's limit passes", 1000, 200},
		{"a body over the gateway's limit is 502", 1001, 502},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				return events.APIGatewayProxyResponse{StatusCode: 200, Body: strings.Repeat("x", tc.size)}, nil
			})
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn,
			}, localgw.Options{})
			localgw.SetResponseLimits(g, 1000, 5000)

			rec := send(t, g, "GET", "/workspaceapi/invites", "", withKey())

			if tc.wantStatus == http.StatusBadGateway {
				wantError(t, rec, http.StatusBadGateway, "internal error")
			} else if rec.Code != tc.wantStatus || rec.Body.Len() != tc.size {
				t.Errorf("got %d with %d bytes, want %d with %d", rec.Code, rec.Body.Len(), tc.wantStatus, tc.size)
			}
		})
	}
}

func TestBinaryMediaTypes(t *testing.T) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write([]byte(s))
		_ = w.Close()
		return b.Bytes()
	}
	compressed := gz(`{"invites": []}`)
	encoded := base64.StdEncoding.EncodeToString(compressed)
	tests := []struct {
		name     string
		template string // "" for the real one (BinaryMediaTypes */*)
		accept   string
		wantBody []byte
	}{
		{"*/* decodes for any Accept", "", "application/json", compressed},
		{"*/* decodes for Accept */*", "", "*/*", compressed},
		{"the first Accept type decides", "", "application/json;q=0.9, text/html", compressed},
		{"no Accept: the base64 text passes", "", "", []byte(encoded)},
		{"without BinaryMediaTypes the base64 text passes", bareTemplate, "application/json", []byte(encoded)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := lambda.NewHandler(func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				return events.APIGatewayProxyResponse{StatusCode: 200, Body: encoded, IsBase64Encoded: true,
					Headers: map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}}, nil
			})
			tmpl, fnID, path := loadTemplate(t), "InvitesFunction", "/workspaceapi/invites"
			if tc.template != "" {
				tmpl, fnID, path = parseTemplate(t, tc.template), "ItemsFunction", "/items"
			}
			g := newGateway(t, tmpl, map[string]lambda.Handler{"AuthorizerFunction": allowAll().handler(), fnID: fn}, localgw.Options{})
			header := withKey()
			if tc.accept != "" {
				header["Accept"] = tc.accept
			}

			rec := send(t, g, "GET", path, "", header)

			if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), tc.wantBody) {
				t.Errorf("got %d %q, want 200 %q", rec.Code, rec.Body, tc.wantBody)
			}
		})
	}
}

func TestRequestBodiesOfBinaryMediaTypesAreBase64(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		wantB64     bool
	}{
		{"application/json is binary under */*", "application/json", true},
		{"any type is binary under */*", "text/plain; charset=utf-8", true},
		{"no Content-Type matches no binary type", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fn := &proxyFunc{}
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "InvitesFunction": fn.handler(),
			}, localgw.Options{})
			header := withKey()
			if tc.contentType != "" {
				header["Content-Type"] = tc.contentType
			}
			const body = `{"email": "a@example.com"}`

			send(t, g, "POST", "/workspaceapi/invites", body, header)

			want := body
			if tc.wantB64 {
				want = base64.StdEncoding.EncodeToString([]byte(body))
			}
			if ev := fn.last; ev.IsBase64Encoded != tc.wantB64 || ev.Body != want {
				t.Errorf("event body: got %q (base64 %v), want %q (base64 %v)", ev.Body, ev.IsBase64Encoded, want, tc.wantB64)
			}
		})
	}
}

func TestBase64RequestBodyReachesAHandlerDecoded(t *testing.T) {
	// The functions' adapter (aws-lambda-go-api-proxy, through
	// httpapi.Lambda) must decode what */* makes base64.
	var got []byte
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusNoContent)
	})
	g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
		"AuthorizerFunction": allowAll().handler(), "InvitesFunction": lambda.NewHandler(httpapi.Lambda(h, httpapi.ReadOnly)),
	}, localgw.Options{})
	header := withKey()
	header["Content-Type"] = "application/json"
	const body = `{"email": "a@example.com", "role": "member"}`

	rec := send(t, g, "POST", "/workspaceapi/invites", body, header)

	if rec.Code != http.StatusNoContent || string(got) != body {
		t.Errorf("got %d and body %q, want 204 and %q", rec.Code, got, body)
	}
}

func TestGatewayResponsesCarryTheTemplatesHeaders(t *testing.T) {
	tests := []struct {
		name   string
		method string
		target string
		header map[string]string
		auth   *authorizerFunc
	}{
		{"MISSING_AUTHENTICATION_TOKEN", "GET", "/nope", nil, allowAll()},
		{"UNAUTHORIZED (no key)", "GET", "/workspaceapi/invites", nil, allowAll()},
		{"UNAUTHORIZED (refused key)", "GET", "/workspaceapi/invites", withKey(), failingAuthorizer("Unauthorized")},
		{"ACCESS_DENIED", "GET", "/workspaceapi/invites", withKey(), &authorizerFunc{reply: func(ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
			return policy("u", "Deny", ev.MethodArn), nil
		}}},
		{"AUTHORIZER_FAILURE", "GET", "/workspaceapi/invites", withKey(), failingAuthorizer("boom")},
		{"INTEGRATION_FAILURE", "DELETE", "/workspaceapi/invites", withKey(), allowAll()},
		{"REQUEST_TOO_LARGE", "POST", "/workspaceapi/invites", withKey(), allowAll()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			failing := lambda.NewHandler(func(_ context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
				if ev.HTTPMethod == "DELETE" {
					panic("boom")
				}
				return events.APIGatewayProxyResponse{StatusCode: 200}, nil
			})
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": tc.auth.handler(), "InvitesFunction": failing,
			}, localgw.Options{})
			body := ""
			if tc.method == "POST" {
				body = strings.Repeat("x", 10<<20+1)
			}

			rec := send(t, g, tc.method, tc.target, body, tc.header)

			if rec.Code < 400 {
				t.Fatalf("status: got %d, want a gateway error", rec.Code)
			}
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control: got %q, want no-store (from template.yaml)", got)
			}
		})
	}
}

func TestGatewayResponseHeadersAreAppliedGenerically(t *testing.T) {
	const responses = `
      GatewayResponses:
        MISSING_AUTHENTICATION_TOKEN:
          StatusCode: "404"
          ResponseParameters: {Headers: {X-One: "'1'", Cache-Control: "'private'"}}
        DEFAULT_4XX:
          ResponseParameters: {Headers: {X-Four: "'4'"}}
          ResponseTemplates: {application/json: '{"error": $context.error.messageString}'}
`
	src := strings.Replace(bareTemplate, "      StageName: v1\n", "      StageName: v1\n"+strings.TrimPrefix(responses, "\n"), 1)
	g := newGateway(t, parseTemplate(t, src), map[string]lambda.Handler{
		"AuthorizerFunction": allowAll().handler(), "ItemsFunction": (&proxyFunc{}).handler(),
	}, localgw.Options{})
	tests := []struct {
		name       string
		target     string
		wantHeader map[string]string
	}{
		{"a type's own headers", "/nope", map[string]string{"X-One": "1", "Cache-Control": "private"}},
		{"DEFAULT_4XX's headers for a type the template lacks", "/items", map[string]string{"X-Four": "4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := send(t, g, "GET", tc.target, "", nil)
			for name, want := range tc.wantHeader {
				if got := rec.Header().Get(name); got != want {
					t.Errorf("%s: got %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestRequestLogRedactsKeyShapedText(t *testing.T) {
	tests := []struct{ name, target string }{
		{"a key as a path segment of an unknown route", "/workspaceapi/wk_0123456789abcdefghijklmnopqrstuv"},
		{"a key inside a segment", "/workspaceapi/invites/x-wk_abcDEF123"},
		{"a key in a /_local/invoke function id", "/_local/invoke/wk_0123456789abcdefghijklmnopqrstuv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": allowAll().handler(), "InvitesFunction": (&proxyFunc{}).handler(),
			}, localgw.Options{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})

			rec := send(t, g, "POST", tc.target, `{}`, map[string]string{"Content-Type": "application/json"})

			if strings.Contains(buf.String(), "wk_") {
				t.Errorf("log holds key-shaped text:\n%s", buf.String())
			}
			if !strings.Contains(buf.String(), "[redacted key]") {
				t.Errorf("log does not show where the path was redacted:\n%s", buf.String())
			}
			if strings.Contains(rec.Body.String(), "wk_") {
				t.Errorf("body holds key-shaped text: %s", rec.Body)
			}
		})
	}
}

func TestLocalInvokeRefusesWhatAWebPageCouldSend(t *testing.T) {
	tests := []struct {
		name       string
		header     map[string]string
		wantStatus int
	}{
		{"text/plain (a simple cross-origin POST)", map[string]string{"Content-Type": "text/plain"}, 415},
		{"form encoding (curl -d without -H)", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"no Content-Type (a typeless Blob)", nil, 415},
		{"another origin", map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}, 403},
		{"a loopback name on another origin's DNS", map[string]string{"Content-Type": "application/json", "Origin": "http://127.0.0.1.evil.example"}, 403},
		{"the null origin", map[string]string{"Content-Type": "application/json", "Origin": "null"}, 403},
		{"a loopback origin", map[string]string{"Content-Type": "application/json", "Origin": "http://localhost:3000"}, 200},
		{"a loopback IP origin", map[string]string{"Content-Type": "application/json", "Origin": "http://127.0.0.1:3000"}, 200},
		{"JSON with a charset", map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			echo := lambda.NewHandler(func(_ context.Context, ev json.RawMessage) (json.RawMessage, error) {
				calls++
				return ev, nil
			})
			g := newGateway(t, loadTemplate(t), map[string]lambda.Handler{
				"AuthorizerFunction": echo, "InvitesFunction": echo,
			}, localgw.Options{})

			rec := send(t, g, "POST", "/_local/invoke/AuthorizerFunction", `{"headers": {"Authorization": "Bearer x"}}`, tc.header)

			if rec.Code != tc.wantStatus {
				t.Errorf("status: got %d, want %d (body %s)", rec.Code, tc.wantStatus, rec.Body)
			}
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control: got %q, want no-store", got)
			}
			if wantCalls := map[bool]int{true: 1, false: 0}[tc.wantStatus == 200]; calls != wantCalls {
				t.Errorf("function calls: got %d, want %d", calls, wantCalls)
			}
		})
	}
}
