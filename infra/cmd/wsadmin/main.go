// Command wsadmin is the operators' tool for the Workspace Administration API's
// DynamoDB table, on a deployed tenant or on DynamoDB Local: it creates the
// table, loads fixtures, creates and exports workspaces, and issues, lists,
// disables, enables and rotates API keys. load-fixture never writes over an
// item: each Put is conditional on the item's absence; workspace create makes
// the workspace and its admin through the provisioning events' code, as
// creations that fail on an entity that exists.
// Keys are stored only as hashes; an issued key's plaintext is printed once
// and never again. It also prints the commands that register a
// workspace's usage identifier in a stack's usage plan.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const usage = `Usage: wsadmin [-table NAME] [-endpoint URL] [-region R] <command>

Commands:
  create-table
        create the single table (nothing happens when it exists) and wait until it is active
  load-fixture [-retention-days N] FILE
        load a fixture (workspaces, members, teams, agents, invitations, API keys), then
        apply its events (usage, chats, diary entries, metric records) through the ingest
        function's code; -retention-days is the stack's InviteRetentionDays (default 180):
        how long expired invitations stay listed. It never writes over an item: a
        workspace already in the table is left as it is when every item equals the
        fixture's (its events are not applied again), and otherwise the load fails,
        listing the differences, before writing anything. A fixture holding well-known
        keys (the demo's, any published in this repository, any made by hand) loads only
        into DynamoDB Local: -endpoint (or $DYNAMODB_ENDPOINT) on a loopback IP address
  workspace create -id WS (-name NAME -seats N [-domains D1,D2] [-team-settings]
                   [-default-daily-limit X] | -settings FILE)
                   -admin-id USER -admin-email EMAIL -admin-name NAME [-key-name NAME] [-days N]
        create a workspace, its first admin member and the admin's API key (read, write,
        invite; expires in -days, default 90); prints the key once. Fails, writing
        nothing, when the workspace exists. FILE holds {"name", "seats",
        "teamSettingsEnabled", "allowedEmailDomains", "defaultDailyCreditLimit"}
  workspace export -workspace WS [-o FILE]
        write the workspace as a fixture that load-fixture takes back: settings, members,
        teams, agents, invitations; no API keys, usage or running states. -o never
        writes over an existing file
  keys issue -workspace WS -user USER -name NAME -scopes read,write,invite [-team TEAM] [-expires RFC3339 | -days N]
        issue an API key acting as member USER; prints its plaintext once, with its id
  keys list -workspace WS
        id, name, user, scopes, team, expiry and state of the workspace's keys
  keys disable -workspace WS -id KEY_ID
  keys enable -workspace WS -id KEY_ID
  keys rotate -workspace WS -id KEY_ID [-days N]
        issue a key with the same owner, scopes and team, print it once, then
        disable the old one; -days is needed when the old key expires
  usage-key -workspace WS (-stack NAME | -usage-plan ID)
        print the workspace's usage identifier and the aws commands that register
        it in the stack's default usage plan (needed once per workspace and stack,
        or the API answers 403 to all its requests); reads no table

  redrive-plan [-in FILE]
        read the output of aws sqs receive-message on the ingest dead-letter queue (stdin
        by default) and print, per message, "move" with its id when it may go back to
        the ingest queue without counting twice, or "hold" with its id and why (usage
        older than the event markers' window less two days; a body the function refuses);
        reads no table
Flags:
  -table NAME     the table (default $TABLE_NAME)
  -endpoint URL   DynamoDB endpoint, e.g. http://127.0.0.1:8000 for DynamoDB Local
                  (default $DYNAMODB_ENDPOINT; empty: AWS)
  -region R       AWS region (default: the AWS configuration's); usage-key passes it
                  to the aws commands it prints
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a mistake in the command line: exit status 2, with the usage.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// run runs one wsadmin command line (without the program name) and returns its
// exit status: 0 on success, 1 when the command failed, 2 for a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "wsadmin: %v\n\n%s", err, usage)
		return 2
	default:
		fmt.Fprintf(stderr, "wsadmin: %v\n", explain(err))
		return 1
	}
}

// app holds the global flags and the output of one run.
type app struct {
	table, endpoint, region string
	stdout, stderr          io.Writer
	now                     func() time.Time
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := &app{stdout: stdout, stderr: stderr, now: func() time.Time { return time.Now().UTC() }}
	fs := newFlagSet("wsadmin")
	fs.StringVar(&a.table, "table", os.Getenv("TABLE_NAME"), "")
	fs.StringVar(&a.endpoint, "endpoint", os.Getenv("DYNAMODB_ENDPOINT"), "")
	fs.StringVar(&a.region, "region", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usagef("no command given")
	}
	switch cmd, rest := rest[0], rest[1:]; cmd {
	case "create-table":
		return a.createTable(ctx, rest)
	case "load-fixture":
		return a.loadFixture(ctx, rest)
	case "keys":
		return a.keys(ctx, rest)
	case "workspace":
		return a.workspace(ctx, rest)
	case "usage-key":
		return a.usageKey(rest)
	case "migrate":
		return a.migrate(ctx, rest)
	case "redrive-plan":
		return a.redrivePlan(rest)
	case "help":
		return flag.ErrHelp
	default:
		return usagef("unknown command %q", cmd)
	}
}

// newFlagSet returns a flag set that reports errors instead of printing them.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses args into fs, turning its errors into usage errors.
func parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usagef("%s: %v", fs.Name(), err)
}

// noArgs reports the positional arguments a command does not take.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// operatorBounds are wsadmin's storage bounds. The API's (dynamo.ProductionBounds)
// are sized to answer within API Gateway's wait; an operator's load, export or
// migration has no such wait, and a batch read of a whole fixture's items can
// take longer than 1.5 s on a busy table or a loaded machine. A call still
// ends: nothing waits forever.
var operatorBounds = dynamo.Bounds{Attempt: 15 * time.Second, Call: 60 * time.Second}

// client returns a DynamoDB client for the global flags; it needs a table name.
func (a *app) client(ctx context.Context) (*dynamodb.Client, error) {
	if a.table == "" {
		return nil, usagef("no table: give -table NAME or set TABLE_NAME")
	}
	opts := []func(*dynamodb.Options){dynamo.WithBounds(operatorBounds)}
	if a.region != "" {
		region := a.region
		opts = append(opts, func(o *dynamodb.Options) { o.Region = region })
	}
	return tableops.NewClient(ctx, a.endpoint, opts...)
}

// store returns the store over the table of the global flags.
func (a *app) store(ctx context.Context) (*dynamo.Store, error) {
	client, err := a.client(ctx)
	if err != nil {
		return nil, err
	}
	return dynamo.New(client, a.table), nil
}

func (a *app) createTable(ctx context.Context, args []string) error {
	fs := newFlagSet("create-table")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	client, err := a.client(ctx)
	if err != nil {
		return err
	}
	if err := tableops.CreateTable(ctx, client, a.table); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "table %s is ready\n", a.table)
	return nil
}

func (a *app) loadFixture(ctx context.Context, args []string) error {
	fs := newFlagSet("load-fixture")
	defaultDays := int(workspace.DefaultInviteRetention / (24 * time.Hour))
	days := fs.Int("retention-days", defaultDays, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("load-fixture: give exactly one FILE")
	}
	if *days < 1 {
		return usagef("load-fixture: -retention-days must be at least 1")
	}
	if a.table == "" {
		return usagef("no table: give -table NAME or set TABLE_NAME")
	}
	f, err := fixture.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	store, err := a.store(ctx)
	if err != nil {
		return err
	}
	// Events go through the ingest function's code path, straight to the
	// table (not through the queue).
	events := ingest.NewApplier(store, ingest.StoredAgentData{Store: store, Clock: clockFunc(a.now)}, clockFunc(a.now))
	sum, err := fixture.Load(ctx, store, f, a.now(), fixture.Options{
		Events: events, InviteRetention: time.Duration(*days) * 24 * time.Hour,
	})
	if err != nil {
		return fmt.Errorf("load %s: %w", fs.Arg(0), err)
	}
	fmt.Fprintf(a.stdout, "loaded %s into %s: %v\n", fs.Arg(0), a.table, sum)
	return nil
}

// clockFunc is a workspace.Clock reading the time from a function.
type clockFunc func() time.Time

// Now returns the function's time.
func (f clockFunc) Now() time.Time { return f() }

// explain adds what to do to errors an operator can fix.
func explain(err error) error {
	var missing *types.ResourceNotFoundException
	if errors.As(err, &missing) {
		return fmt.Errorf("%w (does the table exist? create it with: wsadmin create-table)", err)
	}
	return err
}
