package localgw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

const (
	localInvokePath = "/_local/invoke"
	// maxInvokePayload is Lambda's limit for a synchronous invocation's event (6 MB).
	maxInvokePayload = 6 << 20
)

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

// release returns an environment to the idle ones.
func (f *function) release(h lambda.Handler) {
	f.mu.Lock()
	f.idle = append(f.idle, h)
	f.mu.Unlock()
}

// invoke runs function id with payload as a Lambda would: with the function's
// timeout as the context's deadline and a lambdacontext.LambdaContext. It
// returns the function's error, a timeout error when the function outlived its
// timeout, or an error when it panicked.
func (g *Gateway) invoke(ctx context.Context, id string, payload []byte) ([]byte, error) {
	fn := g.functions[id]
	if fn == nil { // New checked that every function of the template has a handler
		return nil, fmt.Errorf("no handler for function %s", id)
	}
	arn := fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", g.region, g.accountID, id)
	return fn.invoke(ctx, arn, payload)
}

func (f *function) invoke(ctx context.Context, arn string, payload []byte) (result []byte, err error) {
	handler := f.acquire()
	defer f.release(handler)
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: newRequestID(), InvokedFunctionArn: arn})
	defer func() {
		if v := recover(); v != nil {
			result, err = nil, fmt.Errorf("function %s panicked: %v", f.id, v)
		}
	}()

	out, err := handler.Invoke(ctx, payload)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("task timed out after %.2f seconds", f.timeout.Seconds())
	}
	if err != nil {
		return nil, err
	}
	return bytes.Clone(out), nil
}

func isLocalInvoke(path string) bool {
	return path == localInvokePath || strings.HasPrefix(path, localInvokePath+"/")
}

// serveLocalInvoke answers POST /_local/invoke/{FunctionLogicalId}, as
// `sam local invoke` would: the body is the event (an empty body is {}), the
// answer the function's JSON result. It needs no key: the runner serves
// loopback only.
func (g *Gateway) serveLocalInvoke(r *http.Request, requestID string) *response {
	if r.Method != http.MethodPost {
		res := localError(http.StatusMethodNotAllowed, "use POST to invoke a function")
		res.header.Set("Allow", http.MethodPost)
		return res
	}
	id := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, localInvokePath), "/")
	if g.functions[id] == nil {
		return localError(http.StatusNotFound, fmt.Sprintf("unknown function %q", id))
	}
	payload, err := io.ReadAll(io.LimitReader(r.Body, maxInvokePayload+1))
	switch {
	case err != nil:
		return localError(http.StatusBadRequest, "cannot read the event")
	case len(payload) > maxInvokePayload:
		return localError(http.StatusRequestEntityTooLarge, "the event is larger than Lambda's 6 MB")
	case len(bytes.TrimSpace(payload)) == 0:
		payload = []byte("{}")
	}

	result, err := g.invoke(context.WithoutCancel(r.Context()), id, payload)
	if err != nil {
		g.logger.Error("function failed", "function", id, "requestId", requestID, "path", r.URL.Path, "error", err)
		res := localError(http.StatusBadGateway, err.Error())
		res.function = id
		return res
	}
	res := &response{status: http.StatusOK, header: http.Header{}, body: result, function: id}
	res.header.Set("Content-Type", "application/json")
	return res
}

// localError is an error of the /_local endpoints: {"error": msg}.
func localError(status int, msg string) *response {
	body, _ := json.Marshal(map[string]string{"error": msg}) // a map of strings always marshals
	res := &response{status: status, header: http.Header{}, body: body}
	res.header.Set("Content-Type", "application/json")
	return res
}
