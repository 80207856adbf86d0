// Command localrun is what `make run` starts: DynamoDB Local (unless
// DYNAMODB_ENDPOINT names one), the table, the fixture, and a gateway that
// serves every route of template.yaml through the real authorizer and the real
// function handlers, answering as the deployed API Gateway would.
//
// Environment: ADDR (default 127.0.0.1:3000; a loopback address unless
// ALLOW_REMOTE=1), FIXTURE (default infra/fixtures/demo.json),
// DYNAMODB_ENDPOINT (default: start an in-memory DynamoDB Local), TABLE_NAME
// (default workspace-api-local), TEMPLATE (default template.yaml),
// REDOC_BUNDLE (default infra/apidocs/node_modules/redoc/bundles/redoc.standalone.js,
// what GET /docs loads).
//
// It is meant to be left running: it serves loopback only unless told
// otherwise (POST /_local/invoke needs no key and can act as any tenant),
// bounds how long a client may take to send a request, and keeps serving
// when its DynamoDB Local dies: requests answer 503 while it restarts it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apidocs"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/infra/localstream"
	"github.com/agentplatform/workspaceapi/infra/stack"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/limitevents"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "localrun:", err)
		os.Exit(1)
	}
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// startDynamo starts the runner's own DynamoDB Local (a variable so a test
// can hold the instance and stop it).
var startDynamo = dynamolocal.Start

// checkAddr refuses an address other hosts could reach, unless allowRemote:
// the runner serves demo keys and a keyless /_local/invoke.
func checkAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("ADDR %q: %w", addr, err)
	}
	if allowRemote {
		return nil
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("ADDR %q is not a loopback address: the runner serves demo API keys and a keyless "+
		"POST /_local/invoke that can act as any tenant; set ALLOW_REMOTE=1 to serve other hosts anyway", addr)
}

// newServer is the runner's HTTP server. Its timeouts bound what a slow or
// idle client can hold: the headers (10 s), the whole request with a 10 MB
// body (1 min), the answer (API Gateway's 29 s wait and the write, 90 s) and
// an idle keep-alive connection (2 min).
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      90 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}

func run(ctx context.Context, out io.Writer) error {
	addr := env("ADDR", "127.0.0.1:3000")
	if err := checkAddr(addr, os.Getenv("ALLOW_REMOTE") == "1"); err != nil {
		return err
	}
	fixturePath := env("FIXTURE", "infra/fixtures/demo.json")
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	table := env("TABLE_NAME", "workspace-api-local")
	logger := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.SetDefault(logger)

	var own atomic.Pointer[dynamolocal.Instance] // nil when DYNAMODB_ENDPOINT names one
	if endpoint == "" {
		inst, err := startDynamo(ctx, dynamolocal.Options{})
		if err != nil {
			return err
		}
		own.Store(inst)
		defer func() { _ = own.Load().Stop() }()
		endpoint = inst.Endpoint
		logger.Info("DynamoDB Local started (in memory)", "endpoint", endpoint)
	}
	client, err := tableops.NewClient(ctx, endpoint)
	if err != nil {
		return err
	}
	store := dynamo.New(client, table)
	// The table and the fixture are set up through a client of their own:
	// a DynamoDB Local just started answers its first calls slowly (its JVM
	// warms up), slower than the production bounds the served requests keep.
	setupClient, err := tableops.NewClient(ctx, endpoint, dynamo.WithBounds(dynamolocal.LocalBounds))
	if err != nil {
		return err
	}

	f, err := fixture.ReadFile(fixturePath)
	if err != nil {
		return err
	}
	clock := workspace.SystemClock{}
	// The local EventBridge bus: the events function publishes limit events
	// to it, and GET /_local/events lists them.
	bus := &limitevents.Recorder{Logger: logger}
	deps := stack.Deps{
		Store: store, Mailer: &mail.Recorder{Logger: logger}, Events: bus, Clock: clock,
		IDs: workspace.SortableIDs{Clock: clock},
		// Webhooks to loopback http URLs are allowed locally (docs/webhooks.md).
		Config: config.Config{WebhookLocal: true},
	}
	// load creates the table and loads the fixture, whose events go
	// through the same code as IngestFunction.
	setup := deps
	setup.Store = dynamo.New(setupClient, table)
	load := func(ctx context.Context) (fixture.Summary, error) {
		if err := tableops.CreateTable(ctx, setupClient, table); err != nil {
			return fixture.Summary{}, err
		}
		summary, err := fixture.Load(ctx, setup.Store, f, clock.Now(), fixture.Options{Events: stack.EventApplier(setup)})
		if err != nil {
			return fixture.Summary{}, fmt.Errorf("load fixture %s: %w", fixturePath, err)
		}
		return summary, nil
	}
	summary, err := load(ctx)
	if err != nil {
		return err
	}
	logger.Info("fixture loaded", "file", fixturePath, "table", table, "summary", fmt.Sprintf("%+v", summary))

	tmpl, err := localgw.LoadTemplate(env("TEMPLATE", "template.yaml"))
	if err != nil {
		return err
	}
	fns := stack.Functions(deps)
	// The table's stream feeds the functions of the template's DynamoDB
	// events (the events function publishes the outbox), as Lambda's event
	// source mappings do; GET /_local/events lists the bus once they have
	// delivered what was written before it.
	feeds := &localstream.Feeds{}
	gw, err := localgw.New(tmpl, fns, stack.GatewayOptions(localgw.Options{Logger: logger, Events: feeds.Log(bus)}))
	if err != nil {
		return err
	}
	// Each function's cold start (the list functions read the cursor key)
	// runs before the first request, as Lambda's init phase does.
	gw.Prewarm()
	streams, err := localstream.NewClient(ctx, endpoint)
	if err != nil {
		return err
	}
	feedCtx, stopFeeds := context.WithCancel(ctx)
	feeds.Start(feedCtx, streams, table, tmpl, gw, logger)
	defer func() { stopFeeds(); feeds.Wait() }()

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// GET /docs: the API reference (infra/apidocs), beside the API's routes.
	srv := newServer(apidocs.Handler(env("REDOC_BUNDLE", apidocs.BundlePath), gw))
	printBanner(out, addr, tmpl, f)
	fmt.Fprintf(out, "listening on http://%s\n", addr)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(jsonErrors(ln)) }()
	if own.Load() != nil {
		// The supervisor ends before run returns, and so before the
		// instance it may have restarted is stopped.
		superCtx, stopSuper := context.WithCancel(ctx)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer stopSuper()
		wg.Go(func() { superviseDynamo(superCtx, logger, &own, load) })
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// superviseDynamo restarts the runner's own DynamoDB Local when it exits,
// on the same port, and loads the table and the fixture into it again. In
// between, the gateway keeps serving: every request that needs storage
// answers 503 with Retry-After, as the deployed API does while DynamoDB
// cannot be reached. The in-memory data of before is gone; the fixture's
// state comes back.
func superviseDynamo(ctx context.Context, logger *slog.Logger, inst *atomic.Pointer[dynamolocal.Instance],
	load func(context.Context) (fixture.Summary, error)) {
	for {
		cur := inst.Load()
		select {
		case <-ctx.Done():
			return
		case <-cur.Done():
		}
		logger.Error("DynamoDB Local exited; requests answer 503 until it is back, restarting it", "endpoint", cur.Endpoint)
		port, _ := strconv.Atoi(cur.Endpoint[strings.LastIndex(cur.Endpoint, ":")+1:])
		for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
			next, err := startDynamo(ctx, dynamolocal.Options{Port: port})
			if err == nil {
				if _, err = load(ctx); err == nil {
					inst.Store(next)
					logger.Info("DynamoDB Local is back; the table and the fixture were loaded again", "endpoint", next.Endpoint)
					break
				}
				_ = next.Stop()
			}
			if ctx.Err() != nil {
				return
			}
			logger.Error("DynamoDB Local could not be restarted yet; still answering 503", "error", err, "retryIn", wait)
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	}
}

// printBanner lists the routes, the fixture's API keys and a request to try.
func printBanner(out io.Writer, addr string, tmpl *localgw.Template, f fixture.File) {
	fmt.Fprintln(out, "\nRoutes (template.yaml):")
	for _, r := range tmpl.Routes() {
		fmt.Fprintf(out, "  %-7s %-45s -> %s\n", r.Method, r.Path, r.FunctionID)
	}
	fmt.Fprintln(out, "  POST    /_local/invoke/{FunctionLogicalId}            (no key; loopback tooling; Content-Type: application/json)")
	fmt.Fprintln(out, "  GET     /docs                                         (no key; the API reference, rendered by Redoc)")
	fmt.Fprintln(out, "  GET     /_local/events                                (no key; loopback only; the limit events published, oldest first)")
	fmt.Fprintln(out, "\nDemo API keys (from the fixture; only their hashes are stored):")
	var first, firstWS, firstAgent string
	for _, ws := range f.Workspaces {
		for _, k := range ws.APIKeys {
			state := ""
			switch {
			case k.Disabled:
				state = " [disabled]"
			case k.ExpiresAt != "":
				state = " [expires " + k.ExpiresAt + "]"
			}
			team := ""
			if k.TeamID != "" {
				team = " team=" + k.TeamID
			}
			fmt.Fprintf(out, "  %-10s %-44s %-28s scopes=%s%s%s\n", ws.ID, k.Key, k.Name, strings.Join(k.Scopes, ","), team, state)
			if first == "" && !k.Disabled && k.ExpiresAt == "" && len(k.Scopes) == 3 && k.TeamID == "" {
				first, firstWS = k.Key, ws.ID
				if len(ws.Agents) > 0 {
					firstAgent = ws.Agents[0].ID
				}
			}
		}
	}
	if first == "" {
		return
	}
	fmt.Fprintf(out, "\nTry:\n  curl -s -H 'Authorization: Bearer %s' http://%s/workspaceapi/invites\n", first, addr)
	if firstAgent != "" {
		fmt.Fprintf(out, "\nUsage as SQS delivers it to IngestFunction, then the agents' overview:\n"+
			"  curl -s -X POST http://%s/_local/invoke/IngestFunction -H 'Content-Type: application/json' -d "+
			`'{"Records": [{"messageId": "try-1", "eventSource": "aws:sqs", "body": "{\"type\": \"credits.used\", \"id\": \"try-'"$(date -u +%%Y%%m%%d%%H%%M%%S)"'\", \"workspaceId\": \"%s\", \"agentId\": \"%s\", \"credits\": 1, \"occurredAt\": \"'"$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)"'\"}"}]}'`+"\n"+
			"  curl -s -H 'Authorization: Bearer %s' 'http://%s/workspaceapi/agents?includeOverview=true'\n", addr, firstWS, firstAgent, first, addr)
	}
	fmt.Fprintf(out, "\nThe scheduler's run at the next 00:00 UTC:\n"+
		"  curl -s -X POST http://%s/_local/invoke/SchedulerFunction -H 'Content-Type: application/json' -d "+
		`'{"version": "0", "id": "try-tick", "detail-type": "Scheduled Event", "source": "aws.events", "account": "123456789012", "time": "'"$(date -u -d tomorrow +%%Y-%%m-%%dT00:00:00Z)"'", "region": "us-east-1", "resources": [], "detail": {}}'`+"\n\n", addr)
}
