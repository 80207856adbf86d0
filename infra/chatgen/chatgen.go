// Package chatgen generates large chats for the chat route's size test, its
// Go benchmark and make bench's memory table: messages of prose, tool calls
// and tool results, with planted credentials. The same seed gives the same
// chat, so every run measures the same bytes.
package chatgen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// PlainCredential is the credential every tool call carries under the
// name apiKey: the redaction hides it by its name, whatever its shape.
const PlainCredential = "plain-credential"

// words are the vocabulary of the prose: a chat's text is not random bytes,
// and its compressibility decides what fits Lambda's 6 MB.
var words = strings.Fields(`the customer asked about their invoice for last month and whether the
discount applies to annual plans we checked the account history found two payments one refunded
agent will follow up with billing team tomorrow please confirm shipping address order number
tracking delayed warehouse inventory report quarterly revenue forecast churn cohort analysis
onboarding checklist integration webhook retry failed timeout database migration schema index
query latency dashboard alert threshold escalation policy weekend support coverage holiday`)

// Prose returns about n bytes of words drawn by r.
func Prose(r *rand.Rand, n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(words[r.IntN(len(words))])
		sb.WriteByte(' ')
	}
	return sb.String()
}

// Messages returns messages totalling about size bytes of JSON, one a
// second from 2026-11-01: in turn 60 KB of prose, an anthropic tool call
// with a JSON input holding PlainCredential, and an openai tool result of
// 400 JSON rows, each holding token, a key-shaped credential.
func Messages(size int, token string) []workspace.Message {
	r := rand.New(rand.NewPCG(1, 2))
	var msgs []workspace.Message
	total := 0
	ts := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; total < size; i++ {
		var body any
		format := workspace.FormatText
		switch i % 3 {
		case 0:
			body = Prose(r, 60_000)
		case 1:
			format = workspace.FormatAnthropic
			body = map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": Prose(r, 20_000)},
				map[string]any{"type": "tool_use", "id": fmt.Sprint("tu_", i), "name": "crm", "input": map[string]any{"apiKey": PlainCredential, "query": Prose(r, 200)}}}}
		default:
			format = workspace.FormatOpenAI
			var rows []map[string]any
			for j := range 400 {
				rows = append(rows, map[string]any{"id": j, "customer": Prose(r, 30), "amount": r.Float64() * 1000, "status": "paid", "token": token})
			}
			content, _ := json.Marshal(map[string]any{"rows": rows})
			body = map[string]any{"role": "tool", "tool_call_id": fmt.Sprint("call_", i), "content": string(content)}
		}
		raw, _ := json.Marshal(body)
		total += len(raw) + 200
		ts = ts.Add(time.Second)
		msgs = append(msgs, workspace.Message{Format: format, Body: raw, MessageID: fmt.Sprintf("m%05d", i), TS: ts})
	}
	return msgs
}
