package workspace

import (
	"slices"
	"time"
)

// Rules of the keys endpoints (docs/api-keys.md): a workspace admin's
// workspace-wide key manages the workspace's keys; a new key acts as its
// creator's user, and a key makes or changes only keys it covers
// (CoversKey).
const (
	// MaxLiveKeys is how many keys a workspace may hold that are neither
	// revoked nor expired.
	MaxLiveKeys = 100
	// MaxKeyNameLength is the longest key name, in characters, after trimming.
	MaxKeyNameLength = 100
	// DefaultKeyExpiryDays, MinKeyExpiryDays and MaxKeyExpiryDays bound
	// expiresInDays of a new key.
	DefaultKeyExpiryDays = 90
	MinKeyExpiryDays     = 1
	MaxKeyExpiryDays     = 365
	// LastUsedResolution is how stale a key's lastUsedAt may be: the
	// authorizer writes it at most once per key per this period.
	LastUsedResolution = time.Hour
	// KeyIDPrefix starts the id of every key the service issues.
	KeyIDPrefix = "key_"
)

// ErrManageKeysForbidden is the 403 of a keys endpoint called with a key
// whose owner is not a workspace admin.
var ErrManageKeysForbidden = Forbidden("only workspace admins can manage API keys")

// ErrKeyLimit is the 409 of a key that would take the workspace past
// MaxLiveKeys.
var ErrKeyLimit = Conflict("this workspace already has %d API keys that are neither revoked nor expired; revoke one first", MaxLiveKeys)

// CanManageKeys returns a KindForbidden error unless c may call the keys
// endpoints: a workspace-wide key whose owner is a workspace admin.
func CanManageKeys(c Caller) error { return workspaceAdmin(c, ErrManageKeysForbidden) }

// workspaceAdmin returns a KindForbidden error unless c is a workspace-wide
// key of a workspace admin: RequireWorkspaceWide's, or refused.
func workspaceAdmin(c Caller, refused error) error {
	if err := c.RequireWorkspaceWide(); err != nil {
		return err
	}
	if c.Role != RoleAdmin {
		return refused
	}
	return nil
}

// KeyName returns raw trimmed, or a KindInvalid error unless it is
// DisplayText of 1 to MaxKeyNameLength characters.
func KeyName(raw string) (string, error) { return DisplayText("name", raw, MaxKeyNameLength) }

// KeyRequest is the body of POST /workspaceapi/keys.
type KeyRequest struct {
	Name          *string          `json:"name"`
	Scopes        []string         `json:"scopes"`
	TeamID        Nullable[string] `json:"teamId"` // null or omitted: a workspace-wide key
	ExpiresInDays *int             `json:"expiresInDays"`
}

// NewKeySpec is a checked KeyRequest.
type NewKeySpec struct {
	Name       string
	Scopes     []Scope
	TeamID     string
	ExpiryDays int
}

// Check returns the request's checked values, or a KindInvalid error: name
// required (KeyName); scopes 1 to 3 known scopes without repeats; teamId,
// when given, an id (a longer one is KindNotFound, as ids are); and
// expiresInDays, when given, 1 to 365 (default 90). It reads nothing.
func (r KeyRequest) Check() (NewKeySpec, error) {
	if r.Name == nil {
		return NewKeySpec{}, Invalid("name is required")
	}
	name, err := KeyName(*r.Name)
	if err != nil {
		return NewKeySpec{}, err
	}
	scopes, err := keyScopes(r.Scopes)
	if err != nil {
		return NewKeySpec{}, err
	}
	spec := NewKeySpec{Name: name, Scopes: scopes, ExpiryDays: DefaultKeyExpiryDays}
	if r.ExpiresInDays != nil {
		if d := *r.ExpiresInDays; d < MinKeyExpiryDays || d > MaxKeyExpiryDays {
			return NewKeySpec{}, Invalid("expiresInDays must be %d to %d", MinKeyExpiryDays, MaxKeyExpiryDays)
		}
		spec.ExpiryDays = *r.ExpiresInDays
	}
	if team, ok := r.TeamID.Get(); ok {
		if !PlausibleID(team) {
			return NewKeySpec{}, ErrTeamNotFound
		}
		spec.TeamID = team
	}
	return spec, nil
}

// keyScopes checks a new key's scopes: 1 to 3, each a known scope, none twice.
func keyScopes(raw []string) ([]Scope, error) {
	const all = 3 // read, write, invite
	if len(raw) < 1 || len(raw) > all {
		return nil, Invalid("scopes must hold 1 to %d of read, write and invite", all)
	}
	scopes := make([]Scope, 0, len(raw))
	for i, s := range raw {
		sc := Scope(s)
		if !sc.Valid() {
			return nil, Invalid("scopes[%d] must be read, write or invite", i)
		}
		if slices.Contains(scopes, sc) {
			return nil, Invalid("scopes[%d] repeats a scope", i)
		}
		scopes = append(scopes, sc)
	}
	return scopes, nil
}

// CoversKey returns a KindForbidden error unless caller c's key covers k,
// so that a key never makes or changes a key that may do more than itself
// (docs/api-keys.md, Who may): k's scopes are among c's own, k is of c's
// team when c is team-scoped, and k expires no later than c's key (a key
// that never expires is covered only by another that never does). It
// reads nothing: the create checks the key it is about to store, a change
// the key it read.
func CoversKey(c Caller, k APIKey) error {
	for _, s := range k.Scopes {
		if !c.Has(s) {
			return Forbidden("a key made or changed by this API key must hold only its scopes; it lacks %q", s)
		}
	}
	if c.TeamScoped() && k.TeamID != c.TeamID {
		return Forbidden("a team-scoped API key can make or change keys of its own team only")
	}
	if c.ExpiresAt != nil && (k.ExpiresAt == nil || k.ExpiresAt.After(*c.ExpiresAt)) {
		return Forbidden("a key made or changed by this API key must not outlive it: this key expires at %s (ask for fewer expiresInDays)", FormatTime(*c.ExpiresAt))
	}
	return nil
}

// NewAPIKey is the key spec makes for caller at now: it acts as the caller's
// user in the caller's workspace and expires spec.ExpiryDays days later.
func NewAPIKey(id, hash string, spec NewKeySpec, c Caller, now time.Time) APIKey {
	exp := now.Add(time.Duration(spec.ExpiryDays) * 24 * time.Hour)
	return APIKey{
		ID: id, Hash: hash, Name: spec.Name, WorkspaceID: c.WorkspaceID, UserID: c.UserID,
		Scopes: spec.Scopes, TeamID: spec.TeamID, ExpiresAt: &exp, CreatedAt: now,
	}
}

// KeyChange is a checked body of PATCH /workspaceapi/keys/{keyId}: the new
// name and/or disabled flag, nil where unchanged.
type KeyChange struct {
	Name     *string
	Disabled *bool
	// By is the API caller making the change, whose key must cover the
	// changed key (CoversKey, Permits); nil only for an operator's change
	// (wsadmin), which no key limits.
	By *Caller
}

// Permits returns nil when the change may be made to k, as read: an
// operator's always, an API caller's when its key covers k (CoversKey),
// whatever the change, so a key can neither re-enable nor rename a key
// that may do more than itself.
func (ch KeyChange) Permits(k APIKey) error {
	if ch.By == nil {
		return nil
	}
	return CoversKey(*ch.By, k)
}

// KeyPatch is the body of PATCH /workspaceapi/keys/{keyId}.
type KeyPatch struct {
	Name     *string `json:"name"`
	Disabled *bool   `json:"disabled"`
}

// Check returns the change caller by asks for, or a KindInvalid error when
// it names neither field or the name breaks KeyName. It reads nothing.
func (p KeyPatch) Check(by Caller) (KeyChange, error) {
	if p.Name == nil && p.Disabled == nil {
		return KeyChange{}, Invalid("give name and/or disabled")
	}
	ch := KeyChange{Disabled: p.Disabled, By: &by}
	if p.Name != nil {
		name, err := KeyName(*p.Name)
		if err != nil {
			return KeyChange{}, err
		}
		ch.Name = &name
	}
	return ch, nil
}

// NeedsLastUsed reports whether the authorizer should record k's use at
// now: its lastUsedAt is unset or older than LastUsedResolution. The write
// itself is conditioned the same way, so racing authorizers write once.
func (k APIKey) NeedsLastUsed(now time.Time) bool {
	return k.LastUsedAt == nil || k.LastUsedAt.Before(now.Add(-LastUsedResolution))
}
