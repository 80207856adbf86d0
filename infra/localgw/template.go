// Package localgw is a local stand-in for the deployed API Gateway REST API.
// It reads template.yaml and answers requests exactly as the deployed gateway
// would: same routes, same Lambda REQUEST authorizer (with its policy cache),
// same gateway responses, same Lambda proxy events. Functions are invoked
// in-process through the lambda.Handler interface, JSON in and JSON out.
package localgw

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

const (
	// defaultFunctionTimeout is Lambda's timeout when the template sets none.
	defaultFunctionTimeout = 3 * time.Second
	// defaultReauthorizeEvery is SAM's ReauthorizeEvery when the template sets none.
	defaultReauthorizeEvery = 300 * time.Second
	// implicitStage is the stage of SAM's implicit API.
	implicitStage = "Prod"
	// API key sources (an Api's ApiKeySourceType): the x-api-key header, API
	// Gateway's default, or the usageIdentifierKey of the authorizer's response.
	apiKeySourceHeader     = "HEADER"
	apiKeySourceAuthorizer = "AUTHORIZER"
)

// Template is what the gateway needs from template.yaml: the routes of every
// AWS::Serverless::Function (and whether each requires an API key), the API's
// authorizers, API key source and gateway responses, the function logical ids
// (with their timeouts) and the parameter defaults.
type Template struct {
	params      map[string]string
	stage       string
	functions   map[string]time.Duration // logical id -> timeout
	routes      []route
	authorizers map[string]authorizerSpec
	responses   map[string]gatewayResponse
	// binaryMediaTypes is the API's BinaryMediaTypes, "~1" read as "/".
	binaryMediaTypes []string
	// apiKeySource is where methods that require an API key find it:
	// apiKeySourceHeader or apiKeySourceAuthorizer.
	apiKeySource string
	streams      []StreamSource
}

// StreamSource is a DynamoDB event of a function: the table's stream feeds
// it, through its filter, in batches of up to BatchSize records.
type StreamSource struct {
	FunctionID string
	// Filter is the event's one filter pattern (FilterCriteria); empty:
	// none.
	Filter    string
	BatchSize int
}

// StreamSources returns the functions the table's stream feeds, in the
// template's order.
func (t *Template) StreamSources() []StreamSource { return slices.Clone(t.streams) }

// Route is one Api event of a function.
type Route struct {
	Method     string // upper case, e.g. GET; ANY for SAM's "any"
	Path       string // the template path, e.g. /agents/{agentId}
	FunctionID string // logical id of the function the route invokes
}

// String returns "METHOD /path".
func (r Route) String() string { return r.Method + " " + r.Path }

type route struct {
	Route
	segments       []string
	authorizer     string // name of the route's authorizer; "" when none
	apiKeyRequired bool   // the method needs an API key of a usage plan
}

// authorizerSpec is one Lambda REQUEST authorizer of the API.
type authorizerSpec struct {
	name         string
	functionID   string
	headers      []string // identity headers
	queryStrings []string // identity query strings
	ttl          time.Duration
}

// LoadTemplate reads and parses the SAM template at path. It returns an error
// when the file cannot be read or ParseTemplate rejects it.
func LoadTemplate(path string) (*Template, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("localgw: %w", err)
	}
	t, err := ParseTemplate(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ParseTemplate parses a SAM template. It returns an error when the YAML is
// invalid, or when the template uses something the gateway cannot serve
// faithfully: an unresolvable value, an unknown or non-REQUEST authorizer,
// more than one AWS::Serverless::Api, an invalid or duplicate route, an
// unknown gateway response type, a non-static gateway response header, an
// ApiKeySourceType other than HEADER or AUTHORIZER or an ApiKeyRequired that
// is not a boolean.
func ParseTemplate(data []byte) (*Template, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("localgw: template: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errors.New("localgw: template: empty document")
	}
	t, err := newParser(doc.Content[0]).parse()
	if err != nil {
		return nil, fmt.Errorf("localgw: template: %w", err)
	}
	return t, nil
}

// Routes lists every route, sorted by path and then method.
func (t *Template) Routes() []Route {
	routes := make([]Route, 0, len(t.routes))
	for _, r := range t.routes {
		routes = append(routes, r.Route)
	}
	slices.SortFunc(routes, func(a, b Route) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return routes
}

// FunctionIDs lists the logical id of every AWS::Serverless::Function, sorted.
func (t *Template) FunctionIDs() []string {
	ids := make([]string, 0, len(t.functions))
	for id := range t.functions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ParameterDefault returns the Default of a template parameter, and false when
// the parameter does not exist or has no default.
func (t *Template) ParameterDefault(name string) (string, bool) {
	v, ok := t.params[name]
	return v, ok
}

// Stage returns the API's StageName ("Prod", SAM's implicit stage, when the
// template has no AWS::Serverless::Api).
func (t *Template) Stage() string { return t.stage }

// parser resolves the parts of a template the gateway uses.
type parser struct {
	root      *yaml.Node
	resources map[string]*yaml.Node // logical id -> resource
	order     []string              // logical ids in template order
	params    map[string]string
	apiID     string // logical id of the AWS::Serverless::Api; "" when none
	// apiKeyRequired is the API's Auth.ApiKeyRequired, every route's default.
	apiKeyRequired bool
	t              *Template
}

func newParser(root *yaml.Node) *parser {
	return &parser{
		root:      root,
		resources: map[string]*yaml.Node{},
		params:    map[string]string{},
		t: &Template{
			stage:        implicitStage,
			apiKeySource: apiKeySourceHeader,
			functions:    map[string]time.Duration{},
			authorizers:  map[string]authorizerSpec{},
			responses:    map[string]gatewayResponse{},
		},
	}
}

func (p *parser) parse() (*Template, error) {
	for name, param := range pairs(lookup(p.root, "Parameters")) {
		if d := lookup(param, "Default"); d != nil && d.Kind == yaml.ScalarNode {
			p.params[name] = d.Value
		}
	}
	p.t.params = p.params

	resources := lookup(p.root, "Resources")
	if resources == nil {
		return nil, errors.New("no Resources")
	}
	var apis []string
	for id, res := range pairs(resources) {
		p.resources[id] = res
		p.order = append(p.order, id)
		if resourceType(res) == "AWS::Serverless::Api" {
			apis = append(apis, id)
		}
	}
	switch len(apis) {
	case 0:
	case 1:
		p.apiID = apis[0]
	default:
		return nil, fmt.Errorf("more than one AWS::Serverless::Api (%s); only one is supported", strings.Join(apis, ", "))
	}

	defaultTimeout := defaultFunctionTimeout
	if n := lookup(lookup(lookup(p.root, "Globals"), "Function"), "Timeout"); n != nil {
		d, err := p.timeout(n)
		if err != nil {
			return nil, fmt.Errorf("Globals.Function.Timeout: %w", err)
		}
		defaultTimeout = d
	}
	var functionIDs []string
	for _, id := range p.order {
		res := p.resources[id]
		if resourceType(res) != "AWS::Serverless::Function" {
			continue
		}
		functionIDs = append(functionIDs, id)
		p.t.functions[id] = defaultTimeout
		if n := lookup(lookup(res, "Properties"), "Timeout"); n != nil {
			d, err := p.timeout(n)
			if err != nil {
				return nil, fmt.Errorf("%s.Timeout: %w", id, err)
			}
			p.t.functions[id] = d
		}
	}

	defaultAuthorizer := ""
	if p.apiID != "" {
		var err error
		if defaultAuthorizer, err = p.parseAPI(lookup(p.resources[p.apiID], "Properties")); err != nil {
			return nil, fmt.Errorf("%s: %w", p.apiID, err)
		}
	}
	for _, id := range functionIDs {
		if err := p.parseEvents(id, defaultAuthorizer); err != nil {
			return nil, err
		}
	}
	if err := checkVariableSiblings(p.t.routes); err != nil {
		return nil, err
	}
	return p.t, nil
}

// parseAPI reads the API's stage, authorizers and gateway responses, and
// returns the name of its default authorizer ("" when none).
func (p *parser) parseAPI(props *yaml.Node) (string, error) {
	if n := lookup(props, "StageName"); n != nil {
		stage, err := p.str(n)
		if err != nil {
			return "", fmt.Errorf("StageName: %w", err)
		}
		p.t.stage = stage
	}
	if n := lookup(props, "BinaryMediaTypes"); n != nil {
		types, err := p.strs(n)
		if err != nil {
			return "", fmt.Errorf("BinaryMediaTypes: %w", err)
		}
		for _, mt := range types {
			// SAM writes "/" as "~1" (a JSON pointer escape) in these names.
			mt = strings.ToLower(strings.ReplaceAll(mt, "~1", "/"))
			if typ, sub, ok := strings.Cut(mt, "/"); !ok || typ == "" || sub == "" {
				return "", fmt.Errorf("BinaryMediaTypes: %q is not a media type", mt)
			}
			p.t.binaryMediaTypes = append(p.t.binaryMediaTypes, mt)
		}
	}
	if n := lookup(props, "ApiKeySourceType"); n != nil {
		source, err := p.str(n)
		if err != nil {
			return "", fmt.Errorf("ApiKeySourceType: %w", err)
		}
		if source != apiKeySourceHeader && source != apiKeySourceAuthorizer {
			return "", fmt.Errorf("ApiKeySourceType %q is neither %s nor %s", source, apiKeySourceHeader, apiKeySourceAuthorizer)
		}
		p.t.apiKeySource = source
	}
	auth := lookup(props, "Auth")
	if n := lookup(auth, "ApiKeyRequired"); n != nil {
		var err error
		if p.apiKeyRequired, err = p.boolean(n); err != nil {
			return "", fmt.Errorf("Auth.ApiKeyRequired: %w", err)
		}
	}
	for name, a := range pairs(lookup(auth, "Authorizers")) {
		spec, err := p.parseAuthorizer(name, a)
		if err != nil {
			return "", fmt.Errorf("authorizer %s: %w", name, err)
		}
		p.t.authorizers[name] = spec
	}
	defaultAuthorizer := ""
	if n := lookup(auth, "DefaultAuthorizer"); n != nil {
		name, err := p.str(n)
		if err != nil {
			return "", fmt.Errorf("DefaultAuthorizer: %w", err)
		}
		if _, ok := p.t.authorizers[name]; !ok {
			return "", fmt.Errorf("DefaultAuthorizer %q is not one of Auth.Authorizers", name)
		}
		defaultAuthorizer = name
	}
	for typ, n := range pairs(lookup(props, "GatewayResponses")) {
		gr, err := p.parseGatewayResponse(typ, n)
		if err != nil {
			return "", fmt.Errorf("GatewayResponses.%s: %w", typ, err)
		}
		p.t.responses[typ] = gr
	}
	return defaultAuthorizer, nil
}

func (p *parser) parseAuthorizer(name string, n *yaml.Node) (authorizerSpec, error) {
	spec := authorizerSpec{name: name, ttl: defaultReauthorizeEvery}
	payloadType := "TOKEN" // SAM's default
	if v := lookup(n, "FunctionPayloadType"); v != nil {
		var err error
		if payloadType, err = p.str(v); err != nil {
			return spec, fmt.Errorf("FunctionPayloadType: %w", err)
		}
	}
	if payloadType != "REQUEST" {
		return spec, fmt.Errorf("FunctionPayloadType %s is not supported (only REQUEST)", payloadType)
	}
	fn, err := p.functionArn(lookup(n, "FunctionArn"))
	if err != nil {
		return spec, fmt.Errorf("FunctionArn: %w", err)
	}
	spec.functionID = fn
	identity := lookup(n, "Identity")
	for key, v := range pairs(identity) {
		switch key {
		case "Headers":
			spec.headers, err = p.strs(v)
		case "QueryStrings":
			spec.queryStrings, err = p.strs(v)
		case "ReauthorizeEvery":
			spec.ttl, err = p.seconds(v)
		default:
			err = errors.New("not supported")
		}
		if err != nil {
			//lint:ignore ST1005 the message starts with the template property it names, spelled as in template.yaml
			return spec, fmt.Errorf("Identity.%s: %w", key, err)
		}
	}
	if spec.ttl > 0 && len(spec.headers)+len(spec.queryStrings) == 0 {
		return spec, errors.New("caching (ReauthorizeEvery > 0) needs an identity source")
	}
	return spec, nil
}

func (p *parser) parseGatewayResponse(typ string, n *yaml.Node) (gatewayResponse, error) {
	var gr gatewayResponse
	if _, ok := responseDefaults[typ]; !ok {
		return gr, errors.New("unknown gateway response type")
	}
	if v := lookup(n, "StatusCode"); v != nil {
		s, err := p.str(v)
		if err != nil {
			return gr, fmt.Errorf("StatusCode: %w", err)
		}
		if gr.status, err = strconv.Atoi(s); err != nil || gr.status < 100 || gr.status > 599 {
			return gr, fmt.Errorf("StatusCode %q is not an HTTP status", s)
		}
	}
	for name, v := range pairs(lookup(lookup(n, "ResponseParameters"), "Headers")) {
		s, err := p.str(v)
		if err != nil {
			return gr, fmt.Errorf("header %s: %w", name, err)
		}
		value, ok := strings.CutPrefix(s, "'")
		if value, ok2 := strings.CutSuffix(value, "'"); ok && ok2 {
			if gr.headers == nil {
				gr.headers = map[string]string{}
			}
			gr.headers[name] = value
			continue
		}
		return gr, fmt.Errorf("header %s: only static values ('...') are supported, got %s", name, s)
	}
	if v := lookup(lookup(n, "ResponseTemplates"), "application/json"); v != nil {
		s, err := p.str(v)
		if err != nil {
			return gr, fmt.Errorf("ResponseTemplates: %w", err)
		}
		gr.template, gr.hasTemplate = s, true
	}
	return gr, nil
}

// parseEvents adds the Api events of function id to the routes.
func (p *parser) parseEvents(id, defaultAuthorizer string) error {
	for name, ev := range pairs(lookup(lookup(p.resources[id], "Properties"), "Events")) {
		if v := lookup(ev, "Type"); v != nil && v.Value == "DynamoDB" {
			src, err := parseStream(id, lookup(ev, "Properties"))
			if err != nil {
				return fmt.Errorf("%s.Events.%s: %w", id, name, err)
			}
			p.t.streams = append(p.t.streams, src)
			continue
		}
		if v := lookup(ev, "Type"); v == nil || v.Value != "Api" {
			continue
		}
		r, err := p.parseRoute(id, ev, defaultAuthorizer)
		if err != nil {
			return fmt.Errorf("%s.Events.%s: %w", id, name, err)
		}
		for _, other := range p.t.routes {
			if other.Route.String() == r.Route.String() {
				return fmt.Errorf("%s.Events.%s: route %s is also an event of %s", id, name, r.Route, other.FunctionID)
			}
		}
		p.t.routes = append(p.t.routes, r)
	}
	return nil
}

// parseStream reads a DynamoDB event: its batch size (default 100, as
// Lambda's) and its filter, of which the local poller takes at most one.
func parseStream(id string, props *yaml.Node) (StreamSource, error) {
	src := StreamSource{FunctionID: id, BatchSize: 100}
	if n := lookup(props, "BatchSize"); n != nil {
		size, err := strconv.Atoi(n.Value)
		if err != nil || size < 1 {
			return StreamSource{}, fmt.Errorf("BatchSize %q is not a positive number", n.Value)
		}
		src.BatchSize = size
	}
	if filters := lookup(lookup(props, "FilterCriteria"), "Filters"); filters != nil {
		if filters.Kind != yaml.SequenceNode || len(filters.Content) != 1 {
			return StreamSource{}, errors.New("the local stream poller takes exactly one filter")
		}
		pattern := lookup(filters.Content[0], "Pattern")
		if pattern == nil || pattern.Kind != yaml.ScalarNode {
			return StreamSource{}, errors.New("a filter without a literal Pattern")
		}
		src.Filter = pattern.Value
	}
	return src, nil
}

func (p *parser) parseRoute(id string, ev *yaml.Node, defaultAuthorizer string) (route, error) {
	props := lookup(ev, "Properties")
	r := route{Route: Route{FunctionID: id}, authorizer: defaultAuthorizer, apiKeyRequired: p.apiKeyRequired}
	if v := lookup(props, "RestApiId"); v != nil {
		api, err := p.str(v)
		if err != nil {
			return r, fmt.Errorf("RestApiId: %w", err)
		}
		if api != p.apiID {
			return r, fmt.Errorf("RestApiId %s is not an AWS::Serverless::Api of the template", api)
		}
	} else if p.apiID != "" {
		return r, fmt.Errorf("no RestApiId: SAM would put it on its implicit API, not on %s", p.apiID)
	}

	method, err := p.str(lookup(props, "Method"))
	if err != nil {
		//lint:ignore ST1005 the message starts with the template property it names, spelled as in template.yaml
		return r, fmt.Errorf("Method: %w", err)
	}
	r.Method = strings.ToUpper(method)
	if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "ANY"}, r.Method) {
		//lint:ignore ST1005 the message starts with the template property it names, spelled as in template.yaml
		return r, fmt.Errorf("Method %q is not an HTTP method", method)
	}
	if r.Path, err = p.str(lookup(props, "Path")); err != nil {
		//lint:ignore ST1005 the message starts with the template property it names, spelled as in template.yaml
		return r, fmt.Errorf("Path: %w", err)
	}
	if r.segments, err = templateSegments(r.Path); err != nil {
		//lint:ignore ST1005 the message starts with the template property it names, spelled as in template.yaml
		return r, fmt.Errorf("Path %q: %w", r.Path, err)
	}

	if v := lookup(lookup(props, "Auth"), "ApiKeyRequired"); v != nil {
		if r.apiKeyRequired, err = p.boolean(v); err != nil {
			return r, fmt.Errorf("Auth.ApiKeyRequired: %w", err)
		}
	}
	if v := lookup(lookup(props, "Auth"), "Authorizer"); v != nil {
		name, err := p.str(v)
		if err != nil {
			return r, fmt.Errorf("Auth.Authorizer: %w", err)
		}
		if name == "NONE" {
			r.authorizer = ""
			return r, nil
		}
		if _, ok := p.t.authorizers[name]; !ok {
			return r, fmt.Errorf("Auth.Authorizer %q is not one of the API's authorizers", name)
		}
		r.authorizer = name
	}
	return r, nil
}

// binaryContentType reports whether a request's Content-Type is one of the
// API's binary media types, so that its body reaches the function base64-
// encoded. A request without Content-Type matches none.
func (t *Template) binaryContentType(contentType string) bool {
	return t.matchesBinary(contentType)
}

// binaryAccepted reports whether the first media type of a request's Accept
// header is one of the API's binary media types: API Gateway then decodes a
// function's base64 body to binary ("API Gateway uses the first Accept header
// from clients to determine if a response should return binary media", in
// "Binary media types for REST APIs"). Without Accept nothing matches, as
// LocalStack, which tested these rules against AWS, has it (its
// apigateway helpers' mime_type_matches_binary_media_types); a client that
// wants a binary answer must send Accept.
func (t *Template) binaryAccepted(accept string) bool {
	first, _, _ := strings.Cut(accept, ",")
	return t.matchesBinary(first)
}

// matchesBinary matches one media type (parameters ignored) against the
// binary media types: exactly, by a type/* entry, or by */*, which "includes
// all content types".
func (t *Template) matchesBinary(mediaType string) bool {
	mt, _, _ := strings.Cut(mediaType, ";")
	typ, sub, ok := strings.Cut(strings.ToLower(strings.TrimSpace(mt)), "/")
	if !ok || typ == "" || sub == "" {
		return false
	}
	for _, b := range t.binaryMediaTypes {
		bt, bs, _ := strings.Cut(b, "/")
		if (bt == "*" && bs == "*") || (bt == typ && (bs == "*" || bs == sub)) {
			return true
		}
	}
	return false
}
