package dynamo_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// heldWorkspace cancels every transaction that writes an item of workspace
// ws, as real DynamoDB cancels those meeting an item another transaction
// holds (TransactionConflict on that item), for as long as the test runs.
type heldWorkspace struct {
	ws        string
	cancelled atomic.Int64
}

func (h *heldWorkspace) option() func(*dynamodb.Options) {
	return beforeTransaction(func(tx *dynamodb.TransactWriteItemsInput) error {
		reasons := make([]types.CancellationReason, len(tx.TransactItems))
		held := false
		for i, it := range tx.TransactItems {
			reasons[i] = types.CancellationReason{Code: aws.String("None")}
			if pk := transactPK(it); strings.HasPrefix(pk, "WS#"+h.ws+"#") || pk == "WS#"+h.ws {
				reasons[i], held = types.CancellationReason{Code: aws.String("TransactionConflict")}, true
			}
		}
		if !held {
			return nil
		}
		h.cancelled.Add(1)
		return &types.TransactionCanceledException{Message: aws.String("Transaction cancelled"), CancellationReasons: reasons}
	})
}

// beforeTransaction is a client option running f before each
// TransactWriteItems call is sent; an error from f is the call's answer.
func beforeTransaction(f func(*dynamodb.TransactWriteItemsInput) error) func(*dynamodb.Options) {
	return beforeCall("BeforeTransaction", f)
}

// beforeCall is a client option running f before each call whose input is
// an *In; an error from f is the call's answer.
func beforeCall[In any](name string, f func(*In) error) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc(name,
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					if tx, ok := in.Parameters.(*In); ok {
						if err := f(tx); err != nil {
							return middleware.InitializeOutput{}, middleware.Metadata{}, err
						}
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	}
}

// transactPK is the partition key of a transaction's item.
func transactPK(it types.TransactWriteItem) string {
	var k map[string]types.AttributeValue
	switch {
	case it.Put != nil:
		k = it.Put.Item
	case it.Update != nil:
		k = it.Update.Key
	case it.Delete != nil:
		k = it.Delete.Key
	case it.ConditionCheck != nil:
		k = it.ConditionCheck.Key
	}
	pk, _ := k["PK"].(*types.AttributeValueMemberS)
	if pk == nil {
		return ""
	}
	return pk.Value
}

// A batch's workspaces are applied each on its own: a workspace whose
// transactions keep being cancelled fails its own events only.
func TestOneWorkspacesConflictsFailOnlyItsOwnEvents(t *testing.T) {
	t.Parallel()
	held := &heldWorkspace{ws: "ws2"}
	w := newCreditWorld(t, held.option())
	if err := tableops.PutSnapshot(t.Context(), w.store, tableops.Snapshot{
		Workspace: workspace.Workspace{ID: "ws2", Name: "W2", Seats: 5},
		Agents:    []workspace.Agent{{ID: "b1", Name: "B1", AgentDiscoverability: "none"}},
	}, noon); err != nil {
		t.Fatal(err)
	}
	batch := []workspace.Usage{
		{EventID: "x1", WorkspaceID: "ws2", AgentID: "b1", Credits: 1, OccurredAt: noon},
		{EventID: "e1", WorkspaceID: "ws1", AgentID: "a2", Credits: 2, OccurredAt: noon},
		{EventID: "x2", WorkspaceID: "ws2", AgentID: "b1", Credits: 1, OccurredAt: noon},
		{EventID: "e2", WorkspaceID: "ws1", AgentID: "solo", Credits: 3, OccurredAt: noon},
	}
	rep := w.store.ApplyUsage(t.Context(), workspace.SystemActor(workspace.SystemIngest), batch, noon)
	for i, e := range batch {
		err := rep.Errs[i]
		switch {
		case e.WorkspaceID == "ws1" && err != nil:
			t.Errorf("%s of ws1: %v; want applied", e.EventID, err)
		case e.WorkspaceID == "ws2" && !workspace.IsBusy(err):
			t.Errorf("%s of the held ws2: %v; want busy (redelivered)", e.EventID, err)
		}
	}
	if got := w.credit("a2", noon).Position.Month; got != 2 {
		t.Errorf("a2's month = %v, want 2", got)
	}
	if got := w.credit("solo", noon).Position.Month; got != 3 {
		t.Errorf("solo's month = %v, want 3", got)
	}
	if held.cancelled.Load() < 2 {
		t.Errorf("ws2's transaction was cancelled %d times; want it retried", held.cancelled.Load())
	}
}

// A usage transaction cancelled on its usage shard's item (another
// transaction holds it) is retried on another shard, and the workspace's
// and the team's totals still sum every shard.
func TestAUsageShardConflictMovesTheRetryToAnotherShard(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var shards []string
	cancelled := false
	w := newCreditWorld(t, beforeTransaction(func(tx *dynamodb.TransactWriteItemsInput) error {
		mu.Lock()
		defer mu.Unlock()
		at := -1
		for i, it := range tx.TransactItems {
			if pk := transactPK(it); strings.HasPrefix(pk, "WS#ws1#USAGE#") {
				if at < 0 {
					shards = append(shards, pk)
				}
				at = i
			}
		}
		if at < 0 || cancelled {
			return nil
		}
		cancelled = true
		reasons := make([]types.CancellationReason, len(tx.TransactItems))
		for i := range reasons {
			reasons[i] = types.CancellationReason{Code: aws.String("None")}
		}
		reasons[at] = types.CancellationReason{Code: aws.String("TransactionConflict")}
		return &types.TransactionCanceledException{Message: aws.String("Transaction cancelled"), CancellationReasons: reasons}
	}))
	w.use("a2", 2, noon)
	w.use("a3", 3, noon)
	w.use("solo", 4, noon)
	if len(shards) < 2 || shards[0] == shards[1] {
		t.Errorf("shards of the attempts = %v; want the retry on another shard than the cancelled one", shards)
	}
	rep, err := w.store.CreditsReport(t.Context(), "ws1", "2026-11", noon)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total != 9 || len(rep.Teams) != 1 || rep.Teams[0].Used != 5 {
		t.Errorf("report: total %v, teams %+v; want 9 and t1 5", rep.Total, rep.Teams)
	}
	d, err := w.store.TeamDetail(t.Context(), "ws1", "t1", noon)
	if err != nil || d.CreditsThisMonth != 5 {
		t.Errorf("team detail: %v, %v; want 5 this month", d.CreditsThisMonth, err)
	}
}

// After the write, settling a batch that crosses nothing reads per agent
// its state and its month usage, per workspace its item, per team its item
// and state: not the agents again, not a team's shards when it has no
// limit, no threshold marker.
func TestSettlingABatchThatCrossesNothingReadsOnlyTheStandings(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var reads [][]string
	w := newCreditWorld(t, beforeCall("CountReads", func(in *dynamodb.BatchGetItemInput) error {
		mu.Lock()
		defer mu.Unlock()
		var got []string
		for _, ka := range in.RequestItems {
			for _, k := range ka.Keys {
				pk, _ := k["PK"].(*types.AttributeValueMemberS)
				sk, _ := k["SK"].(*types.AttributeValueMemberS)
				got = append(got, pk.Value+" "+sk.Value)
			}
		}
		slices.Sort(got)
		reads = append(reads, got)
		return nil
	}))
	if err := tableops.PutSnapshot(t.Context(), w.store, tableops.Snapshot{
		Workspace: workspace.Workspace{ID: "ws2", Name: "W2", Seats: 5, TeamSettingsEnabled: true},
		Teams:     []workspace.Team{{ID: "tn", Name: "No limit"}},
		Agents: []workspace.Agent{{ID: "b1", Name: "B1", TeamID: "tn", AgentDiscoverability: "team"},
			{ID: "b2", Name: "B2", AgentDiscoverability: "none"}},
	}, noon); err != nil {
		t.Fatal(err)
	}
	apply := func(ids ...string) {
		t.Helper()
		var batch []workspace.Usage
		for _, id := range ids {
			batch = append(batch, workspace.Usage{EventID: id, WorkspaceID: "ws2", AgentID: "b" + id[1:2], Credits: 1, OccurredAt: noon})
		}
		for i, err := range w.store.ApplyUsage(t.Context(), workspace.SystemActor(workspace.SystemIngest), batch, noon).Errs {
			if err != nil {
				t.Fatalf("%s: %v", batch[i].EventID, err)
			}
		}
	}
	apply("e1", "e2") // the month's first usage lists b1 and b2
	mu.Lock()
	reads = nil
	mu.Unlock()
	w.rt.Reset()
	apply("e1x", "e2x", "e1y")
	want := [][]string{
		{"WS#ws2 AGENT#b1", "WS#ws2 AGENT#b2"}, // before the write: the agents
		{"WS#ws2 META", "WS#ws2 TEAM#tn", "WS#ws2#AGENTDATA#b1 LISTING#2026-11", "WS#ws2#AGENTDATA#b1 STATE", "WS#ws2#AGENTDATA#b1 USAGE#2026-11",
			"WS#ws2#AGENTDATA#b2 LISTING#2026-11", "WS#ws2#AGENTDATA#b2 STATE", "WS#ws2#AGENTDATA#b2 USAGE#2026-11", "WS#ws2#TEAMDATA#tn STATE"},
	}
	if !reflect.DeepEqual(reads, want) {
		t.Errorf("reads %v,\nwant %v", reads, want)
	}
	if ops := w.rt.Ops(); !slices.Equal(ops, []string{"BatchGetItem", "TransactWriteItems", "UpdateItem", "UpdateItem", "BatchGetItem"}) {
		t.Errorf("ops %v: want the agents, one transaction, an activity update per agent, the standings", ops)
	}
}

// The month listings hold both kinds of entry: a usage item written before
// release 3.0.0 (listed by its own keys) and a listing item written once
// after an agent's first usage of the month; the export reads each agent
// once with its days' spend.
func TestTheMonthListingReadsOldAndNewEntries(t *testing.T) {
	t.Parallel()
	w := newCreditWorld(t)
	old, err := dynamo.UsageMonthItem("ws1", workspace.Agent{ID: "a1", TeamID: "t1"}, "2026-11", map[int]float64{3: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	if err := tableops.PutItems(t.Context(), w.store, []map[string]types.AttributeValue{old}); err != nil {
		t.Fatal(err)
	}
	w.use("a2", 4, noon)
	w.use("a2", 1, noon) // listed already: no second entry
	w.use("a1", 1, noon) // an old entry: no listing item
	for _, team := range []string{"", "t1"} {
		got, more, err := w.store.UsageMonthPage(t.Context(), "ws1", team, "2026-11", "", 10)
		if err != nil || more {
			t.Fatal(err, more)
		}
		if len(got) != 2 || got[0].AgentID != "a1" || got[0].Spent[3] != 2.5 || got[0].Spent[22] != 1 ||
			got[1].AgentID != "a2" || got[1].Spent[22] != 5 || got[1].TeamID != "t1" {
			t.Errorf("team %q: listing %+v; want a1 (2.5 on the 3rd, 1 on the 22nd) and a2 (5 on the 22nd) once each", team, got)
		}
	}
}
