package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// everyBody has every member of every request body the API decodes, with its
// type there (teams' name and role, invites, credit limits and details, tags).
type everyBody struct {
	IDs                       []string                    `json:"ids"`
	Name                      *string                     `json:"name"`
	Role                      *string                     `json:"role"`
	Email                     *string                     `json:"email"`
	Teams                     []workspace.TeamInvite      `json:"teams"`
	ExpiresInDays             *int                        `json:"expiresInDays"`
	DailyCreditLimit          workspace.Nullable[float64] `json:"dailyCreditLimit"`
	MonthlyCreditLimit        workspace.Nullable[float64] `json:"monthlyCreditLimit"`
	ShowTokenOptimisationInfo *bool                       `json:"showTokenOptimisationInfo"`
	Tags                      *[]string                   `json:"tags"`
	Mode                      *string                     `json:"mode"`
}

// plantKeys returns body with each '~' replaced by the key prefix, so that
// the fuzzer places key-shaped text (in names, values, paths) wherever it
// likes.
func plantKeys(body []byte) []byte {
	return bytes.ReplaceAll(body, []byte("~"), []byte(workspace.KeyPrefix))
}

var decodeSeeds = []string{
	`{}`, ` { } `, `null`, `[]`, `[1]`, `"x"`, `1`, ``, `   `, `{`, `{"count": `, `{} {}`, `{"count": 1} x`,
	`{"count": 3, "items": [{"name": "a"}], "any": {"x": 1}, "limit": 1.5}`, `{"limit": null}`, `{"count": null}`,
	`{"limit": "1"}`, `{"cuont": 3}`, `{"Count": 3}`, `{"items": [{"name": "a"}, {"nmae": "b"}]}`,
	`{"count": "3"}`, `{"count": 1.5}`, `{"count": 7.0}`, `{"items": [{"name": 5}]}`, `{"count": 1, "count": 2}`,
	`{"any": {"x": 1, "x": 1}}`, `{"items": [null]}`, `{"~abc": 1}`, `{"~abc": 1, "~abc": 2}`,
	`{"items": [{"~k1": 1}]}`, `{"any": {"~k": {"~k": 1, "~k": 2}}}`, `{"email": "~x@example.com", "role": "member"}`,
	`{"email": "a@b.co", "teams": [{"teamId": "t", "role": "admin", "~z": 0}], "expiresInDays": 7}`,
	`{"ids": ["a"], "dailyCreditLimit": null, "monthlyCreditLimit": 5}`, `{"ids": ["a"], "tags": ["x"], "mode": "add"}`,
	`{"ids": "a"}`, `{"tags": null}`, `{"showTokenOptimisationInfo": 1}`, "{\"name\": \"\xff\"}", "\ufeff{}",
	`{"expiresInDays": 1e999}`, `{"count": -9223372036854775809}`,
}

// checkDecodeBytes checks an error of DecodeBytes on body: nil only for a
// JSON object, otherwise a KindInvalid error with no key-shaped text.
func checkDecodeBytes(t *testing.T, body []byte, err error) {
	t.Helper()
	if err == nil {
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		if !json.Valid(body) || !utf8.Valid(body) || len(trimmed) == 0 || trimmed[0] != '{' {
			t.Fatalf("accepted %q, which is not one JSON object", body)
		}
		return
	}
	if k := workspace.KindOf(err); k != workspace.KindInvalid {
		t.Fatalf("%q: kind %d, want KindInvalid: %v", body, k, err)
	}
	if workspace.ContainsKey(err.Error()) || workspace.ContainsKey(workspace.MessageOf(err)) {
		t.Fatalf("%q: the message repeats key-shaped text: %q", body, err)
	}
}

// FuzzDecodeBytes: DecodeBytes, into the fields of every request body and
// into the test's own body type, never panics; it accepts only one JSON
// object (valid UTF-8, no trailing data) and refuses anything else with a
// KindInvalid error whose message holds no key-shaped text (planted with
// '~'), and answers the same when asked twice.
func FuzzDecodeBytes(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, b := range [][]byte{data, plantKeys(data)} {
			targets := []func() any{
				func() any { return new(everyBody) },
				func() any { return new(body) },
				func() any { return new(workspace.InviteRequest) },
				func() any { return new(struct{}) },
			}
			for _, target := range targets {
				err := httpapi.DecodeBytes(b, target())
				checkDecodeBytes(t, b, err)
				if again := httpapi.DecodeBytes(b, target()); errText(again) != errText(err) {
					t.Fatalf("%q: not deterministic: %v, then %v", b, err, again)
				}
			}
		}
	})
}

// mediaRefusal is Decode's one message for a Content-Type it refuses: it
// never repeats the header.
const mediaRefusal = "the request body must be JSON, sent with Content-Type: application/json"

// newBodyRequest is a POST with body and one Content-Type header per line of
// contentType (none when it is empty).
func newBodyRequest(contentType string, body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	if contentType != "" {
		for ct := range strings.SplitSeq(contentType, "\n") {
			r.Header.Add("Content-Type", ct)
		}
	}
	return r
}

// checkDecodeKind checks what Decode and DecodeNone share: the error is nil
// or KindInvalid, KindTooLarge or KindUnsupportedMedia (never a server
// error); a refused media type answers one fixed message, and is never the
// answer to no header, application/json or its utf-8 charset; it reports
// whether the body itself was read (neither of the last two kinds).
func checkDecodeKind(t *testing.T, contentType string, body []byte, err error) (read bool) {
	t.Helper()
	switch k := workspace.KindOf(err); {
	case err == nil || k == workspace.KindInvalid:
		if len(body) > httpapi.MaxBodyBytes {
			t.Fatalf("%d bytes (Content-Type %q) read; at most %d are", len(body), contentType, httpapi.MaxBodyBytes)
		}
		return true
	case k == workspace.KindTooLarge:
		if len(body) <= httpapi.MaxBodyBytes {
			t.Fatalf("%d bytes are not too large: %v", len(body), err)
		}
	case k == workspace.KindUnsupportedMedia:
		switch contentType {
		case "", "application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8":
			t.Fatalf("Content-Type %q refused: %v", contentType, err)
		}
		if err.Error() != mediaRefusal {
			t.Fatalf("Content-Type %q: message %q", contentType, err)
		}
	default:
		t.Fatalf("Content-Type %q, %d bytes: kind %d: %v", contentType, len(body), k, err)
	}
	return false
}

// padded returns body with MaxBodyBytes spaces after it when pad is set:
// over the limit unless body is empty.
func padded(body []byte, pad bool) []byte {
	if !pad {
		return body
	}
	return append(bytes.Clone(body), bytes.Repeat([]byte(" "), httpapi.MaxBodyBytes)...)
}

var contentTypeSeeds = []string{
	"", "application/json", "application/json; charset=utf-8", "Application/JSON; Charset=UTF-8",
	"application/json; charset=latin-1", "text/plain", "application/json\ntext/plain", " ",
	"application/json; charset", "application/json; ~x=1", "~secret0", "application/merge-patch+json",
	"multipart/form-data; boundary=x", "application/json;;", "\x00",
}

// FuzzDecode: Decode (a Content-Type, possibly repeated, and a body, possibly
// past MaxBodyBytes) never panics and answers nil or a 400, 413 or 415 kind;
// 415 only for a media type other than JSON, with a fixed message; 413 only
// past the limit; and once the media type and size pass, exactly what
// DecodeBytes answers on the body.
func FuzzDecode(f *testing.F) {
	for i, ct := range contentTypeSeeds {
		f.Add(ct, []byte(decodeSeeds[i%len(decodeSeeds)]), i%5 == 4)
	}
	f.Add("application/json", []byte(`{"count": 1}`), true)
	f.Add("", []byte(``), true) // exactly MaxBodyBytes of spaces
	f.Fuzz(func(t *testing.T, contentType string, body []byte, pad bool) {
		body = plantKeys(padded(body, pad))
		var dst everyBody
		err := httpapi.Decode(newBodyRequest(contentType, body), &dst)
		if !checkDecodeKind(t, contentType, body, err) {
			return
		}
		if want := httpapi.DecodeBytes(body, new(everyBody)); errText(err) != errText(want) {
			t.Fatalf("Content-Type %q, body %q: Decode answers %v, DecodeBytes %v", contentType, body, err, want)
		}
	})
}

// FuzzDecodeNone: DecodeNone never panics; with no body at all it accepts;
// otherwise it answers nil or a 400, 413 or 415 kind as Decode does, and once
// the media type and size pass it accepts exactly an empty body and an empty
// JSON object (whitespace around it allowed), refusing anything else with a
// KindInvalid error that holds no key-shaped text.
func FuzzDecodeNone(f *testing.F) {
	for i, s := range append(decodeSeeds, "{ \n}\t", "{}\n\n", `{"a": 1}`, `{"~abc": 1}`) {
		f.Add(contentTypeSeeds[i%len(contentTypeSeeds)], []byte(s), i%7 == 6, i%3 == 0)
	}
	f.Fuzz(func(t *testing.T, contentType string, body []byte, pad, noBody bool) {
		body = plantKeys(padded(body, pad))
		r := newBodyRequest(contentType, body)
		if noBody {
			r.Body = http.NoBody
		}
		err := httpapi.DecodeNone(r)
		if noBody {
			if err != nil {
				t.Fatalf("no body (Content-Type %q): %v", contentType, err)
			}
			return
		}
		if !checkDecodeKind(t, contentType, body, err) {
			return
		}
		var members map[string]json.RawMessage
		empty := len(body) == 0 ||
			(json.Unmarshal(body, &members) == nil && members != nil && len(members) == 0)
		if (err == nil) != empty {
			t.Fatalf("%q: DecodeNone answers %v; an empty object or body: %v", body, err, empty)
		}
		if err != nil {
			checkDecodeBytes(t, body, err)
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
