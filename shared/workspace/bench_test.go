package workspace_test

import (
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func BenchmarkValidateEmail(b *testing.B) {
	for b.Loop() {
		_ = workspace.ValidateEmail("first.last+tag@mail.example-domain.com")
	}
}

func BenchmarkHashKey(b *testing.B) {
	for b.Loop() {
		_ = workspace.HashKey("wk_demoAdminKey0000000000000000000000000001")
	}
}
