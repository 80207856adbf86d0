package httpapi

import (
	"context"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

// ProxyHandler is the Lambda handler of an endpoint group: an API Gateway REST
// proxy event in, a proxy response out.
type ProxyHandler func(ctx context.Context, event events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)

// Lambda adapts a group's http.Handler to API Gateway proxy events with
// aws-lambda-go-api-proxy. The gateway event's request context (with the
// authorizer's) reaches the handler through the request's context. Every
// response it writes, errors and 204 included, carries Cache-Control:
// no-store (decisions §11): answers are per key and change with every write.
// Every response is then fitted to Lambda's payload limit (fitResponse).
func Lambda(h http.Handler) ProxyHandler {
	adapter := httpadapter.New(noStore(h))
	return func(ctx context.Context, event events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		res, err := adapter.ProxyWithContext(ctx, event)
		if err != nil {
			return res, err
		}
		return fitResponse(event, res), nil
	}
}

// noStore sets Cache-Control: no-store before h writes anything, so no
// handler can forget it.
func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
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
