package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNoResponseBodyCarriesAKey(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"a key in a value is redacted", map[string]string{"tag": "wk_abcdefghijklmnopqrstuvwxyz0123456789AB"}, `{"tag":"[redacted key]"}`},
		{"key-free bodies are untouched", map[string]string{"tag": "wk_ alone is no key"}, `{"tag":"wk_ alone is no key"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			JSON(rec, 200, tc.v)
			if got := strings.TrimSpace(rec.Body.String()); got != tc.want {
				t.Errorf("body = %s, want %s", got, tc.want)
			}
		})
	}
}
