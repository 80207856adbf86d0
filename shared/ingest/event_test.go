package ingest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// usageJSON is a valid credits.used event with fields replaced or added by
// extra (a JSON fragment of members, e.g. `"credits": 0`).
func usageJSON(extra string) string {
	base := map[string]string{
		"type": `"credits.used"`, "id": `"ev1"`, "workspaceId": `"ws1"`, "agentId": `"ag1"`,
		"credits": `2.5`, "occurredAt": `"2026-11-21T10:00:00+01:00"`,
	}
	return object(base, extra)
}

// object renders base with the members of extra replacing or joining it;
// a member given as `"name": -` is removed.
func object(base map[string]string, extra string) string {
	order := []string{"type", "id", "workspaceId", "agentId", "credits", "occurredAt", "chatId", "chat", "message", "entry", "metric", "record"}
	fields := map[string]string{}
	for k, v := range base {
		fields[k] = v
	}
	for _, m := range splitMembers(extra) {
		name, value, _ := strings.Cut(m, ":")
		name = strings.Trim(strings.TrimSpace(name), `"`)
		value = strings.TrimSpace(value)
		if value == "-" {
			delete(fields, name)
			continue
		}
		if _, known := fields[name]; !known && !contains(order, name) {
			order = append(order, name)
		}
		fields[name] = value
	}
	var parts []string
	for _, k := range order {
		if v, ok := fields[k]; ok {
			parts = append(parts, `"`+k+`": `+v)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// splitMembers splits `"a": 1, "b": {"c": 2}` at its top-level commas.
func splitMembers(s string) []string {
	var out []string
	depth, start, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

const chatBase = `"type": "chat.message", "credits": -, "occurredAt": -, "chatId": "chat1",
	"message": {"format": "anthropic", "body": [{"type": "text", "text": "hi"}], "messageId": "m1", "ts": "2026-11-21T10:00:00Z"}`

const diaryBase = `"type": "diary.entry", "credits": -, "occurredAt": -,
	"entry": {"id": "d1", "timestamp": "2026-11-21T10:00:00Z", "type": "note", "title": "t", "details": "d"}`

const metricBase = `"type": "metric.recorded", "credits": -, "occurredAt": -, "metric": "Resolved",
	"record": {"id": "r1", "occurredAt": "2026-11-21T10:00:00Z", "value": 3}`

func TestParseAcceptsEveryEventType(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		check func(t *testing.T, ev ingest.Event)
	}{
		{"credits.used, any offset, in UTC", usageJSON(""), func(t *testing.T, ev ingest.Event) {
			want := workspace.Usage{EventID: "ev1", WorkspaceID: "ws1", AgentID: "ag1", Credits: 2.5,
				OccurredAt: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}
			if ev.Usage == nil || *ev.Usage != want {
				t.Errorf("usage: got %+v, want %+v", ev.Usage, want)
			}
		}},
		{"credits.used with a chat", usageJSON(`"chatId": "chat1"`), func(t *testing.T, ev ingest.Event) {
			if ev.Usage == nil || ev.Usage.ChatID != "chat1" {
				t.Errorf("usage: got %+v, want chatId chat1", ev.Usage)
			}
		}},
		{"chat.message", usageJSON(chatBase + `, "chat": {"shortDesc": "s", "starred": true, "transport": {"type": "slack"}, "createdDate": "2026-11-20T00:00:00Z"}`),
			func(t *testing.T, ev ingest.Event) {
				c := ev.Chat
				if c == nil || c.ChatID != "chat1" || c.Message.Format != "anthropic" || c.Message.MessageID != "m1" ||
					string(c.Message.Body) != `[{"type": "text", "text": "hi"}]` || c.Chat.TransportType == nil || *c.Chat.TransportType != "slack" ||
					c.Chat.Starred == nil || !*c.Chat.Starred || c.Chat.CreatedDate.IsZero() || c.ID != "ev1" {
					t.Errorf("chat message: got %+v", c)
				}
			}},
		{"diary.entry without conversation", usageJSON(diaryBase), func(t *testing.T, ev ingest.Event) {
			if d := ev.Diary; d == nil || d.Entry.ID != "d1" || d.Entry.ConversationID != "" || d.Entry.Title != "t" {
				t.Errorf("diary entry: got %+v", d)
			}
		}},
		{"metric.recorded with a value", usageJSON(metricBase), func(t *testing.T, ev ingest.Event) {
			if m := ev.Metric; m == nil || m.Record.Metric != "Resolved" || m.Record.Value == nil || *m.Record.Value != 3 {
				t.Errorf("metric record: got %+v", m)
			}
		}},
		{"metric.recorded with a null value", usageJSON(metricBase + `, "record": {"id": "r1", "occurredAt": "2026-11-21T10:00:00Z", "value": null}`),
			func(t *testing.T, ev ingest.Event) {
				if m := ev.Metric; m == nil || m.Record.Value != nil {
					t.Errorf("metric record: got %+v, want no value", m)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := ingest.Parse([]byte(tc.body))
			if err != nil {
				t.Fatalf("Parse(%s): got error %v, want none", tc.body, err)
			}
			tc.check(t, ev)
		})
	}
}

func TestParseRefusesInvalidEvents(t *testing.T) {
	long := strings.Repeat("x", workspace.MaxIDLength+1)
	longText := strings.Repeat("é", workspace.MaxStringLength+1)
	tests := []struct {
		name, body, want string
	}{
		{"malformed JSON", `{"type": "credits.used",`, "malformed JSON"},
		{"not an object", `[1]`, "an event must be a JSON object"},
		{"trailing data", usageJSON("") + ` {}`, "malformed JSON"},
		{"repeated field", `{"type": "credits.used", "type": "credits.used"}`, `field "type" appears more than once`},
		{"missing type", usageJSON(`"type": -`), "type is required"},
		{"type not a string", usageJSON(`"type": 1`), "type must be a string"},
		{"unknown type", usageJSON(`"type": "credit.used"`), "type must be one of credits.used, chat.message, diary.entry, metric.recorded"},
		{"unknown field names the field", usageJSON(`"creditz": 1`), `unknown field "creditz"`},
		{"unknown field of another type", usageJSON(`"metric": "x"`), `unknown field "metric"`},
		{"key-shaped unknown field is not repeated", usageJSON(`"wk_abcdefghijklmnopqrstuvwxyz0123456789": 1`), `unknown field "[redacted key]"`},
		{"null where not nullable", usageJSON(`"chatId": null`), "chatId: must be a string"},
		{"missing id", usageJSON(`"id": -`), "id is required"},
		{"empty workspaceId", usageJSON(`"workspaceId": ""`), "workspaceId is required"},
		{"agentId too long", usageJSON(`"agentId": "` + long + `"`), "agentId must be at most 256 characters"},
		{"credits missing", usageJSON(`"credits": -`), "credits is required"},
		{"credits zero", usageJSON(`"credits": 0`), "credits must be greater than 0"},
		{"credits negative", usageJSON(`"credits": -1`), "credits must be greater than 0"},
		{"credits over the maximum", usageJSON(`"credits": 1e13`), "credits must be at most 1e+12"},
		{"credits a string", usageJSON(`"credits": "2"`), "credits: must be a number"},
		{"occurredAt missing", usageJSON(`"occurredAt": -`), "occurredAt is required"},
		{"occurredAt a date", usageJSON(`"occurredAt": "2026-11-21"`), "occurredAt must be an RFC 3339 timestamp"},
		{"empty chatId", usageJSON(`"chatId": ""`), "chatId is required"},
		{"chat without chatId", usageJSON(chatBase + `, "chatId": -`), "chatId is required"},
		{"chat without message", usageJSON(chatBase + `, "message": -`), "message is required"},
		{"message without format", usageJSON(chatBase + `, "message": {"body": "x", "messageId": "m1", "ts": "2026-11-21T10:00:00Z"}`), "message.format is required"},
		{"message without body", usageJSON(chatBase + `, "message": {"format": "text", "messageId": "m1", "ts": "2026-11-21T10:00:00Z"}`), "message.body is required"},
		{"message ts not a time", usageJSON(chatBase + `, "message": {"format": "text", "body": "x", "messageId": "m1", "ts": "yesterday"}`), "message.ts must be an RFC 3339 timestamp"},
		{"message tokenMetadata not an object", usageJSON(chatBase + `, "message": {"format": "text", "body": "x", "messageId": "m1", "ts": "2026-11-21T10:00:00Z", "tokenMetadata": [1]}`), "message.tokenMetadata must be an object"},
		{"message unknown field", usageJSON(chatBase + `, "message": {"format": "text", "body": "x", "messageId": "m1", "ts": "2026-11-21T10:00:00Z", "sender": "x"}`), `message: unknown field "sender"`},
		{"chat shortDesc too long", usageJSON(chatBase + `, "chat": {"shortDesc": "` + longText + `"}`), "chat.shortDesc must be at most 1024 characters"},
		{"chat transport without type", usageJSON(chatBase + `, "chat": {"transport": {}}`), "chat.transport.type is required"},
		{"diary without entry", usageJSON(diaryBase + `, "entry": -`), "entry is required"},
		{"diary entry without id", usageJSON(diaryBase + `, "entry": {"timestamp": "2026-11-21T10:00:00Z"}`), "entry.id is required"},
		{"diary entry timestamp missing", usageJSON(diaryBase + `, "entry": {"id": "d1"}`), "entry.timestamp is required"},
		{"metric without name", usageJSON(metricBase + `, "metric": ""`), "metric is required"},
		{"metric without record", usageJSON(metricBase + `, "record": -`), "record is required"},
		{"metric record occurredAt invalid", usageJSON(metricBase + `, "record": {"id": "r1", "occurredAt": "x"}`), "record.occurredAt must be an RFC 3339 timestamp"},
		{"metric record value too large", usageJSON(metricBase + `, "record": {"id": "r1", "occurredAt": "2026-11-21T10:00:00Z", "value": 1e30}`), "record.value must be a number from -1e+15 to 1e+15"},
		{"metric record value too small", usageJSON(metricBase + `, "record": {"id": "r1", "occurredAt": "2026-11-21T10:00:00Z", "value": -1.7e308}`), "record.value must be a number from -1e+15 to 1e+15"},
		{"metric record value a string", usageJSON(metricBase + `, "record": {"id": "r1", "occurredAt": "2026-11-21T10:00:00Z", "value": "3"}`), "record.value: must be a number or null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ingest.Parse([]byte(tc.body))
			if err == nil {
				t.Fatalf("Parse(%s): got no error, want one containing %q", tc.body, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error: got %q, want one containing %q", err, tc.want)
			}
			if workspace.KindOf(err) != workspace.KindInvalid {
				t.Errorf("Parse error %q: got kind %d, want KindInvalid", err, workspace.KindOf(err))
			}
			if workspace.ContainsKey(err.Error()) {
				t.Errorf("Parse error %q repeats key-shaped text", err)
			}
		})
	}
}

// A failure is logged with the event's head, so Parse returns what it could
// read even when the event is invalid; implausible ids are left out.
func TestParseKeepsTheHeadOfAnInvalidEvent(t *testing.T) {
	ev, err := ingest.Parse([]byte(usageJSON(`"credits": 0, "agentId": "` + strings.Repeat("a", 300) + `"`)))
	if err == nil {
		t.Fatal("Parse: got no error, want one")
	}
	want := ingest.Head{Type: ingest.TypeCreditsUsed, ID: "ev1", WorkspaceID: "ws1"}
	if ev.Head != want {
		t.Errorf("head: got %+v, want %+v", ev.Head, want)
	}
}
