package agentdata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/redactcorpus"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The redaction corpus (infra/redactcorpus, docs/agent-data.md Redaction)
// end to end: every planted credential, in every format, field and nesting,
// goes in through the ingest function and out through GET .../chats/{chatId}
// (the gateway, the authorizer and the chat function); none comes back, and
// the chat's own texts (shortDesc) and the messages' format, messageId and
// appUserId are redacted too.
func TestNoCorpusCredentialComesBackThroughTheChatRoute(t *testing.T) {
	redactcorpus.LogSeedOnFailure(t)
	env := newEnv(t)
	entries := redactcorpus.Entries()
	msgs := redactcorpus.Plant(entries)
	var evs []any
	var hidden []string
	ts := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for i, m := range msgs {
		id := m.MessageID
		if id == "" {
			id = fmt.Sprintf("m%04d", i)
		}
		msg := map[string]any{"format": m.Format, "body": m.Body, "messageId": id, "appUserId": m.AppUserID,
			"ts": workspace.FormatTime(ts.Add(time.Duration(i) * time.Second)), "senderName": m.SenderName, "senderImageUrl": m.SenderImageURL}
		if m.TokenMetadata != nil {
			msg["tokenMetadata"] = m.TokenMetadata
		}
		ev := map[string]any{"type": "chat.message", "id": fmt.Sprintf("ev_corpus_%d", i), "workspaceId": "ws_a", "agentId": "ag_main",
			"chatId": "chat_corpus", "message": msg}
		if i == 0 {
			ev["chat"] = map[string]any{"shortDesc": "deploy with DB_PASSWORD=" + entries[0].Secret, "llmModel": "fast"}
		}
		evs = append(evs, ev)
		hidden = append(hidden, m.Hidden...)
	}
	for len(evs) > 0 { // SQS batches of up to 10 messages
		n := min(10, len(evs))
		ingestEvents(t, env, evs[:n]...)
		evs = evs[n:]
	}
	res := get(t, env, "/workspaceapi/agents/ag_main/chats/chat_corpus", keyRead, http.StatusOK, nil)
	var c struct {
		ShortDesc string
		Messages  []map[string]any
	}
	res.JSON(t, &c)
	if len(c.Messages) != len(msgs) {
		t.Fatalf("%d messages served, %d planted", len(c.Messages), len(msgs))
	}
	if leaks := redactcorpus.Leaks(res.Body, hidden); len(leaks) > 0 {
		t.Errorf("%d planted credentials came back, such as %q", len(leaks), leaks[:min(5, len(leaks))])
	}
	if !strings.Contains(c.ShortDesc, "DB_PASSWORD=[REDACTED]") {
		t.Errorf("shortDesc = %q", c.ShortDesc)
	}
	if n := strings.Count(string(res.Body), redactcorpus.Marker); n < len(msgs) {
		t.Errorf("the marker beside the credentials came back %d times in %d messages", n, len(msgs))
	}
}

// BenchmarkChatFunction20MB serves the 20 MB chat of
// TestAChatOf20MBIsServedWithinLambdasLimit from memory: the function's own
// cost (assembling, redacting, encoding and gzipping), without storage.
func BenchmarkChatFunction20MB(b *testing.B) {
	handler, req := served20MBChat()
	b.ReportAllocs()
	for b.Loop() {
		res, err := handler(context.Background(), req)
		if err != nil || res.StatusCode != 200 {
			b.Fatalf("status %d, %v", res.StatusCode, err)
		}
	}
}

var _ = json.Valid
