package httpapi

import (
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// QueryTime reads the query parameter name as an ISO timestamp (RFC 3339,
// any offset) or an ISO date (YYYY-MM-DD, its UTC midnight), in UTC; set is
// false when it is absent. Anything else is a KindInvalid error naming the
// parameter.
func QueryTime(r *http.Request, name string) (t time.Time, set bool, err error) {
	s, set, err := queryValue(r, name)
	if err != nil || !set {
		return time.Time{}, false, err
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil && len(s) == len(time.DateOnly) {
		return d.UTC(), true, nil
	}
	t, err = time.Parse(time.RFC3339Nano, s)
	if err != nil || !rfc3339Shape(s) {
		return time.Time{}, false, workspace.Invalid("%s must be an ISO date (YYYY-MM-DD) or an RFC 3339 timestamp", name)
	}
	return t.UTC(), true, nil
}

// QueryString reads the query parameter name as it is; set is false when it
// is absent. A parameter given twice is a KindInvalid error.
func QueryString(r *http.Request, name string) (v string, set bool, err error) {
	return queryValue(r, name)
}

// QueryDate reads the query parameter name as a UTC calendar day written
// YYYY-MM-DD and returns its midnight; set is false when it is absent.
// Anything else (a timestamp, "2026-2-3", "2026-02-30") is a KindInvalid
// error naming the parameter.
func QueryDate(r *http.Request, name string) (day time.Time, set bool, err error) {
	s, set, err := queryValue(r, name)
	if err != nil || !set {
		return time.Time{}, false, err
	}
	d, err := time.Parse(time.DateOnly, s)
	if len(s) != len(time.DateOnly) || err != nil {
		return time.Time{}, false, workspace.Invalid("%s must be a date written YYYY-MM-DD", name)
	}
	return d.UTC(), true, nil
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
