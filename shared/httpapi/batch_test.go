package httpapi_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// outcome is a store's outcome in the batch tests: the endpoint's own type.
type outcome struct {
	id, name string
	err      error
}

func TestBatchOutcomesBecomeResultsByTheEndpointsRules(t *testing.T) {
	tags := []string{"vip"}
	tests := []struct {
		name       string
		outs       []outcome
		wantStatus int
		wantBody   string
	}{
		{"a success carries what it applied, its impact and tags",
			[]outcome{{id: "a", name: "A"}}, http.StatusOK,
			`{"results":[{"id":"a","success":true,"name":"A","unchanged":false,"applied":{"n":1},"tags":["vip"],"impact":"i"}],"summary":{"total":1,"succeeded":1,"failed":0,"unchanged":0}}`},
		{"a refusal fails with its error's message and keeps its tags",
			[]outcome{{id: "b", name: "B", err: workspace.ErrAgentNotFound}}, http.StatusOK,
			`{"results":[{"id":"b","success":false,"name":"B","tags":["vip"],"error":"agent not found"}],"summary":{"total":1,"succeeded":0,"failed":1,"unchanged":0}}`},
		{"a failure without a rule fails as internal error",
			[]outcome{{id: "c", name: "C", err: errors.New("disk on fire")}}, http.StatusOK,
			`{"results":[{"id":"c","success":false,"name":"C","error":"internal error"}],"summary":{"total":1,"succeeded":0,"failed":1,"unchanged":0}}`},
		{"lost races fail the id with the retry message",
			[]outcome{{id: "a", name: "A"}, {id: "d", name: "D", err: workspace.ErrBusy}}, http.StatusOK,
			`{"results":[{"id":"a","success":true,"name":"A","unchanged":false,"applied":{"n":1},"tags":["vip"],"impact":"i"},` +
				`{"id":"d","success":false,"name":"D","error":"` + workspace.ErrBusy.Error() + `"}],"summary":{"total":2,"succeeded":1,"failed":1,"unchanged":0}}`},
		{"an outage with no id written is a 503 as a whole",
			[]outcome{{id: "b", err: workspace.ErrAgentNotFound}, {id: "e", err: workspace.ErrStorageUnavailable}}, http.StatusServiceUnavailable,
			`{"error":"` + workspace.ErrStorageUnavailable.Error() + `"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				httpapi.WriteOutcomes(w, r, tc.outs, func(o outcome) httpapi.Outcome {
					return httpapi.Outcome{ID: o.id, Name: o.name, Applied: map[string]int{"n": 1}, Impact: "i", Tags: &tags,
						Err: o.err, Refused: workspace.IsNotFound(o.err)}
				}, httpapi.BatchLog{Msg: "test batch", IDKey: "testId"})
				return nil
			})
			if status, body := serve(t, h, "/"); status != tc.wantStatus || body != tc.wantBody {
				t.Errorf("got %d %s\nwant %d %s", status, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}
