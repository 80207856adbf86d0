package dynamo_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// stoppedWorld is a table of workspaces whose agents are all stopped by
// their daily limit on the 22nd (noon): the scheduler's run of the 23rd
// resumes every one.
type stoppedWorld struct {
	t      testing.TB
	store  *dynamo.Store
	db     *dynamodb.Client
	table  string
	rt     *tableops.RoundTrips
	agents map[string][]string // workspace -> agent ids
}

var theNextDay = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)

// newStoppedWorld writes workspaces ws0, ws1, ... with perWorkspace[i]
// agents each, and stops every agent with usage at its daily limit.
func newStoppedWorld(t testing.TB, perWorkspace []int, clientOpts ...func(*dynamodb.Options)) *stoppedWorld {
	t.Helper()
	rt := &tableops.RoundTrips{}
	client := dynamolocal.NewClient(t, rt, clientOpts...)
	table := dynamolocal.NewTable(t, client)
	w := &stoppedWorld{t: t, store: dynamo.New(client, table), db: client, table: table, rt: rt, agents: map[string][]string{}}
	ctx := context.Background()
	for i, n := range perWorkspace {
		ws := fmt.Sprint("ws", i)
		snap := tableops.Snapshot{Workspace: workspace.Workspace{ID: ws, Name: ws, Seats: 5}}
		for k := range n {
			id := fmt.Sprintf("a%03d", k)
			w.agents[ws] = append(w.agents[ws], id)
			snap.Agents = append(snap.Agents, workspace.Agent{ID: id, Name: id, AgentDiscoverability: "workspace", DailyCreditLimit: lim(1)})
		}
		if err := tableops.PutSnapshot(ctx, w.store, snap, noon); err != nil {
			t.Fatal(err)
		}
		for start := 0; start < n; start += 25 {
			var batch []workspace.Usage
			for _, id := range w.agents[ws][start:min(start+25, n)] {
				batch = append(batch, workspace.Usage{EventID: ws + id, WorkspaceID: ws, AgentID: id, Credits: 1, OccurredAt: noon})
			}
			for _, err := range w.store.ApplyUsage(ctx, workspace.SystemActor(workspace.SystemIngest), batch, noon).Errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	w.wantEvery(noon, workspace.AgentState{Status: workspace.StatusStopped, Reason: workspace.ReasonDailyLimit})
	rt.Reset()
	return w
}

// wantEvery checks that every agent is in state at at.
func (w *stoppedWorld) wantEvery(at time.Time, state workspace.AgentState) {
	w.t.Helper()
	for ws := range w.agents {
		rep, err := w.store.CreditsReport(context.Background(), ws, workspace.MonthKey(at), at)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, a := range rep.Agents {
			if got := a.Credit.State(); got != state {
				w.t.Errorf("%s/%s: %+v, want %+v", ws, a.Agent.ID, got, state)
			}
		}
	}
}

// wantResumedOnce checks that each agent's audit log records one resume:
// however many runs took part, none resumed an agent twice.
func (w *stoppedWorld) wantResumedOnce() {
	w.t.Helper()
	for ws, ids := range w.agents {
		entries, _, err := w.store.AuditPage(context.Background(), ws, workspace.AuditFilter{}, "", 1000)
		if err != nil {
			w.t.Fatal(err)
		}
		resumes := map[string]int{}
		for _, e := range entries {
			if e.Action == workspace.ActionAgentResumed {
				resumes[e.Target.ID]++
			}
		}
		for _, id := range ids {
			if resumes[id] != 1 {
				w.t.Errorf("%s/%s: resumed %d times in the audit log, want once", ws, id, resumes[id])
			}
		}
	}
}

func (w *stoppedWorld) run(ctx context.Context, store *dynamo.Store) (workspace.ResumeRun, error) {
	return store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), theNextDay)
}

// The index's partitions are read at once and their entries resumed side by
// side: 150 agents of 3 workspaces spread over the index's shards take a few
// round trips in turn, not one per entry.
func TestARunWorksTheResumeIndexShardsInParallel(t *testing.T) {
	t.Parallel()
	w := newStoppedWorld(t, []int{50, 50, 50})
	run, err := w.run(context.Background(), w.store)
	if err != nil || run != (workspace.ResumeRun{ResumedAgents: 150, Finished: true}) {
		t.Fatalf("run: %+v, %v; want 150 resumed, finished", run, err)
	}
	// The run's own calls, counted before the checks below read the table.
	counts := map[string]int{}
	for _, op := range []string{"TransactWriteItems", "Query", "UpdateItem", "BatchGetItem"} {
		counts[op] = w.rt.OpCount(op)
	}
	depth := w.rt.Depth()
	w.wantEvery(theNextDay, workspace.Running)
	w.wantResumedOnce()
	// Each resume is a read and a transaction: 300; each partition a Query
	// and its record (96 each); the claim and the release of the day.
	if got := counts["TransactWriteItems"]; got != 150 {
		t.Errorf("%d transactions, want one per resume (150)", got)
	}
	// (Attempts are counted: an attempt past its timeout on a loaded
	// machine is sent again, so a count may come out above its calls.)
	for op, want := range map[string]int{"Query": 96, "UpdateItem": 96 + 2, "BatchGetItem": 150} {
		if got := counts[op]; got < want || got > want+want/5 {
			t.Errorf("%d %s attempts, want %d calls", got, op, want)
		}
	}
	if depth > 20 {
		t.Errorf("%d round trips in turn, want the partitions and resumes side by side (at most 20)", depth)
	}
	// Later runs of the day only look: one claim, one release.
	w.rt.Reset()
	run, err = w.run(context.Background(), w.store)
	if err != nil || run != (workspace.ResumeRun{Finished: true}) || w.rt.Count() != 2 {
		t.Errorf("the day's next run: %+v, %v, %v; want nothing done in 2 round trips", run, err, w.rt.Ops())
	}
}

// A run whose time runs out stops starting resumes; the day's next run
// (the frequent schedule's) goes on from there and finishes: every agent is
// resumed once.
func TestARunCutOffByItsDeadlineIsFinishedByTheNextRun(t *testing.T) {
	t.Parallel()
	w := newStoppedWorld(t, []int{40})
	// 10 resumes a second: the 40 take 4 s; the run may start them for
	// 2 s (its deadline, less the 2 s margin), reading the index included.
	slow := w.store.WithResumePace(10, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	first, err := w.run(ctx, slow)
	if err != nil {
		t.Fatalf("first run: %v", err)
	}
	if first.Finished || first.ResumedAgents >= 40 {
		t.Fatalf("first run: %+v; want some of the 40 resumed, not finished", first)
	}
	second, err := w.run(context.Background(), w.store)
	if err != nil || !second.Finished || first.ResumedAgents+second.ResumedAgents != 40 {
		t.Fatalf("second run: %+v, %v after %+v; want the other %d resumed, finished", second, err, first, 40-first.ResumedAgents)
	}
	w.wantEvery(theNextDay, workspace.Running)
	w.wantResumedOnce()
}

// A run that crashes part way (here: its context ends after 15 resumes'
// transactions) returns an error; the next run resumes the rest, and
// nothing twice.
func TestARunThatCrashesIsFinishedByTheNextRun(t *testing.T) {
	t.Parallel()
	crash := &afterTransactions{n: 15}
	w := newStoppedWorld(t, []int{20, 20}, crash.option())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	crash.arm(cancel)
	first, err := w.run(ctx, w.store)
	if err == nil || first.Finished {
		t.Fatalf("first run: %+v, %v; want an error, not finished", first, err)
	}
	second, err := w.run(context.Background(), w.store)
	// A transaction in flight at the crash may have committed unseen: the
	// runs count at most 40, the audit log exactly one resume each.
	if err != nil || !second.Finished || second.ResumedAgents == 0 || first.ResumedAgents+second.ResumedAgents > 40 {
		t.Fatalf("second run: %+v, %v after %+v; want the rest resumed, finished", second, err, first)
	}
	w.wantEvery(theNextDay, workspace.Running)
	w.wantResumedOnce()
}

// Two runs at once: the day's lease lets one work, the other returns Busy;
// runs of two days at once (no lease between them) race on the same
// entries, and the resumes' conditions let each agent be resumed once.
func TestOverlappingRunsResumeEachAgentOnce(t *testing.T) {
	t.Parallel()
	w := newStoppedWorld(t, []int{30, 30})
	days := []time.Time{theNextDay, theNextDay, theNextDay.AddDate(0, 0, 1)}
	runs := make([]workspace.ResumeRun, len(days))
	errs := make([]error, len(days))
	var wg sync.WaitGroup
	for i, day := range days {
		wg.Go(func() {
			runs[i], errs[i] = w.store.ResumeDue(context.Background(), workspace.SystemActor(workspace.SystemScheduler), day)
		})
	}
	wg.Wait()
	resumed, busy := 0, 0
	for i, run := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		resumed += run.ResumedAgents
		if run.Busy {
			busy++
		}
	}
	if resumed != 60 {
		t.Errorf("runs %+v resumed %d in all, want 60", runs, resumed)
	}
	if busy > 1 || runs[2].Busy {
		t.Errorf("runs %+v: want at most one of the same day's two busy, the next day's never", runs)
	}
	w.wantEvery(theNextDay.AddDate(0, 0, 1), workspace.Running)
	w.wantResumedOnce()
}

// One workspace's resumes start paced apart (here 20 a second: 50 ms),
// while another workspace's go on beside them.
func TestResumesArePacedPerWorkspace(t *testing.T) {
	t.Parallel()
	starts := &transactionStarts{at: map[string][]time.Time{}}
	w := newStoppedWorld(t, []int{15, 15}, starts.option())
	starts.reset()
	run, err := w.run(context.Background(), w.store.WithResumePace(20, 0))
	if err != nil || run.ResumedAgents != 30 {
		t.Fatalf("run: %+v, %v", run, err)
	}
	got := starts.snapshot()
	for ws, at := range got {
		if len(at) != 15 {
			t.Fatalf("%s: %d transactions, want 15", ws, len(at))
		}
		// The pace sets when a resume may start; its transaction follows
		// its read, whose time varies, so transactions k and k+5 are at
		// least 5 paces apart less that spread (100 ms allowed): no window
		// holds more of them than the pace lets through.
		for i := 5; i < len(at); i++ {
			if gap := at[i].Sub(at[i-5]); gap < 150*time.Millisecond {
				t.Errorf("%s: transactions %d and %d %v apart, want at least 150 ms (5 × 50 ms, less 100 ms)", ws, i-5, i, gap)
			}
		}
	}
	a, b := got["ws0"], got["ws1"]
	if !a[0].Before(b[len(b)-1]) || !b[0].Before(a[len(a)-1]) {
		t.Errorf("ws0 from %v to %v, ws1 from %v to %v: want them side by side", a[0], a[len(a)-1], b[0], b[len(b)-1])
	}
}

// transactWorkspace is the workspace of a transaction's first Update (a
// resume's agent state: WS#<ws>#AGENTDATA#...).
func transactWorkspace(in *dynamodb.TransactWriteItemsInput) string {
	for _, it := range in.TransactItems {
		if it.Update == nil {
			continue
		}
		if pk, ok := it.Update.Key["PK"].(*types.AttributeValueMemberS); ok {
			ws, _, _ := strings.Cut(strings.TrimPrefix(pk.Value, "WS#"), "#")
			return ws
		}
	}
	return ""
}

// onTransaction is a client option calling f with each transaction before
// it is sent.
func onTransaction(name string, f func(ctx context.Context, in *dynamodb.TransactWriteItemsInput)) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc(name,
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					if tx, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok {
						f(ctx, tx)
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	}
}

// transactionStarts records when each workspace's transactions are sent.
type transactionStarts struct {
	mu sync.Mutex
	at map[string][]time.Time
}

func (s *transactionStarts) option() func(*dynamodb.Options) {
	return onTransaction("RecordTransactionStarts", func(_ context.Context, in *dynamodb.TransactWriteItemsInput) {
		s.mu.Lock()
		defer s.mu.Unlock()
		ws := transactWorkspace(in)
		s.at[ws] = append(s.at[ws], time.Now())
	})
}

func (s *transactionStarts) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at = map[string][]time.Time{}
}

func (s *transactionStarts) snapshot() map[string][]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]time.Time{}
	for ws, at := range s.at {
		out[ws] = append([]time.Time(nil), at...)
	}
	return out
}

// afterTransactions calls the armed function once n transactions have been
// sent after it was armed: a crash in the middle of a run.
type afterTransactions struct {
	mu    sync.Mutex
	n     int
	crash func()
}

func (a *afterTransactions) arm(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.crash = f
}

func (a *afterTransactions) option() func(*dynamodb.Options) {
	return onTransaction("CrashAfterTransactions", func(context.Context, *dynamodb.TransactWriteItemsInput) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.crash == nil {
			return
		}
		if a.n--; a.n == 0 {
			a.crash()
			a.crash = nil
		}
	})
}
