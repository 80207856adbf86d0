// Package functions_test holds checks that span every Lambda under functions/.
package functions_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
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

// The functions build their AWS configuration from Lambda's environment
// (shared/platform.AWSConfigFromEnv): none links the SDK's config package and
// the credential chains it brings (STS, SSO, SSO OIDC, sign-in), whose
// tables every cold start would set up. Only the invitations function,
// which sends mail, links SES.
func TestFunctionsLinkOnlyTheSDKClientsTheyCall(t *testing.T) {
	const sdk = "github.com/aws/aws-sdk-go-v2/"
	never := []string{sdk + "config", sdk + "service/sts", sdk + "service/sso", sdk + "service/ssooidc", sdk + "service/signin",
		sdk + "credentials/ssocreds", sdk + "credentials/stscreds", sdk + "credentials/logincreds", sdk + "feature/ec2/imds"}
	const ses = sdk + "service/sesv2"
	dirs, err := filepath.Glob("*/main.go")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no function found: %v", err)
	}
	for _, main := range dirs {
		fn := filepath.Dir(main)
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+fn).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps ./functions/%s: %v\n%s", fn, err, out)
		}
		linked := map[string]bool{}
		for _, pkg := range strings.Fields(string(out)) {
			linked[pkg] = true
		}
		for _, pkg := range never {
			if linked[pkg] {
				t.Errorf("functions/%s links %s; the functions' AWS configuration comes from Lambda's environment", fn, pkg)
			}
		}
		if got, want := linked[ses], fn == "invites"; got != want {
			t.Errorf("functions/%s links %s: %v, want %v (only the invitations function sends mail)", fn, ses, got, want)
		}
	}
}

// A cold start pays for every package-level regular expression of every
// package a function links, whether or not its request ever uses it: what
// ships compiles them where they are needed (once, lazily), never in a
// package-level variable's initializer or an init function.
func TestNothingCompilesARegularExpressionAtStart(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{".", "../shared"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			if ast.IsGenerated(f) && f.Name.Name == "main" {
				return nil
			}
			for _, decl := range f.Decls {
				var atStart []ast.Node
				switch d := decl.(type) {
				case *ast.GenDecl:
					if d.Tok == token.VAR {
						atStart = append(atStart, d)
					}
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == "init" {
						atStart = append(atStart, d)
					}
				}
				for _, n := range atStart {
					ast.Inspect(n, func(n ast.Node) bool {
						if _, ok := n.(*ast.FuncLit); ok {
							return false // runs when called, not at start
						}
						sel, ok := n.(*ast.SelectorExpr)
						if ok && strings.HasPrefix(sel.Sel.Name, "MustCompile") || ok && strings.HasPrefix(sel.Sel.Name, "Compile") {
							if id, ok := sel.X.(*ast.Ident); ok && id.Name == "regexp" {
								t.Errorf("%s: regexp.%s at package level", fset.Position(sel.Pos()), sel.Sel.Name)
							}
						}
						return true
					})
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
