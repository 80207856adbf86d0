package workspace_test

import (
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// TestTeamNamesThatAreOneName: names compare after NFKC, simple case
// folding and collapsing every run of white space (docs/endpoints.md, Teams).
func TestTeamNamesThatAreOneName(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"case", "Customer Support", "customer support"},
		{"a run of spaces", "Customer  Support", "customer support"},
		{"a tab and a newline between the words", "Customer\t\nSupport", "Customer Support"},
		{"surrounding white space", "  Customer Support\u3000", "Customer Support"},
		{"a no-break space", "Customer\u00a0Support", "Customer Support"},
		{"an ideographic space", "Customer\u3000Support", "Customer Support"},
		{"an em space and a thin space", "Customer\u2003\u2009Support", "Customer Support"},
		{"a full-width letter", "\uff23ustomer Support", "Customer Support"},
		{"all full-width", "\uff23\uff55\uff53\uff54\uff4f\uff4d\uff45\uff52", "customer"},
		{"a ligature", "O\ufb03ce", "office"},
		{"NFD and NFC", "Cafe\u0301", "Caf\u00e9"},
		{"NFD and NFC, differing in case too", "CAFE\u0301", "caf\u00e9"},
		{"Kelvin sign and K", "\u212aelvin", "kelvin"},
		{"Angstrom sign and Å", "\u212bngstr\u00f6m", "\u00e5ngstro\u0308m"},
		{"final sigma, sigma and capital sigma", "ΟΔΟΣ", "οδος"},
		{"sigma in the middle", "ΟΔΟΣ ΟΔΟΣ", "οδοσ οδος"},
		{"long s", "Cla\u017f\u017f", "class"},
		{"superscript two", "Team\u00b2", "Team2"},
		{"a circled digit", "Team \u2460", "team 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if ka, kb := workspace.TeamNameKey(tc.a), workspace.TeamNameKey(tc.b); ka != kb {
				t.Errorf("TeamNameKey(%q) = %q, TeamNameKey(%q) = %q: want one key", tc.a, ka, tc.b, kb)
			}
		})
	}
}

func TestTeamNamesThatAreDifferentNames(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"different letters", "Support", "Sales"},
		{"a space or none", "Customer Support", "CustomerSupport"},
		{"an accent or none", "Cafe", "Caf\u00e9"},
		{"dotted and dotless i are not case pairs in simple folding", "\u0131", "i"},
		{"a hyphen or a space", "Customer-Support", "Customer Support"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if workspace.TeamNameKey(tc.a) == workspace.TeamNameKey(tc.b) {
				t.Errorf("%q and %q make one key %q, want two", tc.a, tc.b, workspace.TeamNameKey(tc.a))
			}
		})
	}
}

func TestTeamNameKeyOfASCIIIsItsLowerCaseWithSingleSpaces(t *testing.T) {
	for name, want := range map[string]string{
		"Customer Support":         "customer support",
		"  Customer   Support \t ": "customer support",
		"R&D 2":                    "r&d 2",
	} {
		if got := workspace.TeamNameKey(name); got != want {
			t.Errorf("TeamNameKey(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestTeamNameIsStoredAsSentTrimmed(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"surrounding spaces", "  Support  ", "Support"},
		{"inner runs of spaces are kept", " Customer  Support ", "Customer  Support"},
		{"a full-width letter is kept", "\uff23ustomer Support", "\uff23ustomer Support"},
		{"NFD is kept", "Cafe\u0301", "Cafe\u0301"},
		{"surrounding tabs and newlines", "\t\nSupport\r\n", "Support"},
		{"surrounding ideographic spaces", "\u3000Support\u3000", "Support"},
		{"100 characters", strings.Repeat("ü", 100), strings.Repeat("ü", 100)},
		{"a letter with marks", "Z\u0351\u0364a\u0315lgo", "Z\u0351\u0364a\u0315lgo"},
		{"an emoji", "Support \U0001F680", "Support \U0001F680"},
		{"an emoji with a variation selector", "\u2764\ufe0f Team", "\u2764\ufe0f Team"},
		{"a Hangul syllable", "\ud55c\uad6d", "\ud55c\uad6d"},
		{"a mark after a visible letter", "e\u0301", "e\u0301"},
		{"a visible letter beside a Hangul filler", "A\u3164", "A\u3164"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := workspace.TeamName(tc.raw)
			if err != nil || got != tc.want {
				t.Errorf("TeamName(%q) = %q, %v; want %q", tc.raw, got, err, tc.want)
			}
		})
	}
}

func TestTeamNamesRefused(t *testing.T) {
	tests := []struct{ name, raw, wantErr string }{
		{"empty", "", "1 to 100 characters"},
		{"only spaces", "   ", "1 to 100 characters"},
		{"101 characters", strings.Repeat("a", 101), "1 to 100 characters"},
		// Control characters (Cc) inside the name.
		{"a NUL", "Sup\x00port", "control character"},
		{"a tab inside", "Customer\tSupport", "control character"},
		{"a newline inside", "Customer\nSupport", "control character"},
		{"an escape", "Support\x1b[31m", "control character"},
		{"DEL", "Support\x7f", "control character"},
		{"a C1 control", "Support\u0085Team", "control character"},
		// Format characters (Cf).
		{"a zero-width space", "Sup\u200bport", "format character"},
		{"a zero-width non-joiner", "Sup\u200cport", "format character"},
		{"a zero-width joiner", "Sup\u200dport", "format character"},
		{"a word joiner", "Sup\u2060port", "format character"},
		{"a byte order mark", "\ufeffSupport", "format character"},
		{"a right-to-left override", "Support\u202etxt.exe", "format character"},
		{"a left-to-right isolate", "\u2066Support\u2069", "format character"},
		{"a right-to-left mark", "Support\u200f", "format character"},
		{"a soft hyphen", "Sup\u00adport", "format character"},
		{"a Mongolian vowel separator", "Sup\u180eport", "format character"},
		{"an invisible times", "a\u2062b", "format character"},
		{"a tag character", "Support\U000E0041", "format character"},
		{"only a zero-width space", "\u200b", "format character"},
		// Nothing visible.
		{"a Hangul choseong filler", "\u115f", "visible character"},
		{"a Hangul jungseong filler", "\u1160", "visible character"},
		{"a Hangul filler", "\u3164", "visible character"},
		{"Hangul fillers", "\u3164\u3164\u3164", "visible character"},
		{"a half-width Hangul filler", "\uffa0", "visible character"},
		{"a braille blank", "\u2800", "visible character"},
		{"braille blanks and spaces", "\u2800 \u2800", "visible character"},
		{"a combining mark alone", "\u0301", "visible character"},
		{"combining marks alone", "\u0301\u0302\u0303", "visible character"},
		{"a combining grapheme joiner", "\u034f", "visible character"},
		{"a variation selector", "\ufe0f", "visible character"},
		{"a Khmer inherent vowel", "\u17b4", "visible character"},
		{"a Hangul filler between ideographic spaces", "\u3164\u3000\u3164", "visible character"},
		{"a musical null notehead", "\U0001D159", "visible character"},
		// Key-shaped text, and the normalized key's bound.
		{"key-shaped text", "wk_abcdefghijklmnopqrstuvwxyz0123456789AB", "looks like an API key"},
		{"100 characters NFKC expands past the key's bound", strings.Repeat("\ufdfa", 100), "normalized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := workspace.TeamName(tc.raw)
			if workspace.KindOf(err) != workspace.KindInvalid || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("TeamName(%q) = %q, %v; want a KindInvalid error mentioning %q", tc.raw, got, err, tc.wantErr)
			}
		})
	}
}

// TestEveryAcceptedNameHasAKeyThatFitsStorage: a name TeamName accepts has a
// key within MaxTeamNameKeyBytes, the bound of the claim's sort key.
func TestEveryAcceptedNameHasAKeyThatFitsStorage(t *testing.T) {
	for _, raw := range []string{
		strings.Repeat("\U0001F680", 100),
		strings.Repeat("\u3300", 80), // each becomes four katakana
		strings.Repeat("\ufdfa", 30),
		strings.Repeat("\u0390", 100),
	} {
		name, err := workspace.TeamName(raw)
		if err != nil {
			continue
		}
		if n := len(workspace.TeamNameKey(name)); n > workspace.MaxTeamNameKeyBytes {
			t.Errorf("TeamName accepted %q, whose key is %d bytes", raw, n)
		}
	}
}

func TestWhoMayCreateATeam(t *testing.T) {
	tests := []struct {
		role workspace.Role
		ok   bool
	}{
		{workspace.RoleAdmin, true},
		{workspace.RoleMember, false},
		{workspace.RoleCollaborator, false},
		{"", false},
	}
	for _, tc := range tests {
		err := workspace.CanCreateTeam(workspace.Caller{Role: tc.role})
		if (err == nil) != tc.ok || (err != nil && err != workspace.ErrCreateTeamForbidden) {
			t.Errorf("CanCreateTeam(role %q) = %v, want allowed=%v", tc.role, err, tc.ok)
		}
		if err != nil && workspace.KindOf(err) != workspace.KindForbidden {
			t.Errorf("CanCreateTeam(role %q): kind %v, want forbidden", tc.role, workspace.KindOf(err))
		}
	}
}

func TestWhoMayChangeATeam(t *testing.T) {
	tests := []struct {
		name       string
		role       workspace.Role
		roleInTeam workspace.TeamRole
		ok         bool
	}{
		{"a workspace admin in no team", workspace.RoleAdmin, "", true},
		{"a workspace admin who is a guest of the team", workspace.RoleAdmin, workspace.TeamRoleGuest, true},
		{"a Creator who is the team's admin", workspace.RoleMember, workspace.TeamRoleAdmin, true},
		{"a collaborator who is the team's admin", workspace.RoleCollaborator, workspace.TeamRoleAdmin, true},
		{"a Creator who is a member of the team", workspace.RoleMember, workspace.TeamRoleMember, false},
		{"a Creator who is a guest of the team", workspace.RoleMember, workspace.TeamRoleGuest, false},
		{"a Creator in no team", workspace.RoleMember, "", false},
		{"a collaborator in no team", workspace.RoleCollaborator, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := workspace.Caller{Role: tc.role}
			err := workspace.CanChangeTeam(c, tc.roleInTeam)
			if (err == nil) != tc.ok || (err != nil && err != workspace.ErrChangeTeamForbidden) {
				t.Errorf("CanChangeTeam = %v, want allowed=%v", err, tc.ok)
			}
			if workspace.NeedsTeamRole(c) == (tc.role == workspace.RoleAdmin) {
				t.Errorf("NeedsTeamRole = %v for role %q", workspace.NeedsTeamRole(c), tc.role)
			}
			// A right that rests on the team role holds with that role alone.
			if workspace.NeedsTeamRole(c) {
				if got := workspace.CanChangeTeamAsAdmin(tc.roleInTeam); got != err {
					t.Errorf("CanChangeTeamAsAdmin = %v, want %v as CanChangeTeam", got, err)
				}
			}
		})
	}
}

func TestAMembersRoleInATeam(t *testing.T) {
	m := workspace.Member{Teams: []workspace.MemberTeam{{TeamID: "team_a", Role: workspace.TeamRoleAdmin}, {TeamID: "team_b", Role: workspace.TeamRoleGuest}}}
	for team, want := range map[string]workspace.TeamRole{"team_a": "admin", "team_b": "guest", "team_c": ""} {
		if got := m.RoleIn(team); got != want {
			t.Errorf("RoleIn(%q) = %q, want %q", team, got, want)
		}
	}
}

func TestCheckMembershipIDsNamesTheTeamFirst(t *testing.T) {
	long := strings.Repeat("x", workspace.MaxIDLength+1)
	tests := []struct {
		name           string
		teamID, userID string
		want           error
	}{
		{"both plausible", "t1", "u1", nil},
		{"no team id", "", "u1", workspace.ErrTeamNotFound},
		{"a team id too long", long, "u1", workspace.ErrTeamNotFound},
		{"no user id", "t1", "", workspace.ErrMemberNotFound},
		{"neither: the team first", "", long, workspace.ErrTeamNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.CheckMembershipIDs(tc.teamID, tc.userID); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
