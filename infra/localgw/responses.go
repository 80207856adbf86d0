package localgw

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
)

// Gateway response types the gateway produces.
const (
	missingAuthenticationToken = "MISSING_AUTHENTICATION_TOKEN"
	requestTooLarge            = "REQUEST_TOO_LARGE"
	badRequestBody             = "BAD_REQUEST_BODY"
	unauthorized               = "UNAUTHORIZED"
	accessDenied               = "ACCESS_DENIED"
	invalidAPIKey              = "INVALID_API_KEY"
	authorizerFailure          = "AUTHORIZER_FAILURE"
	integrationFailure         = "INTEGRATION_FAILURE"
	integrationTimeoutType     = "INTEGRATION_TIMEOUT"
)

// gatewayResponse is one entry of the API's GatewayResponses.
type gatewayResponse struct {
	status      int // 0: the type's default status
	headers     map[string]string
	template    string // the application/json response template
	hasTemplate bool
}

// responseDefault is API Gateway's own setting for a response type.
type responseDefault struct {
	status    int    // 0 for DEFAULT_4XX and DEFAULT_5XX
	errorType string // x-amzn-ErrorType; "" when API Gateway sends none
}

// responseDefaults lists every gateway response type of REST APIs.
var responseDefaults = map[string]responseDefault{
	"ACCESS_DENIED":                  {403, "AccessDeniedException"},
	"API_CONFIGURATION_ERROR":        {500, ""},
	"AUTHORIZER_CONFIGURATION_ERROR": {500, "AuthorizerConfigurationException"},
	"AUTHORIZER_FAILURE":             {500, "AuthorizerConfigurationException"},
	"BAD_REQUEST_PARAMETERS":         {400, "BadRequestException"},
	"BAD_REQUEST_BODY":               {400, "BadRequestException"},
	"DEFAULT_4XX":                    {0, ""},
	"DEFAULT_5XX":                    {0, ""},
	"EXPIRED_TOKEN":                  {403, ""},
	"INTEGRATION_FAILURE":            {504, "InternalServerErrorException"},
	"INTEGRATION_TIMEOUT":            {504, ""},
	"INVALID_API_KEY":                {403, ""},
	"INVALID_SIGNATURE":              {403, ""},
	"MISSING_AUTHENTICATION_TOKEN":   {403, "MissingAuthenticationTokenException"},
	"QUOTA_EXCEEDED":                 {429, ""},
	"REQUEST_TOO_LARGE":              {413, ""},
	"RESOURCE_NOT_FOUND":             {404, ""},
	"THROTTLED":                      {429, ""},
	"UNAUTHORIZED":                   {401, "UnauthorizedException"},
	"UNSUPPORTED_MEDIA_TYPE":         {415, ""},
	"WAF_FILTERED":                   {403, ""},
}

// awsDefaultTemplate is API Gateway's body for a type the template does not set.
const awsDefaultTemplate = `{"message":$context.error.messageString}`

// gatewayError is an error the gateway answers itself, with a gateway response.
type gatewayError struct {
	responseType string
	message      string // $context.error.message; "" renders messageString as null
	status       int    // when non-zero, replaces the response's status
}

// gatewayResponse renders e as API Gateway would: the type's entry in the
// template; for a type the template lacks, DEFAULT_4XX or DEFAULT_5XX (by the
// type's default status) with the type's default status; and API Gateway's own
// {"message": ...} body when neither sets a template.
func (t *Template) gatewayResponse(e gatewayError, requestID string) *response {
	def := responseDefaults[e.responseType]
	gr, ok := t.responses[e.responseType]
	fallback := t.responses["DEFAULT_4XX"]
	if def.status >= 500 || e.status >= 500 {
		fallback = t.responses["DEFAULT_5XX"]
	}
	if !ok {
		gr = fallback
		gr.status = 0
	} else if !gr.hasTemplate {
		gr.template, gr.hasTemplate = fallback.template, fallback.hasTemplate
	}
	if !gr.hasTemplate {
		gr.template = awsDefaultTemplate
	}

	status := cmp.Or(e.status, gr.status, def.status)
	res := &response{status: status, header: http.Header{}}
	res.header.Set("Content-Type", "application/json")
	for name, value := range gr.headers {
		res.header.Set(name, value)
	}
	if def.errorType != "" {
		res.header.Set("x-amzn-ErrorType", def.errorType)
	}
	res.header.Set("x-amzn-RequestId", requestID)
	res.body = []byte(renderTemplate(gr.template, e, requestID))
	return res
}

// renderTemplate substitutes the $context variables a gateway response
// template may use.
func renderTemplate(tmpl string, e gatewayError, requestID string) string {
	messageString := "null"
	if e.message != "" {
		b, _ := json.Marshal(e.message) // a string always marshals
		messageString = string(b)
	}
	// The longer name comes first: a Replacer tries its pairs in order.
	return strings.NewReplacer(
		"$context.error.messageString", messageString,
		"$context.error.message", e.message,
		"$context.error.responseType", e.responseType,
		"$context.requestId", requestID,
	).Replace(tmpl)
}
