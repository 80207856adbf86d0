package chatredact

import (
	"encoding/json"
	"strings"
	"testing"
)

// Planted credentials in the shapes an independent review found leaking:
// plural names, tokens glued to names, JSON inside text, arguments encoded
// twice, nesting past the walk's depth (docs/agent-data.md, Redaction).
func TestNoPlantedSecretSurvivesItsSurroundings(t *testing.T) {
	nest := func(v any, n int) string {
		b, _ := json.Marshal(v)
		s := string(b)
		for i := 1; i < n; i++ {
			b, _ = json.Marshal(s)
			s = string(b)
		}
		return s
	}
	args := func(s string) string {
		b, _ := json.Marshal(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "c", "type": "function",
			"function": map[string]any{"name": "f", "arguments": s}}}})
		return string(b)
	}
	tests := []struct{ name, body, secret string }{
		// Credential names "and the like" (docs/agent-data.md): plural and AWS's own names.
		{"api_keys array", `{"input":{"api_keys":["plain-secret-a"]}}`, "plain-secret-a"},
		{"secrets object", `{"input":{"secrets":{"db":"plain-secret-b"}}}`, "plain-secret-b"},
		{"tokens array", `{"input":{"tokens":["plain-secret-c"]}}`, "plain-secret-c"},
		// Key-shaped tokens glued to a word character (\b fails after '_' or a digit).
		{"sk- after underscore", `{"role":"tool","content":"OPENAI_API_KEY_sk-proj-abcdefghijklmnopqrst"}`, "sk-proj-abcdefghijklmnopqrst"},
		{"AKIA after underscore", `{"role":"tool","content":"id_AKIAIOSFODNN7EXAMPLE"}`, "AKIAIOSFODNN7EXAMPLE"},
		{"ghp_ after underscore", `{"role":"tool","content":"gh_ghp_abcdefghijklmnopqrstuvwxyz0123"}`, "ghp_abcdefghijklmnopqrstuvwxyz0123"},
		// JSON carried inside a tool result's string, not alone in it.
		{"JSON then trailing text", `{"role":"tool","content":"{\"password\":\"plain-secret-e\"} (200 OK)"}`, "plain-secret-e"},
		{"text then JSON", `{"role":"tool","content":"Result: {\"password\":\"plain-secret-f\"}"}`, "plain-secret-f"},
		// Tool-call arguments JSON-encoded twice (a JSON string holding JSON).
		{"double-encoded arguments", args(nest(map[string]string{"client_secret": "plain-secret-g"}, 2)), "plain-secret-g"},
		// Deeper than maxNestedJSON: "whatever JSON surrounds it".
		{"nested ten times", args(nest(map[string]string{"token": "plain-secret-h"}, 10)), "plain-secret-h"},
	}
	for _, tc := range tests {
		secret := tc.secret
		got := string(MessageBody(FormatOpenAI, json.RawMessage(tc.body)))
		if strings.Contains(got, secret) {
			t.Errorf("%s: %q survived: %.160s", tc.name, secret, got)
		}
	}
}
