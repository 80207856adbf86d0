package workspace_test

import (
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// TestTimestampsAreReadAsRFC3339WritesThem: any offset, read in UTC, but
// only in RFC 3339's written form, not the looser ones Go's parser takes.
func TestTimestampsAreReadAsRFC3339WritesThem(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" for refused
	}{
		{"2026-11-21T22:33:01.123Z", "2026-11-21T22:33:01.123Z"},
		{"2026-11-21T23:33:01+01:00", "2026-11-21T22:33:01.000Z"},
		{"2026-11-21T00:00:00-23:59", "2026-11-21T23:59:00.000Z"},
		{"2026-11-21T22:33:01.5Z", "2026-11-21T22:33:01.500Z"},
		{"2026-11-21T6:33:01Z", ""},       // one digit of hour
		{"2026-11-21T22:33:01,5Z", ""},    // a decimal comma
		{"2026-11-21T22:33:01.Z", ""},     // a period without digits
		{"2026-11-21T22:33:01+24:00", ""}, // an offset past 23:59
		{"2026-11-21T22:33:01+01:60", ""}, // an offset past 23:59
		{"2026-11-21t22:33:01z", ""},      // lower-case T and Z
		{"2026-11-21 22:33:01Z", ""},      // a space for T
		{"2026-11-21T22:33:01", ""},       // no offset
		{"2026-11-21", ""},                // a date is not a timestamp
		{"2026-02-30T00:00:00Z", ""},      // no such day
		{"2026-11-21T22:33:01+0100", ""},  // an offset without its colon
		{"+2026-11-21T22:33:01Z", ""},     // a sign before the year
		{"2026-11-21T22:33:01Z ", ""},     // trailing white space
		{"2026-11-21T22:33:01.123456789Z", "2026-11-21T22:33:01.123Z"},
	} {
		got, err := workspace.ParseTime("at", tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%q read as %v, want refused", tc.in, got)
		case tc.want != "" && err != nil:
			t.Errorf("%q refused: %v", tc.in, err)
		case tc.want != "" && (workspace.FormatTime(got) != tc.want || got.Location() != time.UTC):
			t.Errorf("%q read as %v, want %s in UTC", tc.in, got, tc.want)
		}
	}
}
