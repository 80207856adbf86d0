package workspace_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// emailPattern is docs/endpoints.md's e-mail rule (E-mail addresses) written
// as a regular expression, independently of ValidateEmail's hand-written
// scanner: a local part of letters, digits and _ ' + - . with no leading dot,
// no two dots in a row and a last character that is not a dot or an
// apostrophe; then at least two dot-separated labels, each starting with a
// letter or digit, the last of two or more letters.
var emailPattern = regexp.MustCompile(
	`^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]` +
		`@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$`)

// emailRefusals are ValidateEmail's only messages.
var emailRefusals = map[string]bool{
	"email is required":                    true,
	"email must be at most 254 characters": true,
	"email is not a valid e-mail address":  true,
}

// FuzzValidateEmail: ValidateEmail agrees with the documented pattern (and its
// 254-character bound); every address it accepts is ASCII, at most 254
// characters, has exactly one '@' and a dot in its domain, and is accepted
// in any letter case (addresses compare case-insensitively); every refusal
// is a KindInvalid error that does not repeat the address; and the answer is
// the same when asked twice.
func FuzzValidateEmail(f *testing.F) {
	for _, s := range []string{
		"jane@example.com", "Jane.Doe@Example.COM", "o'brien@example.ie", "a+tag@example.com",
		"ends-with-@example.com", "x@trailing-.example", "1@example.com", "a@b.co",
		"", "plain", "@example.com", ".leading@example.com", "two..dots@example.com",
		"trailing.@example.com", "ends'@example.com", " jane@example.com", "jane@localhost",
		"jane@example.c", "jane@example.c0m", "jane@-example.com", "jane@example..com",
		"jane@example.com.", "a@b@example.com", "jané@example.com", "jane@exämple.com",
		"wk_abcdef@example.com", "x@" + strings.Repeat("a", 250) + ".io",
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 185) + ".com", // 254
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 186) + ".com", // 255
		"a@b.c\x00m", "a@b.com\n", "a@B.CoM", "A@1.2.xn", "_@_.com", "-@-.com", "a@0-.de",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := workspace.ValidateEmail(s)
		if again := workspace.ValidateEmail(s); (err == nil) != (again == nil) ||
			(err != nil && err.Error() != again.Error()) {
			t.Fatalf("ValidateEmail(%q) is not deterministic: %v, then %v", s, err, again)
		}
		want := len(s) <= workspace.MaxEmailLength && emailPattern.MatchString(s)
		if (err == nil) != want {
			t.Fatalf("ValidateEmail(%q) = %v; the documented pattern says valid=%v", s, err, want)
		}
		if err != nil {
			if k := workspace.KindOf(err); k != workspace.KindInvalid {
				t.Fatalf("ValidateEmail(%q): kind %d, want KindInvalid: %v", s, k, err)
			}
			if !emailRefusals[err.Error()] { // one of three fixed messages: never the address
				t.Fatalf("ValidateEmail(%q): unexpected message %q", s, err)
			}
			return
		}
		if len(s) > workspace.MaxEmailLength {
			t.Fatalf("accepted %d characters (at most %d): %q", len(s), workspace.MaxEmailLength, s)
		}
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 || s[i] <= ' ' {
				t.Fatalf("accepted a non-ASCII, space or control byte at %d: %q", i, s)
			}
		}
		if strings.Count(s, "@") != 1 {
			t.Fatalf("accepted %q, which has %d '@'", s, strings.Count(s, "@"))
		}
		domain := workspace.EmailDomain(s)
		if !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
			t.Fatalf("accepted %q with the domain %q", s, domain)
		}
		if domain != strings.ToLower(s[strings.IndexByte(s, '@')+1:]) {
			t.Fatalf("EmailDomain(%q) = %q", s, domain)
		}
		for _, v := range []string{workspace.NormalizeEmail(s), strings.ToUpper(s)} {
			if err := workspace.ValidateEmail(v); err != nil {
				t.Fatalf("accepted %q but not %q: %v", s, v, err)
			}
		}
	})
}
