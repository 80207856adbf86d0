package dynamo

import (
	"context"
	"fmt"
	"hash/fnv"
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
// Round trips for a batch that crosses no limit: one BatchGetItem (the
// agents), one TransactWriteItems per 100 items, one BatchGetItem per 100
// keys of standings.
func (s *Store) ApplyUsage(ctx context.Context, by workspace.Actor, events []workspace.Usage, now time.Time) UsageReport {
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

	for _, chunk := range packUsage(events, pending, agents) {
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
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[agentRef]workspace.Agent, len(found))
	for _, raw := range found {
		var it agentItem
		if err := unmarshal(raw, &it); err != nil {
			return nil, err
		}
		out[agentRef{ws: it.WorkspaceID, agent: it.ID}] = it.domain()
	}
	return out, nil
}

// packUsage splits the pending events into chunks whose transaction stays
// within maxTransactItems, counting each chunk's distinct items exactly.
// Events are taken agent by agent, so an agent's events share one counter
// write unless they alone overflow a transaction.
func packUsage(events []workspace.Usage, pending []int, agents map[agentRef]workspace.Agent) [][]int {
	var order []agentRef
	byAgent := map[agentRef][]int{}
	for _, i := range pending {
		r := agentRef{ws: events[i].WorkspaceID, agent: events[i].AgentID}
		if _, ok := byAgent[r]; !ok {
			order = append(order, r)
		}
		byAgent[r] = append(byAgent[r], i)
	}
	var chunks [][]int
	var cur []int
	seen := map[[2]string]bool{}
	for _, r := range order {
		for _, i := range byAgent[r] {
			e := events[i]
			a := refOf(agents[r])
			month := workspace.MonthKey(e.OccurredAt)
			// The shard is not known before the chunk's first event; any
			// shard names one item per team and workspace, which is all
			// that counting needs.
			need := [][2]string{
				{eventPK(a.ws, e.EventID), skEvent},
				{agentDataPK(a.ws, a.agent), usageSK(month)},
				{agentDataPK(a.ws, a.agent), skState},
				{workspaceUsagePK(a.ws), usageSK(month)},
			}
			if a.team != "" {
				need = append(need, [2]string{teamDataPK(a.ws, a.team), usageSK(month)})
			}
			if e.ChatID != "" {
				need = append(need, [2]string{agentDataPK(a.ws, a.agent), chatSK(e.ChatID)})
			}
			fresh := 0
			for _, k := range need {
				if !seen[k] {
					fresh++
				}
			}
			if len(seen)+fresh > maxTransactItems {
				chunks = append(chunks, cur)
				cur, seen = nil, map[[2]string]bool{}
			}
			for _, k := range need {
				seen[k] = true
			}
			cur = append(cur, i)
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// applyUsageChunk writes one chunk's transaction. An event whose marker
// already exists was applied by an earlier delivery: it is dropped and the
// rest written again. An agent whose latest activity is already later than
// the chunk's (events arrive out of order) keeps it: its activity update is
// dropped and the rest written again.
func (s *Store) applyUsageChunk(ctx context.Context, events []workspace.Usage, chunk []int, agents map[agentRef]workspace.Agent, now time.Time) error {
	keepLastAt := map[agentRef]bool{}
	for len(chunk) > 0 {
		items, activityAt, err := s.usageItems(events, chunk, agents, now, keepLastAt)
		if err != nil {
			return err
		}
		failed, err := s.transact(ctx, items)
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

// usageItems builds the transaction of a chunk: the events' markers first,
// then each counter once with the chunk's sum, and each agent's latest
// activity (unless keepLastAt says it is already later), conditioned on
// moving forward; activityAt maps those items' indexes to their agents.
func (s *Store) usageItems(events []workspace.Usage, chunk []int, agents map[agentRef]workspace.Agent, now time.Time, keepLastAt map[agentRef]bool) (
	txItems []types.TransactWriteItem, activityAt map[int]agentRef, err error) {
	shard := shardOf(events[chunk[0]].EventID)
	type agentMonth struct {
		r     agentRef
		month string
	}
	type counter struct{ pk, sk string }
	months := map[agentMonth]map[string]float64{} // attribute -> credits
	var monthOrder []agentMonth
	counters := map[counter]float64{}
	var counterOrder []counter
	chats := map[counter]float64{}
	var chatOrder []counter
	lastAt := map[agentRef]time.Time{}
	var agentOrder []agentRef
	addCounter := func(m map[counter]float64, order *[]counter, c counter, v float64) {
		if _, ok := m[c]; !ok {
			*order = append(*order, c)
		}
		m[c] += v
	}

	activityAt = map[int]agentRef{}
	ttl := epoch(now.Add(EventDedupWindow))
	for _, i := range chunk {
		e := events[i]
		marker, err := s.putNew(eventItem{keys: keys{PK: eventPK(e.WorkspaceID, e.EventID), SK: skEvent, Entity: typeEvent, TTL: ttl}, Type: "credits.used"})
		if err != nil {
			return nil, nil, err
		}
		txItems = append(txItems, marker)

		a := agents[agentRef{ws: e.WorkspaceID, agent: e.AgentID}]
		r := refOf(a)
		am := agentMonth{r: r, month: workspace.MonthKey(e.OccurredAt)}
		if months[am] == nil {
			months[am] = map[string]float64{}
			monthOrder = append(monthOrder, am)
		}
		day := e.OccurredAt.UTC().Day()
		months[am][attrTotal] += e.Credits
		months[am][spentAttr(day)] += e.Credits
		months[am][countedAttr(day)] += e.Credits
		if _, ok := lastAt[r]; !ok {
			agentOrder = append(agentOrder, r)
		}
		if e.OccurredAt.After(lastAt[r]) {
			lastAt[r] = e.OccurredAt
		}
		if r.team != "" {
			addCounter(counters, &counterOrder, counter{teamDataPK(r.ws, r.team), shardSK(am.month, shard)}, e.Credits)
		}
		addCounter(counters, &counterOrder, counter{workspaceUsagePK(r.ws), shardSK(am.month, shard)}, e.Credits)
		if e.ChatID != "" {
			addCounter(chats, &chatOrder, counter{agentDataPK(r.ws, r.agent), chatSK(e.ChatID)}, e.Credits)
		}
	}
	for _, am := range monthOrder {
		upd := expression.Set(expression.Name(attrEntity), expression.Value(typeUsage))
		for attr, v := range months[am] {
			upd = upd.Add(expression.Name(attr), expression.Value(workspace.SumCredits(v)))
		}
		it, err := s.update(key(agentDataPK(am.r.ws, am.r.agent), usageSK(am.month)), upd, nil)
		if err != nil {
			return nil, nil, err
		}
		txItems = append(txItems, it)
	}
	for _, r := range agentOrder {
		if keepLastAt[r] {
			continue
		}
		// The state item records the latest activity, and only forward: a
		// late event must not move it back. Its running state and version
		// are left alone, so this write never invalidates a decision.
		at := storedTime(lastAt[r])
		upd := expression.Set(expression.Name(attrLastAt), expression.Value(at)).
			Set(expression.Name(attrWorkspace), expression.Value(r.ws)).
			Set(expression.Name(attrAgentID), expression.Value(r.agent)).
			Set(expression.Name(attrEntity), expression.Value(typeAgentState))
		later := expression.AttributeNotExists(expression.Name(attrLastAt)).
			Or(expression.Name(attrLastAt).LessThanEqual(expression.Value(at)))
		it, err := s.update(key(agentDataPK(r.ws, r.agent), skState), upd, &later)
		if err != nil {
			return nil, nil, err
		}
		activityAt[len(txItems)] = r
		txItems = append(txItems, it)
	}
	for _, c := range counterOrder {
		upd := expression.Set(expression.Name(attrEntity), expression.Value(typeUsage)).
			Add(expression.Name(attrTotal), expression.Value(workspace.SumCredits(counters[c])))
		it, err := s.update(key(c.pk, c.sk), upd, nil)
		if err != nil {
			return nil, nil, err
		}
		txItems = append(txItems, it)
	}
	for _, c := range chatOrder {
		upd := expression.Set(expression.Name(attrEntity), expression.Value(typeChat)).
			Add(expression.Name(attrCredits), expression.Value(workspace.SumCredits(chats[c])))
		it, err := s.update(key(c.pk, c.sk), upd, nil)
		if err != nil {
			return nil, nil, err
		}
		txItems = append(txItems, it)
	}
	return txItems, activityAt, nil
}

// shardOf picks the usage shard a transaction writes, from its first event.
func shardOf(eventID string) int {
	h := fnv.New32a()
	h.Write([]byte(eventID))
	return int(h.Sum32() % usageShards)
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
	st, err := s.readStandings(ctx, refs, now, readOpts{agents: true, teamUsage: true})
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
