// Package apispec embeds the service's OpenAPI 3.1 document (openapi.yaml), the
// public reference of the Workspace Administration API, and checks HTTP
// responses against it.
package apispec

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

//go:embed openapi.yaml
var document []byte

// Document returns the raw OpenAPI document (YAML) as embedded in the binary.
// It never fails; the caller gets its own copy and may modify it.
func Document() []byte {
	return bytes.Clone(document)
}

// Load parses and validates the embedded document and returns a fresh
// *openapi3.T the caller may modify. It returns a nil document and an error
// when the YAML cannot be parsed, a reference cannot be resolved, the document
// is not OpenAPI 3.1, or it breaks the OpenAPI rules (examples included).
func Load(ctx context.Context) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromData(document)
	if err != nil {
		return nil, fmt.Errorf("apispec: parse openapi.yaml: %w", err)
	}
	if !doc.IsOpenAPI31OrLater() || doc.IsOpenAPI32OrLater() {
		return nil, fmt.Errorf("apispec: openapi.yaml declares openapi %q, want 3.1.x", doc.OpenAPI)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("apispec: invalid openapi.yaml: %w", err)
	}
	return doc, nil
}

// Operations lists every operation of doc as "METHOD /path" (method in upper
// case, path as written in the document), sorted. It returns an empty, non-nil
// slice when doc is nil or has no paths.
func Operations(doc *openapi3.T) []string {
	ops := []string{}
	if doc == nil || doc.Paths == nil {
		return ops
	}
	for path, item := range doc.Paths.Map() {
		if item == nil {
			continue
		}
		for method := range item.Operations() {
			ops = append(ops, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(ops)
	return ops
}

// Validator checks HTTP responses against the document. It is safe for
// concurrent use once created.
type Validator struct {
	router routers.Router
}

// NewValidator loads the document (see Load) and builds a router over its
// paths that matches requests on any scheme and host: the document's server
// URL ({base_url}) is ignored, so "/workspaceapi/invites" is matched as is. It
// returns a nil *Validator and an error when the document does not load or the
// router cannot be built.
func NewValidator(ctx context.Context) (*Validator, error) {
	doc, err := Load(ctx)
	if err != nil {
		return nil, err
	}
	// No servers: gorillamux then matches the paths alone, on any host.
	doc.Servers = nil
	for _, item := range doc.Paths.Map() {
		item.Servers = nil
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("apispec: build router: %w", err)
	}
	return &Validator{router: router}, nil
}

// ValidateResponse checks one response to req: the route (req.Method and
// req.URL.Path) must be an operation of the document, status must be one of
// the operation's documented statuses (never "default"), the Content-Type in
// header must be one the document lists for that status, and body must match
// its schema; a status documented without content must come with an empty
// body. It returns nil when the response conforms, and otherwise an error that
// names the route and status and says what does not match.
func (v *Validator) ValidateResponse(ctx context.Context, req *http.Request, status int, header http.Header, body []byte) error {
	if v == nil || v.router == nil {
		return errors.New("apispec: nil Validator (use NewValidator)")
	}
	if req == nil || req.URL == nil {
		return errors.New("apispec: ValidateResponse needs the request with its URL")
	}
	what := fmt.Sprintf("%s %s -> %d", req.Method, req.URL.Path, status)

	route, pathParams, err := v.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("apispec: %s: route is not in the document: %w", what, err)
	}
	ref := route.Operation.Responses.Status(status)
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("apispec: %s: status %d is not documented for %s %s (documented: %s)",
			what, status, strings.ToUpper(route.Method), route.Path,
			strings.Join(route.Operation.Responses.Keys(), ", "))
	}
	if len(ref.Value.Content) == 0 && len(bytes.TrimSpace(body)) != 0 {
		return fmt.Errorf("apispec: %s: the document defines no body for this status, got %d bytes", what, len(body))
	}
	if header == nil {
		header = http.Header{}
	}

	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: pathParams,
			Route:      route,
			Options:    opts,
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: opts,
	}
	if err := openapi3filter.ValidateResponse(ctx, input); err != nil {
		return fmt.Errorf("apispec: %s: response does not match the document: %w", what, err)
	}
	return nil
}

// HasRoute reports whether the document has an operation for req's method and
// path.
func (v *Validator) HasRoute(req *http.Request) bool {
	if v == nil || v.router == nil {
		return false
	}
	_, _, err := v.router.FindRoute(req)
	return err == nil
}
