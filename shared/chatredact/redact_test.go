package chatredact

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const (
	FormatAnthropic = workspace.FormatAnthropic
	FormatOpenAI    = workspace.FormatOpenAI
	FormatText      = workspace.FormatText
)

// Planted secrets of every key shape the redaction knows.
var plantedSecrets = []string{
	"wk_" + strings.Repeat("A1b2", 9),
	"sk-proj-" + strings.Repeat("x9Y8", 8),
	"sk-ant-api03-" + strings.Repeat("Zz09", 6),
	"AKIA" + "ABCDEFGHIJKLMNOP",
	"ghp_" + strings.Repeat("Gh12", 9),
	"github_pat_" + strings.Repeat("11AB_cd", 4),
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXBhcnQ",
	"xoxb-1234567890-abcdefghij",
}

func TestRedactMessageBodyCorpus(t *testing.T) {
	wk := plantedSecrets[0]
	tests := []struct {
		name, format, body string
		hidden             []string // must not survive
		kept               []string // must survive
	}{
		{"anthropic: tool_use input under credential names, any case and separator", FormatAnthropic,
			`{"role":"assistant","content":[{"type":"text","text":"calling the CRM"},{"type":"tool_use","id":"tu_1","name":"crm","input":{"API_KEY":"plain-secret-1","accessToken":"plain-secret-2","client-secret":"plain-secret-3","query":"acme"}}]}`,
			[]string{"plain-secret-1", "plain-secret-2", "plain-secret-3"}, []string{"calling the CRM", `"query":"acme"`, "tu_1"}},
		{"anthropic: tool_result string content holding JSON", FormatAnthropic,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_1","content":"{\"session_token\":\"plain-secret-4\",\"rows\":3}"}]}`,
			[]string{"plain-secret-4"}, []string{`\"rows\":3`}},
		{"anthropic: tool_result blocks with a key-shaped token in text", FormatAnthropic,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_2","content":[{"type":"text","text":"use key ` + plantedSecrets[1] + ` now"}]}]}`,
			[]string{plantedSecrets[1]}, []string{"use key [REDACTED] now"}},
		{"openai: tool_calls arguments as a JSON string", FormatOpenAI,
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"login","arguments":"{\"username\":\"ann\",\"password\":\"plain-secret-5\"}"}}]}`,
			[]string{"plain-secret-5"}, []string{`\"username\":\"ann\"`, "call_1"}},
		{"openai: role tool content with a Bearer header", FormatOpenAI,
			`{"role":"tool","tool_call_id":"call_1","content":"{\"headers\":{\"X-Trace\":\"1\",\"note\":\"Bearer abcdef123456\"}}"}`,
			[]string{"abcdef123456"}, []string{`Bearer [REDACTED]`, `X-Trace`}},
		{"openai: an object or array under a credential name becomes one string", FormatOpenAI,
			`{"role":"tool","content":"{\"credentials\":{\"user\":\"u\",\"pass\":\"plain-secret-6\"},\"tokens\":5,\"secrets\":[1]}"}`,
			[]string{"plain-secret-6"}, []string{`\"credentials\":\"[REDACTED]\"`, `\"tokens\":5`}},
		{"text: a key-shaped token inside prose", FormatText,
			`"my aws key is ` + plantedSecrets[3] + ` and my github token ` + plantedSecrets[4] + `"`,
			[]string{plantedSecrets[3], plantedSecrets[4]}, []string{"my aws key is [REDACTED]"}},
		{"text: an object body", FormatText, `{"text":"jwt ` + plantedSecrets[6] + ` and ` + wk + `"}`,
			[]string{plantedSecrets[6], wk}, []string{"jwt [REDACTED] and [REDACTED]"}},
		{"unknown format: walked the same way", "custom", `{"Authorization":"Basic plain-secret-7"}`,
			[]string{"plain-secret-7"}, nil},
		{"nothing to hide: the body is returned byte for byte", FormatAnthropic,
			`{ "role": "user",  "content": "max_tokens and risk-assessment stay" }`,
			nil, []string{`{ "role": "user",  "content": "max_tokens and risk-assessment stay" }`}},
		{"null under a credential name stays null: it hides nothing", FormatOpenAI, `{"token":null}`, nil, []string{`{"token":null}`}},
		{"numbers keep their text", FormatOpenAI, `{"a":1.50e3,"password":12345}`, []string{"12345"}, []string{`"a":1.50e3`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(MessageBody(tc.format, json.RawMessage(tc.body)))
			if !json.Valid([]byte(got)) {
				t.Fatalf("output is not JSON: %s", got)
			}
			for _, h := range tc.hidden {
				if strings.Contains(got, h) {
					t.Errorf("%q survived: %s", h, got)
				}
			}
			for _, k := range tc.kept {
				if !strings.Contains(got, k) {
					t.Errorf("%q is missing: %s", k, got)
				}
			}
		})
	}
}

func TestIsCredentialName(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "apiKey": true, "API-KEY": true, "x-api-key": true, "token": true, "access_token": true,
		"refreshToken": true, "sessionToken": true, "clientSecret": true, "secretAccessKey": true, "private_key": true,
		"password": true, "Authorization": true, "credentials": true,
		"max_tokens": false, "tokens": false, "inputTokens": false, "name": false, "keyboard": false, "tokenizer": false,
		// The names the redaction breadth rule lists: pass, *_PASS, *_SECRET, *_TOKEN, connection strings, DSNs, signatures, sessions, cookies.
		"pass": true, "passwd": true, "pwd": true, "DB_PASS": true, "dbPass": true, "JWT_SECRET": true, "SLACK_TOKEN": true,
		"connection_string": true, "connectionString": true, "dsn": true, "sentry.dsn": true, "signature": true, "X-Amz-Signature": true,
		"session": true, "sessionId": true, "cookie": true, "Set-Cookie": true, "basic_auth": true, "STRIPE_KEY": true, "AccountKey": true,
		"bypass": false, "compass": false, "passenger": false, "partition_key": false, "sort_key": false, "key": false,
		"session_count": false, "signature_version": false, "cookie_consent": false, "author": false,
	} {
		if got := IsCredentialName(name); got != want {
			t.Errorf("IsCredentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEveryPlantedSecretShapeIsRedactedInText(t *testing.T) {
	for _, s := range plantedSecrets {
		if got := Text("x " + s + " y"); strings.Contains(got, s) || !strings.Contains(got, RedactedValue) {
			t.Errorf("Text kept %q: %q", s, got)
		}
	}
}

// FuzzRedactMessageBody plants secrets into whatever JSON the fuzzer makes:
// under a credential name in every object, as a token in every string and
// inside JSON carried in a string; none may survive, and the output is JSON.
// Its seed corpus runs with make test.
func FuzzMessageBody(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `"text"`, `{"role":"assistant","content":[{"type":"tool_use","input":{"q":"a"}}]}`,
		`{"tool_calls":[{"function":{"arguments":"{\"a\":1}"}}]}`, `{"role":"tool","content":"{\"x\":[1,2,{\"y\":\"z\"}]}"}`,
		`[1,"two",{"three":[null,true,false]}]`, `{"a":{"b":{"c":{"d":"deep"}}}}`,
	} {
		for i := range plantedSecrets {
			f.Add(seed, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, doc string, pick uint8) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		secret := plantedSecrets[int(pick)%len(plantedSecrets)]
		planted, err := json.Marshal(plant(v, secret, 0))
		if err != nil {
			return
		}
		got := MessageBody(FormatAnthropic, planted)
		if !json.Valid(got) {
			t.Fatalf("output is not JSON: %s", got)
		}
		if strings.Contains(string(got), secret) || strings.Contains(string(got), "plain-credential-value") {
			t.Fatalf("a planted secret survived:\nin:  %s\nout: %s", planted, got)
		}
	})
}

// plant adds secrets to v: a credential-named member in each object, the
// key-shaped secret as a word in each string, and at the top a string
// holding JSON with the secret inside.
func plant(v any, secret string, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{"apiKey": "plain-credential-value"}
		for k, e := range x {
			if IsCredentialName(k) {
				continue
			}
			out[k] = plant(e, secret, depth+1)
		}
		if depth == 0 {
			inner, _ := json.Marshal(map[string]any{"note": "see " + secret, "client_secret": "plain-credential-value"})
			out["toolResult"] = string(inner)
		}
		return out
	case []any:
		out := []any{"key: " + secret}
		for _, e := range x {
			out = append(out, plant(e, secret, depth+1))
		}
		return out
	case string:
		return x + " " + secret + " " + x
	}
	return v
}

// Structure a secret scanner does not see: the value of a name/value object
// naming a credential (in either order), and the word after a credential
// flag in a command line given as an array.
func TestNameValueObjectsAndFlagArrays(t *testing.T) {
	for _, tc := range []struct{ body, hidden, kept string }{
		{`{"env":[{"name":"DB_PASSWORD","value":"plain-secret-nv1"},{"name":"REGION","value":"eu"}]}`, "plain-secret-nv1", `"value":"eu"`},
		{`{"headers":[{"value":"plain-secret-nv2","key":"X-Api-Key"},{"value":"json","key":"Accept"}]}`, "plain-secret-nv2", `"value":"json"`},
		{`{"headers":[{"value":{"a":"plain-secret-nv3"},"header":"Cookie"}]}`, "plain-secret-nv3", `"header":"Cookie"`},
		{`{"argv":["mysql","--password","plain-secret-fl1","-e","select 1"]}`, "plain-secret-fl1", `"select 1"`},
		{`{"argv":["sshpass","-p","plain-secret-fl2","ssh","host"]}`, "plain-secret-fl2", `"ssh","host"`},
		{`{"argv":["mkdir","-p","/tmp/x"]}`, "", `"/tmp/x"`},
		{`{"argv":["docker","run","-p","8080:80","nginx"]}`, "", `"8080:80"`},
		{`{"argv":["docker","login","-p","plain-secret-fl3","r.io"]}`, "plain-secret-fl3", `"r.io"`},
		{`{"argv":["smbclient","-U","ann%plain-secret-fl4"]}`, "plain-secret-fl4", `"ann%[REDACTED]"`},
		{`{"argv":["htpasswd","-nbB","ann","plain-secret-fl5"]}`, "plain-secret-fl5", `"ann"`},
		{`{"headers":[["Accept","json"],["X-Api-Key","plain-secret-pr1"]]}`, "plain-secret-pr1", `["Accept","json"]`},
		{`{"raw":["Authorization","plain-secret-pr2","Accept","json"]}`, "plain-secret-pr2", `"Accept","json"`},
		{`{"p":[{"ParameterValue":"plain-secret-pr3","ParameterKey":"DbPassword"},{"ParameterKey":"Env","ParameterValue":"prod"}]}`, "plain-secret-pr3", `"prod"`},
		{`{"d":"plainSecretJwk0AAAAAAAAAAAAAAAAAAAAAAA","crv":"Ed25519","kty":"OKP","x":"11qYAYKxCrfVS"}`, "plainSecretJwk0", `"kty":"OKP"`},
	} {
		got := string(MessageBody(FormatAnthropic, json.RawMessage(tc.body)))
		if !json.Valid([]byte(got)) || (tc.hidden != "" && strings.Contains(got, tc.hidden)) || !strings.Contains(got, tc.kept) {
			t.Errorf("%s\n  -> %s", tc.body, got)
		}
	}
}

// Past its budget, a text's rules are not run: the words around their
// keywords are hidden instead (redaction fails closed).
func TestPastTheBudgetKeywordsSurroundingsAreHidden(t *testing.T) {
	s := "deploy with DIGITALOCEAN_TOKEN = dop_v1_" + strings.Repeat("ab12", 16) + " now"
	ts := &textScan{s: s, budget: 0}
	ix := theIndex()
	for i, r := range ix.rules {
		if r.id == "digitalocean-pat" {
			at := strings.Index(s, "dop_v1_")
			ts.runRule(r, []ruleHit{{rule: uint16(i), at: int32(at), n: uint16(len("dop_v1_"))}})
		}
	}
	if got := ts.apply(); strings.Contains(got, "ab12") || !strings.HasPrefix(got, "deploy with") {
		t.Errorf("got %q", got)
	}
}

// Every rule compiles, and its keywords (lower case, two bytes or more) let
// the index find it: a rule that failed would panic on the first chat that
// calls for it.
func TestEveryRuleCompiles(t *testing.T) {
	ix := theIndex()
	if len(ix.rules) != len(gitleaksRules)+len(ownRules) || len(gitleaksRules) < 200 {
		t.Fatalf("%d rules indexed, %d of gitleaks' (%s)", len(ix.rules), len(gitleaksRules), gitleaksVersion)
	}
	for _, r := range ix.rules {
		if _, err := regexp.Compile(r.regex); err != nil {
			t.Errorf("%s: %v", r.id, err)
		}
		for _, k := range r.keywords {
			if len(k) < 2 || k != strings.ToLower(k) {
				t.Errorf("%s: keyword %q", r.id, k)
			}
		}
	}
}

// The windows' analysis (window.go) on rules of known shapes: how far
// before a keyword a match begins, and gitleaks' generic shape.
func TestRuleWindows(t *testing.T) {
	want := map[string]struct {
		before int
		assign bool
	}{
		"adafruit-api-key":      {0, true},
		"aws-key-id":            {0, false},
		"digitalocean-pat":      {0, false},
		"sk-key":                {utf8.UTFMax, false}, // after a separator, any rune
		"stripe-key":            {utf8.UTFMax, false},
		"jfrog-api-key":         {0, true},
		"atlassian-api-token":   {0, true},
		"messagebird-api-token": {0, true},
		"curl-auth-user":        {0, false},
		"slack-webhook":         {0, false},
		"vault-service-token":   {0, false},
	}
	seen := 0
	for _, r := range theIndex().rules {
		w, ok := want[r.id]
		if !ok {
			continue
		}
		seen++
		r.compiled()
		if r.before != w.before || (r.assign != nil) != w.assign {
			t.Errorf("%s: before %d, assign %v; want %d, %v", r.id, r.before, r.assign, w.before, w.assign)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d rules found", seen, len(want))
	}
}

// A hit the text after its keyword rules out is dropped before its rule
// runs; one that may begin a match is kept.
func TestHitsNoMatchCanBeginAreDropped(t *testing.T) {
	for _, r := range theIndex().rules {
		if r.id != "aws-key-id" {
			continue
		}
		r.compiled()
		for _, tc := range []struct {
			text string
			keep bool
		}{{"AKIA then prose", false}, {"AKIAQ7PLANTEDFUZZKEY", true}, {"akia", true}} {
			if got := followsFit(r.follow, tc.text, 0, 4); got != tc.keep {
				t.Errorf("%q: kept %v, want %v", tc.text, got, tc.keep)
			}
		}
	}
}
