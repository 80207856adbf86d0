package apispec_test

// Checks that template.yaml (AWS SAM), the Makefile and the OpenAPI document
// describe the same service.
//
// The template is read as YAML nodes (go.yaml.in/yaml/v3), so the checks see
// what is written, intrinsic functions included (!Ref, !GetAtt), rather than
// what a CloudFormation library resolves them to. cfn-lint (make lint) checks
// the template against CloudFormation's and SAM's own schemas.

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentplatform/workspaceapi/infra/apispec"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const (
	repoRoot     = "../.."
	templatePath = repoRoot + "/template.yaml"
)

// samTemplate is template.yaml as YAML nodes.
type samTemplate struct {
	root *yaml.Node // the top-level mapping
}

func loadTemplate(t *testing.T) *samTemplate {
	t.Helper()
	raw, err := os.ReadFile(templatePath)
	if err != nil {
		t.Fatalf("read %s: %v", templatePath, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s is not valid YAML: %v", templatePath, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: want one YAML document holding a mapping", templatePath)
	}
	tpl := &samTemplate{root: doc.Content[0]}
	resources := node(tpl.root, "Resources")
	if resources == nil || resources.Kind != yaml.MappingNode {
		t.Fatalf("%s: Resources is not a mapping", templatePath)
	}
	for _, id := range keys(resources) {
		if typ, ok := literal(node(resources, id, "Type")); !ok || typ == "" {
			t.Fatalf("%s: resource %s has no literal Type", templatePath, id)
		}
	}
	return tpl
}

// node returns the value at keys under n (mappings only), or nil.
func node(n *yaml.Node, keys ...string) *yaml.Node {
	for _, key := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}

// keys returns the keys of the mapping n, sorted; none when n is not a mapping.
func keys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, n.Content[i].Value)
	}
	slices.Sort(out)
	return out
}

func (s *samTemplate) resourceNode(id string, keys ...string) *yaml.Node {
	return node(s.root, append([]string{"Resources", id}, keys...)...)
}

// resourceIDs returns the logical ids of the template's resources of type typ, sorted.
func (s *samTemplate) resourceIDs(typ string) []string {
	var ids []string
	for _, id := range keys(node(s.root, "Resources")) {
		if got, _ := literal(s.resourceNode(id, "Type")); got == typ {
			ids = append(ids, id)
		}
	}
	return ids
}

// refTarget returns the name n refers to with Ref (!Ref X or {Ref: X}), or "".
func refTarget(n *yaml.Node) string {
	switch {
	case n == nil:
		return ""
	case n.Kind == yaml.ScalarNode && n.Tag == "!Ref":
		return n.Value
	case n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "Ref" && n.Content[1].Kind == yaml.ScalarNode:
		return n.Content[1].Value
	}
	return ""
}

// getAttTarget returns the resource and attribute of !GetAtt R.A,
// !GetAtt [R, A], {Fn::GetAtt: R.A} or {Fn::GetAtt: [R, A]}; ok is false otherwise.
func getAttTarget(n *yaml.Node) (resource, attribute string, ok bool) {
	if n == nil {
		return "", "", false
	}
	arg := n
	if n.Tag != "!GetAtt" {
		if n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[0].Value != "Fn::GetAtt" {
			return "", "", false
		}
		arg = n.Content[1]
	}
	switch arg.Kind {
	case yaml.ScalarNode:
		resource, attribute, ok = strings.Cut(arg.Value, ".")
		return resource, attribute, ok
	case yaml.SequenceNode:
		if len(arg.Content) == 2 {
			return arg.Content[0].Value, arg.Content[1].Value, true
		}
	}
	return "", "", false
}

// literal returns n's value when it is a plain scalar (no intrinsic tag).
func literal(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return "", false
	}
	return n.Value, true
}

// ---------------------------------------------------------------------------

func TestTemplateParses(t *testing.T) {
	tpl := loadTemplate(t)
	if got := len(tpl.resourceIDs("AWS::Serverless::Api")); got != 1 {
		t.Errorf("AWS::Serverless::Api resources: got %d, want 1", got)
	}
	if got := len(tpl.resourceIDs("AWS::Serverless::Function")); got == 0 {
		t.Errorf("AWS::Serverless::Function resources: got 0, want at least 1")
	}
	if got, _ := literal(node(tpl.root, "Transform")); got != "AWS::Serverless-2016-10-31" {
		t.Errorf("Transform: got %q, want AWS::Serverless-2016-10-31", got)
	}
}

type gatewayResponse struct {
	StatusCode         string `yaml:"StatusCode"`
	ResponseParameters struct {
		Headers map[string]string `yaml:"Headers"`
	} `yaml:"ResponseParameters"`
	ResponseTemplates map[string]string `yaml:"ResponseTemplates"`
}

// gatewayResponses reads the GatewayResponses of the Api apiID from the YAML.
func gatewayResponses(t *testing.T, tpl *samTemplate, apiID string) map[string]gatewayResponse {
	t.Helper()
	n := tpl.resourceNode(apiID, "Properties", "GatewayResponses")
	if n == nil {
		t.Fatalf("%s: no Properties.GatewayResponses", apiID)
	}
	var out map[string]gatewayResponse
	if err := n.Decode(&out); err != nil {
		t.Fatalf("%s: GatewayResponses: %v", apiID, err)
	}
	return out
}

// sampleMessage stands in for the message API Gateway fills in.
const sampleMessage = `Missing Authentication Token`

// renderGatewayTemplate renders a gateway response body template the way API
// Gateway would for an error whose message is sampleMessage: it substitutes
// $context.error.messageString (the message as a quoted JSON string) and
// $context.error.message (the bare message). Any other VTL is an error: the
// body must stay predictable.
func renderGatewayTemplate(tmpl string) (string, error) {
	quoted, err := json.Marshal(sampleMessage)
	if err != nil {
		return "", err
	}
	out := strings.ReplaceAll(tmpl, "$context.error.messageString", string(quoted))
	out = strings.ReplaceAll(out, "$context.error.message", sampleMessage)
	for _, vtl := range []string{"$context", "$input", "$util", "$stageVariables", "${", "#set", "#if", "#foreach"} {
		if strings.Contains(out, vtl) {
			return "", fmt.Errorf("template uses %s, which this check does not render", vtl)
		}
	}
	return out, nil
}

// checkErrorBody returns an error unless body is a JSON object with exactly
// one key, "error", holding a string.
func checkErrorBody(body string) error {
	dec := json.NewDecoder(strings.NewReader(body))
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("got %T, want a JSON object", v)
	}
	if keys := slices.Sorted(maps.Keys(obj)); !slices.Equal(keys, []string{"error"}) {
		return fmt.Errorf("keys %q, want exactly [\"error\"]", keys)
	}
	if _, ok := obj["error"].(string); !ok {
		return fmt.Errorf("error is %T, want a string", obj["error"])
	}
	return nil
}

func TestGatewayResponses(t *testing.T) {
	tpl := loadTemplate(t)
	apis := tpl.resourceIDs("AWS::Serverless::Api")
	if len(apis) == 0 {
		t.Fatalf("no AWS::Serverless::Api in %s", templatePath)
	}
	required := []struct {
		responseType string
		wantStatus   string // "" when the type sets no fixed status
		wantClass    byte   // first digit the status must have when set
	}{
		{"UNAUTHORIZED", "401", '4'},
		{"ACCESS_DENIED", "403", '4'},
		{"MISSING_AUTHENTICATION_TOKEN", "404", '4'},
		{"THROTTLED", "429", '4'},
		{"DEFAULT_4XX", "", '4'},
		{"DEFAULT_5XX", "", '5'},
	}
	for _, apiID := range apis {
		responses := gatewayResponses(t, tpl, apiID)
		for _, tt := range required {
			t.Run(apiID+"/required/"+tt.responseType, func(t *testing.T) {
				r, ok := responses[tt.responseType]
				if !ok {
					t.Fatalf("GatewayResponses.%s: missing", tt.responseType)
				}
				if tt.wantStatus != "" && r.StatusCode != tt.wantStatus {
					t.Errorf("GatewayResponses.%s.StatusCode: got %q, want %q", tt.responseType, r.StatusCode, tt.wantStatus)
				}
				if r.StatusCode != "" && r.StatusCode[0] != tt.wantClass {
					t.Errorf("GatewayResponses.%s.StatusCode: got %q, want %cxx", tt.responseType, r.StatusCode, tt.wantClass)
				}
			})
		}
		for _, responseType := range slices.Sorted(maps.Keys(responses)) {
			r := responses[responseType]
			t.Run(apiID+"/body/"+responseType, func(t *testing.T) {
				if r.StatusCode != "" && r.StatusCode[0] != '4' && r.StatusCode[0] != '5' {
					t.Errorf("StatusCode: got %q, want a 4xx or 5xx status", r.StatusCode)
				}
				if got, want := r.ResponseParameters.Headers["Content-Type"], "'application/json'"; got != want {
					t.Errorf("ResponseParameters.Headers.Content-Type: got %q, want %q", got, want)
				}
				if _, ok := r.ResponseTemplates["application/json"]; !ok {
					t.Errorf("ResponseTemplates: got types %q, want application/json", slices.Sorted(maps.Keys(r.ResponseTemplates)))
				}
				for _, mediaType := range slices.Sorted(maps.Keys(r.ResponseTemplates)) {
					body, err := renderGatewayTemplate(r.ResponseTemplates[mediaType])
					if err == nil {
						err = checkErrorBody(body)
					}
					if err != nil {
						t.Errorf("ResponseTemplates[%s] = %q: %v; want a body like {\"error\": \"...\"}", mediaType, r.ResponseTemplates[mediaType], err)
					}
				}
			})
		}
	}
}

// templateRoutes returns "METHOD /path" of every Api event of every function,
// and for each route the event that declares it ("Function.Event").
func templateRoutes(t *testing.T, tpl *samTemplate) map[string][]string {
	t.Helper()
	routes := map[string][]string{}
	for _, fnID := range tpl.resourceIDs("AWS::Serverless::Function") {
		events := tpl.resourceNode(fnID, "Properties", "Events")
		for _, evName := range keys(events) {
			ev := node(events, evName)
			where := fnID + ".Events." + evName
			switch typ, _ := literal(node(ev, "Type")); typ {
			case "Api":
			case "HttpApi":
				t.Errorf("%s: an HttpApi event; routes must be Api events of the REST API", where)
				continue
			default:
				continue
			}
			path, okP := literal(node(ev, "Properties", "Path"))
			method, okM := literal(node(ev, "Properties", "Method"))
			if !okP || !okM || path == "" || method == "" {
				t.Errorf("%s: want literal Properties.Path and Properties.Method", where)
				continue
			}
			method = strings.ToUpper(method)
			if method == "ANY" {
				t.Errorf("%s: method ANY; declare each method the route serves", where)
				continue
			}
			route := method + " " + path
			routes[route] = append(routes[route], fnID+"."+evName)
		}
	}
	return routes
}

func TestRoutesMatchOpenAPI(t *testing.T) {
	tpl := loadTemplate(t)
	doc := loadDoc(t)
	routes := templateRoutes(t, tpl)
	for route, events := range routes {
		if len(events) > 1 {
			t.Errorf("route %s is declared by several events: %q", route, events)
		}
	}
	got := slices.Sorted(maps.Keys(routes))
	want := apispec.Operations(doc)

	var onlyTemplate, onlyDoc []string
	for _, r := range got {
		if !slices.Contains(want, r) {
			onlyTemplate = append(onlyTemplate, fmt.Sprintf("%s (%s)", r, strings.Join(routes[r], ", ")))
		}
	}
	for _, r := range want {
		if !slices.Contains(got, r) {
			onlyDoc = append(onlyDoc, r)
		}
	}
	if len(onlyTemplate) > 0 || len(onlyDoc) > 0 {
		t.Errorf("template routes and OpenAPI operations differ\n  in template.yaml only: %q\n  in openapi.yaml only:  %q\n  template: %q\n  openapi:  %q",
			onlyTemplate, onlyDoc, got, want)
	}
}

// TestApiEventsUseTheApi checks that every Api event is attached to the
// template's AWS::Serverless::Api (and so to its authorizer and gateway
// responses) rather than to SAM's implicit API, and keeps its default
// authorizer.
func TestApiEventsUseTheApi(t *testing.T) {
	tpl := loadTemplate(t)
	apis := tpl.resourceIDs("AWS::Serverless::Api")
	for _, fnID := range tpl.resourceIDs("AWS::Serverless::Function") {
		events := tpl.resourceNode(fnID, "Properties", "Events")
		for _, evName := range keys(events) {
			ev := node(events, evName)
			if typ, _ := literal(node(ev, "Type")); typ != "Api" {
				continue
			}
			t.Run(fnID+"/"+evName, func(t *testing.T) {
				ref := refTarget(node(ev, "Properties", "RestApiId"))
				if !slices.Contains(apis, ref) {
					t.Errorf("RestApiId: got !Ref %q, want !Ref to one of %q", ref, apis)
				}
				if a := node(ev, "Properties", "Auth", "Authorizer"); a != nil && a.Value != "" {
					t.Errorf("Auth.Authorizer: got %q, want the Api's default authorizer (no override)", a.Value)
				}
			})
		}
	}
}

// functionSetting returns a function's setting name (Runtime, Handler or
// Architectures, joined with ","): its own when set, else the one from
// Globals.Function. ok is false when the setting is absent or not a literal.
func functionSetting(tpl *samTemplate, fnID string, name string) (string, bool) {
	for _, n := range []*yaml.Node{tpl.resourceNode(fnID, "Properties", name), node(tpl.root, "Globals", "Function", name)} {
		if n == nil {
			continue
		}
		if n.Kind == yaml.SequenceNode {
			var parts []string
			for _, c := range n.Content {
				v, ok := literal(c)
				if !ok {
					return "", false
				}
				parts = append(parts, v)
			}
			return strings.Join(parts, ","), true
		}
		return literal(n)
	}
	return "", false
}

func TestFunctionsSettings(t *testing.T) {
	tpl := loadTemplate(t)
	fns := tpl.resourceIDs("AWS::Serverless::Function")
	if len(fns) == 0 {
		t.Fatalf("no AWS::Serverless::Function in %s", templatePath)
	}
	for _, fnID := range fns {
		t.Run(fnID, func(t *testing.T) {
			for _, tt := range []struct{ setting, want string }{
				{"Runtime", "provided.al2023"},
				{"Architectures", "arm64"},
				{"Handler", "bootstrap"},
			} {
				got, ok := functionSetting(tpl, fnID, tt.setting)
				if !ok || got != tt.want {
					t.Errorf("%s (own or Globals.Function): got %q (set: %v), want %q", tt.setting, got, ok, tt.want)
				}
			}
			if got, _ := literal(tpl.resourceNode(fnID, "Metadata", "BuildMethod")); got != "makefile" {
				t.Errorf("Metadata.BuildMethod: got %q, want %q", got, "makefile")
			}
		})
	}
}

// TestWriteFunctionsEndWithinTheIdempotencyLease holds every function that
// serves a write route to a Timeout shorter than the lease of an idempotency
// key (docs/idempotency.md): a request still running always holds its key,
// so a repeat can never run beside it.
func TestWriteFunctionsEndWithinTheIdempotencyLease(t *testing.T) {
	tpl := loadTemplate(t)
	writers := map[string]bool{}
	for route, events := range templateRoutes(t, tpl) {
		if !strings.HasPrefix(route, http.MethodGet+" ") {
			for _, ev := range events {
				writers[strings.SplitN(ev, ".", 2)[0]] = true
			}
		}
	}
	if len(writers) == 0 {
		t.Fatal("no function serves a write route")
	}
	for fnID := range writers {
		text, ok := functionSetting(tpl, fnID, "Timeout")
		seconds, err := strconv.Atoi(text)
		if !ok || err != nil {
			t.Errorf("%s: Timeout %q (own or Globals.Function) is not a literal number of seconds", fnID, text)
			continue
		}
		if lease := workspace.IdempotencyLease; time.Duration(seconds)*time.Second >= lease {
			t.Errorf("%s: Timeout %d s, want less than the idempotency lease (%v)", fnID, seconds, lease)
		}
	}
}

// functionsDir finds the package a build command builds: ./functions/<dir>.
var functionsDir = regexp.MustCompile(`(?:^|\s)\./functions/([A-Za-z0-9_.-]+)/?(?:\s|$)`)

// TestFunctionsBuildWithMakefile checks that `sam build` can build every
// function: make itself (a dry run, as sam build calls it, with
// ARTIFACTS_DIR) shows that build-<LogicalId> builds ./functions/<dir>, a
// package main, into ARTIFACTS_DIR/bootstrap.
func TestFunctionsBuildWithMakefile(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is needed to check the Makefile's build targets: %v", err)
	}
	tpl := loadTemplate(t)
	for _, fnID := range tpl.resourceIDs("AWS::Serverless::Function") {
		t.Run(fnID, func(t *testing.T) {
			artifacts := t.TempDir()
			cmd := exec.Command("make", "-s", "-n", "-C", repoRoot, "build-"+fnID, "ARTIFACTS_DIR="+artifacts)
			cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make -n build-%s: %v\n%s", fnID, err, out)
			}
			text := string(out)
			m := functionsDir.FindStringSubmatch(text)
			if m == nil || !strings.Contains(text, "go build") {
				t.Fatalf("make build-%s does not go build ./functions/<dir>: %s", fnID, text)
			}
			if !strings.Contains(text, artifacts+"/bootstrap") {
				t.Errorf("make build-%s does not write ARTIFACTS_DIR/bootstrap: %s", fnID, text)
			}
			mainGo := filepath.Join(repoRoot, "functions", m[1], "main.go")
			f, err := parser.ParseFile(token.NewFileSet(), mainGo, nil, parser.PackageClauseOnly)
			if err != nil {
				t.Fatalf("build-%s builds ./functions/%s: %v", fnID, m[1], err)
			}
			if got := f.Name.Name; got != "main" {
				t.Errorf("%s: package %s, want package main", mainGo, got)
			}
		})
	}
}

func TestDefaultAuthorizer(t *testing.T) {
	tpl := loadTemplate(t)
	apis := tpl.resourceIDs("AWS::Serverless::Api")
	if len(apis) == 0 {
		t.Fatalf("no AWS::Serverless::Api in %s", templatePath)
	}
	for _, apiID := range apis {
		auth := tpl.resourceNode(apiID, "Properties", "Auth")
		t.Run(apiID, func(t *testing.T) {
			name, _ := literal(node(auth, "DefaultAuthorizer"))
			if name == "" {
				t.Fatalf("Auth.DefaultAuthorizer: not set")
			}
			authNode := node(auth, "Authorizers", name)
			if authNode == nil || authNode.Kind != yaml.MappingNode {
				t.Fatalf("Auth.Authorizers.%s: missing (default authorizer %q)", name, name)
			}
			where := "Auth.Authorizers." + name
			if got, _ := literal(node(authNode, "FunctionPayloadType")); got != "REQUEST" {
				t.Errorf("%s.FunctionPayloadType: got %v, want REQUEST", where, got)
			}
			var headers []string
			if n := node(authNode, "Identity", "Headers"); n != nil && n.Kind == yaml.SequenceNode {
				for _, c := range n.Content {
					v, _ := literal(c)
					headers = append(headers, v)
				}
			}
			if got := fmt.Sprint(headers); got != "[Authorization]" {
				t.Errorf("%s.Identity.Headers: got %v, want [Authorization]", where, got)
			}

			fnRes, attr, ok := getAttTarget(node(authNode, "FunctionArn"))
			if !ok || attr != "Arn" || !slices.Contains(tpl.resourceIDs("AWS::Serverless::Function"), fnRes) {
				t.Errorf("%s.FunctionArn: got GetAtt %q.%q (ok %v), want !GetAtt <a function of the template>.Arn", where, fnRes, attr, ok)
			}
			param := refTarget(node(authNode, "Identity", "ReauthorizeEvery"))
			if param != "AuthorizerCacheTtl" {
				t.Errorf("%s.Identity.ReauthorizeEvery: got a reference to %q, want !Ref AuthorizerCacheTtl", where, param)
			}
			if param == "" {
				return
			}
			if p := node(tpl.root, "Parameters", param); p == nil {
				t.Errorf("Parameters.%s: not declared", param)
			} else if typ, _ := literal(node(p, "Type")); typ != "Number" {
				t.Errorf("Parameters.%s.Type: got %q, want Number", param, typ)
			}
		})
	}
}

// A tenant whose platform producer sits in another account names it in
// IngestProducerArn; the queue then lets exactly that principal send, and
// without it the stack adds no queue policy at all.
func TestIngestQueueAdmitsOnlyTheNamedProducer(t *testing.T) {
	tpl := loadTemplate(t)
	pattern, ok := literal(node(tpl.root, "Parameters", "IngestProducerArn", "AllowedPattern"))
	if !ok {
		t.Fatal("Parameters.IngestProducerArn.AllowedPattern: missing")
	}
	re := regexp.MustCompile(pattern)
	for value, want := range map[string]bool{
		"":                               true,
		"123456789012":                   true,
		"arn:aws:iam::123456789012:root": true,
		"arn:aws:iam::123456789012:role/platform/ingest-producer": true,
		"*":                                    false,
		"arn:aws:iam::*:root":                  false,
		"123456789012 ":                        false,
		"arn:aws:sqs:us-east-1:123456789012:q": false,
	} {
		if got := re.MatchString(value); got != want {
			t.Errorf("IngestProducerArn %q accepted = %v, want %v", value, got, want)
		}
	}
	policy := node(tpl.root, "Resources", "IngestQueuePolicy")
	if c, _ := literal(node(policy, "Condition")); c != "HasIngestProducer" {
		t.Errorf("IngestQueuePolicy.Condition = %q, want HasIngestProducer", c)
	}
	stmts := node(policy, "Properties", "PolicyDocument", "Statement")
	if stmts == nil || len(stmts.Content) != 1 {
		t.Fatal("IngestQueuePolicy: want exactly one statement")
	}
	if a, _ := literal(node(stmts.Content[0], "Action")); a != "sqs:SendMessage" {
		t.Errorf("IngestQueuePolicy grants %q, want only sqs:SendMessage", a)
	}
}
