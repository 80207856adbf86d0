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

// ParseTime parses an RFC 3339 timestamp with any offset, in UTC; it
// returns a KindInvalid error naming field when s is not one, written as
// RFC 3339 writes it (rfc3339Shape).
func ParseTime(field, s string) (time.Time, error) {
	t, err := ParseTimeAsWritten(field, s)
	return t.UTC(), err
}

// ParseTimeAsWritten is ParseTime keeping the offset s was written in, so
// that its year is the year as written (InAPIYears).
func ParseTimeAsWritten(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !rfc3339Shape(s) {
		return time.Time{}, Invalid("%s must be an RFC 3339 timestamp", field)
	}
	return t, nil
}

// The years every date, month, year and time parameter of the API takes
// (docs/bounds.md, Numbers): 400 outside them, on every route alike.
const (
	MinYear = 1970
	MaxYear = 9999
)

// InAPIYears is the one rule of the years of every date and time
// parameter: it returns written in UTC, or a KindInvalid error naming field
// unless its year as written (in the offset it was written in) is MinYear
// to MaxYear. An offset that takes such a time outside them in UTC reads as
// the nearest edge: EarliestMetricTime (1970's first instant) or LatestTime
// (9999's last), so a period never widens past them.
func InAPIYears(field string, written time.Time) (time.Time, error) {
	if y := written.Year(); y < MinYear || y > MaxYear {
		return time.Time{}, Invalid("%s must lie in the years %d to %d", field, MinYear, MaxYear)
	}
	return NotAfterLatest(NotBeforeEarliest(written.UTC())), nil
}

// rfc3339Shape reports whether s is written as RFC 3339's date-time says,
// which time.Parse does not hold to (golang/go issues 29911, 54568): two
// digits of hour, a fraction after a period only, and an offset of Z or
// ±hh:mm within 23:59. time.Parse checks the values.
func rfc3339Shape(s string) bool {
	const base = "0000-00-00T00:00:00"
	if len(s) < len(base)+1 {
		return false
	}
	for i := range len(base) {
		if digit := base[i] == '0'; digit != (s[i] >= '0' && s[i] <= '9') || (!digit && s[i] != base[i]) {
			return false
		}
	}
	rest := s[len(base):]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return false
		}
		rest = rest[n:]
	}
	if rest == "Z" {
		return true
	}
	return len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' &&
		twoDigits(rest[1:3], 23) && twoDigits(rest[4:6], 59)
}

// twoDigits reports whether s is two digits whose value is at most limit.
func twoDigits(s string, limit int) bool {
	return len(s) == 2 && s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9' &&
		int(s[0]-'0')*10+int(s[1]-'0') <= limit
}
