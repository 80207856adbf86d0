package agentdata_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// words is the vocabulary of the benchmark's prose: a chat's text is not
// random bytes, and its compressibility decides what fits.
var words = strings.Fields(`the customer asked about their invoice for last month and whether the
discount applies to annual plans we checked the account history found two payments one refunded
agent will follow up with billing team tomorrow please confirm shipping address order number
tracking delayed warehouse inventory report quarterly revenue forecast churn cohort analysis
onboarding checklist integration webhook retry failed timeout database migration schema index
query latency dashboard alert threshold escalation policy weekend support coverage holiday`)

// benchChat returns messages totalling about size bytes of JSON: prose,
// anthropic tool calls with JSON inputs and openai tool results with JSON
// rows, with planted credentials.
func benchChat(size int) []workspace.Message {
	r := rand.New(rand.NewPCG(1, 2))
	prose := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	var msgs []workspace.Message
	total := 0
	ts := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; total < size; i++ {
		var body any
		format := workspace.FormatText
		switch i % 3 {
		case 0:
			body = prose(60_000)
		case 1:
			format = workspace.FormatAnthropic
			body = map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": prose(20_000)},
				map[string]any{"type": "tool_use", "id": fmt.Sprint("tu_", i), "name": "crm", "input": map[string]any{"apiKey": "plain-credential", "query": prose(200)}}}}
		default:
			format = workspace.FormatOpenAI
			var rows []map[string]any
			for j := range 400 {
				rows = append(rows, map[string]any{"id": j, "customer": prose(30), "amount": r.Float64() * 1000, "status": "paid", "token": secret})
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

// BenchmarkChatRoute serves chats of 1, 6 and 20 MB of JSON through the
// local gateway (Lambda's 6 MB and API Gateway's 10 MB limits enforced),
// with Accept-Encoding: gzip, and reports the JSON and wire sizes.
func BenchmarkChatRoute(b *testing.B) {
	for _, mb := range []int{1, 6, 20} {
		b.Run(fmt.Sprint(mb, "MB"), func(b *testing.B) {
			env := apitest.New(b, testFixture, apitest.Options{OwnDynamoDB: true})
			ctx := b.Context()
			// The served JSON is a little smaller than the stored (compacted, redacted): aim above the figure.
			for i, m := range benchChat(mb << 20 * 108 / 100) {
				if err := env.Store.PutChatMessage(ctx, fmt.Sprint("ev_b", i), "ws_a", "ag_main", "chat_big", workspace.ChatUpdate{}, m, apiStart()); err != nil {
					b.Fatal(err)
				}
			}
			var wire, plain int
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, env.URL+"/workspaceapi/agents/ag_main/chats/chat_big", nil)
				req.Header.Set("Authorization", "Bearer "+keyRead)
				req.Header.Set("Accept", "application/json")
				req.Header.Set("Accept-Encoding", "gzip")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				zipped, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("status %d: %.300s", res.StatusCode, zipped)
				}
				zr, err := gzip.NewReader(strings.NewReader(string(zipped)))
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(zr)
				if strings.Contains(string(body), secret) || strings.Contains(string(body), "plain-credential") {
					b.Fatal("a planted credential survived")
				}
				wire, plain = len(zipped), len(body)
			}
			b.ReportMetric(float64(plain)/(1<<20), "MB-json")
			b.ReportMetric(float64(wire)/(1<<20), "MB-gzip")
		})
	}
}
