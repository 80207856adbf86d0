package dynamo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
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
// BatchGetItem per 100 keys of standings.
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
// rest written again. An agent whose latest activity is already later than
// the chunk's (events arrive out of order) keeps it: its activity update is
// dropped and the rest written again. Each attempt ADDs the chunk's group
// sums to one usage shard picked at random, another one than a shard a
// cancellation named.
func (s *Store) applyUsageChunk(ctx context.Context, events []workspace.Usage, chunk []int, agents map[agentRef]workspace.Agent, now time.Time) error {
	keepLastAt := map[agentRef]bool{}
	for len(chunk) > 0 {
		var activityAt map[int]agentRef
		var shardAt map[int]bool
		shard := pickShard(-1)
		failed, err := s.transactBuilt(ctx, func(conflicted []int) ([]types.TransactWriteItem, error) {
			if slices.ContainsFunc(conflicted, func(i int) bool { return shardAt[i] }) {
				shard = pickShard(shard)
			}
			var items []types.TransactWriteItem
			var err error
			items, activityAt, shardAt, err = s.usageItems(events, chunk, agents, now, keepLastAt, shard)
			return items, err
		})
		if err != nil {
			return err
		}
		if len(failed) == 0 {
			return nil
		}
		// Markers come first, one per event of the chunk, in chunk order;
		// besides them only the activity updates carry conditions.
		dup := map[int]bool{}
		for _, f := range failed {
			switch r, ok := activityAt[f]; {
			case f < len(chunk):
				dup[f] = true
			case ok:
				keepLastAt[r] = true
			default:
				return fmt.Errorf("usage transaction: condition failed on counter item %d", f)
			}
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
// then each figure once with the chunk's sum (workspace.SumUsage), the
// groups' month usage in usage shard shard, and each agent's latest
// activity (unless keepLastAt says it is already later), conditioned on
// moving forward; activityAt maps those items' indexes to their agents,
// shardAt holds the shard items' indexes.
func (s *Store) usageItems(events []workspace.Usage, chunk []int, agents map[agentRef]workspace.Agent, now time.Time, keepLastAt map[agentRef]bool, shard int) (
	txItems []types.TransactWriteItem, activityAt map[int]agentRef, shardAt map[int]bool, err error) {
	activityAt, shardAt = map[int]agentRef{}, map[int]bool{}
	ttl := epoch(now.Add(EventDedupWindow))
	batch := make([]workspace.Usage, len(chunk))
	for k, i := range chunk {
		e := events[i]
		batch[k] = e
		marker, err := s.putNew(eventItem{keys: keys{PK: eventPK(e.WorkspaceID, e.EventID), SK: skEvent, Entity: typeEvent, TTL: ttl}, Type: "credits.used"})
		if err != nil {
			return nil, nil, nil, err
		}
		txItems = append(txItems, marker)
	}
	sums := workspace.SumUsage(batch, teamOf(agents))
	var ops []write
	for _, m := range sums.AgentMonths {
		upd := indexUsage(expression.Set(expression.Name(attrEntity), expression.Value(typeUsage)),
			agentRef{ws: m.WorkspaceID, agent: m.AgentID, team: m.TeamID}, m.Month).
			Add(expression.Name(attrTotal), expression.Value(m.Total))
		for day, v := range m.Days {
			upd = upd.Add(expression.Name(spentAttr(day)), expression.Value(v)).Add(expression.Name(countedAttr(day)), expression.Value(v))
		}
		ops = append(ops, write{key: key(agentDataPK(m.WorkspaceID, m.AgentID), usageSK(m.Month)), upd: upd})
	}
	for _, a := range sums.Activity {
		r := agentRef{ws: a.WorkspaceID, agent: a.AgentID, team: a.TeamID}
		if keepLastAt[r] {
			continue
		}
		// The state item records the latest activity, and only forward: a
		// late event must not move it back. Its running state and version
		// are left alone, so this write never invalidates a decision.
		at := storedTime(a.At)
		activityAt[len(txItems)+len(ops)] = r
		ops = append(ops, write{key: key(agentDataPK(r.ws, r.agent), skState),
			upd: expression.Set(expression.Name(attrLastAt), expression.Value(at)).
				Set(expression.Name(attrWorkspace), expression.Value(r.ws)).
				Set(expression.Name(attrAgentID), expression.Value(r.agent)).
				Set(expression.Name(attrEntity), expression.Value(typeAgentState)),
			cond: expression.AttributeNotExists(expression.Name(attrLastAt)).
				Or(expression.Name(attrLastAt).LessThanEqual(expression.Value(at)))})
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
		return nil, nil, nil, err
	}
	return append(txItems, writes...), activityAt, shardAt, nil
}

// settleUsage reads the standings of every agent with an applied event (one
// read for the batch) and settles each agent and team. A failure to settle
// fails the agent's events, so the queue delivers them again: a redelivered
// event adds nothing but is settled again.
func (s *Store) settleUsage(ctx context.Context, by workspace.Actor, events []workspace.Usage, agents map[agentRef]workspace.Agent, now time.Time, rep *UsageReport) {
	var refs []agentRef
	seen := map[agentRef]bool{}
	for i, e := range events {
		r := agentRef{ws: e.WorkspaceID, agent: e.AgentID}
		if rep.Errs[i] != nil || seen[r] {
			continue
		}
		seen[r] = true
		refs = append(refs, refOf(agents[r]))
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
	st, err := s.readStandings(ctx, refs, now, readOpts{agents: true, teamUsage: true, thresholds: true})
	if err != nil {
		for _, r := range refs {
			failAgent(r.ws, r.agent, "", err)
		}
		return
	}
	teamsDone := map[[2]string]bool{}
	for _, r := range refs {
		a, found, err := st.agent(r)
		if err == nil && found {
			var tr *workspace.Transition
			if tr, err = s.settleAgent(ctx, by, a, st); tr != nil {
				rep.Transitions = append(rep.Transitions, *tr)
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
