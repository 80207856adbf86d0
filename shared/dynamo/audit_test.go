package dynamo_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

var auditStart = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// auditEntry is entry i of a test log: by the admin key on even i, by the
// scheduler on odd; one of three actions and four targets.
func auditEntry(id string, i int, at time.Time) workspace.AuditEntry {
	actor := workspace.KeyActor(workspace.Caller{KeyID: "key_admin", UserID: "usr_ada"}, fmt.Sprintf("req-%d", i))
	if i%2 == 1 {
		actor = workspace.SystemActor(workspace.SystemScheduler)
	}
	actions := []workspace.AuditAction{workspace.ActionAgentResumed, workspace.ActionAgentStopped, workspace.ActionTeamRenamed}
	e := workspace.NewAuditEntry(at, actor, actions[i%3], workspace.AuditTarget{Type: workspace.TargetAgent, ID: fmt.Sprintf("agt_%d", i%4)}, nil)
	e.ID = id
	return e
}

// partitionCount is how many items a partition of the table or of an index
// holds.
func partitionCount(t *testing.T, store *dynamo.Store, index, pkName, pk string) int {
	t.Helper()
	in := &dynamodb.QueryInput{
		TableName: aws.String(store.Table()), Select: types.SelectCount,
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ExpressionAttributeNames:  map[string]string{"#pk": pkName},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
	}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	n := 0
	for p := dynamodb.NewQueryPaginator(store.Client(), in); p.HasMorePages(); {
		out, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		n += int(out.Count)
	}
	return n
}

// The scheduler's resume wave: many writers at once, each a transaction of
// many entries of one action by one actor. Their entries, and those of each
// one transaction, spread over every shard of the log and of the action's
// and the acting key's index partitions; none lands in the partition
// release 2.0.0 wrote.
func TestAuditEntriesOfConcurrentWritersSpreadOverTheShards(t *testing.T) {
	t.Parallel()
	store, _ := dynamolocal.NewStore(t)
	const writers, perWriter = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entries := make([]workspace.AuditEntry, perWriter)
			for i := range entries {
				// Every entry by the admin key, resuming agents.
				entries[i] = auditEntry(fmt.Sprintf("aud_w%dx%03d", w, i), 0, auditStart.Add(time.Duration(i)*time.Millisecond))
			}
			puts, err := store.AuditPuts("ws_a", entries...)
			if err != nil {
				t.Error(err)
				return
			}
			shards := map[string]bool{}
			for _, p := range puts {
				shards[p.Put.Item["PK"].(*types.AttributeValueMemberS).Value] = true
			}
			if len(shards) < dynamo.AuditShards*3/4 {
				t.Errorf("writer %d: one transaction's %d entries went to %d shards, want them spread", w, perWriter, len(shards))
			}
			if err := tableops.PutAuditEntries(t.Context(), store, "ws_a", entries); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	mean := writers * perWriter / dynamo.AuditShards
	total := 0
	for n := range dynamo.AuditShards {
		for _, p := range []struct{ index, pkName, pk string }{
			{"", "PK", fmt.Sprintf("WS#ws_a#AUDIT#%d", n)},
			{dynamo.IndexGSI3, "GSI3PK", fmt.Sprintf("WS#ws_a#AUDIT#%d#ACTION#agent.resumed", n)},
			{dynamo.IndexGSI2, "GSI2PK", fmt.Sprintf("WS#ws_a#AUDIT#%d#KEY#key_admin", n)},
		} {
			got := partitionCount(t, store, p.index, p.pkName, p.pk)
			if got < mean/3 || got > mean*3 {
				t.Errorf("%s %s holds %d entries, want about %d", p.index, p.pk, got, mean)
			}
			if p.index == "" {
				total += got
			}
		}
	}
	if total != writers*perWriter {
		t.Errorf("the shards hold %d entries, want %d", total, writers*perWriter)
	}
	if got := partitionCount(t, store, "", "PK", "WS#ws_a#AUDIT"); got != 0 {
		t.Errorf("the partition of release 2.0.0 holds %d new entries, want none", got)
	}
}

// position is an entry's place in the log: newest first, then by id
// descending.
func position(e workspace.AuditEntry) string {
	return e.At.UTC().Format(workspace.TimeFormat) + "#" + e.ID
}

// A log spread over the shards and the partition release 2.0.0 wrote, read
// a page at a time while writers keep adding entries newer than the first
// page: every entry that was there lists exactly once, the pages together
// newest first (ties at one millisecond by id), whatever the filter and the
// page size, and no entry added after the first page lists on a later one.
func TestAuditPagesMergeTheShardsExactlyUnderConcurrentInserts(t *testing.T) {
	t.Parallel()
	store, _ := dynamolocal.NewStore(t)
	// Another workspace's entries never show.
	if err := tableops.PutAuditEntries(t.Context(), store, "ws_b", []workspace.AuditEntry{auditEntry("aud_other", 0, auditStart)}); err != nil {
		t.Fatal(err)
	}
	var added atomic.Int64
	round := 0
	for _, tc := range []struct {
		name   string
		f      workspace.AuditFilter
		match  func(workspace.AuditEntry) bool
		limits []int
	}{
		{"whole log", workspace.AuditFilter{}, func(workspace.AuditEntry) bool { return true }, []int{1, 7, 100}},
		{"action", workspace.AuditFilter{Action: workspace.ActionAgentStopped}, func(e workspace.AuditEntry) bool { return e.Action == workspace.ActionAgentStopped }, []int{3, 100}},
		{"acting key", workspace.AuditFilter{ActorKeyID: "key_admin"}, func(e workspace.AuditEntry) bool { return e.Actor.KeyID == "key_admin" }, []int{3, 100}},
		{"acting key and action", workspace.AuditFilter{ActorKeyID: "key_admin", Action: workspace.ActionTeamRenamed},
			func(e workspace.AuditEntry) bool {
				return e.Actor.KeyID == "key_admin" && e.Action == workspace.ActionTeamRenamed
			}, []int{2, 100}},
		{"target", workspace.AuditFilter{TargetID: "agt_1"}, func(e workspace.AuditEntry) bool { return e.Target.ID == "agt_1" }, []int{3, 100}},
		{"since and until", workspace.AuditFilter{Since: auditStart.Add(-30 * time.Second), Until: auditStart.Add(-10 * time.Second)},
			func(e workspace.AuditEntry) bool {
				return !e.At.Before(auditStart.Add(-30*time.Second)) && e.At.Before(auditStart.Add(-10*time.Second))
			}, []int{3, 100}},
	} {
		for _, limit := range tc.limits {
			round++
			ws := fmt.Sprintf("ws_r%d", round)
			all := seedShardsAndLegacy(t, store, ws, 120)
			var want []string
			for _, e := range all {
				if tc.match(e) {
					want = append(want, position(e))
				}
			}
			slices.Sort(want)
			slices.Reverse(want)

			var got []string
			var stop chan struct{}
			var writers sync.WaitGroup
			after := ""
			for pages := 0; ; pages++ {
				page, next, err := store.AuditPage(t.Context(), ws, tc.f, after, limit)
				if err != nil {
					t.Fatalf("%s, limit %d: %v", tc.name, limit, err)
				}
				if len(page) > limit {
					t.Fatalf("%s: a page of %d entries, limit %d", tc.name, len(page), limit)
				}
				for _, e := range page {
					got = append(got, position(e))
				}
				if pages == 0 { // writers add entries from now on
					stop = make(chan struct{})
					for w := range 3 {
						writers.Add(1)
						go func() {
							defer writers.Done()
							addAuditEntries(t, store, ws, w, stop, &added)
						}()
					}
				}
				if next == "" {
					break
				}
				if pages > 1000 {
					t.Fatalf("%s: the log never ends", tc.name)
				}
				after = next
			}
			close(stop)
			writers.Wait()
			if !slices.Equal(got, want) {
				t.Errorf("%s, limit %d: listed %d entries %v\nwant %d %v", tc.name, limit, len(got), got, len(want), want)
			}
		}
	}
	if added.Load() == 0 {
		t.Error("no entry was added while reading")
	}
}

// seedShardsAndLegacy writes n entries of ws, three at each millisecond,
// one in five as release 2.0.0 wrote them and the others through AuditPuts,
// and returns them.
func seedShardsAndLegacy(t *testing.T, store *dynamo.Store, ws string, n int) []workspace.AuditEntry {
	t.Helper()
	var sharded, legacy []workspace.AuditEntry
	for i := range n {
		e := auditEntry(fmt.Sprintf("aud_%04d", i), i, auditStart.Add(-time.Duration(i/3)*time.Second))
		if i%5 == 0 {
			legacy = append(legacy, e)
		} else {
			sharded = append(sharded, e)
		}
	}
	if err := tableops.PutAuditEntries(t.Context(), store, ws, sharded); err != nil {
		t.Fatal(err)
	}
	items, err := dynamo.Release200AuditItems(ws, legacy, workspace.DefaultAuditRetention)
	if err != nil {
		t.Fatal(err)
	}
	if err := tableops.PutItems(t.Context(), store, items); err != nil {
		t.Fatal(err)
	}
	return append(sharded, legacy...)
}

// addAuditEntries writes entries of ws newer than any seeded, ten a
// transaction, matching every filter of the test in turn, until stop.
func addAuditEntries(t *testing.T, store *dynamo.Store, ws string, w int, stop chan struct{}, added *atomic.Int64) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		batch := make([]workspace.AuditEntry, 10)
		for k := range batch {
			batch[k] = auditEntry(fmt.Sprintf("aud_new_%d_%05d", w, i*10+k), k, auditStart.Add(time.Hour+time.Duration(i)*time.Millisecond))
		}
		if err := tableops.PutAuditEntries(t.Context(), store, ws, batch); err != nil {
			t.Error(err)
			return
		}
		added.Add(int64(len(batch)))
	}
}
