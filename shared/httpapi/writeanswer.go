package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/authctx"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The answer of a write to a key without the read scope
// (docs/api-rules.md, Write answers): it gets nothing it could not GET,
// only what tells it how its write went:
//
//   - a create (201): {"id"} of what it made, and {"key"} too for a new API
//     key, whose plaintext is shown once;
//   - a batch (200 {"results", "summary"}): each result's "id", "success"
//     and "error", and the summary's "total", "succeeded" and "failed";
//   - any other 200: 204 with no body.
//
// Errors and 204s are answered as they are. One function decides it for
// every write route, on the answer the route made.
func minimalWriteAnswer(event events.APIGatewayProxyRequest, res events.APIGatewayProxyResponse) events.APIGatewayProxyResponse {
	switch event.HTTPMethod {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return res
	}
	c, ok := authctx.Decode(event.RequestContext.Authorizer)
	if !ok || c.Has(workspace.ScopeRead) || (res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated) {
		return res
	}
	var body map[string]json.RawMessage
	if res.IsBase64Encoded || json.Unmarshal([]byte(res.Body), &body) != nil {
		return noContent(res) // not an answer this layer can read: nothing leaves
	}
	if res.StatusCode == http.StatusCreated {
		return withBody(res, pick(body, "id", "key", "secret"))
	}
	if _, secret := body["secret"]; secret {
		return withBody(res, pick(body, "secret")) // a rotated webhook secret: shown once
	}
	if _, batch := body["results"]; !batch {
		return noContent(res)
	}
	var results []map[string]json.RawMessage
	var summary map[string]json.RawMessage
	if json.Unmarshal(body["results"], &results) != nil || json.Unmarshal(body["summary"], &summary) != nil {
		return noContent(res)
	}
	out := struct {
		Results []map[string]json.RawMessage `json:"results"`
		Summary map[string]json.RawMessage   `json:"summary"`
	}{Results: make([]map[string]json.RawMessage, len(results)), Summary: pick(summary, "total", "succeeded", "failed")}
	for i, r := range results {
		out.Results[i] = pick(r, "id", "success", "error")
	}
	return withBody(res, out)
}

// pick returns the fields of m named in names that m holds.
func pick(m map[string]json.RawMessage, names ...string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(names))
	for _, n := range names {
		if v, ok := m[n]; ok {
			out[n] = v
		}
	}
	return out
}

// withBody returns res answering v as JSON instead of its body.
func withBody(res events.APIGatewayProxyResponse, v any) events.APIGatewayProxyResponse {
	b, err := json.Marshal(v)
	if err != nil {
		return noContent(res)
	}
	res.Body = string(b)
	return res
}

// noContent returns res as a 204 without a body or its content headers.
func noContent(res events.APIGatewayProxyResponse) events.APIGatewayProxyResponse {
	res.StatusCode, res.Body, res.IsBase64Encoded = http.StatusNoContent, "", false
	for k := range res.Headers {
		if strings.EqualFold(k, "Content-Type") || strings.EqualFold(k, "Content-Length") {
			delete(res.Headers, k)
		}
	}
	for k := range res.MultiValueHeaders {
		if strings.EqualFold(k, "Content-Type") || strings.EqualFold(k, "Content-Length") {
			delete(res.MultiValueHeaders, k)
		}
	}
	return res
}
