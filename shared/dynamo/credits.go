package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file reads what decides agents' running states (their standings) and
// writes state changes under the version conditions of keys.go.

// agentRef names an agent and the team its usage is attributed to.
type agentRef struct{ ws, agent, team string }

func refOf(a workspace.Agent) agentRef {
	return agentRef{ws: a.WorkspaceID, agent: a.ID, team: a.TeamID}
}

// readOpts says what a standings read includes beyond the agents' states,
// current month usage, workspaces and teams' limits and states.
type readOpts struct {
	agents      bool // the agent items themselves (their limits, freshly)
	teamUsage   bool // the teams' month usage shards
	noTeamItems bool // leave out the teams' items (their limits)
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
// month usage shards with opts.teamUsage).
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
			if opts.teamUsage {
				for i := range usageShards {
					add(teamDataPK(r.ws, r.team), shardSK(month, i))
				}
			}
		}
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	return &standings{now: now, items: found}, nil
}

// decodeAt decodes the item at pk, sk into an I; found is false when there is none.
func decodeAt[I any](st *standings, pk, sk string) (it I, found bool, err error) {
	raw, ok := st.items[[2]string{pk, sk}]
	if !ok {
		return it, false, nil
	}
	return it, true, unmarshal(raw, &it)
}

// agent returns the agent item read with opts.agents.
func (st *standings) agent(r agentRef) (workspace.Agent, bool, error) {
	it, found, err := decodeAt[agentItem](st, wsPK(r.ws), agentSK(r.agent))
	return it.domain(), found, err
}

func (st *standings) agentState(r agentRef) (agentStateItem, error) {
	it, _, err := decodeAt[agentStateItem](st, agentDataPK(r.ws, r.agent), skState)
	return it, err
}

func (st *standings) usage(r agentRef) (monthUsage, error) {
	return loadMonthUsage(st.items[[2]string{agentDataPK(r.ws, r.agent), usageSK(workspace.MonthKey(st.now))}])
}

func (st *standings) teamState(ws, team string) (teamStateItem, error) {
	it, _, err := decodeAt[teamStateItem](st, teamDataPK(ws, team), skState)
	return it, err
}

// teamUsed sums the team's month usage shards (read with opts.teamUsage).
func (st *standings) teamUsed(ws, team string) (float64, error) {
	return st.shardSum(teamDataPK(ws, team), workspace.MonthKey(st.now))
}

// shardSum sums the usage shards of a team or workspace partition pk for
// month, as read.
func (st *standings) shardSum(pk, month string) (float64, error) {
	shards := make([]float64, usageShards)
	for i := range usageShards {
		c, _, err := decodeAt[counterItem](st, pk, shardSK(month, i))
		if err != nil {
			return 0, err
		}
		shards[i] = c.Total
	}
	return workspace.SumCredits(shards...), nil
}

// readTeamStanding reads what decides team's pause at now (its item, its
// state and its month usage shards) and the further keys, in one
// BatchGetItem.
func (s *Store) readTeamStanding(ctx context.Context, ws, team string, now time.Time, more ...item) (*standings, error) {
	keys := append([]item{key(wsPK(ws), teamSK(team)), key(teamDataPK(ws, team), skState)}, more...)
	for i := range usageShards {
		keys = append(keys, key(teamDataPK(ws, team), shardSK(workspace.MonthKey(now), i)))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	return &standings{now: now, items: found}, nil
}

// standing is one agent's standing decoded.
type standing struct {
	credit workspace.AgentCredit
	state  agentStateItem
	usage  monthUsage
	team   teamStateItem // zero without a team
}

// standing decodes the standing of agent a (whose limits are a's), reading
// its team's usage only when the read included it.
func (st *standings) standing(a workspace.Agent, teamUsage bool) (standing, error) {
	r := refOf(a)
	var out standing
	var err error
	if out.state, err = st.agentState(r); err != nil {
		return out, err
	}
	if out.usage, err = st.usage(r); err != nil {
		return out, err
	}
	w, _, err := decodeAt[workspaceItem](st, wsPK(r.ws), skMeta)
	if err != nil {
		return out, err
	}
	pos := workspace.CreditPosition{
		DailyLimit: a.DailyCreditLimit, DefaultDailyLimit: w.DefaultDailyCreditLimit, MonthlyLimit: a.MonthlyCreditLimit,
		Today: out.usage.Counted[st.now.UTC().Day()], Month: out.usage.Total,
	}
	if r.team != "" {
		t, _, err := decodeAt[teamItem](st, wsPK(r.ws), teamSK(r.team))
		if err != nil {
			return out, err
		}
		pos.TeamLimit = t.MonthlyCreditLimit
		if out.team, err = st.teamState(r.ws, r.team); err != nil {
			return out, err
		}
		if teamUsage {
			if pos.TeamMonth, err = st.teamUsed(r.ws, r.team); err != nil {
				return out, err
			}
		}
	}
	out.credit = workspace.AgentCredit{
		Position: pos, Own: out.state.own(), TeamPaused: out.team.Paused,
		LastActivityAt: optionalTime(out.state.LastActivityAt),
	}
	return out, nil
}

// optionalTime reads a stored timestamp that may be absent (zero time).
func optionalTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	return loadedTime(s)
}

// errStale reports a state write whose version condition failed: another
// change came first, and the decision must be taken again on fresh figures.
var errStale = errors.New("running state changed concurrently")

// maxReevaluations bounds how often one decision is taken again after losing
// a race; each loss means another writer made progress, so the bound is what
// a burst of writers racing on one item (a team's limit changes and pauses)
// can take, not a guess at luck.
const maxReevaluations = 24

// reevaluationBackoffCap caps the backoff before a decision is taken again
// (attempt 4: 40 to 80 ms), so the writers that lost a race spread out without
// stretching a request toward the gateway's 29 s.
const reevaluationBackoffCap = 4

// pauseBeforeReevaluation waits a jittered moment before attempt n (n > 0) of
// a decision that lost a race, so racing writers do not collide again in step.
func pauseBeforeReevaluation(ctx context.Context, attempt int) {
	if attempt > 0 {
		backoff(ctx, min(attempt, reevaluationBackoffCap))
	}
}

// afterLostRace is what a decision loop does after attempt's write failed
// with err: nil to decide again on fresh figures (its condition failed),
// workspace.ErrBusy once it has lost maxReevaluations races in a row, or err
// itself for a failure that is not a lost race.
func afterLostRace(err error, attempt int) error {
	switch {
	case !errors.Is(err, errStale):
		return err
	case attempt >= maxReevaluations:
		return workspace.ErrBusy
	}
	return nil
}

// versionIs is the condition that the state item still has version v.
func versionIs(v int64) expression.ConditionBuilder {
	if v == 0 {
		return expression.AttributeNotExists(expression.Name(attrVersion))
	}
	return expression.Name(attrVersion).Equal(expression.Value(v))
}

// agentStateUpdate sets agent r's own state to to (a new version of state v),
// moving it in or out of the resume index.
func agentStateUpdate(r agentRef, to workspace.AgentState, now time.Time) expression.UpdateBuilder {
	upd := expression.Set(expression.Name(attrWorkspace), expression.Value(r.ws)).
		Set(expression.Name(attrAgentID), expression.Value(r.agent)).
		Set(expression.Name(attrEntity), expression.Value(typeAgentState)).
		Add(expression.Name(attrVersion), expression.Value(1))
	if to.IsRunning() {
		return upd.Set(expression.Name(attrStatus), expression.Value(workspace.StatusRunning)).
			Remove(expression.Name(attrReason)).Remove(expression.Name(attrPeriod)).
			Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK))
	}
	prefix, period := resumeDay, workspace.DayKey(now)
	if to.Reason == workspace.ReasonMonthlyLimit {
		prefix, period = resumeMonth, workspace.MonthKey(now)
	}
	pk, sk := resumeGSI2(prefix, r.ws, r.agent, period)
	return upd.Set(expression.Name(attrStatus), expression.Value(to.Status)).
		Set(expression.Name(attrReason), expression.Value(to.Reason)).
		Set(expression.Name(attrPeriod), expression.Value(period)).
		Set(expression.Name(attrGSI2PK), expression.Value(pk)).
		Set(expression.Name(attrGSI2SK), expression.Value(sk))
}

// teamStateUpdate pauses or resumes team (ws, team) as a new version.
func teamStateUpdate(ws, team string, paused bool, now time.Time) expression.UpdateBuilder {
	upd := expression.Set(expression.Name(attrWorkspace), expression.Value(ws)).
		Set(expression.Name(attrTeamID), expression.Value(team)).
		Set(expression.Name(attrEntity), expression.Value(typeTeamState)).
		Set(expression.Name(attrPaused), expression.Value(paused)).
		Add(expression.Name(attrVersion), expression.Value(1))
	if !paused {
		return upd.Remove(expression.Name(attrPeriod)).Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK))
	}
	month := workspace.MonthKey(now)
	pk, sk := resumeGSI2(resumeTeam, ws, team, month)
	return upd.Set(expression.Name(attrPeriod), expression.Value(month)).
		Set(expression.Name(attrGSI2PK), expression.Value(pk)).Set(expression.Name(attrGSI2SK), expression.Value(sk))
}

// writeVersioned runs a conditional update of a state item, with checks of
// the premises its decision was taken on (the limits, the usage), as one
// transaction (so conflicts are retried like every transaction's) and
// returns errStale when a condition failed.
//
// The checks are needed because a BatchGetItem is not a snapshot: it may
// return a limit from before a limit change's transaction and the state from
// after it, and the state's version alone would then let a decision taken on
// the old limit through.
func (s *Store) writeVersioned(ctx context.Context, k item, upd expression.UpdateBuilder, cond expression.ConditionBuilder, premises ...premise) error {
	tx, err := s.update(k, upd, &cond)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{tx}
	for _, p := range premises {
		it, err := s.check(p.key, p.cond)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	failed, err := s.transact(ctx, items)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return errStale
	}
	return nil
}

// premise is a condition on another item that a write's decision rests on.
type premise struct {
	key  item
	cond expression.ConditionBuilder
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

// teamLimitUnchanged checks that team (ws, team) still has limit v.
func teamLimitUnchanged(ws, team string, v *float64) premise {
	return premise{key(wsPK(ws), teamSK(team)), limitIs(attrMonthly, v)}
}

// agentLimitsUnchanged checks that agent a's stored limits are still a's.
func agentLimitsUnchanged(a workspace.Agent) premise {
	return premise{key(wsPK(a.WorkspaceID), agentSK(a.ID)),
		limitIs(attrDaily, a.DailyCreditLimit).And(limitIs(attrMonthly, a.MonthlyCreditLimit))}
}

// usageReaches checks that agent r's usage, read as u, has not gone below
// what stopped it in state to (a daily-usage reset lowers today's): a stop
// decided on a read from before a reset must not land after it. The check
// compares with the stored decimal, not the float64 the decision used.
func usageReaches(r agentRef, to workspace.AgentState, u monthUsage, now time.Time) premise {
	attr := countedAttr(now.UTC().Day())
	if to.Reason == workspace.ReasonMonthlyLimit {
		attr = attrTotal
	}
	return premise{key(agentDataPK(r.ws, r.agent), usageSK(workspace.MonthKey(now))), u.storedAtLeast(attr)}
}

// settleAgent applies usage's effect to agent a: its own state escalates to
// what its figures call for. On a lost race it reads the agent's standing
// again and decides again. It returns the transition it made, if any.
func (s *Store) settleAgent(ctx context.Context, a workspace.Agent, st *standings) (*workspace.Transition, error) {
	r := refOf(a)
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		sd, err := st.standing(a, false)
		if err != nil {
			return nil, err
		}
		// A stop whose day or month is over is judged as running: usage of
		// the new period that reaches a limit stops the agent for it (a new
		// version, so a scheduler run that read the old usage cannot resume
		// it), and usage that does not leaves the lifting to the scheduler.
		from, ended := sd.credit.Own, sd.state.holdEnded(st.now)
		if ended {
			from = workspace.Running
		}
		to := workspace.Escalate(from, sd.credit.Position.OwnState())
		if to.IsRunning() || (to == sd.credit.Own && !ended) {
			return nil, nil
		}
		err = s.writeVersioned(ctx, key(agentDataPK(r.ws, r.agent), skState),
			agentStateUpdate(r, to, st.now), versionIs(sd.state.Version),
			agentLimitsUnchanged(a), usageReaches(r, to, sd.usage, st.now))
		if err == nil {
			return &workspace.Transition{WorkspaceID: r.ws, AgentID: r.agent, State: to}, nil
		}
		if err := afterLostRace(err, attempt); err != nil {
			return nil, fmt.Errorf("settle agent %s: %w", r.agent, err)
		}
		if st, err = s.readStandings(ctx, []agentRef{r}, st.now, readOpts{agents: true}); err != nil {
			return nil, err
		}
		fresh, found, err := st.agent(r)
		if err != nil || !found {
			return nil, err
		}
		a = fresh
	}
}

// settleTeam pauses team (ws, team) when its month usage has reached its
// limit: usage never resumes a team. On a lost race it reads again. It
// returns the transition it made, if any, and whether the team is paused
// after it.
func (s *Store) settleTeam(ctx context.Context, ws, team string, st *standings) (*workspace.Transition, bool, error) {
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		state, err := st.teamState(ws, team)
		if err != nil {
			return nil, false, err
		}
		// A pause whose month is over is judged as running, as settleAgent
		// judges a stop whose period is over.
		t, found, err := decodeAt[teamItem](st, wsPK(ws), teamSK(team))
		if err != nil || !found || (state.Paused && !state.pauseEnded(st.now)) {
			return nil, state.Paused, err
		}
		used, err := st.teamUsed(ws, team)
		if err != nil {
			return nil, false, err
		}
		if !(workspace.CreditPosition{TeamLimit: t.MonthlyCreditLimit, TeamMonth: used}).TeamPaused() {
			return nil, state.Paused, nil
		}
		err = s.writeVersioned(ctx, key(teamDataPK(ws, team), skState), teamStateUpdate(ws, team, true, st.now),
			versionIs(state.Version), teamLimitUnchanged(ws, team, t.MonthlyCreditLimit))
		if err == nil {
			return &workspace.Transition{WorkspaceID: ws, TeamID: team,
				State: workspace.AgentState{Status: workspace.StatusPaused, Reason: workspace.ReasonTeamLimit}}, true, nil
		}
		if err := afterLostRace(err, attempt); err != nil {
			return nil, false, err
		}
		if st, err = s.readTeamStanding(ctx, ws, team, st.now); err != nil {
			return nil, false, err
		}
	}
}
