package httpapi

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// Lambda refuses a synchronous response payload over 6 MB
// (Function.ResponseSizeTooLarge), which API Gateway turns into a bare 502.
// Every function's response is fitted under it here, once for every group.
const (
	// LambdaResponseLimit is Lambda's limit on a synchronous response
	// payload: the whole proxy response as JSON, base64 body included.
	LambdaResponseLimit = 6 << 20
	// compressAbove is the body size above which a response is gzipped for a
	// client that accepts it: smaller ones gain little over the wire.
	compressAbove = 8 << 10
)

// fitResponse compresses res's body with gzip when it is large and the
// client accepts gzip, and replaces a response that still exceeds
// LambdaResponseLimit with a 413 error that says how to ask for less, so the
// client never sees the gateway's anonymous 502.
//
// A compressed body travels base64-encoded (isBase64Encoded), which API
// Gateway turns back into bytes only when the request's Accept header
// matches one of the API's binary media types (template.yaml declares */*).
// A request without Accept (Go's http.Client sends none) would get base64
// text, so it is never compressed.
func fitResponse(req events.APIGatewayProxyRequest, res events.APIGatewayProxyResponse) events.APIGatewayProxyResponse {
	if !res.IsBase64Encoded && len(res.Body) > compressAbove && acceptsGzip(req) && len(headerValues(req, "Accept")) > 0 {
		if zipped, err := gzipBase64(res.Body); err == nil {
			res.Body, res.IsBase64Encoded = zipped, true
			setHeader(&res, "Content-Encoding", "gzip")
			setHeader(&res, "Vary", "Accept-Encoding")
		} else {
			slog.Error("compress response", "error", err)
		}
	}
	size, err := payloadSize(res)
	if err == nil && size <= LambdaResponseLimit {
		return res
	}
	slog.Warn("response too large for Lambda", "path", req.Path, "bytes", size, "limit", LambdaResponseLimit)
	msg := fmt.Sprintf("the response would exceed the %d MB an API response may carry; ask for less "+
		"(page with limit and cursor where the endpoint offers them) or accept a compressed answer "+
		"(send Accept-Encoding: gzip with an Accept header)", LambdaResponseLimit>>20)
	if res.IsBase64Encoded {
		msg = fmt.Sprintf("the response would exceed the %d MB an API response may carry even compressed; "+
			"ask for less (page with limit and cursor where the endpoint offers them)", LambdaResponseLimit>>20)
	}
	body, _ := json.Marshal(ErrorBody{Error: msg})
	return events.APIGatewayProxyResponse{
		StatusCode: http.StatusRequestEntityTooLarge, Body: string(body),
		MultiValueHeaders: map[string][]string{"Content-Type": {"application/json"}, "Cache-Control": {"no-store"}},
	}
}

// headerValues returns every value of the request header name, whichever of
// the event's two header maps carries it, in any letter case.
func headerValues(req events.APIGatewayProxyRequest, name string) []string {
	var values []string
	for n, vs := range req.MultiValueHeaders {
		if strings.EqualFold(n, name) {
			values = append(values, vs...)
		}
	}
	if len(values) == 0 {
		for n, v := range req.Headers {
			if strings.EqualFold(n, name) {
				values = append(values, v)
			}
		}
	}
	return values
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip: a
// gzip entry decides by its weight, else a "*" entry does (RFC 9110 §12.5.3).
func acceptsGzip(req events.APIGatewayProxyRequest) bool {
	gzip, star := -1, -1 // -1: not listed; 0: refused; 1: accepted
	for _, v := range headerValues(req, "Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
			weight := 1
			if q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000" {
				weight = 0
			}
			switch coding = strings.TrimSpace(coding); {
			case strings.EqualFold(coding, "gzip"):
				gzip = weight
			case coding == "*":
				star = weight
			}
		}
	}
	if gzip >= 0 {
		return gzip == 1
	}
	return star == 1
}

// gzipBase64 returns body gzipped and base64-encoded.
func gzipBase64(body string) (string, error) {
	var buf bytes.Buffer
	// Large bodies (a long chat) are compressed harder: the ratio decides
	// whether they fit under LambdaResponseLimit at all.
	level := gzip.BestSpeed
	if len(body) > 1<<20 {
		level = gzip.DefaultCompression
	}
	zw, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write([]byte(body)); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// payloadSize is the size of res as Lambda measures it: its JSON encoding.
func payloadSize(res events.APIGatewayProxyResponse) (int, error) {
	b, err := json.Marshal(res)
	return len(b), err
}

// setHeader sets a response header in the multi-value map the adapter
// fills (API Gateway merges it with the single-value one).
func setHeader(res *events.APIGatewayProxyResponse, name, value string) {
	if res.MultiValueHeaders == nil {
		res.MultiValueHeaders = map[string][]string{}
	}
	res.MultiValueHeaders[name] = []string{value}
}
