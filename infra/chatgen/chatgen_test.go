package chatgen_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/chatgen"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestTheSameSizeGivesTheSameChatOfAtLeastThatSize(t *testing.T) {
	const size, token = 1 << 20, "sk-proj-TESTplanted0123456789abcdef"
	a, b := chatgen.Messages(size, token), chatgen.Messages(size, token)
	total := 0
	var planted, plain bool
	for _, m := range a {
		total += len(m.Body) + 200
		planted = planted || bytes.Contains(m.Body, []byte(token))
		plain = plain || bytes.Contains(m.Body, []byte(chatgen.PlainCredential))
	}
	if total < size {
		t.Errorf("got %d bytes, want at least %d", total, size)
	}
	if !planted || !plain {
		t.Errorf("planted: token %v, plain credential %v; want both", planted, plain)
	}
	same := slices.EqualFunc(a, b, func(x, y workspace.Message) bool {
		return x.MessageID == y.MessageID && x.Format == y.Format && bytes.Equal(x.Body, y.Body) && x.TS.Equal(y.TS)
	})
	if !same {
		t.Error("two chats of the same size differ, want the same bytes on every run")
	}
}
