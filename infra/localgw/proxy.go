package localgw

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// request is what the authorizer and the integration are told of a request.
type request struct {
	id        string
	method    string
	path      string // raw (percent-encoded) path, without the stage
	route     *route
	methodArn string
	header    http.Header
	query     url.Values
	sourceIP  string
	userAgent string
	protocol  string
	host      string

	headers                         map[string]string
	multiValueHeaders               map[string][]string
	queryStringParameters           map[string]string
	multiValueQueryStringParameters map[string][]string
	pathParameters                  map[string]string
}

func (g *Gateway) newRequest(r *http.Request, id, rawPath string, rt *route, params map[string]string) *request {
	req := &request{
		id:             id,
		method:         r.Method,
		path:           rawPath,
		route:          rt,
		methodArn:      fmt.Sprintf("arn:aws:execute-api:%s:%s:%s/%s/%s%s", g.region, g.accountID, g.apiID, g.stage, r.Method, rawPath),
		header:         r.Header.Clone(),
		sourceIP:       r.RemoteAddr,
		userAgent:      r.UserAgent(),
		protocol:       r.Proto,
		host:           r.Host,
		pathParameters: params,
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		req.sourceIP = host
	}

	// API Gateway passes the Host header, and adds the X-Forwarded ones.
	req.header.Set("Host", r.Host)
	forwardedFor := req.sourceIP
	if prior := req.header.Get("X-Forwarded-For"); prior != "" {
		forwardedFor = prior + ", " + forwardedFor
	}
	req.header.Set("X-Forwarded-For", forwardedFor)
	proto, port := "http", "80"
	if r.TLS != nil {
		proto, port = "https", "443"
	}
	if _, p, err := net.SplitHostPort(r.Host); err == nil {
		port = p
	}
	req.header.Set("X-Forwarded-Proto", proto)
	req.header.Set("X-Forwarded-Port", port)

	req.headers, req.multiValueHeaders = singleAndMulti(req.header)
	req.query = gatewayQuery(r.URL.RawQuery)
	if len(req.query) > 0 {
		req.queryStringParameters, req.multiValueQueryStringParameters = singleAndMulti(req.query)
	}
	return req
}

// gatewayQuery splits a raw query string into its parameters as API
// Gateway's REST APIs do: a plain semicolon separates pairs just as an
// ampersand does (API Gateway's documented known issue: ";" in a query
// string "results in the data being split"), so "a=1;b=2" is a=1 and b=2
// and no pair that holds one is lost. A pair whose percent-escapes do not
// decode is left out, the rest kept.
func gatewayQuery(raw string) url.Values {
	q, _ := url.ParseQuery(strings.ReplaceAll(raw, ";", "&")) // Go drops ";" pairs; the gateway splits at them
	return q
}

// singleAndMulti returns API Gateway's two views of a multi-valued map: the
// last value of each key, and all of them.
func singleAndMulti(m map[string][]string) (map[string]string, map[string][]string) {
	single := make(map[string]string, len(m))
	multi := make(map[string][]string, len(m))
	for k, vs := range m {
		if len(vs) == 0 {
			continue
		}
		single[k] = vs[len(vs)-1]
		multi[k] = slices.Clone(vs)
	}
	return single, multi
}

// proxyEvent is the Lambda proxy integration's input.
func (g *Gateway) proxyEvent(req *request, body []byte, authorizer map[string]any) events.APIGatewayProxyRequest {
	now := g.now()
	domain := req.host
	if host, _, err := net.SplitHostPort(req.host); err == nil {
		domain = host
	}
	ev := events.APIGatewayProxyRequest{
		Resource:                        req.route.Path,
		Path:                            req.path,
		HTTPMethod:                      req.method,
		Headers:                         req.headers,
		MultiValueHeaders:               req.multiValueHeaders,
		QueryStringParameters:           req.queryStringParameters,
		MultiValueQueryStringParameters: req.multiValueQueryStringParameters,
		PathParameters:                  req.pathParameters,
		RequestContext: events.APIGatewayProxyRequestContext{
			AccountID:         g.accountID,
			ResourceID:        resourceID(req.route.Path),
			Stage:             g.stage,
			DomainName:        domain,
			DomainPrefix:      strings.SplitN(domain, ".", 2)[0],
			RequestID:         req.id,
			ExtendedRequestID: req.id,
			Protocol:          req.protocol,
			Identity:          events.APIGatewayRequestIdentity{SourceIP: req.sourceIP, UserAgent: req.userAgent},
			ResourcePath:      req.route.Path,
			Path:              "/" + g.stage + req.path,
			Authorizer:        authorizer,
			HTTPMethod:        req.method,
			RequestTime:       now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			RequestTimeEpoch:  now.UnixMilli(),
			APIID:             g.apiID,
		},
	}
	switch {
	case len(body) == 0:
	case g.tmpl.binaryContentType(req.header.Get("Content-Type")), !utf8.Valid(body):
		// A body whose Content-Type is one of the API's BinaryMediaTypes
		// reaches the function base64-encoded ("api-gateway-payload-encodings"
		// in the API Gateway developer guide); with */* that is every typed body.
		ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
	default:
		ev.Body = string(body)
	}
	return ev
}

// lambdaProxyResponse is events.APIGatewayProxyResponse, read strictly as API
// Gateway reads it.
type lambdaProxyResponse struct {
	StatusCode        *int                `json:"statusCode"`
	Headers           map[string]string   `json:"headers"`
	MultiValueHeaders map[string][]string `json:"multiValueHeaders"`
	Body              *string             `json:"body"`
	IsBase64Encoded   bool                `json:"isBase64Encoded"`
}

// proxyResponse reads a function's Lambda proxy response. A body with
// isBase64Encoded is decoded to binary when decodeBinary (the request's
// Accept matched the API's BinaryMediaTypes), and passed on as its base64
// text otherwise, as API Gateway does. It fails, as API Gateway does
// ("Malformed Lambda proxy response"), when the result is not such an object,
// has other keys, or lacks a valid statusCode, or when a base64 body to decode
// does not decode.
func proxyResponse(result []byte, decodeBinary bool) (*response, error) {
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.DisallowUnknownFields()
	var pr lambdaProxyResponse
	if err := dec.Decode(&pr); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the response object")
	}
	if pr.StatusCode == nil || *pr.StatusCode < 100 || *pr.StatusCode > 599 {
		return nil, errors.New("no valid statusCode")
	}
	res := &response{status: *pr.StatusCode, header: http.Header{}}
	// API Gateway merges both maps; a pair present in both appears once.
	for name, values := range pr.MultiValueHeaders {
		for _, v := range values {
			res.header.Add(name, v)
		}
	}
	for name, v := range pr.Headers {
		if !slices.Contains(res.header.Values(name), v) {
			res.header.Add(name, v)
		}
	}
	if res.header.Get("Content-Type") == "" {
		res.header.Set("Content-Type", "application/json")
	}
	if pr.Body != nil {
		res.body = []byte(*pr.Body)
		if pr.IsBase64Encoded && decodeBinary {
			b, err := base64.StdEncoding.DecodeString(*pr.Body)
			if err != nil {
				return nil, fmt.Errorf("isBase64Encoded body: %w", err)
			}
			res.body = b
		}
	}
	return res, nil
}

// resourceID makes a stable API Gateway-like resource id for a template path.
func resourceID(path string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(path)) // a hash never fails
	return strconv.FormatUint(uint64(h.Sum32())%(36*36*36*36*36*36), 36)
}
