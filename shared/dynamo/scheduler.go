package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

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
func (s *Store) ResumeDue(ctx context.Context, by workspace.Actor, now time.Time) ([]workspace.Transition, error) {
	var all []workspace.Transition
	var errs []error
	for _, index := range []struct{ prefix, reason string }{
		{resumeDay, workspace.ReasonDailyLimit},
		{resumeMonth, workspace.ReasonMonthlyLimit},
		{resumeTeam, workspace.ReasonTeamLimit},
	} {
		for shard := range resumeShards {
			trs, err := s.resumeShard(ctx, by, fmt.Sprintf("%s%d", index.prefix, shard), index.reason, now)
			all = append(all, trs...)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return all, errors.Join(errs...)
}

// resumeShard resumes the entries of one resume-index partition, of holds
// for reason, whose period is over (workspace.HoldEnded), a page at a time.
func (s *Store) resumeShard(ctx context.Context, by workspace.Actor, pk, reason string, now time.Time) ([]workspace.Transition, error) {
	in, err := s.keyQuery(IndexGSI2, expression.Key(attrGSI2PK).Equal(expression.Value(pk)).
		And(expression.Key(attrGSI2SK).LessThan(expression.Value(workspace.HoldPeriod(reason, now)))))
	if err != nil {
		return nil, err
	}
	in.Limit = aws.Int32(queryPageItems)
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
		var g errgroup.Group
		g.SetLimit(batchConcurrency)
		for i, raw := range page.Items {
			g.Go(func() error {
				trs[i], pageErrs[i] = s.resumeOne(ctx, by, raw, reason, now)
				return nil
			})
		}
		_ = g.Wait()
		for i := range trs {
			if trs[i] != nil {
				out = append(out, *trs[i])
			}
		}
		errs = append(errs, pageErrs...)
	}
	return out, errors.Join(errs...)
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
	err = s.writeVersioned(ctx, r.ws, w, agentPremises(a, sd.usage, ch.Premises, now),
		entriesIf(workspace.AgentStateEntry(now, by, r.agent, sd.Credit.Own, ch.To))...)
	if !ch.To.IsRunning() {
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
	err = s.writeVersioned(ctx, ws, w, teamPremises(ws, team, ts.Limit, ch.Premises),
		entriesIf(workspace.TeamPauseEntry(now, by, team, true, ch.Paused))...)
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
