package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// EventDedupWindow is how long an applied event's id is remembered: longer
// than SQS keeps a message (14 days at most), so no redelivery counts twice.
const EventDedupWindow = 15 * 24 * time.Hour

// maxTransactItems is TransactWriteItems' limit of items per call.
const maxTransactItems = 100

// UsageReport is what ApplyUsage did: Errs[i] is nil when events[i] is
// applied (now, or by an earlier delivery), and Transitions are the running
// states it changed.
type UsageReport struct {
	Errs        []error
	Transitions []workspace.Transition
}

// ApplyUsage records credits.used events (validated by the caller), each
// exactly once: an event's marker is written in the same transaction as its
// counters, so a redelivered event adds nothing. Events of one batch that
// share a counter add to it with one write: per agent and UTC month (total,
// the day's spend and the day's counted usage), per team and month, per
// workspace and month, and per chat (creditsTotal). Then every agent and team
// concerned is settled on its fresh figures in the UTC day and month of now:
// an agent whose usage reached a limit stops, a team whose usage reached its
// limit pauses, in this call.
//
// The batch is split by workspace, and the workspaces are applied at once
// (batchConcurrency at a time), each within its own budget
// (workspace.UsageWorkspaceBudget): no transaction, retry or failure spans
// two workspaces, so one tenant's contention, throttling or bad events fail
// or delay only its own events.
//
// Round trips per workspace for a batch that crosses no limit: one
// BatchGetItem (the agents), one TransactWriteItems per chunk, one
// UpdateItem per agent (its latest activity, at once), one BatchGetItem per
// 100 keys of standings (settleReads; one more for the usage shards of
// teams with a limit), and one transaction per agent whose month is not
// listed yet (its first usage of the month).
func (s *Store) ApplyUsage(ctx context.Context, by workspace.Actor, events []workspace.Usage, now time.Time) UsageReport {
	groups := workspace.ByWorkspace(events)
	reps := make([]UsageReport, len(groups))
	fanOut(ctx, len(groups), func(ctx context.Context, g int) {
		sub := make([]workspace.Usage, len(groups[g]))
		for k, i := range groups[g] {
			sub[k] = events[i]
		}
		if _, ok := workspace.WriteDeadline(ctx); !ok {
			ctx = workspace.WithWriteDeadline(ctx, time.Now().Add(workspace.UsageWorkspaceBudget))
		}
		reps[g] = s.applyWorkspaceUsage(ctx, by, sub, now)
	})
	rep := UsageReport{Errs: make([]error, len(events))}
	for g, idx := range groups {
		for k, i := range idx {
			rep.Errs[i] = reps[g].Errs[k]
		}
		rep.Transitions = append(rep.Transitions, reps[g].Transitions...)
	}
	return rep
}

// applyWorkspaceUsage is ApplyUsage for events of one workspace.
func (s *Store) applyWorkspaceUsage(ctx context.Context, by workspace.Actor, events []workspace.Usage, now time.Time) UsageReport {
	rep := UsageReport{Errs: make([]error, len(events))}
	agents, err := s.usageAgents(ctx, events)
	if err != nil {
		for i := range rep.Errs {
			rep.Errs[i] = err
		}
		return rep
	}
	var pending []int
	first := map[[2]string]int{} // a repeat of an event id in the batch shares its first's fate
	repeats := map[int]int{}
	for i, e := range events {
		if _, ok := agents[agentRef{ws: e.WorkspaceID, agent: e.AgentID}]; !ok {
			rep.Errs[i] = workspace.ErrAgentNotFound
			continue
		}
		id := [2]string{e.WorkspaceID, e.EventID}
		if j, ok := first[id]; ok {
			repeats[i] = j
			continue
		}
		first[id] = i
		pending = append(pending, i)
	}

	for _, chunk := range workspace.PackUsage(events, pending, teamOf(agents), maxTransactItems) {
		if err := s.applyUsageChunk(ctx, events, chunk, agents, now); err != nil {
			for _, i := range chunk {
				rep.Errs[i] = err
			}
		}
	}
	s.moveActivity(ctx, events, &rep)
	s.settleUsage(ctx, by, events, agents, now, &rep)
	for i, j := range repeats {
		rep.Errs[i] = rep.Errs[j]
	}
	return rep
}

// usageAgents reads the agents the events name, keyed by workspace and id
// (without team).
func (s *Store) usageAgents(ctx context.Context, events []workspace.Usage) (map[agentRef]workspace.Agent, error) {
	seen := map[agentRef]bool{}
	var keys []item
	for _, e := range events {
		r := agentRef{ws: e.WorkspaceID, agent: e.AgentID}
		if !seen[r] {
			seen[r] = true
			keys = append(keys, key(wsPK(r.ws), agentSK(r.agent)))
		}
	}
	its, err := batchDecode[agentItem](ctx, s, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[agentRef]workspace.Agent, len(its))
	for _, it := range its {
		out[agentRef{ws: it.WorkspaceID, agent: it.ID}] = it.domain()
	}
	return out, nil
}

// applyUsageChunk writes one chunk's transaction. An event whose marker
// already exists was applied by an earlier delivery: it is dropped and the
// rest written again. Each attempt ADDs the chunk's group sums to one usage
// shard picked at random, another one than a shard a cancellation named.
func (s *Store) applyUsageChunk(ctx context.Context, events []workspace.Usage, chunk []int, agents map[agentRef]workspace.Agent, now time.Time) error {
	for len(chunk) > 0 {
		var shardAt map[int]bool
		shard := pickShard(-1)
		failed, err := s.transactBuilt(ctx, func(conflicted []int) ([]types.TransactWriteItem, error) {
			if slices.ContainsFunc(conflicted, func(i int) bool { return shardAt[i] }) {
				shard = pickShard(shard)
			}
			var items []types.TransactWriteItem
			var err error
			items, shardAt, err = s.usageItems(events, chunk, agents, now, shard)
			return items, err
		})
		if err != nil {
			return err
		}
		if len(failed) == 0 {
			return nil
		}
		// Markers come first, one per event of the chunk, in chunk order;
		// nothing else carries a condition.
		dup := map[int]bool{}
		for _, f := range failed {
			if f >= len(chunk) {
				return fmt.Errorf("usage transaction: condition failed on counter item %d", f)
			}
			dup[f] = true
		}
		var rest []int
		for k, i := range chunk {
			if !dup[k] {
				rest = append(rest, i)
			}
		}
		chunk = rest
	}
	return nil
}

// teamOf names the team of a usage event's agent, as read.
func teamOf(agents map[agentRef]workspace.Agent) func(workspace.Usage) string {
	return func(e workspace.Usage) string { return agents[agentRef{ws: e.WorkspaceID, agent: e.AgentID}].TeamID }
}

// usageItems builds the transaction of a chunk: the events' markers first,
// then each figure once with the chunk's sum (workspace.SumUsage): the
// agents' months, the groups' months in usage shard shard (shardAt holds
// their indexes), the chats.
func (s *Store) usageItems(events []workspace.Usage, chunk []int, agents map[agentRef]workspace.Agent, now time.Time, shard int) (
	txItems []types.TransactWriteItem, shardAt map[int]bool, err error) {
	shardAt = map[int]bool{}
	ttl := epoch(now.Add(EventDedupWindow))
	batch := make([]workspace.Usage, len(chunk))
	for k, i := range chunk {
		e := events[i]
		batch[k] = e
		marker, err := s.putNew(eventItem{keys: keys{PK: eventPK(e.WorkspaceID, e.EventID), SK: skEvent, Entity: typeEvent, TTL: ttl}, Type: "credits.used"})
		if err != nil {
			return nil, nil, err
		}
		txItems = append(txItems, marker)
	}
	sums := workspace.SumUsage(batch, teamOf(agents))
	var ops []write
	for _, m := range sums.AgentMonths {
		upd := expression.Set(expression.Name(attrEntity), expression.Value(typeUsage)).
			Set(expression.Name(attrAgentID), expression.Value(m.AgentID)).
			Add(expression.Name(attrTotal), expression.Value(m.Total))
		for day, v := range m.Days {
			upd = upd.Add(expression.Name(spentAttr(day)), expression.Value(v)).Add(expression.Name(countedAttr(day)), expression.Value(v))
		}
		ops = append(ops, write{key: key(agentDataPK(m.WorkspaceID, m.AgentID), usageSK(m.Month)), upd: upd})
	}
	for _, c := range sums.Counters {
		shardAt[len(txItems)+len(ops)] = true
		ops = append(ops, usageShardWrite(c.WorkspaceID, c.TeamID, c.Month, shard, c.Credits))
	}
	for _, c := range sums.Chats {
		ops = append(ops, write{key: key(agentDataPK(c.WorkspaceID, c.AgentID), chatSK(c.ChatID)),
			upd: expression.Set(expression.Name(attrEntity), expression.Value(typeChat)).
				Add(expression.Name(attrCredits), expression.Value(c.Credits))})
	}
	writes, err := s.decisionTx(ops, nil)
	if err != nil {
		return nil, nil, err
	}
	return append(txItems, writes...), shardAt, nil
}

// moveActivity moves each agent's latest activity forward to its latest
// applied event of the batch (now or by an earlier delivery, whose update
// may not have landed): one UpdateItem per agent, conditioned on moving
// forward, after the usage committed. A failed condition means a later
// activity is there already, which is success; a failure fails the agent's
// events, whose redelivery does it again (it is idempotent).
func (s *Store) moveActivity(ctx context.Context, events []workspace.Usage, rep *UsageReport) {
	var applied []workspace.Usage
	for i, e := range events {
		if rep.Errs[i] == nil {
			applied = append(applied, e)
		}
	}
	acts := workspace.SumUsage(applied, func(workspace.Usage) string { return "" }).Activity
	errs := make([]error, len(acts))
	fanOut(ctx, len(acts), func(ctx context.Context, k int) {
		errs[k] = s.moveAgentActivity(ctx, acts[k].WorkspaceID, acts[k].AgentID, acts[k].At)
	})
	for k, a := range acts {
		if errs[k] == nil {
			continue
		}
		for i, e := range events {
			if rep.Errs[i] == nil && e.AgentID == a.AgentID {
				rep.Errs[i] = fmt.Errorf("latest activity of %s: %w", a.AgentID, errs[k])
			}
		}
	}
}

// moveAgentActivity sets agent's lastActivityAt to at unless it is later
// already. Its running state and version are left alone, so this write
// never invalidates a decision. A transaction holding the state item
// (TransactionConflictException) is waited out like a cancelled
// transaction.
func (s *Store) moveAgentActivity(ctx context.Context, ws, agent string, at time.Time) error {
	stored := storedTime(at)
	e, err := build(expression.NewBuilder().WithUpdate(
		expression.Set(expression.Name(attrLastAt), expression.Value(stored)).
			Set(expression.Name(attrWorkspace), expression.Value(ws)).
			Set(expression.Name(attrAgentID), expression.Value(agent)).
			Set(expression.Name(attrEntity), expression.Value(typeAgentState))).
		WithCondition(expression.AttributeNotExists(expression.Name(attrLastAt)).
			Or(expression.Name(attrLastAt).LessThanEqual(expression.Value(stored)))))
	if err != nil {
		return err
	}
	in := &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: key(agentDataPK(ws, agent), skState),
		UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values()}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			backoff(ctx, attempt)
		}
		_, err := s.db.UpdateItem(ctx, in)
		var later *types.ConditionalCheckFailedException
		var held *types.TransactionConflictException
		switch {
		case err == nil || errors.As(err, &later):
			return nil
		case !errors.As(err, &held):
			return fmt.Errorf("update latest activity: %w", err)
		case !mayTryAgain(ctx, attempt+1, maxTransactAttempts):
			return workspace.ErrBusy
		}
	}
}

// settleUsage settles every agent with an applied event and its team on
// fresh figures, reading only what a crossing can need (settleReads), and
// puts each agent's month in the month listings when its usage item is not
// listed yet (listUsageMonth). A failure to settle or list fails the agent's
// events (a team's failure, its agents'), so the queue delivers them again:
// a redelivered event adds nothing but is settled again.
func (s *Store) settleUsage(ctx context.Context, by workspace.Actor, events []workspace.Usage, agents map[agentRef]workspace.Agent, now time.Time, rep *UsageReport) {
	var refs []agentRef
	seen := map[agentRef]bool{}
	months := map[agentRef]map[string]bool{} // the months each agent's applied events fall in
	for i, e := range events {
		r := agentRef{ws: e.WorkspaceID, agent: e.AgentID}
		if rep.Errs[i] != nil {
			continue
		}
		if months[r] == nil {
			months[r] = map[string]bool{}
		}
		months[r][workspace.MonthKey(e.OccurredAt)] = true
		if !seen[r] {
			seen[r] = true
			refs = append(refs, refOf(agents[r]))
		}
	}
	if len(refs) == 0 {
		return
	}
	failAgent := func(ws, agent, team string, err error) {
		for i, e := range events {
			a := agents[agentRef{ws: e.WorkspaceID, agent: e.AgentID}]
			if rep.Errs[i] == nil && e.WorkspaceID == ws && (e.AgentID == agent || (team != "" && a.TeamID == team)) {
				rep.Errs[i] = err
			}
		}
	}
	st, err := s.settleReads(ctx, refs, agents, months, now)
	if err != nil {
		for _, r := range refs {
			failAgent(r.ws, r.agent, "", err)
		}
		return
	}
	teamsDone := map[[2]string]bool{}
	for _, r := range refs {
		tr, err := s.settleAgent(ctx, by, agents[agentRef{ws: r.ws, agent: r.agent}], st)
		if tr != nil {
			rep.Transitions = append(rep.Transitions, *tr)
		}
		for month := range months[agentRef{ws: r.ws, agent: r.agent}] {
			if err == nil && !usageListed(st, r, month) {
				err = s.listUsageMonth(ctx, r, month)
			}
		}
		if err != nil {
			failAgent(r.ws, r.agent, "", err)
		}
		if t := [2]string{r.ws, r.team}; r.team != "" && !teamsDone[t] {
			teamsDone[t] = true
			tr, _, err := s.settleTeam(ctx, by, r.ws, r.team, st)
			if tr != nil {
				rep.Transitions = append(rep.Transitions, *tr)
			}
			if err != nil {
				failAgent(r.ws, "", r.team, err)
			}
		}
	}
}

// settleReads reads, after a batch's usage committed, what settling refs
// can need and nothing more: per agent its state and its usage items of
// months (now's month among them: its figures), per workspace its item, per
// team its item and its state (one BatchGetItem per 100 keys); then, only
// when needed, the usage shards of the teams that have a monthly limit or
// are paused and the threshold markers of the agents' thresholds the fresh
// figures reached (one more), and the markers of the teams' thresholds
// reached (one more). The agent items were read before the write (agents)
// and are not read again: a decision on them is conditioned on their limits
// (agentPremises).
func (s *Store) settleReads(ctx context.Context, refs []agentRef, agents map[agentRef]workspace.Agent, months map[agentRef]map[string]bool, now time.Time) (*standings, error) {
	month := workspace.MonthKey(now)
	st := &standings{now: now, items: map[[2]string]item{}}
	var keys [][2]string
	for _, r := range refs {
		keys = append(keys, [2]string{agentDataPK(r.ws, r.agent), skState}, [2]string{wsPK(r.ws), skMeta})
		keys = append(keys, [2]string{agentDataPK(r.ws, r.agent), usageSK(month)})
		for m := range months[agentRef{ws: r.ws, agent: r.agent}] {
			keys = append(keys, [2]string{agentDataPK(r.ws, r.agent), usageSK(m)}, [2]string{agentDataPK(r.ws, r.agent), listingSK(m)})
		}
		if r.team != "" {
			keys = append(keys, [2]string{wsPK(r.ws), teamSK(r.team)}, [2]string{teamDataPK(r.ws, r.team), skState})
		}
	}
	if err := s.readInto(ctx, st, keys); err != nil {
		return nil, err
	}
	keys = nil
	teams := map[[2]string]bool{}
	for _, r := range refs {
		sd, err := st.standing(agents[agentRef{ws: r.ws, agent: r.agent}], false)
		if err != nil {
			return nil, err
		}
		for _, c := range workspace.AgentCrossings(sd.Credit.Position, now) {
			keys = append(keys, [2]string{thresholdPK(r.ws, agentTarget(r.agent)), thresholdSK(c.Limit, c.Period, c.Percent)})
		}
		if t := [2]string{r.ws, r.team}; r.team != "" && !teams[t] {
			teams[t] = true
			ts, err := st.team(r.ws, r.team)
			if err != nil {
				return nil, err
			}
			if ts.Limit != nil || ts.Paused {
				keys = append(keys, teamShardKeys(r.ws, r.team, month)...)
			}
		}
	}
	if err := s.readInto(ctx, st, keys); err != nil {
		return nil, err
	}
	keys = nil
	for t := range teams {
		ts, err := st.team(t[0], t[1])
		if err != nil {
			return nil, err
		}
		for _, c := range workspace.TeamCrossings(ts.TeamStanding, now) {
			keys = append(keys, [2]string{thresholdPK(t[0], teamTarget(t[1])), thresholdSK(c.Limit, c.Period, c.Percent)})
		}
	}
	return st, s.readInto(ctx, st, keys)
}

// readInto adds the items at keys (PK, SK; repeats read once) to st's,
// strongly consistent; no keys, no call.
func (s *Store) readInto(ctx context.Context, st *standings, keys [][2]string) error {
	seen := map[[2]string]bool{}
	var ks []item
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			ks = append(ks, key(k[0], k[1]))
		}
	}
	if len(ks) == 0 {
		return nil
	}
	found, err := s.batchGet(ctx, ks)
	if err != nil {
		return err
	}
	maps.Copy(st.items, found)
	return nil
}
