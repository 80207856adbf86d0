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

// TestTheDepthIsTheLongestChainOfCallsInTurn: a call is one step deeper than
// the deepest call finished before it started.
func TestTheDepthIsTheLongestChainOfCallsInTurn(t *testing.T) {
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
					steps[name], ends[name] = c.Begin()
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
