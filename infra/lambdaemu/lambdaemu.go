// Package lambdaemu runs one Lambda function binary (a provided.al2023
// `bootstrap`) the way Lambda runs it: as its own process, with Lambda's
// environment variables, fetching its events from a Lambda Runtime API
// (version 2018-06-01) served on a loopback port. Tests use it to run the
// binaries the Makefile builds, so that what ships is what is tested: its
// main, its configuration from the environment, the aws-lambda-go runtime
// loop and its JSON (de)serialization, none of which an in-process handler
// exercises. It ships nowhere.
//
// One Process is one execution environment: one process, one invocation at a
// time. Like Lambda, it does not reuse an environment that timed out: the
// process is killed, and the caller starts another.
package lambdaemu

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/requestid"
)

// Lambda's limits for a synchronous invocation (the Lambda quotas page: 6 MB
// each way). The response limit is the one Lambda's Runtime API enforces and
// names in Function.ResponseSizeTooLarge; the event limit the one Invoke names
// in its RequestEntityTooLargeException.
const (
	MaxResponseBytes = 6291556
	MaxEventBytes    = 6291456
)

// InitTimeout is how long Lambda lets a runtime initialize (the init phase's
// 10 s limit) before it fails the invocation waiting for it.
const InitTimeout = 10 * time.Second

// The Runtime API's headers (the "AWS Lambda runtime API" page).
const (
	HeaderRequestID          = "Lambda-Runtime-Aws-Request-Id"
	HeaderDeadlineMs         = "Lambda-Runtime-Deadline-Ms"
	HeaderInvokedFunctionArn = "Lambda-Runtime-Invoked-Function-Arn"
	HeaderTraceID            = "Lambda-Runtime-Trace-Id"
	HeaderFunctionErrorType  = "Lambda-Runtime-Function-Error-Type"
	// headerFunctionErrorBody is the trailer aws-lambda-go sends, base64 JSON,
	// when a streamed response fails part way.
	headerFunctionErrorBody = "Lambda-Runtime-Function-Error-Body"
)

// Process is one function process and the Runtime API it talks to. Its
// methods are safe for concurrent use; invocations are run one at a time.
type Process struct {
	name, arn string
	api       string // the Runtime API's host:port
	cmd       *exec.Cmd
	srv       *http.Server
	output    *output

	queue   chan *invocation // the next event, taken by GET .../next
	exited  chan struct{}    // closed once the process has exited
	stopped chan struct{}    // closed by Stop
	stop    sync.Once
	busy    chan struct{} // one invocation at a time

	mu            sync.Mutex
	exitErr       error
	initErr       *InitError
	initFailed    chan struct{} // closed when the runtime reports an init error
	current       map[string]*invocation
	started       time.Time
	firstNext     time.Time
	firstResponse time.Time
	invocations   int
}

// Start launches binary as a function and returns once the process runs; it
// does not wait for the runtime to initialize (Invoke does, up to
// InitTimeout). The binary must be built for this machine (GOOS=linux and
// its GOARCH; Build does that). The process gets Lambda's environment only,
// never this one's: AWS_LAMBDA_RUNTIME_API, the function's name (the
// binary's directory's name unless env sets AWS_LAMBDA_FUNCTION_NAME),
// memory size (128 MB unless env sets AWS_LAMBDA_FUNCTION_MEMORY_SIZE),
// version, region (us-east-1 unless env sets AWS_REGION), stand-in
// credentials, _HANDLER, LAMBDA_TASK_ROOT (the binary's directory, also its
// working directory), TZ=:UTC, then env, which overrides them. The process
// is killed when ctx ends; Stop kills it and frees the Runtime API's port.
func Start(ctx context.Context, binary string, env map[string]string) (*Process, error) {
	binary, err := filepath.Abs(binary)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(binary); err != nil {
		return nil, fmt.Errorf("lambdaemu: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("lambdaemu: listen: %w", err)
	}
	vars := lambdaEnv(binary, ln.Addr().String(), env)
	p := &Process{
		name:       vars["AWS_LAMBDA_FUNCTION_NAME"],
		api:        ln.Addr().String(),
		arn:        fmt.Sprintf("arn:aws:lambda:%s:123456789012:function:%s", vars["AWS_REGION"], vars["AWS_LAMBDA_FUNCTION_NAME"]),
		output:     &output{},
		queue:      make(chan *invocation),
		exited:     make(chan struct{}),
		stopped:    make(chan struct{}),
		busy:       make(chan struct{}, 1),
		initFailed: make(chan struct{}),
		current:    map[string]*invocation{},
	}
	// No timeouts: GET .../next is a long poll that lasts until an event comes.
	p.srv = &http.Server{Handler: p.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }() // returns when Stop closes the server

	p.cmd = exec.CommandContext(ctx, binary)
	p.cmd.Dir = filepath.Dir(binary)
	p.cmd.Env = make([]string, 0, len(vars))
	for k, v := range vars {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.output, p.output
	// The function dies with the test that started it, even when that one is killed.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		_ = p.srv.Close()
		return nil, fmt.Errorf("lambdaemu: start %s: %w", binary, err)
	}
	go func() {
		err := p.cmd.Wait()
		p.mu.Lock()
		p.exitErr = err
		if err == nil {
			p.exitErr = errors.New("exit status 0")
		}
		p.mu.Unlock()
		close(p.exited)
	}()
	return p, nil
}

// lambdaEnv is the process's environment: Lambda's variables, then env.
func lambdaEnv(binary, api string, env map[string]string) map[string]string {
	name := filepath.Base(filepath.Dir(binary))
	if n := env["AWS_LAMBDA_FUNCTION_NAME"]; n != "" {
		name = n
	}
	vars := map[string]string{
		"AWS_LAMBDA_RUNTIME_API":          api,
		"AWS_LAMBDA_FUNCTION_NAME":        name,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "128",
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_INITIALIZATION_TYPE":  "on-demand",
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/" + name,
		"AWS_LAMBDA_LOG_STREAM_NAME":      time.Now().UTC().Format("2006/01/02") + "/[$LATEST]" + requestid.New(),
		"AWS_REGION":                      "us-east-1",
		// Stand-ins: a function under test must never reach a real account.
		"AWS_ACCESS_KEY_ID":     "AKIDLAMBDAEMU",
		"AWS_SECRET_ACCESS_KEY": "lambdaemu-secret",
		"AWS_SESSION_TOKEN":     "lambdaemu-session",
		"_HANDLER":              "bootstrap",
		"LAMBDA_TASK_ROOT":      filepath.Dir(binary),
		"LAMBDA_RUNTIME_DIR":    "/var/runtime",
		"LANG":                  "en_US.UTF-8",
		"PATH":                  "/usr/local/bin:/usr/bin/:/bin:/opt/bin",
		"TZ":                    ":UTC",
	}
	for k, v := range env {
		vars[k] = v
	}
	if _, ok := env["AWS_DEFAULT_REGION"]; !ok {
		vars["AWS_DEFAULT_REGION"] = vars["AWS_REGION"]
	}
	return vars
}

// Name returns the function's name (AWS_LAMBDA_FUNCTION_NAME).
func (p *Process) Name() string { return p.name }

// RuntimeAPI returns the Runtime API's address, host:port, as
// AWS_LAMBDA_RUNTIME_API gives it to the process.
func (p *Process) RuntimeAPI() string { return p.api }

// PID returns the process's id, for reading what the kernel reports of it
// (the benchmarks read its peak resident memory in /proc/<pid>/status).
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Output returns what the process wrote to stdout and stderr so far,
// interleaved as written (the last 16 MB of it).
func (p *Process) Output() string { return p.output.String() }

// Invocations returns how many invocations the runtime took.
func (p *Process) Invocations() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.invocations
}

// ColdStart returns how long the runtime took from the process's start to
// its first GET .../next (its init phase) and to its first response or error
// (init, the wait for the first event and the first invocation: a cold
// start's latency when the first Invoke follows Start); a duration is 0
// until that happened.
func (p *Process) ColdStart() (init, firstResponse time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.firstNext.IsZero() {
		init = p.firstNext.Sub(p.started)
	}
	if !p.firstResponse.IsZero() {
		firstResponse = p.firstResponse.Sub(p.started)
	}
	return init, firstResponse
}

// Stop kills the process, waits for it and closes the Runtime API. Stopping
// twice is harmless.
func (p *Process) Stop() {
	p.stop.Do(func() {
		close(p.stopped)
		_ = p.cmd.Process.Kill()
		<-p.exited
		_ = p.srv.Close()
	})
}

// kill ends the process, as Lambda ends an environment that timed out.
func (p *Process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Invoke runs one invocation with payload as its event, as Lambda's
// synchronous Invoke does, and returns the function's response. timeout is
// the function's Timeout: the deadline the runtime is given when it takes the
// event. A call waits while another invocation runs. The error is one of:
//
//   - *FunctionError: the runtime reported an invocation error (the
//     handler returned an error, or panicked: then StackTrace is set);
//   - *InitError: the runtime reported an init error, or did not ask for
//     an event within InitTimeout;
//   - *ExitError: the process exited before answering (a crash, log.Fatal
//     at init), with the tail of its output;
//   - *TimeoutError: it did not answer by the deadline; the process is
//     killed, as Lambda ends such an environment;
//   - *ResponseTooLargeError: its response was over MaxResponseBytes;
//   - *ProtocolError: the runtime broke the Runtime API's protocol;
//   - or ctx's error, or an error for an event over MaxEventBytes.
func (p *Process) Invoke(ctx context.Context, payload []byte, timeout time.Duration) ([]byte, error) {
	if len(payload) > MaxEventBytes {
		return nil, fmt.Errorf("lambdaemu: the event is %d bytes, over Lambda's %d (RequestEntityTooLargeException)", len(payload), MaxEventBytes)
	}
	select {
	case p.busy <- struct{}{}:
		defer func() { <-p.busy }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// A dead or failed environment answers so at once, whatever else is ready.
	select {
	case <-p.exited:
		return nil, p.exitError()
	case <-p.initFailed:
		return nil, p.initErr
	default:
	}
	inv := &invocation{
		id: requestid.New(), payload: payload, timeout: timeout, traceID: newTraceID(),
		dispatched: make(chan struct{}), done: make(chan struct{}),
	}
	// Until the runtime first asks for an event it is initializing, which
	// Lambda bounds; later it may still be busy with an invocation whose
	// caller stopped waiting, and then only ctx bounds the wait.
	var initWait <-chan time.Time
	p.mu.Lock()
	initializing := p.firstNext.IsZero()
	p.mu.Unlock()
	if initializing {
		timer := time.NewTimer(InitTimeout)
		defer timer.Stop()
		initWait = timer.C
	}
	select {
	case p.queue <- inv:
	case <-p.exited:
		return nil, p.exitError()
	case <-p.initFailed:
		return nil, p.initErr
	case <-initWait:
		return nil, &InitError{Type: "Runtime.InitTimeout", Message: fmt.Sprintf("the runtime did not ask for an event within %s", InitTimeout)}
	case <-p.stopped:
		return nil, errors.New("lambdaemu: stopped")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	<-inv.dispatched
	deadline := time.NewTimer(time.Until(inv.deadline))
	defer deadline.Stop()
	select {
	case <-inv.done:
		return inv.result()
	case <-p.exited:
		select {
		case <-inv.done: // answered, then exited (as after a panic)
			return inv.result()
		default:
			return nil, p.exitError()
		}
	case <-deadline.C:
		select {
		case <-inv.done:
			return inv.result()
		default:
		}
		p.kill()
		return nil, &TimeoutError{Timeout: timeout}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// exitError describes the process's exit, with the tail of its output.
func (p *Process) exitError() error {
	p.mu.Lock()
	err := p.exitErr
	p.mu.Unlock()
	return &ExitError{Err: err, Output: p.output.Tail(8 << 10)}
}

// invocation is one event and its outcome.
type invocation struct {
	id         string
	payload    []byte
	timeout    time.Duration
	traceID    string
	deadline   time.Time     // set before dispatched is closed
	dispatched chan struct{} // closed when the runtime took the event
	done       chan struct{} // closed when body or err is set
	answer     sync.Once
	body       []byte
	err        error
}

// finish records the outcome once; it reports whether this was the first.
func (inv *invocation) finish(body []byte, err error) bool {
	first := false
	inv.answer.Do(func() {
		inv.body, inv.err, first = body, err, true
		close(inv.done)
	})
	return first
}

func (inv *invocation) result() ([]byte, error) { return inv.body, inv.err }

// routes serves the Runtime API.
func (p *Process) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", p.next)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", p.response)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", p.invocationError)
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", p.initError)
	return mux
}

// next hands the runtime the next event, waiting until there is one. A
// runtime that asks for the next event before answering the one it holds
// broke the protocol: that invocation fails with a ProtocolError.
func (p *Process) next(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	p.mu.Lock()
	if p.firstNext.IsZero() {
		p.firstNext = now
	}
	pending := make([]*invocation, 0, len(p.current))
	for id, inv := range p.current {
		pending = append(pending, inv)
		delete(p.current, id)
	}
	p.mu.Unlock()
	for _, inv := range pending {
		inv.finish(nil, &ProtocolError{Message: "the runtime asked for the next event without answering invocation " + inv.id})
	}

	var inv *invocation
	select {
	case inv = <-p.queue:
	case <-r.Context().Done():
		return
	case <-p.stopped:
		return
	}
	inv.deadline = time.Now().Add(inv.timeout)
	p.mu.Lock()
	p.current[inv.id] = inv
	p.invocations++
	p.mu.Unlock()
	close(inv.dispatched)

	h := w.Header()
	h.Set(HeaderRequestID, inv.id)
	h.Set(HeaderDeadlineMs, strconv.FormatInt(inv.deadline.UnixMilli(), 10))
	h.Set(HeaderInvokedFunctionArn, p.arn)
	h.Set(HeaderTraceID, inv.traceID)
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(inv.payload) // a runtime that hangs up times out
}

// take removes and returns the invocation the runtime answers, or answers
// 400 InvalidRequestID, as Lambda does for an id that is unknown or
// already answered.
func (p *Process) take(w http.ResponseWriter, r *http.Request) *invocation {
	id := r.PathValue("id")
	p.mu.Lock()
	inv := p.current[id]
	delete(p.current, id)
	if inv != nil && p.firstResponse.IsZero() {
		p.firstResponse = time.Now()
	}
	p.mu.Unlock()
	if inv == nil {
		apiError(w, http.StatusBadRequest, "InvalidRequestID", "Invalid request ID")
	}
	return inv
}

// response takes an invocation's response. One over MaxResponseBytes fails
// the invocation with Function.ResponseSizeTooLarge and answers 413, as
// Lambda does; a response whose trailers carry a function error (a streamed
// body that failed part way) fails it with that error.
func (p *Process) response(w http.ResponseWriter, r *http.Request) {
	inv := p.take(w, r)
	if inv == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseBytes+1))
	var extra int64
	if err == nil && len(body) > MaxResponseBytes {
		extra, err = io.Copy(io.Discard, r.Body)
	}
	switch {
	case err != nil:
		inv.finish(nil, &ProtocolError{Message: "reading the response: " + err.Error()})
		apiError(w, http.StatusBadRequest, "TruncatedHTTPRequest", "HTTP request detected as truncated")
		return
	case len(body) > MaxResponseBytes:
		inv.finish(nil, &ResponseTooLargeError{Size: int64(len(body)) + extra})
		apiError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
			fmt.Sprintf("Exceeded maximum allowed payload size (%d bytes).", MaxResponseBytes))
		return
	}
	if typ := r.Trailer.Get(HeaderFunctionErrorType); typ != "" {
		fe := &FunctionError{Type: typ}
		if raw, err := base64.StdEncoding.DecodeString(r.Trailer.Get(headerFunctionErrorBody)); err == nil {
			_ = json.Unmarshal(raw, fe) // the trailer's type stands when the body does not parse
		}
		fe.Type = typ
		inv.finish(nil, fe)
	} else {
		inv.finish(body, nil)
	}
	accepted(w)
}

// invocationError takes an invocation's error: the body is Lambda's error
// format, {errorMessage, errorType, stackTrace}; without one, the
// Lambda-Runtime-Function-Error-Type header names the error, as in Lambda.
func (p *Process) invocationError(w http.ResponseWriter, r *http.Request) {
	inv := p.take(w, r)
	if inv == nil {
		return
	}
	inv.finish(nil, readError(r))
	accepted(w)
}

// initError takes the runtime's report that it could not initialize; after
// its first GET .../next that is no longer its state (403, as in Lambda).
func (p *Process) initError(w http.ResponseWriter, r *http.Request) {
	fe := readError(r)
	p.mu.Lock()
	if !p.firstNext.IsZero() || p.initErr != nil {
		p.mu.Unlock()
		apiError(w, http.StatusForbidden, "InvalidStateTransition", "init error reported after the runtime initialized")
		return
	}
	p.initErr = &InitError{Type: fe.Type, Message: fe.Message}
	p.mu.Unlock()
	close(p.initFailed)
	accepted(w)
}

// readError reads an error the runtime posts.
func readError(r *http.Request) *FunctionError {
	fe := &FunctionError{}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseBytes))
	if err == nil && len(bytes.TrimSpace(body)) > 0 {
		if json.Unmarshal(body, fe) != nil {
			fe.Message = string(body)
		}
	}
	if fe.Type == "" {
		fe.Type = r.Header.Get(HeaderFunctionErrorType)
	}
	if fe.Type == "" {
		fe.Type = "Unhandled"
	}
	return fe
}

func accepted(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, `{"status":"OK"}`)
}

// apiError answers as the Runtime API does: {errorMessage, errorType}.
func apiError(w http.ResponseWriter, status int, typ, msg string) {
	body, _ := json.Marshal(map[string]string{"errorMessage": msg, "errorType": typ}) // strings always marshal
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// newTraceID returns an X-Ray trace header as Lambda passes it.
func newTraceID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	var parent [8]byte
	_, _ = rand.Read(parent[:])
	return fmt.Sprintf("Root=1-%08x-%x;Parent=%x;Sampled=0", time.Now().Unix(), b, parent)
}

// output keeps what the process writes, the last maxOutput bytes of it.
type output struct {
	mu  sync.Mutex
	buf []byte
}

const maxOutput = 16 << 20

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	if len(o.buf) > 2*maxOutput {
		o.buf = append([]byte(nil), o.buf[len(o.buf)-maxOutput:]...)
	}
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.buf)
}

// Tail returns the last n bytes written, from a line's start when it can.
func (o *output) Tail(n int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.buf) <= n {
		return string(o.buf)
	}
	tail := o.buf[len(o.buf)-n:]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	return string(tail)
}

// FunctionError is an invocation error the runtime reported: what Lambda's
// Invoke returns as the function error payload.
type FunctionError struct {
	Type    string `json:"errorType"`
	Message string `json:"errorMessage"`
	// StackTrace is set by aws-lambda-go for a panic.
	StackTrace []StackFrame `json:"stackTrace,omitempty"`
}

// StackFrame is one frame of a FunctionError's stack trace.
type StackFrame struct {
	Path  string `json:"path"`
	Line  int    `json:"line"`
	Label string `json:"label"`
}

// Error returns the errorMessage alone: it is what API Gateway reads of a
// failed Lambda authorizer ("Unauthorized" answers 401), so a gateway driven
// through Handler sees what the deployed one sees.
func (e *FunctionError) Error() string { return e.Message }

// Panicked reports whether the error is aws-lambda-go's report of a panic,
// the only function error it sends with a stack trace.
func (e *FunctionError) Panicked() bool { return len(e.StackTrace) > 0 }

// InitError is the runtime's report that it could not initialize.
type InitError struct {
	Type, Message string
}

func (e *InitError) Error() string { return fmt.Sprintf("init error %s: %s", e.Type, e.Message) }

// ExitError reports that the process exited before answering.
type ExitError struct {
	Err error // the process's exit status
	// Output is the tail of the process's output, where a panic or the
	// reason of a log.Fatal shows.
	Output string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("the function process exited (%v); its output ends with:\n%s", e.Err, e.Output)
}

// TimeoutError reports an invocation that outlived its timeout.
type TimeoutError struct {
	Timeout time.Duration
}

// Error is Lambda's own message for it.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("Task timed out after %.2f seconds", e.Timeout.Seconds())
}

// ResponseTooLargeError is Lambda's Function.ResponseSizeTooLarge.
type ResponseTooLargeError struct {
	Size int64 // the response's size in bytes
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("Function.ResponseSizeTooLarge: Response payload size (%d bytes) exceeded maximum allowed payload size (%d bytes).", e.Size, MaxResponseBytes)
}

// ProtocolError reports a runtime that broke the Runtime API's protocol.
type ProtocolError struct {
	Message string
}

func (e *ProtocolError) Error() string { return "runtime API protocol: " + e.Message }

// handler is a Process as a lambda.Handler.
type handler struct{ p *Process }

// DefaultTimeout is Lambda's default function timeout, Handler's when the
// context has no deadline.
const DefaultTimeout = 3 * time.Second

// Handler returns the process as a lambda.Handler (and so as what
// localgw.Factory makes): Invoke sends the payload to the process with the
// context's deadline as the function's timeout (localgw sets the template's
// Timeout), DefaultTimeout without one. Its errors are Invoke's.
func (p *Process) Handler() lambda.Handler { return handler{p} }

// Invoke sends payload to the process.
func (h handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	timeout := DefaultTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	// The caller's deadline is the function's timeout, which Invoke
	// enforces and reports as a TimeoutError, so it is not also the wait's.
	return h.p.Invoke(context.WithoutCancel(ctx), payload, timeout)
}
