package invites

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// revoked is the applied value of a successful revocation.
var revoked = map[string]string{"status": "revoked"}

// revokeInvites handles DELETE /workspaceapi/invites: a batch that deletes the
// listed invitations and frees their seats. An id that does not exist in the
// caller's workspace fails alone with "invitation not found". It reads the ids
// with one BatchGetItem and deletes them in transactions of many invitations,
// each freeing its seats with one write to the workspace item.
func revokeInvites(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeInvite)
		if err != nil {
			return err
		}
		ids, err := httpapi.DecodeIDs(r)
		if err != nil {
			return err
		}
		var readable []string
		for _, id := range ids {
			if workspace.PlausibleID(id) {
				readable = append(readable, id)
			}
		}
		found, err := store.InvitationsByID(r.Context(), caller.WorkspaceID, readable)
		if err != nil {
			return err
		}
		var invs []workspace.Invitation
		for _, id := range ids {
			if inv, ok := found[id]; ok {
				invs = append(invs, inv)
			}
		}
		deleted := make(map[string]error, len(invs)) // by invitation id
		for k, err := range store.DeleteInvitations(r.Context(), httpapi.Actor(r, caller), invs, clock.Now()) {
			deleted[invs[k].ID] = err
		}
		httpapi.WriteOutcomes(w, r, ids, func(id string) httpapi.Outcome {
			inv, ok := found[id]
			err := deleted[id]
			switch {
			case !ok:
				return httpapi.Outcome{ID: id, Err: workspace.ErrInvitationNotFound, Refused: true}
			case workspace.IsNotFound(err):
				return httpapi.Outcome{ID: id, Name: inv.Email, Err: workspace.ErrInvitationNotFound, Refused: true}
			}
			// A storage failure fails the ids of its transaction alone; the
			// others stand as applied.
			return httpapi.Outcome{ID: id, Name: inv.Email, Applied: revoked, Err: err}
		}, httpapi.BatchLog{Msg: "revoke invitation", IDKey: "inviteId", Attrs: []any{"workspaceId", caller.WorkspaceID}})
		return nil
	}
}
