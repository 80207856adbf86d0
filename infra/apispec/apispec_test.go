package apispec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/agentplatform/workspaceapi/infra/apispec"
)

// The document is loaded, and the validator built, once for the package's
// tests (each takes about a second under -race); the tests only read them.
var (
	loaded = sync.OnceValues(func() (*openapi3.T, error) { return apispec.Load(context.Background()) })
	built  = sync.OnceValues(func() (*apispec.Validator, error) { return apispec.NewValidator(context.Background()) })
)

func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := loaded()
	if err != nil {
		t.Fatalf("apispec.Load: %v", err)
	}
	return doc
}

func newValidator(t *testing.T) *apispec.Validator {
	t.Helper()
	v, err := built()
	if err != nil {
		t.Fatalf("apispec.NewValidator: %v", err)
	}
	return v
}

func TestLoadValidatesAsOpenAPI31(t *testing.T) {
	doc := loadDoc(t)
	if got, want := doc.OpenAPI, "3.1.0"; got != want {
		t.Errorf("openapi = %q, want %q", got, want)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Errorf("IsOpenAPI31OrLater() = false, want true")
	}
	if got, want := doc.Info.Version, "1.0.0"; got != want {
		t.Errorf("info.version = %q, want %q", got, want)
	}
	// Validate again explicitly: Load must hand back a document that passes.
	if err := doc.Validate(context.Background()); err != nil {
		t.Errorf("Validate() = %v, want nil", err)
	}
	if got := apispec.Document(); !bytes.HasPrefix(got, []byte("openapi: 3.1.0")) {
		t.Errorf("Document() starts with %q, want the openapi 3.1.0 YAML", got[:min(len(got), 20)])
	}
}

func TestDocumentReturnsCopy(t *testing.T) {
	a := apispec.Document()
	a[0] = 'X'
	if b := apispec.Document(); b[0] == 'X' {
		t.Errorf("Document() shares its backing array with earlier results")
	}
}

func TestOperations(t *testing.T) {
	got := apispec.Operations(loadDoc(t))
	want := []string{
		"DELETE /workspaceapi/invites",
		"DELETE /workspaceapi/keys/{keyId}",
		"DELETE /workspaceapi/teams/{teamId}/members/{userId}",
		"DELETE /workspaceapi/webhooks/{webhookId}",
		"GET /agents/{agentId}",
		"GET /workspaceapi/agents",
		"GET /workspaceapi/agents/{agentId}",
		"GET /workspaceapi/agents/{agentId}/chats/{chatId}",
		"GET /workspaceapi/agents/{agentId}/connected-agents",
		"GET /workspaceapi/agents/{agentId}/diary",
		"GET /workspaceapi/agents/{agentId}/key-metrics",
		"GET /workspaceapi/agents/{agentId}/promotion-requests",
		"GET /workspaceapi/agents/{agentId}/usage",
		"GET /workspaceapi/audit-log",
		"GET /workspaceapi/credits",
		"GET /workspaceapi/credits/export",
		"GET /workspaceapi/invites",
		"GET /workspaceapi/keys",
		"GET /workspaceapi/members",
		"GET /workspaceapi/teams",
		"GET /workspaceapi/teams/{teamId}",
		"GET /workspaceapi/version",
		"GET /workspaceapi/webhooks",
		"GET /workspaceapi/webhooks/{webhookId}",
		"GET /workspaceapi/webhooks/{webhookId}/deliveries",
		"PATCH /workspaceapi/keys/{keyId}",
		"PATCH /workspaceapi/teams/{teamId}",
		"PATCH /workspaceapi/webhooks/{webhookId}",
		"POST /workspaceapi/agents/credit-details",
		"POST /workspaceapi/agents/credit-limits",
		"POST /workspaceapi/agents/daily-usage/reset",
		"POST /workspaceapi/agents/status",
		"POST /workspaceapi/agents/tags",
		"POST /workspaceapi/invites",
		"POST /workspaceapi/keys",
		"POST /workspaceapi/members/tags",
		"POST /workspaceapi/teams",
		"POST /workspaceapi/teams/tags",
		"POST /workspaceapi/webhooks",
		"POST /workspaceapi/webhooks/{webhookId}/rotate-secret",
		"POST /workspaceapi/webhooks/{webhookId}/test",
		"PUT /workspaceapi/teams/{teamId}/credit-limit",
		"PUT /workspaceapi/teams/{teamId}/members/{userId}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Operations() = %q, want %q", got, want)
	}
	if got := apispec.Operations(nil); got == nil || len(got) != 0 {
		t.Errorf("Operations(nil) = %#v, want an empty non-nil slice", got)
	}
}

// TestOperationConventions checks the rules every operation of the document
// follows: scope, security, descriptions, error schema, no default response.
func TestOperationConventions(t *testing.T) {
	doc := loadDoc(t)
	scheme := doc.Components.SecuritySchemes["apiKey"]
	if scheme == nil || scheme.Value == nil {
		t.Fatalf("components.securitySchemes.apiKey is missing")
	}
	if got, want := scheme.Value.Type+" "+scheme.Value.Scheme, "http bearer"; got != want {
		t.Errorf("apiKey scheme = %q, want %q", got, want)
	}
	if got, want := scheme.Value.BearerFormat, "wk_<32+ base62>"; got != want {
		t.Errorf("apiKey bearerFormat = %q, want %q", got, want)
	}
	errorSchema := "#/components/schemas/Error"

	wantScope := map[string]string{
		"POST /workspaceapi/invites":   "invite",
		"GET /workspaceapi/invites":    "read",
		"DELETE /workspaceapi/invites": "invite",
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			t.Run(name, func(t *testing.T) {
				if op.OperationID == "" || op.Description == "" || op.Summary == "" {
					t.Errorf("operationId/summary/description = %q/%q/%q, want all set", op.OperationID, op.Summary, op.Description)
				}
				scope := wantScope[name]
				if scope == "" {
					scope = map[string]string{"GET": "read"}[method]
					if scope == "" {
						scope = "write"
					}
				}
				if op.Security == nil || len(*op.Security) != 1 {
					t.Fatalf("security = %v, want [{apiKey: [%s]}]", op.Security, scope)
				}
				if got := (*op.Security)[0]["apiKey"]; !slices.Equal(got, []string{scope}) {
					t.Errorf("security apiKey scopes = %q, want [%q]", got, scope)
				}
				if got := op.Extensions["x-required-scope"]; got != scope {
					t.Errorf("x-required-scope = %v, want %q", got, scope)
				}
				if op.Responses.Default() != nil {
					t.Errorf("operation has a default response; every status must be listed")
				}
				for _, code := range op.Responses.Keys() {
					resp := op.Responses.Value(code).Value
					if resp.Description == nil || *resp.Description == "" {
						t.Errorf("response %s has no description", code)
					}
					if code[0] != '4' && code[0] != '5' {
						continue
					}
					mt := resp.Content.Get("application/json")
					if mt == nil || mt.Schema == nil || mt.Schema.Ref != errorSchema {
						t.Errorf("response %s does not use %s", code, errorSchema)
					}
				}
				for _, p := range op.Parameters {
					if p.Value.Description == "" {
						t.Errorf("parameter %s has no description", p.Value.Name)
					}
				}
				if method != http.MethodGet {
					checkIdempotencyKey(t, op)
				}
			})
		}
	}
}

// checkIdempotencyKey holds a write operation to the idempotency-key rules
// (docs/idempotency.md): it takes the header, documents its 409 and 422, and
// its success answers say when they are replayed.
func checkIdempotencyKey(t *testing.T, op *openapi3.Operation) {
	t.Helper()
	const param = "#/components/parameters/IdempotencyKey"
	if !slices.ContainsFunc(op.Parameters, func(p *openapi3.ParameterRef) bool { return p.Ref == param }) {
		t.Errorf("a write without the %s parameter", param)
	}
	for _, code := range []string{"409", "422"} {
		if op.Responses.Value(code) == nil {
			t.Errorf("a write without a %s response (idempotency keys)", code)
		}
	}
	for _, code := range op.Responses.Keys() {
		if code[0] == '2' && op.Responses.Value(code).Value.Headers["Idempotent-Replayed"] == nil {
			t.Errorf("response %s does not declare the Idempotent-Replayed header", code)
		}
	}
}

// TestSchemaFieldsDescribed checks that every property of every component
// schema carries a description.
func TestSchemaFieldsDescribed(t *testing.T) {
	doc := loadDoc(t)
	var walk func(where string, s *openapi3.SchemaRef)
	walk = func(where string, s *openapi3.SchemaRef) {
		if s == nil || s.Value == nil || s.Ref != "" && where != "" {
			return
		}
		for name, p := range s.Value.Properties {
			if p.Ref == "" && p.Value.Description == "" {
				t.Errorf("%s.%s has no description", where, name)
			}
			walk(where+"."+name, p)
		}
		if s.Value.Items != nil {
			walk(where+"[]", s.Value.Items)
		}
	}
	for name, s := range doc.Components.Schemas {
		if s.Value.Description == "" {
			t.Errorf("schema %s has no description", name)
		}
		walk("", &openapi3.SchemaRef{Value: s.Value})
	}
}

func TestEmailPattern(t *testing.T) {
	doc := loadDoc(t)
	email := doc.Components.Schemas["CreateInviteRequest"].Value.Properties["email"].Value
	tests := []struct {
		email string
		valid bool
	}{
		{"ada@example.com", true},
		{"Ada.Lovelace@Example.COM", true},
		{"o'brien+ops@mail.example.co.uk", true},
		{"_@1.co", true},
		{"a-@b-.co", true},
		{"a@b.co", true},
		{".ada@example.com", false},                        // leading dot
		{"ada..l@example.com", false},                      // two consecutive dots
		{"ada.@example.com", false},                        // last local character a dot
		{"ada'@example.com", false},                        // last local character a quote
		{"'@example.com", false},                           // single quote only
		{"user@localhost", false},                          // domain without a dot
		{"ada@example.c", false},                           // final label shorter than 2
		{"ada@example.c0m", false},                         // final label not letters only
		{"ada@-example.com", false},                        // label starting with a hyphen
		{"ada@exa_mple.com", false},                        // underscore in the domain
		{"ada@example..com", false},                        // empty label
		{" ada@example.com", false},                        // not trimmed
		{"ada@example.com\n", false},                       // not trimmed
		{"adé@example.com", false},                         // ASCII only
		{"ada@@example.com", false},                        // two @
		{"ada", false},                                     // no @
		{"", false},                                        // empty
		{strings.Repeat("a", 243) + "@example.com", false}, // 255 characters
		{strings.Repeat("a", 242) + "@example.com", true},  // 254 characters
	}
	for _, tt := range tests {
		err := email.VisitJSON(tt.email, openapi3.EnableJSONSchema2020())
		if got := err == nil; got != tt.valid {
			t.Errorf("email %q valid = %v, want %v (err: %v)", tt.email, got, tt.valid, err)
		}
	}
}

func request(t *testing.T, method, target string) *http.Request {
	t.Helper()
	return httptest.NewRequest(method, target, nil)
}

func jsonHeader() http.Header {
	return http.Header{"Content-Type": []string{"application/json"}}
}

const validInvitation = `{
	"id": "inv_01JD3NB5X8T2M4Q7W9Z1K3R6PA",
	"type": "workspace",
	"email": "grace.hopper@example.com",
	"customerId": "ws_acme",
	"customerName": "Acme Corp",
	"customerRole": "collaborator",
	"status": "pending",
	"createdAt": "2026-11-21T22:33:01.123Z",
	"expiresAt": "2026-12-05T22:33:01.123Z",
	"isExpired": false,
	"invitedByUserName": "Ada Lovelace",
	"groups": [{"groupId": "team_1", "role": "member", "extra": true}],
	"somethingNew": "additional properties are allowed"
}`

func withoutField(t *testing.T, body, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("test body: %v", err)
	}
	delete(m, field)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("test body: %v", err)
	}
	return string(b)
}

func TestValidateResponse(t *testing.T) {
	v := newValidator(t)
	tests := []struct {
		name    string
		method  string
		target  string
		status  int
		header  http.Header
		body    string
		wantErr string // "" means the response must pass
	}{
		{
			name: "valid 201 invitation", method: http.MethodPost,
			target: "/workspaceapi/invites", status: 201, header: jsonHeader(), body: validInvitation,
		},
		{
			name: "any host and scheme", method: http.MethodPost,
			target: "https://abc.execute-api.eu-west-1.amazonaws.com/workspaceapi/invites", status: 201,
			header: http.Header{"Content-Type": []string{"application/json; charset=utf-8"}}, body: validInvitation,
		},
		{
			name: "201 without required email", method: http.MethodPost,
			target: "/workspaceapi/invites", status: 201, header: jsonHeader(),
			body: withoutField(t, validInvitation, "email"), wantErr: `property "email" is missing`,
		},
		{
			name: "201 with an unknown type", method: http.MethodPost,
			target: "/workspaceapi/invites", status: 201, header: jsonHeader(),
			body: strings.Replace(validInvitation, `"type": "workspace"`, `"type": "team"`, 1), wantErr: `"/type"`,
		},
		{
			name: "201 with a non-UTC timestamp", method: http.MethodPost,
			target: "/workspaceapi/invites", status: 201, header: jsonHeader(),
			body: strings.Replace(validInvitation, `22:33:01.123Z",
	"expiresAt"`, `22:33:01.123+01:00",
	"expiresAt"`, 1), wantErr: `"/createdAt"`,
		},
		{
			name: "error body", method: http.MethodPost,
			target: "/workspaceapi/invites", status: 400, header: jsonHeader(),
			body: `{"error": "unknown field \"expiresInDay\""}`,
		},
		{
			name: "error body with an extra key", method: http.MethodPost,
			target: "/workspaceapi/invites", status: 400, header: jsonHeader(),
			body: `{"error": "bad", "code": "invalid"}`, wantErr: "'code' not allowed",
		},
		{
			name: "error body that is not JSON", method: http.MethodGet,
			target: "/workspaceapi/invites", status: 500, header: jsonHeader(),
			body: `internal error`, wantErr: "decode",
		},
		{
			name: "error with a text content type", method: http.MethodGet,
			target: "/workspaceapi/invites", status: 401,
			header: http.Header{"Content-Type": []string{"text/plain"}},
			body:   `{"error": "missing or invalid API key"}`, wantErr: "text/plain",
		},
		{
			name: "error without a content type", method: http.MethodGet,
			target: "/workspaceapi/invites", status: 401, header: nil,
			body: `{"error": "missing or invalid API key"}`, wantErr: "Content-Type",
		},
		{
			name: "undocumented status", method: http.MethodPost,
			target: "/workspaceapi/invites", status: 418, header: jsonHeader(),
			body: `{"error": "teapot"}`, wantErr: "not documented",
		},
		{
			name: "status documented for another operation only", method: http.MethodGet,
			target: "/workspaceapi/invites", status: 404, header: jsonHeader(),
			body: `{"error": "not found"}`, wantErr: "not documented",
		},
		{
			name: "undocumented success status", method: http.MethodDelete,
			target: "/workspaceapi/invites", status: 204, header: nil, body: ``, wantErr: "not documented",
		},
		{
			name: "unknown path", method: http.MethodGet,
			target: "/workspaceapi/nothing", status: 200, header: jsonHeader(), body: `{}`, wantErr: "not in the document",
		},
		{
			name: "known path, method not served", method: http.MethodPut,
			target: "/workspaceapi/invites", status: 200, header: jsonHeader(), body: `{}`, wantErr: "not in the document",
		},
		{
			name: "valid list", method: http.MethodGet,
			target: "/workspaceapi/invites", status: 200, header: jsonHeader(),
			body: `{"invites": [` + validInvitation + `], "nextCursor": null}`,
		},
		{
			name: "empty list", method: http.MethodGet,
			target: "/workspaceapi/invites", status: 200, header: jsonHeader(), body: `{"invites": [], "nextCursor": null}`,
		},
		{
			name: "list without invites", method: http.MethodGet,
			target: "/workspaceapi/invites", status: 200, header: jsonHeader(), body: `{}`, wantErr: `"/invites"`,
		},
		{
			name: "valid batch result", method: http.MethodDelete,
			target: "/workspaceapi/invites", status: 200, header: jsonHeader(),
			body: `{"results": [
				{"id": "inv_1", "success": true, "name": "a@example.com", "unchanged": false, "applied": {"status": "revoked"}},
				{"id": "inv_2", "success": false, "error": "invitation not found"}
			], "summary": {"total": 2, "succeeded": 1, "failed": 1, "unchanged": 0}}`,
		},
		{
			name: "batch result with a non-integer summary", method: http.MethodDelete,
			target: "/workspaceapi/invites", status: 200, header: jsonHeader(),
			body:    `{"results": [], "summary": {"total": 1.5, "succeeded": 1, "failed": 0, "unchanged": 0}}`,
			wantErr: `doesn't match any schema from "anyOf"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.ValidateResponse(context.Background(), request(t, tt.method, tt.target), tt.status, tt.header, []byte(tt.body))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("ValidateResponse() = %v, want nil", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("ValidateResponse() = nil, want an error mentioning %q", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("ValidateResponse() = %v, want an error mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestNilValidator(t *testing.T) {
	var v *apispec.Validator
	err := v.ValidateResponse(context.Background(), request(t, http.MethodGet, "/workspaceapi/invites"), 200, jsonHeader(), []byte(`{"invites": [], "nextCursor": null}`))
	if err == nil {
		t.Errorf("nil Validator: ValidateResponse() = nil, want an error")
	}
}

// TestValidatorConcurrentUse runs validations in parallel (meaningful under -race).
func TestValidatorConcurrentUse(t *testing.T) {
	v := newValidator(t)
	body := []byte(`{"invites": [` + validInvitation + `], "nextCursor": null}`)
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			errs <- v.ValidateResponse(context.Background(), httptest.NewRequest(http.MethodGet, "/workspaceapi/invites", nil), 200, jsonHeader(), body)
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Errorf("ValidateResponse() = %v, want nil", err)
		}
	}
}
