package chatredact

import (
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// A planted credential: the text planted, and the secret part of it that
// must not come back.
type plantedShape struct{ text, secret string }

// plantedShapes are the shapes the first review planted, with secrets no fuzzer
// input holds by chance: a name=value pair, a Stripe live key, an AWS access
// key id, a GitHub token, an Authorization header, a URL's password, a
// workspace key, and three of the shapes past the scanners.
var plantedShapes = []plantedShape{
	{"password=Zq8PlantedPw0Value", "Zq8PlantedPw0Value"},
	{"sk_live_Zq8PlantedStripe0Key1234", "Zq8PlantedStripe0Key1234"},
	{"AKIAQ7PLANTEDFUZZKEY", "Q7PLANTEDFUZZKEY"},
	{"ghp_Zq8PlantedGitHub0Token0123456789ab", "Zq8PlantedGitHub0Token0123456789ab"},
	{"Authorization: Bearer Zq8PlantedBearer0Token", "Zq8PlantedBearer0Token"},
	{"https://ann:Zq8PlantedUrlPw0@db.example.com/orders", "Zq8PlantedUrlPw0"},
	{"wk_Zq8PlantedWorkspaceKey000000000000000", "Zq8PlantedWorkspaceKey000000000000000"},
	// Shapes past the scanners: a vault token, a webhook URL, a DSN password
	// holding URL delimiters.
	{"hvs.Zq8PlantedVaultToken0000000", "Zq8PlantedVaultToken0000000"},
	{"https://discord.com/api/webhooks/123456789012345678/Zq8PlantedDiscordHook0Token", "Zq8PlantedDiscordHook0Token"},
	{"postgres://ann:Zq8#Planted?Dsn/Pw@db.example.com/app", "Planted?Dsn"},
}

// plantSeps are what may stand on either side of a planted credential: a
// credential glued to other word characters is another token, which no
// scanner can be asked to know.
var plantSeps = []string{" ", "\n", "\t", "\r\n", ", ", "; ", "(", ")", `"`, "'", "<", ">", "[", "]", "{", "}", "|", "`", " - "}

// plantAt returns s with shape planted at byte offset pos (modulo its
// length, then moved to a rune boundary), between separators sep picks.
func plantAt(s string, shape plantedShape, pos uint16, sep uint8) string {
	i := int(pos) % (len(s) + 1)
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	before := plantSeps[int(sep)%len(plantSeps)]
	after := plantSeps[int(sep/16)%len(plantSeps)]
	return s[:i] + before + shape.text + after + s[i:]
}

var plantedTextSeeds = []string{
	"", "hello", "the customer asked about their invoice", "password", "password=", "--token", `"key":`,
	"<password>", "Basic ", "a@b", "https://u:p@", "token is", "%22pass%22%3A", `\"secret\":\"`, "eyJ",
	"-----BEGIN RSA PRIVATE KEY-----", `{"a": "b"}`, `{"password": "`, "ZXlK", "é漢字🙂", "bad \xff utf-8",
	"Authorization:", "curl -H '", "x-api-key: ", "<!-- ", "DB_PASS", "Set-Cookie: ", "sk_live_",
}

// FuzzTextPlantedSecret: Text, given any text with a credential of each
// shape planted at any position (between separators), never lets the
// secret through.
func FuzzTextPlantedSecret(f *testing.F) {
	for i, s := range plantedTextSeeds {
		f.Add(s, uint16(i*7), uint8(i), uint8(i*17))
	}
	f.Fuzz(func(t *testing.T, s string, pos uint16, pick, sep uint8) {
		shape := plantedShapes[int(pick)%len(plantedShapes)]
		in := plantAt(s, shape, pos, sep)
		if got := Text(in); strings.Contains(got, shape.secret) {
			t.Fatalf("the secret of %q survived:\nin:  %q\nout: %q", shape.text, in, got)
		}
	})
}

// plantInJSON plants shape in the n-th string of v, a member name or a
// string value (modulo their count; objects in sorted member order, as
// encoding/json writes them), at pos, and reports whether v has a string.
func plantInJSON(v any, shape plantedShape, n int, pos uint16, sep uint8) (any, bool) {
	var strs int
	countStrings(v, &strs)
	if strs == 0 {
		return v, false
	}
	target := n % strs
	return replaceString(v, &target, func(s string) string { return plantAt(s, shape, pos, sep) }), true
}

func countStrings(v any, n *int) {
	switch x := v.(type) {
	case string:
		*n++
	case []any:
		for _, e := range x {
			countStrings(e, n)
		}
	case map[string]any:
		for _, e := range x {
			*n++ // the name
			countStrings(e, n)
		}
	}
}

// replaceString applies f to the string *target counts down to.
func replaceString(v any, target *int, f func(string) string) any {
	switch x := v.(type) {
	case string:
		if *target == 0 {
			*target = -1
			return f(x)
		}
		*target--
		return x
	case []any:
		for i, e := range x {
			x[i] = replaceString(e, target, f)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			name := replaceString(k, target, f).(string)
			out[name] = replaceString(x[k], target, f)
		}
		return out
	}
	return v
}

// FuzzMessageBodyPlantedSecret: MessageBody, given any body with a
// credential of each shape planted at any position of any of its strings,
// member names included (of the body as a whole when it is not JSON, which
// the store never holds but the redactor still takes), never lets the
// secret through, and answers valid JSON, as it does for the fuzzed body
// itself when that is JSON.
func FuzzMessageBodyPlantedSecret(f *testing.F) {
	docs := []string{
		`"text"`, `{"role":"user","content":"hello"}`, `{"role":"assistant","content":[{"type":"text","text":"calling"},{"type":"tool_use","id":"tu_1","name":"crm","input":{"q":"acme"}}]}`,
		`{"role":"tool","tool_call_id":"c","content":"{\"rows\":[1,2],\"note\":\"ok\"}"}`,
		`{"tool_calls":[{"id":"c","type":"function","function":{"name":"login","arguments":"{\"user\":\"ann\"}"}}]}`,
		`["--user","ann","x"]`, `[{"name":"DB_HOST","value":"h"}]`, `{"a":{"b":{"c":{"d":"deep"}}}}`, `{"k":"ZXlK"}`,
		`{"s":"\u00e9\u6f22 \ud83d\ude42"}`, `{}`, `[]`, `1`, `null`, `not json`, `{"unclosed": "`, "",
	}
	for i, d := range docs {
		f.Add(d, uint8(i), uint16(i*5), uint8(i), uint8(i*19))
	}
	f.Fuzz(func(t *testing.T, doc string, n uint8, pos uint16, pick, sep uint8) {
		shape := plantedShapes[int(pick)%len(plantedShapes)]
		if json.Valid([]byte(doc)) {
			if got := MessageBody(FormatOpenAI, json.RawMessage(doc)); !json.Valid(got) {
				t.Fatalf("the JSON %q came back as %q", doc, got)
			}
		}
		var body []byte
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err == nil {
			planted, ok := plantInJSON(v, shape, int(n), pos, sep)
			if !ok { // no string: the credential is one
				planted = []any{v, plantAt("", shape, 0, sep)}
			}
			if body, err = json.Marshal(planted); err != nil {
				t.Fatalf("%q: %v", doc, err)
			}
		} else {
			body = []byte(plantAt(doc, shape, pos, sep))
		}
		got := MessageBody(FormatAnthropic, json.RawMessage(body))
		if !json.Valid(got) {
			t.Fatalf("the body %q came back as %q, not JSON", body, got)
		}
		if strings.Contains(string(got), shape.secret) {
			t.Fatalf("the secret of %q survived:\nin:  %s\nout: %s", shape.text, body, got)
		}
	})
}

// Linear time, measured: the input made at least linearUnit bytes long, then
// eight times that. Redaction is linear (docs/agent-data.md, Redaction: the
// rules' budget), so the 8x input takes about 8 times as long (6 to 15 times
// at these sizes); a quadratic step would take 64 times. The bound is 20
// times, plus linearSlack. What is measured is the CPU time of the measuring
// thread (threadTime), so that other processes on a loaded machine do not
// count; each side is the fastest of linearRuns runs, and a comparison that
// fails is measured again before the test fails.
const (
	linearUnit  = 4 << 10
	linearRuns  = 2
	linearSlack = time.Millisecond
)

// fastest returns the shortest time of linearRuns runs of f.
func fastest(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := time.Duration(1<<63 - 1)
	for range linearRuns {
		start := threadTime()
		f()
		best = min(best, threadTime()-start)
	}
	return best
}

// checkLinear fails unless eight takes at most 20 times as long as one, plus
// linearSlack, in one of three measurements.
func checkLinear(t *testing.T, what string, one, eight func()) {
	t.Helper()
	var t1, t8 time.Duration
	for range 3 {
		t1, t8 = fastest(one), fastest(eight)
		if t8 <= 20*t1+linearSlack {
			return
		}
	}
	t.Fatalf("%s: 8x the input took %v, 1x %v: more than 20x (+%v)", what, t8, t1, linearSlack)
}

// FuzzRedactLinear: Text and MessageBody take time linear in the input: any
// text (and a JSON array of any JSON value) repeated to at least 4 KiB, then
// eight times as much, takes at most 20 times as long, plus a constant.
func FuzzRedactLinear(f *testing.F) {
	for _, s := range []string{
		"hello ", "a@b", "eyJ", "ZXlK", "DB_PASS", "curl -H '", "-----BEGIN RSA PRIVATE KEY-----", "x-api-key: ",
		"password=x ", "Bearer abcdef ", "AKIA AKIA AKIA ", "https://a:b@c ", "--password ", "ghp_ sk_live_ xoxb- eyJ ",
		`{"token":"a"}`, `"{\"a\":\"{\\\"password\\\":1}\"}"`, `["--password","x",{"name":"DB_PASS","value":"v"}]`,
	} {
		f.Add(s)
	}
	for _, sh := range plantedShapes {
		f.Add(`"` + sh.text + `"`)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return
		}
		unit := strings.Repeat(s, linearUnit/len(s)+1)
		eight := strings.Repeat(unit, 8)
		checkLinear(t, fmt.Sprintf("Text(%.40q...)", s),
			func() { Text(unit) }, func() { Text(eight) })

		if !json.Valid([]byte(s)) {
			return
		}
		elems := strings.Repeat(","+s, linearUnit/len(s)+1)[1:]
		oneBody := json.RawMessage("[" + elems + "]")
		eightBody := json.RawMessage("[" + strings.Repeat(","+elems, 8)[1:] + "]")
		checkLinear(t, fmt.Sprintf("MessageBody(%.40q...)", s),
			func() { MessageBody(FormatOpenAI, oneBody) }, func() { MessageBody(FormatOpenAI, eightBody) })
	})
}
