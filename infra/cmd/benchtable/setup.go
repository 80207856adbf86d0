package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/benchbaseline"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/infra/lambdaemu"
	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/infra/stack"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The region and stand-in credentials of every client of the run, the
// binaries' included: DynamoDB Local keeps one database per access key and
// region.
const (
	region          = "us-east-1"
	accessKeyID     = "AKIDBENCHTABLE"
	secretAccessKey = "benchtable-secret"
)

// The baselines, built by the Makefile's build-baseline-<name>.
const (
	helloID     = "baseline-hello"
	sameCallsID = "baseline-samecalls"
)

// bench is one run: the binaries, DynamoDB Local with the demo workspace, the
// functions in-process and two local gateways.
type bench struct {
	s        settings
	progress io.Writer
	tmpl     *localgw.Template
	fnIDs    []string
	// routeFunction is the function of each route, by routeID.
	routeFunction map[string]string
	memory        map[string]int // each function's MemorySize in the template
	tmp           string
	rows          []row

	arm64 map[string]string // what ships, by logical id (sizes)
	host  map[string]string // built for this machine, by logical id (cold, mem)

	ddb      *dynamolocal.Instance // nil when -dynamodb-endpoint names one
	endpoint string
	raw      *dynamodb.Client // the loaders' client: records nothing, waits

	// Three tables of the run, each loaded with the demo fixture at one
	// instant: table serves the bootstraps (cold starts, peak memory) and
	// the bin gateway; tableA the in-process functions (the warm requests,
	// the calls the baselines make); tableB is tableA's twin, on which
	// those calls are replayed. Replaying on a twin that received every
	// earlier call keeps the twins equal, so a replayed write meets the
	// state the function's write met and does the same work: replayed on
	// tableA, a conditional write would be refused at once, for less.
	table, tableA, tableB string
	loader                *dynamo.Store // table's

	// The functions' client (the one every function but the authorizer
	// uses, as in `make run`) and the authorizer's, each with its round
	// trips counted and its calls recorded.
	fnClient, authClient *dynamodb.Client
	fnTrips, authTrips   *tableops.RoundTrips
	fnCalls, authCalls   *benchbaseline.Recorder
	deps                 stack.Deps // over tableA
	binDeps              stack.Deps // over table

	// run serves the API as `make run` does (the template's authorizer
	// cache, the handlers in-process); bin serves it with any function
	// registered in reg as its bootstrap under the emulator and the
	// authorizer run on every request.
	run, bin     *httptest.Server
	reg          *registry
	handlerTimes *handlerTimes // of the run gateway's functions
	http         *http.Client

	loadedBig bool
	refused   map[string]int // replayed warm calls DynamoDB refused, by route
}

// logf reports progress.
func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.progress, "%s benchtable: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// newBench builds what the selected rows need and starts DynamoDB Local.
func newBench(ctx context.Context, s settings, progress io.Writer) (_ *bench, err error) {
	b := &bench{s: s, progress: progress, refused: map[string]int{}, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	if b.tmpl, err = localgw.LoadTemplate(filepath.Join(s.root, "template.yaml")); err != nil {
		return nil, err
	}
	b.fnIDs = b.tmpl.FunctionIDs()
	b.routeFunction = map[string]string{}
	for _, r := range b.tmpl.Routes() {
		b.routeFunction[routeID(r)] = r.FunctionID
	}
	if b.memory, err = templateMemory(filepath.Join(s.root, "template.yaml")); err != nil {
		return nil, err
	}
	if b.tmp, err = os.MkdirTemp("", "benchtable-"); err != nil {
		return nil, err
	}

	var arm64IDs, hostIDs []string
	for _, id := range b.fnIDs {
		if s.want("size:" + id) {
			arm64IDs = append(arm64IDs, id)
		}
		if s.wantAny("cold:"+id, "init:"+id, "mem:"+id) {
			hostIDs = append(hostIDs, id)
		}
	}
	if len(arm64IDs) > 0 {
		arm64IDs = append(arm64IDs, helloID, sameCallsID)
	}
	if b.wantCold() {
		hostIDs = append(hostIDs, helloID, sameCallsID)
	}
	needDB := len(hostIDs) > 0 || b.wantWarm()

	// Java starts while Go builds; the table is loaded after, once the
	// builds no longer hold every core (DynamoDB Local then answers slowly).
	dbErr := make(chan error, 1)
	if needDB {
		go func() { dbErr <- b.startDynamo(ctx) }()
	} else {
		dbErr <- nil
	}
	if len(arm64IDs) > 0 {
		start := time.Now()
		if b.arm64, err = lambdaemu.BuildFor(ctx, s.root, filepath.Join(b.tmp, "arm64"), "arm64", arm64IDs); err != nil {
			<-dbErr
			return nil, err
		}
		b.logf("built %d bootstraps for linux/arm64 with the Makefile in %s", len(arm64IDs), time.Since(start).Round(time.Millisecond))
	}
	if len(hostIDs) > 0 {
		start := time.Now()
		if b.host, err = lambdaemu.Build(ctx, s.root, filepath.Join(b.tmp, runtime.GOARCH), hostIDs); err != nil {
			<-dbErr
			return nil, err
		}
		b.logf("built %d bootstraps for linux/%s with the Makefile in %s", len(hostIDs), runtime.GOARCH, time.Since(start).Round(time.Millisecond))
	}
	if err := <-dbErr; err != nil {
		return nil, err
	}
	if needDB {
		if err := b.loadDemo(ctx); err != nil {
			return nil, err
		}
		if err := b.startStack(ctx); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// wantCold reports whether any cold-start or init row is selected.
func (b *bench) wantCold() bool {
	for _, id := range b.fnIDs {
		if b.s.wantAny("cold:"+id, "init:"+id) {
			return true
		}
	}
	return false
}

// wantWarm reports whether any warm or round-trip row is selected.
func (b *bench) wantWarm() bool {
	if b.s.want("trips:AuthorizerFunction") {
		return true
	}
	for _, r := range b.tmpl.Routes() {
		if b.s.wantAny("warm:"+routeID(r), "handler:"+routeID(r), "trips:"+routeID(r)) {
			return true
		}
	}
	return false
}

// routeID names a template route in row ids: "GET /workspaceapi/credits".
func routeID(r localgw.Route) string { return r.Method + " " + r.Path }

// newClient returns a DynamoDB client of the run with more options.
func (b *bench) newClient(ctx context.Context, more ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	opts := append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.Region = region
		o.Credentials = credentials.NewStaticCredentialsProvider(accessKeyID, secretAccessKey, "")
	}}, more...)
	return tableops.NewClient(ctx, b.endpoint, opts...)
}

// startDynamo starts DynamoDB Local, unless one is named.
func (b *bench) startDynamo(ctx context.Context) error {
	b.endpoint = b.s.endpoint
	if b.endpoint != "" {
		return nil
	}
	start := time.Now()
	inst, err := dynamolocal.Start(ctx, dynamolocal.Options{})
	if err != nil {
		return err
	}
	b.ddb, b.endpoint = inst, inst.Endpoint
	b.logf("DynamoDB Local at %s in %s", b.endpoint, time.Since(start).Round(time.Millisecond))
	return nil
}

// loadDemo creates the run's tables and loads the demo fixture into each at
// one instant of the system clock, as `make run` loads it, so tableA and
// tableB hold the same items. The loaders' calls may wait as long as
// DynamoDB Local needs: the functions' bounds are for requests, not for
// loading thousands of items.
func (b *bench) loadDemo(ctx context.Context) error {
	start := time.Now()
	client, err := b.newClient(ctx, dynamo.WithBounds(dynamo.Bounds{Attempt: time.Minute, Call: 5 * time.Minute}))
	if err != nil {
		return err
	}
	b.raw = client
	run := time.Now().UnixNano()
	b.table, b.tableA, b.tableB = fmt.Sprintf("bench-%d-main", run), fmt.Sprintf("bench-%d-a", run), fmt.Sprintf("bench-%d-b", run)
	f, err := fixture.ReadFile(filepath.Join(b.s.root, "infra/fixtures/demo.json"))
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	tables := []string{b.table, b.tableA, b.tableB}
	// Every table is created before any is loaded: DynamoDB Local answers
	// more slowly once it has served load, and the twins must start equal.
	for _, table := range tables {
		if err := tableops.CreateTable(ctx, client, table); err != nil {
			return err
		}
	}
	errs := make([]error, len(tables))
	var wg sync.WaitGroup
	for i, table := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			store := dynamo.New(client, table)
			events := stack.EventApplier(stack.Deps{Store: store, Clock: fixedClock(now)})
			if _, err := fixture.Load(ctx, store, f, now, fixture.Options{Events: events}); err != nil {
				errs[i] = fmt.Errorf("load the demo fixture into %s: %w", table, err)
				return
			}
			// The workspace whose seats the retention function frees.
			errs[i] = tableops.PutSnapshot(ctx, store, tableops.Snapshot{Workspace: workspace.Workspace{ID: retentionWorkspace, Name: "Retention bench", Seats: 1_000_000}}, now)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	b.loader = dynamo.New(client, b.table)
	b.logf("tables %s, %s and %s with the demo fixture in %s", b.table, b.tableA, b.tableB, time.Since(start).Round(time.Millisecond))
	return nil
}

// startStack wires the functions in-process and serves both gateways.
func (b *bench) startStack(ctx context.Context) error {
	var err error
	b.fnTrips, b.authTrips = &tableops.RoundTrips{}, &tableops.RoundTrips{}
	b.fnCalls, b.authCalls = &benchbaseline.Recorder{}, &benchbaseline.Recorder{}
	if b.fnClient, err = b.newClient(ctx, b.fnTrips.Option(), b.fnCalls.Option()); err != nil {
		return err
	}
	if b.authClient, err = b.newClient(ctx, b.authTrips.Option(), b.authCalls.Option()); err != nil {
		return err
	}
	// The functions log as deployed (JSON, redacted), to nowhere: a
	// terminal's speed is not the functions'.
	slog.SetDefault(slog.New(config.NewLogHandler(io.Discard)))
	clock := workspace.SystemClock{}
	b.deps = stack.Deps{
		Store: dynamo.New(b.fnClient, b.tableA), AuthorizerStore: dynamo.New(b.authClient, b.tableA),
		Mailer: &mail.Recorder{Logger: slog.New(slog.DiscardHandler)}, Clock: clock,
		IDs: workspace.SortableIDs{Clock: clock},
	}
	b.binDeps = b.deps
	b.binDeps.Store, b.binDeps.AuthorizerStore = dynamo.New(b.fnClient, b.table), dynamo.New(b.authClient, b.table)
	quiet := slog.New(slog.DiscardHandler)
	// Each function of the run gateway is timed alone (handlerTimes): the
	// handler's Invoke of the event the gateway built, without the hop.
	b.handlerTimes = &handlerTimes{last: map[string]time.Duration{}}
	timed := map[string]localgw.Factory{}
	for id, f := range stack.Functions(b.deps) {
		timed[id] = func() lambda.Handler { return timedHandler{id: id, h: f(), times: b.handlerTimes} }
	}
	run, err := localgw.New(b.tmpl, timed, stack.GatewayOptions(localgw.Options{Logger: quiet}))
	if err != nil {
		return err
	}
	b.run = httptest.NewServer(run)

	b.reg = &registry{procs: map[string]*lambdaemu.Process{}, events: map[string][]byte{}}
	local := stack.Functions(b.binDeps)
	factories := map[string]localgw.Factory{}
	for id, f := range local {
		factories[id] = func() lambda.Handler { return dispatcher{id: id, local: f(), reg: b.reg} }
	}
	noCache := time.Duration(0)
	bin, err := localgw.New(b.tmpl, factories, localgw.Options{Logger: quiet, AuthorizerTTL: &noCache})
	if err != nil {
		return err
	}
	b.bin = httptest.NewServer(bin)
	return nil
}

// close stops what the run started and removes its files.
func (b *bench) close() {
	if b.reg != nil {
		b.reg.stopAll()
	}
	for _, srv := range []*httptest.Server{b.run, b.bin} {
		if srv != nil {
			srv.Close()
		}
	}
	if b.ddb != nil {
		_ = b.ddb.Stop()
	} else if b.raw != nil {
		// Another's DynamoDB Local keeps nothing of the run.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, t := range []string{b.table, b.tableA, b.tableB} {
			_, _ = b.raw.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(t)})
		}
	}
	if b.tmp != "" {
		_ = os.RemoveAll(b.tmp)
	}
}

// describeRun says what the run measured with.
func (b *bench) describeRun() string {
	return fmt.Sprintf("cold starts: median of %d; warm: %d requests per endpoint after %d; heavy workspace: %d agents, %d invitations, %d members, a %d MB chat",
		b.s.runs, b.s.requests, b.s.warmup, b.s.agents, b.s.invites, b.s.members, b.s.chatMB)
}

// measure runs the phases in the order that keeps them apart: the sizes,
// the cold starts on a quiet machine, the warm requests on the demo
// workspace, then the heavy workspace for peak memory.
func (b *bench) measure(ctx context.Context) error {
	b.sizes()
	for _, phase := range []func(context.Context) error{b.cold, b.warm, b.memoryPeaks} {
		if err := phase(ctx); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// registry holds the bootstraps the bin gateway invokes, by logical id, and
// the last event each function was sent.
type registry struct {
	mu     sync.Mutex
	procs  map[string]*lambdaemu.Process
	events map[string][]byte
}

func (r *registry) set(id string, p *lambdaemu.Process) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p == nil {
		delete(r.procs, id)
		return
	}
	r.procs[id] = p
}

func (r *registry) proc(id string) *lambdaemu.Process {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.procs[id]
}

// event returns the last event sent to function id.
func (r *registry) event(id string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events[id]
}

func (r *registry) stopAll() {
	r.mu.Lock()
	procs := slices.Collect(func(yield func(*lambdaemu.Process) bool) {
		for _, p := range r.procs {
			if !yield(p) {
				return
			}
		}
	})
	r.procs = map[string]*lambdaemu.Process{}
	r.mu.Unlock()
	for _, p := range procs {
		p.Stop()
	}
}

// dispatcher is one execution environment of a function in the bin
// gateway: the bootstrap registered for it, or else its in-process handler.
type dispatcher struct {
	id    string
	local lambda.Handler
	reg   *registry
}

// Invoke records the event and runs it.
func (d dispatcher) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	d.reg.mu.Lock()
	d.reg.events[d.id] = bytes.Clone(payload)
	d.reg.mu.Unlock()
	if p := d.reg.proc(d.id); p != nil {
		return p.Handler().Invoke(ctx, payload)
	}
	return d.local.Invoke(ctx, payload)
}

// handlerTimes holds the last invocation's duration of each function of the
// run gateway, by logical id.
type handlerTimes struct {
	mu   sync.Mutex
	last map[string]time.Duration
}

// reset forgets every duration.
func (h *handlerTimes) reset() {
	h.mu.Lock()
	clear(h.last)
	h.mu.Unlock()
}

// of returns function id's last duration, 0 when it did not run.
func (h *handlerTimes) of(id string) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last[id]
}

// timedHandler is a function's handler whose every invocation is timed: the
// handler alone, from the event's bytes to the answer's, as the Lambda
// runtime calls it.
type timedHandler struct {
	id    string
	h     lambda.Handler
	times *handlerTimes
}

// Invoke runs the handler and records how long it took.
func (t timedHandler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	start := time.Now()
	out, err := t.h.Invoke(ctx, payload)
	took := time.Since(start)
	t.times.mu.Lock()
	t.times.last[t.id] = took
	t.times.mu.Unlock()
	return out, err
}

// request is one HTTP request to a gateway.
type request struct {
	method, path string
	key          string // bearer key; empty: none
	body         string // JSON; empty: none
	gzip         bool   // accept a gzipped answer, as a client of a large list does
}

// response is what a request got.
type response struct {
	status int
	body   []byte
	took   time.Duration
}

// do sends req to the gateway at base.
func (b *bench) do(ctx context.Context, base string, req request) (response, error) {
	var rdr io.Reader
	if req.body != "" {
		rdr = bytes.NewBufferString(req.body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, base+req.path, rdr)
	if err != nil {
		return response{}, err
	}
	if req.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.key != "" {
		hr.Header.Set("Authorization", "Bearer "+req.key)
	}
	if req.gzip {
		hr.Header.Set("Accept", "application/json")
		hr.Header.Set("Accept-Encoding", "gzip")
	}
	start := time.Now()
	res, err := b.http.Do(hr)
	if err != nil {
		return response{}, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	took := time.Since(start)
	if err != nil {
		return response{}, err
	}
	return response{status: res.StatusCode, body: body, took: took}, nil
}

// expect fails unless the response has status want.
func expect(req request, res response, want int) error {
	if res.status != want {
		return fmt.Errorf("%s %s answered %d %.300s, want %d", req.method, req.path, res.status, res.body, want)
	}
	return nil
}

// functionEnv is the environment a bootstrap gets: the template's
// variables as the local stack sets them (DynamoDB Local, e-mails recorded
// in the log, never sent) and the run's credentials.
func (b *bench) functionEnv(id string) map[string]string {
	env := map[string]string{
		"AWS_LAMBDA_FUNCTION_NAME": id,
		"AWS_LAMBDA_LOG_FORMAT":    "JSON",
		"TABLE_NAME":               b.table,
		"DYNAMODB_ENDPOINT":        b.endpoint,
		"MAIL_FROM":                "",
		"INVITE_ACCEPT_URL":        config.DefaultInviteAcceptURL,
		"AWS_REGION":               region,
		"AWS_ACCESS_KEY_ID":        accessKeyID,
		"AWS_SECRET_ACCESS_KEY":    secretAccessKey,
	}
	if m := b.memory[id]; m > 0 {
		env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = fmt.Sprint(m)
	}
	return env
}

// startProc starts the bootstrap of id (a function or a baseline), with
// more variables in its environment.
func (b *bench) startProc(ctx context.Context, id string, more map[string]string) (*lambdaemu.Process, error) {
	bin, ok := b.host[id]
	if !ok {
		return nil, fmt.Errorf("%s was not built", id)
	}
	env := b.functionEnv(id)
	for k, v := range more {
		env[k] = v
	}
	return lambdaemu.Start(ctx, bin, env)
}
