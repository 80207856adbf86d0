package workspace

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Team is a group of a workspace's members and agents that can share a monthly
// credit limit. Team settings must be enabled for the workspace to use teams.
type Team struct {
	ID          string
	WorkspaceID string // the owning workspace
	Name        string
	// MonthlyCreditLimit is the credits all of the team's agents may use
	// together per UTC calendar month; nil: no limit.
	MonthlyCreditLimit *float64
	Tags               []string
	CreatedAt          time.Time
}

// TeamMembership is one member's role in one team.
type TeamMembership struct {
	WorkspaceID string // the owning workspace
	TeamID      string
	UserID      string
	Role        TeamRole
}

// MaxTeamNameLength is the longest team name, in characters, after trimming.
const MaxTeamNameLength = 100

// MaxTeamNameKeyBytes bounds a team name's key (TeamNameKey), which names
// its claim in storage, where a sort key holds at most 1,024 bytes. Only
// names full of compatibility characters that NFKC expands (U+FDFA, one
// character, becomes 18) come near it.
const MaxTeamNameKeyBytes = 1000

// TeamName returns raw trimmed of surrounding white space, which is how the
// name is stored and shown, or a KindInvalid error unless it is
// DisplayText of at most MaxTeamNameLength characters whose key fits
// MaxTeamNameKeyBytes.
func TeamName(raw string) (string, error) {
	name, err := DisplayText("name", raw, MaxTeamNameLength)
	if err != nil {
		return "", err
	}
	if len(TeamNameKey(name)) > MaxTeamNameKeyBytes {
		return "", Invalid("name is too long once normalized: its compatibility characters (Unicode NFKC) expand it past %d bytes", MaxTeamNameKeyBytes)
	}
	return name, nil
}

// DisplayText is the one rule of every name and tag a client writes (team
// and key names, the tags of members, agents and teams; docs/bounds.md,
// Names and tags): it returns raw trimmed of surrounding white space, or a
// KindInvalid error naming field unless it is then 1 to maxLen characters,
// holds no control character (Cc: NUL included) and no format character
// (Cf: zero-width characters, bidi controls such as U+202E, the soft
// hyphen), holds something visible (see invisible) and holds no key-shaped
// text, which stored would be echoed by every read.
func DisplayText(field, raw string, maxLen int) (string, error) {
	text := strings.TrimSpace(raw)
	if n := utf8.RuneCountInString(text); n < 1 || n > maxLen {
		return "", Invalid("%s must be 1 to %d characters after trimming surrounding whitespace", field, maxLen)
	}
	visible := false
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Cc, r):
			return "", Invalid("%s holds %U, a control character: names and tags cannot hold control characters", field, r)
		case unicode.Is(unicode.Cf, r):
			return "", Invalid("%s holds %U, an invisible format character (zero-width, bidi control or soft hyphen): names and tags cannot hold format characters", field, r)
		case !invisible(r):
			visible = true
		}
	}
	if !visible {
		return "", Invalid("%s must hold at least one visible character", field)
	}
	if ContainsKey(text) {
		return "", Invalid("%s looks like an API key; keys go only in the Authorization header", field)
	}
	return text, nil
}

// invisible reports whether r shows nothing on its own: white space, a mark
// (it only modifies what precedes it), a control or format character, a
// default-ignorable letter (the Hangul fillers U+115F, U+1160, U+3164 and
// U+FFA0, U+034F, ...), or a symbol drawn blank (the braille blank U+2800,
// the null notehead U+1D159). A name made of these alone shows nothing.
func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsMark(r) ||
		unicode.In(r, unicode.Cc, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point) ||
		r == '\u2800' || r == '\U0001D159'
}

// TeamNameKey is what makes two team names the same (docs/endpoints.md,
// Teams): the name in Unicode NFKC (so canonically equivalent spellings,
// NFC or NFD, and compatibility forms such as full-width letters and
// ligatures are one), each letter folded to one representative of its case
// orbit (Unicode simple case folding: Σ, σ and ς make one key, as A and a
// do), and every run of white space made one space, with none around it.
// The key of a trimmed ASCII name with single spaces is its lower case.
func TeamNameKey(name string) string {
	folded := []rune(norm.NFKC.String(name))
	for i, r := range folded {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		folded[i] = unicode.ToLower(least)
	}
	// Folding can leave a string that is no longer in NFKC (a folded
	// letter that composes with what follows): normalize again, so two
	// names whose folded forms are equivalent make one key.
	return strings.Join(strings.FieldsFunc(norm.NFKC.String(string(folded)), unicode.IsSpace), " ")
}

// ErrDuplicateTeamName is the 409 of a create or rename to a name another
// team of the workspace has.
var ErrDuplicateTeamName = Conflict("a team with this name already exists in the workspace (names compare ignoring case, runs of white space and Unicode compatibility forms)")

// TeamDetail is a team as GET /workspaceapi/teams/{teamId} shows it: the
// team, its credit standing this UTC month, its members and its agents.
type TeamDetail struct {
	Team             Team
	CreditsThisMonth float64
	Paused           bool
	Members          []TeamMembership // in user id order
	AgentIDs         []string         // in id order
}

// MemberTeam is one team a member belongs to, as the members list shows it.
type MemberTeam struct {
	TeamID string
	Role   TeamRole
}

// RoleIn returns m's role in team teamID, or "" when m is not in it.
func (m Member) RoleIn(teamID string) TeamRole {
	for _, t := range m.Teams {
		if t.TeamID == teamID {
			return t.Role
		}
	}
	return ""
}

// CheckMembershipIDs is the rule before a team membership is written: an id
// that cannot be one names nothing, the team first (ErrTeamNotFound), then
// the member (ErrMemberNotFound).
func CheckMembershipIDs(teamID, userID string) error {
	if !PlausibleID(teamID) {
		return ErrTeamNotFound
	}
	if !PlausibleID(userID) {
		return ErrMemberNotFound
	}
	return nil
}
