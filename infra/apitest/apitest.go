// Package apitest runs the API end to end for integration tests: requests go
// through the local gateway built from template.yaml, the real key authorizer
// and the real function handlers, to a fresh table in DynamoDB Local. Every
// response is validated against the OpenAPI document, and every error body is
// checked to be exactly {"error": string}.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/apispec"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/infra/localstream"
	"github.com/agentplatform/workspaceapi/infra/stack"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/limitevents"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Start is the time every Env's clock starts at.
var Start = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Clock is a settable clock shared by the functions and the test.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Env is one running API over a fresh table.
type Env struct {
	URL   string
	Store *dynamo.Store
	// FunctionTrips counts the round trips of the endpoint functions,
	// AuthorizerTrips those of the authorizer.
	FunctionTrips, AuthorizerTrips *tableops.RoundTrips
	Mail                           *mail.Recorder
	// Events is the local EventBridge bus the events function publishes
	// to; with Options.Streams the table's stream feeds that function.
	Events *limitevents.Recorder
	// WebhookQueue keeps the webhook deliveries the functions queue
	// (unless Options.WebhookQueue replaced it).
	WebhookQueue *webhookdelivery.MemoryQueue
	Clock        *Clock
	validator    *apispec.Validator
}

// Options tunes New.
type Options struct {
	// AuthorizerTTL is the gateway's authorizer cache; 0 (the default) disables it.
	AuthorizerTTL time.Duration
	// MailFailure, when set, makes every e-mail fail with it.
	MailFailure error
	// Mailer, when set, replaces the recorder as the functions' mailer
	// (Env.Mail still records nothing then).
	Mailer invites.Mailer
	// Conflicts, when set, makes the functions' DynamoDB contend as real
	// DynamoDB does (a dynamolocal.Contention), or loses every transaction
	// (a dynamolocal.ConflictInjector with Rate 1).
	Conflicts interface {
		Option() func(*dynamodb.Options)
	}
	// OwnDynamoDB runs the Env on a DynamoDB Local of its own (tests with
	// large tables), not the one the test binary shares. Every benchmark
	// has one whatever this says (dynamolocal.Endpoint).
	OwnDynamoDB bool
	// FunctionOptions, when set, adds client options to one function's
	// DynamoDB client (by logical id): each function then has a client of
	// its own, so its calls can be recorded or faulted apart.
	FunctionOptions func(functionID string) []func(*dynamodb.Options)
	// Bus, when set, replaces the recorder as the events function's
	// EventBridge bus (Env.Events then records nothing).
	Bus limitevents.Bus
	// WebhookQueue, when set, replaces Env.WebhookQueue as the webhook
	// delivery queue.
	WebhookQueue webhookdelivery.Queue
	// WebhookQueueFor, when set, gives each function its own delivery
	// queue (stack.Deps.WebhookQueueFor).
	WebhookQueueFor func(functionID string) webhookdelivery.Queue
	// Streams feeds the functions of the template's DynamoDB events from
	// the table's stream, as `make run` does, so limit events reach
	// Env.Events (GET /_local/events) without invoking the events function.
	Streams bool
}

// RepoRoot returns the repository's root directory (where go.mod is).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// template.yaml is parsed once per test binary: a Template is read only
// once parsed, and every Env's gateway may serve from it.
var (
	templateOnce sync.Once
	template     *localgw.Template
	templateErr  error
)

func sharedTemplate(root string) (*localgw.Template, error) {
	templateOnce.Do(func() { template, templateErr = localgw.LoadTemplate(filepath.Join(root, "template.yaml")) })
	return template, templateErr
}

// sharedValidator is built once per test binary: building one parses,
// validates and routes the whole document (about a second under -race), and
// a Validator is safe for concurrent use.
var sharedValidator = sync.OnceValues(func() (*apispec.Validator, error) {
	return apispec.NewValidator(context.Background())
})

// Validator returns the OpenAPI document's response validator, which every
// Env of the test binary shares. It fails the test when the document does
// not load.
func Validator(t testing.TB) *apispec.Validator {
	t.Helper()
	v, err := sharedValidator()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	return v
}

// DemoFixture returns the text of the demo fixture (infra/fixtures/demo.json),
// the state `make run` serves, for tests that walk the API as a newcomer would.
func DemoFixture(t testing.TB) string {
	t.Helper()
	return Fixture(t, "demo.json")
}

// Fixture returns the text of infra/fixtures/<name>, a fixture the tests of
// several packages share.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(RepoRoot(t), "infra", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// New starts an Env whose table holds fixtureJSON (docs/fixture-format.md).
func New(t testing.TB, fixtureJSON string, opts ...Options) *Env {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	ctx := context.Background()
	funcTrips, authTrips := &tableops.RoundTrips{}, &tableops.RoundTrips{}
	// A benchmark always has an instance of its own (dynamolocal.Endpoint).
	endpoint := dynamolocal.Endpoint(t)
	if _, bench := t.(*testing.B); o.OwnDynamoDB && !bench {
		endpoint = dynamolocal.Own(t)
	}
	loader := dynamolocal.NewClientAt(t, endpoint, nil)
	var clientOpts []func(*dynamodb.Options)
	if o.Conflicts != nil {
		clientOpts = append(clientOpts, o.Conflicts.Option())
	}
	client := dynamolocal.NewClientAt(t, endpoint, funcTrips, clientOpts...)
	// Only a test that reads the stream has one (dynamolocal.NewTable says why).
	newTable := dynamolocal.NewTable
	if o.Streams {
		newTable = dynamolocal.NewStreamedTable
	}
	table := newTable(t, loader)
	store := dynamo.New(client, table)
	authStore := dynamo.New(dynamolocal.NewClientAt(t, endpoint, authTrips), table)

	clock := NewClock(Start)
	f, err := fixture.Parse([]byte(fixtureJSON))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	// The fixture's events go through the ingest function's code path, at
	// the Env's clock (a usage event may lie at most a few minutes after it).
	loaderStore := dynamo.New(loader, table)
	events := stack.EventApplier(stack.Deps{Store: loaderStore, Clock: clock})
	if _, err := fixture.Load(ctx, loaderStore, f, clock.Now(), fixture.Options{Events: events}); err != nil {
		t.Fatalf("load fixture: %v", err)
	}

	tmpl, err := sharedTemplate(RepoRoot(t))
	if err != nil {
		t.Fatalf("template: %v", err)
	}
	recorder := &mail.Recorder{Logger: slog.New(slog.DiscardHandler), Fail: o.MailFailure}
	var mailer invites.Mailer = recorder
	if o.Mailer != nil {
		mailer = o.Mailer
	}
	bus := &limitevents.Recorder{Logger: slog.New(slog.DiscardHandler)}
	var eventBus limitevents.Bus = bus
	if o.Bus != nil {
		eventBus = o.Bus
	}
	hookQueue := &webhookdelivery.MemoryQueue{}
	var queue webhookdelivery.Queue = hookQueue
	if o.WebhookQueue != nil {
		queue = o.WebhookQueue
	}
	deps := stack.Deps{
		Store: store, AuthorizerStore: authStore, Mailer: mailer, Events: eventBus, Clock: clock,
		IDs: workspace.SortableIDs{Clock: clock}, WebhookQueue: queue, WebhookQueueFor: o.WebhookQueueFor,
	}
	if o.FunctionOptions != nil {
		deps.StoreFor = functionStores(t, endpoint, table, funcTrips, authTrips, clientOpts, o.FunctionOptions)
	}
	fns := stack.Functions(deps)
	ttl := o.AuthorizerTTL
	feeds := &localstream.Feeds{}
	gw, err := localgw.New(tmpl, fns, stack.GatewayOptions(localgw.Options{
		AuthorizerTTL: &ttl, Now: clock.Now, Logger: slog.New(slog.DiscardHandler), Events: feeds.Log(bus),
	}))
	if err != nil {
		t.Fatalf("gateway: %v", err)
	}
	// Cold starts (the list functions read the cursor key in their wiring)
	// happen before the tests' requests, whose round trips they count.
	gw.Prewarm()
	if o.Streams {
		streams, err := localstream.NewClient(ctx, endpoint)
		if err != nil {
			t.Fatalf("streams client: %v", err)
		}
		feedCtx, stop := context.WithCancel(ctx)
		feeds.Start(feedCtx, streams, table, tmpl, gw, slog.New(slog.DiscardHandler))
		t.Cleanup(func() { stop(); feeds.Wait() })
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)

	validator := Validator(t)
	funcTrips.Reset()
	return &Env{
		URL: srv.URL, Store: store, FunctionTrips: funcTrips, AuthorizerTrips: authTrips,
		Mail: recorder, Events: bus, WebhookQueue: hookQueue, Clock: clock, validator: validator,
	}
}

// functionStores returns a stack.Deps.StoreFor that gives each function a
// client of its own with more(function)'s options, counted in the
// authorizer's or the functions' round trips. Clients are made once per
// function, before any request, since a test may make them concurrently.
func functionStores(t testing.TB, endpoint, table string, funcTrips, authTrips *tableops.RoundTrips,
	common []func(*dynamodb.Options), more func(string) []func(*dynamodb.Options)) func(string) *dynamo.Store {
	var mu sync.Mutex
	stores := map[string]*dynamo.Store{}
	return func(fn string) *dynamo.Store {
		mu.Lock()
		defer mu.Unlock()
		if s, ok := stores[fn]; ok {
			return s
		}
		trips := funcTrips
		if fn == "AuthorizerFunction" {
			trips = authTrips
		}
		opts := append(slices.Clone(common), more(fn)...)
		s := dynamo.New(dynamolocal.NewClientAt(t, endpoint, trips, opts...), table)
		stores[fn] = s
		return s
	}
}

// Response is what a request got, with the round trips it cost.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// FunctionTrips and AuthorizerTrips are the DynamoDB round trips of the request.
	FunctionTrips, AuthorizerTrips int
	// FunctionPath is the critical path of the function's round trips: how
	// many of them it made one after another.
	FunctionPath int
	// FunctionReadUnits are the read capacity units the function's reads
	// consumed, as DynamoDB (Local) reported them.
	FunctionReadUnits float64
}

// JSON decodes the body into v, failing the test when it cannot.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode body %s: %v", r.Body, err)
	}
}

// Error returns the message of an error body.
func (r *Response) Error(t testing.TB) string {
	t.Helper()
	var body struct{ Error string }
	r.JSON(t, &body)
	return body.Error
}

// Do sends a request with key as bearer credential (none when empty) and body
// as JSON text (none when empty). It fails the test when the response does
// not match the OpenAPI document or an error body is not exactly {"error": string}.
func (e *Env) Do(t testing.TB, method, path, key, body string) *Response {
	t.Helper()
	return e.DoRaw(t, method, path, Bearer(key), body)
}

// DoRaw is Do with the request's headers given as they are (an empty value
// sends no header), with the same checks of the response.
func (e *Env) DoRaw(t testing.TB, method, path string, headers map[string]string, body string) *Response {
	t.Helper()
	req := NewRequest(t, method, e.URL+path, headers, body)
	e.FunctionTrips.Reset()
	e.AuthorizerTrips.Reset()
	res, data := Send(t, req)
	resp := &Response{Status: res.StatusCode, Header: res.Header, Body: data,
		FunctionTrips: e.FunctionTrips.Count(), AuthorizerTrips: e.AuthorizerTrips.Count(), FunctionPath: e.FunctionTrips.Depth(),
		FunctionReadUnits: e.FunctionTrips.ReadUnits()}
	CheckResponse(t, e.validator, req, resp.Status, resp.Header, resp.Body)
	if !e.validator.HasRoute(req) && resp.Status != http.StatusNotFound {
		// The gateway answers unknown routes 404 before anything runs; the
		// document has no operation to hold them to.
		t.Errorf("%s %s is not in the OpenAPI document but answered %d", req.Method, req.URL.Path, resp.Status)
	}
	return resp
}

// Bearer is the Authorization header of key as a bearer credential, for
// NewRequest; an empty key sends none.
func Bearer(key string) map[string]string {
	if key == "" {
		return map[string]string{}
	}
	return map[string]string{"Authorization": "Bearer " + key}
}

// NewRequest is a request of method to url with headers (an empty value
// sends no header) and body as JSON text (none when empty).
func NewRequest(t testing.TB, method, url string, headers map[string]string, body string) *http.Request {
	t.Helper()
	var rdr io.Reader
	if body != "" {
		rdr = bytes.NewBufferString(body)
	}
	req, err := http.NewRequest(method, url, rdr)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	return req
}

// Send sends req with the default client and returns the response with its
// whole body, read and closed.
func Send(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, data
}

// CheckResponse holds an answer to req to the OpenAPI document of v when
// the document has req's route, and an error answer to the error shape
// (CheckErrorBody).
func CheckResponse(t testing.TB, v *apispec.Validator, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	if status >= 400 {
		CheckErrorBody(t, header, body)
	}
	if !v.HasRoute(req) {
		return
	}
	if err := v.ValidateResponse(context.Background(), req, status, header, body); err != nil {
		t.Errorf("%s %s answered %d %s, which the OpenAPI document does not allow: %v", req.Method, req.URL.Path, status, body, err)
	}
}

// LogBuffer is a log that a server writes and the test reads while it runs:
// a bytes.Buffer safe for both at once.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p to the log.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns the log so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// CheckErrorBody fails the test unless body is exactly one JSON object with one
// string field "error", served as application/json.
func CheckErrorBody(t testing.TB, header http.Header, body []byte) {
	t.Helper()
	if ct := header.Get("Content-Type"); ct != "application/json" && ct != "application/json; charset=utf-8" {
		t.Errorf("error Content-Type = %q, want application/json", ct)
	}
	var fields map[string]any
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Errorf("error body %q is not a JSON object: %v", body, err)
		return
	}
	msg, ok := fields["error"].(string)
	if len(fields) != 1 || !ok || msg == "" {
		t.Errorf("error body = %s, want exactly {\"error\": \"<message>\"}", body)
	}
}

// Parallel runs f(0..n-1) at once, released together, and returns what
// each returned: for tests of requests that race.
func Parallel[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = f(i)
		}()
	}
	close(start)
	wg.Wait()
	return out
}
