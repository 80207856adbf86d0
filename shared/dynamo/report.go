package dynamo

import (
	"context"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// CreditsReportPage returns a page of workspace ws's credit use in the UTC
// month month (YYYY-MM), from position from (workspace.ReportPos): up to
// limit teams (with their limits, use in the month and paused flags) and,
// once the teams have ended, up to limit agents (private ones included,
// with their current limits and running states; creditsToday is 0 for
// another month than now's), and the month's totals, which every page
// carries.
//
// A page reads what it returns and the month's totals, nothing that grows
// with the workspace beyond that: the Queries of its teams and its agents
// (one per 1 MB page, each reading one item past limit to know whether more
// follow; on a page of teams, the agents' from the first, read at once and
// dropped when the teams fill the page: at most limit agent items, small
// next to the limit teams returned); then at once the totals
// (monthTotals) and one BatchGetItem per 100 keys of the workspace's item,
// its teams' states and its agents' states and month usage (and the states
// of their teams). Every read is eventually consistent: the report only
// displays, nothing is decided from it, and a figure a second behind is
// what a report read a second earlier would have shown.
func (s *Store) CreditsReportPage(ctx context.Context, ws, month string, now time.Time, from workspace.ReportPos, limit int) (workspace.CreditsReport, error) {
	var teams []workspace.Team
	var agents []workspace.Agent
	var moreTeams, moreAgents bool
	reads := []read{func(ctx context.Context) (err error) {
		agents, moreAgents, err = s.AgentPage(ctx, ws, "", from.After, limit)
		return err
	}}
	if !from.Agents {
		// The agents from the first are read at once with the teams (one
		// round trip's wait, not two) and dropped if the teams fill the page.
		reads = []read{func(ctx context.Context) (err error) {
			teams, moreTeams, err = s.TeamPage(ctx, ws, from.After, limit)
			return err
		}, func(ctx context.Context) (err error) {
			agents, moreAgents, err = s.AgentPage(ctx, ws, "", "", limit)
			return err
		}}
	}
	if err := readAll(ctx, reads...); err != nil {
		return workspace.CreditsReport{}, err
	}
	if moreTeams {
		agents, moreAgents = nil, true
	}

	current := month == workspace.MonthKey(now)
	keys := []item{key(wsPK(ws), skMeta)}
	seenTeam := map[string]bool{}
	addTeamState := func(team string) {
		if team != "" && !seenTeam[team] {
			seenTeam[team] = true
			keys = append(keys, key(teamDataPK(ws, team), skState))
		}
	}
	for _, t := range teams {
		addTeamState(t.ID)
	}
	for _, a := range agents {
		keys = append(keys, key(agentDataPK(ws, a.ID), skState), key(agentDataPK(ws, a.ID), usageSK(month)))
		if !current {
			keys = append(keys, key(agentDataPK(ws, a.ID), usageSK(workspace.MonthKey(now))))
		}
		addTeamState(a.TeamID)
	}
	var found map[[2]string]item
	var total float64
	var teamUsed map[string]float64
	err := readAll(ctx, func(ctx context.Context) (err error) {
		found, err = s.batchGetEventually(ctx, keys)
		return err
	}, func(ctx context.Context) (err error) {
		total, teamUsed, err = s.monthTotals(ctx, ws, month)
		return err
	})
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
	rep := workspace.CreditsReport{Month: month, Total: total, DefaultDailyLimit: w.DefaultDailyCreditLimit,
		Teams: []workspace.TeamCredits{}, Agents: []workspace.AgentCredits{}}
	for _, t := range teams {
		state, err := st.teamState(ws, t.ID)
		if err != nil {
			return workspace.CreditsReport{}, err
		}
		rep.Teams = append(rep.Teams, workspace.TeamCredits{Team: t, Used: teamUsed[t.ID], Paused: state.Paused})
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
	switch {
	case moreTeams:
		rep.Next = &workspace.ReportPos{After: teams[len(teams)-1].ID}
	case moreAgents:
		rep.Next = &workspace.ReportPos{Agents: true, After: agents[len(agents)-1].ID}
	}
	return rep, nil
}

// reportPageLimit is the page CreditsReport reads the whole report in.
const reportPageLimit = 1000

// CreditsReport returns the whole of workspace ws's credit report of month
// (CreditsReportPage's pages in turn, put together), for tools and tests
// that need every line; the API answers it a page at a time.
func (s *Store) CreditsReport(ctx context.Context, ws, month string, now time.Time) (workspace.CreditsReport, error) {
	var whole workspace.CreditsReport
	for pos := (workspace.ReportPos{}); ; {
		page, err := s.CreditsReportPage(ctx, ws, month, now, pos, reportPageLimit)
		if err != nil {
			return workspace.CreditsReport{}, err
		}
		if whole.Teams == nil {
			whole = page
		} else {
			whole.Teams = append(whole.Teams, page.Teams...)
			whole.Agents = append(whole.Agents, page.Agents...)
		}
		if page.Next == nil {
			whole.Next = nil
			return whole, nil
		}
		pos = *page.Next
	}
}
