package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/agentplatform/workspaceapi/shared/roundtrip"
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
//
// The index's partitions (3 kinds of hold × resumeShards) are independent:
// they are queried at once, at most batchConcurrency at a time, and the
// entries they hold are resumed at most batchConcurrency at a time, so a run
// waits for a few round trips in turn, not for one per partition. The
// transitions come in the same order as one partition after another would
// give them.
func (s *Store) ResumeDue(ctx context.Context, by workspace.Actor, now time.Time) ([]workspace.Transition, error) {
	type shard struct{ pk, reason string }
	var shards []shard
	for _, index := range []struct{ prefix, reason string }{
		{resumeDay, workspace.ReasonDailyLimit},
		{resumeMonth, workspace.ReasonMonthlyLimit},
		{resumeTeam, workspace.ReasonTeamLimit},
	} {
		for n := range resumeShards {
			shards = append(shards, shard{fmt.Sprintf("%s%d", index.prefix, n), index.reason})
		}
	}
	// Each partition's pages, each page's resumes: filled by the partition's
	// query and its entries' resumes, read once every one has finished.
	results := make([][]*resumePage, len(shards))
	queryErrs := make([]error, len(shards))
	var resumes errgroup.Group
	resumes.SetLimit(batchConcurrency)
	fanOut(ctx, len(shards), func(ctx context.Context, i int) {
		results[i], queryErrs[i] = s.resumeShard(ctx, by, shards[i].pk, shards[i].reason, now, &resumes)
	})
	_ = resumes.Wait()
	var all []workspace.Transition
	var errs []error
	for i := range shards {
		for _, page := range results[i] {
			for k, tr := range page.transitions {
				if tr != nil {
					all = append(all, *tr)
				}
				errs = append(errs, page.errs[k])
			}
		}
		errs = append(errs, queryErrs[i])
	}
	return all, errors.Join(errs...)
}

// resumePage is what the resumes of one page of a resume-index partition
// did: per entry, its transition (nil when nothing changed) and its error.
type resumePage struct {
	transitions []*workspace.Transition
	errs        []error
}

// resumeShard queries the entries of one resume-index partition, of holds
// for reason, whose period is over (workspace.HoldEnded), a page at a time,
// and hands each entry's resume to resumes; the pages' results are filled
// in once resumes has finished.
func (s *Store) resumeShard(ctx context.Context, by workspace.Actor, pk, reason string, now time.Time, resumes *errgroup.Group) ([]*resumePage, error) {
	in, err := s.keyQuery(IndexGSI2, expression.Key(attrGSI2PK).Equal(expression.Value(pk)).
		And(expression.Key(attrGSI2SK).LessThan(expression.Value(workspace.HoldPeriod(reason, now)))))
	if err != nil {
		return nil, err
	}
	in.Limit = aws.Int32(queryPageItems)
	var pages []*resumePage
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return pages, fmt.Errorf("query resume index: %w", err)
		}
		rp := &resumePage{transitions: make([]*workspace.Transition, len(page.Items)), errs: make([]error, len(page.Items))}
		pages = append(pages, rp)
		// The page's resumes are sent at once, beside the next page's
		// query. Nothing of the run comes after them, so their branches
		// are never joined.
		ctxs, _ := roundtrip.Fork(ctx, len(page.Items), batchConcurrency)
		for k, raw := range page.Items {
			resumes.Go(func() error {
				rp.transitions[k], rp.errs[k] = s.resumeOne(ctxs[k], by, raw, reason, now)
				return nil
			})
		}
	}
	return pages, nil
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
