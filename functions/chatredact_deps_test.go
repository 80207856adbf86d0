package functions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The chat redaction rules (shared/chatredact: gitleaks' rule set and more)
// are the chats function's alone. Only the chats and agentdata functions
// depend on the package (through shared/agentdata), and the agentdata
// function links none of it: the linker drops what only the chat route
// calls, and the package builds nothing at start-up (no package-level
// regular expression or map).
func TestOnlyTheChatsFunctionLinksTheRedactionRules(t *testing.T) {
	const pkg = module + "shared/chatredact"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./agents", "./authorizer", "./credits", "./ingest",
		"./invites", "./members", "./retention", "./scheduler", "./tags", "./teams").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	if strings.Contains(string(out)+"\n", pkg+"\n") {
		t.Errorf("a function other than chats and agentdata depends on %s", pkg)
	}
	if testing.Short() {
		t.Skip("building the agentdata function")
	}
	bin := filepath.Join(t.TempDir(), "agentdata")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./agentdata")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./agentdata: %v\n%s", err, out)
	}
	syms, err := exec.Command("go", "tool", "nm", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool nm: %v\n%s", err, syms)
	}
	if n := strings.Count(string(syms), pkg+"."); n > 0 {
		t.Errorf("the agentdata function links %d symbols of %s", n, pkg)
	}
}
