package workspace_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// keyShaped is docs/bounds.md's key-shaped text as a regular expression, an
// oracle independent of the scanner in redact.go.
var keyShaped = regexp.MustCompile(regexp.QuoteMeta(workspace.KeyPrefix) + `[A-Za-z0-9]+`)

// FuzzRedactKeys: ContainsKey and RedactKeys agree with the regular
// expression KeyPrefix[A-Za-z0-9]+ (RedactKeys replaces each leftmost match
// with RedactedKey), what RedactKeys returns holds no key-shaped text, a
// second pass changes nothing, and text without key-shaped runs comes back
// unchanged.
func FuzzRedactKeys(f *testing.F) {
	for _, s := range []string{
		"", "no key here", "wk_", "wk_-x", "wk_a", "wk_wk_abc", "awk_abc", "wwk_wk_",
		`unknown field "wk_demoAdminKey0000000000000000000000000001"`,
		"/x/wk_abc/y wk_ wk_Z9", "wk_\xffabc", "wk_é", "WK_abc", "wk__a", "[redacted key]wk_1",
		strings.Repeat("wk_", 100) + "x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		has := workspace.ContainsKey(s)
		if want := keyShaped.MatchString(s); has != want {
			t.Fatalf("ContainsKey(%q) = %v, want %v", s, has, want)
		}
		out := workspace.RedactKeys(s)
		if want := keyShaped.ReplaceAllLiteralString(s, workspace.RedactedKey); out != want {
			t.Fatalf("RedactKeys(%q) = %q, want %q", s, out, want)
		}
		if workspace.ContainsKey(out) {
			t.Fatalf("RedactKeys(%q) = %q still holds key-shaped text", s, out)
		}
		if again := workspace.RedactKeys(out); again != out {
			t.Fatalf("RedactKeys is not idempotent on %q: %q, then %q", s, out, again)
		}
		if !has && out != s {
			t.Fatalf("RedactKeys(%q) = %q changed text without a key", s, out)
		}
	})
}
