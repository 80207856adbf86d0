package chatredact

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// Planted credentials in the shapes independent reviews found leaking:
// plural names, tokens glued to names or to word characters on both sides,
// JSON inside text, arguments encoded twice, nesting past the walk's depth,
// hex of text holding a credential, unquoted values with spaces in the
// middle of a line (docs/agent-data.md, Redaction).
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
	text := func(s string) string {
		b, _ := json.Marshal(map[string]any{"role": "tool", "content": s})
		return string(b)
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
		// Provider keys glued to word characters on both sides.
		{"AKIA glued both sides", text("idAKIAIOSFODNN7EXAMPLEx"), "AKIAIOSFODNN7EXAMPLE"},
		{"ghp_ glued both sides", text("abcghp_abcdefghijklmnopqrstuvwxyz0123xyz"), "ghp_abcdefghijklmnopqrstuvwxyz0123"},
		{"sk_live_ glued both sides", text("keysk_live_51HabcdefghijKLMNOPQRSTuvwx_end"), "sk_live_51HabcdefghijKLMNOPQRSTuvwx"},
		{"sk-proj- glued both sides", text("keysk-proj-abcdefghijKLMNOPQRST0123"), "abcdefghijKLMNOPQRST0123"},
		{"glpat- glued both sides", text("tokglpat-abcdefghijKLMNOPQRST99"), "abcdefghijKLMNOPQRST99"},
		{"npm_ glued both sides", text("xnpm_abcdefghijKLMNOPQRST0123456789abcd"), "abcdefghijKLMNOPQRST0123456789abcd"},
		{"Twilio SK glued both sides", text("idSK0123456789abcdef0123456789abcdefz"), "0123456789abcdef0123456789abcdef"},
		{"SendGrid glued", text("keySG.abcdefghijKLMNOPQR.stuvwxyz0123456789"), "abcdefghijKLMNOPQR.stuvwxyz0123456789"},
		// Hex of text holding a credential, as base64 of it is.
		{"hex of NAME=value", text("blob " + hex.EncodeToString([]byte("DB_PASSWORD=plain-secret-i")) + " end"),
			hex.EncodeToString([]byte("DB_PASSWORD=plain-secret-i"))},
		{"0x hex of a provider key", text("0x" + hex.EncodeToString([]byte("sk_live_51HplainSecretJ0123456789"))),
			hex.EncodeToString([]byte("sk_live_51HplainSecretJ0123456789"))},
		// An unquoted value with spaces in the middle of a line.
		{"spaced value before a semicolon", text("config: password = correct horse battery staple; next"), "battery staple"},
		{"spaced value before the next pair", text("db_password: plain secret k user: ann"), "secret k"},
		{"spaced value to the line's end", text("Then set api_key=plain secret l\nand restart"), "secret l"},
	}
	for _, tc := range tests {
		secret := tc.secret
		got := string(MessageBody(FormatOpenAI, json.RawMessage(tc.body)))
		if strings.Contains(got, secret) {
			t.Errorf("%s: %q survived: %.160s", tc.name, secret, got)
		}
	}
}

// What redaction leaves: prose and identifiers that only look like the start
// of a credential, hashes, and the words around a hidden value. (A name that
// starts a line takes the rest of it: those rows are mid-line.)
func TestTextThatHoldsNoCredentialStays(t *testing.T) {
	tests := []struct{ name, text, kept string }{
		{"a country holding a key prefix", "shipping to Slovakia and Asia", "shipping to Slovakia and Asia"},
		{"kebab-case names ending in sk-", "see task-list-view and disk-usage-report", "see task-list-view and disk-usage-report"},
		{"snake_case names holding sk_test_", "run disk_test_results_v2 now", "run disk_test_results_v2 now"},
		{"a SHA-256 in hex", "digest e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "digest e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"hex of harmless text", "hex " + hex.EncodeToString([]byte("hello there, world")), hex.EncodeToString([]byte("hello there, world"))},
		{"a plural name's number and the next pair", "with max_tokens: 100 and temperature: 0.7", "max_tokens: 100 and temperature: 0.7"},
		{"the pair after a hidden value", "login password=hunter2 user=ann host: db", " user=ann host: db"},
		{"a flag after a hidden value", "login password: hunter2 -v", " -v"},
		{"what follows a closing mark", "(password: hunter2) done", ") done"},
	}
	for _, tc := range tests {
		if got := Text(tc.text); !strings.Contains(got, tc.kept) {
			t.Errorf("%s: Text(%q) = %q, want it to keep %q", tc.name, tc.text, got, tc.kept)
		}
	}
}
