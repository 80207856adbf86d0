package workspace

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
)

// Chat redaction (docs/agent-data.md). Messages are stored in their native
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

// keyShaped matches the key-shaped tokens docs/agent-data.md lists, and the like.
// A Bearer credential keeps its scheme word. Tokens with a fixed prefix may
// follow any character but a letter or digit (group 1 holds it), so one
// glued to a name by '_' (OPENAI_API_KEY_sk-...) is found too.
var keyShaped = regexp.MustCompile(`(?i:\b(bearer)\s+[A-Za-z0-9\-._~+/]{6,}=*)` +
	`|` + KeyPrefix + `[A-Za-z0-9]+` +
	`|(^|[^A-Za-z0-9])(?:sk-[A-Za-z0-9_\-]{12,}` +
	`|AKIA[0-9A-Z]{16}` +
	`|ASIA[0-9A-Z]{16}` +
	`|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}` +
	`|github_pat_[A-Za-z0-9_]{16,}` +
	`|eyJ[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*` +
	`|xox[abprs]-[A-Za-z0-9\-]{8,})` +
	`|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`)

// credentialPair finds a "name": "value" pair in text that is not JSON as a
// whole (JSON with a trailing comma, a pair quoted in prose), so that the
// value of a credential-named field is hidden even there.
var credentialPair = regexp.MustCompile(`"([A-Za-z0-9_.\- ]{1,64})"\s*:\s*"((?:[^"\\]|\\.)*)"`)

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
// names match in any case, with '-', '_' or camelCase (docs/agent-data.md).
func IsCredentialName(name string) bool {
	return isCredential(normalName(name))
}

// normalName lower-cases name and drops '-', '_', '.' and spaces.
func normalName(name string) string {
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
	return b.String()
}

// IsCredentialListName reports whether a field of this name is the plural of
// a credential name (api_keys, secrets, tokens): its value is a credential
// when it is a string, an array or an object, but a number under such a name
// is a count (inputTokens, max_tokens) and stays.
func IsCredentialListName(name string) bool {
	n := normalName(name)
	return !isCredential(n) && len(n) > 1 && strings.HasSuffix(n, "s") && isCredential(n[:len(n)-1])
}

// isCredential reports whether a normalised name is a credential's.
func isCredential(n string) bool {
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
	matches := keyShaped.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range matches {
		start, end := m[0], m[1]
		switch {
		case m[2] >= 0: // Bearer: keep the scheme word
			start = m[3]
			b.WriteString(s[last:start])
			b.WriteString(" " + RedactedValue)
		default:
			if m[4] >= 0 { // the character before a prefixed token stays
				start = m[5]
			}
			b.WriteString(s[last:start])
			b.WriteString(RedactedValue)
		}
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
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
	listNx   bool // the next value is a credential's unless it is a number, a boolean or null
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
			f.redactNx, f.listNx = IsCredentialName(k), IsCredentialListName(k)
			rk := RedactTokens(k)
			changed = changed || rk != k
			writeString(&buf, rk)
			continue
		}
		sep()
		if f := frameOf(stack); f != nil && f.listNx {
			f.listNx = false
			switch tok.(type) {
			case json.Delim, string:
				f.redactNx = true
			}
		}
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

// frameOf returns the innermost open object of the walk, or nil.
func frameOf(stack []frame) *frame {
	if len(stack) == 0 || !stack[len(stack)-1].object {
		return nil
	}
	return &stack[len(stack)-1]
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
// written back compactly when something in it was redacted), whether it is
// the whole string, a JSON string holding JSON (arguments encoded twice), or
// embedded in text; the rest has its key-shaped tokens replaced and the
// values of credential-named "name": "value" pairs hidden. Past
// maxNestedJSON levels a string that still looks like JSON is hidden whole:
// redaction fails closed.
func redactString(s string, depth int) string {
	t := strings.TrimSpace(s)
	looksJSON := len(t) >= 2 && (t[0] == '{' || t[0] == '[' || t[0] == '"')
	if looksJSON && depth >= maxNestedJSON {
		return RedactedValue
	}
	if looksJSON && t[0] == '"' {
		var inner string
		if json.Unmarshal([]byte(t), &inner) == nil {
			r := redactString(inner, depth+1)
			if r == inner {
				return s
			}
			out, _ := json.Marshal(r)
			return string(out)
		}
	}
	if looksJSON {
		if out, changed, ok := redactJSON([]byte(t), depth+1); ok {
			if !changed {
				return s
			}
			return string(out)
		}
	}
	out := s
	if depth < maxNestedJSON && strings.ContainsAny(s, "{[") {
		out = redactEmbeddedJSON(s, depth)
	}
	return redactPairs(RedactTokens(out))
}

// maxEmbeddedTries bounds the JSON values looked for inside one string, so
// text full of brackets costs linear time.
const maxEmbeddedTries = 64

// redactEmbeddedJSON redacts the JSON values found inside text, such as
// `Result: {"password": "..."} (200 OK)`.
func redactEmbeddedJSON(s string, depth int) string {
	var b strings.Builder
	last, tries := 0, 0
	for i := 0; i < len(s) && tries < maxEmbeddedTries; i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			continue
		}
		end := i + int(dec.InputOffset())
		out, changed, ok := redactJSON(raw, depth+1)
		if !ok || !changed {
			i = end - 1
			continue
		}
		b.WriteString(s[last:i])
		b.Write(out)
		last, i = end, end-1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactPairs hides the values of credential-named "name": "value" pairs
// left in text.
func redactPairs(s string) string {
	if !strings.Contains(s, `":`) && !strings.Contains(s, `" :`) {
		return s
	}
	return credentialPair.ReplaceAllStringFunc(s, func(m string) string {
		sub := credentialPair.FindStringSubmatch(m)
		if !(IsCredentialName(sub[1]) || IsCredentialListName(sub[1])) || sub[2] == RedactedValue {
			return m
		}
		return m[:len(m)-len(sub[2])-1] + RedactedValue + `"`
	})
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
