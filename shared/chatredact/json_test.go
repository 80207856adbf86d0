package chatredact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// appendString writes strings as encoding/json does without HTML escaping.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" backslash \\ slash /", "\n\r\t\x00\x1f\x7f", "<&>", "é漢字🙂", "\u2028\u2029", "bad \xff\xfe utf-8", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got := appendString(nil, s); string(got) != want.String()[:want.Len()-1] {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want.String())
		}
	})
}

// The lexer reads every token of valid JSON as encoding/json does: the
// walk of a body with nothing to hide writes the same JSON, compacted.
func FuzzWalkKeepsJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `"x"`, `{"a":[1,-2.5e+3,true,false,null,"\u00e9\"\\\/"]}`, `[{"b":{"c":[[],{}]}}]`, " {\n\t\"k\" : 0.1 } "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !json.Valid([]byte(doc)) {
			if _, _, ok := redactJSON([]byte(doc), 0); ok {
				t.Fatalf("invalid JSON accepted: %q", doc)
			}
			return
		}
		out, _, ok := redactJSON([]byte(doc), 0)
		if !ok || !json.Valid(out) {
			t.Fatalf("walk of %q: ok %v, %q", doc, ok, out)
		}
	})
}

// Text never panics, whatever surrounds a credential, and hides it.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "password", "--token", `"key":`, "<password", "Basic ", "a@b", "https://u:p@", "token is", "%22pass%22%3A", "\\\"secret\\\":\\\"", "eyJ", "-----BEGIN RSA PRIVATE KEY-----"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = Text(s)
		const secret = "Zq8PlantedFuzz0Secret"
		if got := Text(s + "\nDB_PASSWORD=" + secret + "\n" + s); strings.Contains(got, secret) {
			t.Fatalf("the secret survived in %q: %q", s, got)
		}
	})
}
