package roundtrip_test

import (
	"context"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/roundtrip"
)

func TestARequestCountsItsOwnRoundTripsOnly(t *testing.T) {
	bare := context.Background()
	roundtrip.Add(bare) // no count: nothing to add to, no panic
	a, b := roundtrip.Start(bare), roundtrip.Start(bare)
	roundtrip.Add(a)
	roundtrip.Add(a)
	roundtrip.Add(b)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want int
	}{{"no count", bare, 0}, {"first request", a, 2}, {"second request", b, 1}} {
		if got := roundtrip.Count(tc.ctx); got != tc.want {
			t.Errorf("%s: Count = %d, want %d", tc.name, got, tc.want)
		}
	}
}
