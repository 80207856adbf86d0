package ingest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/ingest"
)

func TestRedriveMovesOnlyWhatCannotCountTwice(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	usage := func(at string) string {
		return `{"type": "credits.used", "id": "e1", "workspaceId": "ws_a", "agentId": "ag_a", "credits": 2, "occurredAt": "` + at + `"}`
	}
	cases := []struct {
		name, body string
		move       bool
		why        string
	}{
		{"recent usage: its marker, if any, outlives the move", usage("2026-11-20T12:00:00Z"), true, ""},
		{"usage just inside the window less the margin", usage("2026-11-15T12:00:01Z"), true, ""},
		{"usage older than the window less the margin", usage("2026-11-15T11:59:59Z"), false, "would count twice"},
		{"a diary entry of any age is idempotent by its own item", `{"type": "diary.entry", "id": "d1", "workspaceId": "ws_a", "agentId": "ag_a",
			"entry": {"id": "dia_1", "customerId": "c", "timestamp": "2025-01-01T00:00:00Z", "type": "note", "title": "t", "details": "d", "conversationId": "c1"}}`, true, ""},
		{"a malformed body stays out", `{"type": "credits.used", "id": "e2"`, false, "refuses it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			move, why := ingest.Redrive([]byte(c.body), now)
			if move != c.move || !strings.Contains(why, c.why) {
				t.Errorf("got (%v, %q), want (%v, containing %q)", move, why, c.move, c.why)
			}
		})
	}
}
