package dynamo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/roundtrip"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The scheduler's pace (docs/credit-rules.md#the-scheduler; the figures
// behind them are in docs/benchmarks.md#scheduler-at-scale).
const (
	// resumeReaders is how many resume-index partitions (3 kinds of hold ×
	// resumeShards) one run queries at once.
	resumeReaders = 16
	// runResumeRate is how many resumes one run starts per second, over
	// every workspace: 1,000,000 in 400 s. A resume costs 11 write units
	// (docs/benchmarks.md#scheduler-at-scale), so the run writes at most
	// 27,500 WCU/s, under an on-demand table's 40,000.
	runResumeRate = 2500
	// resumeConcurrency is how many resumes one run has in flight at once:
	// each is a read and a transaction in turn, so the run keeps
	// runResumeRate while a resume takes up to 160 / 2,500 s = 64 ms.
	resumeConcurrency = 160
	// workspaceResumeRate is how many resumes of one workspace start per
	// second. A resume writes the agent's state (its own partition), an
	// audit entry (the workspace's log, and the action's index partition)
	// and an outbox item (its own partition): at most 2 WCU each (a
	// transaction's write of an item under 1 KB) on any one of the
	// workspace's partitions, 100 WCU/s at this rate, a tenth of what a
	// partition takes, so a wave of resumes never throttles the tenant's
	// own writes, nor, being paced apart, another tenant's.
	workspaceResumeRate = 50
	// workspaceResumesInFlight bounds one workspace's resumes in flight
	// when DynamoDB answers slowly, so a slow tenant holds few of the run's
	// resumeConcurrency slots.
	workspaceResumesInFlight = 4
	// resumeQueueBound is how many entries a run holds read but not yet
	// resumed (about 1 KB each): the readers wait while it is full. It is
	// larger than a whole workspace (10,000 agents), so the paced entries
	// of one large tenant never keep the readers from the others' (with
	// several at once the readers wait, while every lane already filled
	// goes on at its pace).
	resumeQueueBound = 20000
	// resumeStopMargin is how long before its deadline (the Lambda's
	// timeout) a run stops starting resumes, so those in flight end and
	// its finished partitions are recorded before Lambda stops it.
	resumeStopMargin = 30 * time.Second
	// resumeLeaseWithoutDeadline is how long a run without a deadline
	// holds its day.
	resumeLeaseWithoutDeadline = 15 * time.Minute
	// resumeRunKeep is how long a day's run item stays (its ttl).
	resumeRunKeep = 35 * 24 * time.Hour
)

// resumePace is a store's scheduler pace; the zero value is the constants'.
type resumePace struct {
	perWorkspace float64       // resumes of one workspace started per second
	perRun       float64       // resumes of the run started per second
	stopMargin   time.Duration // see resumeStopMargin
}

func (s *Store) pace() resumePace {
	p := resumePace{perWorkspace: workspaceResumeRate, perRun: runResumeRate, stopMargin: resumeStopMargin}
	if s.resumePace.perWorkspace > 0 {
		p.perWorkspace = s.resumePace.perWorkspace
	}
	if s.resumePace.perRun > 0 {
		p.perRun = s.resumePace.perRun
	}
	if s.resumePace.stopMargin > 0 {
		p.stopMargin = s.resumePace.stopMargin
	}
	return p
}

// A day's run item (keys.go): which resume-index partitions are finished
// for the day, and the lease of the run working on it.
const (
	pkSchedulerRun   = "SCHEDULER#"
	skSchedulerRun   = "RUN"
	typeSchedulerRun = "schedulerRun"
	attrDoneShards   = "doneShards"
	attrDay          = "day"
)

func schedulerRunKey(day string) item { return key(pkSchedulerRun+day, skSchedulerRun) }

// resumePartition is one partition of the resume index, of holds for reason.
type resumePartition struct{ pk, reason string }

// resumePartitions lists every partition of the resume index.
func resumePartitions() []resumePartition {
	var out []resumePartition
	for _, index := range []struct{ prefix, reason string }{
		{resumeDay, workspace.ReasonDailyLimit},
		{resumeMonth, workspace.ReasonMonthlyLimit},
		{resumeTeam, workspace.ReasonTeamLimit},
	} {
		for n := range resumeShards {
			out = append(out, resumePartition{fmt.Sprintf("%s%d", index.prefix, n), index.reason})
		}
	}
	return out
}

// ResumeDue resumes everything a new UTC day or month has freed by now:
// agents stopped by their daily limit on an earlier day, agents stopped by
// their monthly limit in an earlier month, teams paused in an earlier month.
// It reads only the resume index (GSI2), whose entries sort by the period
// that must end, so its cost grows with what it resumes, not with the agents
// that exist. Each resume is a write conditioned on the entity still being
// held for that period, so a second run, or a run racing a limit change,
// changes nothing more; a run after missed days catches up, since every
// earlier period sorts before now's.
//
// A run works for now's UTC day under the day's run item: it first takes
// the item's lease (one conditional UpdateItem; a run finding it held by
// another returns Busy at once), skips the partitions the item records as
// finished, and records each partition it finishes (every entry read to the
// end, each resumed without error) as soon as it is. A run cut off (its
// deadline, a crash, throttling) leaves the rest to the next run of the
// day, which starts where it stopped: a resumed entry has left the index, so
// a partition's query finds only what is left, and finished partitions are
// not read again. A run stops starting resumes resumeStopMargin before its
// context's deadline.
//
// The partitions are queried resumeReaders at a time; their entries go to
// one lane per workspace, which starts at most workspaceResumeRate resumes
// a second (workspaceResumesInFlight at once) so that one tenant's wave
// never throttles its own or another's writes, while the lanes of every
// workspace share resumeConcurrency slots.
func (s *Store) ResumeDue(ctx context.Context, by workspace.Actor, now time.Time) (workspace.ResumeRun, error) {
	pace := s.pace()
	day := workspace.DayKey(now)
	wall := time.Now()
	leaseUntil := wall.Add(resumeLeaseWithoutDeadline)
	if d, ok := ctx.Deadline(); ok {
		leaseUntil = d
	}
	owner := rand.Text()
	done, err := s.claimSchedulerRun(ctx, day, owner, wall, leaseUntil, now)
	all := resumePartitions()
	if errors.Is(err, errRunHeld) {
		return workspace.ResumeRun{Busy: true, Finished: len(done) == len(all)}, nil
	}
	if err != nil {
		return workspace.ResumeRun{}, err
	}
	var todo []resumePartition
	for _, p := range all {
		if !done[p.pk] {
			todo = append(todo, p)
		}
	}
	r := newResumeRun(s, by, now, day, owner, pace, leaseUntil.Add(-pace.stopMargin))
	r.work(ctx, todo)
	res := workspace.ResumeRun{
		ResumedAgents: int(r.agents.Load()), ResumedTeams: int(r.teams.Load()),
		Finished: len(all)-len(todo)+int(r.finished.Load()) == len(all),
	}
	errs := r.errors()
	// Released even when the run's context is over, so the next run of the
	// day need not wait for the lease to run out.
	if err := s.releaseSchedulerRun(context.WithoutCancel(ctx), day, owner); err != nil {
		errs = append(errs, err)
	}
	return res, errors.Join(errs...)
}

// errRunHeld reports a day's run item leased by another run.
var errRunHeld = errors.New("another scheduler run holds the day")

// claimSchedulerRun makes owner the holder of day's run until until (one
// UpdateItem, conditioned on no other run holding an unexpired lease) and
// returns the partitions finished for the day; errRunHeld (with them) when
// another run holds it.
func (s *Store) claimSchedulerRun(ctx context.Context, day, owner string, wall, until, now time.Time) (map[string]bool, error) {
	upd := expression.Set(expression.Name(attrEntity), expression.Value(typeSchedulerRun)).
		Set(expression.Name(attrDay), expression.Value(day)).
		Set(expression.Name(attrOwner), expression.Value(owner)).
		Set(expression.Name(attrLeaseUntil), expression.Value(storedTime(until))).
		Set(expression.Name(AttrTTL), expression.IfNotExists(expression.Name(AttrTTL), expression.Value(epoch(now.Add(resumeRunKeep)))))
	free := expression.Or(expression.AttributeNotExists(expression.Name(attrOwner)),
		expression.Name(attrLeaseUntil).LessThan(expression.Value(storedTime(wall))))
	e, err := build(expression.NewBuilder().WithUpdate(upd).WithCondition(free))
	if err != nil {
		return nil, err
	}
	out, err := s.db.UpdateItem(ctx, withAllValues(s.conditionalUpdate(schedulerRunKey(day), e)))
	var failed *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &failed):
		done, err := doneShards(failed.Item)
		if err != nil {
			return nil, err
		}
		return done, errRunHeld
	case err != nil:
		return nil, fmt.Errorf("claim the scheduler run of %s: %w", day, err)
	}
	return doneShards(out.Attributes)
}

func doneShards(raw item) (map[string]bool, error) {
	var run struct {
		DoneShards []string `dynamodbav:"doneShards,stringset"`
	}
	if err := unmarshal(raw, &run); err != nil {
		return nil, err
	}
	done := map[string]bool{}
	for _, pk := range run.DoneShards {
		done[pk] = true
	}
	return done, nil
}

// finishSchedulerShard records partition pk finished for day: an ADD to a
// set, which a repeat leaves as it is, conditioned on owner still holding
// the day (a run whose lease ran out records nothing more).
func (s *Store) finishSchedulerShard(ctx context.Context, day, owner, pk string) error {
	upd := expression.Add(expression.Name(attrDoneShards), expression.Value(&types.AttributeValueMemberSS{Value: []string{pk}}))
	return s.updateSchedulerRun(ctx, day, owner, upd)
}

// releaseSchedulerRun ends owner's lease of day's run.
func (s *Store) releaseSchedulerRun(ctx context.Context, day, owner string) error {
	return s.updateSchedulerRun(ctx, day, owner, expression.Remove(expression.Name(attrOwner)).Remove(expression.Name(attrLeaseUntil)))
}

// updateSchedulerRun applies upd to day's run item if owner holds it; a
// lease lost meanwhile is not an error (the holder carries on).
func (s *Store) updateSchedulerRun(ctx context.Context, day, owner string, upd expression.UpdateBuilder) error {
	e, err := build(expression.NewBuilder().WithUpdate(upd).WithCondition(expression.Name(attrOwner).Equal(expression.Value(owner))))
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, s.conditionalUpdate(schedulerRunKey(day), e))
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("record the scheduler run of %s: %w", day, err)
	}
	return nil
}

// maxRunErrors is how many errors a run reports in full; the rest are
// counted.
const maxRunErrors = 10

// resumeRun is one run's work: readers of the resume index's partitions,
// one paced lane per workspace, and the slots the lanes share.
type resumeRun struct {
	s          *Store
	by         workspace.Actor
	now        time.Time
	day, owner string
	laneGap    time.Duration // between two resume starts of one workspace
	paced      *pacer        // the run's starts
	stopBy     time.Time     // no resume starts after it

	stop    chan struct{} // closed at the run's stop time
	slots   chan struct{} // resumes in flight (resumeConcurrency)
	queued  chan struct{} // entries read and not yet finished (resumeQueueBound)
	reading chan struct{} // closed once every reader has finished

	mu      sync.Mutex
	lanes   map[string]*resumeLane
	lanesWG sync.WaitGroup
	flying  sync.WaitGroup // resumes started

	agents, teams, finished atomic.Int64
	errMu                   sync.Mutex
	errs                    []error
	moreErrs                int
}

// resumeShardRun is one partition's progress in a run: pending counts its
// reader (until it has read the last page) and its entries not finished;
// clean turns false when one of them failed or was left for a later run.
type resumeShardRun struct {
	resumePartition
	pending atomic.Int64
	dirty   atomic.Bool
}

// resumeEntry is an entry read from the index, waiting in its lane.
type resumeEntry struct {
	ctx   context.Context
	raw   item
	shard *resumeShardRun
}

// gap is the time between two starts at rate a second.
func gap(rate float64) time.Duration { return time.Duration(float64(time.Second) / rate) }

// pacer hands out start times at least gap apart.
type pacer struct {
	mu   sync.Mutex
	gap  time.Duration
	next time.Time
}

// reserve returns the time of the next start: now, or gap after the last
// one handed out.
func (p *pacer) reserve() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	at := time.Now()
	if p.next.After(at) {
		at = p.next
	}
	p.next = at.Add(p.gap)
	return at
}

// resumeLane is one workspace's queue of entries.
type resumeLane struct {
	paced    pacer
	mu       sync.Mutex
	queue    []resumeEntry
	wake     chan struct{} // a push signals a waiting lane
	inFlight chan struct{} // workspaceResumesInFlight
}

func newResumeRun(s *Store, by workspace.Actor, now time.Time, day, owner string, pace resumePace, stopBy time.Time) *resumeRun {
	return &resumeRun{
		s: s, by: by, now: now, day: day, owner: owner,
		laneGap: gap(pace.perWorkspace),
		paced:   &pacer{gap: gap(pace.perRun)},
		stop:    make(chan struct{}),
		slots:   make(chan struct{}, resumeConcurrency),
		queued:  make(chan struct{}, resumeQueueBound),
		reading: make(chan struct{}),
		lanes:   map[string]*resumeLane{},
		stopBy:  stopBy,
	}
}

// work runs the partitions' readers and the lanes until every entry read is
// resumed or left (past the stop time or the context).
func (r *resumeRun) work(ctx context.Context, parts []resumePartition) {
	timer := time.AfterFunc(time.Until(r.stopBy), func() { close(r.stop) })
	defer timer.Stop()
	ctxs, join := roundtrip.Fork(ctx, len(parts), resumeReaders)
	var readers sync.WaitGroup
	gate := make(chan struct{}, resumeReaders)
	for i, p := range parts {
		sh := &resumeShardRun{resumePartition: p}
		sh.pending.Store(1)
		readers.Go(func() {
			gate <- struct{}{}
			defer func() { <-gate }()
			r.read(ctxs[i], sh)
		})
	}
	readers.Wait()
	close(r.reading)
	r.lanesWG.Wait()
	r.flying.Wait()
	join()
}

// stopped reports whether the run must start nothing more.
func (r *resumeRun) stopped(ctx context.Context) bool {
	select {
	case <-r.stop:
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// read queries one partition's entries whose period is over
// (workspace.HoldEnded), a page at a time, and hands each to its
// workspace's lane.
func (r *resumeRun) read(ctx context.Context, sh *resumeShardRun) {
	defer r.settle(ctx, sh)
	in, err := r.s.keyQuery(IndexGSI2, expression.Key(attrGSI2PK).Equal(expression.Value(sh.pk)).
		And(expression.Key(attrGSI2SK).LessThan(expression.Value(workspace.HoldPeriod(sh.reason, r.now)))))
	if err != nil {
		r.fail(sh, err)
		return
	}
	in.Limit = aws.Int32(queryPageItems)
	p := dynamodb.NewQueryPaginator(r.s.db, in)
	for p.HasMorePages() {
		if r.stopped(ctx) {
			sh.dirty.Store(true)
			return
		}
		page, err := p.NextPage(ctx)
		if err != nil {
			r.fail(sh, fmt.Errorf("query resume index: %w", err))
			return
		}
		// The page's resumes count as sent at once, beside the next page's
		// query; nothing of the run comes after them, so they are never
		// joined.
		ctxs, _ := roundtrip.Fork(ctx, len(page.Items), resumeConcurrency)
		for k, raw := range page.Items {
			select {
			case r.queued <- struct{}{}:
			case <-r.stop:
				sh.dirty.Store(true)
				return
			case <-ctx.Done():
				sh.dirty.Store(true)
				return
			}
			sh.pending.Add(1)
			r.enqueue(resumeEntry{ctx: ctxs[k], raw: raw, shard: sh})
		}
	}
}

// enqueue puts e in its workspace's lane, starting the lane on its first
// entry.
func (r *resumeRun) enqueue(e resumeEntry) {
	ws := ""
	if v, ok := e.raw["workspaceId"].(*types.AttributeValueMemberS); ok {
		ws = v.Value
	}
	r.mu.Lock()
	l, ok := r.lanes[ws]
	if !ok {
		l = &resumeLane{paced: pacer{gap: r.laneGap}, wake: make(chan struct{}, 1), inFlight: make(chan struct{}, workspaceResumesInFlight)}
		r.lanes[ws] = l
		r.lanesWG.Go(func() { r.drive(l) })
	}
	r.mu.Unlock()
	l.mu.Lock()
	l.queue = append(l.queue, e)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *resumeLane) pop() (resumeEntry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) == 0 {
		return resumeEntry{}, false
	}
	e := l.queue[0]
	l.queue[0] = resumeEntry{}
	l.queue = l.queue[1:]
	return e, true
}

// drive starts the resumes of one workspace's lane, paced laneGap apart
// (and the run's pace), until the readers have finished and the lane is
// empty. Past the stop time, its entries are left for a later run.
func (r *resumeRun) drive(l *resumeLane) {
	readersDone := false
	for {
		e, ok := l.pop()
		if !ok {
			if readersDone {
				return
			}
			select {
			case <-l.wake:
			case <-r.reading:
				readersDone = true
			}
			continue
		}
		if !r.pacedStart(e.ctx, l) {
			r.leave(e)
			continue
		}
		r.flying.Go(func() {
			defer func() { <-r.slots; <-l.inFlight }()
			r.resume(e)
		})
	}
}

// pacedStart waits for a slot of the lane and of the run, then for the
// lane's and the run's next starts (reserved once the slots are held, so a
// lane that waited for a slot does not start twice in a row); false when
// the run stops first.
func (r *resumeRun) pacedStart(ctx context.Context, l *resumeLane) bool {
	if !r.acquire(ctx, l.inFlight) {
		return false
	}
	if !r.acquire(ctx, r.slots) {
		<-l.inFlight
		return false
	}
	if !r.waitUntil(ctx, l.paced.reserve()) || !r.waitUntil(ctx, r.paced.reserve()) {
		<-r.slots
		<-l.inFlight
		return false
	}
	return true
}

// waitUntil waits until at; false when the run stops first.
func (r *resumeRun) waitUntil(ctx context.Context, at time.Time) bool {
	if wait := time.Until(at); wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.stop:
		case <-ctx.Done():
		}
	}
	return !r.stopped(ctx)
}

// acquire takes a slot of sem; false when the run stops first.
func (r *resumeRun) acquire(ctx context.Context, sem chan struct{}) bool {
	select {
	case sem <- struct{}{}:
		return true
	case <-r.stop:
	case <-ctx.Done():
	}
	return false
}

// resume resumes one entry and counts what it did.
func (r *resumeRun) resume(e resumeEntry) {
	tr, err := r.s.resumeOne(e.ctx, r.by, e.raw, e.shard.reason, r.now)
	switch {
	case err != nil:
		r.fail(e.shard, err)
	case tr != nil && tr.AgentID == "":
		r.teams.Add(1)
	case tr != nil:
		r.agents.Add(1)
	}
	<-r.queued
	r.settle(e.ctx, e.shard)
}

// leave leaves an entry for a later run.
func (r *resumeRun) leave(e resumeEntry) {
	e.shard.dirty.Store(true)
	<-r.queued
	r.settle(e.ctx, e.shard)
}

// settle counts one of sh's pending parts finished; the last one records sh
// finished for the day unless something of it failed or was left.
func (r *resumeRun) settle(ctx context.Context, sh *resumeShardRun) {
	if sh.pending.Add(-1) != 0 || sh.dirty.Load() {
		return
	}
	// Recorded even past the run's deadline: the partition is finished, and
	// a run whose time is up is stopped by Lambda, not by its context.
	if err := r.s.finishSchedulerShard(context.WithoutCancel(ctx), r.day, r.owner, sh.pk); err != nil {
		r.fail(sh, err)
		return
	}
	r.finished.Add(1)
}

// fail records err of partition sh: the partition is not finished.
func (r *resumeRun) fail(sh *resumeShardRun, err error) {
	sh.dirty.Store(true)
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if len(r.errs) < maxRunErrors {
		r.errs = append(r.errs, err)
		return
	}
	r.moreErrs++
}

func (r *resumeRun) errors() []error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	errs := slices.Clone(r.errs)
	if r.moreErrs > 0 {
		errs = append(errs, fmt.Errorf("and %d more errors", r.moreErrs))
	}
	return errs
}

// resumeOne settles the agent or team of one resume-index entry, held for
// reason, anew for now's day and month (workspace.ResumeAgent,
// workspace.ResumeTeam). The write is conditioned on the entity still being
// held for the same period at the version read, so a second run, or a run
// racing usage or a limit change, changes nothing more.
func (s *Store) resumeOne(ctx context.Context, by workspace.Actor, raw item, reason string, now time.Time) (*workspace.Transition, error) {
	var entity struct {
		Entity      string `dynamodbav:"entity"`
		GSI2PK      string `dynamodbav:"GSI2PK"`
		WorkspaceID string `dynamodbav:"workspaceId"`
		AgentID     string `dynamodbav:"agentId"`
		TeamID      string `dynamodbav:"teamId"`
		Period      string `dynamodbav:"period"`
	}
	if err := unmarshal(raw, &entity); err != nil {
		return nil, err
	}
	if !workspace.HoldEnded(reason, entity.Period, now) {
		return nil, nil
	}
	heldFor := expression.Name(attrPeriod).Equal(expression.Value(entity.Period)).
		And(expression.Name(attrGSI2PK).Equal(expression.Value(entity.GSI2PK)))
	if entity.Entity == typeTeamState {
		return s.resumeTeam(ctx, by, entity.WorkspaceID, entity.TeamID, heldFor, now)
	}
	r := agentRef{ws: entity.WorkspaceID, agent: entity.AgentID}
	st, err := s.readStandings(ctx, []agentRef{r}, now, readOpts{agents: true})
	if err != nil {
		return nil, err
	}
	a, found, err := st.agent(r)
	if err != nil {
		return nil, err
	}
	if !found {
		a = workspace.Agent{WorkspaceID: r.ws, ID: r.agent} // its state is all that is left
	}
	sd, err := st.standing(a, false)
	if err != nil {
		return nil, err
	}
	ch := workspace.ResumeAgent(sd.AgentStanding, found)
	w := agentStateWrite(r, ch.To, sd.version, now)
	w.cond = heldFor.And(expression.Name(attrReason).Equal(expression.Value(reason))).And(w.cond)
	// Its event: Agent Resumed, unless the agent is disabled (it stays
	// disabled: only its own state underneath is lifted) or is held again
	// for the new period.
	after := sd.Credit
	after.Own = ch.To
	var events []types.TransactWriteItem
	if found {
		if events, err = s.agentEventPuts(r.ws, r.agent, sd.Credit, after, sd.version+1, now); err != nil {
			return nil, err
		}
	}
	err = s.commit(ctx, r.ws, []write{w}, agentPremises(a, sd.usage, ch.Premises, now), events,
		workspace.AgentCreditEntries(now, by, r.agent, sd.Credit, after)...)
	if !ch.To.IsRunning() || sd.Credit.Disabled {
		// Held again, or disabled: nothing a reader sees was resumed.
		_, err = resumed(err, workspace.Transition{})
		return nil, err
	}
	return resumed(err, workspace.Transition{WorkspaceID: r.ws, AgentID: r.agent, State: workspace.Running})
}

// resumeTeam settles team (ws, team), held by heldFor, anew for now's month
// (workspace.ResumeTeam).
func (s *Store) resumeTeam(ctx context.Context, by workspace.Actor, ws, team string, heldFor expression.ConditionBuilder, now time.Time) (*workspace.Transition, error) {
	st, err := s.readTeamStanding(ctx, ws, team, now)
	if err != nil {
		return nil, err
	}
	ts, err := st.team(ws, team)
	if err != nil {
		return nil, err
	}
	ch := workspace.ResumeTeam(ts.TeamStanding)
	w := teamStateWrite(ws, team, ch.Paused, ts.version, now)
	w.cond = heldFor.And(expression.Name(attrPaused).Equal(expression.Value(true))).And(w.cond)
	var events []types.TransactWriteItem
	if ts.Exists {
		if events, err = s.teamEventPuts(ws, team, ts.TeamStanding, ch.Paused, ts.version+1, now); err != nil {
			return nil, err
		}
	}
	err = s.commit(ctx, ws, []write{w}, teamPremises(ws, team, ts.Limit, ch.Premises), events,
		workspace.EntriesIf(workspace.TeamPauseEntry(now, by, team, true, ch.Paused))...)
	if ch.Paused {
		_, err = resumed(err, workspace.Transition{})
		return nil, err
	}
	return resumed(err, workspace.Transition{WorkspaceID: ws, TeamID: team, State: workspace.Running})
}

// resumed turns a resume write's result into its transition: a failed
// condition means someone else already moved the entity on.
func resumed(err error, tr workspace.Transition) (*workspace.Transition, error) {
	switch {
	case errors.Is(err, errStale):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &tr, nil
}
