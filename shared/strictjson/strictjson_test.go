package strictjson_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/strictjson"
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
	ID      string `json:"id"`
	Created string `json:"created"`
}

type Extra struct {
	Note string `json:"note"`
}

type doc struct {
	Base
	*Extra
	Created  int                `json:"created"` // shadows Base.Created
	Teams    []team             `json:"teams"`
	Limits   map[string]float64 `json:"limits"`
	ByName   map[string]member  `json:"byName"`
	Any      any                `json:"any"`
	Raw      json.RawMessage    `json:"raw"`
	When     *time.Time         `json:"when"`
	Addr     netip.Addr         `json:"addr"`
	Pair     [2]int             `json:"pair"`
	Data     []byte             `json:"data"`
	Untagged bool
	Skipped  string `json:"-"`
	//lint:ignore SA5008 on purpose: the tag "-," names the field "-", a case the decoder must follow
	Dash string `json:"-,"`
	//lint:ignore U1000 on purpose: an unexported field the decoder must not fill
	unexposed string
}

// failing refuses every value it is handed.
type failing struct{}

func (*failing) UnmarshalJSON(b []byte) error { return fmt.Errorf("refused %s", b) }

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		rule string
		data string
		want string // the whole of Error()
	}{
		{"keys must equal the json tag, case included", `{"teams": [{"ID": "t"}]}`, `teams[0]: unknown field "ID"`},
		{"unknown keys are errors with their place", `{"teams": [{"id": "t", "members": [{}, {}, {"emial": "x"}]}]}`, `teams[0].members[2]: unknown field "emial"`},
		{"unknown keys at the top have no place", `{"team": []}`, `unknown field "team"`},
		{"fields tagged - have no name", `{"Skipped": "x"}`, `unknown field "Skipped"`},
		{"unexported fields have no name", `{"unexposed": "x"}`, `unknown field "unexposed"`},
		{"repeated keys are errors", `{"id": "a", "id": "a"}`, `field "id" appears more than once`},
		{"repeated keys in a map are errors", `{"limits": {"a": 1, "a": 2}}`, `limits: field "a" appears more than once`},
		{"repeated keys in an any are errors", `{"any": [{"x": {"y": 1, "y": 1}}]}`, `any[0].x: field "y" appears more than once`},
		{"map values are decoded strictly", `{"byName": {"ann": {"email": "a", "mail": "b"}}}`, `byName.ann: unknown field "mail"`},
		{"a string field takes a string", `{"teams": [{"id": 7}]}`, `teams[0].id: must be a string`},
		{"an integer field refuses a fraction", `{"teams": [{"members": [{"seats": 1.5}]}]}`, `teams[0].members[0].seats: must be an integer`},
		{"an integer field refuses a quoted number", `{"created": "3"}`, `created: must be an integer`},
		{"an integer field refuses an overflow", `{"created": 1e40}`, `created: must be an integer`},
		{"a pointer field takes its element's type", `{"teams": [{"members": [{"role": true}]}]}`, `teams[0].members[0].role: must be a string`},
		{"a slice field takes an array", `{"teams": {}}`, `teams: must be an array`},
		{"a struct field takes an object", `{"teams": [[]]}`, `teams[0]: must be an object`},
		{"null is not an object", `{"teams": [null]}`, `teams[0]: must be an object`},
		{"a top-level struct takes an object", `[]`, `must be an object`},
		{"a map field takes an object", `{"limits": [1]}`, `limits: must be an object`},
		{"map values take their type", `{"limits": {"a": "1"}}`, `limits.a: must be a number`},
		{"an array field takes at most its length", `{"pair": [1, 2, 3]}`, `pair: must be an array of at most 2 elements`},
		{"a TextUnmarshaler takes a string", `{"addr": 1}`, `addr: must be a string`},
		{"a TextUnmarshaler's refusal is reported at its place", `{"addr": "nope"}`, `addr: ParseAddr("nope"): unable to parse IP`},
		{"an Unmarshaler's refusal is reported at its place", `{"when": "yesterday"}`, `when: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{"a byte slice takes base64", `{"data": 5}`, `data: must be a base64 string`},
		{"syntax errors carry line and column", "{\"teams\": [\n  {\"id\": }\n]}", `malformed JSON at line 2, column 10: invalid character '}' looking for beginning of value`},
		{"an unfinished document is a syntax error", `{"teams": `, `malformed JSON at line 1, column 10: unexpected end of JSON input`},
		{"an empty document is a syntax error", ``, `malformed JSON at line 1, column 1: unexpected end of JSON input`},
		{"trailing data is an error", "{}\n {}", `malformed JSON at line 2, column 2: invalid character '{' after top-level value`},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var d doc
			err := strictjson.Unmarshal([]byte(tc.data), &d)
			if err == nil {
				t.Fatalf("Unmarshal(%q) succeeded, want %s", tc.data, tc.want)
			}
			var e *strictjson.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %T %v, want a *strictjson.Error", err, err)
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
		want strictjson.Error // Problem and Err are not compared
	}{
		{"an unknown key names its object and itself", `{"teams": [{"x": 1}]}`,
			strictjson.Error{Kind: strictjson.UnknownField, Place: "teams[0]", Field: "x"}},
		{"a repeated key names its object and itself", `{"teams": [], "teams": []}`,
			strictjson.Error{Kind: strictjson.RepeatedField, Field: "teams"}},
		{"a wrong type names the type wanted", `{"teams": [{"members": [{"seats": "2"}]}]}`,
			strictjson.Error{Kind: strictjson.WrongType, Place: "teams[0].members[0].seats", Want: "an integer"}},
		{"a syntax error has a line and column", "{\n\n   x}",
			strictjson.Error{Kind: strictjson.Syntax, Line: 3, Column: 4}},
		{"trailing data has a line and column", `{} []`,
			strictjson.Error{Kind: strictjson.Trailing, Line: 1, Column: 4}},
		{"an unmarshaler's refusal is Rejected", `{"when": 5}`,
			strictjson.Error{Kind: strictjson.Rejected, Place: "when"}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var d doc
			var e *strictjson.Error
			if err := strictjson.Unmarshal([]byte(tc.data), &d); !errors.As(err, &e) {
				t.Fatalf("Unmarshal(%q) = %v, want a *strictjson.Error", tc.data, err)
			}
			got := *e
			got.Problem, got.Err = "", nil
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestErrorPath(t *testing.T) {
	tests := []struct {
		rule string
		err  strictjson.Error
		want string
	}{
		{"an unknown key's path ends in the key", strictjson.Error{Kind: strictjson.UnknownField, Place: "teams[0]", Field: "x"}, "teams[0].x"},
		{"a top-level key's path is the key", strictjson.Error{Kind: strictjson.RepeatedField, Field: "teams"}, "teams"},
		{"other errors' path is their place", strictjson.Error{Kind: strictjson.WrongType, Place: "teams[0].id", Want: "a string"}, "teams[0].id"},
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
	note := "n"
	when := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		rule string
		data string
		want doc
	}{
		{"fields decode like encoding/json",
			`{"teams": [{"id": "t", "members": [{"email": "a@x", "role": "admin", "tags": ["p"], "seats": 3}]}]}`,
			doc{Teams: []team{{ID: "t", Members: []member{{Email: "a@x", Role: &role, Tags: []string{"p"}, Seats: 3}}}}}},
		{"embedded fields count as the struct's own, the outer one winning",
			`{"id": "b", "created": 5, "note": "n"}`,
			doc{Base: Base{ID: "b"}, Created: 5, Extra: &Extra{Note: note}}},
		{"an untagged field goes by its Go name, and a \"-,\" tag names it -",
			`{"Untagged": true, "-": "dash"}`,
			doc{Untagged: true, Dash: "dash"}},
		{"null sets pointers, slices and maps to nil",
			`{"teams": null, "limits": null, "when": null, "any": null, "created": null}`,
			doc{}},
		{"maps accept any keys",
			`{"limits": {"Anything": 1, "goes": 2.5}}`,
			doc{Limits: map[string]float64{"Anything": 1, "goes": 2.5}}},
		{"any accepts any keys, as encoding/json decodes them",
			`{"any": {"X": [1, "a", true, null, {"y": {}}]}}`,
			doc{Any: map[string]any{"X": []any{1.0, "a", true, nil, map[string]any{"y": map[string]any{}}}}}},
		{"a json.RawMessage is handed its bytes as they stand",
			`{"raw": {"k": 1, "k": 2, "Unknown": [ ]}}`,
			doc{Raw: json.RawMessage(`{"k": 1, "k": 2, "Unknown": [ ]}`)}},
		{"an Unmarshaler is handed its bytes",
			`{"when": "2026-11-21T09:00:00Z"}`,
			doc{When: &when}},
		{"a TextUnmarshaler takes a string",
			`{"addr": "10.0.0.1"}`,
			doc{Addr: netip.MustParseAddr("10.0.0.1")}},
		{"a short array leaves the rest zero, a byte slice takes base64",
			`{"pair": [7], "data": "aGk="}`,
			doc{Pair: [2]int{7, 0}, Data: []byte("hi")}},
		{"white space around the document is allowed",
			" \n {\"id\": \"w\"} \n ",
			doc{Base: Base{ID: "w"}}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var got doc
			if err := strictjson.Unmarshal([]byte(tc.data), &got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestUnmarshalHandsUnmarshalersTheirBytes(t *testing.T) {
	var v struct {
		F failing `json:"f"`
	}
	err := strictjson.Unmarshal([]byte(`{"f": {"a": [1]}}`), &v)
	if got, want := fmt.Sprint(err), `f: refused {"a": [1]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	var e *strictjson.Error
	if !errors.As(err, &e) || e.Kind != strictjson.Rejected || !strings.HasPrefix(fmt.Sprint(errors.Unwrap(err)), "refused") {
		t.Errorf("error %#v does not wrap the unmarshaler's error", err)
	}
}

func TestUnmarshalNeedsAPointer(t *testing.T) {
	for _, target := range []any{doc{}, (*doc)(nil), nil} {
		err := strictjson.Unmarshal([]byte(`{}`), target)
		var invalid *json.InvalidUnmarshalError
		if !errors.As(err, &invalid) {
			t.Errorf("Unmarshal into %T = %v, want a *json.InvalidUnmarshalError", target, err)
		}
	}
}
