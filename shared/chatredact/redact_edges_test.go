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
	// xxd splits hex digits into parts of n joined by sep.
	xxd := func(h, sep string, n int) string {
		var parts []string
		for len(h) > n {
			parts, h = append(parts, h[:n]), h[n:]
		}
		return strings.Join(append(parts, h), sep)
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
		{"DigitalOcean glued both sides", text("xdop_v1_" + strings.Repeat("0a1b2c3d", 8) + "y"), strings.Repeat("0a1b2c3d", 8)},
		{"npm_ glued both sides", text("xnpm_abcdefghijKLMNOPQRST0123456789abcdefgh_x"), "abcdefghijKLMNOPQRST0123456789abcdefgh"},
		{"Telegram bot token glued", text("bot123456789:AAabcdefghijKLMNOPQRSTuvwxyz0123456789"), "AAabcdefghijKLMNOPQRSTuvwxyz0123456789"},
		{"SendGrid glued", text("keySG.abcdefghijKLMNOPQRstuv.wxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcde"), "abcdefghijKLMNOPQRstuv.wxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcde"},
		// Hex of text holding a credential, as base64 of it is.
		{"hex of NAME=value", text("blob " + hex.EncodeToString([]byte("DB_PASSWORD=plain-secret-i")) + " end"),
			hex.EncodeToString([]byte("DB_PASSWORD=plain-secret-i"))},
		{"hex glued to a name", text("data_" + hex.EncodeToString([]byte("DB_PASSWORD=plain-secret-n"))), hex.EncodeToString([]byte("plain-secret-n"))},
		{"hex glued to a hex letter", text("a" + hex.EncodeToString([]byte("DB_PASSWORD=plain-secret-o"))), hex.EncodeToString([]byte("plain-secret-o"))},
		{"hex in xxd -p lines", text(xxd(hex.EncodeToString([]byte("HOST=db.internal\nDB_PASSWORD=plain-secret-p-long-enough\n")), "\n", 60)),
			hex.EncodeToString([]byte("ret-p-long"))},
		{"hex bytes apart", text(xxd(hex.EncodeToString([]byte("DB_PASSWORD=plain-secret-q")), " ", 2)), "70 6c 61 69 6e"},
		{"0x hex of a provider key", text("0x" + hex.EncodeToString([]byte("sk_live_51HplainSecretJ0123456789"))),
			hex.EncodeToString([]byte("sk_live_51HplainSecretJ0123456789"))},
		// An unquoted value with spaces in the middle of a line.
		{"spaced value before a semicolon", text("config: password = correct horse battery staple; next"), "battery staple"},
		{"spaced value before the next pair", text("login db_password: plain secret k user: ann"), "secret k"},
		// A YAML value indented below its name, or a mapping under it.
		{"YAML value on the next line", text("db:\n  password:\n    plain secret r\n  user: ann"), "secret r"},
		{"YAML mapping under a credential name", text("secrets:\n  prod: plain-secret-s\n  dev: x\nother: 1"), "plain-secret-s"},
		{"YAML block scalar's later lines", text("password: |\n  line one\n\n  plain-secret-t\nuser: ann"), "plain-secret-t"},
		{"YAML value below a comment", text("password: # the db one\n  plain-secret-u"), "plain-secret-u"},
		{"YAML value below a block header", text("password: |2-\n    plain-secret-v"), "plain-secret-v"},
		{"YAML value below a tag", text("- password: !!str\n    plain-secret-w"), "plain-secret-w"},
		{"spaced value after =>", text("x password => plain secret m battery"), "secret m"},
		{"spaced value to the line's end", text("Then set api_key=plain secret l\nand restart"), "secret l"},
		// Command lines written the ways shells and prompts write them.
		{"a command by its path", text("/opt/mongodb/bin/mongosh -u a -p plain-secret-x1"), "plain-secret-x1"},
		{"a Windows command by its path", text(`C:\Tools\PsExec.exe \\h -u a -p plain-secret-x2`), "plain-secret-x2"},
		{"a command after sudo", text("sudo /usr/bin/docker login -p plain-secret-x3"), "plain-secret-x3"},
		{"a command in $( )", text("x=$(docker login -p plain-secret-x4)"), "plain-secret-x4"},
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
		{"the YAML key after an indented value", "db:\n  password:\n    hunter2\n  user: ann", "\n  user: ann"},
		{"a paragraph after a bare name", "Password:\nThis is the next paragraph.", "This is the next paragraph."},
		{"a Python block under a credential test", "    if token:\n        return fetch(self.url)\n    return None", "return fetch(self.url)"},
		{"a test name holding sk_test_", "test_sk_test_something_long_enough_here", "test_sk_test_something_long_enough_here"},
		{"a comparison is no assignment", "if token == nil || token.Expired() { return err }", "|| token.Expired() { return err }"},
		{"a sentence after a value", "use password: hunter2. Then restart the service", " Then restart the service"},
		{"a paragraph after a value", "the token: abc one two three four five six seven eight nine ten", " nine ten"},
		{"a kebab-case id holding an MD5", "task-d41d8cd98f00b204e9800998ecf8427e", "task-d41d8cd98f00b204e9800998ecf8427e"},
		{"a key- name holding a SHA-1", "cache-key-da39a3ee5e6b4b0d3255bfef95601890afd80709", "cache-key-da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{"a dotted message key", "ERROR_MSG.authenticationFailureReason.descriptionTextLong", "ERROR_MSG.authenticationFailureReason.descriptionTextLong"},
		{"a snake_case name holding npm_", "pnpm_CacheDirectoryResolverX", "pnpm_CacheDirectoryResolverX"},
		{"a test name holding sk_test_", "TestDisk_test_ComputeSomethingVeryLongName", "TestDisk_test_ComputeSomethingVeryLongName"},
		// Command lines whose flags take no password.
		{"docker run's -p is a port", "docker run -p 8080:80 -e MODE=dev nginx", "docker run -p 8080:80 -e MODE=dev nginx"},
		{"ssh's -p is a port", "ssh -p 2222 deploy@host", "ssh -p 2222 deploy@host"},
		{"mkdir -p", "mkdir -p /tmp/build/out", "mkdir -p /tmp/build/out"},
		{"az outside login", "az group list -o table", "az group list -o table"},
		{"sqlplus as sysdba", "sqlplus / as sysdba", "sqlplus / as sysdba"},
		{"curl without a cookie", "curl -s -o out.json https://example.com/data", "curl -s -o out.json https://example.com/data"},
		// URLs, times and prose near the new shapes.
		{"a port, then an e-mail address", "see http://host:8080/status and mail ann@example.com", "see http://host:8080/status and mail ann@example.com"},
		{"a time of day", "at 12:30:45:00 the job ran", "at 12:30:45:00 the job ran"},
		{"a machine in prose", "the machine is down again", "the machine is down again"},
		{"a JSON member d holding a date", `{"d": "2024-01-01"}`, `"2024-01-01"`},
		{"percent-encoding of harmless text", "q=%68%65%6c%6c%6f%20%77%6f%72%6c%64", "%68%65%6c%6c%6f"},
		{"a hook's route, no token", "POST /webhooks/{id} registers a hook", "POST /webhooks/{id} registers a hook"},
		{"a tuple without a credential", `("username", "ann")`, `"ann"`},
	}
	for _, tc := range tests {
		if got := Text(tc.text); !strings.Contains(got, tc.kept) {
			t.Errorf("%s: Text(%q) = %q, want it to keep %q", tc.name, tc.text, got, tc.kept)
		}
	}
}

// Runs that FuzzRedactLinear's repeated seeds never build: one long run of
// blanks after a value, one long value, one long hex run and long hex
// groups cost linear time too.
func TestLongRunsCostLinearTime(t *testing.T) {
	tests := []struct {
		name string
		text func(n int) string
	}{
		{"blanks after a value", func(n int) string { return "x password=a" + strings.Repeat(" ", n) + "b" }},
		{"blanks and tabs after a value", func(n int) string { return "x password=a" + strings.Repeat(" \t", n/2) + "b" }},
		{"words after a value", func(n int) string { return "x password=a" + strings.Repeat(" b", n/2) }},
		{"YAML values below names", func(n int) string { return strings.Repeat("password:\n  x\n", n/14) }},
		{"one long YAML block", func(n int) string { return "password:\n" + strings.Repeat("  a\n", n/4) }},
		{"one hex run", func(n int) string { return strings.Repeat("4a", n/2) }},
		{"hex bytes apart", func(n int) string { return strings.Repeat("4a ", n/3) }},
		{"hex lines", func(n int) string { return strings.Repeat(strings.Repeat("4a", 30)+"\n", n/61) }},
		{"a .netrc entry's blank runs", func(n int) string { return "machine h\n" + strings.Repeat(" \n ", n/3) + "password x" }},
		{"one long command line", func(n int) string { return "docker login " + strings.Repeat("-p x ", n/5) }},
		{"command names", func(n int) string { return strings.Repeat("az ", n/3) }},
		{"escapes apart", func(n int) string { return strings.Repeat(`\x41 `, n/5) }},
		{"escapes in one word", func(n int) string { return strings.Repeat(`\x41%41&#65;`, n/12) }},
		{"URL passwords", func(n int) string { return strings.Repeat("a://u:p", n/7) + "@h" }},
		{"pgpass words", func(n int) string { return strings.Repeat("h:1:d:u:p ", n/10) }},
		{"hex of hex", func(n int) string {
			return hex.EncodeToString([]byte(hex.EncodeToString([]byte("DB_PASSWORD=" + strings.Repeat("x", n/4)))))
		}},
	}
	for _, tc := range tests {
		one, eight := tc.text(linearUnit), tc.text(8*linearUnit)
		checkLinear(t, tc.name, func() { Text(one) }, func() { Text(eight) })
	}
}
