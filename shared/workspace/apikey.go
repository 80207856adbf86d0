package workspace

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Scope is a permission an API key carries.
type Scope string

// The scopes (docs/api-rules.md): GET needs read; POST, PUT, PATCH and DELETE need
// write, except POST and DELETE on /workspaceapi/invites, which need invite.
const (
	ScopeRead   Scope = "read"
	ScopeWrite  Scope = "write"
	ScopeInvite Scope = "invite"
)

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return s == ScopeRead || s == ScopeWrite || s == ScopeInvite }

// KeyPrefix starts every workspace API key.
const KeyPrefix = "wk_"

// minKeySecret is the least number of base62 characters after the prefix.
const minKeySecret = 32

// keySecretLength is the number of base62 characters of keys this service issues.
const keySecretLength = 40

// APIKey is a stored workspace API key. Only the hash of its plaintext is kept.
type APIKey struct {
	ID          string
	Hash        string // hex SHA-256 of the whole plaintext key
	Name        string
	WorkspaceID string
	UserID      string // the owner member the key acts as
	Scopes      []Scope
	TeamID      string     // non-empty for a team-scoped key
	ExpiresAt   *time.Time // nil: never expires
	Disabled    bool
	CreatedAt   time.Time
	// LastUsedAt is when the authorizer last recorded the key's use, at most
	// once per LastUsedResolution; nil: never recorded.
	LastUsedAt *time.Time
}

// Usable reports whether the key may authenticate at now: not disabled and not expired.
func (k APIKey) Usable(now time.Time) bool {
	return !k.Disabled && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// OwnerMayUse reports whether k may act for its owner, the workspace member
// owner as just read: a workspace-wide key always; a team-scoped key while
// its owner may still act for that team, as a workspace admin (the role
// every key maker needs) or as one of the team's members in any team role.
// A team key of a member who left the team, or of an admin who was
// demoted and is not in it, stops working (docs/api-keys.md).
func (k APIKey) OwnerMayUse(owner Member) bool {
	return k.TeamID == "" || owner.Role == RoleAdmin || owner.RoleIn(k.TeamID) != ""
}

// HashKey returns the hex SHA-256 of a plaintext key, the only form stored.
func HashKey(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// WellFormedKey reports whether s looks like a workspace key: "wk_" followed by
// at least 32 base62 characters. It says nothing of whether the key exists.
func WellFormedKey(s string) bool {
	secret, ok := strings.CutPrefix(s, KeyPrefix)
	if !ok || len(secret) < minKeySecret {
		return false
	}
	for i := 0; i < len(secret); i++ {
		if c := secret[i]; !(isLetter(c) || isDigit(c)) {
			return false
		}
	}
	return true
}

// BearerToken returns the token of an "Authorization: Bearer <token>" header
// value; ok is false when the value is not a bearer credential.
func BearerToken(header string) (token string, ok bool) {
	scheme, token, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewKeyPlaintext returns a fresh random key: "wk_" and 40 base62 characters.
// It fails only when the system's random source fails.
func NewKeyPlaintext() (string, error) {
	secret, err := randomString(keySecretLength, base62)
	if err != nil {
		return "", err
	}
	return KeyPrefix + secret, nil
}

// randomString draws n characters of alphabet uniformly from crypto/rand.
func randomString(n int, alphabet string) (string, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, n*2)
	limit := 256 - 256%len(alphabet) // reject bytes that would bias the draw
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < n {
				out = append(out, alphabet[int(b)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}
