package localgw

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentplatform/workspaceapi/infra/requestid"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// API Gateway's limits for REST APIs (the "Quotas for configuring and running
// a REST API in API Gateway" page): a 10 MB payload each way, and a 29 s
// integration timeout (the default; Regional APIs may ask for more).
const (
	maxBodyBytes       = 10 << 20
	maxResponseBytes   = 10 << 20
	integrationTimeout = 29 * time.Second
)

// limits are the limits a Gateway enforces; New sets the deployed ones, and
// only this package's tests change them (to test each without huge data).
type limits struct {
	requestBody        int           // API Gateway's request payload
	response           int           // API Gateway's response payload
	integrationTimeout time.Duration // API Gateway's wait for a Lambda
	invokeRequest      int           // Lambda's synchronous event
	invokeResponse     int           // Lambda's synchronous result
}

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
	// FlushAuthorizerCacheOn names routes ("PATCH /path/{id}", as
	// Route.String writes them) whose successful (2xx) answer empties the
	// authorizer cache: those that revoke or disable a key, which must stop
	// working at once locally. API Gateway keeps serving its cached answers
	// for up to the cache's TTL; this is the local runner's one deviation.
	FlushAuthorizerCacheOn []string
	// Events, when set, is the local EventBridge bus GET /_local/events
	// lists; without it that path is 404.
	Events EventLog
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
	flushOn       []string
	logger        *slog.Logger
	now           func() time.Time
	limits        limits
	events        EventLog
}

// New makes a Gateway serving t with the given handler factories, keyed by
// function logical id. It fails when a function of the template has no handler in
// functions, when functions names one the template lacks, or when
// opts.AuthorizerTTL is negative.
func New(t *Template, functions map[string]Factory, opts Options) (*Gateway, error) {
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
		flushOn:       slices.Clone(opts.FlushAuthorizerCacheOn),
		logger:        opts.Logger,
		now:           opts.Now,
		events:        opts.Events,
		limits: limits{
			requestBody: maxBodyBytes, response: maxResponseBytes, integrationTimeout: integrationTimeout,
			invokeRequest: maxInvokeRequest, invokeResponse: maxInvokeResponse,
		},
	}
	if g.logger == nil {
		g.logger = slog.Default()
	}
	if g.now == nil {
		g.now = time.Now
	}
	for id, h := range functions {
		g.functions[id] = &function{id: id, newHandler: h, timeout: t.functions[id], maxResponse: g.limits.invokeResponse}
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

// ServeHTTP answers one request as the deployed API would, and logs it (key-
// shaped text in the method or path redacted). When the request cannot reach
// a function it answers the template's gateway response:
// MISSING_AUTHENTICATION_TOKEN for an unknown route or method,
// REQUEST_TOO_LARGE for a body over 10 MB or an event over Lambda's 6 MB,
// UNAUTHORIZED, AUTHORIZER_FAILURE, ACCESS_DENIED, INVALID_API_KEY for a
// method that requires an API key the request lacks, INTEGRATION_TIMEOUT after
// 29 s, and 502 with INTEGRATION_FAILURE (else DEFAULT_5XX) when the function
// fails, outlives its Timeout, answers over 6 MB or a malformed response.
// POST /_local/invoke/{FunctionLogicalId} answers 403, 404, 405, 413, 415 or
// 502 with {"error": "..."}; GET /_local/events lists the local bus's events
// (Options.Events).
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := requestid.New()
	var res *response
	switch {
	case isLocalInvoke(r.URL.Path):
		res = g.serveLocalInvoke(r, id)
	case r.URL.Path == localEventsPath && g.events != nil:
		res = g.serveLocalEvents(r)
	default:
		res = g.serveAPI(r, id)
	}
	for name, values := range res.header {
		for _, v := range values {
			w.Header().Add(name, v)
		}
	}
	w.WriteHeader(res.status)
	_, _ = w.Write(res.body) // the client is gone, or the status allows no body
	g.logger.Info("request", "method", workspace.RedactKeys(r.Method), "path", workspace.RedactKeys(r.URL.Path), "status", res.status,
		"duration", time.Since(start), "function", res.function, "requestId", id)
}

// serveAPI answers a request to the API in API Gateway's order: route, body
// size, authorizer and policy, API key, then the Lambda proxy integration. The
// authorizer runs before the body is read, so a caller without a valid key
// cannot make the gateway hold 10 MB; a declared Content-Length over the
// limit is refused before anything runs.
func (g *Gateway) serveAPI(r *http.Request, id string) *response {
	rawPath := r.URL.EscapedPath()
	logPath := workspace.RedactKeys(rawPath)
	rt, params := g.tmpl.match(r.Method, rawPath)
	if rt == nil {
		return g.gatewayError(gatewayError{responseType: missingAuthenticationToken, message: "Missing Authentication Token"}, id, "")
	}
	tooLarge := gatewayError{responseType: requestTooLarge, message: "Request Too Long"}
	if r.ContentLength > int64(g.limits.requestBody) {
		return g.gatewayError(tooLarge, id, rt.FunctionID)
	}
	req := g.newRequest(r, id, rawPath, rt, params)
	ctx := context.WithoutCancel(r.Context()) // a client that hangs up does not stop a Lambda

	var authorizer map[string]any
	var usageIdentifierKey string
	if rt.authorizer != "" {
		spec := g.tmpl.authorizers[rt.authorizer]
		var gerr *gatewayError
		if authorizer, usageIdentifierKey, gerr = g.authorize(ctx, req, spec); gerr != nil {
			return g.gatewayError(*gerr, id, spec.functionID)
		}
	}
	if rt.apiKeyRequired {
		if gerr := g.checkAPIKey(req, usageIdentifierKey); gerr != nil {
			return g.gatewayError(*gerr, id, rt.FunctionID)
		}
	}
	body, gerr := g.readBody(r)
	if gerr != nil {
		return g.gatewayError(*gerr, id, rt.FunctionID)
	}

	payload, err := json.Marshal(g.proxyEvent(req, body, authorizer))
	if err != nil { // the event holds only JSON-safe values
		g.logger.Error("proxy event", "requestId", id, "error", err)
		return g.integrationError(id, rt.FunctionID)
	}
	if len(payload) > g.limits.invokeRequest {
		// Lambda refuses the invocation (RequestEntityTooLargeException) and
		// API Gateway answers 413 "Request Too Long", its REQUEST_TOO_LARGE
		// response (observed: github.com/koki-develop/lgtm-generator issue 10).
		return g.gatewayError(tooLarge, id, rt.FunctionID)
	}
	var result []byte
	timer := time.NewTimer(g.limits.integrationTimeout)
	defer timer.Stop()
	select {
	case out := <-g.start(ctx, rt.FunctionID, payload):
		result, err = out.result, out.err
	case <-timer.C:
		// API Gateway stops waiting; the function runs on to its own Timeout.
		g.logger.Error("integration timed out", "function", rt.FunctionID, "requestId", id,
			"method", r.Method, "path", logPath, "after", g.limits.integrationTimeout)
		return g.gatewayError(gatewayError{responseType: integrationTimeoutType, message: "Endpoint request timed out"}, id, rt.FunctionID)
	}
	if err != nil {
		g.logger.Error("function failed", "function", rt.FunctionID, "requestId", id,
			"method", r.Method, "path", logPath, "error", workspace.RedactKeys(err.Error()))
		return g.integrationError(id, rt.FunctionID)
	}
	res, err := proxyResponse(result, g.tmpl.binaryAccepted(req.header.Get("Accept")))
	if err != nil {
		g.logger.Error("malformed Lambda proxy response", "function", rt.FunctionID, "requestId", id,
			"method", r.Method, "path", logPath, "error", workspace.RedactKeys(err.Error()))
		return g.integrationError(id, rt.FunctionID)
	}
	if len(res.body) > g.limits.response {
		// Unreachable through Lambda while its 6 MB limit is the lower one;
		// kept so the gateway holds every limit it documents.
		g.logger.Error("response over API Gateway's 10 MB", "function", rt.FunctionID, "requestId", id,
			"method", r.Method, "path", logPath, "bytes", len(res.body))
		return g.integrationError(id, rt.FunctionID)
	}
	res.header.Set("x-amzn-RequestId", id)
	res.function = rt.FunctionID
	if res.status >= 200 && res.status < 300 && slices.Contains(g.flushOn, rt.Route.String()) {
		g.cache.flush()
	}
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

// readBody reads the request body, at most API Gateway's 10 MB.
func (g *Gateway) readBody(r *http.Request) ([]byte, *gatewayError) {
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(g.limits.requestBody)+1))
	if err != nil {
		return nil, &gatewayError{responseType: badRequestBody, message: "Invalid request body"}
	}
	if len(body) > g.limits.requestBody {
		return nil, &gatewayError{responseType: requestTooLarge, message: "Request Too Long"}
	}
	return body, nil
}
