package httpapi

import (
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// QueryTime reads the query parameter name as an ISO timestamp (RFC 3339,
// any offset) or an ISO date (YYYY-MM-DD, its UTC midnight), in UTC; set is
// false when it is absent. Anything else is a KindInvalid error naming the
// parameter. A time of year 9999 whose offset takes it past the last
// instant in UTC reads as the last instant (workspace.LatestTime): the
// periods the API speaks of end there (docs/bounds.md), and no stored key's
// time has a five-digit year, which would sort before every other.
func QueryTime(r *http.Request, name string) (t time.Time, set bool, err error) {
	s, set, err := queryValue(r, name)
	if err != nil || !set {
		return time.Time{}, false, err
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil && len(s) == len(time.DateOnly) {
		return d.UTC(), true, nil
	}
	t, err = workspace.ParseTime(name, s)
	if err != nil {
		return time.Time{}, false, workspace.Invalid("%s must be an ISO date (YYYY-MM-DD) or an RFC 3339 timestamp", name)
	}
	return workspace.NotAfterLatest(t), true, nil
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
