package dynamo

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file reads the standings the credit rules decide on
// (workspace/creditrules.go) and writes what they decide: each state change
// is a new version, conditioned on the version read and on the decision's
// premises (transact.go), and taken again on fresh figures when it loses a
// race.

// agentRef names an agent and the team its usage is attributed to.
type agentRef struct{ ws, agent, team string }

func refOf(a workspace.Agent) agentRef {
	return agentRef{ws: a.WorkspaceID, agent: a.ID, team: a.TeamID}
}

// readOpts says what a standings read includes beyond the agents' states,
// current month usage, workspaces and teams' limits and states.
type readOpts struct {
	agents      bool // the agent items themselves (their limits, freshly)
	noTeamItems bool // leave out the teams' items (their limits)
	thresholds  bool // the agents' and teams' threshold markers of now's periods
	// eventual reads eventually consistently (half the read units): for
	// what only displays the standings, never for what a write decides from.
	eventual bool
}

// standings is one batch read of everything that decides some agents'
// running states in the UTC day and month of now.
type standings struct {
	now   time.Time
	items map[[2]string]item
}

// readStandings reads, in ceil(keys/100) BatchGetItem calls, the standings of
// refs: per agent its state and this month's usage (and its item with
// opts.agents), per workspace its item, per team its item and state (and its
// month usage shards never: the usage path reads those itself, settleReads).
func (s *Store) readStandings(ctx context.Context, refs []agentRef, now time.Time, opts readOpts) (*standings, error) {
	month := workspace.MonthKey(now)
	seen := map[[2]string]bool{}
	var keys []item
	add := func(pk, sk string) {
		if k := [2]string{pk, sk}; !seen[k] {
			seen[k] = true
			keys = append(keys, key(pk, sk))
		}
	}
	for _, r := range refs {
		add(agentDataPK(r.ws, r.agent), skState)
		add(agentDataPK(r.ws, r.agent), usageSK(month))
		add(wsPK(r.ws), skMeta)
		if opts.agents {
			add(wsPK(r.ws), agentSK(r.agent))
		}
		if r.team != "" {
			if !opts.noTeamItems {
				add(wsPK(r.ws), teamSK(r.team))
			}
			add(teamDataPK(r.ws, r.team), skState)
		}
		if opts.thresholds {
			for _, k := range thresholdKeys(r.ws, agentTarget(r.agent), now) {
				add(k[0], k[1])
			}
			if r.team != "" {
				for _, k := range thresholdKeys(r.ws, teamTarget(r.team), now) {
					add(k[0], k[1])
				}
			}
		}
	}
	found, err := s.batchRead(ctx, keys, !opts.eventual)
	if err != nil {
		return nil, err
	}
	return &standings{now: now, items: found}, nil
}

// decodeAt decodes the item at pk, sk of a batch read into an I; found is
// false when there is none.
func decodeAt[I any](items map[[2]string]item, pk, sk string) (it I, found bool, err error) {
	raw, ok := items[[2]string{pk, sk}]
	if !ok {
		return it, false, nil
	}
	return it, true, unmarshal(raw, &it)
}

// agent returns the agent item read with opts.agents.
func (st *standings) agent(r agentRef) (workspace.Agent, bool, error) {
	it, found, err := decodeAt[agentItem](st.items, wsPK(r.ws), agentSK(r.agent))
	return it.domain(), found, err
}

func (st *standings) agentState(r agentRef) (agentStateItem, error) {
	it, _, err := decodeAt[agentStateItem](st.items, agentDataPK(r.ws, r.agent), skState)
	return it, err
}

func (st *standings) usage(r agentRef) (monthUsage, error) {
	return loadMonthUsage(st.items[[2]string{agentDataPK(r.ws, r.agent), usageSK(workspace.MonthKey(st.now))}])
}

func (st *standings) teamState(ws, team string) (teamStateItem, error) {
	it, _, err := decodeAt[teamStateItem](st.items, teamDataPK(ws, team), skState)
	return it, err
}

// readTeamStanding reads what decides team's pause at now (its item, its
// state, its threshold markers) and the further keys, as one snapshot
// (snapshot): a team's limit and its paused flag are never read from either
// side of a change that wrote both. Its month usage shards are read at the
// same time with a BatchGetItem, not in the snapshot: usage transactions
// hold them all the time, and a snapshot naming a held item is cancelled;
// usage only grows, and every usage write settles the team again on what it
// committed.
func (s *Store) readTeamStanding(ctx context.Context, ws, team string, now time.Time, more ...item) (*standings, error) {
	keys := append([]item{key(wsPK(ws), teamSK(team)), key(teamDataPK(ws, team), skState)}, more...)
	for _, k := range thresholdKeys(ws, teamTarget(team), now) {
		keys = append(keys, key(k[0], k[1]))
	}
	var shards []item
	for _, k := range teamShardKeys(ws, team, workspace.MonthKey(now)) {
		shards = append(shards, key(k[0], k[1]))
	}
	var found, used map[[2]string]item
	err := readAll(ctx, func(ctx context.Context) (err error) {
		found, err = s.snapshot(ctx, keys)
		return err
	}, func(ctx context.Context) (err error) {
		used, err = s.batchGet(ctx, shards)
		return err
	})
	if err != nil {
		return nil, err
	}
	maps.Copy(found, used)
	return &standings{now: now, items: found}, nil
}

// standing is one agent's standing decoded: as the credit rules take it,
// with the version of its state item and its usage as stored (for premises).
type standing struct {
	workspace.AgentStanding
	version int64
	usage   monthUsage
}

// standing decodes the standing of agent a (whose limits are a's), reading
// its team's usage only when the read included it.
func (st *standings) standing(a workspace.Agent, teamUsage bool) (standing, error) {
	r := refOf(a)
	var out standing
	state, err := st.agentState(r)
	if err != nil {
		return out, err
	}
	out.version, out.Period = state.Version, state.Period
	if out.usage, err = st.usage(r); err != nil {
		return out, err
	}
	w, _, err := decodeAt[workspaceItem](st.items, wsPK(r.ws), skMeta)
	if err != nil {
		return out, err
	}
	pos := workspace.AgentPosition(a, w.DefaultDailyCreditLimit, out.usage.Total, out.usage.Counted, st.now)
	var team teamStateItem // zero without a team
	if r.team != "" {
		t, _, err := decodeAt[teamItem](st.items, wsPK(r.ws), teamSK(r.team))
		if err != nil {
			return out, err
		}
		pos.TeamLimit = t.MonthlyCreditLimit
		if team, err = st.teamState(r.ws, r.team); err != nil {
			return out, err
		}
		if teamUsage {
			if pos.TeamMonth, err = st.teamUsed(r.ws, r.team); err != nil {
				return out, err
			}
		}
	}
	out.Credit = workspace.AgentCredit{
		Position: pos, Own: state.own(), TeamPaused: team.Paused, Disabled: state.Disabled,
		LastActivityAt: optionalTime(state.LastActivityAt),
	}
	return out, nil
}

// teamStanding is a team's standing decoded: as the credit rules take it,
// with its item and the version of its state item.
type teamStanding struct {
	workspace.TeamStanding
	team    teamItem
	version int64
}

// team decodes the standing of team (ws, team): its item, its state and its
// month usage (zero unless the read included its shards).
func (st *standings) team(ws, team string) (teamStanding, error) {
	var out teamStanding
	var err error
	if out.team, out.Exists, err = decodeAt[teamItem](st.items, wsPK(ws), teamSK(team)); err != nil {
		return out, err
	}
	state, err := st.teamState(ws, team)
	if err != nil {
		return out, err
	}
	out.Limit, out.Paused, out.Period, out.version = out.team.MonthlyCreditLimit, state.Paused, state.Period, state.Version
	out.Used, err = st.teamUsed(ws, team)
	return out, err
}

// optionalTime reads a stored timestamp that may be absent (zero time).
func optionalTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	return loadedTime(s)
}

// versionIs is the condition that the state item still has version v.
func versionIs(v int64) expression.ConditionBuilder {
	if v == 0 {
		return expression.AttributeNotExists(expression.Name(attrVersion))
	}
	return expression.Name(attrVersion).Equal(expression.Value(v))
}

// agentStateWrite sets agent r's own state to to as a new version of state
// version, moving it in or out of the resume index: a hold sits there under
// the period that must end (workspace.HoldPeriod).
func agentStateWrite(r agentRef, to workspace.AgentState, version int64, now time.Time) write {
	upd := expression.Set(expression.Name(attrWorkspace), expression.Value(r.ws)).
		Set(expression.Name(attrAgentID), expression.Value(r.agent)).
		Set(expression.Name(attrEntity), expression.Value(typeAgentState)).
		Add(expression.Name(attrVersion), expression.Value(1))
	w := write{key: key(agentDataPK(r.ws, r.agent), skState), cond: versionIs(version)}
	if to.IsRunning() {
		w.upd = upd.Set(expression.Name(attrStatus), expression.Value(workspace.StatusRunning)).
			Remove(expression.Name(attrReason)).Remove(expression.Name(attrPeriod)).
			Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK))
		return w
	}
	prefix, period := resumeDay, workspace.HoldPeriod(to.Reason, now)
	if to.Reason == workspace.ReasonMonthlyLimit {
		prefix = resumeMonth
	}
	pk, sk := resumeGSI2(prefix, r.ws, r.agent, period)
	w.upd = upd.Set(expression.Name(attrStatus), expression.Value(to.Status)).
		Set(expression.Name(attrReason), expression.Value(to.Reason)).
		Set(expression.Name(attrPeriod), expression.Value(period)).
		Set(expression.Name(attrGSI2PK), expression.Value(pk)).
		Set(expression.Name(attrGSI2SK), expression.Value(sk))
	return w
}

// teamStateWrite pauses or resumes team (ws, team) as a new version of state
// version.
func teamStateWrite(ws, team string, paused bool, version int64, now time.Time) write {
	upd := expression.Set(expression.Name(attrWorkspace), expression.Value(ws)).
		Set(expression.Name(attrTeamID), expression.Value(team)).
		Set(expression.Name(attrEntity), expression.Value(typeTeamState)).
		Set(expression.Name(attrPaused), expression.Value(paused)).
		Add(expression.Name(attrVersion), expression.Value(1))
	w := write{key: key(teamDataPK(ws, team), skState), cond: versionIs(version)}
	if !paused {
		w.upd = upd.Remove(expression.Name(attrPeriod)).Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK))
		return w
	}
	month := workspace.HoldPeriod(workspace.ReasonTeamLimit, now)
	pk, sk := resumeGSI2(resumeTeam, ws, team, month)
	w.upd = upd.Set(expression.Name(attrPeriod), expression.Value(month)).
		Set(expression.Name(attrGSI2PK), expression.Value(pk)).Set(expression.Name(attrGSI2SK), expression.Value(sk))
	return w
}

// limitIs is the condition that a limit attribute holds v (absent or null
// for no limit).
func limitIs(attr string, v *float64) expression.ConditionBuilder {
	if v == nil {
		return expression.AttributeNotExists(expression.Name(attr)).
			Or(expression.AttributeType(expression.Name(attr), expression.Null))
	}
	return expression.Name(attr).Equal(expression.Value(*v))
}

// agentPremises are the conditions of premises p of a decision on agent a,
// whose usage this month was read as u. Usage premises compare with the
// stored decimals, not the float64 the decision used.
func agentPremises(a workspace.Agent, u monthUsage, p workspace.Premises, now time.Time) []premise {
	var out []premise
	if p.AgentLimits {
		out = append(out, premise{key(wsPK(a.WorkspaceID), agentSK(a.ID)),
			limitIs(attrDaily, a.DailyCreditLimit).And(limitIs(attrMonthly, a.MonthlyCreditLimit))})
	}
	usage, day := key(agentDataPK(a.WorkspaceID, a.ID), usageSK(workspace.MonthKey(now))), now.UTC().Day()
	today := countedAttr(day)
	switch {
	case p.UsageReaches == workspace.UsageToday || p.TodayCleared:
		out = append(out, premise{usage, u.storedAtLeast(today)})
	case p.UsageReaches == workspace.UsageMonth:
		out = append(out, premise{usage, u.storedAtLeast(attrTotal)})
	}
	if p.BelowDaily != nil {
		bound := *p.BelowDaily
		if p.TodayCleared {
			// The write subtracts what was read: what lands meanwhile
			// counts from zero.
			bound = workspace.RoundFigure(u.Counted[day] + bound)
		}
		out = append(out, premise{usage, storedBelow(today, bound)})
	}
	if p.BelowMonthly != nil {
		out = append(out, premise{usage, storedBelow(attrTotal, *p.BelowMonthly)})
	}
	return out
}

// storedBelow is the condition that attribute attr (absent: none) is below
// limit.
func storedBelow(attr string, limit float64) expression.ConditionBuilder {
	return expression.AttributeNotExists(expression.Name(attr)).Or(expression.Name(attr).LessThan(expression.Value(limit)))
}

// teamPremises are the conditions of premises p of a decision on team (ws,
// team) whose limit was read as limit.
func teamPremises(ws, team string, limit *float64, p workspace.Premises) []premise {
	if !p.TeamLimit {
		return nil
	}
	return []premise{{key(wsPK(ws), teamSK(team)), limitIs(attrMonthly, limit)}}
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

// settleAgent applies usage's effect to agent a (workspace.SettleAgent)
// and writes, in the same transaction, the events of what it changed and of
// the thresholds its usage newly crossed (a marker each, new in its period).
// On a lost race (another writer moved its state, or wrote a threshold's
// marker first) it reads the agent's standing again and decides again
// (decideAndCommit). It returns the transition it made, if any.
func (s *Store) settleAgent(ctx context.Context, by workspace.Actor, a workspace.Agent, st *standings) (*workspace.Transition, error) {
	r := refOf(a)
	tr, err := decideAndCommit(ctx, func(n int) (*workspace.Transition, error) {
		if n > 0 {
			fresh, err := s.readStandings(ctx, []agentRef{r}, st.now, readOpts{agents: true, thresholds: true})
			if err != nil {
				return nil, err
			}
			got, found, err := fresh.agent(r)
			if err != nil || !found {
				return nil, err
			}
			a, st = got, fresh
		}
		sd, err := st.standing(a, false)
		if err != nil {
			return nil, err
		}
		ch := workspace.SettleAgent(sd.AgentStanding, st.now)
		cross := unmarked(st.items, r.ws, agentTarget(r.agent), workspace.AgentCrossings(sd.Credit.Position, st.now))
		if !ch.Write && len(cross) == 0 {
			return nil, nil
		}
		puts, err := s.crossingPuts(r.ws, agentTarget(r.agent), cross, st.now)
		if err != nil {
			return nil, err
		}
		var writes []write
		var premises []premise
		var entries []workspace.AuditEntry
		if ch.Write {
			after := sd.Credit
			after.Own = ch.To
			ev, err := s.agentEventPuts(r.ws, r.agent, sd.Credit, after, sd.version+1, st.now)
			if err != nil {
				return nil, err
			}
			puts = append(puts, ev...)
			entries = workspace.AgentCreditEntries(st.now, by, r.agent, sd.Credit, after)
			writes, premises = []write{agentStateWrite(r, ch.To, sd.version, st.now)}, agentPremises(a, sd.usage, ch.Premises, st.now)
		}
		if err := s.commit(ctx, r.ws, writes, premises, puts, entries...); err != nil || !ch.Write {
			return nil, err
		}
		return &workspace.Transition{WorkspaceID: r.ws, AgentID: r.agent, State: ch.To}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("settle agent %s: %w", r.agent, err)
	}
	return tr, nil
}

// teamSettled is what settleTeam did: the transition it made, if any, and
// whether the team is paused after it.
type teamSettled struct {
	tr     *workspace.Transition
	paused bool
}

// settleTeam applies usage's effect to team (ws, team) (workspace.SettleTeam)
// and writes, in the same transaction, the event of its pause and of the
// thresholds of its limit its usage newly crossed. On a lost race it reads
// again (decideAndCommit). It returns the transition it made, if any, and
// whether the team is paused after it.
func (s *Store) settleTeam(ctx context.Context, by workspace.Actor, ws, team string, st *standings) (*workspace.Transition, bool, error) {
	out, err := decideAndCommit(ctx, func(n int) (teamSettled, error) {
		if n > 0 {
			fresh, err := s.readTeamStanding(ctx, ws, team, st.now)
			if err != nil {
				return teamSettled{}, err
			}
			st = fresh
		}
		ts, err := st.team(ws, team)
		if err != nil {
			return teamSettled{}, err
		}
		ch := workspace.SettleTeam(ts.TeamStanding, st.now)
		cross := unmarked(st.items, ws, teamTarget(team), workspace.TeamCrossings(ts.TeamStanding, st.now))
		if !ch.Write && len(cross) == 0 {
			return teamSettled{paused: ch.Paused}, nil
		}
		puts, err := s.crossingPuts(ws, teamTarget(team), cross, st.now)
		if err != nil {
			return teamSettled{}, err
		}
		var writes []write
		var premises []premise
		var entries []workspace.AuditEntry
		if ch.Write {
			ev, err := s.teamEventPuts(ws, team, ts.TeamStanding, true, ts.version+1, st.now)
			if err != nil {
				return teamSettled{}, err
			}
			puts = append(puts, ev...)
			entries = workspace.EntriesIf(workspace.TeamPauseEntry(st.now, by, team, ts.Paused, true))
			writes, premises = []write{teamStateWrite(ws, team, true, ts.version, st.now)}, teamPremises(ws, team, ts.Limit, ch.Premises)
		}
		if err := s.commit(ctx, ws, writes, premises, puts, entries...); err != nil || !ch.Write {
			return teamSettled{paused: ch.Paused}, err
		}
		return teamSettled{paused: true, tr: &workspace.Transition{WorkspaceID: ws, TeamID: team,
			State: workspace.AgentState{Status: workspace.StatusPaused, Reason: workspace.ReasonTeamLimit}}}, nil
	})
	if err != nil {
		return nil, false, err
	}
	return out.tr, out.paused, nil
}
