package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/infra/stack"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// connections listens on a loopback port and counts the connections made to
// it, closing each at once. Its Endpoint reaches it through 0.0.0.0, which
// Linux routes to this machine but which is no loopback address: to the
// tool, a remote DynamoDB.
type connections struct {
	port     int
	accepted atomic.Int64
}

func listen(t *testing.T) *connections {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	c := &connections{port: ln.Addr().(*net.TCPAddr).Port}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.accepted.Add(1)
			conn.Close()
		}
	}()
	return c
}

func (c *connections) Endpoint() string { return fmt.Sprintf("http://0.0.0.0:%d", c.port) }

// writeFixture writes a fixture into a file of the test's own.
func writeFixture(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The demo fixture's keys are public: wsadmin loads them only into DynamoDB
// Local on a loopback address, and refuses any other target before it
// connects to anything.
func TestDemoKeysAreRefusedOutsideDynamoDBLocalBeforeAnyConnection(t *testing.T) {
	remote := listen(t)
	for _, tc := range []struct {
		name, env string
		flags     []string
	}{
		{"an endpoint that is not loopback", "", []string{"-endpoint", remote.Endpoint()}},
		{"a remote endpoint from the environment", remote.Endpoint(), nil},
		{"AWS itself (no endpoint)", "", nil},
		{"localhost, a name", "", []string{"-endpoint", "http://localhost:8000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DYNAMODB_ENDPOINT", tc.env)
			t.Setenv("AWS_REGION", "eu-west-1")
			start := time.Now()
			args := append(append([]string{"-table", "workspace-api-acme"}, tc.flags...), "load-fixture", demoFixture)
			code, stdout, stderr := runCLI(t, args...)
			if code != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q, want 1 and nothing", code, stdout)
			}
			for _, want := range []string{"well-known API keys", "loopback", "workspaces[0].apiKeys[0] (key_acme_admin)", "wsadmin workspace create"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q: %s", want, stderr)
				}
			}
			if workspace.ContainsKey(stderr) {
				t.Errorf("stderr shows a key: %s", stderr)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the refusal took %v: it waited on the network", d)
			}
		})
	}
	if n := remote.accepted.Load(); n != 0 {
		t.Fatalf("wsadmin connected %d times to the remote endpoint before refusing", n)
	}
	// The same command with a fixture of no well-known key does connect:
	// the count above would have seen a connection.
	fresh, err := workspace.NewKeyPlaintext()
	if err != nil {
		t.Fatal(err)
	}
	path := writeFixture(t, `{"workspaces": [{"id": "ws_real", "name": "Real", "seats": 2, "teamSettingsEnabled": false,
		"allowedEmailDomains": [], "defaultDailyCreditLimit": null,
		"apiKeys": [{"key": "`+fresh+`", "name": "Admin", "userId": "usr_owner", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false}],
		"members": [{"id": "usr_owner", "email": "owner@real.example", "name": "Owner", "role": "admin", "tags": [], "joinedAt": "2026-11-01T00:00:00Z"}],
		"teams": [], "agents": [], "invites": [], "events": []}]}`)
	t.Setenv("DYNAMODB_ENDPOINT", "")
	if code, _, stderr := runCLI(t, "-table", "workspace-api-acme", "-endpoint", remote.Endpoint(), "load-fixture", path); code != 1 ||
		strings.Contains(stderr, "well-known") {
		t.Errorf("a fixture without well-known keys: exit %d, stderr %s", code, stderr)
	}
	if remote.accepted.Load() == 0 {
		t.Error("a fixture without well-known keys did not reach the endpoint: the check above proves nothing")
	}
}

// smallFixture is a 3-seat workspace with one member, its admin.
const smallFixture = `{"workspaces": [{"id": "ws_small", "name": "Small", "seats": 3, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "apiKeys": [{"id": "key_small_admin", "key": "wk_smallAdminKey000000000000000000000000001", "name": "Admin", "userId": "usr_owner",
               "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}],
  "members": [{"id": "usr_owner", "email": "owner@small.example", "name": "Olive Owner", "role": "admin", "tags": [], "joinedAt": "2026-11-01T00:00:00Z"}],
  "teams": [], "invites": [], "events": [],
  "agents": [{"id": "agt_one", "name": "One", "description": "", "imageUrl": "", "teamId": null, "isPrivate": false,
              "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null,
              "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []}]}]}`

const smallAdmin = "wk_smallAdminKey000000000000000000000000001"

// The operator's case: a 3-seat workspace whose two pending invitations
// fill it. Reloading its fixture used to reset seatsUsed to 1, and two more
// invitations were accepted. Now the reload fails, listing what differs, and
// writes nothing: the counters stay as the service left them.
func TestReloadOverALiveWorkspaceNeverChangesItsCounters(t *testing.T) {
	env := apitest.New(t, smallFixture)
	ctx := context.Background()
	for _, email := range []string{"ann@small.example", "bob@small.example"} {
		if r := env.Do(t, "POST", "/workspaceapi/invites", smallAdmin, `{"email": "`+email+`", "role": "member"}`); r.Status != 201 {
			t.Fatalf("invite %s: %d %s", email, r.Status, r.Body)
		}
	}
	usage := fmt.Sprintf(`{"type": "credits.used", "id": "evt_reload_1", "workspaceId": "ws_small", "agentId": "agt_one", "credits": 7.5, "occurredAt": %q}`,
		workspace.FormatTime(env.Clock.Now()))
	if err := stack.EventApplier(stack.Deps{Store: env.Store, Clock: env.Clock}).Apply(ctx, json.RawMessage(usage)); err != nil {
		t.Fatal(err)
	}
	before, err := tableops.ScanItems(ctx, env.Store)
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := env.Store.Workspace(ctx, "ws_small"); w.SeatsUsed != 3 {
		t.Fatalf("seats used before the reload = %d, want 3 (1 member, 2 invitations)", w.SeatsUsed)
	}

	code, stdout, stderr := runCLI(t, "-table", env.Store.Table(), "-endpoint", dynamolocal.Endpoint(t),
		"load-fixture", writeFixture(t, smallFixture))
	if code != 1 || stdout != "" {
		t.Errorf("reload: exit %d, stdout %q, want 1 and nothing", code, stdout)
	}
	for _, want := range []string{"nothing was written", "ws_small: workspace: seatsUsed: table 3, fixture 1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("reload's stderr lacks %q:\n%s", want, stderr)
		}
	}
	after, err := tableops.ScanItems(ctx, env.Store)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Error("the refused reload changed the table")
	}
	rep, err := env.Store.CreditsReport(ctx, "ws_small", workspace.MonthKey(env.Clock.Now()), env.Clock.Now())
	if err != nil || rep.Total != 7.5 {
		t.Errorf("usage after the reload = %v (%v), want 7.5", rep.Total, err)
	}
	// The workspace is full, as it was.
	if r := env.Do(t, "POST", "/workspaceapi/invites", smallAdmin, `{"email": "cy@small.example", "role": "member"}`); r.Status != 403 {
		t.Errorf("a third invitation after the reload: %d %s, want 403 (no seat left)", r.Status, r.Body)
	}
}

// A reload over an unchanged workspace changes nothing and says so.
func TestReloadOfAnUnchangedWorkspaceChangesNothing(t *testing.T) {
	store, _ := dynamolocal.NewStore(t)
	path := writeFixture(t, smallFixture)
	cli := func(args ...string) (int, string, string) {
		return runCLI(t, append([]string{"-table", store.Table(), "-endpoint", dynamolocal.Endpoint(t)}, args...)...)
	}
	if code, stdout, stderr := cli("load-fixture", path); code != 0 || !strings.Contains(stdout, "1 workspaces, 1 members") {
		t.Fatalf("first load: exit %d, %s%s", code, stdout, stderr)
	}
	before, err := tableops.ScanItems(context.Background(), store)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli("load-fixture", path)
	if code != 0 || !strings.Contains(stdout, "0 workspaces") || !strings.Contains(stdout, "1 workspaces already loaded, left unchanged") {
		t.Errorf("reload: exit %d, %s%s", code, stdout, stderr)
	}
	if after, _ := tableops.ScanItems(context.Background(), store); !reflect.DeepEqual(before, after) {
		t.Error("an unchanged reload changed the table")
	}
}

var adminLine = regexp.MustCompile(`(?m)^admin: (\S+)$`)

// workspaceItems returns the items of workspace ws in the table but its API
// keys and their count: what an export carries.
func workspaceItems(t *testing.T, store *dynamo.Store, ws string) []map[string]types.AttributeValue {
	t.Helper()
	items, err := tableops.WorkspaceItems(context.Background(), store, ws,
		"workspace", "member", "emailClaim", "team", "teamName", "teamMember", "agent", "invitation")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) < 3 {
		t.Fatalf("workspace %s has %d items, want at least its own, its member's and the e-mail claim", ws, len(items))
	}
	return items
}

func TestWorkspaceCreateThenExportRoundTripsThroughLoadFixture(t *testing.T) {
	ctx := context.Background()
	endpoint := dynamolocal.Endpoint(t)
	live, _ := dynamolocal.NewStore(t)
	empty, _ := dynamolocal.NewStore(t)
	cli := func(table string, args ...string) (int, string, string) {
		return runCLI(t, append([]string{"-table", table, "-endpoint", endpoint}, args...)...)
	}
	create := []string{"workspace", "create", "-id", "ws_new", "-name", "New Co", "-seats", "5",
		"-domains", "new.example, partners.example", "-team-settings", "-default-daily-limit", "25",
		"-admin-id", "usr_olive", "-admin-email", "olive@new.example", "-admin-name", "Olive Owner"}
	before := time.Now().UTC()
	code, stdout, stderr := cli(live.Table(), create...)
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	id, plaintext := issued(t, stdout)
	if m := adminLine.FindStringSubmatch(stdout); m == nil || m[1] != "usr_olive" || !strings.Contains(stdout, "workspace: ws_new\n") {
		t.Errorf("create's stdout: %q", stdout)
	}
	if strings.Contains(stderr, plaintext) || !strings.Contains(stderr, "only its hash is stored") {
		t.Errorf("create's stderr: %s", stderr)
	}
	k, err := live.APIKey(ctx, workspace.HashKey(plaintext))
	if err != nil {
		t.Fatalf("the admin key is not stored by its hash: %v", err)
	}
	if k.ID != id || k.WorkspaceID != "ws_new" || k.UserID != "usr_olive" || len(k.Scopes) != 3 || k.ExpiresAt == nil ||
		k.ExpiresAt.Sub(before) < 90*24*time.Hour-time.Minute || k.ExpiresAt.Sub(before) > 90*24*time.Hour+time.Minute {
		t.Errorf("admin key = %+v", k)
	}
	w, err := live.Workspace(ctx, "ws_new")
	if err != nil || w.Name != "New Co" || w.Seats != 5 || w.SeatsUsed != 1 || !w.TeamSettingsEnabled ||
		!reflect.DeepEqual(w.AllowedEmailDomains, []string{"new.example", "partners.example"}) ||
		w.DefaultDailyCreditLimit == nil || *w.DefaultDailyCreditLimit != 25 {
		t.Errorf("workspace = %+v, %v", w, err)
	}
	if m, err := live.Member(ctx, "ws_new", "usr_olive"); err != nil || m.Role != workspace.RoleAdmin || m.Email != "olive@new.example" {
		t.Errorf("admin member = %+v, %v", m, err)
	}

	// The workspace and its admin are created as the platform's
	// provisioning events create them, at version 0, recorded by the
	// platform actor (the audit log has no operator actor).
	entries, _, err := live.AuditPage(ctx, "ws_new", workspace.AuditFilter{}, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	actions := map[workspace.AuditAction]bool{}
	for _, e := range entries {
		if e.Actor != workspace.PlatformActor() {
			t.Errorf("entry %s by %+v, want the platform", e.Action, e.Actor)
		}
		actions[e.Action] = true
	}
	if len(entries) != 3 || !actions[workspace.ActionWorkspaceCreated] || !actions[workspace.ActionMemberAdded] || !actions[workspace.ActionKeyCreated] {
		t.Errorf("audit log: %v, want workspace.created, member.added and key.created", actions)
	}
	if rec, err := live.ProvisionedVersion(ctx, "ws_new", "workspace", "ws_new"); err != nil || rec.Version != 0 {
		t.Errorf("the workspace's provisioning record: %+v, %v; want version 0", rec, err)
	}

	// Create refuses an existing workspace, and writes nothing.
	snap, err := tableops.ScanItems(ctx, live)
	if err != nil {
		t.Fatal(err)
	}
	again := append(slicesClone(create[:4]), "-name", "Other", "-seats", "9", "-admin-id", "usr_x", "-admin-email", "x@new.example", "-admin-name", "X")
	if code, stdout, stderr := cli(live.Table(), again...); code != 1 || stdout != "" ||
		!strings.Contains(stderr, "workspace ws_new already exists") || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("create over an existing workspace: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if now, _ := tableops.ScanItems(ctx, live); !reflect.DeepEqual(snap, now) {
		t.Error("a refused create changed the table")
	}

	// Export, load into an empty table, export again: the same fixture and
	// the same items, API keys aside.
	code, exported, stderr := cli(live.Table(), "workspace", "export", "-workspace", "ws_new")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if workspace.ContainsKey(exported) || strings.Contains(exported, k.Hash) || strings.Contains(exported, id) {
		t.Errorf("the export holds a key, its hash or its id:\n%s", exported)
	}
	f, err := fixture.Parse([]byte(exported))
	if err != nil {
		t.Fatalf("the export is no valid fixture: %v\n%s", err, exported)
	}
	if len(f.Workspaces) != 1 || len(f.Workspaces[0].APIKeys) != 0 || len(f.Workspaces[0].Members) != 1 {
		t.Errorf("exported = %+v", f)
	}
	file := filepath.Join(t.TempDir(), "ws_new.json")
	if code, _, stderr := cli(live.Table(), "workspace", "export", "-workspace", "ws_new", "-o", file); code != 0 {
		t.Fatalf("export -o: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(live.Table(), "workspace", "export", "-workspace", "ws_new", "-o", file); code != 1 ||
		!strings.Contains(stderr, "file exists") {
		t.Errorf("export over an existing file: exit %d, stderr %s", code, stderr)
	}
	if code, stdout, stderr := cli(empty.Table(), "load-fixture", file); code != 0 || !strings.Contains(stdout, "1 workspaces, 1 members") {
		t.Fatalf("load the export: exit %d: %s%s", code, stdout, stderr)
	}
	if code, reexported, stderr := cli(empty.Table(), "workspace", "export", "-workspace", "ws_new"); code != 0 || reexported != exported {
		t.Errorf("export of the loaded copy (exit %d, %s):\n%s\nwant\n%s", code, stderr, reexported, exported)
	}
	if got, want := workspaceItems(t, empty, "ws_new"), workspaceItems(t, live, "ws_new"); !reflect.DeepEqual(got, want) {
		t.Errorf("the loaded copy's items differ from the live workspace's:\n%v\nwant\n%v", got, want)
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func TestWorkspaceCreateTakesItsSettingsFromAFile(t *testing.T) {
	store, _ := dynamolocal.NewStore(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"name": "Filed", "seats": 2, "teamSettingsEnabled": false,
		"allowedEmailDomains": [], "defaultDailyCreditLimit": null}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"-table", store.Table(), "-endpoint", dynamolocal.Endpoint(t), "workspace", "create", "-id", "ws_filed",
		"-admin-id", "usr_a", "-admin-email", "a@filed.example", "-admin-name", "A"}
	if code, _, stderr := runCLI(t, append(slicesClone(base), "-settings", settings, "-seats", "4")...); code != 2 ||
		!strings.Contains(stderr, "not both (-seats)") {
		t.Errorf("-settings with -seats: exit %d, stderr %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, append(slicesClone(base), "-settings", settings)...); code != 0 {
		t.Fatalf("create -settings: exit %d: %s", code, stderr)
	}
	if w, err := store.Workspace(context.Background(), "ws_filed"); err != nil || w.Name != "Filed" || w.Seats != 2 || w.TeamSettingsEnabled {
		t.Errorf("workspace = %+v, %v", w, err)
	}
}
