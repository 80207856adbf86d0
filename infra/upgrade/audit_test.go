package upgrade_test

import (
	"context"
	"net/url"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/tableops"
)

// release200 starts the API of this release over a table holding exactly
// the items release 2.0.0 wrote (testdata/v2.0.0.jsonl, which
// TestWhatThisReleaseWrites wrote when 2.0.0 was this release).
func release200(t *testing.T) *apitest.Env {
	t.Helper()
	env := apitest.New(t, `{"workspaces": []}`)
	data, err := os.ReadFile("testdata/v2.0.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	items, err := tableops.UnmarshalItems(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := tableops.PutItems(context.Background(), env.Store, items); err != nil {
		t.Fatal(err)
	}
	return env
}

// The audit entries release 2.0.0 wrote, all in the workspace's one
// partition, are listed by this release, which writes over shards: alone,
// then merged newest first with an entry this release wrote, a page at a
// time and by every filter, with no migration step.
func TestTheAuditLogOfRelease200IsStillListed(t *testing.T) {
	env := release200(t)
	type entry struct{ ID, At, Action string }
	list := func(query string, limit int) []string {
		t.Helper()
		var ids []string
		cursor := ""
		for range 100 {
			res := env.Do(t, "GET", "/workspaceapi/audit-log?limit="+strconv.Itoa(limit)+query+cursor, adminKey, "")
			var page struct {
				Entries    []entry
				NextCursor *string
			}
			if res.Status != 200 {
				t.Fatalf("GET audit-log%s: %d %s", query, res.Status, res.Body)
			}
			res.JSON(t, &page)
			for _, e := range page.Entries {
				ids = append(ids, e.ID)
			}
			if page.NextCursor == nil {
				return ids
			}
			cursor = "&cursor=" + url.QueryEscape(*page.NextCursor)
		}
		t.Fatal("the log never ends")
		return nil
	}
	// 2.0.0's entries, all at one millisecond: by id, descending.
	old := []string{
		"aud_01M7YZMHG0YNEDWQ09X5XWWXVP", // team.created
		"aud_01M7YZMHG0Y4H8YFNDBBAJ8QPP", // team.renamed, team_growth
		"aud_01M7YZMHG0X27PGN1Z5ZS8XPTS", // agent.limits_changed
		"aud_01M7YZMHG0V20BPRMA9EG4KMFE", // key.created
		"aud_01M7YZMHG017F2K334BVWKTY0T", // agent.disabled
	}
	if got := list("", 2); !slices.Equal(got, old) {
		t.Fatalf("2.0.0's log read by this release: %v\nwant %v", got, old)
	}

	env.Clock.Advance(time.Minute)
	res := env.Do(t, "PATCH", "/workspaceapi/teams/team_growth", adminKey, `{"name": "Growth Guild"}`)
	if res.Status != 200 {
		t.Fatalf("rename: %d %s", res.Status, res.Body)
	}
	newest := list("&action=team.renamed", 1)
	if len(newest) != 2 || newest[1] != old[1] {
		t.Fatalf("team.renamed entries %v, want this release's rename, then 2.0.0's %s", newest, old[1])
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", append([]string{newest[0]}, old...)},
		{"&targetId=team_growth", []string{newest[0], old[1]}},
		{"&actorKeyId=key_acme_admin", append([]string{newest[0]}, old...)},
		{"&actorKeyId=key_acme_admin&action=team.renamed", []string{newest[0], old[1]}},
		{"&action=key.created", []string{old[3]}},
	} {
		for _, limit := range []int{1, 3} {
			if got := list(tc.query, limit); !slices.Equal(got, tc.want) {
				t.Errorf("?limit=%d%s: %v\nwant %v", limit, tc.query, got, tc.want)
			}
		}
	}
}
