package invites

import (
	"log/slog"
	"net/http"
	"sync"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// revokeConcurrency bounds the revocation transactions run at once.
const revokeConcurrency = 8

// revoked is the applied value of a successful revocation.
var revoked = map[string]string{"status": "revoked"}

// revokeInvites handles DELETE /workspaceapi/invites: a batch that deletes the
// listed invitations and frees their seats. An id that does not exist in the
// caller's workspace fails alone with "invitation not found".
func revokeInvites(store Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeInvite)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		var req httpapi.BatchRequest
		if err := httpapi.Decode(r, &req); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		ids, err := httpapi.UniqueIDs(req.IDs)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		found, err := store.InvitationsByID(r.Context(), caller.WorkspaceID, ids)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		results := make([]httpapi.BatchItem, len(ids))
		var wg sync.WaitGroup
		sem := make(chan struct{}, revokeConcurrency)
		for i, id := range ids {
			inv, ok := found[id]
			if !ok {
				results[i] = httpapi.Failed(id, "", "invitation not found")
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				switch err := store.DeleteInvitation(r.Context(), inv); {
				case err == nil:
					results[i] = httpapi.Succeeded(id, inv.Email, false, revoked)
				case workspace.IsNotFound(err):
					results[i] = httpapi.Failed(id, inv.Email, "invitation not found")
				default:
					// One id's storage failure fails that id alone; the
					// others stand as applied.
					slog.ErrorContext(r.Context(), "revoke invitation", "workspaceId", caller.WorkspaceID, "inviteId", id, "error", err)
					results[i] = httpapi.Failed(id, inv.Email, "internal error")
				}
			}()
		}
		wg.Wait()
		httpapi.JSON(w, http.StatusOK, httpapi.NewBatchResult(results))
	}
}
