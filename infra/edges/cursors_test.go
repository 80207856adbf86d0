package edges_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
)

// cursorList is one list of the API that pages with a cursor, with a query
// that answers more than one page.
type cursorList struct {
	name, path string
	query      url.Values
	// next reads the next page's cursor from a 200 answer.
	next func(t testing.TB, res *apitest.Response) string
}

func bodyCursor(t testing.TB, res *apitest.Response) string {
	var body struct {
		NextCursor *string `json:"nextCursor"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatalf("page: %v", err)
	}
	if body.NextCursor == nil {
		return ""
	}
	return *body.NextCursor
}

// cursorLists are every list of the API that takes a cursor.
var cursorLists = []cursorList{
	{"agents", "/workspaceapi/agents", url.Values{"limit": {"1"}}, bodyCursor},
	{"members", "/workspaceapi/members", url.Values{"limit": {"1"}}, bodyCursor},
	{"invitations", "/workspaceapi/invites", url.Values{"limit": {"1"}}, bodyCursor},
	{"audit log", "/workspaceapi/audit-log", url.Values{"limit": {"1"}, "since": {"2026-01-01"}, "until": {"2027-01-01"}}, bodyCursor},
	{"usage export", "/workspaceapi/credits/export", url.Values{"limit": {"1"}, "from": {"2026-11-01"}, "to": {"2026-11-21"}},
		func(_ testing.TB, res *apitest.Response) string { return res.Header.Get("Next-Cursor") }},
}

// cursorEnv is the demo fixture with two audit entries, so every list has
// a second page.
func cursorEnv(t testing.TB) *apitest.Env {
	env := apitest.New(t, apitest.DemoFixture(t))
	for _, tag := range []string{"one", "two"} {
		if res := env.Do(t, http.MethodPost, "/workspaceapi/agents/tags", readKey, `{"ids": ["agt_support_triage"], "tags": ["`+tag+`"]}`); res.Status != http.StatusOK {
			t.Fatalf("tagging for audit entries: %d %s", res.Status, res.Body)
		}
	}
	return env
}

// get answers GET l's path with its query and the cursor c.
func (l cursorList) get(t testing.TB, env *apitest.Env, c string) *apitest.Response {
	q := url.Values{}
	for k, v := range l.query {
		q[k] = v
	}
	if c != "" {
		q.Set("cursor", c)
	}
	return env.Do(t, http.MethodGet, l.path+"?"+q.Encode(), readKey, "")
}

// unkeyedCursor is the cursor of pos for l in workspace ws as anyone could
// make it while cursors were bound by FNV-64a of public inputs: the
// workspace, the path and the query without cursor and limit.
func (l cursorList) unkeyedCursor(ws, pos string) string {
	q := url.Values{}
	for k, v := range l.query {
		if k != "limit" {
			q[k] = v
		}
	}
	h := fnv.New64a()
	for _, part := range []string{ws, l.path, q.Encode()} {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	return base64.RawURLEncoding.EncodeToString([]byte(pos + "|" + hex.EncodeToString(h.Sum(nil))))
}

// TestEveryListRefusesCursorsItDidNotIssue: each list's own next cursor
// reads its second page; a cursor anyone can compute without the stack's
// cursor key (the position and an unkeyed digest of the list, the query
// and the workspace), one of another list, or a changed one answers 400,
// never a page and never a 5xx.
func TestEveryListRefusesCursorsItDidNotIssue(t *testing.T) {
	env := cursorEnv(t)
	issued := map[string]string{}
	for _, l := range cursorLists {
		res := l.get(t, env, "")
		if res.Status != http.StatusOK {
			t.Fatalf("%s: first page %d %s", l.name, res.Status, res.Body)
		}
		issued[l.name] = l.next(t, res)
		if issued[l.name] == "" {
			t.Fatalf("%s: the first page of one has no next cursor", l.name)
		}
		if res := l.get(t, env, issued[l.name]); res.Status != http.StatusOK {
			t.Errorf("%s: its own cursor answered %d %s", l.name, res.Status, res.Body)
		}
	}
	for _, l := range cursorLists {
		forged := []struct{ name, cursor string }{
			{"an unkeyed cursor of a made-up position", l.unkeyedCursor("ws_acme", "zzzz")},
			{"an unkeyed cursor of a position before every entry", l.unkeyedCursor("ws_acme", "0")},
			{"an unkeyed export cursor outside the period", l.unkeyedCursor("ws_acme", "agent|1999-01-01|a")},
			{"an unkeyed cursor of the first id", l.unkeyedCursor("ws_acme", "agt_support_triage")},
			{"its own cursor with one letter changed", flip(issued[l.name])},
		}
		for other, c := range issued {
			if other != l.name {
				forged = append(forged, struct{ name, cursor string }{"the cursor of the " + other, c})
			}
		}
		for _, f := range forged {
			if res := l.get(t, env, f.cursor); res.Status != http.StatusBadRequest {
				t.Errorf("%s, %s: got %d %s, want 400", l.name, f.name, res.Status, res.Body)
			}
		}
	}
}

// flip changes the first character of c to another of the cursor alphabet.
func flip(c string) string {
	if c == "" {
		return "A"
	}
	if c[0] == 'A' {
		return "B" + c[1:]
	}
	return "A" + c[1:]
}

// FuzzEveryListAnswers200Or400ToAnyCursor feeds arbitrary cursors into
// every list: each answers 200 (a cursor it issued) or 400, never 5xx.
func FuzzEveryListAnswers200Or400ToAnyCursor(f *testing.F) {
	env := cursorEnv(f)
	for _, l := range cursorLists {
		res := l.get(f, env, "")
		c := l.next(f, res)
		for _, s := range []string{c, flip(c), c + "A", strings.ToLower(c), c[:len(c)/2],
			l.unkeyedCursor("ws_acme", "zzzz"), l.unkeyedCursor("ws_acme", "agent|0000-01-01|"), "", "=", "%00", "wk_abc",
			strings.Repeat("A", 512), strings.Repeat("A", 513), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, cursor string) {
		for _, l := range cursorLists {
			res := l.get(t, env, cursor)
			if res.Status != http.StatusOK && res.Status != http.StatusBadRequest {
				t.Errorf("%s with cursor %q: got %d %s, want 200 or 400", l.name, cursor, res.Status, res.Body)
			}
		}
	})
}
