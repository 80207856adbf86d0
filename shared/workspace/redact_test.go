package workspace_test

import (
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestKeyShapedTextIsRedacted(t *testing.T) {
	tests := []struct {
		in, want string
		hasKey   bool
	}{
		{"no key here", "no key here", false},
		{"wk_", "wk_", false},
		{"wk_-x", "wk_-x", false},
		{"wk_a", "[redacted key]", true},
		{`unknown field "wk_demoAdminKey0000000000000000000000000001"`, `unknown field "[redacted key]"`, true},
		{"/x/wk_abc/y wk_ wk_Z9", "/x/[redacted key]/y wk_ [redacted key]", true},
		{"wk_wk_abc", "[redacted key]_abc", true},
		{"awk_abc", "a[redacted key]", true},
	}
	for _, tc := range tests {
		if got := workspace.ContainsKey(tc.in); got != tc.hasKey {
			t.Errorf("ContainsKey(%q) = %v, want %v", tc.in, got, tc.hasKey)
		}
		if got := workspace.RedactKeys(tc.in); got != tc.want {
			t.Errorf("RedactKeys(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := workspace.RedactKeys(tc.in); workspace.ContainsKey(got) {
			t.Errorf("RedactKeys(%q) = %q still holds a key", tc.in, got)
		}
	}
}
