package httpapi_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// serve runs h on a GET of target and returns its status and body.
func serve(t *testing.T, h http.Handler, target string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", target, nil))
	return w.Code, strings.TrimSpace(w.Body.String())
}

func TestAHandlersReturnedErrorIsWrittenByTheOneErrorWriter(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantBody   string
	}{
		{"nil leaves the handler's answer", nil, http.StatusTeapot, `{"ok":true}`},
		{"a domain error answers its kind's status", workspace.ErrAgentNotFound, http.StatusNotFound, `{"error":"agent not found"}`},
		{"an unclassified error is a generic 500", errors.New("disk on fire"), http.StatusInternalServerError, `{"error":"internal error"}`},
		{"a wrapped domain error keeps its kind", fmt.Errorf("read: %w", workspace.Invalid("x is wrong")), http.StatusBadRequest, `{"error":"x is wrong"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				if tc.err != nil {
					return tc.err
				}
				httpapi.JSON(w, http.StatusTeapot, map[string]bool{"ok": true})
				return nil
			})
			if status, body := serve(t, h, "/"); status != tc.wantStatus || body != tc.wantBody {
				t.Errorf("got %d %s, want %d %s", status, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}
