package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// agentsQuery is the Query of ws's agents in id order, or of team's agents
// (GSI1) when team is not empty.
func (s *Store) agentsQuery(ws, team string) (*dynamodb.QueryInput, error) {
	if team != "" {
		return s.keyQuery(IndexGSI1, expression.Key(attrGSI1PK).Equal(expression.Value(teamGSI1PK(ws, team))).
			And(expression.Key(attrGSI1SK).BeginsWith(prefixAgent)))
	}
	return s.keyQuery("", prefixed(wsPK(ws), prefixAgent))
}

// agentStartKey is the exclusive start key after agent id in agentsQuery.
func agentStartKey(ws, team, id string) item {
	k := key(wsPK(ws), agentSK(id))
	if team != "" {
		k[attrGSI1PK] = &types.AttributeValueMemberS{Value: teamGSI1PK(ws, team)}
		k[attrGSI1SK] = &types.AttributeValueMemberS{Value: agentSK(id)}
	}
	return k
}

// AgentPage lists up to limit agents of ws in id order (only team's when team
// is not empty), private agents included, starting after the agent id after
// ("" for the first page); more tells whether others follow. One Query per
// 1 MB page: a page of 1,000 agents is one round trip.
func (s *Store) AgentPage(ctx context.Context, ws, team, after string, limit int) (agents []workspace.Agent, more bool, err error) {
	in, err := s.agentsQuery(ws, team)
	if err != nil {
		return nil, false, err
	}
	var start item
	if after != "" {
		start = agentStartKey(ws, team, after)
	}
	return queryPage(ctx, s, in, start, limit, "agents", agentItem.domain)
}

// AgentCredits returns the credit standing of each of agents (of workspace
// ws, as listed) in the UTC day and month of now, by agent id: one
// BatchGetItem per 100 keys of their states, this month's usage, their
// teams' states and the workspace.
func (s *Store) AgentCredits(ctx context.Context, ws string, agents []workspace.Agent, now time.Time) (map[string]workspace.AgentCredit, error) {
	refs := make([]agentRef, len(agents))
	for i, a := range agents {
		refs[i] = agentRef{ws: ws, agent: a.ID, team: a.TeamID}
	}
	out := make(map[string]workspace.AgentCredit, len(agents))
	if len(refs) == 0 {
		return out, nil
	}
	st, err := s.readStandings(ctx, refs, now, readOpts{noTeamItems: true})
	if err != nil {
		return nil, err
	}
	for _, a := range agents {
		a.WorkspaceID = ws
		sd, err := st.standing(a, false)
		if err != nil {
			return nil, err
		}
		out[a.ID] = sd.Credit
	}
	return out, nil
}

// CreditsReport returns workspace ws's credit use in the UTC month month
// (YYYY-MM): the workspace's total, every team's (with its limit and paused
// flag) and every agent's, private agents included, with their current
// limits and running states; creditsToday is 0 for another month than now's.
// Round trips: the Queries of the teams and the agents (one per 1 MB page)
// and of the workspace's usage shards (monthTotals), sent at once since
// none needs another, and then, since their keys come from the first two,
// one BatchGetItem per 100 states and usage items (at most batchConcurrency
// at once).
func (s *Store) CreditsReport(ctx context.Context, ws, month string, now time.Time) (workspace.CreditsReport, error) {
	var teams []workspace.Team
	var agents []workspace.Agent
	in, err := s.agentsQuery(ws, "")
	if err != nil {
		return workspace.CreditsReport{}, err
	}
	var teamUsed map[string]float64
	var total float64
	err = readAll(ctx, func(ctx context.Context) (err error) {
		teams, err = s.Teams(ctx, ws)
		return err
	}, func(ctx context.Context) (err error) {
		agents, err = queryAll(ctx, s, in, "agents", agentItem.domain)
		return err
	}, func(ctx context.Context) (err error) {
		total, teamUsed, err = s.monthTotals(ctx, ws, month)
		return err
	})
	if err != nil {
		return workspace.CreditsReport{}, err
	}
	current := month == workspace.MonthKey(now)
	keys := []item{key(wsPK(ws), skMeta)}
	for _, t := range teams {
		keys = append(keys, key(teamDataPK(ws, t.ID), skState))
	}
	for _, a := range agents {
		keys = append(keys, key(agentDataPK(ws, a.ID), skState), key(agentDataPK(ws, a.ID), usageSK(month)))
		if !current {
			keys = append(keys, key(agentDataPK(ws, a.ID), usageSK(workspace.MonthKey(now))))
		}
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return workspace.CreditsReport{}, err
	}
	st := &standings{now: now, items: found}
	w, wsFound, err := decodeAt[workspaceItem](st.items, wsPK(ws), skMeta)
	if err != nil {
		return workspace.CreditsReport{}, err
	}
	if !wsFound {
		return workspace.CreditsReport{}, workspace.ErrWorkspaceNotFound
	}
	rep := workspace.CreditsReport{Month: month, DefaultDailyLimit: w.DefaultDailyCreditLimit,
		Teams: []workspace.TeamCredits{}, Agents: []workspace.AgentCredits{}}
	rep.Total = total
	for _, t := range teams {
		used := teamUsed[t.ID]
		state, err := st.teamState(ws, t.ID)
		if err != nil {
			return workspace.CreditsReport{}, err
		}
		rep.Teams = append(rep.Teams, workspace.TeamCredits{Team: t, Used: used, Paused: state.Paused})
	}
	for _, a := range agents {
		sd, err := st.standing(a, false)
		if err != nil {
			return workspace.CreditsReport{}, err
		}
		u, err := loadMonthUsage(found[[2]string{agentDataPK(ws, a.ID), usageSK(month)}])
		if err != nil {
			return workspace.CreditsReport{}, err
		}
		rep.Agents = append(rep.Agents, workspace.AgentCreditsLine(a, sd.Credit, current, u.Total))
	}
	return rep, nil
}

// Teams lists every team of ws in id order, one Query per 1 MB page.
func (s *Store) Teams(ctx context.Context, ws string) ([]workspace.Team, error) {
	in, err := s.keyQuery("", prefixed(wsPK(ws), prefixTeam))
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s, in, "teams", teamItem.domain)
}

// AgentDailyUsage returns agent agentID's credits spent on each UTC day from
// from to to (YYYY-MM-DD, inclusive), oldest first, 0 on days without usage:
// one Query of the months the days fall in. Spend is what was used, so a
// daily-usage reset (which only zeroes what counts toward the daily limit)
// does not change it.
func (s *Store) AgentDailyUsage(ctx context.Context, ws, agentID string, from, to time.Time) ([]workspace.DayUsage, error) {
	in, err := s.keyQuery("", expression.Key(attrPK).Equal(expression.Value(agentDataPK(ws, agentID))).
		And(expression.Key(attrSK).Between(expression.Value(usageSK(workspace.MonthKey(from))), expression.Value(usageSK(workspace.MonthKey(to))))))
	if err != nil {
		return nil, err
	}
	in.ConsistentRead = aws.Bool(true)
	months := map[string]monthUsage{}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query usage: %w", err)
		}
		for _, raw := range page.Items {
			u, err := loadMonthUsage(raw)
			if err != nil {
				return nil, err
			}
			months[itemKey(raw)[1]] = u
		}
	}
	return workspace.DailySpend(from, to, func(month string, d int) float64 { return months[usageSK(month)].Spent[d] }), nil
}
