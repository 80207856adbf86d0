package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apidocs"
	"github.com/agentplatform/workspaceapi/infra/apispec"
	"github.com/agentplatform/workspaceapi/infra/apitest"
)

// chromium is the headless browser the reference test drives: CHROMIUM, or
// Debian's chromium on PATH. Without one the test fails: .ci/run installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed (apt-get install -y chromium; .ci/run does), or set CHROMIUM: " +
		"the API reference's render test needs a headless browser")
	return ""
}

// headless runs chromium on url with the given flags, no network but
// loopback: a page that needed a CDN would not render.
func headless(t *testing.T, browser, url string, flags ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(),
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		// Virtual time runs until the page is idle (Redoc fetched the
		// document and rendered it), at most this long.
		"--virtual-time-budget=30000",
	}, flags...)
	out, err := exec.CommandContext(ctx, browser, append(args, url)...).Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", flags, err)
	}
	return out
}

// screenshotDir is where the test leaves its screenshot for a person to
// look at: TEST_OUTPUT_DIR, or bin/test-output (ignored by git).
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("TEST_OUTPUT_DIR")
	if dir == "" {
		dir = filepath.Join(apitest.RepoRoot(t), "bin", "test-output")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTheReferenceAtDocsRendersEveryOperationOffline(t *testing.T) {
	browser := chromium(t)
	bundle := filepath.Join(apitest.RepoRoot(t), apidocs.BundlePath)
	if _, err := os.Stat(bundle); err != nil {
		t.Fatalf("Redoc's bundle is not installed (make deps: npm ci in infra/apidocs): %v", err)
	}
	t.Setenv("REDOC_BUNDLE", bundle)
	base, _ := startRunner(t)

	// The reference and its files need no key; everything else is the API's.
	for path, ctype := range map[string]string{"/docs": "text/html", "/docs/openapi.yaml": "application/yaml",
		"/docs/redoc.standalone.js": "text/javascript"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}

	dom := string(headless(t, browser, base+"/docs", "--dump-dom"))
	out := screenshotDir(t)
	if err := os.WriteFile(filepath.Join(out, "docs.html"), []byte(dom), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := apispec.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			n++
			// Redoc gives each operation's section the id operation/<operationId>.
			if !strings.Contains(dom, `operation/`+op.OperationID+`"`) {
				t.Errorf("%s %s (%s) is not rendered at /docs", method, path, op.OperationID)
			}
		}
	}
	if n == 0 || t.Failed() {
		t.Fatalf("%d operations in the document; the page's DOM starts:\n%.2000s", n, dom)
	}

	shot := filepath.Join(out, "docs.png")
	headless(t, browser, base+"/docs", "--screenshot="+shot, "--window-size=1400,1000", "--hide-scrollbars")
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("%d operations rendered at %s/docs; screenshot: %s", n, base, shot)
}
