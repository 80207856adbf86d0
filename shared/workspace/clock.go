package workspace

import (
	"crypto/rand"
	"strings"
	"time"
)

// Clock tells the time; injected so tests control it.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// IDGenerator makes new entity ids; injected so tests control them.
type IDGenerator interface {
	// NewID returns a fresh id starting with prefix (such as "inv_"), or an
	// error when no randomness is available.
	NewID(prefix string) (string, error)
}

// SortableIDs generates ids made of the prefix, the creation time in
// milliseconds and 80 random bits, in Crockford base32 (26 characters, like a
// ULID), so ids of one kind sort in creation order.
type SortableIDs struct {
	Clock Clock
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewID returns prefix followed by a 26-character sortable id: 10 characters of
// the millisecond time, 16 of randomness. It fails only when the system's
// random source fails.
func (g SortableIDs) NewID(prefix string) (string, error) {
	var clock Clock = SystemClock{}
	if g.Clock != nil {
		clock = g.Clock
	}
	var random [16]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", err
	}
	ms := uint64(clock.Now().UnixMilli())
	var sb strings.Builder
	sb.Grow(len(prefix) + 26)
	sb.WriteString(prefix)
	for i := 9; i >= 0; i-- {
		sb.WriteByte(crockford[(ms>>(5*uint(i)))&31])
	}
	for _, b := range random {
		sb.WriteByte(crockford[b&31])
	}
	return sb.String(), nil
}

// TimeFormat is how every timestamp leaves the service: RFC 3339 in UTC with
// milliseconds and a Z suffix.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ParseTime parses an RFC 3339 timestamp with any offset; it returns a
// KindInvalid error naming field when s is not one.
func ParseTime(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, Invalid("%s must be an RFC 3339 timestamp", field)
	}
	return t.UTC(), nil
}
