package workspace_test

import (
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestNullableTellsOmittedNullAndValueApart(t *testing.T) {
	tests := []struct {
		name        string
		n           workspace.Nullable[float64]
		wantOmitted bool
		wantNull    bool
		wantValue   float64
		wantOK      bool
	}{
		{"the zero Nullable is omitted", workspace.Nullable[float64]{}, true, false, 0, false},
		{"null", workspace.Null[float64](), false, true, 0, false},
		{"a value", workspace.Value(2.5), false, false, 2.5, true},
		{"zero is a value", workspace.Value(0.0), false, false, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := tc.n.Get()
			if tc.n.Omitted() != tc.wantOmitted || tc.n.IsNull() != tc.wantNull || v != tc.wantValue || ok != tc.wantOK {
				t.Errorf("got omitted=%t null=%t Get=%v,%t; want omitted=%t null=%t Get=%v,%t",
					tc.n.Omitted(), tc.n.IsNull(), v, ok, tc.wantOmitted, tc.wantNull, tc.wantValue, tc.wantOK)
			}
		})
	}
}

func TestNullableDecodeHooks(t *testing.T) {
	n := workspace.Value(1.0)
	n.DecodeNull()
	if !n.IsNull() || n.Omitted() {
		t.Errorf("after DecodeNull: %+v, want null", n)
	}
	*n.DecodeValue().(*float64) = 7
	if v, ok := n.Get(); !ok || v != 7 || n.IsNull() {
		t.Errorf("after DecodeValue: Get = %v, %t, null %t; want 7, true, false", v, ok, n.IsNull())
	}
}
