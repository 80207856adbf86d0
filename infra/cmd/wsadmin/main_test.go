package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

const demoFixture = "../../fixtures/demo.json"

// runCLI runs wsadmin with args and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsageErrors(t *testing.T) {
	t.Setenv("TABLE_NAME", "")
	t.Setenv("DYNAMODB_ENDPOINT", "")
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no command", nil, "no command given"},
		{"unknown command", []string{"drop-table"}, `unknown command "drop-table"`},
		{"unknown global flag", []string{"-tabel", "t", "create-table"}, "flag provided but not defined: -tabel"},
		{"no table", []string{"create-table"}, "no table: give -table NAME or set TABLE_NAME"},
		{"create-table argument", []string{"-table", "t", "create-table", "extra"}, `create-table: unexpected argument "extra"`},
		{"load-fixture without file", []string{"-table", "t", "load-fixture"}, "load-fixture: give exactly one FILE"},
		{"load-fixture without table", []string{"load-fixture", demoFixture}, "no table"},
		{"load-fixture with no retention", []string{"-table", "t", "load-fixture", "-retention-days", "0", demoFixture}, "-retention-days must be at least 1"},
		{"keys without subcommand", []string{"-table", "t", "keys"}, "keys: give a subcommand"},
		{"keys unknown subcommand", []string{"-table", "t", "keys", "delete"}, `keys: unknown subcommand "delete"`},
		{"issue without workspace", []string{"-table", "t", "keys", "issue", "-user", "u", "-name", "n", "-scopes", "read"},
			"keys issue: -workspace is required"},
		{"issue without user", []string{"-table", "t", "keys", "issue", "-workspace", "w", "-name", "n", "-scopes", "read"},
			"keys issue: -user is required"},
		{"issue without name", []string{"-table", "t", "keys", "issue", "-workspace", "w", "-user", "u", "-scopes", "read"},
			"keys issue: -name is required"},
		{"issue without scopes", []string{"-table", "t", "keys", "issue", "-workspace", "w", "-user", "u", "-name", "n"},
			"keys issue: -scopes is required"},
		{"issue bad scope", []string{"-table", "t", "keys", "issue", "-workspace", "w", "-user", "u", "-name", "n", "-scopes", "read,admin"},
			`-scopes: "admin" is not one of read, write, invite`},
		{"issue expires and days", []string{"-table", "t", "keys", "issue", "-workspace", "w", "-user", "u", "-name", "n",
			"-scopes", "read", "-days", "3", "-expires", "2099-01-01T00:00:00Z"}, "give -expires or -days, not both"},
		{"issue bad expires", []string{"-table", "t", "keys", "issue", "-workspace", "w", "-user", "u", "-name", "n",
			"-scopes", "read", "-expires", "tomorrow"}, `-expires "tomorrow" is not an RFC 3339 timestamp`},
		{"issue past expires", []string{"-table", "t", "keys", "issue", "-workspace", "w", "-user", "u", "-name", "n",
			"-scopes", "read", "-expires", "2020-01-01T00:00:00Z"}, "is not in the future"},
		{"issue negative days", []string{"-table", "t", "keys", "issue", "-workspace", "w", "-user", "u", "-name", "n",
			"-scopes", "read", "-days", "-1"}, "-days must be positive"},
		{"issue bad days", []string{"-table", "t", "keys", "issue", "-days", "soon"}, `invalid value "soon" for flag -days`},
		{"list without workspace", []string{"-table", "t", "keys", "list"}, "keys list: -workspace is required"},
		{"disable without id", []string{"-table", "t", "keys", "disable", "-workspace", "w"}, "keys disable: -id is required"},
		{"enable without workspace", []string{"-table", "t", "keys", "enable", "-id", "k"}, "keys enable: -workspace is required"},
		{"rotate without id", []string{"-table", "t", "keys", "rotate", "-workspace", "w"}, "keys rotate: -id is required"},
		{"rotate argument", []string{"-table", "t", "keys", "rotate", "-workspace", "w", "-id", "k", "now"}, `unexpected argument "now"`},
		{"workspace without subcommand", []string{"-table", "t", "workspace"}, "workspace: give a subcommand: create or export"},
		{"workspace unknown subcommand", []string{"-table", "t", "workspace", "delete"}, `workspace: unknown subcommand "delete"`},
		{"create without id", []string{"-table", "t", "workspace", "create", "-name", "X", "-seats", "2"}, "workspace create: -id is required"},
		{"create without admin", []string{"-table", "t", "workspace", "create", "-id", "ws_x", "-name", "X", "-seats", "2"},
			"workspace create: -admin-id is required"},
		{"create without name", []string{"-table", "t", "workspace", "create", "-id", "ws_x", "-admin-id", "u", "-admin-email", "u@x.example", "-admin-name", "U", "-seats", "2"}, "workspace create: -name is required"},
		{"create without seats", []string{"-table", "t", "workspace", "create", "-id", "ws_x", "-admin-id", "u", "-admin-email", "u@x.example", "-admin-name", "U", "-name", "X"}, "at least 1 seat"},
		{"create with a bad limit", []string{"-table", "t", "workspace", "create", "-id", "ws_x", "-admin-id", "u", "-admin-email", "u@x.example", "-admin-name", "U", "-name", "X", "-seats", "2", "-default-daily-limit", "lots"},
			`-default-daily-limit "lots" is not a number`},
		{"create with a year-long key", []string{"-table", "t", "workspace", "create", "-id", "ws_x", "-admin-id", "u", "-admin-email", "u@x.example", "-admin-name", "U", "-name", "X", "-seats", "2", "-days", "400"}, "-days must be 1 to 365"},
		{"create with a bad e-mail", []string{"-table", "t", "workspace", "create", "-id", "ws_x", "-admin-id", "u", "-admin-email", "nope",
			"-admin-name", "U", "-name", "X", "-seats", "2"}, "workspaces[0].members[0].email"},
		{"create without table", []string{"workspace", "create", "-id", "ws_x", "-admin-id", "u", "-admin-email", "u@x.example", "-admin-name", "U", "-name", "X", "-seats", "2"}, "no table"},
		{"export without workspace", []string{"-table", "t", "workspace", "export"}, "workspace export: -workspace is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr: %s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "Usage: wsadmin") {
				t.Errorf("stderr = %s\nwant it to contain %q and the usage", stderr, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"-table", "t", "keys", "issue", "-h"}} {
		code, stdout, _ := runCLI(t, args...)
		if code != 0 || !strings.Contains(stdout, "keys rotate -workspace WS -id KEY_ID") {
			t.Errorf("%v: exit %d, stdout %q", args, code, stdout)
		}
	}
}

func TestLoadFixtureErrorsBeforeConnecting(t *testing.T) {
	code, _, stderr := runCLI(t, "-table", "t", "-endpoint", "http://127.0.0.1:1", "load-fixture", "testdata/missing.json")
	if code != 1 || !strings.Contains(stderr, "missing.json") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

var (
	idLine  = regexp.MustCompile(`(?m)^id: (key_[0-9A-Z]{26})$`)
	keyLine = regexp.MustCompile(`(?m)^key: (wk_[0-9A-Za-z]{40})$`)
)

// issued returns the id and plaintext an issue or rotate printed.
func issued(t *testing.T, stdout string) (id, plaintext string) {
	t.Helper()
	idm, keym := idLine.FindStringSubmatch(stdout), keyLine.FindStringSubmatch(stdout)
	if idm == nil || keym == nil {
		t.Fatalf("no id and key in output: %q", stdout)
	}
	// Key ids are logged: an issued key's id is random, and holds no piece
	// of the key's hash that would let a log reader test guesses offline.
	hash := workspace.HashKey(keym[1])
	for i := 0; i+8 <= len(hash); i++ {
		if strings.Contains(strings.ToLower(idm[1]), hash[i:i+8]) {
			t.Fatalf("issued key id %s holds %s, a piece of the key's hash", idm[1], hash[i:i+8])
		}
	}
	return idm[1], keym[1]
}

func TestKeysAgainstDynamoDBLocal(t *testing.T) {
	endpoint := dynamolocal.Endpoint(t)
	t.Setenv("TABLE_NAME", "")
	t.Setenv("DYNAMODB_ENDPOINT", endpoint)
	var b [6]byte
	_, _ = rand.Read(b[:])
	table := "wsadmin-" + hex.EncodeToString(b[:])
	client := dynamolocal.NewClient(t, nil)
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	store := dynamo.New(client, table)
	ctx := context.Background()
	cli := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, append([]string{"-table", table}, args...)...)
	}
	mustRun := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := cli(args...)
		if code != 0 {
			t.Fatalf("wsadmin %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}

	// Before the table exists, commands say how to create it.
	if code, _, stderr := cli("keys", "list", "-workspace", "ws_acme"); code != 1 || !strings.Contains(stderr, "wsadmin create-table") {
		t.Errorf("list without a table: exit %d, stderr %s", code, stderr)
	}
	// -endpoint overrides $DYNAMODB_ENDPOINT.
	if code, _, _ := runCLI(t, "-table", table, "-endpoint", "http://127.0.0.1:1", "keys", "list", "-workspace", "w"); code != 1 {
		t.Errorf("unreachable -endpoint: exit %d, want 1", code)
	}
	if out := mustRun("create-table"); !strings.Contains(out, "is ready") {
		t.Errorf("create-table: %q", out)
	}
	mustRun("create-table") // an existing table is fine
	if out := mustRun("load-fixture", demoFixture); !strings.Contains(out, "2 workspaces, 12 members") {
		t.Errorf("load-fixture: %q", out)
	}

	// issue
	before := time.Now().UTC()
	code, stdout, stderr := cli("keys", "issue", "-workspace", "ws_acme", "-user", "usr_linus", "-name", "CI deploy key",
		"-scopes", "read,write,read", "-team", "team_platform", "-days", "30")
	if code != 0 {
		t.Fatalf("issue: exit %d: %s", code, stderr)
	}
	id, plaintext := issued(t, stdout)
	if strings.Contains(stderr, plaintext) || !strings.Contains(stderr, "only its hash is stored") {
		t.Errorf("issue stderr = %s", stderr)
	}
	k, err := store.APIKey(ctx, workspace.HashKey(plaintext))
	if err != nil {
		t.Fatalf("issued key not stored by hash: %v", err)
	}
	if k.ID != id || k.WorkspaceID != "ws_acme" || k.UserID != "usr_linus" || k.TeamID != "team_platform" ||
		!slices.Equal(k.Scopes, []workspace.Scope{"read", "write"}) || k.Disabled || k.ExpiresAt == nil ||
		k.ExpiresAt.Sub(before) < 30*24*time.Hour-time.Minute || k.ExpiresAt.Sub(before) > 30*24*time.Hour+time.Minute {
		t.Errorf("issued key = %+v", k)
	}
	// The owner must be a member of that very workspace, the team must exist.
	for _, args := range [][]string{
		{"-workspace", "ws_acme", "-user", "usr_nobody", "-name", "x", "-scopes", "read"},
		{"-workspace", "ws_acme", "-user", "usr_hank", "-name", "x", "-scopes", "read"},
	} {
		code, stdout, stderr := cli(append([]string{"keys", "issue"}, args...)...)
		if code != 1 || !strings.Contains(stderr, "is not a member of workspace ws_acme") || stdout != "" {
			t.Errorf("issue %v: exit %d, stdout %q, stderr %s", args, code, stdout, stderr)
		}
	}
	if code, _, stderr := cli("keys", "issue", "-workspace", "ws_acme", "-user", "usr_ada", "-name", "x", "-scopes", "read",
		"-team", "team_nope"); code != 1 || !strings.Contains(stderr, "team team_nope does not exist") {
		t.Errorf("issue for an unknown team: exit %d, stderr %s", code, stderr)
	}

	// list
	list := mustRun("keys", "list", "-workspace", "ws_acme")
	for _, want := range []string{"ID", "DISABLED", id, "CI deploy key", "usr_linus", "read,write", "team_platform",
		"Acme expired key", "(expired)", "never"} {
		if !strings.Contains(list, want) {
			t.Errorf("list lacks %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, "wk_") || strings.Contains(list, k.Hash) || strings.Contains(list, k.Hash[:16]) {
		t.Errorf("list shows a key or hash:\n%s", list)
	}
	if n := strings.Count(list, "\n"); n != 1+8+1 {
		t.Errorf("list has %d lines, want a header and 9 keys:\n%s", n, list)
	}
	globex := mustRun("keys", "list", "-workspace", "ws_globex")
	if strings.Contains(globex, id) || strings.Count(globex, "\n") != 2 {
		t.Errorf("ws_globex's list:\n%s", globex)
	}

	// disable, enable
	if out := mustRun("keys", "disable", "-workspace", "ws_acme", "-id", id); out != "disabled "+id+"\n" {
		t.Errorf("disable: %q", out)
	}
	if k, _ := store.APIKey(ctx, k.Hash); !k.Disabled {
		t.Error("key not disabled")
	}
	mustRun("keys", "enable", "-workspace", "ws_acme", "-id", id)
	if k, _ := store.APIKey(ctx, k.Hash); k.Disabled {
		t.Error("key not enabled again")
	}
	// Another workspace's key id is not found.
	if code, _, stderr := cli("keys", "disable", "-workspace", "ws_globex", "-id", id); code != 1 || !strings.Contains(stderr, "not found") {
		t.Errorf("disable across workspaces: exit %d, stderr %s", code, stderr)
	}

	// rotate: an expiring key needs -days.
	if code, _, stderr := cli("keys", "rotate", "-workspace", "ws_acme", "-id", id); code != 2 || !strings.Contains(stderr, "give -days N") {
		t.Errorf("rotate without -days: exit %d, stderr %s", code, stderr)
	}
	stdout = mustRun("keys", "rotate", "-workspace", "ws_acme", "-id", id, "-days", "7")
	newID, newPlain := issued(t, stdout)
	if newID == id || newPlain == plaintext || !strings.Contains(stdout, "disabled "+id) {
		t.Errorf("rotate output: %q", stdout)
	}
	nk, err := store.APIKey(ctx, workspace.HashKey(newPlain))
	if err != nil {
		t.Fatal(err)
	}
	if nk.ID != newID || nk.UserID != "usr_linus" || nk.TeamID != "team_platform" || nk.Name != "CI deploy key" ||
		!slices.Equal(nk.Scopes, k.Scopes) || nk.Disabled || nk.ExpiresAt == nil || nk.ExpiresAt.Sub(before) > 7*24*time.Hour+time.Minute {
		t.Errorf("rotated key = %+v", nk)
	}
	if old, _ := store.APIKey(ctx, k.Hash); !old.Disabled {
		t.Error("rotate left the old key enabled")
	}
	// A key that never expires is replaced by one that never expires.
	admin := "key_acme_admin" // the demo fixture names its keys' ids
	stdout = mustRun("keys", "rotate", "-workspace", "ws_acme", "-id", admin)
	_, adminPlain := issued(t, stdout)
	if ak, err := store.APIKey(ctx, workspace.HashKey(adminPlain)); err != nil || ak.ExpiresAt != nil ||
		!slices.Equal(ak.Scopes, []workspace.Scope{"read", "write", "invite"}) || ak.UserID != "usr_ada" {
		t.Errorf("rotated admin key = %+v, %v", ak, err)
	}
	if code, _, stderr := cli("keys", "rotate", "-workspace", "ws_acme", "-id", "key_nope", "-days", "1"); code != 1 ||
		!strings.Contains(stderr, "API key key_nope not found in workspace ws_acme") {
		t.Errorf("rotate unknown: exit %d, stderr %s", code, stderr)
	}
}
