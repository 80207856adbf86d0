package sdktest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// runAgainstStack starts a stack of its own over the demo fixture (each SDK's
// tour changes it) and runs name args in dir with its address.
// skipped is what the command prints when a test skipped (a tour that did
// not get the URL): the run fails then.
func runAgainstStack(t *testing.T, dir, skipped, name string, args ...string) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = filepath.Join(apitest.RepoRoot(t), dir)
	cmd.Env = append(os.Environ(), "WORKSPACEAPI_TEST_URL="+env.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v in %s: %v\n%s", name, args, dir, err, out)
	}
	if strings.Contains(string(out), skipped) {
		t.Fatalf("%s %v in %s skipped tests (%q):\n%s", name, args, dir, skipped, out)
	}
	t.Logf("%s %v in %s:\n%s", name, args, dir, out)
}

func TestGoSDKWalksTheTour(t *testing.T) {
	// -v lists the tour's tests, so a skipped one (no URL) shows.
	runAgainstStack(t, "sdk/go", "--- SKIP", "go", "test", "-count=1", "-v", "./...")
}

func TestTypeScriptSDKWalksTheTour(t *testing.T) {
	if _, err := os.Stat(filepath.Join(apitest.RepoRoot(t), "sdk/typescript/node_modules/.bin/tsc")); err != nil {
		t.Fatal("sdk/typescript/node_modules is not installed: run make deps (npm ci in sdk/typescript)")
	}
	runAgainstStack(t, "sdk/typescript", "# SKIP", "npm", "test", "--silent")
}
