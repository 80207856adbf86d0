// Package release names the release of the Workspace Administration API that
// this code is: one version, which template.yaml's Release mapping repeats
// (a test holds them equal), GET /workspaceapi/version answers, and the
// migrations' custom resource carries, so that each deploy of a new release
// runs its migrations (CHANGELOG.md, docs/operations.md).
//
// Versions follow Semantic Versioning 2.0.0 over two contracts: the HTTP API
// (the OpenAPI document) and the table's stored layout. MAJOR: a client must
// change, or the previous release cannot read what this one writes (a
// rollback needs more than a deploy). MINOR: endpoints or fields added, or
// migrations that the previous release reads past. PATCH: fixes only.
package release

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Version is this release.
const Version = "3.0.0"

// Resource is GET /workspaceapi/version's answer.
type Resource struct {
	Version string `json:"version"`
}

// Route is the path of the version route; VersionHandler serves it.
const Route = "GET /workspaceapi/version"

// VersionHandler answers GET /workspaceapi/version: the release serving the
// request, to any key with the read scope (team-scoped keys too). It reads
// nothing.
func VersionHandler() http.Handler {
	return httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if _, err := httpapi.Caller(r, workspace.ScopeRead); err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, Resource{Version: Version})
		return nil
	})
}

// Compare orders two versions "MAJOR.MINOR.PATCH" numerically: -1, 0 or +1.
// A part that is not a number counts as 0, so a malformed version sorts
// first and never passes for a newer one.
func Compare(a, b string) int {
	pa, pb := parts(a), parts(b)
	for i := range pa {
		if c := cmp.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return 0
}

func parts(v string) [3]int {
	var out [3]int
	for i, p := range strings.SplitN(v, ".", 3) {
		n, err := strconv.Atoi(p)
		if err == nil && n >= 0 {
			out[i] = n
		}
	}
	return out
}
