package lambdaemu_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/lambdaemu"
)

// buildDir holds the binaries this test binary builds, once.
var (
	buildDir                  string
	buildOnce                 sync.Once
	runtimeBin, authorizerBin string
	buildErr                  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// binaries builds the test runtime (testdata/runtime, a lambda.Start
// handler) and the real authorizer function with the Makefile, once.
func binaries(t *testing.T) (testRuntime, authorizer string) {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "lambdaemu-test-"); buildErr != nil {
			return
		}
		root := apitest.RepoRoot(t)
		runtimeBin = filepath.Join(buildDir, "runtime", "bootstrap")
		cmd := exec.Command("go", "build", "-o", runtimeBin, "./infra/lambdaemu/testdata/runtime")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build testdata/runtime: %v\n%s", err, out)
			return
		}
		var paths map[string]string
		paths, buildErr = lambdaemu.Build(context.Background(), root, buildDir, []string{"AuthorizerFunction"})
		authorizerBin = paths["AuthorizerFunction"]
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return runtimeBin, authorizerBin
}

// start runs binary under the emulator for the test.
func start(t *testing.T, binary string, env map[string]string) *lambdaemu.Process {
	t.Helper()
	p, err := lambdaemu.Start(t.Context(), binary, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("output of %s:\n%s", p.Name(), p.Output())
		}
	})
	return p
}

// describe renders an invocation's outcome for comparison.
func describe(body []byte, err error) string {
	var (
		fe  *lambdaemu.FunctionError
		ie  *lambdaemu.InitError
		xe  *lambdaemu.ExitError
		te  *lambdaemu.TimeoutError
		rte *lambdaemu.ResponseTooLargeError
		pe  *lambdaemu.ProtocolError
	)
	switch {
	case err == nil:
		return fmt.Sprintf("ok, %d bytes", len(body))
	case errors.As(err, &fe) && fe.Panicked():
		return "panic: " + fe.Message
	case errors.As(err, &fe):
		return fmt.Sprintf("function error %s: %s", fe.Type, fe.Message)
	case errors.As(err, &ie), errors.As(err, &te), errors.As(err, &rte), errors.As(err, &pe):
		return err.Error()
	case errors.As(err, &xe):
		return "exited"
	}
	return "other error: " + err.Error()
}

func TestTheRuntimeIsToldTheInvocationAsLambdaTellsIt(t *testing.T) {
	bin, _ := binaries(t)
	t.Setenv("LAMBDAEMU_HOST_ONLY", "leaks") // the test's environment is not the function's
	p := start(t, bin, map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512", "TABLE_NAME": "t1"})

	before := time.Now()
	body, err := p.Invoke(t.Context(), []byte(`{"do": "echo"}`), 7*time.Second)
	after := time.Now()
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	var got struct {
		RequestID, FunctionArn, TraceID, Cwd string
		DeadlineMs                           int64
		Env                                  map[string]string
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	dir := filepath.Dir(bin)
	checks := []struct {
		name      string
		got, want string
	}{
		{"the request id is a UUID", strconv.FormatBool(regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(got.RequestID)), "true"},
		{"the function ARN names the function", got.FunctionArn, "arn:aws:lambda:us-east-1:123456789012:function:runtime"},
		{"the trace id is an X-Ray header", strconv.FormatBool(strings.HasPrefix(got.TraceID, "Root=1-")), "true"},
		{"the deadline is the timeout after the event was taken",
			strconv.FormatBool(got.DeadlineMs >= before.Add(7*time.Second).UnixMilli() && got.DeadlineMs <= after.Add(7*time.Second).UnixMilli()), "true"},
		{"the runtime API is the emulator's", got.Env["AWS_LAMBDA_RUNTIME_API"], p.RuntimeAPI()},
		{"the handler is bootstrap", got.Env["_HANDLER"], "bootstrap"},
		{"the function name defaults to the binary's directory", got.Env["AWS_LAMBDA_FUNCTION_NAME"], "runtime"},
		{"the caller's memory size wins", got.Env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"], "512"},
		{"the caller's variables are set", got.Env["TABLE_NAME"], "t1"},
		{"the region is set both ways", got.Env["AWS_REGION"] + " " + got.Env["AWS_DEFAULT_REGION"], "us-east-1 us-east-1"},
		{"the credentials are stand-ins", got.Env["AWS_ACCESS_KEY_ID"], "AKIDLAMBDAEMU"},
		{"the time zone is UTC", got.Env["TZ"], ":UTC"},
		{"the task root is the binary's directory", got.Env["LAMBDA_TASK_ROOT"], dir},
		{"the working directory is the task root", got.Cwd, dir},
		{"the host's environment does not leak in", got.Env["LAMBDAEMU_HOST_ONLY"], ""},
		{"the trace id is exported as Lambda exports it", got.Env["_X_AMZN_TRACE_ID"], got.TraceID},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}

	again, err := p.Invoke(t.Context(), []byte(`{"do": "echo"}`), time.Second)
	if err != nil {
		t.Fatalf("second invoke: %v", err)
	}
	var second struct{ RequestID string }
	_ = json.Unmarshal(again, &second)
	if second.RequestID == got.RequestID {
		t.Errorf("second request id = %q, want a new one", second.RequestID)
	}
	if got := p.Invocations(); got != 2 {
		t.Errorf("Invocations() = %d, want 2", got)
	}
	initDur, first := p.ColdStart()
	if initDur <= 0 || first < initDur {
		t.Errorf("ColdStart() = %v, %v; want init > 0 and first response after it", initDur, first)
	}
}

func TestEachOutcomeOfAnInvocationIsReportedAsLambdaReportsIt(t *testing.T) {
	bin, _ := binaries(t)
	tests := []struct {
		name     string
		event    string
		timeout  time.Duration
		want     string
		wantExit bool // the process is gone afterwards
	}{
		{"an answer", `{"do": "echo"}`, time.Second, "", false},
		{"a returned error is a function error", `{"do": "error"}`, time.Second, "function error errorString: the handler failed", false},
		{"a panic is a function error with its stack, and ends the process", `{"do": "panic"}`, time.Second,
			"panic: assignment to entry in nil map", true},
		{"past its timeout the invocation fails and the environment is killed", `{"do": "sleep", "ms": 5000}`, 300 * time.Millisecond,
			"Task timed out after 0.30 seconds", true},
		{"an answer of exactly 6291556 bytes is allowed", fmt.Sprintf(`{"do": "big", "bytes": %d}`, lambdaemu.MaxResponseBytes-2), 10 * time.Second,
			fmt.Sprintf("ok, %d bytes", lambdaemu.MaxResponseBytes), false},
		{"one byte more is Function.ResponseSizeTooLarge", fmt.Sprintf(`{"do": "big", "bytes": %d}`, lambdaemu.MaxResponseBytes-1), 10 * time.Second,
			"Function.ResponseSizeTooLarge: Response payload size (6291557 bytes) exceeded maximum allowed payload size (6291556 bytes).", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, bin, nil)
			got := describe(p.Invoke(t.Context(), []byte(tc.event), tc.timeout))
			want := tc.want
			if want == "" {
				want = got // the answer's size is not the point
				if !strings.HasPrefix(got, "ok, ") {
					want = "ok"
				}
			}
			if got != want {
				t.Errorf("outcome: got %q, want %q", got, want)
			}
			select {
			case <-p.Exited():
				if !tc.wantExit {
					t.Errorf("the process exited:\n%s", p.Output())
				}
			case <-time.After(2 * time.Second):
				if tc.wantExit {
					t.Errorf("the process is still running")
				}
			}
			if tc.wantExit {
				if got := describe(p.Invoke(t.Context(), []byte(`{"do": "echo"}`), time.Second)); got != "exited" {
					t.Errorf("the next invocation: got %q, want %q", got, "exited")
				}
			}
		})
	}
}

func TestAPanicShowsInTheOutputAndTheExitError(t *testing.T) {
	bin, _ := binaries(t)
	p := start(t, bin, nil)
	_, _ = p.Invoke(t.Context(), []byte(`{"do": "panic"}`), time.Second)
	<-p.Exited()
	_, err := p.Invoke(t.Context(), []byte(`{"do": "echo"}`), time.Second)
	var xe *lambdaemu.ExitError
	if !errors.As(err, &xe) {
		t.Fatalf("got %v, want an ExitError", err)
	}
	for name, text := range map[string]string{"Output()": p.Output(), "ExitError.Output": xe.Output} {
		if !strings.Contains(text, "panic") {
			t.Errorf("%s = %q, want the panic in it", name, text)
		}
	}
}

func TestAFailedInitFailsTheInvocationThatWaitsForIt(t *testing.T) {
	bin, _ := binaries(t)
	tests := []struct {
		name, init string
		want       string
		wantOutput string
	}{
		{"an init error reported to the Runtime API", "report", "init error Config.Missing: no configuration", ""},
		{"a process that exits at init (log.Fatal)", "fatal", "exited", "TABLE_NAME is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, bin, map[string]string{"LAMBDAEMU_TEST_INIT": tc.init})
			_, err := p.Invoke(t.Context(), []byte(`{"do": "echo"}`), time.Second)
			if got := describe(nil, err); got != tc.want {
				t.Errorf("outcome: got %q, want %q", got, tc.want)
			}
			var xe *lambdaemu.ExitError
			if errors.As(err, &xe) && !strings.Contains(xe.Output, tc.wantOutput) {
				t.Errorf("ExitError.Output = %q, want it to contain %q", xe.Output, tc.wantOutput)
			}
		})
	}
}

// runtimeCall is one request a test makes to the Runtime API, playing the runtime.
func runtimeCall(t *testing.T, p *lambdaemu.Process, method, path, body string, header http.Header) (int, http.Header, string) {
	t.Helper()
	status, h, b, err := rawCall(p, method, path, body, header)
	if err != nil {
		t.Fatal(err)
	}
	return status, h, b
}

// rawCall is runtimeCall for a goroutine of its own: it returns its error.
func rawCall(p *lambdaemu.Process, method, path, body string, header http.Header) (int, http.Header, string, error) {
	req, err := http.NewRequest(method, "http://"+p.RuntimeAPI()+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b), err
}

// pendingInvoke starts an invocation and returns where its outcome arrives.
func pendingInvoke(p *lambdaemu.Process, event string) <-chan string {
	out := make(chan string, 1)
	go func() {
		body, err := p.Invoke(context.Background(), []byte(event), 5*time.Second)
		if err == nil {
			out <- "ok " + string(body)
			return
		}
		out <- describe(body, err)
	}()
	return out
}

func TestTheRuntimeAPIAnswersARuntimeAsLambdaDoes(t *testing.T) {
	bin, _ := binaries(t)
	// The process never asks for an event: the test plays its runtime.
	p := start(t, bin, map[string]string{"LAMBDAEMU_TEST_INIT": "idle"})
	const base = "/2018-06-01/runtime"
	invalidID := `{"errorMessage":"Invalid request ID","errorType":"InvalidRequestID"}`

	if status, _, body := runtimeCall(t, p, http.MethodPost, base+"/invocation/nope/response", `{}`, nil); status != http.StatusBadRequest || body != invalidID {
		t.Errorf("a response for an unknown id: got %d %s, want 400 %s", status, body, invalidID)
	}

	outcome := pendingInvoke(p, `{"n": 1}`)
	status, h, event := runtimeCall(t, p, http.MethodGet, base+"/invocation/next", "", nil)
	id := h.Get(lambdaemu.HeaderRequestID)
	deadline, _ := strconv.ParseInt(h.Get(lambdaemu.HeaderDeadlineMs), 10, 64)
	if status != http.StatusOK || event != `{"n": 1}` || id == "" || h.Get("Content-Type") != "application/json" ||
		h.Get(lambdaemu.HeaderInvokedFunctionArn) == "" || h.Get(lambdaemu.HeaderTraceID) == "" ||
		deadline < time.Now().UnixMilli() || deadline > time.Now().Add(5*time.Second).UnixMilli() {
		t.Fatalf("next: got %d %v %s, want 200, the event and every Lambda-Runtime header", status, h, event)
	}

	steps := []struct {
		name       string
		method     string
		path       string
		body       string
		header     http.Header
		wantStatus int
		wantBody   string
	}{
		{"an error for another id is refused", http.MethodPost, base + "/invocation/other/error", `{}`, nil, http.StatusBadRequest, invalidID},
		{"the response is accepted", http.MethodPost, base + "/invocation/" + id + "/response", `{"answer": 42}`, nil, http.StatusAccepted, `{"status":"OK"}`},
		{"a second response for the same id is refused", http.MethodPost, base + "/invocation/" + id + "/response", `{}`, nil, http.StatusBadRequest, invalidID},
		{"an init error after init is refused", http.MethodPost, base + "/init/error", `{}`, nil, http.StatusForbidden,
			`{"errorMessage":"init error reported after the runtime initialized","errorType":"InvalidStateTransition"}`},
		{"an unknown path is not found", http.MethodGet, base + "/nothing", "", nil, http.StatusNotFound, "404 page not found\n"},
	}
	for _, s := range steps {
		status, _, body := runtimeCall(t, p, s.method, s.path, s.body, s.header)
		if status != s.wantStatus || body != s.wantBody {
			t.Errorf("%s: got %d %s, want %d %s", s.name, status, body, s.wantStatus, s.wantBody)
		}
	}
	if got, want := <-outcome, `ok {"answer": 42}`; got != want {
		t.Errorf("the invocation: got %q, want %q", got, want)
	}

	// An error without a body is named by its header, as in Lambda.
	outcome = pendingInvoke(p, `{"n": 2}`)
	_, h, _ = runtimeCall(t, p, http.MethodGet, base+"/invocation/next", "", nil)
	runtimeCall(t, p, http.MethodPost, base+"/invocation/"+h.Get(lambdaemu.HeaderRequestID)+"/error", "",
		http.Header{lambdaemu.HeaderFunctionErrorType: {"Custom.Failure"}})
	if got, want := <-outcome, "function error Custom.Failure: "; got != want {
		t.Errorf("an error named by its header: got %q, want %q", got, want)
	}

	// Asking for the next event without answering the one held fails it.
	outcome = pendingInvoke(p, `{"n": 3}`)
	runtimeCall(t, p, http.MethodGet, base+"/invocation/next", "", nil)
	pendingNext := make(chan struct{})
	go func() {
		defer close(pendingNext)
		_, _, _, _ = rawCall(p, http.MethodGet, base+"/invocation/next", "", nil) // ends with Stop
	}()
	if got := <-outcome; !strings.HasPrefix(got, "runtime API protocol: the runtime asked for the next event without answering invocation ") {
		t.Errorf("an unanswered invocation: got %q, want a protocol error", got)
	}
	p.Stop()
	<-pendingNext
}

func TestARealFunctionBinaryRunsUnderTheEmulator(t *testing.T) {
	_, bin := binaries(t)
	// A malformed key is refused before anything is read, so no DynamoDB is needed.
	event := `{"type": "REQUEST", "methodArn": "arn:aws:execute-api:us-east-1:123456789012:local/v1/GET/workspaceapi/invites",
		"headers": {"Authorization": "Bearer not-a-key"}, "multiValueHeaders": {"Authorization": ["Bearer not-a-key"]}}`
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"without TABLE_NAME it exits at init", nil, "exited"},
		{"a malformed key is Unauthorized, the message API Gateway reads",
			map[string]string{"TABLE_NAME": "t", "DYNAMODB_ENDPOINT": "http://127.0.0.1:9"}, "function error errorString: Unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, bin, tc.env)
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			// Through Handler, as the local gateway calls it: the deadline is the timeout.
			body, err := p.Handler().Invoke(ctx, []byte(event))
			if got := describe(body, err); got != tc.want {
				t.Errorf("outcome: got %q, want %q", got, tc.want)
			}
			var xe *lambdaemu.ExitError
			if errors.As(err, &xe) && !strings.Contains(xe.Output, "TABLE_NAME is not set") {
				t.Errorf("ExitError.Output = %q, want the reason", xe.Output)
			}
			if err != nil && tc.env != nil && err.Error() != "Unauthorized" {
				t.Errorf("Error() = %q, want exactly Unauthorized", err.Error())
			}
		})
	}
}
