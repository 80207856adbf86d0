package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/shared/fanout"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// ResumeDue resumes everything a new UTC day or month has freed by now:
// agents stopped by their daily limit on an earlier day, agents stopped by
// their monthly limit in an earlier month, teams paused in an earlier month.
// It reads only the resume index (GSI2), whose entries sort by the period
// that must end, so its cost grows with what it resumes, not with the agents
// that exist. Each resume is a write conditioned on the entity still being
// held for that period, so a second run, or a run racing a limit change,
// changes nothing more; a run after missed days catches up, since every
// earlier period sorts before now's.
func (s *Store) ResumeDue(ctx context.Context, now time.Time) ([]workspace.Transition, error) {
	type due struct {
		prefix, before string
	}
	var all []workspace.Transition
	var errs []error
	for _, d := range []due{
		{resumeDay, workspace.DayKey(now)},
		{resumeMonth, workspace.MonthKey(now)},
		{resumeTeam, workspace.MonthKey(now)},
	} {
		for shard := range resumeShards {
			trs, err := s.resumeShard(ctx, fmt.Sprintf("%s%d", d.prefix, shard), d.before, now)
			all = append(all, trs...)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return all, errors.Join(errs...)
}

// resumeShard resumes the entries of one resume-index partition whose
// period sorts before before, a page at a time.
func (s *Store) resumeShard(ctx context.Context, pk, before string, now time.Time) ([]workspace.Transition, error) {
	e, err := build(expression.NewBuilder().WithKeyCondition(
		expression.Key(attrGSI2PK).Equal(expression.Value(pk)).And(expression.Key(attrGSI2SK).LessThan(expression.Value(before)))))
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{
		TableName: aws.String(s.table), IndexName: aws.String(IndexGSI2),
		KeyConditionExpression: e.KeyCondition(), ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		Limit: aws.Int32(queryPageItems),
	}
	var out []workspace.Transition
	var errs []error
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return out, fmt.Errorf("query resume index: %w", err)
		}
		trs := make([]*workspace.Transition, len(page.Items))
		pageErrs := make([]error, len(page.Items))
		fanout.Run(ctx, len(page.Items), fanout.Limit, func(ctx context.Context, i int) {
			trs[i], pageErrs[i] = s.resumeOne(ctx, page.Items[i], before, now)
		})
		for i := range trs {
			if trs[i] != nil {
				out = append(out, *trs[i])
			}
		}
		errs = append(errs, pageErrs...)
	}
	return out, errors.Join(errs...)
}

// resumeOne settles the agent or team of one resume-index entry anew for
// now's day and month: it resumes it, unless usage already recorded in the
// new period reached the limit again (then the hold moves to the new period).
// The write is conditioned on the entity still being held for the same
// period at the version read, so a second run, or a run racing usage or a
// limit change, changes nothing more.
func (s *Store) resumeOne(ctx context.Context, raw item, before string, now time.Time) (*workspace.Transition, error) {
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
	if entity.Period >= before {
		return nil, nil
	}
	heldFor := expression.Name(attrPeriod).Equal(expression.Value(entity.Period)).
		And(expression.Name(attrGSI2PK).Equal(expression.Value(entity.GSI2PK)))
	if entity.Entity == typeTeamState {
		return s.resumeTeam(ctx, entity.WorkspaceID, entity.TeamID, heldFor, now)
	}
	reason := workspace.ReasonDailyLimit
	if strings.HasPrefix(entity.GSI2PK, resumeMonth) {
		reason = workspace.ReasonMonthlyLimit
	}
	r := agentRef{ws: entity.WorkspaceID, agent: entity.AgentID}
	st, err := s.readStandings(ctx, []agentRef{r}, now, readOpts{agents: true})
	if err != nil {
		return nil, err
	}
	state, err := st.agentState(r)
	if err != nil {
		return nil, err
	}
	to := workspace.Running // an agent that no longer exists leaves the index
	var premises []premise
	if a, found, err := st.agent(r); err != nil {
		return nil, err
	} else if found {
		sd, err := st.standing(a, false)
		if err != nil {
			return nil, err
		}
		to = sd.credit.Position.OwnState()
		premises = append(premises, agentLimitsUnchanged(a))
	}
	err = s.writeVersioned(ctx, key(agentDataPK(r.ws, r.agent), skState), agentStateUpdate(r, to, now),
		heldFor.And(expression.Name(attrReason).Equal(expression.Value(reason))).And(versionIs(state.Version)), premises...)
	if !to.IsRunning() {
		_, err = resumed(err, workspace.Transition{})
		return nil, err
	}
	return resumed(err, workspace.Transition{WorkspaceID: r.ws, AgentID: r.agent, State: workspace.Running})
}

// resumeTeam unpauses team (ws, team) held by heldFor, unless its usage in
// now's month already reached its limit again (then the pause moves to that
// month).
func (s *Store) resumeTeam(ctx context.Context, ws, team string, heldFor expression.ConditionBuilder, now time.Time) (*workspace.Transition, error) {
	st, err := s.readTeamStanding(ctx, ws, team, now)
	if err != nil {
		return nil, err
	}
	state, err := st.teamState(ws, team)
	if err != nil {
		return nil, err
	}
	t, found, err := decodeAt[teamItem](st, wsPK(ws), teamSK(team))
	if err != nil {
		return nil, err
	}
	used, err := st.teamUsed(ws, team)
	if err != nil {
		return nil, err
	}
	paused := found && (workspace.CreditPosition{TeamLimit: t.MonthlyCreditLimit, TeamMonth: used}).TeamPaused()
	var premises []premise
	if found {
		premises = append(premises, teamLimitUnchanged(ws, team, t.MonthlyCreditLimit))
	}
	err = s.writeVersioned(ctx, key(teamDataPK(ws, team), skState), teamStateUpdate(ws, team, paused, now),
		heldFor.And(expression.Name(attrPaused).Equal(expression.Value(true))).And(versionIs(state.Version)), premises...)
	if paused {
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
