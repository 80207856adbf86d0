package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// A few rows of every kind but size (whose arm64 builds would cost `make
// test` a cross-compilation) run with tiny counts, so the command keeps
// working; the full table is `make bench`.
func TestASmallTableRunsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bootstraps and runs them")
	}
	s, err := parseFlags([]string{
		"-only", "cold:AuthorizerFunction,init:AuthorizerFunction,warm:GET /workspaceapi/members,handler:GET /workspaceapi/members,trips:GET /workspaceapi/members,mem:MembersFunction",
		"-runs", "1", "-requests", "3", "-warmup", "1", "-agents", "100", "-invites", "1", "-members", "5", "-stopped", "0", "-chat-mb", "1",
		"-dynamodb-endpoint", dynamolocal.Endpoint(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	var out, progress bytes.Buffer
	start := time.Now()
	if err := run(t.Context(), s, &out, &progress); err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	t.Logf("in %s:\n%s\n%s", time.Since(start).Round(time.Millisecond), progress.String(), out.String())
	table := out.String()
	for _, want := range []string{
		"| measure | function / endpoint | measured | compared with | target | met | reproduce with |",
		"| cold start (process start → first response, lambdaemu) | AuthorizerFunction |",
		"same-calls", "hello-world",
		"| init (process start → first request for an event, lambdaemu) | AuthorizerFunction |", "≤ 1.5x hello-world init",
		"| warm latency through the local gateway (make run) | GET /workspaceapi/members |",
		"| warm latency of the handler alone (its Invoke of the gateway's event, in-process) | GET /workspaceapi/members |", "p50 ≤ 1.15x raw",
		"| DynamoDB round trips, and in turn (critical path) | GET /workspaceapi/members | 1, 1 in turn (Query; GET /workspaceapi/members) | budget 1, 1 in turn: one Query (shared/members tests) | ≤ budgets | yes |",
		"| peak memory (VmHWM) under the heaviest request | MembersFunction |",
		"`make bench ONLY='cold:AuthorizerFunction' BENCH_FLAGS='-agents=100 -chat-mb=1 -invites=1 -members=5 -requests=3 -runs=1 -stopped=0 -warmup=1'`",
		"6 rows in",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
}

func TestRowsAreSelectedByIDKindOrPrefix(t *testing.T) {
	s := settings{only: []string{"cold:CreditsFunction", "mem", "trips:GET *"}}
	for id, want := range map[string]bool{
		"cold:CreditsFunction":              true,
		"cold:CreditsFunctionX":             false,
		"cold:AgentsFunction":               false,
		"mem:ChatsFunction":                 true,
		"trips:GET /workspaceapi/credits":   true,
		"trips:POST /workspaceapi/teams":    false,
		"warm:GET /workspaceapi/credits":    false,
		"size:CreditsFunction":              false,
		"trips:AuthorizerFunction":          false,
		"memory:CreditsFunction":            false,
		"cold:CreditsFunction,mem:whatever": false,
	} {
		if got := s.want(id); got != want {
			t.Errorf("want(%q) = %v, want %v", id, got, want)
		}
	}
	if !(settings{}).want("anything:at all") {
		t.Error("no -only selects every row")
	}
}

func TestFlagsOutOfRangeAreRefused(t *testing.T) {
	for _, args := range [][]string{{"-runs", "0"}, {"-members", "1001"}, {"-stopped", "20000"}, {"extra"}} {
		if _, err := parseFlags(append(args, "-root", t.TempDir())); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

func TestSizesAreJudgedAgainst9MB(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, make([]byte, n), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	b := &bench{s: settings{}, fnIDs: []string{"SmallFunction", "LargeFunction"}, arm64: map[string]string{
		"SmallFunction": write("small", 8_999_999), "LargeFunction": write("large", 9_000_001),
		helloID: write("hello", 5_000_000), sameCallsID: write("same", 9_000_000),
	}}
	b.sizes()
	if len(b.rows) != 2 || b.rows[0].met != "yes" || b.rows[1].met != "no" ||
		b.rows[0].against != "before trimming 9.7-11.3 MB; hello-world 5.00 MB, same-calls 9.00 MB" {
		t.Errorf("rows %+v", b.rows)
	}
}

func TestTheTemplateGivesEachFunctionItsMemory(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	mem, err := templateMemory(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mem) != 18 || mem["AuthorizerFunction"] != 128 || mem["ChatsFunction"] != 1769 {
		t.Errorf("got %v", mem)
	}
}

func TestStatistics(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	if p50, p99 := percentile(ds, 50), percentile(ds, 99); p50 != 50*time.Millisecond || p99 != 99*time.Millisecond {
		t.Errorf("p50 %v, p99 %v", p50, p99)
	}
	if got := median([]time.Duration{3, 1, 2}); got != 2 {
		t.Errorf("median %v", got)
	}
	if got := opsSummary([]string{"GetItem", "Query", "Query", "GetItem"}); got != "GetItem, Query ×2, GetItem" {
		t.Errorf("opsSummary %q", got)
	}
}
