package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
)

// JSON writes v as the JSON body of a response with the given status.
func JSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		slog.Error("encode response", "error", err)
		status, body = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// NoContent writes an empty 204 response.
func NoContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }
