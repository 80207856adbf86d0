package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
)

// sized answers a JSON body of about n bytes of repetitive text (as lists are)
// or, with random true, of text that hardly compresses.
func sized(n int, random bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		rng := rand.New(rand.NewPCG(1, 2))
		items := make([]string, 0, n/40)
		for len(items)*40 < n {
			if !random {
				items = append(items, "inv_0000000000000000000000000000000000")
				continue
			}
			b := make([]byte, 27)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			items = append(items, base64.StdEncoding.EncodeToString(b))
		}
		httpapi.JSON(w, http.StatusOK, map[string][]string{"items": items})
	})
}

func call(t *testing.T, h http.Handler, headers map[string]string) events.APIGatewayProxyResponse {
	t.Helper()
	ev := events.APIGatewayProxyRequest{HTTPMethod: http.MethodGet, Path: "/x", Headers: headers, MultiValueHeaders: map[string][]string{}}
	for k, v := range headers {
		ev.MultiValueHeaders[k] = []string{v}
	}
	res, err := httpapi.Lambda(h, httpapi.ReadOnly)(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestResponsesAreFittedToLambdasPayloadLimit(t *testing.T) {
	gzipJSON := map[string]string{"Accept": "application/json", "Accept-Encoding": "gzip, deflate"}
	tests := []struct {
		name       string
		handler    http.Handler
		headers    map[string]string
		wantStatus int
		wantGzip   bool
	}{
		{"a small answer is sent as it is", sized(1000, false), gzipJSON, 200, false},
		{"a large answer is gzipped for a client that accepts it", sized(100_000, false), gzipJSON, 200, true},
		{"no Accept header: API Gateway would not decode base64, so no gzip", sized(100_000, false),
			map[string]string{"Accept-Encoding": "gzip"}, 200, false},
		{"gzip refused with q=0", sized(100_000, false), map[string]string{"Accept": "*/*", "Accept-Encoding": "gzip;q=0"}, 200, false},
		{"gzip refused with q=0 beside *", sized(100_000, false), map[string]string{"Accept": "*/*", "Accept-Encoding": "gzip;q=0, *"}, 200, false},
		{"any coding with *", sized(100_000, false), map[string]string{"Accept": "*/*", "Accept-Encoding": "*"}, 200, true},
		{"8 MB that compresses fits once gzipped", sized(8<<20, false), gzipJSON, 200, true},
		{"8 MB without gzip is a clear 413, not the gateway's 502", sized(8<<20, false), map[string]string{}, 413, false},
		{"8 MB that does not compress is a 413 even with gzip", sized(8<<20, true), gzipJSON, 413, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, tc.handler, tc.headers)
			if res.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.wantStatus)
			}
			size, _ := json.Marshal(res)
			if len(size) > httpapi.LambdaResponseLimit {
				t.Errorf("payload %d bytes, over Lambda's %d", len(size), httpapi.LambdaResponseLimit)
			}
			h := http.Header(res.MultiValueHeaders)
			if gz := h.Get("Content-Encoding") == "gzip"; gz != tc.wantGzip || gz != res.IsBase64Encoded {
				t.Errorf("Content-Encoding %q, isBase64Encoded %v; want gzip=%v", h.Get("Content-Encoding"), res.IsBase64Encoded, tc.wantGzip)
			}
			if h.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", h.Get("Cache-Control"))
			}
			switch {
			case tc.wantStatus == 413:
				var body map[string]string
				if err := json.Unmarshal([]byte(res.Body), &body); err != nil || len(body) != 1 || !strings.Contains(body["error"], "limit and cursor") {
					t.Errorf("body %s, want {\"error\"} saying how to ask for less", res.Body)
				}
			case tc.wantGzip:
				raw, _ := base64.StdEncoding.DecodeString(res.Body)
				zr, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				plain, _ := io.ReadAll(zr)
				if !json.Valid(plain) {
					t.Error("the gzipped body is not the JSON answer")
				}
			}
		})
	}
}
