package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The query parsers' properties: each never panics on any raw query string
// (as the gateway or net/http hands it on: repeated, escaped, malformed
// parameters, ';' separators), answers a value in its range or a KindInvalid
// error whose message is one fixed sentence naming the parameter (never the
// client's text), refuses a parameter given twice, and reads exactly what
// url.ParseQuery reads.

// queryRequest is a GET whose query string is raw, with key-shaped text
// planted at each '~'.
func queryRequest(raw string) *http.Request {
	return &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/", RawQuery: strings.ReplaceAll(raw, "~", workspace.KeyPrefix)}}
}

// param returns what url.ParseQuery reads of parameter name in r's query:
// its values.
func param(r *http.Request, name string) []string {
	q, _ := url.ParseQuery(r.URL.RawQuery)
	return q[name]
}

// checkRefusal checks that err is a KindInvalid error saying exactly want
// (or, for a parameter given twice, that it must be given at most once).
func checkRefusal(t *testing.T, r *http.Request, name string, err error, want string) {
	t.Helper()
	if len(param(r, name)) > 1 {
		want = name + " must be given at most once"
	}
	if workspace.KindOf(err) != workspace.KindInvalid || err.Error() != want {
		t.Fatalf("query %q: %v (kind %d); want the KindInvalid error %q", r.URL.RawQuery, err, workspace.KindOf(err), want)
	}
}

var querySeeds = []string{
	"", "x=1", "n=", "n=5", "n=+5", "n=-0", "n=007", "n=1.5", "n=1e3", "n=0x10", "n=1_000", "n=%205", "n=5&n=5",
	"n=9223372036854775808", "n=-9223372036854775809", "n=true", "n=false", "n=TRUE", "n=2026-11", "n=2026-1",
	"n=2026-13", "n=0000-01", "n=9999-12", "n=2026-11-30", "n=2026-02-30", "n=9999-12-31T23:59:59.999Z",
	"n=2026-01-01T00:00:00%2B01:00", "n=0000-01-01T00:00:00%2B23:59", "n=9999-12-31T23:59:59-23:59",
	"n=2026-01-01t00:00:00z", "n=2026-01-01T00:00:00,5Z", "n=2026-01-01 00:00:00Z", "n=2026-01-01T24:00:00Z", "n=2026-01-01T0:00:00Z",
	"n=0000-01-01T00:00:00%2B24:60", "n=9999-12-31T23:59:59.999999999-24:60", "n=2026-01-01T00:00:00%2B-0:%2B0",
	"n;x=1", "n=%zz", "n=~abc", "n=%E2%80%8B5", "n=5%00", "n=５",
}

var intPattern = regexp.MustCompile(`^[+-]?[0-9]+$`)

// FuzzQueryInt: QueryInt answers a value in [lo, hi] written as a decimal
// integer (strconv.Atoi), or, when the parameter is absent, nothing; anything
// else is the one KindInvalid sentence naming the parameter and its range.
func FuzzQueryInt(f *testing.F) {
	ranges := [][2]int{{1, httpapi.MaxPageLimit}, {1970, 9999}, {1, 12}, {1, 365}, {0, 500}, {1, 366}, {5, 4}, {-3, 3}}
	for i, s := range querySeeds {
		rg := ranges[i%len(ranges)]
		f.Add(s, rg[0], rg[1])
	}
	f.Fuzz(func(t *testing.T, raw string, lo, hi int) {
		r := queryRequest(raw)
		v, set, err := httpapi.QueryInt(r, "n", lo, hi)
		vals := param(r, "n")
		if len(vals) == 0 {
			if v != 0 || set || err != nil {
				t.Fatalf("query %q: absent, yet %d, %v, %v", raw, v, set, err)
			}
			return
		}
		want, werr := strconv.Atoi(vals[0])
		if len(vals) == 1 && werr == nil && lo <= want && want <= hi {
			if v != want || !set || err != nil {
				t.Fatalf("query %q in [%d, %d]: %d, %v, %v; want %d", raw, lo, hi, v, set, err, want)
			}
			if !intPattern.MatchString(vals[0]) {
				t.Fatalf("query %q: accepted %q, which is not a decimal integer", raw, vals[0])
			}
			return
		}
		if v != 0 || set {
			t.Fatalf("query %q: refused, yet %d, %v", raw, v, set)
		}
		checkRefusal(t, r, "n", err, fmt.Sprintf("n must be an integer from %d to %d", lo, hi))
	})
}

// FuzzQueryBool: QueryBool takes exactly "true" and "false".
func FuzzQueryBool(f *testing.F) {
	for _, s := range querySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := queryRequest(raw)
		v, set, err := httpapi.QueryBool(r, "n")
		vals := param(r, "n")
		switch {
		case len(vals) == 0:
			if v || set || err != nil {
				t.Fatalf("query %q: absent, yet %v, %v, %v", raw, v, set, err)
			}
		case len(vals) == 1 && (vals[0] == "true" || vals[0] == "false"):
			if v != (vals[0] == "true") || !set || err != nil {
				t.Fatalf("query %q: %v, %v, %v", raw, v, set, err)
			}
		default:
			if v || set {
				t.Fatalf("query %q: refused, yet %v, %v", raw, v, set)
			}
			checkRefusal(t, r, "n", err, "n must be true or false")
		}
	})
}

var monthPattern = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`)

// yearsRefusal is the one answer to a date, month or time whose year as
// written is outside 1970 to 9999 (workspace.InAPIYears).
const yearsRefusal = "n must lie in the years 1970 to 9999"

// inAPIYears reports whether s, which starts with four digits of year,
// writes a year of 1970 to 9999.
func inAPIYears(s string) bool {
	y, err := strconv.Atoi(s[:4])
	return err == nil && y >= workspace.MinYear && y <= workspace.MaxYear
}

// FuzzQueryMonth: QueryMonth takes exactly YYYY-MM (a month 01 to 12) of the
// years 1970 to 9999 and answers the month's first instant in UTC, which it
// writes back as given; another year is the one refusal of years.
func FuzzQueryMonth(f *testing.F) {
	for _, s := range querySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := queryRequest(raw)
		m, set, err := httpapi.QueryMonth(r, "n")
		vals := param(r, "n")
		switch {
		case len(vals) == 0:
			if !m.IsZero() || set || err != nil {
				t.Fatalf("query %q: absent, yet %v, %v, %v", raw, m, set, err)
			}
		case len(vals) == 1 && monthPattern.MatchString(vals[0]) && !inAPIYears(vals[0]):
			if !m.IsZero() || set {
				t.Fatalf("query %q: refused, yet %v, %v", raw, m, set)
			}
			checkRefusal(t, r, "n", err, yearsRefusal)
		case len(vals) == 1 && monthPattern.MatchString(vals[0]):
			if !set || err != nil {
				t.Fatalf("query %q: %v, %v, %v", raw, m, set, err)
			}
			if m.Location() != time.UTC || m.Day() != 1 || m.Hour() != 0 || m.Minute() != 0 || m.Second() != 0 || m.Nanosecond() != 0 {
				t.Fatalf("query %q: %v is not the first instant of a UTC month", raw, m)
			}
			if got := m.Format("2006-01"); got != vals[0] {
				t.Fatalf("query %q: %v is the month %s", raw, m, got)
			}
		default:
			if !m.IsZero() || set {
				t.Fatalf("query %q: refused, yet %v, %v", raw, m, set)
			}
			checkRefusal(t, r, "n", err, "n must be a month written YYYY-MM")
		}
	})
}

var (
	datePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	// RFC 3339's date-time as it is written: two digits of hour, a
	// fraction after a period, an offset of Z or ±hh:mm within 23:59 (not
	// as loosely as time.Parse reads it, golang/go issues 29911, 54568).
	rfc3339Pattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`)
)

// FuzzQueryTime: QueryTime takes a calendar date YYYY-MM-DD (its UTC
// midnight) or an RFC 3339 timestamp (the same instant, in UTC) and nothing
// else, of a year as written from 1970 to 9999 (another year is the one
// refusal of years); what it answers lies between 1970's first instant and
// the last instant (an offset past either reads as it), and the timestamp
// it answers, written in RFC 3339, reads back the same.
func FuzzQueryTime(f *testing.F) {
	for _, s := range querySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := queryRequest(raw)
		tm, set, err := httpapi.QueryTime(r, "n")
		vals := param(r, "n")
		if len(vals) == 0 {
			if !tm.IsZero() || set || err != nil {
				t.Fatalf("query %q: absent, yet %v, %v, %v", raw, tm, set, err)
			}
			return
		}
		s := vals[0]
		date, derr := time.Parse(time.DateOnly, s)
		isDate := derr == nil && datePattern.MatchString(s)
		_, terr := time.Parse(time.RFC3339Nano, s)
		isTime := isDate || (terr == nil && rfc3339Pattern.MatchString(s))
		if len(vals) > 1 || err != nil {
			if isDate && len(vals) == 1 && inAPIYears(s) {
				t.Fatalf("query %q: the date %q refused: %v", raw, s, err)
			}
			if !tm.IsZero() || set {
				t.Fatalf("query %q: refused, yet %v, %v", raw, tm, set)
			}
			want := "n must be an ISO date (YYYY-MM-DD) or an RFC 3339 timestamp"
			if len(vals) == 1 && isTime && !inAPIYears(s) {
				want = yearsRefusal
			}
			checkRefusal(t, r, "n", err, want)
			return
		}
		if !inAPIYears(s) {
			t.Fatalf("query %q: accepted %q, outside the years 1970 to 9999", raw, s)
		}
		if !set || tm.Location() != time.UTC {
			t.Fatalf("query %q: %v (%v), set %v", raw, tm, tm.Location(), set)
		}
		if tm.Before(workspace.EarliestMetricTime) || tm.After(workspace.LatestTime) {
			t.Fatalf("query %q: %v is out of range", raw, tm)
		}
		switch {
		case isDate:
			if !tm.Equal(date) || tm.Format(time.DateOnly) != s {
				t.Fatalf("query %q: the date %q read as %v", raw, s, tm)
			}
		case rfc3339Pattern.MatchString(s):
			if want, _ := time.Parse(time.RFC3339Nano, s); !tm.Equal(workspace.NotAfterLatest(workspace.NotBeforeEarliest(want))) {
				t.Fatalf("query %q: %q read as %v, not %v", raw, s, tm, want)
			}
		default:
			t.Fatalf("query %q: accepted %q, neither a date nor an RFC 3339 timestamp", raw, s)
		}
		if tm.Year() >= 0 && tm.Year() <= 9999 {
			back := url.Values{"n": {tm.Format(time.RFC3339Nano)}}.Encode()
			if again, _, err := httpapi.QueryTime(queryRequest(back), "n"); err != nil || !again.Equal(tm) {
				t.Fatalf("query %q: %v written back as %q reads %v, %v", raw, tm, back, again, err)
			}
		}
	})
}

// FuzzQueryString: QueryString answers the one value url.ParseQuery reads,
// as it is, and refuses a parameter given twice.
func FuzzQueryString(f *testing.F) {
	for _, s := range querySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := queryRequest(raw)
		v, set, err := httpapi.QueryString(r, "n")
		switch vals := param(r, "n"); len(vals) {
		case 0:
			if v != "" || set || err != nil {
				t.Fatalf("query %q: absent, yet %q, %v, %v", raw, v, set, err)
			}
		case 1:
			if v != vals[0] || !set || err != nil {
				t.Fatalf("query %q: %q, %v, %v; want %q", raw, v, set, err, vals[0])
			}
		default:
			if v != "" || set {
				t.Fatalf("query %q: refused, yet %q, %v", raw, v, set)
			}
			checkRefusal(t, r, "n", err, "")
		}
	})
}

// testCursorSecret is the cursor key of these tests.
var testCursorSecret = []byte("0123456789abcdef0123456789abcdef")

// staticCursorKey is a cursor key source that always has testCursorSecret.
type staticCursorKey struct{}

func (staticCursorKey) CursorKey(context.Context) ([]byte, error) { return testCursorSecret, nil }

var (
	testCursorKey = httpapi.NewCursorKey(testCursorSecret)
	testCursors   = httpapi.NewCursors(staticCursorKey{})
)

const cursorRefusal = "cursor is not a cursor this API returned for this list: keep the filters of the page that returned it"

var cursorSeeds = []string{
	"", "cursor=", "cursor=YQ", "cursor=YQ&cursor=YQ", "cursor=YQ==", "cursor=YR", "cursor=Y", "cursor=%2B%2F",
	"cursor=d2tfYWJj", "cursor=~abc", "cursor=YQ%0A", "cursor=" + strings.Repeat("YWFh", 86),
	"cursor=" + strings.Repeat("YWFh", 129), "limit=10&cursor=YWdfMDE", "limit=0", "limit=1001", "limit=1000",
	"limit=1&limit=1", "limit=%2B1", "limit=-1&cursor=!", "cursor=YWdf&limit=x",
}

// checkCursor checks an id QueryCursor answered for the query raw: "" when
// the parameter is absent, otherwise a plausible id whose own cursor reads
// back as it, or the one KindInvalid sentence.
func checkCursor(t *testing.T, r *http.Request, id string, err error) {
	t.Helper()
	vals := param(r, "cursor")
	switch {
	case len(vals) == 0:
		if id != "" || err != nil {
			t.Fatalf("query %q: no cursor, yet %q, %v", r.URL.RawQuery, id, err)
		}
	case err != nil:
		if id != "" {
			t.Fatalf("query %q: refused, yet %q", r.URL.RawQuery, id)
		}
		checkRefusal(t, r, "cursor", err, cursorRefusal)
	default:
		if len(vals) != 1 || !workspace.PlausibleID(id) {
			t.Fatalf("query %q: accepted, as %q", r.URL.RawQuery, id)
		}
		again, err := testCursorKey.Query(queryRequest("cursor=" + testCursorKey.Encode(queryRequest(""), id)))
		if again != id || err != nil {
			t.Fatalf("query %q: %q, whose own cursor reads %q, %v", r.URL.RawQuery, id, again, err)
		}
	}
}

// FuzzQueryCursor: decoding garbage is the one KindInvalid sentence; what is
// accepted is a plausible id (1 to 256 bytes) whose own cursor reads back as it.
func FuzzQueryCursor(f *testing.F) {
	for _, s := range cursorSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := queryRequest(raw)
		id, err := testCursorKey.Query(r)
		checkCursor(t, r, id, err)
	})
}

// FuzzQueryPage: QueryPage answers a limit from 1 to MaxPageLimit (def when
// absent) and a cursor's id, or the one KindInvalid sentence of the
// parameter at fault (limit is read first).
func FuzzQueryPage(f *testing.F) {
	for i, s := range cursorSeeds {
		f.Add(s, []int{0, httpapi.DefaultPageLimit}[i%2])
	}
	f.Fuzz(func(t *testing.T, raw string, def int) {
		r := queryRequest(raw)
		limit, after, _, err := testCursors.QueryPage(r, def)
		limits := param(r, "limit")
		n, lerr := 0, error(nil)
		if len(limits) > 0 {
			n, lerr = strconv.Atoi(limits[0])
		}
		switch {
		case len(limits) > 1 || (len(limits) == 1 && (lerr != nil || n < 1 || n > httpapi.MaxPageLimit)):
			if limit != 0 || after != "" {
				t.Fatalf("query %q: refused, yet %d, %q", raw, limit, after)
			}
			checkRefusal(t, r, "limit", err, fmt.Sprintf("limit must be an integer from 1 to %d", httpapi.MaxPageLimit))
		case err != nil: // the limit was fine: the cursor is at fault
			checkCursor(t, r, after, err)
		default:
			if want := map[bool]int{true: n, false: def}[len(limits) == 1]; limit != want {
				t.Fatalf("query %q (default %d): limit %d, want %d", raw, def, limit, want)
			}
			checkCursor(t, r, after, nil)
		}
	})
}

// FuzzCursorRoundTrip: the cursor WritePage hands out after a page whose last
// id is id (any id the service stores: plausible, without control
// characters) is URL-safe, survives the response's key guard, and brings
// QueryPage back to that id; EncodeCursor of an implausible id (empty, over
// 256 bytes) is refused as a cursor.
func FuzzCursorRoundTrip(f *testing.F) {
	for _, id := range []string{
		"a", "ag_01JCDZ6M3Y5Q0K2V7P9R8T4W6X", "u1", "team with spaces", "é", "\u4e00\u4e8c", "wk", "x/y?z&c=1",
		"", strings.Repeat("i", workspace.MaxIDLength), strings.Repeat("i", workspace.MaxIDLength+1), "\xff\xfe",
		"k_AAA", "id#1", "-_", "\x03\t?x",
	} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		cursor := testCursorKey.Encode(queryRequest(""), id)
		if strings.ContainsFunc(cursor, func(c rune) bool {
			return !(c == '-' || c == '_' || c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c)))
		}) {
			t.Fatalf("the cursor %q of %q needs escaping", cursor, id)
		}
		got, err := testCursorKey.Query(queryRequest("cursor=" + cursor))
		if !workspace.PlausibleID(id) {
			if got != "" || workspace.KindOf(err) != workspace.KindInvalid {
				t.Fatalf("the cursor of the implausible id %q reads %q, %v", id, got, err)
			}
			return
		}
		if got != id || err != nil {
			t.Fatalf("the cursor %q of %q reads %q, %v", cursor, id, got, err)
		}
		if strings.ContainsFunc(id, unicode.IsControl) {
			return // no stored id has one: the key guard may see a key in such a cursor
		}
		w := httptest.NewRecorder()
		httpapi.WritePage(w, queryRequest(""), testCursorKey, "items", []string{id}, true, func(s string) string { return s })
		var page struct {
			Items      []string `json:"items"`
			NextCursor *string  `json:"nextCursor"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || page.NextCursor == nil {
			t.Fatalf("WritePage of %q: %s (%v)", id, w.Body.Bytes(), err)
		}
		if *page.NextCursor != cursor {
			t.Fatalf("WritePage of %q: nextCursor %q, want %q", id, *page.NextCursor, cursor)
		}
		limit, after, _, err := testCursors.QueryPage(queryRequest(url.Values{"limit": {"1"}, "cursor": {*page.NextCursor}}.Encode()), 0)
		if limit != 1 || after != id || err != nil {
			t.Fatalf("the next page after %q: limit %d, after %q, %v", id, limit, after, err)
		}
	})
}
