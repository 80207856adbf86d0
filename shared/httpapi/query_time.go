package httpapi

import (
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// QueryTime reads the query parameter name as an ISO timestamp (RFC 3339,
// any offset) or an ISO date (YYYY-MM-DD, its UTC midnight), in UTC; set is
// false when it is absent. Anything else, or a year as written outside 1970
// to 9999, is a KindInvalid error naming the parameter
// (workspace.InAPIYears, like every date, month and year parameter). A time
// of year 9999 whose offset takes it past the last instant in UTC reads as
// the last instant (workspace.LatestTime): the periods the API speaks of
// end there (docs/bounds.md), and no stored key's time has a five-digit
// year, which would sort before every other; one of 1970 that its offset
// takes before 1970 reads as 1970's first instant.
func QueryTime(r *http.Request, name string) (t time.Time, set bool, err error) {
	s, set, err := queryValue(r, name)
	if err != nil || !set {
		return time.Time{}, false, err
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil && len(s) == len(time.DateOnly) {
		return inYears(name, d)
	}
	t, err = workspace.ParseTimeAsWritten(name, s)
	if err != nil {
		return time.Time{}, false, workspace.Invalid("%s must be an ISO date (YYYY-MM-DD) or an RFC 3339 timestamp", name)
	}
	return inYears(name, t)
}

// inYears is workspace.InAPIYears for a parameter that is set.
func inYears(name string, written time.Time) (time.Time, bool, error) {
	t, err := workspace.InAPIYears(name, written)
	return t, err == nil, err
}

// QueryString reads the query parameter name as it is; set is false when it
// is absent. A parameter given twice is a KindInvalid error.
func QueryString(r *http.Request, name string) (v string, set bool, err error) {
	return queryValue(r, name)
}

// QueryDate reads the query parameter name as a UTC calendar day written
// YYYY-MM-DD and returns its midnight; set is false when it is absent.
// Anything else (a timestamp, "2026-2-3", "2026-02-30", a year outside 1970
// to 9999: workspace.InAPIYears) is a KindInvalid error naming the
// parameter.
func QueryDate(r *http.Request, name string) (day time.Time, set bool, err error) {
	s, set, err := queryValue(r, name)
	if err != nil || !set {
		return time.Time{}, false, err
	}
	d, err := time.Parse(time.DateOnly, s)
	if len(s) != len(time.DateOnly) || err != nil {
		return time.Time{}, false, workspace.Invalid("%s must be a date written YYYY-MM-DD", name)
	}
	return inYears(name, d)
}
