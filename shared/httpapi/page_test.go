package httpapi_test

import (
	"encoding/base64"
	"encoding/hex"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
)

type item struct {
	ID string `json:"id"`
}

func TestAPageListsItsItemsThenTheNextCursor(t *testing.T) {
	tests := []struct {
		name     string
		items    []item
		more     bool
		wantBody string
	}{
		{"more follow: the cursor wraps the last id", []item{{"a"}, {"b"}}, true,
			`{"things":[{"id":"a"},{"id":"b"}],"nextCursor":"` + testCursorKey.Encode(httptest.NewRequest("GET", "/", nil), "b") + `"}`},
		{"the last page: null", []item{{"a"}}, false, `{"things":[{"id":"a"}],"nextCursor":null}`},
		{"an empty list is [], never null", nil, false, `{"things":[],"nextCursor":null}`},
		{"an empty page has no cursor to give", []item{}, true, `{"things":[],"nextCursor":null}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := httpapi.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				httpapi.WritePage(w, r, testCursorKey, "things", tc.items, tc.more, func(it item) string { return it.ID })
				return nil
			})
			if status, body := serve(t, h, "/"); status != http.StatusOK || body != tc.wantBody {
				t.Errorf("got %d %s, want 200 %s", status, body, tc.wantBody)
			}
		})
	}
}

// unkeyedCursor is a cursor of pos for r's listing as anyone could make one
// when cursors were bound by an unkeyed digest of public inputs: pos, a
// separator and the FNV-64a of the listing, base64url.
func unkeyedCursor(r *http.Request, pos string) string {
	h := fnv.New64a()
	h.Write([]byte(httpapi.CursorBinding(r)))
	return base64.RawURLEncoding.EncodeToString([]byte(pos + "|" + hex.EncodeToString(h.Sum(nil))))
}

func TestQueryPageTakesALimitAndACursorOfOurs(t *testing.T) {
	tests := []struct {
		name, query string
		def         int
		wantLimit   int
		wantAfter   string
		wantErr     string
	}{
		{"no limit: the list's default", "", httpapi.DefaultPageLimit, httpapi.DefaultPageLimit, "", ""},
		{"no limit and no default: the whole list", "", 0, 0, "", ""},
		{"a limit and a cursor", "?limit=5&cursor=" + testCursorKey.Encode(httptest.NewRequest("GET", "/x?limit=2", nil), "x1"), 0, 5, "x1", ""},
		{"a cursor of another list", "?cursor=" + testCursorKey.Encode(httptest.NewRequest("GET", "/y", nil), "x1"), 0, 0, "", cursorRefusal},
		{"a cursor of other filters", "?cursor=" + testCursorKey.Encode(httptest.NewRequest("GET", "/x?team=t1", nil), "x1"), 0, 0, "", cursorRefusal},
		{"a cursor made up of an id", "?cursor=" + base64.RawURLEncoding.EncodeToString([]byte("x1")), 0, 0, "", cursorRefusal},
		{"a limit over the bound", "?limit=1001", 0, 0, "", "limit must be an integer from 1 to 1000"},
		{"a limit of zero", "?limit=0", httpapi.DefaultPageLimit, 0, "", "limit must be an integer from 1 to 1000"},
		{"a cursor not ours", "?cursor=***", 0, 0, "", cursorRefusal},
		{"a cursor made with another key", "?cursor=" + httpapi.NewCursorKey([]byte("another key of thirty-two bytes!")).Encode(httptest.NewRequest("GET", "/x", nil), "x1"), 0, 0, "", cursorRefusal},
		{"a cursor bound without a key, as cursors once were", "?cursor=" + unkeyedCursor(httptest.NewRequest("GET", "/x", nil), "x1"), 0, 0, "", cursorRefusal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			limit, after, _, err := testCursors.QueryPage(httptest.NewRequest("GET", "/x"+tc.query, nil), tc.def)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if limit != tc.wantLimit || after != tc.wantAfter || gotErr != tc.wantErr {
				t.Errorf("QueryPage = %d, %q, %q; want %d, %q, %q", limit, after, gotErr, tc.wantLimit, tc.wantAfter, tc.wantErr)
			}
		})
	}
}
