package workspaceapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// APIError is an answer of the API with a status of 400 or more. Its body is
// always {"error": "<message>"}: clients branch on Status, never on Message.
type APIError struct {
	// Status is the HTTP status (400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503).
	Status int
	// Message is the body's "error", a human-readable sentence.
	Message string
	// RetryAfter is the answer's Retry-After, 0 when it had none.
	RetryAfter time.Duration
	// Header is the answer's headers (X-Request-Id among them, for support).
	Header http.Header
}

// Error implements error: the status and the API's message.
func (e *APIError) Error() string {
	return fmt.Sprintf("workspaceapi: %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// newAPIError reads an error answer's body. A body that is not {"error"}
// (a proxy's page, say) keeps the status, with the body's start as the message.
func newAPIError(status int, header http.Header, body []byte) *APIError {
	e := &APIError{Status: status, Header: header, RetryAfter: retryAfter(header)}
	var b struct {
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(body, &b); err == nil && b.Error != nil {
		e.Message = *b.Error
	} else {
		const most = 200
		e.Message = string(body[:min(len(body), most)])
	}
	return e
}

// retryAfter is the Retry-After header in whole seconds (the only form the
// API sends), 0 when absent or not a non-negative number.
func retryAfter(h http.Header) time.Duration {
	s, err := strconv.Atoi(h.Get("Retry-After"))
	if err != nil || s < 0 {
		return 0
	}
	return time.Duration(s) * time.Second
}
