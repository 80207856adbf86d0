// Package redactcorpus holds planted credentials for the chat redaction tests
// (docs/agent-data.md, Redaction) and plants them in every message format,
// field and nesting the chat route serves. corpus.json lists each credential
// once, with the shape it is in: text that holds it (KEY=value, a URL, a
// header, a provider's key format, a PEM block, base64 of JSON...), a
// credential-named field and its value, or a command line's words. The
// values are fake, in the shapes of real ones.
package redactcorpus

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed corpus.json
var corpusJSON []byte

// Entry is one planted credential.
type Entry struct {
	Shape  string          `json:"shape"`
	Secret string          `json:"secret"` // must never come back
	Text   string          `json:"text"`   // text holding it, for a text entry
	Name   string          `json:"name"`   // the field's name, for a field entry
	Value  json.RawMessage `json:"value"`  // the field's value (holds Secret)
	Argv   []string        `json:"argv"`   // a command line's words (one is Secret)
	Parts  []string        `json:"parts"`  // parts of Secret that must not come back either
}

// Entries returns the corpus: corpus.json's entries, and the generated
// shapes with values drawn for this run (Seed; generated.go).
func Entries() []Entry {
	var c struct{ Entries []Entry }
	if err := json.Unmarshal(corpusJSON, &c); err != nil {
		panic(fmt.Sprintf("redactcorpus: corpus.json: %v", err))
	}
	return append(c.Entries, generated(Seed())...)
}

// Shapes returns the distinct shapes of entries.
func Shapes(entries []Entry) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		if !seen[e.Shape] {
			seen[e.Shape] = true
			out = append(out, e.Shape)
		}
	}
	return out
}

// Texts returns the texts e is planted as: its text; a field entry with a
// string value written as NAME=value, NAME: value, "NAME": "value" and
// --NAME value; a command line joined by spaces.
func (e Entry) Texts() []string {
	switch {
	case e.Text != "":
		return []string{e.Text}
	case len(e.Argv) > 0:
		return []string{strings.Join(e.Argv, " ")}
	case e.Name != "":
		var v string
		if json.Unmarshal(e.Value, &v) != nil {
			return nil // an object or an array: planted as JSON only
		}
		q, _ := json.Marshal(v)
		return []string{e.Name + "=" + v, e.Name + ": " + v, `"` + e.Name + `": ` + string(q), "--" + e.Name + " " + v}
	}
	return nil
}

// Marker is planted beside the credentials in every message, in a field or
// on a line of its own: it must come back (redaction hides credentials, not
// the message).
const Marker = "corpus-keep"

// Message is a chat message with planted credentials, as an ingest event's
// message carries it.
type Message struct {
	Where          string // the placement, for failure messages
	Format         string
	Body           json.RawMessage
	SenderName     string
	SenderImageURL string
	MessageID      string // empty: the test numbers its messages
	AppUserID      string
	TokenMetadata  json.RawMessage
	Hidden         []string // what must not come back: the secrets, and base64 planted
}

// Plant returns messages with every entry planted in every format, field
// and nesting the chat route serves; each message holds all the entries in
// one placement. SenderName, SenderImageURL and TokenMetadata take one text
// each, so they come as one message per text (of at most maxField bytes).
func Plant(entries []Entry) []Message {
	var texts, secrets []string
	var fields []map[string]json.RawMessage
	var argvs [][]string
	for _, e := range entries {
		texts = append(texts, e.Texts()...)
		secrets = append(append(secrets, e.Secret), e.Parts...)
		if e.Name != "" {
			fields = append(fields, map[string]json.RawMessage{e.Name: e.Value})
		}
		if len(e.Argv) > 0 {
			argvs = append(argvs, e.Argv)
		}
	}
	var b64 []string
	for _, t := range texts {
		b64 = append(b64, base64.StdEncoding.EncodeToString([]byte(t)))
	}
	var msgs []Message
	add := func(where, format string, body any, extra ...string) {
		raw, err := json.Marshal(body)
		if err != nil {
			panic(err)
		}
		msgs = append(msgs, Message{Where: where, Format: format, Body: raw, Hidden: append(append([]string(nil), secrets...), extra...)})
	}
	each := func(f func(t string) any) []any {
		out := []any{}
		for _, t := range texts {
			out = append(out, f(t))
		}
		return out
	}
	block := func(t string) any { return obj("type", "text", "text", t) }
	keep := obj("type", "text", "text", Marker)
	lines := Marker + "\n" + strings.Join(texts, "\n")

	if len(texts) > 0 {
		// anthropic
		add("anthropic: content as a string", "anthropic", obj("role", "user", "content", lines))
		add("anthropic: text blocks", "anthropic", obj("role", "user", "content", append([]any{keep}, each(block)...)))
		add("anthropic: thinking blocks", "anthropic", obj("role", "assistant", "content", append([]any{keep},
			each(func(t string) any {
				return obj("type", "thinking", "thinking", "Let me think. "+t, "signature", "EqQBCkgIARABGAIiQL")
			})...)))
		add("anthropic: tool_use input, nested objects and arrays", "anthropic", obj("role", "assistant", "content", append([]any{keep},
			each(func(t string) any {
				return obj("type", "tool_use", "id", "toolu_01", "name", "shell", "input", obj("command", t, "env", obj("note", t),
					"args", []any{"x", t}, "deep", obj("a", []any{obj("b", obj("c", t))})))
			})...)))
		add("anthropic: tool_result content as a string", "anthropic", obj("role", "user", "content", append([]any{keep},
			each(func(t string) any { return obj("type", "tool_result", "tool_use_id", "toolu_01", "content", t) })...)))
		add("anthropic: tool_result content as JSON in a string", "anthropic", obj("role", "user", "content", append([]any{keep},
			each(func(t string) any {
				return obj("type", "tool_result", "tool_use_id", "toolu_01", "content", jsonString(obj("stdout", t, "rows", []any{obj("note", t)})))
			})...)))
		add("anthropic: tool_result content blocks", "anthropic", obj("role", "user", "content", append([]any{keep},
			each(func(t string) any {
				return obj("type", "tool_result", "tool_use_id", "toolu_01", "content", []any{block(t)}, "is_error", false)
			})...)))
		add("anthropic: JSON embedded in text", "anthropic", obj("role", "user", "content", append([]any{keep},
			each(func(t string) any { return block("Result: " + jsonString(obj("out", t)) + " (200 OK)") })...)))
		add("anthropic: base64 of the text", "anthropic", obj("role", "user", "content", append([]any{keep},
			each(func(t string) any { return block("blob " + base64.StdEncoding.EncodeToString([]byte(t)) + " end") })...)), b64...)
		// openai
		add("openai: content as a string", "openai", obj("role", "user", "content", lines))
		add("openai: content parts", "openai", obj("role", "user", "content", append([]any{keep}, each(block)...)))
		add("openai: tool_calls arguments as a JSON string", "openai", obj("role", "assistant", "content", Marker, "tool_calls",
			each(func(t string) any {
				return obj("id", "call_1", "type", "function", "function", obj("name", "run", "arguments", jsonString(obj("query", t, "opts", obj("list", []any{t})))))
			})))
		add("openai: tool_calls arguments encoded twice", "openai", obj("role", "assistant", "content", Marker, "tool_calls",
			each(func(t string) any {
				return obj("id", "call_2", "type", "function", "function", obj("name", "run", "arguments", jsonString(jsonString(obj("q", t)))))
			})))
		for i, t := range texts {
			add(fmt.Sprintf("openai: role tool content (text %d)", i), "openai", obj("role", "tool", "tool_call_id", "call_1", "name", Marker, "content", t))
		}
		add("openai: role tool content as JSON", "openai", obj("role", "tool", "tool_call_id", "call_1", "name", Marker, "content",
			jsonString(obj("results", each(func(t string) any { return obj("result", t) })))))
		add("openai: role tool content parts", "openai", obj("role", "tool", "tool_call_id", "call_1", "name", Marker, "content", each(block)))
		// text
		add("text: body", "text", lines)
		add("text: base64 in the body", "text", Marker+"\n"+strings.Join(b64, "\n"), b64...)
	}
	if len(fields) > 0 {
		members := func() map[string]any {
			m := map[string]any{"region": "eu-west-1"}
			for _, f := range fields {
				for k, v := range f {
					m[k] = v
				}
			}
			return m
		}
		var nameValue, valueName []any
		for _, f := range fields {
			for k, v := range f {
				nameValue = append(nameValue, obj("name", k, "value", v))
				valueName = append(valueName, obj("value", v, "key", k))
			}
		}
		add("anthropic: credential fields in tool_use input", "anthropic", obj("role", "assistant", "content", []any{keep,
			obj("type", "tool_use", "id", "toolu_02", "name", "connect", "input", obj("config", members(), "list", []any{members()}))}))
		add("anthropic: name/value lists in tool_use input", "anthropic", obj("role", "assistant", "content", []any{keep,
			obj("type", "tool_use", "id", "toolu_03", "name", "deploy", "input", obj("env", nameValue, "headers", valueName))}))
		add("anthropic: credential fields in a tool_result's JSON", "anthropic", obj("role", "user", "content", []any{keep,
			obj("type", "tool_result", "tool_use_id", "toolu_02", "content", jsonString(obj("data", members())))}))
		add("openai: credential fields in arguments", "openai", obj("role", "assistant", "content", Marker, "tool_calls", []any{
			obj("id", "call_3", "type", "function", "function", obj("name", "connect", "arguments", jsonString(members())))}))
		add("openai: credential fields in role tool content", "openai", obj("role", "tool", "tool_call_id", "call_3", "name", Marker,
			"content", jsonString(obj("items", []any{members()}))))
		add("text: credential fields as JSON in the body", "text", Marker+"\n"+jsonString(members()))
	}
	if len(argvs) > 0 {
		var list []any
		for _, a := range argvs {
			list = append(list, a)
		}
		add("anthropic: command lines in tool_use input", "anthropic", obj("role", "assistant", "content", []any{keep,
			obj("type", "tool_use", "id", "toolu_04", "name", "exec", "input", obj("argv", list))}))
		add("openai: command lines in arguments", "openai", obj("role", "assistant", "content", Marker, "tool_calls", []any{
			obj("id", "call_4", "type", "function", "function", obj("name", "exec", "arguments", jsonString(obj("commands", list))))}))
	}
	// Message fields: one text each; a short text is the message's format,
	// id (numbered: ids are unique) and app user id too.
	for i, t := range texts {
		if len(t) > maxField {
			continue
		}
		m := Message{Where: fmt.Sprintf("message fields: senderName, senderImageUrl, tokenMetadata (text %d)", i), Format: "text",
			Body: json.RawMessage(`"` + Marker + `"`), SenderName: t, SenderImageURL: t, Hidden: secrets}
		if id := fmt.Sprintf("%s\n#%d", t, i); len(id) <= maxID {
			m.Where = fmt.Sprintf("message fields: format, messageId, appUserId, senderName, senderImageUrl, tokenMetadata (text %d)", i)
			m.Format, m.MessageID, m.AppUserID = t, id, t
		}
		m.TokenMetadata, _ = json.Marshal(obj("inputTokens", 3, "note", t))
		msgs = append(msgs, m)
	}
	for i, f := range fields {
		m := Message{Where: fmt.Sprintf("message fields: tokenMetadata (field %d)", i), Format: "text", Body: json.RawMessage(`"` + Marker + `"`), Hidden: secrets}
		m.TokenMetadata, _ = json.Marshal(f)
		msgs = append(msgs, m)
	}
	return msgs
}

// maxField is the longest text planted in a message's senderName or
// senderImageUrl, maxID in its messageId and appUserId (and format): the
// ingest event's bounds.
const (
	maxField = 1024
	maxID    = 256
)

// obj builds a JSON object from key, value pairs, in order.
func obj(kv ...any) orderedObject { return orderedObject(kv) }

type orderedObject []any

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(o[i].(string))
		v, err := json.Marshal(o[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// jsonString is v as JSON text, to be carried in a string.
func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Leaks returns the hidden strings found in out, a redacted message's JSON
// (or any text): in its bytes, and in every string it holds, JSON inside
// strings parsed and searched in turn (a value escaped in nested JSON is
// still a leak).
func Leaks(out []byte, hidden []string) []string {
	texts := []string{string(out)}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				texts = append(texts, k)
				walk(e, depth)
			}
		case []any:
			for _, e := range x {
				walk(e, depth)
			}
		case string:
			texts = append(texts, x)
			var inner any
			if depth < 10 && json.Unmarshal([]byte(x), &inner) == nil {
				walk(inner, depth+1)
			}
		}
	}
	var v any
	if json.Unmarshal(out, &v) == nil {
		walk(v, 0)
	}
	all := strings.Join(texts, "\x00")
	var found []string
	seen := map[string]bool{}
	for _, h := range hidden {
		if !seen[h] {
			seen[h] = true
			if strings.Contains(all, h) {
				found = append(found, h)
			}
		}
	}
	return found
}
