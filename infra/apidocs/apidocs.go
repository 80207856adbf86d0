// Package apidocs serves the API reference: Redoc's standalone bundle (npm
// package redoc, pinned in this directory's package.json) rendering the
// OpenAPI document, all three from one origin, with no CDN. The local runner
// serves it at GET /docs; `make reference` writes the same three files into
// bin/reference/ for any static host (docs/local-runner.md, "API reference").
package apidocs

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"os"
	"strings"

	"github.com/agentplatform/workspaceapi/infra/apispec"
)

//go:embed index.html
var page []byte

// Page is the reference's HTML page: it loads openapi.yaml and
// redoc.standalone.js from beside itself.
func Page() []byte { return page }

// BundlePath is where `make deps` installs Redoc's standalone bundle, from
// the repository's root.
const BundlePath = "infra/apidocs/node_modules/redoc/bundles/redoc.standalone.js"

// Prefix is the reference's path on the local runner. No route of the API
// starts with it (the API's are under /workspaceapi and /agents).
const Prefix = "/docs"

// Handler serves the reference under Prefix (the page at /docs and /docs/,
// the document at /docs/openapi.yaml, Redoc at /docs/redoc.standalone.js,
// read from bundle at each request) and passes every other request to next.
// It needs no key: the reference is public.
func Handler(bundle string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Prefix && !strings.HasPrefix(r.URL.Path, Prefix+"/") {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusNotFound, "not found")
			return
		}
		switch r.URL.Path {
		case Prefix, Prefix + "/":
			// The page names its files relative to itself, for a static
			// host; /docs (no slash) would resolve them under /, and Redoc
			// resolves the document against the page's location, not a
			// <base>: here they are named in full.
			html := strings.NewReplacer(`spec-url="openapi.yaml"`, `spec-url="`+Prefix+`/openapi.yaml"`,
				`src="redoc.standalone.js"`, `src="`+Prefix+`/redoc.standalone.js"`).Replace(string(page))
			write(w, "text/html; charset=utf-8", []byte(html))
		case Prefix + "/openapi.yaml":
			write(w, "application/yaml", apispec.Document())
		case Prefix + "/redoc.standalone.js":
			js, err := os.ReadFile(bundle)
			if err != nil {
				writeError(w, http.StatusNotFound, "the reference's Redoc bundle is not installed: run make deps")
				return
			}
			write(w, "text/javascript; charset=utf-8", js)
		default:
			writeError(w, http.StatusNotFound, "not found")
		}
	})
}

func write(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(body)
}

// writeError answers {"error": message}, as every error of the runner is.
func writeError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": message})
}
