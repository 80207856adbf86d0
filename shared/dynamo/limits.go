package dynamo

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file holds the writes that re-evaluate a running state at once: agent
// limit changes, daily-usage resets and team limit changes. Each reads the
// standing, has a rule of workspace/creditrules.go decide, and writes the
// change and the new state (a new version) in one transaction; when the
// state moved meanwhile it reads and decides again.
//
// Usage can land between the read and the write. An agent's changes check in
// their transaction that its usage is still what they decided on: one agent's
// usage changes a few times a second at most, so the check rarely fails. A
// team's usage shards change with every ingest batch of any of its agents
// (tens of times a second for a busy team), so a team limit change instead
// settles once more after it commits, on a fresh read: ingest writes usage and
// then reads the limit, the change writes the limit and then reads usage, so
// one of the two sees both and pauses the team if the usage reached the
// limit. Every state write also checks the limits it was decided on (its
// premises, transact.go). Either way the outcome is one a sequential order
// of the same operations produces.

// agentRule decides one agent's write from its standing: a rule of
// workspace/creditrules.go.
type agentRule func(a workspace.Agent, sd workspace.AgentStanding) workspace.AgentChange

// SetAgentLimits applies change to each of ids, agents of workspace ws (and
// of team teamScope when it is not empty; others are not found), as
// workspace.DecideLimitChange decides. One outcome per id, in order. An agent
// whose limits the change leaves as they are is not written. Round trips:
// ceil(3N+1 / 100) BatchGetItem calls, one more for the agents' teams, and
// one transaction per changed agent, at most batchConcurrency at once.
func (s *Store) SetAgentLimits(ctx context.Context, by workspace.Actor, ws, teamScope string, ids []string, change workspace.LimitChange, now time.Time) []workspace.CreditOutcome {
	return s.eachAgent(ctx, by, ws, teamScope, ids, now, func(a workspace.Agent, sd workspace.AgentStanding) workspace.AgentChange {
		return workspace.DecideLimitChange(a, sd, change)
	})
}

// SetAgentStatus disables (disable) or enables each of ids, as
// workspace.DecideStatus decides: the flag is written on the agent's state
// item as a new version, with, on enabling, its own state re-evaluated on
// its limits and usage in the same transaction, and the event of the change.
// Scope and round trips as SetAgentLimits; an agent already so is not
// written.
func (s *Store) SetAgentStatus(ctx context.Context, by workspace.Actor, ws, teamScope string, ids []string, disable bool, now time.Time) []workspace.CreditOutcome {
	return s.eachAgent(ctx, by, ws, teamScope, ids, now, func(a workspace.Agent, sd workspace.AgentStanding) workspace.AgentChange {
		return workspace.DecideStatus(a, sd, disable)
	})
}

// ResetDailyUsage sets today's counted usage of each of ids to zero (its
// spend and the month's usage stay) and re-evaluates its state, as
// workspace.DecideReset decides. Scope and round trips as SetAgentLimits; an
// agent with nothing counted today and no state to change is not written.
func (s *Store) ResetDailyUsage(ctx context.Context, by workspace.Actor, ws, teamScope string, ids []string, now time.Time) []workspace.CreditOutcome {
	return s.eachAgent(ctx, by, ws, teamScope, ids, now, workspace.DecideReset)
}

// agentChangeItems is the transaction of an agent change: the new limits
// (conditioned on the agent still existing) or today's counted usage zeroed,
// and the agent's state as a new version, with the change's premises; and
// the limit events of the change: its running state's, and the thresholds
// its new limits put usage past (st's read includes their markers).
func (s *Store) agentChangeItems(a workspace.Agent, st *standings, sd standing, ch workspace.AgentChange, now time.Time) ([]types.TransactWriteItem, error) {
	r := refOf(a)
	after := sd.Credit
	after.Own = ch.To
	change := write{key: key(wsPK(r.ws), agentSK(r.agent)),
		upd: expression.Set(expression.Name(attrDaily), expression.Value(ch.Daily)).
			Set(expression.Name(attrMonthly), expression.Value(ch.Monthly)),
		cond: expression.AttributeExists(expression.Name(attrPK))}
	after.Position.DailyLimit, after.Position.MonthlyLimit = ch.Daily, ch.Monthly
	state := agentStateWrite(r, ch.To, sd.version, now)
	writes := []write{change, state}
	switch {
	case ch.ResetToday:
		// Subtract what was read (its decimal as stored), not set zero:
		// usage ingest adds between the read and the write counts after
		// the reset, and the entry's from is what the reset took away.
		upd := expression.Set(expression.Name(attrEntity), expression.Value(typeUsage))
		today := countedAttr(now.UTC().Day())
		if n, ok := sd.usage.stored[today]; ok && sd.Credit.Position.Today != 0 {
			upd = upd.Add(expression.Name(today), expression.Value(negated(n)))
		}
		change = write{key: key(agentDataPK(r.ws, r.agent), usageSK(workspace.MonthKey(now))), upd: upd}
		writes[0] = change
		after.Position = sd.Credit.Position
		after.Position.Today = 0
	case ch.SetStatus:
		// The flag lives on the state item, written with its new version;
		// the agent item must still be there.
		after.Position, after.Disabled = sd.Credit.Position, ch.Disabled
		state.upd = state.upd.Set(expression.Name(attrDisabled), expression.Value(ch.Disabled))
		writes = []write{state}
	}
	premises := agentPremises(a, sd.usage, ch.Premises, now)
	if ch.SetStatus {
		premises = append(premises, premise{key(wsPK(r.ws), agentSK(r.agent)), expression.AttributeExists(expression.Name(attrPK))})
	}
	items, err := s.decisionTx(writes, premises)
	if err != nil {
		return nil, err
	}
	events, err := s.changeEventPuts(st, r, sd, after, now)
	if err != nil {
		return nil, err
	}
	return append(items, events...), nil
}

// negated is the stored decimal n with its sign turned.
func negated(n attributevalue.Number) attributevalue.Number {
	if v, ok := strings.CutPrefix(string(n), "-"); ok {
		return attributevalue.Number(v)
	}
	return "-" + n
}

// changeEventPuts are the limit events of an agent change that leaves its
// credit as after: its running state's (as version sd.version+1), and the
// thresholds after's limits put its usage past that st's read found
// unmarked.
func (s *Store) changeEventPuts(st *standings, r agentRef, sd standing, after workspace.AgentCredit, now time.Time) ([]types.TransactWriteItem, error) {
	puts, err := s.agentEventPuts(r.ws, r.agent, sd.Credit, after, sd.version+1, now)
	if err != nil {
		return nil, err
	}
	cross := unmarked(st.items, r.ws, agentTarget(r.agent), workspace.AgentCrossings(after.Position, now))
	more, err := s.crossingPuts(r.ws, agentTarget(r.agent), cross, now)
	if err != nil {
		return nil, err
	}
	return append(puts, more...), nil
}

// eachAgent decides and writes each of ids: it reads every standing in one
// batch (agents out of scope, or implausible ids, are not found), then
// decides and writes each agent concurrently, reading one agent again each
// time its transaction loses a race.
func (s *Store) eachAgent(ctx context.Context, by workspace.Actor, ws, teamScope string, ids []string, now time.Time, decide agentRule) []workspace.CreditOutcome {
	outs := make([]workspace.CreditOutcome, len(ids))
	for i, id := range ids {
		outs[i] = workspace.CreditOutcome{ID: id, Err: workspace.ErrAgentNotFound}
	}
	st, agents, err := s.readAgentStandings(ctx, ws, teamScope, ids, now)
	if err != nil {
		for i := range outs {
			outs[i].Err = err
		}
		return outs
	}
	var found []int
	for i, id := range ids {
		if _, ok := agents[id]; ok {
			found = append(found, i)
		}
	}
	fanOut(ctx, len(found), func(ctx context.Context, k int) {
		i := found[k]
		outs[i] = s.writeAgent(ctx, by, agents[ids[i]], st, now, decide)
	})
	return outs
}

// writeAgent decides and writes one agent, with the entries that record the
// change (workspace.AgentChange.AuditEntries), again on fresh figures after
// each lost race (decideAndCommit).
func (s *Store) writeAgent(ctx context.Context, by workspace.Actor, a workspace.Agent, st *standings, now time.Time, decide agentRule) workspace.CreditOutcome {
	id, name := a.ID, a.Name
	out, err := decideAndCommit(ctx, func(n int) (workspace.CreditOutcome, error) {
		if n > 0 {
			fresh, agents, err := s.readAgentStandings(ctx, a.WorkspaceID, a.TeamID, []string{id}, now)
			if err != nil {
				return workspace.CreditOutcome{}, err
			}
			if a, st = agents[id], fresh; a.ID == "" {
				return workspace.CreditOutcome{ID: id, Err: workspace.ErrAgentNotFound}, nil
			}
		}
		sd, err := st.standing(a, false)
		if err != nil {
			return workspace.CreditOutcome{}, err
		}
		ch := decide(a, sd.AgentStanding)
		if !ch.Write {
			return ch.Outcome, nil
		}
		items, err := s.agentChangeItems(a, st, sd, ch, now)
		if err != nil {
			return workspace.CreditOutcome{}, err
		}
		failed, err := s.transactAudited(ctx, a.WorkspaceID, items, ch.AuditEntries(now, by, a, sd.AgentStanding)...)
		if err == nil && len(failed) > 0 {
			err = errLost
		}
		return ch.Outcome, err
	})
	if err != nil {
		return workspace.CreditOutcome{ID: id, Name: name, Err: err}
	}
	return out
}

// readAgentStandings reads the standings of agents ids of ws in scope: one
// BatchGetItem per 100 keys for the agents, their states and usage and the
// workspace, then one for their teams' items and states.
func (s *Store) readAgentStandings(ctx context.Context, ws, teamScope string, ids []string, now time.Time) (*standings, map[string]workspace.Agent, error) {
	var refs []agentRef
	for _, id := range ids {
		if workspace.PlausibleID(id) {
			refs = append(refs, agentRef{ws: ws, agent: id})
		}
	}
	agents := map[string]workspace.Agent{}
	if len(refs) == 0 {
		return &standings{now: now, items: map[[2]string]item{}}, agents, nil
	}
	st, err := s.readStandings(ctx, refs, now, readOpts{agents: true, thresholds: true})
	if err != nil {
		return nil, nil, err
	}
	var teamKeys []item
	seen := map[string]bool{}
	for _, r := range refs {
		a, found, err := st.agent(r)
		if err != nil {
			return nil, nil, err
		}
		if !found || (teamScope != "" && a.TeamID != teamScope) {
			continue
		}
		agents[a.ID] = a
		if a.TeamID != "" && !seen[a.TeamID] {
			seen[a.TeamID] = true
			teamKeys = append(teamKeys, key(wsPK(ws), teamSK(a.TeamID)), key(teamDataPK(ws, a.TeamID), skState))
		}
	}
	teams, err := s.batchGet(ctx, teamKeys)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range teams {
		st.items[k] = v
	}
	return st, agents, nil
}

// SetTeamLimit sets team teamID's monthly credit limit (nil removes it) and
// pauses or resumes the team at once, as workspace.DecideTeamLimit decides:
// one write to the team's state, however many agents it has. It returns
// workspace.ErrTeamSettingsOff when the workspace has team settings off and
// workspace.ErrTeamNotFound for an unknown team (workspace.TeamAccess).
// Round trips: one TransactGetItems (readTeamStanding: the limit and the
// pause as one snapshot); when the limit changes, one transaction,
// conditioned on the limit and the state's version read (again after a lost
// race, until the request's write deadline); and, when the team is left
// running under a limit, one more TransactGetItems to settle usage that
// landed meanwhile (and a write if that pauses it). With asTeamAdmin the transaction also checks
// that by's owner is still an admin of the team (withTeamAdminCheck):
// workspace.ErrChangeTeamForbidden when they are no longer one.
func (s *Store) SetTeamLimit(ctx context.Context, by workspace.Actor, asTeamAdmin bool, ws, teamID string, limit *float64, now time.Time) (workspace.TeamLimitOutcome, error) {
	if !workspace.PlausibleID(teamID) {
		return workspace.TeamLimitOutcome{}, workspace.ErrTeamNotFound
	}
	type decided struct {
		out    workspace.TeamLimitOutcome
		st     *standings // the read of a limit that stands already
		settle bool       // written; settle again on a fresh read
	}
	d, err := decideAndCommit(ctx, func(int) (decided, error) {
		st, err := s.readTeamStanding(ctx, ws, teamID, now, key(wsPK(ws), skMeta))
		if err != nil {
			return decided{}, err
		}
		w, wsFound, err := decodeAt[workspaceItem](st.items, wsPK(ws), skMeta)
		if err != nil {
			return decided{}, err
		}
		ts, err := st.team(ws, teamID)
		if err != nil {
			return decided{}, err
		}
		var in *workspace.Workspace // nil: no such workspace
		if wsFound {
			d := w.domain()
			in = &d
		}
		if err := workspace.TeamAccess(in, ts.Exists); err != nil {
			return decided{}, err
		}
		d := workspace.DecideTeamLimit(ts.team.domain(), ts.TeamStanding, limit)
		if !d.Write {
			return decided{out: d.Outcome, st: st}, nil
		}
		// The limit is written only over the limit read, so the entry's
		// from is the value the write replaced.
		items, err := s.decisionTx([]write{{key: key(wsPK(ws), teamSK(teamID)),
			upd:  expression.Set(expression.Name(attrMonthly), expression.Value(limit)),
			cond: expression.AttributeExists(expression.Name(attrPK)).And(limitIs(attrMonthly, ts.Limit))},
			teamStateWrite(ws, teamID, d.Outcome.Paused, ts.version, now)}, nil)
		if err != nil {
			return decided{}, err
		}
		target := workspace.AuditTarget{Type: workspace.TargetTeam, ID: teamID}
		entries := []workspace.AuditEntry{workspace.NewAuditEntry(now, by, workspace.ActionTeamLimitChanged, target,
			workspace.LimitChanges("monthlyCreditLimit", ts.Limit, limit))}
		if e, ok := workspace.TeamPauseEntry(now, by, teamID, ts.Paused, d.Outcome.Paused); ok {
			entries = append(entries, e)
		}
		// The change's limit events: the team's pause or resume, and the
		// thresholds the new limit puts its usage past.
		after := ts.TeamStanding
		after.Limit = limit
		events, err := s.teamEventPuts(ws, teamID, after, d.Outcome.Paused, ts.version+1, now)
		if err != nil {
			return decided{}, err
		}
		more, err := s.crossingPuts(ws, teamTarget(teamID), unmarked(st.items, ws, teamTarget(teamID), workspace.TeamCrossings(after, now)), now)
		if err != nil {
			return decided{}, err
		}
		items = append(items, append(events, more...)...)
		items, admin, err := s.withTeamAdminCheck(asTeamAdmin, items, ws, teamID, by.UserID)
		if err != nil {
			return decided{}, err
		}
		failed, err := s.transactAudited(ctx, ws, items, entries...)
		switch {
		case err != nil:
			return decided{}, err
		case len(failed) == 0:
			return decided{out: d.Outcome, settle: d.SettleAfter}, nil
		case slices.Contains(failed, admin):
			return decided{}, workspace.ErrChangeTeamForbidden
		}
		// The team was removed, or its limit or state changed meanwhile:
		// read it again.
		return decided{}, errLost
	})
	switch {
	case err != nil:
		return workspace.TeamLimitOutcome{}, err
	case d.st != nil:
		return s.settleTeamLimit(ctx, by, ws, teamID, d.st, d.out)
	case !d.settle:
		return d.out, nil
	}
	fresh, err := s.readTeamStanding(ctx, ws, teamID, now)
	if err != nil {
		return workspace.TeamLimitOutcome{}, err
	}
	out, err := s.settleTeamLimit(ctx, by, ws, teamID, fresh, d.out)
	if workspace.IsBusy(err) {
		// The limit stands; only the pause is unsettled (ErrBusy
		// would claim nothing was applied).
		err = workspace.ErrTeamLimitUnsettled
	}
	return out, err
}

// settleTeamLimit pauses team teamID when the usage in st has reached its
// limit while it runs, and reports out with the team's paused state after.
// It is no change of the caller's but what the usage calls for, so it needs
// no team admin.
func (s *Store) settleTeamLimit(ctx context.Context, by workspace.Actor, ws, teamID string, st *standings, out workspace.TeamLimitOutcome) (workspace.TeamLimitOutcome, error) {
	_, paused, err := s.settleTeam(ctx, by, ws, teamID, st)
	if err != nil {
		return workspace.TeamLimitOutcome{}, err
	}
	out.Paused = paused
	return out, nil
}
