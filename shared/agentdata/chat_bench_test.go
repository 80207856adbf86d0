package agentdata_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/chatgen"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// BenchmarkChatRoute serves chats of 1, 6 and 20 MB of JSON through the
// local gateway (Lambda's 6 MB and API Gateway's 10 MB limits enforced),
// with Accept-Encoding: gzip, and reports the JSON and wire sizes.
func BenchmarkChatRoute(b *testing.B) {
	for _, mb := range []int{1, 6, 20} {
		b.Run(fmt.Sprint(mb, "MB"), func(b *testing.B) {
			env := apitest.New(b, testFixture, apitest.Options{OwnDynamoDB: true})
			ctx := b.Context()
			// The served JSON is a little smaller than the stored (compacted, redacted): aim above the figure.
			for i, m := range chatgen.Messages(mb<<20*108/100, secret) {
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
				if strings.Contains(string(body), secret) || strings.Contains(string(body), chatgen.PlainCredential) {
					b.Fatal("a planted credential survived")
				}
				wire, plain = len(zipped), len(body)
			}
			b.ReportMetric(float64(plain)/(1<<20), "MB-json")
			b.ReportMetric(float64(wire)/(1<<20), "MB-gzip")
		})
	}
}
