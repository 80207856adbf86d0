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
// teams' states and the workspace, eventually consistent (the overview only
// displays them; a write reads its standings again, strongly).
func (s *Store) AgentCredits(ctx context.Context, ws string, agents []workspace.Agent, now time.Time) (map[string]workspace.AgentCredit, error) {
	refs := make([]agentRef, len(agents))
	for i, a := range agents {
		refs[i] = agentRef{ws: ws, agent: a.ID, team: a.TeamID}
	}
	out := make(map[string]workspace.AgentCredit, len(agents))
	if len(refs) == 0 {
		return out, nil
	}
	st, err := s.readStandings(ctx, refs, now, readOpts{noTeamItems: true, eventual: true})
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

// Teams lists every team of ws in id order, one Query per 1 MB page.
func (s *Store) Teams(ctx context.Context, ws string) ([]workspace.Team, error) {
	in, err := s.keyQuery("", prefixed(wsPK(ws), prefixTeam))
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s, in, "teams", teamItem.domain)
}

// TeamNames returns the names of the teams ids of ws, by id (a team without
// an item has no entry): one BatchGetItem per 100 ids, as ExportNames.
func (s *Store) TeamNames(ctx context.Context, ws string, ids []string) (map[string]string, error) {
	_, teams, err := s.ExportNames(ctx, ws, nil, ids)
	return teams, err
}

// TeamPage lists up to limit teams of ws in id order, starting after the
// team id after ("" for the first page); more tells whether others follow.
// One eventually consistent Query per 1 MB page.
func (s *Store) TeamPage(ctx context.Context, ws, after string, limit int) (teams []workspace.Team, more bool, err error) {
	in, err := s.keyQuery("", prefixed(wsPK(ws), prefixTeam))
	if err != nil {
		return nil, false, err
	}
	var start item
	if after != "" {
		start = key(wsPK(ws), teamSK(after))
	}
	return queryPage(ctx, s, in, start, limit, "teams", teamItem.domain)
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
