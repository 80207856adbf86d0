package jsondoc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/agentplatform/workspaceapi/shared/jsondoc"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// fuzzDoc is doc (every kind of target the decoder meets: embedded structs,
// maps, any, raw JSON, text unmarshalers, bytes) with a nullable field too.
type fuzzDoc struct {
	doc
	Limit workspace.Nullable[float64] `json:"limit"`
}

// plainDoc holds only types encoding/json writes back as they were read, for
// the round trip.
type plainDoc struct {
	ID      string             `json:"id"`
	Count   *int               `json:"count"`
	Ratio   float64            `json:"ratio"`
	On      bool               `json:"on"`
	Tags    []string           `json:"tags"`
	Members []member           `json:"members"`
	Limits  map[string]float64 `json:"limits"`
}

// FuzzUnmarshal: Unmarshal never panics; every failure is a *jsondoc.Error of
// a known kind whose message renders, a Syntax or Trailing one at a line and
// column inside the document; what is not JSON (encoding/json.Valid, UTF-8)
// is never accepted and always fails as Syntax or Trailing (or RepeatedField,
// for a name repeated before the document goes wrong); RejectNull only
// adds refusals (what it accepts is accepted without it, to the same value);
// the answer is the same when asked twice; and a document accepted into plain
// types is accepted again, to the same value, after encoding/json writes it back.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `"x"`, `1`, ``, ` `, `{`, `}`, `{"id": "a"}`, `{"id": "a", "id": "a"}`,
		`{"teams": [{"id": "t", "members": [{"email": "e", "role": null, "tags": ["x"], "seats": 2}]}]}`,
		`{"teams": [{"ID": "t"}]}`, `{"teams": [{"members": [{}, {}, {"emial": "x"}]}]}`,
		`{"limits": {"a": 1, "a": 2}}`, `{"limits": {"a": 1e400}}`, `{"created": 1.5}`, `{"created": 7.0}`,
		`{"created": 99999999999999999999}`, `{"any": [{"x": {"y": 1, "y": 1}}]}`, `{"raw": {"k": 1, "k": 2}}`,
		`{"when": "2026-13-01T00:00:00Z"}`, `{"when": "2026-01-01T00:00:00Z"}`, `{"addr": "::1"}`, `{"addr": "x"}`,
		`{"data": "aGk="}`, `{"data": "!"}`, `{"Untagged": true}`, `{"Skipped": "x"}`, `{"limit": null}`,
		`{"limit": "1"}`, `{"limit": 2.5}`, `{"byName": {"wk_abc": {"emial": 1}}}`, `{"wk_secret1": 1}`,
		"{\"id\": \"\xff\"}", "{\"id\":\n\"a\"\n,}", `{"id": "a"} {"id": "b"}`, `{"id": "a"} x`, "\ufeff{}",
		`{"id": "\ud800"}`, `{"id": "a\u0000b"}`, `{"ratio": -0, "count": -0}`, `{"members": [null]}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var loose, strict fuzzDoc
		errLoose := jsondoc.Unmarshal(data, &loose)
		errStrict := jsondoc.Unmarshal(data, &strict, jsondoc.RejectNull())
		for _, err := range []error{errLoose, errStrict} {
			checkDocError(t, data, err)
		}
		var again fuzzDoc
		if err := jsondoc.Unmarshal(data, &again, jsondoc.RejectNull()); errText(err) != errText(errStrict) {
			t.Fatalf("not deterministic on %q: %v, then %v", data, errStrict, err)
		}
		if errStrict == nil {
			if errLoose != nil {
				t.Fatalf("%q: accepted under RejectNull, refused without it: %v", data, errLoose)
			}
			if !reflect.DeepEqual(loose, strict) {
				t.Fatalf("%q: RejectNull decoded %+v, without it %+v", data, strict, loose)
			}
		}

		var p plainDoc
		if err := jsondoc.Unmarshal(data, &p, jsondoc.RejectNull()); err != nil {
			checkDocError(t, data, err)
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%q: the decoded %+v does not encode: %v", data, p, err)
		}
		var q plainDoc
		if err := jsondoc.Unmarshal(out, &q); err != nil {
			t.Fatalf("%q decoded to %+v, whose encoding %s is refused: %v", data, p, out, err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip of %q: %+v, then %+v (through %s)", data, p, q, out)
		}
	})
}

// checkDocError checks an error of Unmarshal on data against the package's
// promises.
func checkDocError(t *testing.T, data []byte, err error) {
	t.Helper()
	valid := json.Valid(data) && utf8.Valid(data)
	if err == nil {
		if !valid {
			t.Fatalf("accepted %q, which is not JSON", data)
		}
		return
	}
	var e *jsondoc.Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: %T is not a *jsondoc.Error: %v", data, err, err)
	}
	if e.Kind < jsondoc.Syntax || e.Kind > jsondoc.Rejected {
		t.Fatalf("%q: unknown kind %d: %v", data, e.Kind, err)
	}
	if e.Error() == "" || e.Problem() == "" {
		t.Fatalf("%q: an error without a message: %#v", data, e)
	}
	_ = e.Path()
	// A name repeated before the document goes wrong is found first
	// (Unmarshal's doc: "or RepeatedField").
	if !valid && e.Kind != jsondoc.Syntax && e.Kind != jsondoc.Trailing && e.Kind != jsondoc.RepeatedField {
		t.Fatalf("%q is not JSON, but the error is of kind %d: %v", data, e.Kind, err)
	}
	if e.Kind == jsondoc.Syntax || e.Kind == jsondoc.Trailing {
		lines := bytes.Count(data, []byte("\n")) + 1
		if e.Line < 1 || e.Line > lines || e.Column < 1 || e.Column > len(data)+1 {
			t.Fatalf("%q: line %d, column %d is outside the document (%d lines)", data, e.Line, e.Column, lines)
		}
		if e.Place != "" || e.Field != "" {
			t.Fatalf("%q: a %d error with a place: %#v", data, e.Kind, e)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
