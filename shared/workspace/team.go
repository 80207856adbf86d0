package workspace

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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

// TeamName returns raw trimmed of surrounding whitespace, or a KindInvalid
// error unless it is then 1 to MaxTeamNameLength characters and holds no
// key-shaped text.
func TeamName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	if n := utf8.RuneCountInString(name); n < 1 || n > MaxTeamNameLength {
		return "", Invalid("name must be 1 to %d characters after trimming surrounding whitespace", MaxTeamNameLength)
	}
	if ContainsKey(name) {
		// Stored, it would be echoed by every read of the team (docs/bounds.md).
		return "", Invalid("name looks like an API key; keys go only in the Authorization header")
	}
	return name, nil
}

// TeamNameKey is what makes two team names the same: names compare
// case-insensitively after trimming (docs/endpoints.md, Teams).
//
// Each letter is folded to one representative of its case orbit (Unicode
// simple case folding), so Σ, σ and ς make one key, as A and a do; the key
// of an ASCII name is its lower case.
func TeamNameKey(name string) string {
	trimmed := strings.TrimSpace(name)
	var b strings.Builder
	b.Grow(len(trimmed))
	for _, r := range trimmed {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(unicode.ToLower(least))
	}
	return b.String()
}

// ErrDuplicateTeamName is the 409 of a create or rename to a name another
// team of the workspace has.
var ErrDuplicateTeamName = Conflict("a team with this name already exists in the workspace (names compare case-insensitively)")

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
