package localgw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/agentplatform/workspaceapi/infra/requestid"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const localInvokePath = "/_local/invoke"

// Lambda's synchronous invocation limits. Sources: the Lambda quotas page
// ("Invocation payload (request and response): 6 MB each for synchronous");
// the request limit is the one InvokeFunction names in its
// RequestEntityTooLargeException ("Request must be smaller than 6291456 bytes
// for the InvokeFunction operation"), the response limit the one in its
// Function.ResponseSizeTooLarge error ("Response payload size exceeded
// maximum allowed payload size (6291556 bytes)", as API Gateway logs it, e.g.
// github.com/DataBiosphere/azul issues 7466 and 8192).
const (
	maxInvokeRequest  = 6291456
	maxInvokeResponse = 6291556
)

// errResponseTooLarge is Lambda's error for a result over maxInvokeResponse.
var errResponseTooLarge = fmt.Errorf("Function.ResponseSizeTooLarge: Response payload size exceeded maximum allowed payload size (%d bytes)", maxInvokeResponse)

// Factory makes the handler of one execution environment of a function.
type Factory func() lambda.Handler

// function is a function of the template and its execution environments.
// Like Lambda, it runs each environment's handler for one invocation at a
// time and starts another environment when all are busy, so concurrent
// requests run concurrently. (It must: a handler made by lambda.NewHandler
// returns a slice of a buffer it reuses on its next invocation.)
type function struct {
	id         string
	newHandler Factory
	timeout    time.Duration
	// maxResponse is Lambda's response payload limit (a field so tests of
	// the gateway's own limits can lower it).
	maxResponse int

	mu   sync.Mutex
	idle []lambda.Handler
}

// acquire returns an idle environment's handler, or a new environment's.
func (f *function) acquire() lambda.Handler {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.idle); n > 0 {
		h := f.idle[n-1]
		f.idle = f.idle[:n-1]
		return h
	}
	return f.newHandler()
}

// Prewarm starts one execution environment of every function before any
// request, as Lambda's init phase runs before an invocation: what a
// function does at its cold start (its wiring's reads) is then no
// request's cost.
func (g *Gateway) Prewarm() {
	for _, fn := range g.functions {
		fn.release(fn.newHandler())
	}
}

// release returns an environment to the idle ones.
func (f *function) release(h lambda.Handler) {
	f.mu.Lock()
	f.idle = append(f.idle, h)
	f.mu.Unlock()
}

// invocation is the outcome of one invocation.
type invocation struct {
	result []byte
	err    error
}

// invoke runs function id with payload as a Lambda would and waits for its
// outcome: see function.start.
func (g *Gateway) invoke(ctx context.Context, id string, payload []byte) ([]byte, error) {
	out := <-g.start(ctx, id, payload)
	return out.result, out.err
}

// start begins an invocation of function id and returns where its outcome
// will arrive, so that the caller (API Gateway) may stop waiting first.
func (g *Gateway) start(ctx context.Context, id string, payload []byte) <-chan invocation {
	fn := g.functions[id]
	if fn == nil { // New checked that every function of the template has a handler
		ch := make(chan invocation, 1)
		ch <- invocation{err: fmt.Errorf("no handler for function %s", id)}
		return ch
	}
	arn := fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", g.region, g.accountID, id)
	return fn.start(ctx, arn, payload)
}

// start runs the function with payload as Lambda does: the context's deadline
// is the function's Timeout and it carries a lambdacontext.LambdaContext. The
// outcome is the function's result, or its error; a timeout error when it
// outlives its Timeout (Lambda then stops the environment: here it is
// abandoned, never reused); an error when it panicked; and Lambda's
// Function.ResponseSizeTooLarge when its serialized result is over 6 MB.
func (f *function) start(ctx context.Context, arn string, payload []byte) <-chan invocation {
	out := make(chan invocation, 1)
	handler := f.acquire()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: requestid.New(), InvokedFunctionArn: arn})

	done := make(chan invocation, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- invocation{err: fmt.Errorf("function %s panicked: %v", f.id, v)}
			}
		}()
		result, err := handler.Invoke(ctx, payload)
		// The handler reuses its buffer on its next invocation: copy first.
		done <- invocation{result: bytes.Clone(result), err: err}
	}()
	go func() {
		defer cancel()
		select {
		case res := <-done:
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				out <- invocation{err: f.timedOut()}
				return // Lambda does not reuse an environment that timed out
			}
			f.release(handler)
			if res.err == nil && len(res.result) > f.maxResponse {
				res = invocation{err: errResponseTooLarge}
			}
			out <- res
		case <-ctx.Done():
			// Lambda ends the invocation at its timeout whether or not the
			// handler watches its context; the environment is lost.
			out <- invocation{err: f.timedOut()}
		}
	}()
	return out
}

func (f *function) timedOut() error {
	return fmt.Errorf("task timed out after %.2f seconds", f.timeout.Seconds())
}

func isLocalInvoke(path string) bool {
	return path == localInvokePath || strings.HasPrefix(path, localInvokePath+"/")
}

// serveLocalInvoke answers POST /_local/invoke/{FunctionLogicalId}, as
// `sam local invoke` would: the body is the event (an empty body is {}), the
// answer the function's JSON result. It needs no key, since the runner serves
// loopback only; so that no web page can use it to forge a tenant's identity
// (a browser may POST text/plain, or a typeless Blob, cross-origin without a
// preflight), it takes only application/json and refuses a request whose
// Origin is not a loopback one.
func (g *Gateway) serveLocalInvoke(r *http.Request, requestID string) *response {
	if r.Method != http.MethodPost {
		res := localError(http.StatusMethodNotAllowed, "use POST to invoke a function")
		res.header.Set("Allow", http.MethodPost)
		return res
	}
	if origin := r.Header.Values("Origin"); len(origin) > 0 && !(len(origin) == 1 && loopbackOrigin(origin[0])) {
		return localError(http.StatusForbidden, "functions can only be invoked from this machine, not from a web page of another origin")
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return localError(http.StatusUnsupportedMediaType, "send the event with Content-Type: application/json")
	}
	id := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, localInvokePath), "/")
	if g.functions[id] == nil {
		return localError(http.StatusNotFound, fmt.Sprintf("unknown function %q", workspace.RedactKeys(id)))
	}
	payload, err := io.ReadAll(io.LimitReader(r.Body, maxInvokeRequest+1))
	switch {
	case err != nil:
		return localError(http.StatusBadRequest, "cannot read the event")
	case len(payload) > maxInvokeRequest:
		return localError(http.StatusRequestEntityTooLarge, "the event is larger than Lambda's 6 MB")
	case len(bytes.TrimSpace(payload)) == 0:
		payload = []byte("{}")
	}

	result, err := g.invoke(context.WithoutCancel(r.Context()), id, payload)
	if err != nil {
		// The error may name addresses or carry an SDK's message: it goes to
		// the log, and the caller gets a generic answer.
		g.logger.Error("function failed", "function", id, "requestId", requestID,
			"path", workspace.RedactKeys(r.URL.Path), "error", workspace.RedactKeys(err.Error()))
		res := localError(http.StatusBadGateway, "the function failed; its error is in the runner's log (requestId "+requestID+")")
		res.function = id
		return res
	}
	res := &response{status: http.StatusOK, header: http.Header{}, body: result, function: id}
	res.header.Set("Content-Type", "application/json")
	res.header.Set("Cache-Control", "no-store")
	return res
}

// loopbackOrigin reports whether an Origin header names this machine:
// http(s) on localhost or a loopback address. "null" (a sandboxed or file
// page) is not one.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// localError is an error of the /_local endpoints: {"error": msg}, never
// cached, as every answer of the API (docs/bounds.md, Caching).
func localError(status int, msg string) *response {
	body, _ := json.Marshal(map[string]string{"error": msg}) // a map of strings always marshals
	res := &response{status: status, header: http.Header{}, body: body}
	res.header.Set("Content-Type", "application/json")
	res.header.Set("Cache-Control", "no-store")
	return res
}
