package workspace

import (
	"encoding/json"
	"strings"
	"testing"
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
			got := string(RedactMessageBody(tc.format, json.RawMessage(tc.body)))
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
	} {
		if got := IsCredentialName(name); got != want {
			t.Errorf("IsCredentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEveryPlantedSecretShapeIsRedactedInText(t *testing.T) {
	for _, s := range plantedSecrets {
		if got := RedactTokens("x " + s + " y"); strings.Contains(got, s) || !strings.Contains(got, RedactedValue) {
			t.Errorf("RedactTokens kept %q: %q", s, got)
		}
	}
}

// FuzzRedactMessageBody plants secrets into whatever JSON the fuzzer makes:
// under a credential name in every object, as a token in every string and
// inside JSON carried in a string; none may survive, and the output is JSON.
// Its seed corpus runs with make test.
func FuzzRedactMessageBody(f *testing.F) {
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
		got := RedactMessageBody(FormatAnthropic, planted)
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
