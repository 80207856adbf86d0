package httpapi_test

import (
	"net/http/httptest"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestQueryBoolTakesOnlyTrueAndFalse(t *testing.T) {
	tests := []struct {
		query        string
		want, wantOK bool
		wantInvalid  bool
	}{
		{"", false, false, false},
		{"?flag=true", true, true, false},
		{"?flag=false", false, true, false},
		{"?flag=TRUE", false, false, true},
		{"?flag=1", false, false, true},
		{"?flag=yes", false, false, true},
		{"?flag=", false, false, true},
		{"?flag=true&flag=true", false, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			got, set, err := httpapi.QueryBool(httptest.NewRequest("GET", "/x"+tc.query, nil), "flag")
			if got != tc.want || set != tc.wantOK || (workspace.KindOf(err) == workspace.KindInvalid) != tc.wantInvalid {
				t.Errorf("QueryBool = %v, %v, %v; want %v, %v, invalid %v", got, set, err, tc.want, tc.wantOK, tc.wantInvalid)
			}
		})
	}
}

func TestQueryMonthTakesOnlyYYYYMM(t *testing.T) {
	tests := []struct {
		query       string
		want        string // the month's first instant, RFC 3339; "" when none
		wantInvalid bool
	}{
		{"", "", false},
		{"?m=2026-11", "2026-11-01T00:00:00Z", false},
		{"?m=2026-01", "2026-01-01T00:00:00Z", false},
		{"?m=2026-13", "", true},
		{"?m=2026-00", "", true},
		{"?m=2026-1", "", true},
		{"?m=march", "", true},
		{"?m=2026-11-01", "", true},
		{"?m=202611", "", true},
		{"?m=2026-11&m=2026-10", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			got, set, err := httpapi.QueryMonth(httptest.NewRequest("GET", "/x"+tc.query, nil), "m")
			gotS := ""
			if set {
				gotS = got.Format("2006-01-02T15:04:05Z07:00")
			}
			if gotS != tc.want || (workspace.KindOf(err) == workspace.KindInvalid) != tc.wantInvalid {
				t.Errorf("QueryMonth = %q, %v; want %q, invalid %v", gotS, err, tc.want, tc.wantInvalid)
			}
		})
	}
}
