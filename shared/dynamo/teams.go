package dynamo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// This file holds the team endpoints' storage: create, rename, read a team
// whole, and team memberships. Every write names team settings in a
// ConditionCheck of its transaction, and the name claims and member items'
// teams maps of keys.go are kept in the same transactions.

// teamSettingsOn is the condition that a workspace item has team settings on.
func teamSettingsOn() expression.ConditionBuilder {
	return expression.Name("teamSettingsEnabled").Equal(expression.Value(true))
}

// requireTeamSettings reads workspace ws (one GetItem) and returns
// workspace.ErrTeamSettingsOff when it has team settings off.
func (s *Store) requireTeamSettings(ctx context.Context, ws string) error {
	w, err := s.Workspace(ctx, ws)
	if err != nil {
		return err
	}
	return w.TeamSettings()
}

// ListTeams lists every team of ws in id order: one GetItem of the workspace
// (workspace.ErrTeamSettingsOff while team settings are off) and one Query
// per 1 MB page. A workspace's teams are few (a handful to hundreds), so the
// list is not paged.
func (s *Store) ListTeams(ctx context.Context, ws string) ([]workspace.Team, error) {
	if err := s.requireTeamSettings(ctx, ws); err != nil {
		return nil, err
	}
	return s.Teams(ctx, ws)
}

// CreateTeam stores the new team t with its name claim in one transaction
// that also checks team settings: workspace.ErrTeamSettingsOff when they are
// off, workspace.ErrDuplicateTeamName when another team holds the name
// (case-insensitively), whatever runs at the same time. No read.
func (s *Store) CreateTeam(ctx context.Context, t workspace.Team) error {
	team, err := s.putNew(toTeamItem(t))
	if err != nil {
		return err
	}
	claim, err := s.putNew(toTeamNameItem(t.WorkspaceID, t.Name, t.ID))
	if err != nil {
		return err
	}
	on, err := s.check(key(wsPK(t.WorkspaceID), skMeta), teamSettingsOn())
	if err != nil {
		return err
	}
	failed, err := s.transact(ctx, []types.TransactWriteItem{on, team, claim})
	if err != nil {
		return err
	}
	switch {
	case len(failed) == 0:
		return nil
	case failed[0] == 0:
		return workspace.ErrTeamSettingsOff
	case failed[0] == 2:
		return workspace.ErrDuplicateTeamName
	}
	return errors.New("create team: the generated team id is taken")
}

// RenameTeam renames team teamID of ws to name (trimmed already): one
// BatchGetItem of the workspace and the team, then, unless the name is the
// same, one transaction that moves the name claim, conditioned on the
// team's name being the one read (read again after a lost race). Errors:
// workspace.ErrTeamSettingsOff, workspace.ErrTeamNotFound,
// workspace.ErrDuplicateTeamName.
func (s *Store) RenameTeam(ctx context.Context, ws, teamID, name string) error {
	if !workspace.PlausibleID(teamID) {
		return workspace.ErrTeamNotFound
	}
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		found, err := s.batchGet(ctx, []item{key(wsPK(ws), skMeta), key(wsPK(ws), teamSK(teamID))})
		if err != nil {
			return err
		}
		w, _, err := decodeAt[workspaceItem](found, wsPK(ws), skMeta)
		if err != nil {
			return err
		}
		t, ok, err := decodeAt[teamItem](found, wsPK(ws), teamSK(teamID))
		if err != nil {
			return err
		}
		in := w.domain() // a workspace not found reads as one with team settings off
		if err := workspace.TeamAccess(&in, ok); err != nil {
			return err
		}
		if t.Name == name {
			return nil
		}
		items, err := s.renameItems(ws, teamID, t.Name, name)
		if err != nil {
			return err
		}
		failed, err := s.transact(ctx, items)
		if err != nil {
			return err
		}
		switch {
		case len(failed) == 0:
			return nil
		case slices.Contains(failed, 1):
			return workspace.ErrTeamSettingsOff
		case slices.Contains(failed, 3):
			return workspace.ErrDuplicateTeamName
		case attempt >= maxReevaluations:
			return workspace.ErrBusy
		}
		// The team was renamed meanwhile: read it again.
	}
}

// renameItems is a rename's transaction: the team's name (conditioned on
// the old one), and, when the name's key changes, the old claim's removal
// and the new claim (attribute_not_exists), last.
func (s *Store) renameItems(ws, teamID, from, to string) ([]types.TransactWriteItem, error) {
	rename, err := s.update(key(wsPK(ws), teamSK(teamID)), expression.Set(expression.Name(attrName), expression.Value(to)),
		ptr(expression.Name(attrName).Equal(expression.Value(from))))
	if err != nil {
		return nil, err
	}
	on, err := s.check(key(wsPK(ws), skMeta), teamSettingsOn())
	if err != nil {
		return nil, err
	}
	items := []types.TransactWriteItem{rename, on}
	if workspace.TeamNameKey(from) == workspace.TeamNameKey(to) {
		return items, nil // only the case changes: the claim stays
	}
	release, err := s.deleteIf(key(wsPK(ws), teamNameSK(from)),
		expression.AttributeNotExists(expression.Name(attrPK)).Or(expression.Name(attrTeamID).Equal(expression.Value(teamID))))
	if err != nil {
		return nil, err
	}
	claim, err := s.putNew(toTeamNameItem(ws, to, teamID))
	if err != nil {
		return nil, err
	}
	return append(items, release, claim), nil
}

// TeamDetail returns team teamID of ws whole, as of now: one BatchGetItem
// (the workspace, the team, its state and this month's usage shards), then
// the Queries of its memberships and its agents (GSI1, keys only), run at
// once. Errors: workspace.ErrTeamSettingsOff, workspace.ErrTeamNotFound.
func (s *Store) TeamDetail(ctx context.Context, ws, teamID string, now time.Time) (workspace.TeamDetail, error) {
	if !workspace.PlausibleID(teamID) {
		return workspace.TeamDetail{}, workspace.ErrTeamNotFound
	}
	st, err := s.readTeamStanding(ctx, ws, teamID, now, key(wsPK(ws), skMeta))
	if err != nil {
		return workspace.TeamDetail{}, err
	}
	w, _, err := decodeAt[workspaceItem](st.items, wsPK(ws), skMeta)
	if err != nil {
		return workspace.TeamDetail{}, err
	}
	t, err := st.team(ws, teamID)
	if err != nil {
		return workspace.TeamDetail{}, err
	}
	in := w.domain() // a workspace not found reads as one with team settings off
	if err := workspace.TeamAccess(&in, t.Exists); err != nil {
		return workspace.TeamDetail{}, err
	}
	d := workspace.TeamDetail{Team: t.team.domain(), CreditsThisMonth: t.Used, Paused: t.Paused}
	errs := make([]error, 2)
	var g errgroup.Group
	g.Go(func() error {
		d.Members, errs[0] = s.teamMembers(ctx, ws, teamID)
		return nil
	})
	g.Go(func() error {
		d.AgentIDs, errs[1] = s.teamAgentIDs(ctx, ws, teamID)
		return nil
	})
	_ = g.Wait()
	if err := errors.Join(errs...); err != nil {
		return workspace.TeamDetail{}, err
	}
	return d, nil
}

// teamMembers lists team's memberships in user id order: one Query per 1 MB page.
func (s *Store) teamMembers(ctx context.Context, ws, team string) ([]workspace.TeamMembership, error) {
	in, err := s.keyQuery("", prefixed(wsPK(ws), teamMembersPrefix(team)))
	if err != nil {
		return nil, err
	}
	in.ConsistentRead = aws.Bool(true)
	return queryAll(ctx, s, in, "team members", teamMemberItem.domain)
}

// teamAgentIDs lists the ids of team's agents in id order from GSI1,
// projecting the id alone.
func (s *Store) teamAgentIDs(ctx context.Context, ws, team string) ([]string, error) {
	e, err := build(expression.NewBuilder().
		WithKeyCondition(expression.Key(attrGSI1PK).Equal(expression.Value(teamGSI1PK(ws, team))).
			And(expression.Key(attrGSI1SK).BeginsWith(prefixAgent))).
		WithProjection(expression.NamesList(expression.Name(attrID))))
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s, &dynamodb.QueryInput{
		IndexName: aws.String(IndexGSI1), KeyConditionExpression: e.KeyCondition(), ProjectionExpression: e.Projection(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}, "team agents", func(it struct {
		ID string `dynamodbav:"id"`
	}) string {
		return it.ID
	})
}

// PutTeamMember gives user userID the role role in team teamID of ws,
// adding the membership or changing its role: one transaction of the
// membership item and the member's teams map, with ConditionChecks of team
// settings and of the team. Errors: workspace.ErrTeamSettingsOff,
// workspace.ErrTeamNotFound, workspace.ErrMemberNotFound (no such member of
// ws), in that order when several hold.
func (s *Store) PutTeamMember(ctx context.Context, tm workspace.TeamMembership) error {
	if !mapKeySafe(tm.TeamID) {
		return workspace.ErrTeamNotFound
	}
	if err := workspace.CheckMembershipIDs(tm.TeamID, tm.UserID); err != nil {
		return err
	}
	ws := tm.WorkspaceID
	membership, err := marshal(toTeamMemberItem(tm))
	if err != nil {
		return err
	}
	member, err := s.update(key(wsPK(ws), memberSK(tm.UserID)),
		expression.Set(expression.Name(attrTeams).AppendName(expression.Name(tm.TeamID)), expression.Value(string(tm.Role))),
		ptr(expression.AttributeExists(expression.Name(attrTeams))))
	if err != nil {
		return err
	}
	return s.membershipTransaction(ctx, ws, tm.TeamID, member, types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(s.table), Item: membership,
	}})
}

// DeleteTeamMember removes user userID from team teamID of ws: one
// transaction like PutTeamMember's. Removing a member of the workspace who
// is not in the team changes nothing and is no error (a retried DELETE
// succeeds); an unknown team or user is.
func (s *Store) DeleteTeamMember(ctx context.Context, ws, teamID, userID string) error {
	if !mapKeySafe(teamID) {
		return workspace.ErrTeamNotFound
	}
	if err := workspace.CheckMembershipIDs(teamID, userID); err != nil {
		return err
	}
	member, err := s.update(key(wsPK(ws), memberSK(userID)),
		expression.Remove(expression.Name(attrTeams).AppendName(expression.Name(teamID))),
		ptr(expression.AttributeExists(expression.Name(attrTeams))))
	if err != nil {
		return err
	}
	return s.membershipTransaction(ctx, ws, teamID, member, types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(s.table), Key: key(wsPK(ws), teamMemberSK(teamID, userID)),
	}})
}

// membershipTransaction runs a membership change: checks of team settings
// and the team, the member item's update (conditioned on the member) and the
// membership item's write, and names the first condition that failed.
func (s *Store) membershipTransaction(ctx context.Context, ws, teamID string, member, membership types.TransactWriteItem) error {
	on, err := s.check(key(wsPK(ws), skMeta), teamSettingsOn())
	if err != nil {
		return err
	}
	team, err := s.check(key(wsPK(ws), teamSK(teamID)), expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return err
	}
	failed, err := s.transact(ctx, []types.TransactWriteItem{on, team, member, membership})
	if err != nil || len(failed) == 0 {
		return err
	}
	return []error{workspace.ErrTeamSettingsOff, workspace.ErrTeamNotFound, workspace.ErrMemberNotFound,
		errors.New("team membership write failed its condition")}[failed[0]]
}

// domain returns the membership an item stores.
func (i teamMemberItem) domain() workspace.TeamMembership {
	return workspace.TeamMembership{WorkspaceID: i.WorkspaceID, TeamID: i.TeamID, UserID: i.UserID, Role: workspace.TeamRole(i.Role)}
}

// mapKeySafe reports whether id can name a key of a member's teams map in an
// update expression: the expression builder reads '.' and '[' as document
// path syntax. Generated team ids never hold them and the fixture refuses
// them, so a team id with them names no team.
func mapKeySafe(id string) bool { return !strings.ContainsAny(id, ".[]") }
