package benchbaseline_test

import (
	"fmt"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/benchbaseline"
)

// TestCallsReplayStepByStep: calls sent at once share a step and are
// replayed at once; steps follow each other in order.
func TestCallsReplayStepByStep(t *testing.T) {
	calls := func(steps ...int) []benchbaseline.Call {
		out := make([]benchbaseline.Call, len(steps))
		for i, s := range steps {
			out[i] = benchbaseline.Call{Op: fmt.Sprint("op", i), Step: s}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		steps []int
		want  string
	}{
		{"one after another", []int{1, 2, 3}, "[[op0] [op1] [op2]]"},
		{"a read, then four at once, then a write", []int{1, 2, 2, 2, 2, 3}, "[[op0] [op1 op2 op3 op4] [op5]]"},
		{"recorded out of step order", []int{1, 2, 1}, "[[op0 op2] [op1]]"},
		{"without steps: one after another", []int{0, 0}, "[[op0] [op1]]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [][]string
			for _, step := range benchbaseline.Steps(calls(tc.steps...)) {
				var ops []string
				for _, c := range step {
					ops = append(ops, c.Op)
				}
				got = append(got, ops)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("Steps = %v, want %s", got, tc.want)
			}
		})
	}
}
