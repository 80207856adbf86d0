package httpapi_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

type inner struct {
	Name string `json:"name"`
}

type body struct {
	Count *int     `json:"count"`
	Items []inner  `json:"items"`
	Any   any      `json:"any"`
	Limit *float64 `json:"limit"`
}

func TestDecodeIsStrict(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantKind workspace.Kind
		wantMsg  string
	}{
		{"valid", `{"count": 3, "items": [{"name": "a"}], "any": {"x": 1}, "limit": 1.5}`, 0, ""},
		{"null is allowed for optional fields", `{"count": null}`, 0, ""},
		{"unknown field", `{"cuont": 3}`, workspace.KindInvalid, `unknown field "cuont"`},
		{"field in another case", `{"Count": 3}`, workspace.KindInvalid, `unknown field "Count"`},
		{"unknown nested field", `{"items": [{"name": "a"}, {"nmae": "b"}]}`, workspace.KindInvalid, `unknown field "items[1].nmae"`},
		{"free-form object accepts any key", `{"any": {"whatever": true}}`, 0, ""},
		{"wrong type", `{"count": "3"}`, workspace.KindInvalid, "count must be an integer"},
		{"fraction for an integer", `{"count": 1.5}`, workspace.KindInvalid, "count must be an integer"},
		{"wrong nested type", `{"items": [{"name": 5}]}`, workspace.KindInvalid, "items[0].name must be a string"},
		{"repeated field", `{"count": 1, "count": 2}`, workspace.KindInvalid, `field "count" appears more than once`},
		{"repeated nested field", `{"items": [{"name": "a", "name": "b"}]}`, workspace.KindInvalid, `field "items[0].name" appears more than once`},
		{"repeated field in a free-form object", `{"any": {"x": 1, "x": 1}}`, workspace.KindInvalid, `field "any.x" appears more than once`},
		{"null for an object", `{"items": [null]}`, workspace.KindInvalid, "items[0] must be an object"},
		{"malformed", `{"count": `, workspace.KindInvalid, "not valid JSON"},
		{"array body", `[1]`, workspace.KindInvalid, "JSON object"},
		{"string body", `"x"`, workspace.KindInvalid, "JSON object"},
		{"null body", `null`, workspace.KindInvalid, "JSON object"},
		{"empty body", ``, workspace.KindInvalid, "JSON object"},
		{"trailing data", `{"count": 1} {"count": 2}`, workspace.KindInvalid, "single JSON value"},
		{"too large", `{"any": "` + strings.Repeat("x", httpapi.MaxBodyBytes) + `"}`, workspace.KindTooLarge, "exceeds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
			var dst body
			err := httpapi.Decode(r, &dst)
			if got := workspace.KindOf(err); got != tc.wantKind || (err == nil) != (tc.wantKind == 0) {
				t.Fatalf("Decode(%.40q) = %v (kind %d), want kind %d", tc.body, err, got, tc.wantKind)
			}
			if err != nil && !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q, want it to contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestUniqueIDs(t *testing.T) {
	tests := []struct {
		name    string
		ids     []string
		want    string
		wantErr bool
	}{
		{"keeps first-seen order and drops repeats", []string{"b", "a", "b", "c", "a"}, "[b a c]", false},
		{"none", nil, "", true},
		{"empty id", []string{"a", ""}, "", true},
		{"blank id", []string{" "}, "", true},
		{"100 is the limit", make100("x"), "", false},
		{"101 is too many", append(make100("x"), "y"), "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := httpapi.UniqueIDs(tc.ids)
			if (err != nil) != tc.wantErr {
				t.Fatalf("UniqueIDs error = %v, want error=%v", err, tc.wantErr)
			}
			if tc.want != "" && strings.Join(got, " ") != strings.Trim(tc.want, "[]") {
				t.Errorf("UniqueIDs = %v, want %s", got, tc.want)
			}
		})
	}
}

func make100(prefix string) []string {
	out := make([]string, 100)
	for i := range out {
		out[i] = prefix + string(rune('A'+i%26)) + string(rune('a'+i/26))
	}
	return out
}

func TestBatchSummaryCounts(t *testing.T) {
	res := httpapi.NewBatchResult([]httpapi.BatchItem{
		httpapi.Succeeded("a", "A", false, nil),
		httpapi.Succeeded("b", "B", true, nil),
		httpapi.Failed("c", "", "not found"),
	})
	if got, want := res.Summary, (httpapi.Summary{Total: 3, Succeeded: 2, Failed: 1, Unchanged: 1}); got != want {
		t.Errorf("summary = %+v, want %+v", got, want)
	}
}
