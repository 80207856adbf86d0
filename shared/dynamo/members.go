package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// MemberPage lists up to limit members of ws in user id order, starting
// after the user id after ("" for the first page); more tells whether others
// follow. Each member carries its tags and teams (the teams map of keys.go),
// so a page is one Query per 1 MB page and reads nothing else.
//
// When team is not empty (a team-scoped key) it lists only team's members,
// each showing that team alone: one Query of the team's memberships and one
// BatchGetItem per 100 of their members.
func (s *Store) MemberPage(ctx context.Context, ws, team, after string, limit int) (members []workspace.Member, more bool, err error) {
	if team != "" {
		return s.teamMemberPage(ctx, ws, team, after, limit)
	}
	in, err := s.keyQuery("", prefixed(wsPK(ws), prefixMember))
	if err != nil {
		return nil, false, err
	}
	var start item
	if after != "" {
		start = key(wsPK(ws), memberSK(after))
	}
	return queryPage(ctx, s, in, start, limit, "members", memberItem.domain)
}

// teamMemberPage is MemberPage for the members of team. A page whose
// memberships all belong to members who left the workspace meanwhile is
// skipped, so the listing never ends early on an empty page.
func (s *Store) teamMemberPage(ctx context.Context, ws, team, after string, limit int) ([]workspace.Member, bool, error) {
	for {
		members, more, last, err := s.teamMemberPageOnce(ctx, ws, team, after, limit)
		if err != nil || len(members) > 0 || !more {
			return members, more, err
		}
		after = last
	}
}

// teamMemberPageOnce reads one page of team's memberships and their members;
// last is the user id of the page's last membership.
func (s *Store) teamMemberPageOnce(ctx context.Context, ws, team, after string, limit int) (members []workspace.Member, more bool, last string, err error) {
	in, err := s.keyQuery("", prefixed(wsPK(ws), teamMembersPrefix(team)))
	if err != nil {
		return nil, false, "", err
	}
	in.ConsistentRead = aws.Bool(true)
	var start item
	if after != "" {
		start = key(wsPK(ws), teamMemberSK(team, after))
	}
	ships, more, err := queryPage(ctx, s, in, start, limit, "team members", teamMemberItem.domain)
	if err != nil {
		return nil, false, "", err
	}
	keys := make([]item, len(ships))
	for i, tm := range ships {
		keys[i] = key(wsPK(ws), memberSK(tm.UserID))
	}
	found, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, false, "", err
	}
	members = make([]workspace.Member, 0, len(ships))
	for _, tm := range ships {
		it, ok, err := decodeAt[memberItem](found, wsPK(ws), memberSK(tm.UserID))
		if err != nil {
			return nil, false, "", err
		}
		if !ok {
			continue // left the workspace meanwhile
		}
		m := it.domain()
		m.Teams = []workspace.MemberTeam{{TeamID: team, Role: tm.Role}}
		members = append(members, m)
	}
	if len(ships) > 0 {
		last = ships[len(ships)-1].UserID
	}
	return members, more, last, nil
}
