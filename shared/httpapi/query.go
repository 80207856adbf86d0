package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// queryValue returns the one value of query parameter name; set is false when
// it is absent. A parameter given more than once is a KindInvalid error, so
// that no layer quietly picks one of them.
func queryValue(r *http.Request, name string) (v string, set bool, err error) {
	vals, ok := r.URL.Query()[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vals) > 1:
		return "", false, workspace.Invalid("%s must be given at most once", name)
	}
	return vals[0], true, nil
}

// QueryInt reads the integer query parameter name, which must lie within
// [lo, hi]; set is false when it is absent. Anything else (a fraction, text,
// out of range) is a KindInvalid error naming the parameter and its range.
func QueryInt(r *http.Request, name string, lo, hi int) (v int, set bool, err error) {
	s, set, err := queryValue(r, name)
	if err != nil || !set {
		return 0, false, err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, false, workspace.Invalid("%s must be an integer from %d to %d", name, lo, hi)
	}
	return n, true, nil
}

// QueryBool reads the boolean query parameter name: exactly "true" or
// "false"; set is false when it is absent. Anything else ("1", "yes", "",
// "TRUE") is a KindInvalid error naming the parameter.
func QueryBool(r *http.Request, name string) (v, set bool, err error) {
	s, set, err := queryValue(r, name)
	if err != nil || !set {
		return false, false, err
	}
	switch s {
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, workspace.Invalid("%s must be true or false", name)
}

// QueryMonth reads the query parameter name as a UTC calendar month
// "YYYY-MM" and returns its first instant; set is false when it is absent.
// Anything else ("march", "2026-13", "2026-1", a date, a year outside 1970
// to 9999: workspace.InAPIYears) is a KindInvalid error naming the
// parameter.
func QueryMonth(r *http.Request, name string) (month time.Time, set bool, err error) {
	s, set, err := queryValue(r, name)
	if err != nil || !set {
		return time.Time{}, false, err
	}
	m, err := time.Parse(monthLayout, s)
	if len(s) != len(monthLayout) || err != nil {
		return time.Time{}, false, workspace.Invalid("%s must be a month written YYYY-MM", name)
	}
	return inYears(name, m)
}

// monthLayout is how a month is written in a query: "2026-11".
const monthLayout = "2006-01"
