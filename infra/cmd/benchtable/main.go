// Command benchtable is what `make bench` runs: it measures the packaged
// functions against their targets and prints one markdown table, each row
// with the command that reproduces it alone.
//
//   - size: each function's `bootstrap` as it ships (linux/arm64, the
//     Makefile's flags); target at most 9 MB.
//   - cold: process start to first response of each bootstrap under the
//     Lambda Runtime API emulator (infra/lambdaemu), built for this machine
//     with the same flags, against a hello-world aws-lambda-go function and
//     a minimal function making the very DynamoDB calls the function made
//     (infra/benchbaseline); target at most 1.3x the same-calls baseline.
//   - init: of the same runs, process start to the function's first request
//     for an event (its package initialization and main before
//     lambda.Start); target at most 1.5x the hello-world function's.
//   - warm: p50 and p99 of each endpoint through the local gateway as
//     `make run` serves it, against replaying the same DynamoDB calls raw
//     from the functions' own client in the same run; target p50 at most
//     1.3x.
//   - handler: of the same requests, the function's handler alone (its
//     Invoke of the event the gateway built, in-process, without the
//     gateway's hop) against the same raw calls; target p50 at most 1.15x.
//   - trips: each endpoint's DynamoDB round trips beside its budget.
//   - mem: each bootstrap's peak resident memory (VmHWM) under its heaviest
//     request; target 128 MB.
//
// It starts its own DynamoDB Local, builds the binaries with the Makefile
// (make -s build-<Function>, build-baseline-<name>), and leaves nothing
// behind. -only selects rows: a comma-separated list of row ids
// ("cold:CreditsFunction"), kinds ("warm") or prefixes ending in '*'
// ("trips:GET *"). It never runs under `go test` but for its smoke test.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

// settings are the command's flags.
type settings struct {
	only []string // row filters; empty: every row

	runs     int // cold starts per function (the median is reported)
	requests int // measured warm requests per endpoint
	warmup   int // warm requests per endpoint before measuring

	agents  int // agents of the heavy workspace (the credits report's)
	invites int // invitations of the heavy workspace (the unpaged list's)
	members int // members of the heavy workspace (a 1,000 members page)
	stopped int // agents the scheduler's heavy run resumes
	chatMB  int // MB of JSON of the largest chat

	goMemLimit string // GOMEMLIMIT of the bootstraps of the mem rows; empty: none, as deployed

	endpoint   string // DynamoDB Local to use; empty: start one
	cpuProfile string // where to write a CPU profile of the run (the in-process warm phase is this process)
	root       string // the repository's root
	flags      string // the flags given, but -only, for the reproduce column
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(2)
	}
	if err := run(ctx, s, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// parseFlags reads the command line.
func parseFlags(args []string) (settings, error) {
	var s settings
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	only := fs.String("only", "", "rows to run: comma-separated row ids (cold:CreditsFunction), kinds (size, init, cold, warm, handler, trips, mem) or prefixes ending in *")
	fs.IntVar(&s.runs, "runs", 15, "cold starts per function and baseline (the median is reported)")
	fs.IntVar(&s.requests, "requests", 200, "measured warm requests per endpoint")
	fs.IntVar(&s.warmup, "warmup", 20, "warm requests per endpoint before measuring")
	fs.IntVar(&s.agents, "agents", 10_000, "agents of the heavy workspace: the credits report's, the agents page's and connected agents'")
	fs.IntVar(&s.invites, "invites", 10_000, "invitations of the heavy workspace, listed unpaged")
	fs.IntVar(&s.members, "members", 1_000, "members of the heavy workspace, listed in one page (at most 1,000)")
	fs.IntVar(&s.stopped, "stopped", 1_000, "agents stopped by their daily limit that the scheduler's heavy run resumes")
	fs.IntVar(&s.chatMB, "chat-mb", 20, "MB of JSON of the largest chat")
	fs.StringVar(&s.goMemLimit, "gomemlimit", "", "GOMEMLIMIT of the bootstraps of the mem rows, e.g. 100MiB (default: none, as deployed)")
	fs.StringVar(&s.endpoint, "dynamodb-endpoint", "", "DynamoDB Local to use (default: start one)")
	fs.StringVar(&s.cpuProfile, "cpuprofile", "", "write a CPU profile of this process (the gateway and the in-process functions of the warm rows) to this file")
	fs.StringVar(&s.root, "root", "", "the repository's root (default: the directory holding go.mod above this one)")
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	if fs.NArg() > 0 {
		return s, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, o := range strings.Split(*only, ",") {
		if o = strings.TrimSpace(o); o != "" {
			s.only = append(s.only, o)
		}
	}
	if s.runs < 1 || s.requests < 1 || s.warmup < 0 || s.agents < 100 || s.invites < 1 || s.members < 1 ||
		s.members > 1000 || s.stopped < 0 || s.stopped > s.agents || s.chatMB < 1 {
		return s, fmt.Errorf("a count is out of range (runs, requests ≥ 1; agents ≥ 100; 1 ≤ members ≤ 1000; stopped ≤ agents)")
	}
	var given []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "only" && f.Name != "root" && f.Name != "dynamodb-endpoint" && f.Name != "cpuprofile" {
			given = append(given, "-"+f.Name+"="+f.Value.String())
		}
	})
	s.flags = strings.Join(given, " ")
	if s.root == "" {
		root, err := repoRoot()
		if err != nil {
			return s, err
		}
		s.root = root
	}
	return s, nil
}

// repoRoot returns the directory holding go.mod, from here up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above the working directory: run benchtable from the repository")
		}
		dir = parent
	}
}

// want reports whether the row with id is selected.
func (s settings) want(id string) bool {
	if len(s.only) == 0 {
		return true
	}
	kind, _, _ := strings.Cut(id, ":")
	for _, o := range s.only {
		switch {
		case o == id, o == kind:
			return true
		case strings.HasSuffix(o, "*") && strings.HasPrefix(id, strings.TrimSuffix(o, "*")):
			return true
		}
	}
	return false
}

// wantAny reports whether any of ids is selected.
func (s settings) wantAny(ids ...string) bool {
	for _, id := range ids {
		if s.want(id) {
			return true
		}
	}
	return false
}

// run measures the selected rows and prints the table to out; progress goes
// to progress.
func run(ctx context.Context, s settings, out, progress io.Writer) error {
	began, loadBefore := time.Now(), loadAverage()
	b, err := newBench(ctx, s, progress)
	if err != nil {
		return err
	}
	defer b.close()
	if s.cpuProfile != "" {
		f, err := os.Create(s.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if err := b.measure(ctx); err != nil {
		return err
	}
	if len(b.rows) == 0 {
		return fmt.Errorf("-only %q selects no row; row ids look like size:CreditsFunction, init:CreditsFunction, cold:CreditsFunction, "+
			"'warm:GET /workspaceapi/credits', 'handler:GET /workspaceapi/credits', 'trips:GET /workspaceapi/credits', mem:CreditsFunction", strings.Join(s.only, ","))
	}
	// The load says how far other work on the machine shared it with the run.
	fmt.Fprintf(out, "make bench: %d CPUs, %s/%s, %s, DynamoDB Local, load average %s before and %s after; %s\n\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), loadBefore, loadAverage(), b.describeRun())
	printTable(out, b.rows, s.flags)
	fmt.Fprintf(out, "\n%d rows in %s.\n", len(b.rows), time.Since(began).Round(time.Second))
	return nil
}

// loadAverage returns the machine's 1-minute load average, "?" when unknown.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return "?"
}
