package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/fanout"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file holds the writes that re-evaluate a running state at once: agent
// limit changes, daily-usage resets and team limit changes. Each reads the
// standing, decides, and writes the change and the new state (a new version)
// in one transaction; when the state moved meanwhile it reads and decides
// again.
//
// Usage can land between the read and the write. An agent's changes check in
// their transaction that its usage is still what they decided on: one agent's
// usage changes a few times a second at most, so the check rarely fails. A
// team's usage shards change with every ingest batch of any of its agents
// (tens of times a second for a busy team), so a team limit change instead
// settles once more after it commits, on a fresh read: ingest writes usage and
// then reads the limit, the change writes the limit and then reads usage, so
// one of the two sees both and pauses the team if the usage reached the
// limit. Every state write also checks the limits it was decided on (see
// writeVersioned). Either way the outcome is one a sequential order of the
// same operations produces.

// agentWrite decides one agent's write from its standing: the transaction's
// items, or nil items for a write that changes nothing.
type agentWrite func(a workspace.Agent, sd standing, now time.Time) (items []types.TransactWriteItem, out workspace.CreditOutcome, err error)

// SetAgentLimits applies change to each of ids, agents of workspace ws (and
// of team teamScope when it is not empty; others are not found). One outcome
// per id, in order. An agent whose limits the change leaves as they are is
// not written. Round trips: ceil(3N+1 / 100) BatchGetItem calls, one more for
// the agents' teams, and one transaction per changed agent, at most
// fanout.Limit at once.
func (s *Store) SetAgentLimits(ctx context.Context, ws, teamScope string, ids []string, change workspace.LimitChange, now time.Time) []workspace.CreditOutcome {
	return s.eachAgent(ctx, ws, teamScope, ids, now, func(a workspace.Agent, sd standing, now time.Time) ([]types.TransactWriteItem, workspace.CreditOutcome, error) {
		daily, monthly, changed := change.Apply(a.DailyCreditLimit, a.MonthlyCreditLimit)
		after := sd.credit
		after.Position.DailyLimit, after.Position.MonthlyLimit = daily, monthly
		after.Own = after.Position.OwnState()
		out := workspace.CreditOutcome{ID: a.ID, Name: a.Name, Unchanged: !changed, Limits: after.Limits()}
		if !changed {
			out.Limits = sd.credit.Limits()
			return nil, out, nil
		}
		out.Impact = workspace.Impact(sd.credit.State(), after.State())
		r := refOf(a)
		// The limits are conditioned on the ones read: a read from before
		// another change must not write its limits back.
		agentUpd, err := s.update(key(wsPK(ws), agentSK(a.ID)),
			expression.Set(expression.Name(attrDaily), expression.Value(daily)).
				Set(expression.Name(attrMonthly), expression.Value(monthly)),
			ptr(expression.AttributeExists(expression.Name(attrPK)).And(agentLimitsUnchanged(a).cond)))
		if err != nil {
			return nil, out, err
		}
		stateUpd, err := s.update(key(agentDataPK(ws, a.ID), skState), agentStateUpdate(r, after.Own, now), ptr(versionIs(sd.state.Version)))
		if err != nil {
			return nil, out, err
		}
		check, err := s.usageUnchanged(r, sd.usage, now)
		if err != nil {
			return nil, out, err
		}
		return []types.TransactWriteItem{agentUpd, stateUpd, check}, out, nil
	})
}

// ResetDailyUsage sets today's counted usage of each of ids to zero (its
// spend and the month's usage stay) and re-evaluates its state: an agent
// stopped by its daily limit resumes unless another limit holds it. Scope and
// round trips as SetAgentLimits; an agent with nothing counted today and no
// state to change is not written.
func (s *Store) ResetDailyUsage(ctx context.Context, ws, teamScope string, ids []string, now time.Time) []workspace.CreditOutcome {
	return s.eachAgent(ctx, ws, teamScope, ids, now, func(a workspace.Agent, sd standing, now time.Time) ([]types.TransactWriteItem, workspace.CreditOutcome, error) {
		after := sd.credit
		after.Position.Today = 0
		after.Own = after.Position.OwnState()
		out := workspace.CreditOutcome{ID: a.ID, Name: a.Name, Limits: sd.credit.Limits()}
		if sd.credit.Position.Today == 0 && after.Own == sd.credit.Own {
			out.Unchanged = true
			return nil, out, nil
		}
		out.Impact = workspace.Impact(sd.credit.State(), after.State())
		r := refOf(a)
		month, day := workspace.MonthKey(now), now.UTC().Day()
		zero, err := s.update(key(agentDataPK(ws, a.ID), usageSK(month)),
			expression.Set(expression.Name(countedAttr(day)), expression.Value(0)).
				Set(expression.Name(attrEntity), expression.Value(typeUsage)),
			ptr(usageIs(sd.usage, day)))
		if err != nil {
			return nil, out, err
		}
		stateUpd, err := s.update(key(agentDataPK(ws, a.ID), skState), agentStateUpdate(r, after.Own, now), ptr(versionIs(sd.state.Version)))
		if err != nil {
			return nil, out, err
		}
		limits := agentLimitsUnchanged(a)
		sameLimits, err := s.check(limits.key, limits.cond)
		if err != nil {
			return nil, out, err
		}
		return []types.TransactWriteItem{zero, stateUpd, sameLimits}, out, nil
	})
}

// storedIs is the condition that attribute attr still holds exactly what was
// read (or is still absent).
func (u monthUsage) storedIs(attr string) expression.ConditionBuilder {
	if n, ok := u.stored[attr]; ok {
		return expression.Name(attr).Equal(expression.Value(n))
	}
	return expression.AttributeNotExists(expression.Name(attr))
}

// storedAtLeast is the condition that attribute attr has not gone below
// what was read: usage only grows, except through a daily-usage reset.
func (u monthUsage) storedAtLeast(attr string) expression.ConditionBuilder {
	if n, ok := u.stored[attr]; ok {
		return expression.Name(attr).GreaterThanEqual(expression.Value(n))
	}
	return expression.AttributeNotExists(expression.Name(attr)).
		Or(expression.Name(attr).GreaterThanEqual(expression.Value(0)))
}

// ptr returns a pointer to c, for the optional condition of update.
func ptr(c expression.ConditionBuilder) *expression.ConditionBuilder { return &c }

// usageIs is the condition that an agent's month usage item still holds
// exactly the usage read: its total and what counts toward day's limit (a
// daily-usage reset changes only the latter).
func usageIs(u monthUsage, day int) expression.ConditionBuilder {
	return u.storedIs(attrTotal).And(u.storedIs(countedAttr(day)))
}

// usageUnchanged is a transaction's check that agent r's usage this month is
// still u.
func (s *Store) usageUnchanged(r agentRef, u monthUsage, now time.Time) (types.TransactWriteItem, error) {
	return s.check(key(agentDataPK(r.ws, r.agent), usageSK(workspace.MonthKey(now))), usageIs(u, now.UTC().Day()))
}

// check is a transaction's ConditionCheck of the item at k.
func (s *Store) check(k item, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	e, err := build(expression.NewBuilder().WithCondition(cond))
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(s.table), Key: k, ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}}, nil
}

// eachAgent runs write for each of ids: it reads every standing in one batch
// (agents out of scope, or implausible ids, are not found), then decides and
// writes each agent concurrently, reading one agent again each time its
// transaction loses a race.
func (s *Store) eachAgent(ctx context.Context, ws, teamScope string, ids []string, now time.Time, write agentWrite) []workspace.CreditOutcome {
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
	fanout.Run(ctx, len(ids), fanout.Limit, func(ctx context.Context, i int) {
		a, ok := agents[ids[i]]
		if !ok {
			return
		}
		outs[i] = s.writeAgent(ctx, a, st, now, write)
	})
	return outs
}

// writeAgent decides and writes one agent, again on fresh figures after each
// lost race.
func (s *Store) writeAgent(ctx context.Context, a workspace.Agent, st *standings, now time.Time, write agentWrite) workspace.CreditOutcome {
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		sd, err := st.standing(a, false)
		if err != nil {
			return workspace.CreditOutcome{ID: a.ID, Name: a.Name, Err: err}
		}
		items, out, err := write(a, sd, now)
		if err != nil || items == nil {
			out.Err = err
			return out
		}
		failed, err := s.transact(ctx, items)
		if err == nil && len(failed) == 0 {
			return out
		}
		if err == nil && attempt >= maxReevaluations {
			err = workspace.ErrBusy
		}
		if err != nil {
			return workspace.CreditOutcome{ID: a.ID, Name: a.Name, Err: err}
		}
		fresh, agents, err := s.readAgentStandings(ctx, a.WorkspaceID, a.TeamID, []string{a.ID}, now)
		if err != nil {
			return workspace.CreditOutcome{ID: a.ID, Name: a.Name, Err: err}
		}
		id := a.ID
		if a, st = agents[id], fresh; a.ID == "" {
			return workspace.CreditOutcome{ID: id, Err: workspace.ErrAgentNotFound}
		}
	}
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
	st, err := s.readStandings(ctx, refs, now, readOpts{agents: true})
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
// pauses or resumes the team at once, as its usage this month calls for: one
// write to the team's state, however many agents it has. It returns
// workspace.ErrTeamSettingsOff when the workspace has team settings off and
// workspace.ErrTeamNotFound for an unknown team. Round trips: one
// BatchGetItem; when the limit changes, one transaction (again after a lost
// race); and, when the team is left running under a limit, one more
// BatchGetItem to settle usage that landed meanwhile (and a write if that
// pauses it).
func (s *Store) SetTeamLimit(ctx context.Context, ws, teamID string, limit *float64, now time.Time) (workspace.TeamLimitOutcome, error) {
	if !workspace.PlausibleID(teamID) {
		return workspace.TeamLimitOutcome{}, workspace.ErrTeamNotFound
	}
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		st, err := s.readTeamStanding(ctx, ws, teamID, now, key(wsPK(ws), skMeta))
		if err != nil {
			return workspace.TeamLimitOutcome{}, err
		}
		w, wsFound, err := decodeAt[workspaceItem](st, wsPK(ws), skMeta)
		if err != nil {
			return workspace.TeamLimitOutcome{}, err
		}
		if !wsFound {
			return workspace.TeamLimitOutcome{}, workspace.ErrTeamNotFound
		}
		if !w.TeamSettingsEnabled {
			return workspace.TeamLimitOutcome{}, workspace.ErrTeamSettingsOff
		}
		t, teamFound, err := decodeAt[teamItem](st, wsPK(ws), teamSK(teamID))
		if err != nil {
			return workspace.TeamLimitOutcome{}, err
		}
		if !teamFound {
			return workspace.TeamLimitOutcome{}, workspace.ErrTeamNotFound
		}
		state, err := st.teamState(ws, teamID)
		if err != nil {
			return workspace.TeamLimitOutcome{}, err
		}
		out := workspace.TeamLimitOutcome{Team: t.domain(), Paused: state.Paused}
		if workspace.SameLimit(t.MonthlyCreditLimit, limit) {
			// An unchanged limit still settles: a change whose settling
			// failed after it committed heals when the client retries it.
			out.Unchanged = true
			return s.settleTeamLimit(ctx, ws, teamID, st, out)
		}
		used, err := st.teamUsed(ws, teamID)
		if err != nil {
			return workspace.TeamLimitOutcome{}, err
		}
		out.Team.MonthlyCreditLimit = limit
		out.Paused = workspace.CreditPosition{TeamLimit: limit, TeamMonth: used}.TeamPaused()
		items, err := s.teamLimitItems(ws, teamID, limit, out.Paused, state.Version, now)
		if err != nil {
			return workspace.TeamLimitOutcome{}, err
		}
		failed, err := s.transact(ctx, items)
		if err != nil {
			return workspace.TeamLimitOutcome{}, err
		}
		if len(failed) == 0 {
			if out.Paused || limit == nil {
				// Month usage only grows: a pause decided on it stands, and
				// no usage reaches a removed limit.
				return out, nil
			}
			fresh, err := s.readTeamStanding(ctx, ws, teamID, now)
			if err != nil {
				return workspace.TeamLimitOutcome{}, err
			}
			out, err = s.settleTeamLimit(ctx, ws, teamID, fresh, out)
			if workspace.IsBusy(err) {
				// The limit stands; only the pause is unsettled (ErrBusy
				// would claim nothing was applied).
				err = workspace.ErrTeamLimitUnsettled
			}
			return out, err
		}
		if failed[0] == 0 {
			return workspace.TeamLimitOutcome{}, workspace.ErrTeamNotFound
		}
		if attempt >= maxReevaluations {
			return workspace.TeamLimitOutcome{}, workspace.ErrBusy
		}
	}
}

// settleTeamLimit pauses team teamID when the usage in st has reached its
// limit while it runs, and reports out with the team's paused state after.
func (s *Store) settleTeamLimit(ctx context.Context, ws, teamID string, st *standings, out workspace.TeamLimitOutcome) (workspace.TeamLimitOutcome, error) {
	_, paused, err := s.settleTeam(ctx, ws, teamID, st)
	if err != nil {
		return workspace.TeamLimitOutcome{}, err
	}
	out.Paused = paused
	return out, nil
}

// teamLimitItems is the transaction of a team limit change: the limit and the
// team's state as a new version.
func (s *Store) teamLimitItems(ws, teamID string, limit *float64, paused bool, version int64, now time.Time) ([]types.TransactWriteItem, error) {
	setLimit, err := s.update(key(wsPK(ws), teamSK(teamID)),
		expression.Set(expression.Name(attrMonthly), expression.Value(limit)),
		ptr(expression.AttributeExists(expression.Name(attrPK))))
	if err != nil {
		return nil, err
	}
	state, err := s.update(key(teamDataPK(ws, teamID), skState), teamStateUpdate(ws, teamID, paused, now), ptr(versionIs(version)))
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{setLimit, state}, nil
}
