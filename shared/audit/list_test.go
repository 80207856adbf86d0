package audit_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const (
	adminKey    = "wk_demoAdminKey0000000000000000000000000001"
	readOnlyKey = "wk_demoReadOnlyKey0000000000000000000000002"
	teamKey     = "wk_demoSupportTeamKey0000000000000000000005"
	creatorKey  = "wk_demoCreatorKey00000000000000000000000006"
	writeOnly   = "wk_demoWriteOnlyKey000000000000000000000003"
	globexKey   = "wk_demoGlobexAdminKey0000000000000000000009"
)

// entryJSON is an entry as the endpoint answers it.
type entryJSON struct {
	ID     string
	At     string
	Action string
	Actor  struct {
		Type, KeyID, UserID, Name string
	}
	Target    struct{ Type, ID string }
	Changes   map[string]struct{ From, To any }
	RequestID *string
}

type pageJSON struct {
	Entries    []entryJSON
	NextCursor *string
}

// seeded is a log of n entries of ws_acme, one a minute back from
// apitest.Start, cycling through three actions, four targets and two actors
// (key_acme_admin and the scheduler), two of them at one millisecond; and
// one entry of ws_globex.
func seeded(t *testing.T, env *apitest.Env, n int) []workspace.AuditEntry {
	t.Helper()
	actions := []workspace.AuditAction{workspace.ActionTeamRenamed, workspace.ActionAgentStopped, workspace.ActionInviteCreated}
	var entries []workspace.AuditEntry
	for i := range n {
		actor := workspace.KeyActor(workspace.Caller{KeyID: "key_acme_admin", UserID: "usr_ada"}, fmt.Sprintf("req-%d", i))
		if i%2 == 1 {
			actor = workspace.SystemActor(workspace.SystemScheduler)
		}
		at := apitest.Start.Add(-time.Duration(i) * time.Minute)
		if i == 1 {
			at = entriesAt(entries, 0) // two entries at one millisecond stay apart
		}
		e := workspace.NewAuditEntry(at, actor, actions[i%3], workspace.AuditTarget{Type: workspace.TargetTeam, ID: fmt.Sprintf("team_%d", i%4)},
			workspace.Changes{"name": {From: fmt.Sprintf("old %d", i), To: fmt.Sprintf("new %d", i)}})
		e.ID = fmt.Sprintf("aud_%04d", i)
		entries = append(entries, e)
	}
	if err := tableops.PutAuditEntries(t.Context(), env.Store, "ws_acme", entries); err != nil {
		t.Fatal(err)
	}
	other := workspace.NewAuditEntry(apitest.Start, workspace.SystemActor(workspace.SystemIngest), workspace.ActionAgentStopped,
		workspace.AuditTarget{Type: workspace.TargetAgent, ID: "team_0"}, nil)
	if err := tableops.PutAuditEntries(t.Context(), env.Store, "ws_globex", []workspace.AuditEntry{other}); err != nil {
		t.Fatal(err)
	}
	return entries
}

func entriesAt(entries []workspace.AuditEntry, i int) time.Time { return entries[i].At }

// newestFirst is entries in the log's order: newest first, then by id
// descending at one time.
func newestFirst(entries []workspace.AuditEntry) []string {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b workspace.AuditEntry) int {
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	ids := make([]string, len(sorted))
	for i, e := range sorted {
		ids[i] = e.ID
	}
	return ids
}

// pageQueries is the most Queries a page sends, all at once: one per shard
// of the log and one for the partition release 2.0.0 wrote.
const pageQueries = dynamo.AuditShards + 1

// readAll pages through the log with query, and checks that every page is
// at most one Query per shard, sent at once: one round trip of waiting.
func readAll(t *testing.T, env *apitest.Env, key, query string, limit int) []entryJSON {
	t.Helper()
	var all []entryJSON
	cursor := ""
	for pages := 0; ; pages++ {
		q := fmt.Sprintf("?limit=%d%s%s", limit, query, cursor)
		res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log"+q, key, "")
		if res.Status != http.StatusOK {
			t.Fatalf("GET audit-log%s: %d %s", q, res.Status, res.Body)
		}
		if res.FunctionTrips > pageQueries || res.FunctionPath > 1 {
			t.Errorf("GET audit-log%s cost %d round trips, %d in turn, want at most %d Queries at once", q, res.FunctionTrips, res.FunctionPath, pageQueries)
		}
		var p pageJSON
		res.JSON(t, &p)
		if len(p.Entries) > limit {
			t.Fatalf("page of %d entries, limit %d", len(p.Entries), limit)
		}
		all = append(all, p.Entries...)
		if p.NextCursor == nil {
			return all
		}
		if pages > 1000 {
			t.Fatal("the log never ends")
		}
		cursor = "&cursor=" + url.QueryEscape(*p.NextCursor)
	}
}

func ids(entries []entryJSON) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.ID
	}
	return out
}

func TestAuditLogListsEveryEntryOnceNewestFirstAPageAtATime(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	entries := seeded(t, env, 25)
	for _, limit := range []int{1, 7, 25, 100} {
		got := ids(readAll(t, env, adminKey, "", limit))
		if want := newestFirst(entries); !slices.Equal(got, want) {
			t.Errorf("limit %d: listed %v\nwant %v", limit, got, want)
		}
	}
}

func TestAuditLogEntryShape(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	seeded(t, env, 2)
	all := readAll(t, env, adminKey, "", 10)
	if len(all) != 2 {
		t.Fatalf("listed %d entries, want 2", len(all))
	}
	byID := map[string]entryJSON{}
	for _, e := range all {
		byID[e.ID] = e
	}
	key, system := byID["aud_0000"], byID["aud_0001"]
	if key.Actor.Type != "key" || key.Actor.KeyID != "key_acme_admin" || key.Actor.UserID != "usr_ada" || key.RequestID == nil || *key.RequestID != "req-0" {
		t.Errorf("key actor's entry %+v, want key_acme_admin of usr_ada with request req-0", key)
	}
	if system.Actor.Type != "system" || system.Actor.Name != "scheduler" || system.RequestID != nil {
		t.Errorf("system actor's entry %+v, want the scheduler with a null requestId", system)
	}
	if key.At != "2026-11-21T12:00:00.000Z" || key.Action != "team.renamed" || key.Target.Type != "team" || key.Target.ID != "team_0" ||
		fmt.Sprint(key.Changes["name"]) != "{old 0 new 0}" {
		t.Errorf("entry %+v, want team_0 renamed from old 0 to new 0 at the start", key)
	}
}

func TestAuditLogFiltersReadOnlyTheirPage(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	entries := seeded(t, env, 40)
	since, until := apitest.Start.Add(-30*time.Minute), apitest.Start.Add(-10*time.Minute)
	for _, tc := range []struct {
		name  string
		query string
		match func(workspace.AuditEntry) bool
	}{
		{"action", "&action=agent.stopped", func(e workspace.AuditEntry) bool { return e.Action == workspace.ActionAgentStopped }},
		{"target", "&targetId=team_2", func(e workspace.AuditEntry) bool { return e.Target.ID == "team_2" }},
		{"actor key", "&actorKeyId=key_acme_admin", func(e workspace.AuditEntry) bool { return e.Actor.KeyID == "key_acme_admin" }},
		{"unknown target", "&targetId=team_none", func(workspace.AuditEntry) bool { return false }},
		{"since", "&since=" + url.QueryEscape(since.Format(time.RFC3339)), func(e workspace.AuditEntry) bool { return !e.At.Before(since) }},
		{"until is exclusive", "&until=" + url.QueryEscape(until.Format(time.RFC3339)), func(e workspace.AuditEntry) bool { return e.At.Before(until) }},
		{"since and until", "&since=" + url.QueryEscape(since.Format(time.RFC3339)) + "&until=" + url.QueryEscape(until.Format(time.RFC3339)),
			func(e workspace.AuditEntry) bool { return !e.At.Before(since) && e.At.Before(until) }},
		{"since equals until", "&since=2026-11-21&until=2026-11-21", func(workspace.AuditEntry) bool { return false }},
		{"target and action", "&targetId=team_1&action=agent.stopped", func(e workspace.AuditEntry) bool {
			return e.Target.ID == "team_1" && e.Action == workspace.ActionAgentStopped
		}},
		{"actor key and action", "&actorKeyId=key_acme_admin&action=invite.created", func(e workspace.AuditEntry) bool {
			return e.Actor.KeyID == "key_acme_admin" && e.Action == workspace.ActionInviteCreated
		}},
		{"every filter", "&targetId=team_0&actorKeyId=key_acme_admin&action=team.renamed&until=" + url.QueryEscape(until.Format(time.RFC3339)),
			func(e workspace.AuditEntry) bool {
				return e.Target.ID == "team_0" && e.Actor.KeyID == "key_acme_admin" && e.Action == workspace.ActionTeamRenamed && e.At.Before(until)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []workspace.AuditEntry
			for _, e := range entries {
				if tc.match(e) {
					want = append(want, e)
				}
			}
			for _, limit := range []int{3, 1000} {
				if got := ids(readAll(t, env, adminKey, tc.query, limit)); !slices.Equal(got, newestFirst(want)) {
					t.Errorf("%s (limit %d): listed %v\nwant %v", tc.query, limit, got, newestFirst(want))
				}
			}
		})
	}
}

func TestAuditLogPageCostDoesNotGrowWithTheLog(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	var entries []workspace.AuditEntry
	for i := range 3000 {
		target := "agt_busy"
		if i%1000 == 0 {
			target = "agt_rare"
		}
		entries = append(entries, workspace.NewAuditEntry(apitest.Start.Add(-time.Duration(i)*time.Second), workspace.SystemActor(workspace.SystemIngest),
			workspace.ActionAgentStopped, workspace.AuditTarget{Type: workspace.TargetAgent, ID: target}, nil))
	}
	entries = append(entries, workspace.NewAuditEntry(apitest.Start.Add(-time.Hour), workspace.SystemActor(workspace.SystemScheduler),
		workspace.ActionTeamResumed, workspace.AuditTarget{Type: workspace.TargetTeam, ID: "team_growth"}, nil))
	if err := tableops.PutAuditEntries(t.Context(), env.Store, "ws_acme", entries); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query   string
		want    int
		queries int
	}{
		{"&targetId=agt_rare", 3, 1}, // a target's entries share one partition
		{"&action=team.resumed", 1, pageQueries},
		{"&limit=2", 2, pageQueries},
	} {
		res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log?"+strings.TrimPrefix(tc.query, "&"), adminKey, "")
		var p pageJSON
		res.JSON(t, &p)
		if res.Status != 200 || len(p.Entries) != tc.want || res.FunctionTrips != tc.queries || res.FunctionPath != 1 {
			t.Errorf("%s: %d with %d entries after %d round trips (%d in turn), want 200 with %d after %d Queries at once",
				tc.query, res.Status, len(p.Entries), res.FunctionTrips, res.FunctionPath, tc.want, tc.queries)
		}
	}
}

func TestAuditLogIsForWorkspaceAdminsOfTheirOwnWorkspace(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	seeded(t, env, 3)
	for _, tc := range []struct {
		name, key string
		status    int
		entries   int
	}{
		{"admin", adminKey, 200, 3},
		{"read-only admin key", readOnlyKey, 200, 3},
		{"key without read", writeOnly, 403, 0},
		{"a Creator's key", creatorKey, 403, 0},
		{"team-scoped key", teamKey, 403, 0},
		{"another workspace's admin sees its own log only", globexKey, 200, 1},
	} {
		res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log", tc.key, "")
		var p pageJSON
		if res.Status == 200 {
			res.JSON(t, &p)
		}
		if res.Status != tc.status || len(p.Entries) != tc.entries {
			t.Errorf("%s: %d with %d entries, want %d with %d", tc.name, res.Status, len(p.Entries), tc.status, tc.entries)
		}
	}
}

func TestAuditLogQueryErrorsBeforeAnyRead(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	seeded(t, env, 5)
	res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log?limit=1&action=team.renamed", adminKey, "")
	var p pageJSON
	res.JSON(t, &p)
	if p.NextCursor == nil {
		t.Fatal("no next page")
	}
	cursor := url.QueryEscape(*p.NextCursor)
	// The cursor with one character of its position changed: its signature
	// no longer matches, so it is refused rather than read as another place.
	raw := []byte(*p.NextCursor)
	if last := len(raw) - 1; raw[last] == 'A' {
		raw[last] = 'B'
	} else {
		raw[last] = 'A'
	}
	tampered := url.QueryEscape(string(raw))
	for _, q := range []string{
		"action=team.renamed&cursor=" + tampered,
		"limit=0", "limit=1001", "limit=x", "action=team.exploded", "action=", "targetId=", "actorKeyId=",
		"since=yesterday", "until=2026-13-01", "since=2026-11-21&until=2026-11-20", "action=team.renamed&action=team.created",
		"cursor=%21%21", "cursor=" + cursor, "cursor=" + cursor + "&action=agent.stopped",
		"cursor=" + cursor + "&action=team.renamed&since=2026-01-01",
	} {
		if res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log?"+q, adminKey, ""); res.Status != 400 || res.FunctionTrips != 0 {
			t.Errorf("?%s: %d %s after %d round trips, want 400 before any", q, res.Status, res.Body, res.FunctionTrips)
		}
	}
	// The cursor is another workspace's there: refused, not a page of that log.
	if res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log?action=team.renamed&cursor="+cursor, globexKey, ""); res.Status != 400 {
		t.Errorf("another workspace's cursor: %d %s, want 400", res.Status, res.Body)
	}
	long := strings.Repeat("x", workspace.MaxIDLength+1)
	if res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log?targetId="+long, adminKey, ""); res.Status != 200 || res.FunctionTrips != 0 {
		t.Errorf("an id longer than any: %d after %d round trips, want an empty 200 without a read", res.Status, res.FunctionTrips)
	}
}

func TestAuditEntriesExpireAfterTheRetention(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	at := apitest.Start
	e := workspace.NewAuditEntry(at, workspace.SystemActor(workspace.SystemRetention), workspace.ActionInviteRemoved,
		workspace.AuditTarget{Type: workspace.TargetInvite, ID: "inv_x"}, nil)
	for _, tc := range []struct {
		store *dynamo.Store
		keep  time.Duration
	}{
		{env.Store, workspace.DefaultAuditRetention},
		{env.Store.WithAuditRetention(30 * 24 * time.Hour), 30 * 24 * time.Hour},
	} {
		puts, err := tc.store.AuditPuts("ws_acme", e)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := puts[0].Put.Item[dynamo.AttrTTL].(*types.AttributeValueMemberN)
		if want := fmt.Sprint(at.Add(tc.keep).Unix()); got == nil || got.Value != want {
			t.Errorf("ttl %v, want %s (kept %v)", got, want, tc.keep)
		}
	}
}

// A request's entries go to the shards, spread by their ids, never to the
// one partition release 2.0.0 wrote: a batch's transactions land on several
// partitions, and the log lists them all.
func TestARequestsEntriesSpreadOverTheShards(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	agents := []string{"agt_support_triage", "agt_release_notes", "agt_onboarding", "agt_kb_search", "agt_lead_qualifier"}
	body := `{"ids": ["` + strings.Join(agents, `", "`) + `"], "tags": ["sharded"]}`
	if res := env.Do(t, http.MethodPost, "/workspaceapi/agents/tags", adminKey, body); res.Status != 200 {
		t.Fatalf("tags: %d %s", res.Status, res.Body)
	}
	items, err := tableops.ScanItems(t.Context(), env.Store)
	if err != nil {
		t.Fatal(err)
	}
	partitions := map[string]int{}
	for _, it := range items {
		if e, ok := it["entity"].(*types.AttributeValueMemberS); ok && e.Value == "audit" {
			partitions[it["PK"].(*types.AttributeValueMemberS).Value]++
		}
	}
	if partitions["WS#ws_acme#AUDIT"] != 0 || len(partitions) < 2 {
		t.Errorf("the request's entries by partition: %v, want them over several shards WS#ws_acme#AUDIT#<shard>", partitions)
	}
	for pk := range partitions {
		if !strings.HasPrefix(pk, "WS#ws_acme#AUDIT#") {
			t.Errorf("an entry in partition %s", pk)
		}
	}
	if got := readAll(t, env, adminKey, "&action=agent.tags_changed", 2); len(got) != len(agents) {
		t.Errorf("listed %d tag changes, want %d", len(got), len(agents))
	}
}
