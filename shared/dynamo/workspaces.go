package dynamo

import (
	"context"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// domainOf is an item type that maps to its domain type D.
type domainOf[D any] interface{ domain() D }

// getOne reads one item of workspace ws with a strongly consistent GetItem and
// returns its domain value, or missing when there is none.
func getOne[I domainOf[D], D any](ctx context.Context, s *Store, ws, sk, what string, missing error) (D, error) {
	it, found, err := getItem[I](ctx, s, key(wsPK(ws), sk), what)
	if err != nil {
		var zero D
		return zero, err
	}
	if !found {
		var zero D
		return zero, missing
	}
	return it.domain(), nil
}

// Workspace returns workspace ws, or a KindNotFound error when it does not
// exist. One GetItem.
func (s *Store) Workspace(ctx context.Context, ws string) (workspace.Workspace, error) {
	return getOne[workspaceItem](ctx, s, ws, skMeta, "workspace", workspace.ErrWorkspaceNotFound)
}

// Team returns team teamID of workspace ws, or a KindNotFound error when the
// workspace has no such team. One GetItem.
func (s *Store) Team(ctx context.Context, ws, teamID string) (workspace.Team, error) {
	return getOne[teamItem](ctx, s, ws, teamSK(teamID), "team", workspace.ErrTeamNotFound)
}

// Agent returns agent agentID of workspace ws, or a KindNotFound error when
// the workspace has no such agent. One GetItem.
func (s *Store) Agent(ctx context.Context, ws, agentID string) (workspace.Agent, error) {
	return getOne[agentItem](ctx, s, ws, agentSK(agentID), "agent", workspace.ErrAgentNotFound)
}
