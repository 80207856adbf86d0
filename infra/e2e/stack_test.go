package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"go.yaml.in/yaml/v3"

	"github.com/agentplatform/workspaceapi/infra/apispec"
	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/infra/lambdaemu"
	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/infra/stack"
	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The region and stand-in credentials of the functions and the test's own
// DynamoDB client.
const (
	region          = "us-east-1"
	accessKeyID     = "AKIDE2ETEST"
	secretAccessKey = "e2e-secret"
)

var (
	buildDir  string
	buildOnce sync.Once
	binaries  map[string]string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := dynamolocal.RunTests(m)
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// build builds every function of the template with the Makefile, once per
// test binary (go's build cache makes the next test binary's builds fast).
func build(t *testing.T, root string, ids []string) map[string]string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "e2e-functions-"); buildErr != nil {
			return
		}
		start := time.Now()
		binaries, buildErr = lambdaemu.Build(context.Background(), root, buildDir, ids)
		t.Logf("built %d functions with the Makefile in %s", len(ids), time.Since(start).Round(time.Millisecond))
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binaries
}

// functionConfig is what template.yaml gives a function's execution
// environment.
type functionConfig struct {
	env      map[string]string
	memoryMB int
	timeout  time.Duration
}

// samProperties are the properties of an AWS::Serverless::Function (or its
// Globals) that shape its environment.
type samProperties struct {
	MemorySize  int `yaml:"MemorySize"`
	Timeout     int `yaml:"Timeout"`
	Environment struct {
		Variables map[string]yaml.Node `yaml:"Variables"`
	} `yaml:"Environment"`
}

// templateFunctions reads each function's environment variables, memory
// size and timeout from the SAM template at path, Globals first, as SAM
// merges them. A variable's value may be a plain scalar, !Ref of a parameter
// or of the table (named table), or !Sub of parameters; any other form, or a
// parameter with neither a value in params nor a default, is an error, so
// that a variable the test cannot reproduce is never silently left out.
// params are parameter values, as `sam local --parameter-overrides` takes
// them; overrides are the local values `sam local --env-vars` takes
// (infra/sam-local/env.json): "Parameters" for every function, then the
// function's own; as in SAM, they replace only variables the template
// declares.
func templateFunctions(path, table string, params map[string]string, overrides map[string]map[string]string) (map[string]functionConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Parameters map[string]struct {
			Default yaml.Node `yaml:"Default"`
		} `yaml:"Parameters"`
		Globals struct {
			Function samProperties `yaml:"Function"`
		} `yaml:"Globals"`
		Resources map[string]struct {
			Type       string    `yaml:"Type"`
			Properties yaml.Node `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	values := map[string]string{}
	for name, p := range doc.Parameters {
		if p.Default.Kind != 0 {
			values[name] = p.Default.Value
		}
	}
	for name, v := range params {
		values[name] = v
	}
	resolve := func(n yaml.Node) (string, error) {
		switch n.Tag {
		case "!!str", "!!int", "!!float", "!!bool", "!!null":
			return n.Value, nil
		case "!Ref":
			if n.Value == "Table" {
				return table, nil
			}
			if v, ok := values[n.Value]; ok {
				return v, nil
			}
		case "!Sub":
			var missing []string
			v := regexp.MustCompile(`\$\{([^}]+)\}`).ReplaceAllStringFunc(n.Value, func(m string) string {
				name := m[2 : len(m)-1]
				if p, ok := values[name]; ok {
					return p
				}
				missing = append(missing, name)
				return m
			})
			if len(missing) == 0 {
				return v, nil
			}
		}
		return "", fmt.Errorf("cannot resolve %s %q", n.Tag, n.Value)
	}

	out := map[string]functionConfig{}
	for id, res := range doc.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		var props samProperties
		if err := res.Properties.Decode(&props); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		vars := map[string]yaml.Node{}
		for k, v := range doc.Globals.Function.Environment.Variables {
			vars[k] = v
		}
		for k, v := range props.Environment.Variables {
			vars[k] = v
		}
		cfg := functionConfig{env: map[string]string{}, memoryMB: 128, timeout: 3 * time.Second}
		for k, n := range vars {
			if o, ok := overrides[id][k]; ok {
				cfg.env[k] = o
				continue
			}
			if o, ok := overrides["Parameters"][k]; ok {
				cfg.env[k] = o
				continue
			}
			v, err := resolve(n)
			if err != nil {
				return nil, fmt.Errorf("%s: variable %s: %w", id, k, err)
			}
			cfg.env[k] = v
		}
		for _, m := range []int{doc.Globals.Function.MemorySize, props.MemorySize} {
			if m > 0 {
				cfg.memoryMB = m
			}
		}
		for _, s := range []int{doc.Globals.Function.Timeout, props.Timeout} {
			if s > 0 {
				cfg.timeout = time.Duration(s) * time.Second
			}
		}
		out[id] = cfg
	}
	return out, nil
}

// outcome is one invocation of a function process.
type outcome struct {
	function string
	bytes    int
	err      error
}

// function is one function's process as the gateway and the test invoke
// it: every invocation's outcome is recorded for the test to judge.
type function struct {
	id      string
	timeout time.Duration
	proc    *lambdaemu.Process
	rec     *recorder
}

// Invoke runs one invocation in the process (lambda.Handler, as localgw's
// factories make); the context's deadline is the function's Timeout.
func (f *function) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	body, err := f.proc.Handler().Invoke(ctx, payload)
	f.rec.add(outcome{function: f.id, bytes: len(body), err: err})
	return body, err
}

// recorder keeps the invocations' outcomes until the test takes them.
type recorder struct {
	mu       sync.Mutex
	outcomes []outcome
}

func (r *recorder) add(o outcome) {
	r.mu.Lock()
	r.outcomes = append(r.outcomes, o)
	r.mu.Unlock()
}

func (r *recorder) take() []outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.outcomes
	r.outcomes = nil
	return out
}

// deployment is the whole stack of packaged functions over one table.
type deployment struct {
	url       string // the local API Gateway's base URL
	functions map[string]*function
	rec       *recorder
	db        *dynamodb.Client
	store     *dynamo.Store
	validator *apispec.Validator
	gwLog     *apitest.LogBuffer // the gateway's log
}

// deploy loads the demo fixture into a fresh table of DynamoDB Local, builds
// every function of template.yaml, starts each under the emulator with the
// template's environment and serves the template's API with them through the
// local gateway, as `make run` serves it with the handlers in-process.
func deploy(t *testing.T) *deployment {
	t.Helper()
	ctx := context.Background()
	root := apitest.RepoRoot(t)
	endpoint := dynamolocal.Endpoint(t)
	// DynamoDB Local keeps one database per access key and region (without
	// -sharedDb): the test and the functions use the same stand-ins.
	db := dynamolocal.NewClientAt(t, endpoint, nil, func(o *dynamodb.Options) {
		o.Region = region
		o.Credentials = credentials.NewStaticCredentialsProvider(accessKeyID, secretAccessKey, "")
	})
	table := dynamolocal.NewTable(t, db)
	store := dynamo.New(db, table)

	// The binaries run on the system clock, so the fixture is loaded at it,
	// as `make run` loads it; its events go through the ingest code path.
	f, err := fixture.ReadFile(filepath.Join(root, "infra/fixtures/demo.json"))
	if err != nil {
		t.Fatal(err)
	}
	clock := workspace.SystemClock{}
	events := stack.EventApplier(stack.Deps{Store: store, Clock: clock})
	if _, err := fixture.Load(ctx, store, f, clock.Now(), fixture.Options{Events: events}); err != nil {
		t.Fatalf("load the demo fixture: %v", err)
	}

	tmpl, err := localgw.LoadTemplate(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ids := tmpl.FunctionIDs()
	var overrides map[string]map[string]string
	raw, err := os.ReadFile(filepath.Join(root, "infra/sam-local/env.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &overrides); err != nil {
		t.Fatalf("infra/sam-local/env.json: %v", err)
	}
	// The parameters without a default, as a deployment (or sam local) gives them.
	params := map[string]string{"InviteAcceptUrl": config.DefaultInviteAcceptURL, "MailFrom": "no-reply@workspace.invalid"}
	configs, err := templateFunctions(filepath.Join(root, "template.yaml"), table, params, overrides)
	if err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	bins := build(t, root, ids)

	d := &deployment{functions: map[string]*function{}, rec: &recorder{}, db: db, store: store, gwLog: &apitest.LogBuffer{}}
	t.Cleanup(func() {
		for _, id := range ids {
			f := d.functions[id]
			if f == nil {
				continue // not started
			}
			f.proc.Stop()
			if out := f.proc.Output(); t.Failed() && out != "" {
				t.Logf("output of %s:\n%s", id, tail(out, 16<<10))
			}
		}
		if t.Failed() {
			t.Logf("gateway log:\n%s", tail(d.gwLog.String(), 16<<10))
		}
	})
	factories := map[string]localgw.Factory{}
	for _, id := range ids {
		cfg, ok := configs[id]
		if !ok {
			t.Fatalf("no configuration read for %s", id)
		}
		env := map[string]string{
			"AWS_LAMBDA_FUNCTION_NAME":        id,
			"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(cfg.memoryMB),
			"AWS_LAMBDA_LOG_FORMAT":           "JSON", // the template's LoggingConfig
		}
		for k, v := range cfg.env {
			env[k] = v
		}
		env["TABLE_NAME"], env["DYNAMODB_ENDPOINT"] = table, endpoint
		if _, ok := env["MAIL_FROM"]; ok {
			env["MAIL_FROM"] = "" // e-mails are recorded in the log, never sent through SES
		}
		env["AWS_REGION"], env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = region, accessKeyID, secretAccessKey
		proc, err := lambdaemu.Start(ctx, bins[id], env)
		if err != nil {
			t.Fatal(err)
		}
		fn := &function{id: id, timeout: cfg.timeout, proc: proc, rec: d.rec}
		d.functions[id] = fn
		factories[id] = func() lambda.Handler { return fn }
	}

	// No authorizer cache: every request runs the authorizer's process.
	noCache := time.Duration(0)
	gw, err := localgw.New(tmpl, factories, localgw.Options{
		AuthorizerTTL: &noCache, Logger: slog.New(slog.NewTextHandler(d.gwLog, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	d.url = srv.URL
	d.validator = apitest.Validator(t)
	return d
}

// invoke sends an event straight to a function, as an event source does,
// with its template Timeout, and returns its response.
func (d *deployment) invoke(t *testing.T, id string, event any) []byte {
	t.Helper()
	payload, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	fn := d.functions[id]
	ctx, cancel := context.WithTimeout(context.Background(), fn.timeout)
	defer cancel()
	body, _ := fn.Invoke(ctx, payload) // judged by settle
	return body
}

// response is what an HTTP request got.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends an HTTP request to the gateway with key as its bearer credential
// (none when empty) and body as JSON (none when empty). It fails the test
// when the answer does not match the OpenAPI document or an error body is
// not exactly {"error": "..."}.
func (d *deployment) do(t *testing.T, method, path, key, body string) response {
	t.Helper()
	req := apitest.NewRequest(t, method, d.url+path, apitest.Bearer(key), body)
	res, data := apitest.Send(t, req)
	apitest.CheckResponse(t, d.validator, req, res.StatusCode, res.Header, data)
	return response{status: res.StatusCode, header: res.Header, body: data}
}

// settle judges every invocation since the last settle: each must have
// answered, within Lambda's 6 MB, except the authorizer refusing a key with
// "Unauthorized" exactly unauthorized times; and every process must still run.
func (d *deployment) settle(t *testing.T, step string, unauthorized int) {
	t.Helper()
	refused := 0
	for _, o := range d.rec.take() {
		var fe *lambdaemu.FunctionError
		switch {
		case o.err == nil && o.bytes > lambdaemu.MaxResponseBytes:
			t.Errorf("%s: %s answered %d bytes, over Lambda's %d", step, o.function, o.bytes, lambdaemu.MaxResponseBytes)
		case o.err == nil:
		case o.function == "AuthorizerFunction" && errors.As(o.err, &fe) && !fe.Panicked() && fe.Message == "Unauthorized":
			refused++
		default:
			t.Errorf("%s: %s failed: %s", step, o.function, describe(o.err))
		}
	}
	if refused != unauthorized {
		t.Errorf("%s: the authorizer refused %d keys with Unauthorized, want %d", step, refused, unauthorized)
	}
	for _, id := range slices.Sorted(maps.Keys(d.functions)) {
		select {
		case <-d.functions[id].proc.Exited():
			t.Fatalf("%s: the process of %s exited; its output ends with:\n%s", step, id, tail(d.functions[id].proc.Output(), 8<<10))
		default:
		}
	}
}

// describe names an invocation's failure.
func describe(err error) string {
	var fe *lambdaemu.FunctionError
	if errors.As(err, &fe) {
		if fe.Panicked() {
			return fmt.Sprintf("panic %s: %s", fe.Type, fe.Message)
		}
		return fmt.Sprintf("function error %s: %s", fe.Type, fe.Message)
	}
	return fmt.Sprintf("%T: %v", err, err)
}

// wrote reports whether the process's output holds every one of parts,
// waiting up to 10 s for it, and returns the output's tail. What a function
// logs while handling an invocation reaches its output through a pipe that
// is copied apart from the invocation's answer, so it may arrive after it.
func (f *function) wrote(parts ...string) (string, bool) {
	holds := func(out string) bool {
		for _, p := range parts {
			if !strings.Contains(out, p) {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out := f.proc.Output()
		if holds(out) || time.Now().After(deadline) {
			return tail(out, 8<<10), holds(out)
		}
	}
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}
