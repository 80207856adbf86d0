package jsondoc_test

import (
	"encoding/json"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/jsondoc"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

type member struct {
	Email string   `json:"email"`
	Role  *string  `json:"role"`
	Tags  []string `json:"tags"`
	Seats int      `json:"seats"`
}

type team struct {
	ID      string   `json:"id"`
	Members []member `json:"members"`
}

type Base struct {
	ID string `json:"id"`
}

type doc struct {
	Base
	Created  int                `json:"created"`
	Teams    []team             `json:"teams"`
	Limits   map[string]float64 `json:"limits"`
	ByName   map[string]member  `json:"byName"`
	Any      any                `json:"any"`
	Raw      json.RawMessage    `json:"raw"`
	When     *time.Time         `json:"when"`
	Addr     netip.Addr         `json:"addr"`
	Data     []byte             `json:"data"`
	Untagged bool
	Skipped  string `json:"-"`
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		rule string
		data string
		want string // the whole of Error()
	}{
		{"names must equal the json tag, case included", `{"teams": [{"ID": "t"}]}`, `teams[0]: unknown field "ID"`},
		{"unknown names are errors with their place", `{"teams": [{"id": "t", "members": [{}, {}, {"emial": "x"}]}]}`, `teams[0].members[2]: unknown field "emial"`},
		{"unknown names at the top have no place", `{"team": []}`, `unknown field "team"`},
		{"fields tagged - have no name", `{"Skipped": "x"}`, `unknown field "Skipped"`},
		{"repeated names are errors", `{"id": "a", "id": "a"}`, `field "id" appears more than once`},
		{"repeated names in a map are errors", `{"limits": {"a": 1, "a": 2}}`, `limits: field "a" appears more than once`},
		{"repeated names in an any are errors", `{"any": [{"x": {"y": 1, "y": 1}}]}`, `any[0].x: field "y" appears more than once`},
		{"repeated names in raw JSON are errors", `{"raw": {"k": 1, "k": 2}}`, `raw: field "k" appears more than once`},
		{"repeated names come before unknown ones", `{"nope": 1, "id": "a", "id": "a"}`, `field "id" appears more than once`},
		{"map values are decoded strictly", `{"byName": {"ann": {"email": "a", "mail": "b"}}}`, `byName.ann: unknown field "mail"`},
		{"a map key that looks like an index is a name", `{"limits": {"0": "x"}}`, `limits.0: must be a number`},
		{"an array index is an index", `{"teams": [{}, {"id": 1}]}`, `teams[1].id: must be a string`},
		{"a string field takes a string", `{"teams": [{"id": 7}]}`, `teams[0].id: must be a string`},
		{"an integer field refuses a fraction", `{"teams": [{"members": [{"seats": 1.5}]}]}`, `teams[0].members[0].seats: must be an integer`},
		{"an integer field refuses a quoted number", `{"created": "3"}`, `created: must be an integer`},
		{"an integer field refuses an overflow", `{"created": 1e40}`, `created: must be an integer`},
		{"a pointer field takes its element's type", `{"teams": [{"members": [{"role": true}]}]}`, `teams[0].members[0].role: must be a string`},
		{"a slice field takes an array", `{"teams": {}}`, `teams: must be an array`},
		{"a struct field takes an object", `{"teams": [[]]}`, `teams[0]: must be an object`},
		{"a top-level struct takes an object", `[]`, `must be an object`},
		{"a map field takes an object", `{"limits": [1]}`, `limits: must be an object`},
		{"a TextUnmarshaler takes a string", `{"addr": 1}`, `addr: must be a string`},
		{"a byte slice takes base64", `{"data": 5}`, `data: must be a base64 string`},
		{"names with / and ~ are unescaped", `{"a/b~c": 1}`, `unknown field "a/b~c"`},
		{"syntax errors carry line and column", "{\"teams\": [\n  {\"id\": }\n]}", `malformed JSON at line 2, column 10: invalid character '}' at start of value`},
		{"syntax errors come before unknown names", `{"nope": 1, "id": }`, `malformed JSON at line 1, column 19: invalid character '}' at start of value`},
		{"an unfinished document is a syntax error", `{"teams": `, `malformed JSON at line 1, column 11: unexpected EOF`},
		{"an empty document is a syntax error", ``, `malformed JSON at line 1, column 1: unexpected EOF`},
		{"invalid UTF-8 is a syntax error", "{\"id\": \"\xff\"}", `malformed JSON at line 1, column 9: invalid UTF-8`},
		{"trailing data is an error", "{}\n {}", `malformed JSON at line 2, column 2: invalid character '{' after top-level value`},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var d doc
			err := jsondoc.Unmarshal([]byte(tc.data), &d)
			var e *jsondoc.Error
			if !errors.As(err, &e) {
				t.Fatalf("Unmarshal(%q) = %v, want a *jsondoc.Error: %s", tc.data, err, tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestUnmarshalErrorFields(t *testing.T) {
	tests := []struct {
		rule string
		data string
		want jsondoc.Error // Err is not compared
	}{
		{"an unknown name names its object and itself", `{"teams": [{"x": 1}]}`,
			jsondoc.Error{Kind: jsondoc.UnknownField, Place: "teams[0]", Field: "x"}},
		{"a repeated name names its object and itself", `{"teams": [], "teams": []}`,
			jsondoc.Error{Kind: jsondoc.RepeatedField, Field: "teams"}},
		{"a wrong type names the type wanted", `{"teams": [{"members": [{"seats": "2"}]}]}`,
			jsondoc.Error{Kind: jsondoc.WrongType, Place: "teams[0].members[0].seats", Want: "an integer"}},
		{"a syntax error has a line and column", "{\n\n   x}",
			jsondoc.Error{Kind: jsondoc.Syntax, Line: 3, Column: 4}},
		{"trailing data has a line and column", `{} []`,
			jsondoc.Error{Kind: jsondoc.Trailing, Line: 1, Column: 4}},
		{"a refused value of the right type is Rejected", `{"when": "yesterday"}`,
			jsondoc.Error{Kind: jsondoc.Rejected, Place: "when"}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var d doc
			var e *jsondoc.Error
			if err := jsondoc.Unmarshal([]byte(tc.data), &d); !errors.As(err, &e) {
				t.Fatalf("Unmarshal(%q) = %v, want a *jsondoc.Error", tc.data, err)
			}
			got := *e
			got.Err = nil
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestErrorPath(t *testing.T) {
	tests := []struct {
		rule string
		err  jsondoc.Error
		want string
	}{
		{"an unknown name's path ends in the name", jsondoc.Error{Kind: jsondoc.UnknownField, Place: "teams[0]", Field: "x"}, "teams[0].x"},
		{"a top-level name's path is the name", jsondoc.Error{Kind: jsondoc.RepeatedField, Field: "teams"}, "teams"},
		{"other errors' path is their place", jsondoc.Error{Kind: jsondoc.WrongType, Place: "teams[0].id", Want: "a string"}, "teams[0].id"},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			if got := tc.err.Path(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestUnmarshalAccepts(t *testing.T) {
	role := "admin"
	when := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		rule string
		data string
		want doc
	}{
		{"fields decode as their json tags say",
			`{"teams": [{"id": "t", "members": [{"email": "a@x", "role": "admin", "tags": ["p"], "seats": 3}]}]}`,
			doc{Teams: []team{{ID: "t", Members: []member{{Email: "a@x", Role: &role, Tags: []string{"p"}, Seats: 3}}}}}},
		{"an embedded struct's fields count as the struct's own",
			`{"id": "b", "created": 5}`,
			doc{Base: Base{ID: "b"}, Created: 5}},
		{"an untagged field goes by its Go name",
			`{"Untagged": true}`,
			doc{Untagged: true}},
		{"without RejectNull, null sets anything to its zero value",
			`{"teams": null, "limits": null, "when": null, "any": null, "created": null, "id": null}`,
			doc{}},
		{"maps accept any names",
			`{"limits": {"Anything": 1, "goes": 2.5}}`,
			doc{Limits: map[string]float64{"Anything": 1, "goes": 2.5}}},
		{"any accepts any names",
			`{"any": {"X": [1, "a", true, null, {"y": {}}]}}`,
			doc{Any: map[string]any{"X": []any{1.0, "a", true, nil, map[string]any{"y": map[string]any{}}}}}},
		{"raw JSON is handed its bytes as they stand",
			`{"raw": {"k": 1, "Unknown": [ ]}}`,
			doc{Raw: json.RawMessage(`{"k": 1, "Unknown": [ ]}`)}},
		{"a time takes RFC 3339",
			`{"when": "2026-11-21T09:00:00Z"}`,
			doc{When: &when}},
		{"a TextUnmarshaler takes a string",
			`{"addr": "10.0.0.1"}`,
			doc{Addr: netip.MustParseAddr("10.0.0.1")}},
		{"white space around the document is allowed",
			" \n {\"id\": \"w\"} \n ",
			doc{Base: Base{ID: "w"}}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var got doc
			if err := jsondoc.Unmarshal([]byte(tc.data), &got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestUnmarshalNeedsAPointer(t *testing.T) {
	for _, target := range []any{doc{}, (*doc)(nil), nil} {
		err := jsondoc.Unmarshal([]byte(`{}`), target)
		var e *jsondoc.Error
		if err == nil || errors.As(err, &e) {
			t.Errorf("Unmarshal into %T = %v, want a plain error", target, err)
		}
	}
}

// request has a member of every kind, and the nullable ones a request may declare.
type request struct {
	Name   *string                       `json:"name"`
	Count  *int                          `json:"count"`
	Plain  int                           `json:"plain"`
	Flag   *bool                         `json:"flag"`
	Items  []string                      `json:"items"`
	Object *struct{}                     `json:"object"`
	Teams  []team                        `json:"teams"`
	ByName map[string]int                `json:"byName"`
	Any    any                           `json:"any"`
	Raw    json.RawMessage               `json:"raw"`
	Limit  workspace.Nullable[float64]   `json:"limit"`
	List   workspace.Nullable[[]team]    `json:"list"`
	Limits []workspace.Nullable[float64] `json:"limits"`
}

func TestRejectNullRefusesNullWhereNotNullable(t *testing.T) {
	tests := []struct {
		rule string
		data string
		want string
	}{
		{"a string", `{"name": null}`, "name: must be a string"},
		{"an integer", `{"count": null}`, "count: must be an integer"},
		{"an integer that is no pointer", `{"plain": null}`, "plain: must be an integer"},
		{"a boolean", `{"flag": null}`, "flag: must be a boolean"},
		{"an array", `{"items": null}`, "items: must be an array"},
		{"an array element", `{"items": ["a", null]}`, "items[1]: must be a string"},
		{"an object", `{"object": null}`, "object: must be an object"},
		{"an object in an array", `{"teams": [null]}`, "teams[0]: must be an object"},
		{"a member of a nested object", `{"teams": [{"id": null}]}`, "teams[0].id: must be a string"},
		{"a map", `{"byName": null}`, "byName: must be an object"},
		{"a map value", `{"byName": {"a": null}}`, "byName.a: must be an integer"},
		{"the whole body", `null`, "must be an object"},
		{"inside a nullable's value", `{"list": [{"id": null}]}`, "list[0].id: must be a string"},
		{"a nullable still takes its own type", `{"limit": "5"}`, "limit: must be a number or null"},
		{"a nullable array's elements are not nullable", `{"list": [null]}`, "list[0]: must be an object"},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var r request
			err := jsondoc.Unmarshal([]byte(tc.data), &r, jsondoc.RejectNull())
			var e *jsondoc.Error
			if !errors.As(err, &e) || e.Kind != jsondoc.WrongType {
				t.Fatalf("Unmarshal(%s) = %v, want a WrongType error %q", tc.data, err, tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRejectNullAcceptsNullWhereNullable(t *testing.T) {
	var r request
	data := `{"limit": null, "list": null, "limits": [1.5, null], "any": {"x": null}, "raw": null}`
	if err := jsondoc.Unmarshal([]byte(data), &r, jsondoc.RejectNull()); err != nil {
		t.Fatalf("Unmarshal(%s): %v", data, err)
	}
	if !r.Limit.IsNull() || r.Limit.Omitted() || !r.List.IsNull() {
		t.Errorf("limit = %+v, list = %+v, want both null", r.Limit, r.List)
	}
	if v, ok := r.Limits[0].Get(); !ok || v != 1.5 || !r.Limits[1].IsNull() {
		t.Errorf("limits = %+v, want [1.5, null]", r.Limits)
	}
	if got := r.Any.(map[string]any); len(got) != 1 || got["x"] != nil {
		t.Errorf("any = %v, want {x: null}: a free-form value holds any JSON, null included", r.Any)
	}
}

func TestNullableTellsOmittedNullAndValueApart(t *testing.T) {
	tests := []struct {
		rule        string
		data        string
		wantOmitted bool
		wantNull    bool
		wantValue   float64
		wantSet     bool
	}{
		{"omitted", `{}`, true, false, 0, false},
		{"null", `{"limit": null}`, false, true, 0, false},
		{"a value", `{"limit": 12.5}`, false, false, 12.5, true},
		{"zero is a value, not omitted", `{"limit": 0}`, false, false, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var r request
			if err := jsondoc.Unmarshal([]byte(tc.data), &r, jsondoc.RejectNull()); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tc.data, err)
			}
			v, set := r.Limit.Get()
			if r.Limit.Omitted() != tc.wantOmitted || r.Limit.IsNull() != tc.wantNull || set != tc.wantSet || v != tc.wantValue {
				t.Errorf("got omitted=%t null=%t value=%v,%t; want omitted=%t null=%t value=%v,%t",
					r.Limit.Omitted(), r.Limit.IsNull(), v, set, tc.wantOmitted, tc.wantNull, tc.wantValue, tc.wantSet)
			}
		})
	}
}

func TestRejectedKeepsTheDecodersReason(t *testing.T) {
	var d doc
	err := jsondoc.Unmarshal([]byte(`{"when": "yesterday"}`), &d)
	if err == nil || !strings.HasPrefix(err.Error(), "when: ") {
		t.Errorf("got %v, want the refusal at its place", err)
	}
}
