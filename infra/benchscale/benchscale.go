// Package benchscale is make bench-scale: the ingest function's real handler
// (ingest.Wire, as its main wires it) applying a platform's usage through a
// simulated SQS queue, in several simulated Lambda environments, on DynamoDB
// Local behind the model of DynamoDB's item-level contention
// (dynamolocal.Contention). It prints one markdown table (docs/benchmarks.md
// keeps a run's). It reads the service only through the handler and the
// store's exported reads, so it measures whatever write path the store has.
package benchscale

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Config is a run's shape. DefaultConfig gives make bench-scale's.
type Config struct {
	// Endpoint is the DynamoDB Local to run on.
	Endpoint string
	// Duration is how long the platform sends; the queue is then drained.
	Duration time.Duration
	// Rate is the events per second the platform sends at most; the queue
	// holds at most Backlog messages not yet received besides the ones in
	// flight, as a platform pacing itself on the queue's depth would.
	Rate    int
	Backlog int
	// Concurrency and BatchSize are the event source's MaximumConcurrency
	// and BatchSize (template.yaml: 10 and 25); BatchWindow its
	// MaximumBatchingWindowInSeconds, scaled.
	Concurrency, BatchSize int
	BatchWindow            time.Duration
	// Visibility is the queue's VisibilityTimeout, scaled; MaxReceives its
	// redrive policy's maxReceiveCount.
	Visibility  time.Duration
	MaxReceives int
	// The platform: one large workspace with HotAgents agents in the team
	// whose monthly limit is HotTeamLimit and OtherAgents in two other
	// teams, sending LargeShare of the events (HotShare of those to the hot
	// team); SmallWorkspaces of SmallAgents agents each send the rest, the
	// first SmallLimited agents of each with a daily limit of SmallDaily.
	HotAgents, OtherAgents       int
	HotTeamLimit                 float64
	LargeShare, HotShare         float64
	SmallWorkspaces, SmallAgents int
	SmallLimited                 int
	SmallDaily                   float64
	// MaxCredits is the most credits an event uses (each uses 1 to it).
	MaxCredits int
	// NoModel runs the environments on DynamoDB Local alone (which queues
	// what DynamoDB would cancel), for comparison.
	NoModel bool
	// CommitTime and PartitionWCU are the model's (dynamolocal.Contention).
	CommitTime   time.Duration
	PartitionWCU float64
	// Seed makes the platform's draws repeatable.
	Seed uint64
}

// DefaultConfig is make bench-scale's run: the template's event source
// (batches of 25, 10 environments, 5 receives), its 180 s visibility
// timeout and 1 s batching window scaled by 1/500, DynamoDB's 1,000 WCU per
// partition and a 5 ms commit phase.
func DefaultConfig() Config {
	return Config{
		Duration: 40 * time.Second, Rate: 1000, Backlog: 250,
		Concurrency: 10, BatchSize: 25, BatchWindow: 2 * time.Millisecond,
		Visibility: 360 * time.Millisecond, MaxReceives: 5,
		HotAgents: 200, OtherAgents: 100, HotTeamLimit: 2000, LargeShare: 0.8, HotShare: 0.6,
		SmallWorkspaces: 40, SmallAgents: 5, SmallLimited: 2, SmallDaily: 10, MaxCredits: 10,
		CommitTime: 5 * time.Millisecond, PartitionWCU: dynamolocal.DefaultPartitionWCU, Seed: 1,
	}
}

// target is an agent the platform sends usage for.
type target struct {
	ws, agent, team string
	large, hot      bool
	daily           float64 // 0: none
}

// message is one SQS message: one event.
type message struct {
	id       string
	body     []byte
	t        *target
	credits  float64
	receives int
	visible  time.Time
	inFlight bool
	redriven bool
}

// crossing is a limit the run crosses: a team's monthly or an agent's daily.
type crossing struct {
	ws, team, agent string // agent: an agent's limit; else the team's (agent: one of its agents, to read the flag)
	limit           float64
	sent            float64
	event           *message  // the event whose sending reached the limit
	receivedAt      time.Time // its first receipt
	storedAt        time.Time // when the stop or pause was first read back
	late            bool      // only read back once the queue was drained
}

// run is one run's state.
type run struct {
	cfg     Config
	model   *dynamolocal.Contention
	reader  *dynamo.Store
	table   string
	clients []*dynamodb.Client
	targets []*target

	mu              sync.Mutex
	queue           []*message
	deleted         int
	dead            []*message
	redriven        int
	redrivenApplied int
	durations       []time.Duration    // of the handler's invocations
	sentBy          map[string]float64 // by agent ws/agent: credits sent
	stopped         map[*target]bool
	crossings       []*crossing
	byTarget        map[*target][]*crossing
	firstRecv       map[bool][2]int // large? -> failed first receipts, first receipts
	applied         atomic.Int64
}

// Result is what a run measured.
type Result struct {
	Config                      Config
	Sent, Applied, DeadLettered int
	// DeadAgain are the redriven events dead-lettered a second time.
	DeadAgain                             int
	InvocationP50, InvocationP99          time.Duration
	Elapsed                               time.Duration
	FirstFailLarge, FirstFailSmall        float64
	AgentsExact, TeamsExact, WorkspacesEx [2]int // exact, checked
	LatencyP50, LatencyP99                time.Duration
	Crossed, CrossingsTotal               int
	// CrossedLate are stops or pauses read back only after the drain.
	CrossedLate                         int
	TeamTotal, Overshoot, Bound, BoundQ float64
	Stats                               dynamolocal.ContentionStats
	// Mismatches name each total read back that differs from what was
	// sent (less what was dead-lettered).
	Mismatches []string
}

// Run builds the platform through the fixture loader, sends usage for
// cfg.Duration, drains the queue and reads every total back.
func Run(ctx context.Context, cfg Config) (Result, error) {
	awsCfg, err := tableops.LoadAWSConfig(ctx, cfg.Endpoint)
	if err != nil {
		return Result{}, err
	}
	bounds := dynamo.WithBounds(dynamolocal.LocalBounds)
	plain := dynamo.ClientFromConfig(awsCfg, cfg.Endpoint, bounds)
	table := fmt.Sprintf("benchscale-%d", time.Now().UnixNano())
	def := tableops.TableDefinition(table)
	def.StreamSpecification = nil // as the tests' tables (dynamolocal.NewTable says why)
	if err := tableops.CreateTableFrom(ctx, plain, def); err != nil {
		return Result{}, err
	}
	defer func() { _, _ = plain.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &table}) }()

	r := &run{
		cfg: cfg, model: &dynamolocal.Contention{CommitTime: cfg.CommitTime, PartitionWCU: cfg.PartitionWCU},
		reader: dynamo.New(plain, table), table: table,
		sentBy: map[string]float64{}, stopped: map[*target]bool{}, byTarget: map[*target][]*crossing{},
		firstRecv: map[bool][2]int{},
	}
	targets, f := r.platform()
	r.targets = targets
	if _, err := fixture.Load(ctx, r.reader, f, time.Now(), fixture.Options{}); err != nil {
		return Result{}, fmt.Errorf("fixture: %w", err)
	}
	envOpts := []func(*dynamodb.Options){bounds}
	if !cfg.NoModel {
		envOpts = append(envOpts, r.model.Option())
	}
	for range cfg.Concurrency {
		r.clients = append(r.clients, dynamo.ClientFromConfig(awsCfg, cfg.Endpoint, envOpts...))
	}

	start := time.Now()
	stopSending := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.send(targets, start, stopSending) }()
	done := make(chan struct{})
	var envs sync.WaitGroup
	for i := range cfg.Concurrency {
		envs.Add(1)
		go func() { defer envs.Done(); r.poll(ctx, i, done) }()
	}
	watchDone := make(chan struct{})
	go func() { defer close(watchDone); r.watch(ctx, done) }()

	time.Sleep(cfg.Duration)
	close(stopSending)
	wg.Wait()
	for r.pending() > 0 {
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := time.Since(start)
	// An operator redrives the dead-letter queue once the storm is over: a
	// dead-lettered event may have been counted by a delivery whose answer
	// failed, and is then counted once, not twice.
	r.redrive()
	for r.pending() > 0 {
		time.Sleep(20 * time.Millisecond)
	}
	r.mu.Lock()
	r.redrivenApplied += int(r.applied.Load())
	r.mu.Unlock()
	close(done)
	envs.Wait()
	<-watchDone
	r.readBack(ctx, true)
	return r.result(ctx, elapsed)
}

// platform returns the targets and the fixture of the run's workspaces.
func (r *run) platform() ([]*target, fixture.File) {
	cfg := r.cfg
	var targets []*target
	var f fixture.File
	limit := func(v float64) *float64 { return &v }
	large := fixture.Workspace{ID: "ws_large", Name: "Large", Seats: 10, TeamSettingsEnabled: true,
		Teams: []fixture.Team{{ID: "team_hot", Name: "Hot", MonthlyCreditLimit: limit(cfg.HotTeamLimit)},
			{ID: "team_b", Name: "B"}, {ID: "team_c", Name: "C"}}}
	addAgent := func(w *fixture.Workspace, t *target) {
		a := fixture.Agent{ID: t.agent, Name: t.agent, TeamID: t.team, AgentDiscoverability: "workspace"}
		if t.daily > 0 {
			a.DailyCreditLimit = limit(t.daily)
		}
		w.Agents = append(w.Agents, a)
		targets = append(targets, t)
	}
	for i := range cfg.HotAgents {
		addAgent(&large, &target{ws: large.ID, agent: fmt.Sprintf("agt_hot_%03d", i), team: "team_hot", large: true, hot: true})
	}
	for i := range cfg.OtherAgents {
		addAgent(&large, &target{ws: large.ID, agent: fmt.Sprintf("agt_other_%03d", i), team: []string{"team_b", "team_c"}[i%2], large: true})
	}
	f.Workspaces = append(f.Workspaces, large)
	for w := range cfg.SmallWorkspaces {
		small := fixture.Workspace{ID: fmt.Sprintf("ws_small_%02d", w), Name: fmt.Sprintf("Small %d", w), Seats: 5,
			Teams: []fixture.Team{{ID: "team_s", Name: "S"}}}
		for i := range cfg.SmallAgents {
			t := &target{ws: small.ID, agent: fmt.Sprintf("agt_s_%d", i), team: "team_s"}
			if i < cfg.SmallLimited {
				t.daily = cfg.SmallDaily
			}
			addAgent(&small, t)
		}
		f.Workspaces = append(f.Workspaces, small)
	}
	for _, t := range targets {
		if t.daily > 0 {
			c := &crossing{ws: t.ws, agent: t.agent, limit: t.daily}
			r.crossings = append(r.crossings, c)
			r.byTarget[t] = append(r.byTarget[t], c)
		}
	}
	var hot *crossing
	for _, t := range targets {
		if t.hot {
			if hot == nil {
				hot = &crossing{ws: t.ws, team: t.team, agent: t.agent, limit: cfg.HotTeamLimit}
				r.crossings = append(r.crossings, hot)
			}
			r.byTarget[t] = append(r.byTarget[t], hot)
		}
	}
	return targets, f
}

// send is the platform: events at cfg.Rate while the queue's backlog allows,
// for agents not stopped and teams not paused as far as it has seen.
func (r *run) send(targets []*target, start time.Time, stop <-chan struct{}) {
	rng := rand.New(rand.NewPCG(r.cfg.Seed, 2))
	var hot, other, small []*target
	for _, t := range targets {
		switch {
		case t.hot:
			hot = append(hot, t)
		case t.large:
			other = append(other, t)
		default:
			small = append(small, t)
		}
	}
	n := 0
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		due := int(float64(r.cfg.Rate)*time.Since(start).Seconds()) - n
		for ; due > 0; due-- {
			r.mu.Lock()
			if r.backlogLocked() >= r.cfg.Backlog {
				r.mu.Unlock()
				break
			}
			pool := small
			if x := rng.Float64(); x < r.cfg.LargeShare {
				pool = other
				if rng.Float64() < r.cfg.HotShare {
					pool = hot
				}
			}
			t := pool[rng.IntN(len(pool))]
			if r.stopped[t] {
				r.mu.Unlock()
				n++ // the platform sends nothing for it
				continue
			}
			n++
			credits := float64(1 + rng.IntN(r.cfg.MaxCredits))
			m := &message{id: "msg-" + strconv.Itoa(n), t: t, credits: credits, visible: time.Now()}
			m.body, _ = json.Marshal(map[string]any{
				"type": "credits.used", "id": "evt-" + strconv.Itoa(n), "workspaceId": t.ws, "agentId": t.agent,
				"credits": credits, "occurredAt": time.Now().UTC().Format(time.RFC3339Nano),
			})
			r.queue = append(r.queue, m)
			r.sentBy[t.ws+"/"+t.agent] += credits
			for _, c := range r.byTarget[t] {
				c.sent += credits
				if c.event == nil && c.sent >= c.limit {
					c.event = m
				}
			}
			r.mu.Unlock()
		}
	}
}

// backlogLocked is the messages not yet received or waiting to be visible
// again; r.mu is held.
func (r *run) backlogLocked() int {
	n := 0
	for _, m := range r.queue {
		if !m.inFlight {
			n++
		}
	}
	return n
}

// redrive moves the dead-lettered messages back to the queue, their
// receive counts reset, as SQS's redrive does.
func (r *run) redrive() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.redriven = len(r.dead)
	r.redrivenApplied = -int(r.applied.Load())
	for _, m := range r.dead {
		m.receives, m.inFlight, m.visible, m.redriven = 0, false, time.Now(), true
		r.queue = append(r.queue, m)
	}
	r.dead = nil
}

// pending is the messages neither deleted nor dead-lettered.
func (r *run) pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queue)
}

// receive takes up to a batch of visible messages, drawn at random across
// the queue (a standard queue's order), counting the receive.
func (r *run) receive(rng *rand.Rand, limit int) []*message {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	var visible []*message
	for _, m := range r.queue {
		if !m.inFlight && !now.Before(m.visible) {
			visible = append(visible, m)
		}
	}
	rng.Shuffle(len(visible), func(i, j int) { visible[i], visible[j] = visible[j], visible[i] })
	batch := visible[:min(len(visible), limit)]
	for _, m := range batch {
		m.inFlight = true
		m.receives++
		if m.receives == 1 {
			for _, c := range r.byTarget[m.t] {
				if c.event == m && c.receivedAt.IsZero() {
					c.receivedAt = now
				}
			}
		}
	}
	return batch
}

// poll is one Lambda environment: its own client and handler, fed batches.
func (r *run) poll(ctx context.Context, i int, done <-chan struct{}) {
	store := dynamo.New(r.clients[i], r.table)
	handler := ingest.Wire(platform.Env{Store: store, Clock: workspace.SystemClock{}})
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(100+i)))
	for {
		select {
		case <-done:
			return
		default:
		}
		// The event source waits up to its batching window to fill a batch.
		batch := r.receive(rng, r.cfg.BatchSize)
		if len(batch) < r.cfg.BatchSize {
			time.Sleep(r.cfg.BatchWindow)
			batch = append(batch, r.receive(rng, r.cfg.BatchSize-len(batch))...)
		}
		if len(batch) == 0 {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		ev := events.SQSEvent{}
		for _, m := range batch {
			rec := awsevents.SQSMessage(m.id, string(m.body))
			rec.Attributes["ApproximateReceiveCount"] = strconv.Itoa(m.receives)
			ev.Records = append(ev.Records, rec)
		}
		callCtx, cancel := context.WithTimeout(ctx, 30*time.Second) // the function's Timeout
		began := time.Now()
		res, err := handler(callCtx, ev)
		took := time.Since(began)
		cancel()
		r.mu.Lock()
		r.durations = append(r.durations, took)
		r.mu.Unlock()
		failed := map[string]bool{}
		for _, f := range res.BatchItemFailures {
			failed[f.ItemIdentifier] = true
		}
		r.settle(batch, func(m *message) bool { return err != nil || failed[m.id] })
	}
}

// settle deletes a batch's applied messages and makes the failed ones
// visible again after the visibility timeout, or dead-letters them after
// their last receive.
func (r *run) settle(batch []*message, failed func(*message) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	gone := map[*message]bool{}
	for _, m := range batch {
		bad := failed(m)
		if m.receives == 1 && !m.redriven {
			c := r.firstRecv[m.t.large]
			c[1]++
			if bad {
				c[0]++
			}
			r.firstRecv[m.t.large] = c
		}
		switch {
		case !bad:
			gone[m] = true
			r.deleted++
			r.applied.Add(1)
		case m.receives >= r.cfg.MaxReceives:
			gone[m] = true
			r.dead = append(r.dead, m)
		default:
			m.inFlight = false
			m.visible = time.Now().Add(r.cfg.Visibility)
		}
	}
	r.queue = slices.DeleteFunc(r.queue, func(m *message) bool { return gone[m] })
}

// watch reads back, every 10 ms, whether each crossed limit's stop or pause
// is stored, and tells the platform (which then stops sending for it).
func (r *run) watch(ctx context.Context, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-time.After(10 * time.Millisecond):
		}
		r.readBack(ctx, false)
	}
}

// readBack reads whether each crossed limit's stop or pause is stored yet;
// late marks the pass after the queue was drained.
func (r *run) readBack(ctx context.Context, late bool) {
	r.mu.Lock()
	var open []*crossing
	for _, c := range r.crossings {
		if c.event != nil && c.storedAt.IsZero() {
			open = append(open, c)
		}
	}
	r.mu.Unlock()
	for _, c := range open {
		credit, err := r.reader.AgentCredits(ctx, c.ws, []workspace.Agent{{ID: c.agent, TeamID: teamOf(c)}}, time.Now())
		if err != nil {
			continue
		}
		st := credit[c.agent]
		if (c.team != "" && st.TeamPaused) || (c.team == "" && !st.Own.IsRunning()) {
			now := time.Now()
			r.mu.Lock()
			c.storedAt, c.late = now, late
			for t, cs := range r.byTarget {
				if slices.Contains(cs, c) {
					r.stopped[t] = true
				}
			}
			r.mu.Unlock()
		}
	}
}

// teamOf is the team of the agent a crossing reads (small agents' team is
// irrelevant to their own state).
func teamOf(c *crossing) string {
	if c.team != "" {
		return c.team
	}
	return "team_s"
}

// result reads every total back through the store's reads and compares it
// with what was sent (less what was dead-lettered).
func (r *run) result(ctx context.Context, elapsed time.Duration) (Result, error) {
	cfg := r.cfg
	res := Result{Config: cfg, Elapsed: elapsed, Applied: int(r.applied.Load()), DeadLettered: r.redriven,
		DeadAgain: len(r.dead), Stats: r.model.Stats()}
	res.Sent = res.Applied + res.DeadAgain
	res.Applied -= r.redrivenApplied
	res.InvocationP50, res.InvocationP99 = percentiles(r.durations)
	rate := func(c [2]int) float64 {
		if c[1] == 0 {
			return 0
		}
		return float64(c[0]) / float64(c[1])
	}
	res.FirstFailLarge, res.FirstFailSmall = rate(r.firstRecv[true]), rate(r.firstRecv[false])
	want := map[string]float64{}
	for k, v := range r.sentBy {
		want[k] = v
	}
	deadBy := map[string]float64{}
	for _, m := range r.dead { // dead-lettered again after the redrive
		want[m.t.ws+"/"+m.t.agent] -= m.credits
		deadBy[m.t.ws+"/"+m.t.agent] += m.credits
	}
	month := workspace.MonthKey(time.Now())
	wsIDs := map[string]bool{}
	teamWant := map[string]float64{}
	wsWant := map[string]float64{}
	teamOfAgent := map[string]string{}
	for _, t := range r.targets {
		teamOfAgent[t.ws+"/"+t.agent] = t.team
		wsIDs[t.ws] = true
	}
	for k, v := range want {
		ws := k[:strings.IndexByte(k, '/')]
		wsIDs[ws] = true
		wsWant[ws] += v
		if tm := teamOfAgent[k]; tm != "" {
			teamWant[ws+"/"+tm] += v
		}
	}
	for ws := range wsIDs {
		rep, err := r.reader.CreditsReport(ctx, ws, month, time.Now())
		if err != nil {
			return res, err
		}
		res.WorkspacesEx[1]++
		if rep.Total == wsWant[ws] {
			res.WorkspacesEx[0]++
		} else {
			res.Mismatches = append(res.Mismatches, fmt.Sprintf("workspace %s: %v, sent %v", ws, rep.Total, wsWant[ws]))
		}
		for _, tc := range rep.Teams {
			res.TeamsExact[1]++
			if tc.Used == teamWant[ws+"/"+tc.Team.ID] {
				res.TeamsExact[0]++
			} else {
				res.Mismatches = append(res.Mismatches, fmt.Sprintf("team %s/%s: %v, sent %v", ws, tc.Team.ID, tc.Used, teamWant[ws+"/"+tc.Team.ID]))
			}
			if tc.Team.ID == "team_hot" {
				res.TeamTotal = tc.Used
			}
		}
		for _, ac := range rep.Agents {
			res.AgentsExact[1]++
			if k := ws + "/" + ac.Agent.ID; ac.Month == want[k] {
				res.AgentsExact[0]++
			} else {
				res.Mismatches = append(res.Mismatches, fmt.Sprintf("agent %s: %v, sent %v (%v of it dead-lettered)", k, ac.Month, want[k], deadBy[k]))
			}
		}
	}
	res.Overshoot = res.TeamTotal - cfg.HotTeamLimit
	res.Bound = float64(cfg.Concurrency * cfg.BatchSize * cfg.MaxCredits)
	res.BoundQ = float64((cfg.Concurrency*cfg.BatchSize + cfg.Backlog) * cfg.MaxCredits)
	var lat []time.Duration
	for _, c := range r.crossings {
		if c.event == nil {
			continue
		}
		res.CrossingsTotal++
		if c.late {
			res.CrossedLate++
		}
		if c.storedAt.IsZero() || c.receivedAt.IsZero() || c.late {
			continue
		}
		res.Crossed++
		lat = append(lat, max(0, c.storedAt.Sub(c.receivedAt)))
	}
	res.LatencyP50, res.LatencyP99 = percentiles(lat)
	return res, nil
}

// percentiles returns the p50 and p99 of ds.
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2], ds[min(len(ds)-1, int(math.Ceil(float64(len(ds))*0.99))-1)]
}

// Markdown writes the result as the table docs/benchmarks.md keeps.
func (res Result) Markdown(w io.Writer) {
	cfg := res.Config
	pct := func(x float64) string { return fmt.Sprintf("%.2f %%", 100*x) }
	rows := [][2]string{
		{"events sent", fmt.Sprintf("%d in %.1f s (queue drained)", res.Sent, res.Elapsed.Seconds())},
		{"events/s applied", fmt.Sprintf("%.0f", float64(res.Applied)/res.Elapsed.Seconds())},
		{"handler invocation, p50 / p99", fmt.Sprintf("%v / %v", res.InvocationP50.Round(time.Millisecond), res.InvocationP99.Round(time.Millisecond))},
		{"first-receive failure rate, large workspace", pct(res.FirstFailLarge)},
		{"first-receive failure rate, small workspaces", pct(res.FirstFailSmall)},
		{"events dead-lettered (after 5 receives)", fmt.Sprint(res.DeadLettered)},
		{"of those, dead-lettered again after one redrive", fmt.Sprint(res.DeadAgain)},
		{"exact month totals (after the redrive): agents", fmt.Sprintf("%d of %d", res.AgentsExact[0], res.AgentsExact[1])},
		{"exact month totals: teams", fmt.Sprintf("%d of %d", res.TeamsExact[0], res.TeamsExact[1])},
		{"exact month totals: workspaces", fmt.Sprintf("%d of %d", res.WorkspacesEx[0], res.WorkspacesEx[1])},
		{"limits crossed: stop/pause read back during the run, after it", fmt.Sprintf("%d, %d of %d", res.Crossed, res.CrossedLate, res.CrossingsTotal)},
		{"crossing event's receipt to stop/pause stored, p50", res.LatencyP50.Round(time.Millisecond).String()},
		{"crossing event's receipt to stop/pause stored, p99", res.LatencyP99.Round(time.Millisecond).String()},
		{"hot team: total, limit, overshoot", fmt.Sprintf("%.0f, %.0f, %.0f", res.TeamTotal, cfg.HotTeamLimit, res.Overshoot)},
		{"overshoot bound: concurrency x batch x max credits", fmt.Sprintf("%d x %d x %d = %.0f", cfg.Concurrency, cfg.BatchSize, cfg.MaxCredits, res.Bound)},
		{"overshoot bound with the queue's backlog", fmt.Sprintf("(%d x %d + %d) x %d = %.0f", cfg.Concurrency, cfg.BatchSize, cfg.Backlog, cfg.MaxCredits, res.BoundQ)},
		{"model: transactions cancelled (conflict)", fmt.Sprint(res.Stats.TransactionsCancelled)},
		{"model: TransactGetItems cancelled", fmt.Sprint(res.Stats.ReadsCancelled)},
		{"model: single writes refused", fmt.Sprint(res.Stats.WritesRefused)},
		{"model: attempts throttled", fmt.Sprint(res.Stats.Throttled)},
	}
	fmt.Fprintln(w, "| measure | value |")
	fmt.Fprintln(w, "|---|---|")
	for _, row := range rows {
		fmt.Fprintf(w, "| %s | %s |\n", row[0], row[1])
	}
	for _, m := range res.Mismatches {
		fmt.Fprintln(w, "\nnot exact:", m)
	}
}
