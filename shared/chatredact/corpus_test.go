package chatredact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/redactcorpus"
)

// The corpus (infra/redactcorpus): at least 300 planted credentials in at
// least 300 shapes (values drawn afresh in every run), each planted in every message format, field and nesting
// the chat route serves; none may come back, the output stays JSON, and the
// message around them stays.
func TestNoCorpusCredentialComesBack(t *testing.T) {
	redactcorpus.LogSeedOnFailure(t)
	entries := redactcorpus.Entries()
	if n, shapes := len(entries), len(redactcorpus.Shapes(entries)); n < 300 || shapes < 300 {
		t.Fatalf("the corpus has %d credentials in %d shapes; want at least 300 in 300", n, shapes)
	}
	for _, e := range entries {
		for _, m := range redactcorpus.Plant([]redactcorpus.Entry{e}) {
			body := MessageBody(m.Format, m.Body)
			if !json.Valid(body) {
				t.Fatalf("%s, %s: the output is not JSON: %s", e.Shape, m.Where, body)
			}
			out := string(body) + "\n" + Text(m.SenderName) + "\n" + Text(m.SenderImageURL) + "\n" + Text(m.Format) + "\n" +
				Text(m.MessageID) + "\n" + Text(m.AppUserID)
			if m.TokenMetadata != nil {
				tm := JSONObject(m.TokenMetadata)
				if !json.Valid(tm) {
					t.Fatalf("%s, %s: tokenMetadata is not JSON: %s", e.Shape, m.Where, tm)
				}
				out += "\n" + string(tm)
			}
			if leaks := redactcorpus.Leaks([]byte(out), m.Hidden); len(leaks) > 0 {
				t.Errorf("%s, %s: %q came back:\n%.600s", e.Shape, m.Where, leaks, out)
			}
			if !strings.Contains(string(body), redactcorpus.Marker) {
				t.Errorf("%s, %s: the message around the credential is gone: %.300s", e.Shape, m.Where, body)
			}
		}
	}
}
