package workspace_test

import (
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestValidateEmailFollowsTheSpecPatternLiterally(t *testing.T) {
	tests := []struct {
		email string
		valid bool
	}{
		{"jane@example.com", true},
		{"Jane.Doe@Example.COM", true},
		{"o'brien@example.ie", true},
		{"a+tag@example.com", true},
		{"under_score@example.com", true},
		{"ends-with-@example.com", true},
		{"ends_with_@example.com", true},
		{"ends+@example.com", true},
		{"a@b.co", true},
		{"x@sub.domain.example.org", true},
		{"x@1digit.example", true},
		{"x@a-b.example", true},
		{"x@trailing-.example", true}, // labels start with a letter or digit and may contain hyphens
		{"1@example.com", true},

		{"", false},
		{"plain", false},
		{"@example.com", false},
		{".leading@example.com", false},
		{"two..dots@example.com", false},
		{"trailing.@example.com", false},
		{"ends'@example.com", false},
		{"sp ace@example.com", false},
		{" jane@example.com", false},
		{"jane@example.com ", false},
		{"jane@localhost", false},
		{"jane@example.c", false},
		{"jane@example.c0m", false},
		{"jane@example.co-m", false},
		{"jane@-example.com", false},
		{"jane@.example.com", false},
		{"jane@example..com", false},
		{"jane@example.com.", false},
		{"jane@exa_mple.com", false},
		{"a@b@example.com", false},
		{"jané@example.com", false},
		{"jane@exámple.com", false},
		{"quote\"d@example.com", false},
		{strings.Repeat("a", 64) + "@" + strings.Repeat("b", 186) + ".com", false}, // 255 characters
	}
	for _, tc := range tests {
		err := workspace.ValidateEmail(tc.email)
		if (err == nil) != tc.valid {
			t.Errorf("ValidateEmail(%q) = %v, want valid=%v", tc.email, err, tc.valid)
		}
		if err != nil && workspace.KindOf(err) != workspace.KindInvalid {
			t.Errorf("ValidateEmail(%q) error kind = %v, want KindInvalid", tc.email, workspace.KindOf(err))
		}
	}
}

func TestEmailOf254CharactersIsAccepted(t *testing.T) {
	email := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 185) + ".com"
	if len(email) != 254 {
		t.Fatalf("test address has %d characters", len(email))
	}
	if err := workspace.ValidateEmail(email); err != nil {
		t.Errorf("ValidateEmail(254 characters) = %v, want nil", err)
	}
}

func TestDomainRestrictionComparesTheWholeDomainCaseInsensitively(t *testing.T) {
	ws := workspace.Workspace{AllowedEmailDomains: []string{"acme.example"}}
	tests := []struct {
		email string
		want  bool
	}{
		{"a@acme.example", true},
		{"a@ACME.Example", true},
		{"a@eu.acme.example", false},
		{"a@acme.example.org", false},
		{"a@other.example", false},
	}
	for _, tc := range tests {
		if got := ws.AllowsDomainOf(tc.email); got != tc.want {
			t.Errorf("AllowsDomainOf(%q) = %v, want %v", tc.email, got, tc.want)
		}
	}
	if !(workspace.Workspace{}).AllowsDomainOf("a@anything.example") {
		t.Error("an empty allow-list must allow any domain")
	}
}
