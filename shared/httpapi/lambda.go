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
// authorizer's) reaches the handler through the request's context, and every
// response is fitted to Lambda's payload limit (fitResponse).
func Lambda(h http.Handler) ProxyHandler {
	adapter := httpadapter.New(h)
	return func(ctx context.Context, event events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		res, err := adapter.ProxyWithContext(ctx, event)
		if err != nil {
			return res, err
		}
		return fitResponse(event, res), nil
	}
}

// NewMux returns a ServeMux whose unmatched requests answer 404
// {"error": "not found"}, never the mux's plain-text pages.
func NewMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/", NotFound)
	return mux
}
