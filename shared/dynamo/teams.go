package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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

// CreateTeam stores the new team t with its name claim and its team.created
// entry (by, at now) in one transaction that also checks team settings:
// workspace.ErrTeamSettingsOff when they are off,
// workspace.ErrDuplicateTeamName when another team holds the name
// (case-insensitively), whatever runs at the same time. No read.
func (s *Store) CreateTeam(ctx context.Context, by workspace.Actor, t workspace.Team, now time.Time) error {
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
	entry := workspace.NewAuditEntry(now, by, workspace.ActionTeamCreated, workspace.AuditTarget{Type: workspace.TargetTeam, ID: t.ID},
		workspace.Changes{"name": {From: nil, To: t.Name}})
	failed, err := s.transactAudited(ctx, t.WorkspaceID, []types.TransactWriteItem{on, team, claim}, entry)
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
// same, one transaction that moves the name claim and records the
// team.renamed entry (by, at now), conditioned on the team's name being the
// one read (read again after a lost race). Errors:
// workspace.ErrTeamSettingsOff, workspace.ErrTeamNotFound,
// workspace.ErrDuplicateTeamName, and workspace.ErrChangeTeamForbidden when
// asTeamAdmin and by's owner is no longer an admin of the team (withTeamAdminCheck).
func (s *Store) RenameTeam(ctx context.Context, by workspace.Actor, asTeamAdmin bool, ws, teamID, name string, now time.Time) error {
	if !workspace.PlausibleID(teamID) {
		return workspace.ErrTeamNotFound
	}
	_, err := decideAndCommit(ctx, func(int) (struct{}, error) {
		t, _, err := s.accessibleTeam(ctx, ws, teamID)
		if err != nil {
			return struct{}{}, err
		}
		if t.Name == name {
			return struct{}{}, nil
		}
		items, err := s.renameItems(ws, teamID, t.Name, name)
		if err != nil {
			return struct{}{}, err
		}
		items, admin, err := s.withTeamAdminCheck(asTeamAdmin, items, ws, teamID, by.UserID)
		if err != nil {
			return struct{}{}, err
		}
		entry := workspace.NewAuditEntry(now, by, workspace.ActionTeamRenamed, workspace.AuditTarget{Type: workspace.TargetTeam, ID: teamID},
			workspace.Changes{"name": {From: t.Name, To: name}})
		failed, err := s.transactAudited(ctx, ws, items, entry)
		switch {
		case err != nil:
			return struct{}{}, err
		case len(failed) == 0:
			return struct{}{}, nil
		case slices.Contains(failed, 1):
			return struct{}{}, workspace.ErrTeamSettingsOff
		case slices.Contains(failed, admin):
			return struct{}{}, workspace.ErrChangeTeamForbidden
		case slices.Contains(failed, 0):
			// The team was renamed meanwhile (perhaps to this very name,
			// whose claim then fails too): read it again.
			return struct{}{}, errLost
		case slices.Contains(failed, 3):
			return struct{}{}, workspace.ErrDuplicateTeamName
		}
		return struct{}{}, errLost
	})
	return err
}

// withTeamAdminCheck appends to a team change's transaction, when
// asTeamAdmin, the check that user is still an admin of team teamID of ws,
// and returns the check's index (-1 for none), which a cancellation's
// failed items name when the check failed. A key owner who is not a
// workspace admin may change a team only as its admin
// (workspace.CanChangeTeam), and the handler's read of their role is not
// enough, since a demotion may land between that read and the write. A
// change of user's own membership already conditions their member item on
// the role read, and a transaction may not name an item twice, so none is
// added then.
func (s *Store) withTeamAdminCheck(asTeamAdmin bool, items []types.TransactWriteItem, ws, teamID, user string) ([]types.TransactWriteItem, int, error) {
	if !asTeamAdmin {
		return items, -1, nil
	}
	k := key(wsPK(ws), memberSK(user))
	for _, it := range items {
		if it.Update != nil && itemKey(it.Update.Key) == itemKey(k) {
			return items, -1, nil
		}
	}
	role := expression.Name(attrTeams).AppendName(expression.Name(teamID)).Equal(expression.Value(string(workspace.TeamRoleAdmin)))
	check, err := s.check(k, role)
	if err != nil {
		return nil, -1, err
	}
	return append(items, check), len(items), nil
}

// accessibleTeam reads team teamID of ws, with the workspace and the items
// at more, in one BatchGetItem, and returns the team and everything read, or
// workspace.ErrTeamSettingsOff or ErrTeamNotFound (workspace.TeamAccess).
func (s *Store) accessibleTeam(ctx context.Context, ws, teamID string, more ...item) (teamItem, map[[2]string]item, error) {
	found, err := s.batchGet(ctx, append([]item{key(wsPK(ws), skMeta), key(wsPK(ws), teamSK(teamID))}, more...))
	if err != nil {
		return teamItem{}, nil, err
	}
	w, _, err := decodeAt[workspaceItem](found, wsPK(ws), skMeta)
	if err != nil {
		return teamItem{}, nil, err
	}
	t, ok, err := decodeAt[teamItem](found, wsPK(ws), teamSK(teamID))
	if err != nil {
		return teamItem{}, nil, err
	}
	in := w.domain() // a workspace not found reads as one with team settings off
	if err := workspace.TeamAccess(&in, ok); err != nil {
		return teamItem{}, nil, err
	}
	return t, found, nil
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

// TeamDetail returns team teamID of ws whole, as of now: one
// TransactGetItems (the workspace, the team, its state and this month's
// usage shards, as one snapshot: readTeamStanding), then
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
	err = readAll(ctx, func(ctx context.Context) (err error) {
		d.Members, err = s.teamMembers(ctx, ws, teamID)
		return err
	}, func(ctx context.Context) (err error) {
		d.AgentIDs, err = s.teamAgentIDs(ctx, ws, teamID)
		return err
	})
	if err != nil {
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

// PutTeamMember gives user tm.UserID the role tm.Role in team tm.TeamID of
// its workspace, adding the membership or changing its role, and
// DeleteTeamMember (role "") removes it: see setTeamMember.
func (s *Store) PutTeamMember(ctx context.Context, by workspace.Actor, asTeamAdmin bool, tm workspace.TeamMembership, now time.Time) error {
	return s.setTeamMember(ctx, by, asTeamAdmin, tm.WorkspaceID, tm.TeamID, tm.UserID, tm.Role, now)
}

// DeleteTeamMember removes user userID from team teamID of ws. Removing a
// member of the workspace who is not in the team changes nothing and
// returns workspace.ErrNotInTeam, which the caller's key decides
// (workspace.RemovalOfNonMember); an unknown team or user is an error.
func (s *Store) DeleteTeamMember(ctx context.Context, by workspace.Actor, asTeamAdmin bool, ws, teamID, userID string, now time.Time) error {
	return s.setTeamMember(ctx, by, asTeamAdmin, ws, teamID, userID, "", now)
}

// setTeamMember sets user's role in team of ws to role ("" removes the
// membership): one BatchGetItem of the workspace, the team and the member,
// then, unless the member's role in the team is role already, one
// transaction of the membership item, the member's teams map (conditioned on
// the role read) and the change's entry (team.member_set or
// team.member_removed, by, at now, "members.<userId>" from and to the
// role), with ConditionChecks of team settings and of the team; read again
// after a lost race. Errors: workspace.ErrTeamSettingsOff,
// workspace.ErrTeamNotFound, workspace.ErrMemberNotFound (no such member of
// ws), in that order when several hold, workspace.ErrNotInTeam when the
// member to remove is not in the team, and workspace.ErrChangeTeamForbidden
// when asTeamAdmin and by's owner is no longer an admin of the team
// (withTeamAdminCheck).
func (s *Store) setTeamMember(ctx context.Context, by workspace.Actor, asTeamAdmin bool, ws, teamID, userID string, role workspace.TeamRole, now time.Time) error {
	if !mapKeySafe(teamID) {
		return workspace.ErrTeamNotFound
	}
	if err := workspace.CheckMembershipIDs(teamID, userID); err != nil {
		return err
	}
	_, err := decideAndCommit(ctx, func(int) (struct{}, error) {
		return struct{}{}, s.setTeamMemberOnce(ctx, by, asTeamAdmin, ws, teamID, userID, role, now)
	})
	return err
}

// setTeamMemberOnce is one attempt of setTeamMember: errLost when the
// member's role in the team changed between its read and its write.
func (s *Store) setTeamMemberOnce(ctx context.Context, by workspace.Actor, asTeamAdmin bool, ws, teamID, userID string, role workspace.TeamRole, now time.Time) error {
	_, found, err := s.accessibleTeam(ctx, ws, teamID, key(wsPK(ws), memberSK(userID)))
	if err != nil {
		return err
	}
	m, memberFound, err := decodeAt[memberItem](found, wsPK(ws), memberSK(userID))
	if err != nil {
		return err
	}
	if !memberFound {
		return workspace.ErrMemberNotFound
	}
	from := workspace.TeamRole(m.Teams[teamID])
	if asTeamAdmin && userID == by.UserID {
		// The change of their own membership is conditioned on this
		// read (withTeamAdminCheck): demoted since the handler read
		// their role, they may not make it.
		if err := workspace.CanChangeTeamAsAdmin(from); err != nil {
			return err
		}
	}
	if from == role {
		if role == "" {
			return workspace.ErrNotInTeam // nothing to remove
		}
		return nil // nothing changes, nothing is recorded
	}
	items, err := s.membershipItems(ws, teamID, userID, from, role)
	if err != nil {
		return err
	}
	items, admin, err := s.withTeamAdminCheck(asTeamAdmin, items, ws, teamID, by.UserID)
	if err != nil {
		return err
	}
	action := workspace.ActionTeamMemberSet
	if role == "" {
		action = workspace.ActionTeamMemberRemoved
	}
	entry := workspace.NewAuditEntry(now, by, action, workspace.AuditTarget{Type: workspace.TargetTeam, ID: teamID},
		workspace.Changes{"members." + userID: {From: roleValue(from), To: roleValue(role)}})
	failed, err := s.transactAudited(ctx, ws, items, entry)
	switch {
	case err != nil:
		return err
	case len(failed) == 0:
		return nil
	case failed[0] < 2:
		return []error{workspace.ErrTeamSettingsOff, workspace.ErrTeamNotFound}[failed[0]]
	case slices.Contains(failed, admin):
		return workspace.ErrChangeTeamForbidden
	}
	// The member left, or their role in the team changed meanwhile: read again.
	return errLost
}

// membershipItems is a membership change's transaction: checks of team
// settings and the team, the member item's teams map (conditioned on the
// member's role in the team being from, "" for none) and the membership
// item's Put, or its Delete when role is "".
func (s *Store) membershipItems(ws, teamID, userID string, from, role workspace.TeamRole) ([]types.TransactWriteItem, error) {
	on, err := s.check(key(wsPK(ws), skMeta), teamSettingsOn())
	if err != nil {
		return nil, err
	}
	team, err := s.check(key(wsPK(ws), teamSK(teamID)), expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return nil, err
	}
	inTeam := expression.Name(attrTeams).AppendName(expression.Name(teamID))
	read := expression.AttributeExists(expression.Name(attrTeams)).And(expression.AttributeNotExists(inTeam))
	if from != "" {
		read = inTeam.Equal(expression.Value(string(from)))
	}
	upd := expression.Set(inTeam, expression.Value(string(role)))
	if role == "" {
		upd = expression.Remove(inTeam)
	}
	member, err := s.update(key(wsPK(ws), memberSK(userID)), upd, &read)
	if err != nil {
		return nil, err
	}
	membership := types.TransactWriteItem{Delete: &types.Delete{
		TableName: aws.String(s.table), Key: key(wsPK(ws), teamMemberSK(teamID, userID)),
	}}
	if role != "" {
		it, err := marshal(toTeamMemberItem(workspace.TeamMembership{WorkspaceID: ws, TeamID: teamID, UserID: userID, Role: role}))
		if err != nil {
			return nil, err
		}
		membership = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: it}}
	}
	return []types.TransactWriteItem{on, team, member, membership}, nil
}

// roleValue is a team role as an entry holds it: null for no membership.
func roleValue(r workspace.TeamRole) any {
	if r == "" {
		return nil
	}
	return string(r)
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

// RekeyTeamNameClaims moves every team name claim of ws to the key
// workspace.TeamNameKey gives its team's name today (the migration step
// team-name-claims): release 1 keyed claims by simple case folding alone,
// so a name whose key changed under NFKC or collapsed white space would let
// a second team take it. Two Queries (the teams and the claims), then per
// team whose claim is missing or mis-keyed one transaction: a check that
// the team still has the name read, the claim under the right key
// (attribute_not_exists) and the deletes of its mis-keyed claims
// (conditioned on still naming the team). A team whose name's key another
// team holds is reported and left as it is; so is a claim of no team. A
// transaction that fails (a rename or create meanwhile) reads again.
func (s *Store) RekeyTeamNameClaims(ctx context.Context, ws string) (workspace.MigrationCounts, error) {
	var changed int64 // by attempts that a rename or create cut short
	for attempt := 0; ; attempt++ {
		pauseBeforeReevaluation(ctx, attempt)
		counts, again, err := s.rekeyTeamNameClaims(ctx, ws)
		counts.Changed += changed
		changed = counts.Changed
		switch {
		case err != nil || !again:
			return counts, err
		case attempt >= maxReevaluations:
			return counts, workspace.ErrBusy
		}
	}
}

func (s *Store) rekeyTeamNameClaims(ctx context.Context, ws string) (counts workspace.MigrationCounts, again bool, err error) {
	counts.Workspaces = 1
	var teams []workspace.Team
	var claims []teamNameItem
	err = readAll(ctx, func(ctx context.Context) (err error) {
		teams, err = s.Teams(ctx, ws)
		return err
	}, func(ctx context.Context) error {
		in, err := s.keyQuery("", prefixed(wsPK(ws), prefixTeamName))
		if err != nil {
			return err
		}
		claims, err = queryAll(ctx, s, in, "team name claims", func(c teamNameItem) teamNameItem { return c })
		return err
	})
	if err != nil {
		return counts, false, err
	}
	holder := make(map[string]string, len(claims)) // claim SK -> team id
	teamIDs := make(map[string]bool, len(teams))
	for _, c := range claims {
		holder[c.SK] = c.TeamID
	}
	for _, t := range teams {
		teamIDs[t.ID] = true
		want := teamNameSK(t.Name)
		var items []types.TransactWriteItem
		check, err := s.check(key(wsPK(ws), teamSK(t.ID)), expression.Name(attrName).Equal(expression.Value(t.Name)))
		if err != nil {
			return counts, false, err
		}
		items = append(items, check)
		switch held, ok := holder[want]; {
		case ok && held != t.ID:
			counts.Conflicts = append(counts.Conflicts, fmt.Sprintf("team %s of %s: its name's key is claimed by team %s", t.ID, ws, held))
			continue
		case !ok:
			claim, err := s.putNew(toTeamNameItem(ws, t.Name, t.ID))
			if err != nil {
				return counts, false, err
			}
			items = append(items, claim)
		}
		for _, c := range claims {
			if c.TeamID != t.ID || c.SK == want {
				continue
			}
			del, err := s.deleteIf(key(c.PK, c.SK), expression.Name(attrTeamID).Equal(expression.Value(t.ID)))
			if err != nil {
				return counts, false, err
			}
			items = append(items, del)
		}
		if len(items) == 1 {
			continue // claimed under the right key, and only there
		}
		failed, err := s.transact(ctx, items)
		if err != nil {
			return counts, false, err
		}
		if len(failed) > 0 {
			return counts, true, nil
		}
		counts.Changed += int64(len(items) - 1)
		for _, c := range claims {
			if c.TeamID == t.ID {
				delete(holder, c.SK)
			}
		}
		holder[want] = t.ID
	}
	for _, c := range claims {
		if !teamIDs[c.TeamID] {
			counts.Conflicts = append(counts.Conflicts, fmt.Sprintf("team name claim of %s: its team %s does not exist", ws, c.TeamID))
		}
	}
	return counts, false, nil
}
