package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"net/http"
	"strconv"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// maxCursorLength bounds a cursor before it is decoded: it wraps an id of at
// most workspace.MaxIDLength bytes and its binding.
const maxCursorLength = 2 * workspace.MaxIDLength

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

// EncodeCursor wraps pos, where the next page of r's listing starts (the
// id of its last entity), as an opaque cursor bound to r's listing
// (CursorBinding). A cursor only positions a listing inside the caller's
// own partition, so it needs no secret; the binding makes a cursor from
// another listing, another query or another workspace a 400 rather than a
// page from the middle of something else.
func EncodeCursor(r *http.Request, pos string) string { return BindCursor(CursorBinding(r), pos) }

// QueryCursor reads the cursor query parameter and returns the id it
// wraps, "" when there is none. A cursor that this API did not return for
// r's listing (EncodeCursor), or whose position is no plausible id, is a
// KindInvalid error.
func QueryCursor(r *http.Request) (string, error) {
	s, set, err := queryValue(r, "cursor")
	if err != nil || !set {
		return "", err
	}
	pos, ok := UnbindCursor(CursorBinding(r), s)
	if !ok || !workspace.PlausibleID(pos) {
		return "", ErrCursor
	}
	return pos, nil
}

// ErrCursor is the 400 of a cursor that this API did not return for the
// listing it is sent with.
var ErrCursor = workspace.Invalid("cursor is not a cursor this API returned for this list: keep the filters of the page that returned it")

// cursorSeparator parts a cursor's position from its binding, a fixed-length
// hex digest after the last separator.
const cursorSeparator = "|"

// BindCursor makes the cursor of pos (a position of the listing's own form)
// for the listing whose CursorBinding is binding.
func BindCursor(binding, pos string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(pos + cursorSeparator + binding))
}

// UnbindCursor returns the position cursor c holds; ok is false unless c
// was made by BindCursor for binding and is at most maxCursorLength long.
func UnbindCursor(binding, c string) (pos string, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	i := bytes.LastIndex(raw, []byte(cursorSeparator))
	if len(c) > maxCursorLength || err != nil || i < 0 || string(raw[i+1:]) != binding {
		return "", false
	}
	return string(raw[:i]), true
}

// CursorBinding is the digest of what r's cursors are bound to: the
// caller's workspace, r's path, and its query without cursor and limit (a
// page may ask for another size), each length-prefixed.
func CursorBinding(r *http.Request) string {
	q := r.URL.Query()
	q.Del("cursor")
	q.Del("limit")
	caller, _ := callerFrom(r)
	h := fnv.New64a()
	for _, part := range []string{caller.WorkspaceID, r.URL.EscapedPath(), q.Encode()} {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))
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
