// Package workspace holds the domain of the Workspace Administration API: its
// entities, their rules and the typed errors every layer speaks. It imports no
// AWS package, so the rules can be tested without any infrastructure.
package workspace

import (
	"errors"
	"fmt"
)

// Kind classifies a domain error; the HTTP layer maps each kind to one status.
type Kind uint8

// The kinds of domain error.
const (
	KindInvalid          Kind = iota + 1 // the request breaks a rule: 400
	KindUnauthorized                     // no valid credential: 401
	KindForbidden                        // authenticated but not allowed: 403
	KindNotFound                         // the entity does not exist for this caller: 404
	KindConflict                         // the request collides with existing state: 409
	KindTooLarge                         // the request body is too large: 413
	KindUnsupportedMedia                 // the request body is not JSON: 415
	KindUnavailable                      // a dependency failed; retrying may help: 503
	KindUnprocessable                    // a well-formed request that cannot be applied as sent: 422
)

// Error is a domain error whose message is safe to show to the API's caller.
type Error struct {
	Kind    Kind
	Message string
}

// Error returns the caller-facing message.
func (e *Error) Error() string { return e.Message }

func newError(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a KindInvalid error with a formatted message.
func Invalid(format string, args ...any) error { return newError(KindInvalid, format, args...) }

// Unauthorized returns a KindUnauthorized error with a formatted message.
func Unauthorized(format string, args ...any) error {
	return newError(KindUnauthorized, format, args...)
}

// Forbidden returns a KindForbidden error with a formatted message.
func Forbidden(format string, args ...any) error { return newError(KindForbidden, format, args...) }

// NotFound returns a KindNotFound error with a formatted message.
func NotFound(format string, args ...any) error { return newError(KindNotFound, format, args...) }

// Conflict returns a KindConflict error with a formatted message.
func Conflict(format string, args ...any) error { return newError(KindConflict, format, args...) }

// TooLarge returns a KindTooLarge error with a formatted message.
func TooLarge(format string, args ...any) error { return newError(KindTooLarge, format, args...) }

// UnsupportedMedia returns a KindUnsupportedMedia error with a formatted message.
func UnsupportedMedia(format string, args ...any) error {
	return newError(KindUnsupportedMedia, format, args...)
}

// Unavailable returns a KindUnavailable error with a formatted message.
func Unavailable(format string, args ...any) error {
	return newError(KindUnavailable, format, args...)
}

// Unprocessable returns a KindUnprocessable error with a formatted message.
func Unprocessable(format string, args ...any) error {
	return newError(KindUnprocessable, format, args...)
}

// KindOf returns the kind of the first domain error in err's chain, or 0 when
// err is not a domain error (an internal failure).
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// IsBusy reports whether err is a KindUnavailable domain error, such as
// ErrBusy: a failure the caller may retry.
func IsBusy(err error) bool { return KindOf(err) == KindUnavailable }

// IsNotFound reports whether err is a KindNotFound domain error.
func IsNotFound(err error) bool { return KindOf(err) == KindNotFound }

// Not-found errors the store returns, so each message is written once. An
// entity of another workspace, or outside a team-scoped key's team, is
// reported with the same error as one that does not exist.
var (
	ErrWorkspaceNotFound  = NotFound("workspace not found")
	ErrMemberNotFound     = NotFound("member not found")
	ErrTeamNotFound       = NotFound("team not found")
	ErrAgentNotFound      = NotFound("agent not found")
	ErrInvitationNotFound = NotFound("invitation not found")
	ErrAPIKeyNotFound     = NotFound("API key not found")
)

// ErrNotInTeam is the removal from a team of a workspace member who is not
// in it: for a team-scoped key such a member is outside its team, and is
// answered exactly as one that does not exist (ErrMemberNotFound's 404 and
// message); for any other key nothing is to remove (RemovalOfNonMember).
var ErrNotInTeam = NotFound("member not found")

// RemovalOfNonMember is the answer to c's removal of a workspace member from
// a team they are not in: none (the DELETE succeeds, so a retry does too),
// or, for a team-scoped key, the not-found of a member it cannot see.
func RemovalOfNonMember(c Caller) error {
	if c.TeamScoped() {
		return ErrNotInTeam
	}
	return nil
}

// ErrBusy is the 503 of a write that kept losing races with other writes to
// the same items (DynamoDB cancels transactions that meet): nothing of it was
// applied that a retry would repeat wrongly, so the caller may simply retry.
var ErrBusy = Unavailable("other requests kept changing the same data at the same moment; nothing conflicting was applied, retry the request")

// ErrStorageUnavailable is the 503 of a request whose storage could not be
// reached in time, or kept throttling or failing: what it had not written
// was not written, so the caller may retry (with the Retry-After it is told).
var ErrStorageUnavailable = Unavailable("the service's storage is unavailable right now; nothing more was applied, retry the request shortly")

// MessageOf returns the caller-facing message of the first domain error in
// err's chain, and "" when err holds none: a domain error wrapped with
// context for the logs still shows the caller only its own message.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return ""
}

// ErrTeamLimitUnsettled is the 503 of a team credit-limit change whose limit
// was written but whose pause could not be settled against usage that
// landed meanwhile (it kept losing races): the same request again answers
// unchanged and settles it.
var ErrTeamLimitUnsettled = Unavailable("the limit was set, but whether the team is paused could not be settled while other requests changed it; send the same request again")

// ErrTeamSettingsOff is the 400 of every team endpoint while the workspace
// has team settings off (docs/endpoints.md, Teams).
var ErrTeamSettingsOff = Invalid("team settings are not enabled for this workspace")
