package invites

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// revoked is the applied value of a successful revocation.
var revoked = map[string]string{"status": "revoked"}

// notFound is the per-id error of an invitation the caller's workspace lacks.
var notFound = workspace.ErrInvitationNotFound.Error()

// revokeInvites handles DELETE /workspaceapi/invites: a batch that deletes the
// listed invitations and frees their seats. An id that does not exist in the
// caller's workspace fails alone with "invitation not found". It reads the ids
// with one BatchGetItem and deletes them in transactions of many invitations,
// each freeing its seats with one write to the workspace item.
func revokeInvites(store Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeInvite)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		ids, err := httpapi.DecodeIDs(r)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		var readable []string
		for _, id := range ids {
			if workspace.PlausibleID(id) {
				readable = append(readable, id)
			}
		}
		found, err := store.InvitationsByID(r.Context(), caller.WorkspaceID, readable)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		results := make([]httpapi.BatchItem, len(ids))
		var invs []workspace.Invitation
		var at []int // the result index of each of invs
		for i, id := range ids {
			inv, ok := found[id]
			if !ok {
				results[i] = httpapi.Failed(id, "", notFound)
				continue
			}
			invs = append(invs, inv)
			at = append(at, i)
		}
		for k, err := range store.DeleteInvitations(r.Context(), invs) {
			inv := invs[k]
			switch {
			case err == nil:
				results[at[k]] = httpapi.Succeeded(inv.ID, inv.Email, false, revoked)
			case workspace.IsNotFound(err):
				results[at[k]] = httpapi.Failed(inv.ID, inv.Email, notFound)
			default:
				// A storage failure fails the ids of its transaction alone;
				// the others stand as applied.
				results[at[k]] = httpapi.FailedUnexpectedly(r.Context(), inv.ID, inv.Email, err, "revoke invitation", "workspaceId", caller.WorkspaceID, "inviteId", inv.ID)
			}
		}
		httpapi.WriteBatch(w, r, results)
	}
}
