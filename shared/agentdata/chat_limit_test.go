package agentdata_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/chatgen"
	"github.com/agentplatform/workspaceapi/shared/agentdata"
	"github.com/agentplatform/workspaceapi/shared/authctx"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// servedChat is a ChatStore holding one agent and one chat in memory. It
// stands in for DynamoDB in the test of the serving limit alone: reading a
// chat from storage (in parts, of any length) is tested against DynamoDB
// Local elsewhere, and BenchmarkChatRoute serves 20 MB from it end to end.
type servedChat struct{ chat workspace.Chat }

func (s servedChat) Agent(_ context.Context, ws, id string) (workspace.Agent, error) {
	return workspace.Agent{ID: id, WorkspaceID: ws, Name: "A"}, nil
}

func (s servedChat) Chat(context.Context, string, string, string) (workspace.Chat, error) {
	return s.chat, nil
}

// served20MBChat returns the chat function serving from memory a chat of 21
// MB of generated JSON (a little more than the 20 MB served, which is
// compacted and redacted), and an admin's read of it, gzip accepted.
func served20MBChat() (httpapi.ProxyHandler, events.APIGatewayProxyRequest) {
	chat := workspace.Chat{ChatMeta: workspace.ChatMeta{ID: "c1", AgentID: "a1", CreatedDate: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		Messages: chatgen.Messages(21<<20, secret)}
	handler := agentdata.ChatFunction(agentdata.ChatDeps{Store: servedChat{chat: chat}})
	caller := workspace.Caller{WorkspaceID: "ws1", KeyID: "k1", UserID: "u1", Role: workspace.RoleAdmin, Scopes: []workspace.Scope{workspace.ScopeRead}}
	return handler, events.APIGatewayProxyRequest{
		HTTPMethod: "GET", Path: "/workspaceapi/agents/a1/chats/c1", Resource: "/workspaceapi/agents/{agentId}/chats/{chatId}",
		PathParameters: map[string]string{"agentId": "a1", "chatId": "c1"},
		Headers:        map[string]string{"Accept": "application/json", "Accept-Encoding": "gzip"},
		RequestContext: events.APIGatewayProxyRequestContext{Authorizer: authctx.Encode(caller)},
	}
}

// docs/agent-data.md: the largest chat the service returns is at least 20 MB of
// JSON. The chat function answers a 20 MB chat of prose, tool calls and tool
// results within Lambda's 6 MB, gzipped, and redacted.
func TestAChatOf20MBIsServedWithinLambdasLimit(t *testing.T) {
	t.Parallel()
	handler, req := served20MBChat()
	res, err := handler(context.Background(), req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("status %d, %v: %.200s", res.StatusCode, err, res.Body)
	}
	if len(res.Body) > httpapi.LambdaResponseLimit {
		t.Errorf("the answer is %d bytes, over Lambda's %d", len(res.Body), httpapi.LambdaResponseLimit)
	}
	zipped, err := base64.StdEncoding.DecodeString(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) < 20_000_000 {
		t.Errorf("served %d bytes of JSON, want at least 20 MB", len(body))
	}
	if strings.Contains(string(body), secret) || strings.Contains(string(body), chatgen.PlainCredential) {
		t.Error("a planted credential survived in the served chat")
	}
}
