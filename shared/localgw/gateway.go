package localgw

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

// maxBodyBytes is API Gateway's payload limit (10 MB).
const maxBodyBytes = 10 << 20

// Options tune a Gateway. The zero value serves the template as deployed.
type Options struct {
	Stage string // default: the API's StageName (template parameter Stage's default)
	// AuthorizerTTL replaces the authorizers' ReauthorizeEvery. nil: the
	// template's value (parameter AuthorizerCacheTtl's default); 0 disables
	// the cache.
	AuthorizerTTL *time.Duration
	// Region, AccountID and APIID make method ARNs and request contexts;
	// defaults "us-east-1", "123456789012" and "local".
	Region, AccountID, APIID string
	Logger                   *slog.Logger     // default slog.Default()
	Now                      func() time.Time // default time.Now; for the authorizer cache and requestTimeEpoch
}

// Gateway serves a template's API over HTTP like the deployed API Gateway REST
// API, plus POST /_local/invoke/{FunctionLogicalId}. It is safe for concurrent
// use.
type Gateway struct {
	tmpl          *Template
	functions     map[string]*function
	stage         string
	region        string
	accountID     string
	apiID         string
	authorizerTTL *time.Duration
	cache         *authCache
	logger        *slog.Logger
	now           func() time.Time
}

// New makes a Gateway serving t with the given handlers, keyed by function
// logical id. It fails when a function of the template has no handler in
// functions, when functions names one the template lacks, or when
// opts.AuthorizerTTL is negative.
func New(t *Template, functions map[string]lambda.Handler, opts Options) (*Gateway, error) {
	if t == nil {
		return nil, errors.New("localgw: nil template")
	}
	var problems []string
	for _, id := range t.FunctionIDs() {
		if functions[id] == nil {
			problems = append(problems, "no handler for function "+id)
		}
	}
	for id := range functions {
		if _, ok := t.functions[id]; !ok {
			problems = append(problems, "handler for "+id+", which is not a function of the template")
		}
	}
	if opts.AuthorizerTTL != nil && *opts.AuthorizerTTL < 0 {
		problems = append(problems, "negative AuthorizerTTL")
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("localgw: %s", strings.Join(problems, "; "))
	}

	g := &Gateway{
		tmpl:          t,
		functions:     make(map[string]*function, len(functions)),
		stage:         cmp.Or(opts.Stage, t.stage),
		region:        cmp.Or(opts.Region, "us-east-1"),
		accountID:     cmp.Or(opts.AccountID, "123456789012"),
		apiID:         cmp.Or(opts.APIID, "local"),
		authorizerTTL: opts.AuthorizerTTL,
		cache:         &authCache{entries: map[string]authCacheEntry{}},
		logger:        opts.Logger,
		now:           opts.Now,
	}
	if g.logger == nil {
		g.logger = slog.Default()
	}
	if g.now == nil {
		g.now = time.Now
	}
	for id, h := range functions {
		g.functions[id] = &function{id: id, handler: h, timeout: t.functions[id]}
	}
	return g, nil
}

// response is what the gateway writes back.
type response struct {
	status   int
	header   http.Header
	body     []byte
	function string // logical id of the function that answered, for the log
}

// ServeHTTP answers one request and logs it.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := newRequestID()
	var res *response
	if isLocalInvoke(r.URL.Path) {
		res = g.serveLocalInvoke(r, id)
	} else {
		res = g.serveAPI(r, id)
	}
	for name, values := range res.header {
		for _, v := range values {
			w.Header().Add(name, v)
		}
	}
	w.WriteHeader(res.status)
	_, _ = w.Write(res.body) // the client is gone, or the status allows no body
	g.logger.Info("request", "method", r.Method, "path", r.URL.Path, "status", res.status,
		"duration", time.Since(start), "function", res.function, "requestId", id)
}

// request is what the authorizer and the integration are told of a request.
type request struct {
	id        string
	method    string
	path      string // raw (percent-encoded) path, without the stage
	route     *route
	methodArn string
	header    http.Header
	query     url.Values
	sourceIP  string
	userAgent string
	protocol  string
	host      string

	headers                         map[string]string
	multiValueHeaders               map[string][]string
	queryStringParameters           map[string]string
	multiValueQueryStringParameters map[string][]string
	pathParameters                  map[string]string
}

// serveAPI answers a request to the API in API Gateway's order: route, body
// size, authorizer and policy, then the Lambda proxy integration.
func (g *Gateway) serveAPI(r *http.Request, id string) *response {
	rawPath := r.URL.EscapedPath()
	rt, params := g.tmpl.match(r.Method, rawPath)
	if rt == nil {
		return g.gatewayError(gatewayError{responseType: missingAuthenticationToken, message: "Missing Authentication Token"}, id, "")
	}
	body, gerr := readBody(r)
	if gerr != nil {
		return g.gatewayError(*gerr, id, rt.FunctionID)
	}
	req := g.newRequest(r, id, rawPath, rt, params)
	ctx := context.WithoutCancel(r.Context()) // a client that hangs up does not stop a Lambda

	var authorizer map[string]any
	if rt.authorizer != "" {
		spec := g.tmpl.authorizers[rt.authorizer]
		if authorizer, gerr = g.authorize(ctx, req, spec); gerr != nil {
			return g.gatewayError(*gerr, id, spec.functionID)
		}
	}

	payload, err := json.Marshal(g.proxyEvent(req, body, authorizer))
	if err != nil { // the event holds only JSON-safe values
		g.logger.Error("proxy event", "requestId", id, "error", err)
		return g.integrationError(id, rt.FunctionID)
	}
	result, err := g.invoke(ctx, rt.FunctionID, payload)
	if err != nil {
		g.logger.Error("function failed", "function", rt.FunctionID, "requestId", id,
			"method", r.Method, "path", rawPath, "error", err)
		return g.integrationError(id, rt.FunctionID)
	}
	res, err := proxyResponse(result)
	if err != nil {
		g.logger.Error("malformed Lambda proxy response", "function", rt.FunctionID, "requestId", id,
			"method", r.Method, "path", rawPath, "error", err)
		return g.integrationError(id, rt.FunctionID)
	}
	res.header.Set("x-amzn-RequestId", id)
	res.function = rt.FunctionID
	return res
}

func (g *Gateway) gatewayError(e gatewayError, requestID, function string) *response {
	res := g.tmpl.gatewayResponse(e, requestID)
	res.function = function
	return res
}

// integrationError is API Gateway's answer to a Lambda proxy integration that
// failed or answered a malformed response: 502, with the template's
// INTEGRATION_FAILURE response, else its DEFAULT_5XX.
func (g *Gateway) integrationError(requestID, function string) *response {
	return g.gatewayError(gatewayError{responseType: integrationFailure, message: "Internal server error", status: http.StatusBadGateway}, requestID, function)
}

func readBody(r *http.Request) ([]byte, *gatewayError) {
	tooLarge := &gatewayError{responseType: requestTooLarge, message: "Request Too Long"}
	if r.ContentLength > maxBodyBytes {
		return nil, tooLarge
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, &gatewayError{responseType: badRequestBody, message: "Invalid request body"}
	}
	if len(body) > maxBodyBytes {
		return nil, tooLarge
	}
	return body, nil
}

func (g *Gateway) newRequest(r *http.Request, id, rawPath string, rt *route, params map[string]string) *request {
	req := &request{
		id:             id,
		method:         r.Method,
		path:           rawPath,
		route:          rt,
		methodArn:      fmt.Sprintf("arn:aws:execute-api:%s:%s:%s/%s/%s%s", g.region, g.accountID, g.apiID, g.stage, r.Method, rawPath),
		header:         r.Header.Clone(),
		sourceIP:       r.RemoteAddr,
		userAgent:      r.UserAgent(),
		protocol:       r.Proto,
		host:           r.Host,
		pathParameters: params,
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		req.sourceIP = host
	}

	// API Gateway passes the Host header, and adds the X-Forwarded ones.
	req.header.Set("Host", r.Host)
	forwardedFor := req.sourceIP
	if prior := req.header.Get("X-Forwarded-For"); prior != "" {
		forwardedFor = prior + ", " + forwardedFor
	}
	req.header.Set("X-Forwarded-For", forwardedFor)
	proto, port := "http", "80"
	if r.TLS != nil {
		proto, port = "https", "443"
	}
	if _, p, err := net.SplitHostPort(r.Host); err == nil {
		port = p
	}
	req.header.Set("X-Forwarded-Proto", proto)
	req.header.Set("X-Forwarded-Port", port)

	req.headers, req.multiValueHeaders = singleAndMulti(req.header)
	req.query, _ = url.ParseQuery(r.URL.RawQuery) // keeps what parses, as API Gateway does
	if len(req.query) > 0 {
		req.queryStringParameters, req.multiValueQueryStringParameters = singleAndMulti(req.query)
	}
	return req
}

// singleAndMulti returns API Gateway's two views of a multi-valued map: the
// last value of each key, and all of them.
func singleAndMulti(m map[string][]string) (map[string]string, map[string][]string) {
	single := make(map[string]string, len(m))
	multi := make(map[string][]string, len(m))
	for k, vs := range m {
		if len(vs) == 0 {
			continue
		}
		single[k] = vs[len(vs)-1]
		multi[k] = slices.Clone(vs)
	}
	return single, multi
}

// proxyEvent is the Lambda proxy integration's input.
func (g *Gateway) proxyEvent(req *request, body []byte, authorizer map[string]any) events.APIGatewayProxyRequest {
	now := g.now()
	domain := req.host
	if host, _, err := net.SplitHostPort(req.host); err == nil {
		domain = host
	}
	ev := events.APIGatewayProxyRequest{
		Resource:                        req.route.Path,
		Path:                            req.path,
		HTTPMethod:                      req.method,
		Headers:                         req.headers,
		MultiValueHeaders:               req.multiValueHeaders,
		QueryStringParameters:           req.queryStringParameters,
		MultiValueQueryStringParameters: req.multiValueQueryStringParameters,
		PathParameters:                  req.pathParameters,
		RequestContext: events.APIGatewayProxyRequestContext{
			AccountID:         g.accountID,
			ResourceID:        resourceID(req.route.Path),
			Stage:             g.stage,
			DomainName:        domain,
			DomainPrefix:      strings.SplitN(domain, ".", 2)[0],
			RequestID:         req.id,
			ExtendedRequestID: req.id,
			Protocol:          req.protocol,
			Identity:          events.APIGatewayRequestIdentity{SourceIP: req.sourceIP, UserAgent: req.userAgent},
			ResourcePath:      req.route.Path,
			Path:              "/" + g.stage + req.path,
			Authorizer:        authorizer,
			HTTPMethod:        req.method,
			RequestTime:       now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			RequestTimeEpoch:  now.UnixMilli(),
			APIID:             g.apiID,
		},
	}
	if utf8.Valid(body) {
		ev.Body = string(body)
	} else {
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	}
	return ev
}

// lambdaProxyResponse is events.APIGatewayProxyResponse, read strictly as API
// Gateway reads it.
type lambdaProxyResponse struct {
	StatusCode        *int                `json:"statusCode"`
	Headers           map[string]string   `json:"headers"`
	MultiValueHeaders map[string][]string `json:"multiValueHeaders"`
	Body              *string             `json:"body"`
	IsBase64Encoded   bool                `json:"isBase64Encoded"`
}

// proxyResponse reads a function's Lambda proxy response. It fails, as API
// Gateway does ("Malformed Lambda proxy response"), when the result is not
// such an object, has other keys, or lacks a valid statusCode, or when a
// base64 body does not decode.
func proxyResponse(result []byte) (*response, error) {
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.DisallowUnknownFields()
	var pr lambdaProxyResponse
	if err := dec.Decode(&pr); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the response object")
	}
	if pr.StatusCode == nil || *pr.StatusCode < 100 || *pr.StatusCode > 599 {
		return nil, errors.New("no valid statusCode")
	}
	res := &response{status: *pr.StatusCode, header: http.Header{}}
	// API Gateway merges both maps; a pair present in both appears once.
	for name, values := range pr.MultiValueHeaders {
		for _, v := range values {
			res.header.Add(name, v)
		}
	}
	for name, v := range pr.Headers {
		if !slices.Contains(res.header.Values(name), v) {
			res.header.Add(name, v)
		}
	}
	if res.header.Get("Content-Type") == "" {
		res.header.Set("Content-Type", "application/json")
	}
	if pr.Body != nil {
		res.body = []byte(*pr.Body)
		if pr.IsBase64Encoded {
			b, err := base64.StdEncoding.DecodeString(*pr.Body)
			if err != nil {
				return nil, fmt.Errorf("isBase64Encoded body: %w", err)
			}
			res.body = b
		}
	}
	return res, nil
}

// resourceID makes a stable API Gateway-like resource id for a template path.
func resourceID(path string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(path)) // a hash never fails
	return strconv.FormatUint(uint64(h.Sum32())%(36*36*36*36*36*36), 36)
}

// newRequestID returns a random UUID, as API Gateway's request ids are.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
