// Package chatredact redacts a chat on its way out of the service
// (docs/agent-data.md, Redaction). Messages are stored in their native form;
// what leaves is redacted:
//   - the value of a credential-named field (names.go) becomes RedactedValue,
//     a whole object or array included; so does the value of a name/value
//     object naming a credential ({"name": "DB_PASS", "value": ...}) and the
//     element after a credential flag in an array (["--password", ...]);
//   - a string that holds JSON (a tool call's arguments, a tool result's
//     content, JSON embedded in text, JSON encoded twice) is parsed,
//     redacted the same way and written back as a string;
//   - any other text has every credential a secret scanner knows hidden
//     (text.go): gitleaks' rule set and this package's own rules, name=value
//     pairs in every notation, passwords in URLs, Basic credentials, and
//     base64 of text holding any of these.
//
// The walk covers the whole body of every format, so tool calls and tool
// results (anthropic text, thinking, tool_use.input and tool_result.content,
// openai content, tool_calls[].function.arguments and role "tool" content)
// are covered wherever a provider puts them; a body of an unknown format, or
// one that is not valid JSON, is redacted the same way (as JSON, or as one
// string). Only the chat route calls this package, and it builds nothing
// at start-up: the other functions link none of it
// (functions/chatredact_deps_test.go).
package chatredact

import (
	"encoding/json"
	"strings"
)

// RedactedValue replaces a credential in a chat's output.
const RedactedValue = "[REDACTED]"

// maxNestedJSON bounds how deep JSON (or base64) inside strings inside JSON
// is followed; deeper, a string that still looks like JSON is hidden whole.
const maxNestedJSON = 8

// Text returns s, any text of a chat (a sender's name or image URL, a short
// description), as it may leave the service: JSON in it is redacted as a
// message body is, and every credential in the rest is hidden.
func Text(s string) string { return redactString(s, 0) }

// MessageBody returns body, a message's native JSON in format, as it may
// leave the service. A body that needs no change is returned as it is, byte
// for byte.
func MessageBody(format string, body json.RawMessage) json.RawMessage {
	_ = format // every format is walked whole: see the package comment
	out, changed, ok := redactJSON(body, 0)
	if !ok {
		// Not JSON (the store only keeps JSON): redact it as text.
		s, _ := json.Marshal(redactString(string(body), 0))
		return s
	}
	if !changed {
		return body
	}
	return out
}

// JSONObject is MessageBody for an object such as a message's token
// metadata: nil stays nil.
func JSONObject(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	return MessageBody("", raw)
}

// frame is one open object or array of the walk.
type frame struct {
	object   bool
	count    int  // values (arrays) or members (objects) written
	redactNx bool // the next value is a credential's
	listNx   bool // the next value is a credential's unless it is a number, a boolean or null

	// Arrays: a command line's words (cli.go).
	argv argvState

	// Objects: a JSON Web Key's private member (d, p, q, dp, dq, qi, k).
	jwkNx bool

	// Objects: {"name": "DB_PASS", "value": "..."}.
	nameNx    bool // the next value is a name-like member's (name, key, header...)
	valueNx   bool // the next value is a value-like member's (value, val...)
	credName  bool // a name-like member named a credential
	valueFrom int  // where a value-like member's output begins, or -1
	valueTo   int  // where it ends
}

// isNameMember and isValueMember: the normalised member names of name/value
// objects (HTTP headers, environment variables, parameters as lists,
// CloudFormation's ParameterKey and ParameterValue, Elastic Beanstalk's
// OptionName and Value).
func isNameMember(m string) bool {
	switch m {
	case "name", "key", "header", "headername", "headerkey", "field", "fieldname", "param", "parameter", "paramname",
		"parameterkey", "parametername", "paramkey", "variable", "var", "varname", "variablename", "env", "envvar", "envname",
		"setting", "settingname", "option", "optionname", "property", "propertyname", "prop", "attribute", "attributename",
		"label", "k", "keyname", "secretname", "cookiename", "argname", "argument":
		return true
	}
	return false
}

func isValueMember(m string) bool {
	switch m {
	case "value", "val", "values", "defaultvalue", "default", "secretvalue", "currentvalue", "parametervalue", "paramvalue",
		"optionvalue", "headervalue", "fieldvalue", "settingvalue", "propertyvalue", "attributevalue", "envvalue",
		"variablevalue", "v", "stringvalue", "secretstring", "cookievalue", "argvalue":
		return true
	}
	return false
}

// isPairName reports whether s, a string at an even place of an array,
// names a credential whose value follows it ([["X-Api-Key", "..."]],
// ("password", "...")): a name, not a flag or prose.
func isPairName(s string) bool {
	if s == "" || len(s) > maxName || s[0] == '-' || strings.ContainsAny(s, " \t\n=:") {
		return false
	}
	return IsCredentialName(s) || IsCredentialListName(s)
}

// normalMember lower-cases name and drops '-', '_', '.' and spaces.
func normalMember(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '-', '_', '.', ' ':
		default:
			b.WriteByte(lower(c))
		}
	}
	return b.String()
}

// redactJSON walks data, one JSON value, and writes its redacted form
// compactly; changed says whether anything was redacted, ok whether data is
// valid JSON.
func redactJSON(data []byte, depth int) (out []byte, changed, ok bool) {
	if !json.Valid(data) {
		return nil, false, false
	}
	lx := lexer{data: data}
	buf := make([]byte, 0, len(data))
	var stack []frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	sep := func() {
		f := top()
		if f == nil {
			return
		}
		if f.object {
			if f.count%2 == 1 {
				buf = append(buf, ':')
			} else if f.count > 0 {
				buf = append(buf, ',')
			}
		} else if f.count > 0 {
			buf = append(buf, ',')
		}
		f.count++
	}
	// valueDone records the end of a value-like member's value.
	valueDone := func(f *frame, redacted bool) {
		if f != nil && f.object && f.valueNx {
			f.valueNx = false
			if !redacted {
				f.valueTo = len(buf)
			} else {
				f.valueFrom = -1
			}
		}
	}
	for {
		kind, delim, str, raw := lx.next()
		if kind == tokEOF {
			break
		}
		if kind == tokClose {
			f := top()
			if f.object && f.credName && f.valueFrom >= 0 && f.valueTo > f.valueFrom {
				// The value came before the name that makes it a credential.
				tail := append([]byte(nil), buf[f.valueTo:]...)
				buf = appendString(buf[:f.valueFrom], RedactedValue)
				buf = append(buf, tail...)
				changed = true
			}
			buf = append(buf, delim)
			stack = stack[:len(stack)-1]
			valueDone(top(), false)
			continue
		}
		if f := top(); f != nil && f.object && f.count%2 == 0 {
			k := str // a member's name
			sep()
			f.redactNx, f.listNx = IsCredentialName(k), IsCredentialListName(k)
			m := normalMember(k)
			f.nameNx = isNameMember(m)
			f.valueNx = isValueMember(m)
			f.jwkNx = isJWKPrivateMember(k)
			if f.valueNx && f.credName {
				f.redactNx, f.valueNx = true, false
			}
			rk := redactString(k, depth)
			changed = changed || rk != k
			buf = appendString(buf, rk)
			continue
		}
		sep()
		f := top()
		if f != nil && f.object && f.valueNx {
			f.valueFrom = len(buf)
		}
		if f != nil && f.listNx {
			f.listNx = false
			if kind == tokOpen || kind == tokString {
				f.redactNx = true
			}
		}
		if f != nil && !f.object && f.argv.pending != 0 && kind != tokString {
			f.argv.pending = 0
			if kind != tokTrue && kind != tokFalse {
				f.redactNx = true
			}
		}
		if f != nil && f.redactNx {
			f.redactNx = false
			if kind != tokNull {
				if kind == tokOpen {
					lx.skip()
				}
				buf = appendString(buf, RedactedValue)
				changed = true
				valueDone(f, true)
				continue
			}
		}
		switch kind {
		case tokOpen:
			buf = append(buf, delim)
			stack = append(stack, frame{object: delim == '{', valueFrom: -1})
			continue
		case tokString:
			if f != nil && f.object && f.nameNx && (IsCredentialName(str) || IsCredentialListName(str)) {
				f.credName = true
			}
			if f != nil && f.object && f.jwkNx && isJWKValue(str) {
				buf = appendString(buf, RedactedValue)
				changed = true
				valueDone(f, true)
				continue
			}
			if f != nil && !f.object {
				from, to := f.argv.word(str)
				if from == 0 && to == len(str) && to > 0 {
					buf = appendString(buf, RedactedValue)
					changed = true
					continue
				}
				if to > from {
					str = str[:from] + RedactedValue + str[to:]
					changed = true
				}
				// [["X-Api-Key", "..."]], rawHeaders: a credential's name at an
				// even place names the next value.
				if (f.count-1)%2 == 0 && f.argv.pending == 0 && !f.argv.known() && isPairName(str) {
					f.listNx = true
				}
			}
			rv := redactString(str, depth)
			changed = changed || rv != str
			buf = appendString(buf, rv)
		case tokNumber:
			buf = append(buf, raw...)
		case tokTrue:
			buf = append(buf, "true"...)
		case tokFalse:
			buf = append(buf, "false"...)
		case tokNull:
			buf = append(buf, "null"...)
		}
		if f != nil {
			f.nameNx = false
		}
		valueDone(f, false)
	}
	return buf, changed, true
}

// redactString redacts one string value: JSON inside it is walked (and
// written back compactly when something in it was redacted), whether it is
// the whole string, a JSON string holding JSON (arguments encoded twice), or
// embedded in text; the rest goes through redactText. Past maxNestedJSON
// levels a string that still looks like JSON is hidden whole: redaction
// fails closed.
func redactString(s string, depth int) string {
	t := strings.TrimSpace(s)
	looksJSON := len(t) >= 2 && (t[0] == '{' || t[0] == '[' || t[0] == '"')
	if depth >= maxNestedJSON {
		if looksJSON {
			return RedactedValue
		}
		return redactText(s, depth)
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
	if strings.ContainsAny(s, "{[") {
		out = redactEmbeddedJSON(s, depth)
	}
	return redactText(out, depth)
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
