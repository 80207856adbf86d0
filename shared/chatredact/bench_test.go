package chatredact

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/redactcorpus"
)

// benchText returns about n bytes of text made of words.
func benchText(n int, words []string) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// The redactor's cost per MB of a text body: prose, prose dense with the
// words the scanners look for, and the corpus's credentials over and over.
func BenchmarkRedactText(b *testing.B) {
	prose := strings.Fields(`the customer asked about their invoice for last month and whether the
discount applies to annual plans we checked the account history found two payments one refunded
agent will follow up with billing team tomorrow please confirm shipping address order number`)
	var keywords []string
	for i := range gitleaksRules {
		keywords = append(keywords, gitleaksRules[i].keywords...)
	}
	keywords = append(keywords, "password:", "token", "key", "auth", "basic", "bearer", "they", "ask", "s.", "ey", "session", "https://a@b", "--pass")
	var corpus []string
	for _, e := range redactcorpus.Entries() {
		corpus = append(corpus, e.Texts()...)
	}
	for _, tc := range []struct {
		name  string
		words []string
	}{{"prose", prose}, {"keywords", append(prose, keywords...)}, {"corpus", corpus}} {
		body, _ := json.Marshal(benchText(1<<20, tc.words))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			measureThread(b, func() { MessageBody(FormatText, body) })
		})
	}
}

// Many short strings, each packed with the keywords of several rules: the
// budget's base is per string, so this is its worst case.
func BenchmarkRedactShortDenseStrings(b *testing.B) {
	var keywords []string
	for i := range gitleaksRules {
		keywords = append(keywords, gitleaksRules[i].keywords...)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var list []string
	size := 0
	for size < 1<<20 {
		var sb strings.Builder
		for sb.Len() < 48 {
			sb.WriteString(keywords[r.IntN(len(keywords))])
			sb.WriteString("=ab12")
		}
		list = append(list, sb.String())
		size += sb.Len() + 3
	}
	body, _ := json.Marshal(map[string]any{"role": "tool", "content": list})
	b.SetBytes(int64(len(body)))
	measureThread(b, func() { MessageBody(FormatOpenAI, body) })
}

// measureThread runs f in b's loop and reports, besides the time per
// operation, the CPU time of the thread that ran it (thread-ns/op), which
// a loaded machine's waits for a CPU do not add to.
func measureThread(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, n := threadTime(), 0
	for b.Loop() {
		f()
		n++
	}
	b.ReportMetric(float64(threadTime()-start)/float64(n), "thread-ns/op")
}
