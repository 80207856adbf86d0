package workspace

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
)

// Chat redaction (decisions §5, §10). Messages are stored in their native
// form; what leaves the service is redacted: the value of a credential-named
// field becomes RedactedValue (a whole object or array included), a
// key-shaped token inside any other string is replaced by RedactedValue, and
// a string that holds JSON (a tool call's arguments, a tool result's
// content) is parsed, redacted the same way and written back as a string.
//
// The walk covers the whole body of every format, so tool calls and tool
// results (anthropic tool_use.input and tool_result.content, openai
// tool_calls[].function.arguments and role "tool" content) are covered
// wherever a provider puts them; a body of an unknown format, or one that is
// not valid JSON, is redacted the same way (as JSON, or as one string).

// RedactedValue replaces a credential in a chat's output.
const RedactedValue = "[REDACTED]"

// maxNestedJSON bounds how deep JSON inside strings inside JSON is followed;
// deeper, a string's key-shaped tokens are still replaced.
const maxNestedJSON = 8

// keyShaped matches the key-shaped tokens decisions §5 lists, and the like.
// A Bearer credential keeps its scheme word.
var keyShaped = regexp.MustCompile(`(?i:\b(bearer)\s+[A-Za-z0-9\-._~+/]{6,}=*)` +
	`|` + KeyPrefix + `[A-Za-z0-9]+` +
	`|\bsk-[A-Za-z0-9_\-]{12,}` +
	`|\bAKIA[0-9A-Z]{16}` +
	`|\bASIA[0-9A-Z]{16}` +
	`|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}` +
	`|\bgithub_pat_[A-Za-z0-9_]{16,}` +
	`|\beyJ[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*` +
	`|\bxox[abprs]-[A-Za-z0-9\-]{8,}` +
	`|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`)

// credentialNames are normalised field names (lower case, no '-', '_', '.'
// or spaces) whose value is a credential; credentialSuffixes end such names
// (accessToken, client_secret, db-password, x-api-key...).
var (
	credentialNames = map[string]bool{
		"authorization": true, "auth": true, "password": true, "passwd": true, "pwd": true,
		"passphrase": true, "secret": true, "token": true, "credentials": true, "credential": true,
		"apikey": true, "privatekey": true, "cookie": true, "setcookie": true, "proxyauthorization": true,
	}
	credentialSuffixes = []string{
		"token", "secret", "password", "passwd", "passphrase", "apikey", "privatekey", "secretkey",
		"accesskey", "credentials", "credential", "authorization", "signingkey", "sessionkey",
	}
)

// IsCredentialName reports whether a field of this name holds a credential:
// names match in any case, with '-', '_' or camelCase (decisions §10).
func IsCredentialName(name string) bool {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		switch r {
		case '-', '_', '.', ' ':
			continue
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	n := b.String()
	if credentialNames[n] {
		return true
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// RedactTokens returns s with every key-shaped token replaced by
// RedactedValue (a Bearer credential keeps the word Bearer).
func RedactTokens(s string) string {
	if len(s) < 3 || !mayHoldToken(s) {
		return s
	}
	return keyShaped.ReplaceAllStringFunc(s, func(m string) string {
		if len(m) > 6 && strings.EqualFold(m[:6], "bearer") {
			return m[:6] + " " + RedactedValue
		}
		return RedactedValue
	})
}

// RedactMessageBody returns body, a message's native JSON in format, as it
// may leave the service. A body that needs no change is returned as it is,
// byte for byte.
func RedactMessageBody(format string, body json.RawMessage) json.RawMessage {
	_ = format // every format is walked whole: see the package comment above
	out, changed, ok := redactJSON(body, 0)
	if !ok {
		// Not JSON (the store only keeps JSON): redact it as text.
		s, _ := json.Marshal(RedactTokens(string(body)))
		return s
	}
	if !changed {
		return body
	}
	return out
}

// RedactJSONObject is RedactMessageBody for an object such as a message's
// token metadata: nil stays nil.
func RedactJSONObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	return RedactMessageBody("", raw)
}

// frame is one open object or array of the walk.
type frame struct {
	object   bool
	count    int  // values (arrays) or members (objects) written
	redactNx bool // the next value is a credential's (objects)
}

// redactJSON walks data, one JSON value, and writes its redacted form
// compactly; changed says whether anything was redacted, ok whether data is
// valid JSON.
func redactJSON(data []byte, depth int) (out []byte, changed, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var buf bytes.Buffer
	buf.Grow(len(data))
	var stack []frame
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].count%2 == 0 }
	sep := func() {
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.object {
			if f.count%2 == 1 {
				buf.WriteByte(':')
			} else if f.count > 0 {
				buf.WriteByte(',')
			}
		} else if f.count > 0 {
			buf.WriteByte(',')
		}
		f.count++
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, false
		}
		if d, isDelim := tok.(json.Delim); isDelim && (d == '}' || d == ']') {
			buf.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		if expectKey() {
			k, _ := tok.(string)
			sep()
			f := &stack[len(stack)-1]
			f.redactNx = IsCredentialName(k)
			rk := RedactTokens(k)
			changed = changed || rk != k
			writeString(&buf, rk)
			continue
		}
		sep()
		if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].redactNx {
			stack[len(stack)-1].redactNx = false
			if tok != nil {
				if d, isDelim := tok.(json.Delim); isDelim {
					if err := skipRest(dec, d); err != nil {
						return nil, false, false
					}
				}
				writeString(&buf, RedactedValue)
				changed = true
				continue
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			buf.WriteByte(byte(v))
			stack = append(stack, frame{object: v == '{'})
		case string:
			rv := redactString(v, depth)
			changed = changed || rv != v
			writeString(&buf, rv)
		case json.Number:
			buf.WriteString(string(v))
		case bool:
			if v {
				buf.WriteString("true")
			} else {
				buf.WriteString("false")
			}
		case nil:
			buf.WriteString("null")
		}
	}
	if len(stack) != 0 {
		return nil, false, false
	}
	return buf.Bytes(), changed, true
}

// skipRest consumes the rest of the array or object opened by open.
func skipRest(dec *json.Decoder, open json.Delim) error {
	depth := 1
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			if err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// redactString redacts one string value: JSON inside it is walked (and
// written back compactly when something in it was redacted), other text has
// its key-shaped tokens replaced.
func redactString(s string, depth int) string {
	t := strings.TrimSpace(s)
	if depth < maxNestedJSON && len(t) >= 2 && (t[0] == '{' || t[0] == '[') {
		if out, changed, ok := redactJSON([]byte(t), depth+1); ok {
			if !changed {
				return s
			}
			return string(out)
		}
	}
	return RedactTokens(s)
}

// writeString writes s as a JSON string, without HTML escaping.
func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

// tokenAnchors are literal parts every keyShaped match contains but
// (any-case) "bearer", which mayHoldToken looks for on its own.
var tokenAnchors = []string{KeyPrefix, "sk-", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "eyJ", "xox", "PRIVATE KEY"}

// mayHoldToken is a cheap filter before the regular expression: whether s
// holds an anchor of some key shape.
func mayHoldToken(s string) bool {
	for _, a := range tokenAnchors {
		if strings.Contains(s, a) {
			return true
		}
	}
	for i := 0; i+6 <= len(s); i++ {
		if (s[i] == 'b' || s[i] == 'B') && strings.EqualFold(s[i:i+6], "bearer") {
			return true
		}
	}
	return false
}
