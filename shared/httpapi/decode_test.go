package httpapi_test

import (
	"errors"
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
	Count *int                        `json:"count"`
	Items []inner                     `json:"items"`
	Any   any                         `json:"any"`
	Limit workspace.Nullable[float64] `json:"limit"`
}

func TestDecodeIsStrict(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantKind workspace.Kind
		wantMsg  string
	}{
		{"valid", `{"count": 3, "items": [{"name": "a"}], "any": {"x": 1}, "limit": 1.5}`, 0, ""},
		{"null only where a field is nullable", `{"limit": null}`, 0, ""},
		{"null for a field that is not nullable", `{"count": null}`, workspace.KindInvalid, "count must be an integer"},
		{"a nullable field of the wrong type", `{"limit": "1"}`, workspace.KindInvalid, "limit must be a number or null"},
		{"null inside a free-form value", `{"any": {"x": null}}`, 0, ""},
		{"unknown field", `{"cuont": 3}`, workspace.KindInvalid, `unknown field "cuont"`},
		{"field in another case", `{"Count": 3}`, workspace.KindInvalid, `unknown field "Count"`},
		{"unknown nested field", `{"items": [{"name": "a"}, {"nmae": "b"}]}`, workspace.KindInvalid, `unknown field "items[1].nmae"`},
		{"free-form object accepts any key", `{"any": {"whatever": true}}`, 0, ""},
		{"wrong type", `{"count": "3"}`, workspace.KindInvalid, "count must be an integer"},
		{"fraction for an integer", `{"count": 1.5}`, workspace.KindInvalid, "count must be an integer"},
		{"a whole number written with a fraction", `{"count": 7.0}`, workspace.KindInvalid, "count must be an integer"},
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

// decodeMessage decodes body into dst as a request without a Content-Type
// and returns the error's message, or "" when it succeeds.
func decodeMessage(t *testing.T, body string, dst any) string {
	t.Helper()
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	err := httpapi.Decode(r, dst)
	if err == nil {
		return ""
	}
	if workspace.KindOf(err) != workspace.KindInvalid {
		t.Fatalf("Decode(%s) = %v, want a KindInvalid error", body, err)
	}
	return err.Error()
}

func TestDecodeRefusesNullWhereNotNullable(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"teams: null is not an array", `{"email":"a@b.example","role":"member","teams":null}`, "teams must be an array"},
		{"expiresInDays: null is not an integer", `{"email":"a@b.example","role":"member","expiresInDays":null}`, "expiresInDays must be an integer"},
		{"email: null is not a string", `{"email":null,"role":"member"}`, "email must be a string"},
		{"a team element: null is not an object", `{"email":"a@b.example","role":"member","teams":[null]}`, "teams[0] must be an object"},
		{"a team's role: null is not a string", `{"email":"a@b.example","role":"member","teams":[{"teamId":"t","role":null}]}`, "teams[0].role must be a string"},
		{"the whole body: null is not an object", `null`, "the request body must be a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req workspace.InviteRequest
			if got := decodeMessage(t, tc.body, &req); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// unreadBody is a request body that fails the test reading it.
type unreadBody struct{ t *testing.T }

func (b unreadBody) Read([]byte) (int, error) {
	b.t.Error("the body was read before its Content-Type was checked")
	return 0, errors.New("must not be read")
}

func (unreadBody) Close() error { return nil }

func TestDecodeChecksContentTypeFirst(t *testing.T) {
	tests := []struct {
		contentType string
		want415     bool
	}{
		{"", false},
		{"application/json", false},
		{"application/json; charset=utf-8", false},
		{"Application/JSON; Charset=UTF-8", false},
		{"application/json;charset=\"utf-8\"", false},
		{"text/plain", true},
		{"text/json", true},
		{"application/x-www-form-urlencoded", true},
		{"multipart/form-data; boundary=x", true},
		{"application/jsonx", true},
		{"application/json; charset=iso-8859-1", true},
		{"application/json;;", true},
		{"wk_demoAdminKey0000000000000000000000000001", true},
	}
	for _, tc := range tests {
		t.Run(tc.contentType, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/", strings.NewReader(`{"count": 1}`))
			if tc.want415 {
				req.Body = unreadBody{t}
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			var dst body
			err := httpapi.Decode(req, &dst)
			if got := workspace.KindOf(err) == workspace.KindUnsupportedMedia; got != tc.want415 || (!tc.want415 && err != nil) {
				t.Fatalf("Decode with Content-Type %q = %v, want 415: %t", tc.contentType, err, tc.want415)
			}
			if err != nil && (strings.Contains(err.Error(), tc.contentType) || workspace.ContainsKey(err.Error())) {
				t.Errorf("message %q repeats the header", err)
			}
		})
	}
}

const testKey = "wk_demoAdminKey0000000000000000000000000001"

func TestDecodeNeverEchoesAKey(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"a key-shaped unknown field", `{"` + testKey + `": true}`, "unknown field (a key-shaped name, not shown)"},
		{"a key-shaped unknown nested field", `{"items": [{"` + testKey + `": 1}]}`, "unknown field (a key-shaped name, not shown)"},
		{"a key-shaped unknown field with a suffix", `{"x` + testKey + `y": 1}`, "unknown field (a key-shaped name, not shown)"},
		{"a key-shaped repeated field", `{"any": {"` + testKey + `": 1, "` + testKey + `": 1}}`, "a field (a key-shaped name, not shown) appears more than once"},
		{"a key-shaped segment of a repeated field's path", `{"any": {"` + testKey + `": {"a": 1, "a": 2}}}`, `field "any.[redacted key].a" appears more than once`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var dst body
			got := decodeMessage(t, tc.body, &dst)
			if workspace.ContainsKey(got) {
				t.Fatalf("message %q echoes key-shaped text", got)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEveryRepeatedContentTypeMustBeJSON(t *testing.T) {
	tests := []struct {
		name    string
		values  []string
		want415 bool
	}{
		{"JSON twice", []string{"application/json", "application/json; charset=utf-8"}, false},
		{"JSON, then text", []string{"application/json", "text/plain"}, true},
		{"text, then JSON", []string{"text/plain", "application/json"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/", strings.NewReader(`{"count": 1}`))
			if tc.want415 {
				req.Body = unreadBody{t}
			}
			for _, v := range tc.values {
				req.Header.Add("Content-Type", v)
			}
			var dst body
			err := httpapi.Decode(req, &dst)
			if got := workspace.KindOf(err) == workspace.KindUnsupportedMedia; got != tc.want415 {
				t.Errorf("Decode = %v, want 415: %t", err, tc.want415)
			}
		})
	}
}
