package ingest_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// FuzzParseEvent: ingest.Parse, the decoder of every ingest event, never panics;
// it accepts only valid JSON, as an event of one known type with exactly that
// type's part set; it refuses anything else with a KindInvalid error whose
// message holds no key-shaped text (planted with '~'); the head it hands the
// failure log holds only a known type and plausible ids (key-shaped ones
// among them: the functions' log handler redacts those, shared/config); and
// it answers the same when asked twice.
func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `"x"`, `{"type": 1}`, `{"type": "x"}`, `{"type": "credits.used",`,
		`{"type": "credits.used", "type": "credits.used"}`,
		`{"type": "credits.used", "id": "ev1", "workspaceId": "ws1", "agentId": "ag1", "credits": 2.5, "occurredAt": "2026-11-21T10:00:00+01:00"}`,
		`{"type": "credits.used", "id": "ev1", "workspaceId": "ws1", "agentId": "ag1", "credits": 0, "occurredAt": "2026-11-21T10:00:00Z"}`,
		`{"type": "credits.used", "id": "~ev1", "workspaceId": "~ws1", "agentId": "~ag1", "credits": 1, "occurredAt": "x"}`,
		`{"type": "credits.used", "id": "ev1", "workspaceId": "ws1", "agentId": "ag1", "credits": 1e400, "occurredAt": "2026-11-21T10:00:00Z"}`,
		`{"type": "chat.message", "id": "e", "workspaceId": "w", "agentId": "a", "chatId": "c", "chat": {"createdDate": "2026-01-01T00:00:00Z", "shortDesc": "s", "starred": true, "transport": {"type": "web"}}, "message": {"format": "openai", "body": {"role": "user", "content": "password=~hunter2"}, "messageId": "m", "appUserId": "u", "ts": "2026-01-01T00:00:00Z", "tokenMetadata": {"in": 1}, "senderName": "n", "senderImageUrl": "https://x.example/i.png"}}`,
		`{"type": "chat.message", "id": "e", "workspaceId": "w", "agentId": "a", "chatId": "c", "message": {"format": "text", "body": null, "messageId": "m", "ts": "2026-01-01T00:00:00Z"}}`,
		`{"type": "diary.entry", "id": "e", "workspaceId": "w", "agentId": "a", "entry": {"id": "d", "customerId": "c", "timestamp": "2026-01-01T00:00:00Z", "type": "note", "title": "t", "details": "d", "conversationId": "cv"}}`,
		`{"type": "diary.entry", "id": "e", "workspaceId": "w", "agentId": "a", "entry": {"id": "d", "timestamp": "2026-01-01T00:00:00Z", "~x": 1}}`,
		`{"type": "metric.recorded", "id": "e", "workspaceId": "w", "agentId": "a", "metric": "m", "record": {"id": "r", "occurredAt": "2026-01-01T00:00:00Z", "value": null, "ref": "x", "note": "n"}}`,
		`{"type": "metric.recorded", "id": "e", "workspaceId": "w", "agentId": "a", "metric": "m", "record": {"id": "r", "occurredAt": "2026-01-01T00:00:00Z", "value": "1"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.ReplaceAll(data, []byte("~"), []byte(workspace.KeyPrefix))
		ev, err := ingest.Parse(data)
		ev2, err2 := ingest.Parse(data)
		if !reflect.DeepEqual(ev, ev2) || errText(err) != errText(err2) {
			t.Fatalf("%q: not deterministic: %v, then %v", data, err, err2)
		}
		h := ev.Head
		switch h.Type {
		case "", ingest.TypeCreditsUsed, ingest.TypeChatMessage, ingest.TypeDiaryEntry, ingest.TypeMetricRecorded:
		default:
			t.Fatalf("%q: the head's type %q is not one of the event types", data, h.Type)
		}
		for _, id := range []string{h.ID, h.WorkspaceID, h.AgentID} {
			if id != "" && !workspace.PlausibleID(id) {
				t.Fatalf("%q: the head holds the implausible id %q", data, id)
			}
		}
		if err != nil {
			if k := workspace.KindOf(err); k != workspace.KindInvalid {
				t.Fatalf("%q: kind %d, want KindInvalid: %v", data, k, err)
			}
			if workspace.ContainsKey(err.Error()) {
				t.Fatalf("%q: the error repeats key-shaped text: %q", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted %q, which is not JSON", data)
		}
		if h.ID == "" || h.WorkspaceID == "" || h.AgentID == "" {
			t.Fatalf("%q: accepted without a whole head: %+v", data, h)
		}
		set := map[string]bool{
			ingest.TypeCreditsUsed:    ev.Usage != nil,
			ingest.TypeChatMessage:    ev.Chat != nil,
			ingest.TypeDiaryEntry:     ev.Diary != nil,
			ingest.TypeMetricRecorded: ev.Metric != nil,
		}
		for typ, isSet := range set {
			if isSet != (typ == h.Type) {
				t.Fatalf("%q: an event of type %q with its %s part set: %v", data, h.Type, typ, isSet)
			}
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
