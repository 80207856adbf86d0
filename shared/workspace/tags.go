package workspace

import (
	"fmt"
	"slices"
)

// Tag limits (docs/endpoints.md, Tags).
const (
	// MaxTags is the most tags one request may list and one entity may hold.
	MaxTags = 50
	// MaxTagLength is the longest tag, in characters.
	MaxTagLength = 50
)

// Tag returns raw trimmed, or a KindInvalid error naming field unless it is
// DisplayText of 1 to MaxTagLength characters: tags follow the rule of
// every name.
func Tag(field, raw string) (string, error) { return DisplayText(field, raw, MaxTagLength) }

// TagMode says how a tag write combines the listed tags with an entity's.
type TagMode string

// Tag modes. TagModeAdd is the default.
const (
	TagModeAdd    TagMode = "add"
	TagModeRemove TagMode = "remove"
	TagModeSet    TagMode = "set"
)

// Valid reports whether m is a tag mode.
func (m TagMode) Valid() bool { return m == TagModeAdd || m == TagModeRemove || m == TagModeSet }

// Taggable is a kind of entity that carries tags: one implementation of the
// tag writes serves every kind, parameterised by it.
type Taggable string

// The kinds of taggable entity.
const (
	TaggableMember Taggable = "member"
	TaggableAgent  Taggable = "agent"
	TaggableTeam   Taggable = "team"
)

// NotFound returns the per-id error of an id of kind k that the caller
// cannot see.
func (k Taggable) NotFound() error {
	switch k {
	case TaggableMember:
		return ErrMemberNotFound
	case TaggableTeam:
		return ErrTeamNotFound
	}
	return ErrAgentNotFound
}

// InScope reports whether the entity of kind k with id id (of team teamID,
// for an agent) is visible to a key of team scope ("" for a workspace-wide
// key): an agent of that team, the team itself; members are workspace-wide,
// so a team-scoped key sees none.
func (k Taggable) InScope(id, teamID, scope string) bool {
	switch {
	case scope == "":
		return true
	case k == TaggableTeam:
		return id == scope
	case k == TaggableAgent:
		return teamID == scope
	}
	return false
}

// ErrTooManyTags is the per-id failure of an add that would take an entity
// past MaxTags: the entity is left as it was.
var ErrTooManyTags = Invalid("an entity holds at most %d tags; this change would exceed that, so nothing was changed", MaxTags)

// TagChange is one tag write: its mode and the tags it lists, checked by
// NewTagChange.
type TagChange struct {
	Mode TagMode
	Tags []string // without repeats, in first-listed order
}

// NewTagChange checks a request's tags and mode and returns the change.
// Tags are required; at most MaxTags, each a Tag (KindInvalid errors naming
// the position). An empty mode is TagModeAdd. Repeats collapse: a tag is a
// case-sensitive string, kept as given once trimmed.
func NewTagChange(tags []string, mode TagMode) (TagChange, error) {
	if tags == nil {
		return TagChange{}, Invalid("tags is required: an array of strings ([] with mode set clears all tags)")
	}
	if len(tags) > MaxTags {
		return TagChange{}, Invalid("tags may list at most %d tags", MaxTags)
	}
	checked := make([]string, len(tags))
	for i, t := range tags {
		tag, err := Tag(fmt.Sprintf("tags[%d]", i), t)
		if err != nil {
			return TagChange{}, err
		}
		checked[i] = tag
	}
	if mode == "" {
		mode = TagModeAdd
	}
	if !mode.Valid() {
		return TagChange{}, Invalid("mode must be add, remove or set")
	}
	return TagChange{Mode: mode, Tags: uniqueTags(checked)}, nil
}

// Apply returns the tags an entity holding current holds after the change,
// and whether they differ from current as a set (order alone is no change:
// set with the same tags in another order is unchanged, and leaves the
// stored order as it was). It returns ErrTooManyTags when the result would
// hold more than MaxTags tags; only an add can, since a set lists at most
// MaxTags and a remove only shrinks.
func (c TagChange) Apply(current []string) (next []string, changed bool, err error) {
	current = uniqueTags(current)
	switch c.Mode {
	case TagModeSet:
		next = slices.Clone(c.Tags)
	case TagModeRemove:
		next = slices.DeleteFunc(slices.Clone(current), func(t string) bool { return slices.Contains(c.Tags, t) })
	default:
		next = slices.Clone(current)
		for _, t := range c.Tags {
			if !slices.Contains(next, t) {
				next = append(next, t)
			}
		}
	}
	if sameTags(current, next) {
		return current, false, nil
	}
	if len(next) > MaxTags {
		return current, false, ErrTooManyTags
	}
	return next, true, nil
}

// uniqueTags returns tags without repeats, first occurrence kept; never nil.
func uniqueTags(tags []string) []string {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// sameTags reports whether a and b, each without repeats, hold the same tags.
func sameTags(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range a {
		if !slices.Contains(b, t) {
			return false
		}
	}
	return true
}

// TagOutcome is one id's result of a tag write.
type TagOutcome struct {
	ID        string
	Name      string // empty when the entity was not found
	Tags      []string
	Unchanged bool
	Err       error
}

// DisplayOutcome is one agent's result of a credit-details write: whether
// its chats show per-message credit details now.
type DisplayOutcome struct {
	ID        string
	Name      string // empty when the agent was not found
	Show      bool
	Unchanged bool
	Err       error
}
