// Package functions_test holds checks that span every Lambda under functions/.
package functions_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/agentplatform/workspaceapi/"

// What ships lives in shared/; what only runs locally or in tests lives in
// infra/. No function may link anything of infra/, directly or through shared/.
func TestNoFunctionDependsOnInfra(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./functions/...: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, module+"infra/") {
			t.Errorf("a function depends on %s; what ships must not link the local or test tooling", pkg)
		}
	}
}

// The authorizer runs on every request: it links neither the API Gateway proxy
// adapter nor the request-body decoder, only the context contract.
func TestAuthorizerLinksNoHTTPLayer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./authorizer").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./functions/authorizer: %v\n%s", err, out)
	}
	banned := []string{
		"github.com/awslabs/aws-lambda-go-api-proxy",
		module + "shared/httpapi",
		"github.com/go-json-experiment/json",
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, b := range banned {
			if strings.HasPrefix(pkg, b) {
				t.Errorf("the authorizer links %s", pkg)
			}
		}
	}
}
