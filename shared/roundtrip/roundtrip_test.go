package roundtrip_test

import (
	"context"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/roundtrip"
)

func TestARequestCountsItsOwnRoundTripsOnly(t *testing.T) {
	bare := context.Background()
	roundtrip.Begin(bare)() // no count: nothing to add to, no panic
	a, b := roundtrip.Start(bare), roundtrip.Start(bare)
	roundtrip.Begin(a)()
	roundtrip.Begin(a)()
	roundtrip.Begin(b)()
	for _, tc := range []struct {
		name             string
		ctx              context.Context
		count, wantDepth int
	}{{"no count", bare, 0, 0}, {"first request", a, 2, 2}, {"second request", b, 1, 1}} {
		if got := roundtrip.Count(tc.ctx); got != tc.count {
			t.Errorf("%s: Count = %d, want %d", tc.name, got, tc.count)
		}
		if got := roundtrip.Depth(tc.ctx); got != tc.wantDepth {
			t.Errorf("%s: Depth = %d, want %d", tc.name, got, tc.wantDepth)
		}
	}
}

// TestWithoutAChainTheDepthIsMeasuredByTheClock: in a context that carries
// no chain, a call is one step deeper than the deepest call finished before
// it started.
func TestWithoutAChainTheDepthIsMeasuredByTheClock(t *testing.T) {
	// Each script is a sequence of events: "b<name>" begins a call,
	// "e<name>" ends it.
	for _, tc := range []struct {
		name       string
		script     []string
		wantCalls  int
		wantDepth  int
		wantStepOf map[string]int
	}{
		{"one after another", []string{"ba", "ea", "bb", "eb", "bc", "ec"}, 3, 3, map[string]int{"a": 1, "b": 2, "c": 3}},
		{"all at once", []string{"ba", "bb", "bc", "ec", "ea", "eb"}, 3, 1, map[string]int{"a": 1, "b": 1, "c": 1}},
		{"fan out, then in", []string{"ba", "ea", "bb", "bc", "bd", "ed", "eb", "ec", "be", "ee"}, 5, 3,
			map[string]int{"a": 1, "b": 2, "c": 2, "d": 2, "e": 3}},
		{"a slot freed in a bounded group: the next call is a step deeper", []string{"ba", "bb", "ea", "bc", "eb", "ec"}, 3, 2,
			map[string]int{"a": 1, "b": 1, "c": 2}},
		{"a long call beside a chain", []string{"ba", "bb", "eb", "bc", "ec", "bd", "ed", "ea"}, 4, 3,
			map[string]int{"a": 1, "b": 1, "c": 2, "d": 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c roundtrip.Counter
			ends, steps := map[string]func(){}, map[string]int{}
			for _, ev := range tc.script {
				name := ev[1:]
				if ev[0] == 'b' {
					steps[name], ends[name] = c.Begin(context.Background())
				} else {
					ends[name]()
				}
			}
			if got := c.Count(); got != tc.wantCalls {
				t.Errorf("Count = %d, want %d", got, tc.wantCalls)
			}
			if got := c.Depth(); got != tc.wantDepth {
				t.Errorf("Depth = %d, want %d", got, tc.wantDepth)
			}
			for name, want := range tc.wantStepOf {
				if steps[name] != want {
					t.Errorf("step of %s = %d, want %d", name, steps[name], want)
				}
			}
			c.Reset()
			if c.Count() != 0 || c.Depth() != 0 {
				t.Errorf("after Reset: Count %d, Depth %d, want 0, 0", c.Count(), c.Depth())
			}
		})
	}
}

// TestTheDepthFollowsTheStructureNotTheClock: calls forked from one context
// are at the same step whatever order a loaded machine runs them in; the
// calls after the join are a step deeper than the deepest branch; past the
// bound of calls in flight, a branch waits a step per full round.
func TestTheDepthFollowsTheStructureNotTheClock(t *testing.T) {
	for _, tc := range []struct {
		name      string
		rooted    bool // the context comes from Start
		branches  int
		limit     int
		wantDepth int
	}{
		{"a read, eight at once, a write", true, 8, 8, 3},
		{"a read, nine with eight in flight, a write", true, 9, 8, 4},
		{"a read, one branch, a write", true, 1, 8, 3},
		{"without Start: the branches count from where the counter stood", false, 8, 8, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.rooted {
				ctx = roundtrip.Start(ctx)
			}
			// Two counters count the same calls, as a test's client counter
			// and the request's count do: both measure the same.
			var own roundtrip.Counter
			begin := func(ctx context.Context) func() {
				end := roundtrip.Begin(ctx)
				_, endOwn := own.Begin(ctx)
				return func() { endOwn(); end() }
			}
			begin(ctx)()
			ctxs, join := roundtrip.Fork(ctx, tc.branches, tc.limit)
			// The worst order: each branch starts after the one before it
			// has finished, as if the machine ran them one by one.
			for _, bctx := range ctxs {
				begin(bctx)()
			}
			join()
			begin(ctx)()
			if got := own.Depth(); got != tc.wantDepth {
				t.Errorf("depth = %d, want %d", got, tc.wantDepth)
			}
			if got := own.Count(); got != tc.branches+2 {
				t.Errorf("count = %d, want %d", got, tc.branches+2)
			}
			if tc.rooted {
				if got := roundtrip.Depth(ctx); got != tc.wantDepth {
					t.Errorf("the request's depth = %d, want %d", got, tc.wantDepth)
				}
			}
		})
	}
}

// TestAForkInsideABranchCountsFromTheBranch: a branch that reads and then
// fans out puts its fan-out a step below its read.
func TestAForkInsideABranchCountsFromTheBranch(t *testing.T) {
	ctx := roundtrip.Start(context.Background())
	outer, joinOuter := roundtrip.Fork(ctx, 2, 8)
	roundtrip.Begin(outer[0])() // step 1
	inner, joinInner := roundtrip.Fork(outer[0], 3, 8)
	for _, c := range inner {
		roundtrip.Begin(c)() // step 2
	}
	joinInner()
	roundtrip.Begin(outer[1])() // step 1
	joinOuter()
	roundtrip.Begin(ctx)() // step 3
	if got := roundtrip.Depth(ctx); got != 3 {
		t.Errorf("depth = %d, want 3", got)
	}
}

func TestARequestSumsItsOwnReadUnits(t *testing.T) {
	bare := context.Background()
	roundtrip.AddReadUnits(bare, 3) // no count: nothing to add to, no panic
	a, b := roundtrip.Start(bare), roundtrip.Start(bare)
	roundtrip.AddReadUnits(a, 0.5)
	roundtrip.AddReadUnits(a, 2)
	roundtrip.AddReadUnits(b, 1)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want float64
	}{{"no count", bare, 0}, {"first request", a, 2.5}, {"second request", b, 1}} {
		if got := roundtrip.ReadUnits(tc.ctx); got != tc.want {
			t.Errorf("%s: ReadUnits = %g, want %g", tc.name, got, tc.want)
		}
	}
}
