package workspace_test

import (
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// API Gateway refuses an API key value under 20 characters, and the usage
// plans keep one key per value: every workspace's identifier must be long
// enough, the same on every call, and its own.
func TestUsageIdentifierIsLongEnoughStableAndPerWorkspace(t *testing.T) {
	tests := []struct {
		name, workspaceID, want string
	}{
		{"a usual id", "ws_acme", "workspace-api-usage-ws_acme"},
		{"a one-character id is still 20 characters and more", "w", "workspace-api-usage-w"},
		{"case is kept, as ids are case-sensitive", "WS_Acme", "workspace-api-usage-WS_Acme"},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := workspace.UsageIdentifier(tc.workspaceID)
			if got != tc.want {
				t.Errorf("UsageIdentifier(%q) = %q, want %q", tc.workspaceID, got, tc.want)
			}
			if len(got) < 20 {
				t.Errorf("UsageIdentifier(%q) = %q: %d characters, API Gateway needs at least 20", tc.workspaceID, got, len(got))
			}
			if again := workspace.UsageIdentifier(tc.workspaceID); again != got {
				t.Errorf("UsageIdentifier(%q) changed between calls: %q then %q", tc.workspaceID, got, again)
			}
			if other, ok := seen[got]; ok {
				t.Errorf("workspaces %q and %q share the identifier %q", other, tc.workspaceID, got)
			}
			seen[got] = tc.workspaceID
		})
	}
}
