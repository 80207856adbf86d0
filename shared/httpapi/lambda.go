package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/agentplatform/workspaceapi/shared/authctx"
	"github.com/agentplatform/workspaceapi/shared/roundtrip"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// ProxyHandler is the Lambda handler of an endpoint group: an API Gateway REST
// proxy event in, a proxy response out.
type ProxyHandler func(ctx context.Context, event events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// Lambda adapts a group's http.Handler to API Gateway proxy events with
// aws-lambda-go-api-proxy. The gateway event's request context (with the
// authorizer's) reaches the handler through the request's context. Every
// response it writes, errors and 204 included, carries Cache-Control:
// no-store (docs/bounds.md): answers are per key and change with every write.
// Every write route takes an Idempotency-Key (idem; ReadOnly for a function
// that serves no writes), whatever routes the group registers.
// A write's answer to a key without the read scope is cut to what tells it
// how the write went (minimalWriteAnswer); every response is then fitted
// to Lambda's payload limit (fitResponse), and logged as one line
// (logRequest). A write's context carries its write deadline
// (workspace.WriteBudget from its arrival).
func Lambda(h http.Handler, idem Idempotency) ProxyHandler {
	adapter := httpadapter.New(noStore(idem.wrap(unredirected(h))))
	return func(ctx context.Context, event events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		start := time.Now()
		ctx = roundtrip.Start(ctx)
		if event.HTTPMethod != http.MethodGet && event.HTTPMethod != http.MethodHead {
			// Retries of lost races stop in time for an answer within about a second.
			ctx = workspace.WithWriteDeadline(ctx, start.Add(workspace.WriteBudget))
		}
		res, err := adapter.ProxyWithContext(ctx, event)
		if err != nil {
			logRequest(ctx, event, http.StatusBadGateway, start)
			return res, err
		}
		res = fitResponse(event, minimalWriteAnswer(event, res))
		logRequest(ctx, event, res.StatusCode, start)
		return res, nil
	}
}

// logRequest writes the one structured line of every request, for the
// operators' queries and alarms: who (workspace and key id, never the key),
// what (route and status), how long, how many storage round trips, how
// many of them in turn (the critical path) and the read capacity units its
// reads consumed.
func logRequest(ctx context.Context, event events.APIGatewayProxyRequest, status int, start time.Time) {
	attrs := []any{
		"requestId", event.RequestContext.RequestID,
		"route", event.HTTPMethod + " " + event.Resource,
		"status", status,
		"latencyMs", float64(time.Since(start).Microseconds()) / 1000,
		"dynamodbRoundTrips", roundtrip.Count(ctx),
		"dynamodbCriticalPath", roundtrip.Depth(ctx),
		"readUnits", roundtrip.ReadUnits(ctx),
	}
	if c, ok := authctx.Decode(event.RequestContext.Authorizer); ok {
		attrs = append(attrs, "workspaceId", c.WorkspaceID, "keyId", c.KeyID)
	}
	slog.InfoContext(ctx, "request", attrs...)
}

// noStore sets Cache-Control: no-store before h writes anything, so no
// handler can forget it.
func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// unredirected keeps the mux from answering a path it would clean with a
// redirect (a 307 with an HTML body): API Gateway hands the function a path
// as it was sent, so an id of "." or ".." reaches it, and must be looked up
// like any other id (and not be found). Such a segment is escaped ("%2E"),
// which the mux matches as it is and hands the handler as "."; any other
// path the mux would clean (an empty segment) answers the JSON 404.
func unredirected(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		escaped := r.URL.EscapedPath()
		segments := strings.Split(escaped, "/")
		dots := false
		for i, seg := range segments {
			if seg == "." || seg == ".." {
				segments[i], dots = strings.Repeat("%2E", len(seg)), true
			}
		}
		if dots {
			escaped = strings.Join(segments, "/")
			r.URL.RawPath = escaped
		}
		if clean := path.Clean(escaped); clean != escaped && clean+"/" != escaped {
			NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// NewMux returns a ServeMux whose unmatched requests answer 404
// {"error": "not found"}, never the mux's plain-text pages.
func NewMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/", NotFound)
	return mux
}
