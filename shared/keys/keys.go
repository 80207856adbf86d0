package keys

import (
	"fmt"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// manager returns the caller of r when it may manage keys with scope: the
// scope (403), then a workspace-wide key (403) of a workspace admin (403),
// all from the authorizer's context, before anything is read.
func manager(r *http.Request, scope workspace.Scope) (workspace.Caller, error) {
	caller, err := httpapi.Caller(r, scope)
	if err != nil {
		return workspace.Caller{}, err
	}
	return caller, workspace.CanManageKeys(caller)
}

// pathKeyID returns the key id of r's path, or workspace.ErrAPIKeyNotFound
// without reading anything when it cannot be an id.
func pathKeyID(r *http.Request) (string, error) {
	id := r.PathValue("keyId")
	if !workspace.PlausibleID(id) {
		return "", workspace.ErrAPIKeyNotFound
	}
	return id, nil
}

// listKeys handles GET /workspaceapi/keys: the workspace's keys in id order,
// disabled and expired ones included, revoked ones gone.
func listKeys(store Store) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		keys, err := store.APIKeys(r.Context(), caller.WorkspaceID)
		if err != nil {
			return err
		}
		body := listResponse{Keys: make([]Resource, len(keys))}
		for i, k := range keys {
			body.Keys[i] = NewResource(k)
		}
		httpapi.JSON(w, http.StatusOK, body)
		return nil
	}
}

// createKey handles POST /workspaceapi/keys: a new key acting as the
// caller's user, answered 201 with its resource and, this once, the key.
// The order of checks: the caller (403), the body (400), the new key's
// scopes and lifetime against the caller's key (workspace.CoversKey, 403);
// then, in the storing transaction, the team (404), the
// caller still a member (404) and room under the live-key limit (409).
func createKey(store Store, clock workspace.Clock, ids workspace.IDGenerator) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req workspace.KeyRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		spec, err := req.Check()
		if err != nil {
			return err
		}
		id, err := ids.NewID(workspace.KeyIDPrefix)
		if err != nil {
			return fmt.Errorf("new key id: %w", err)
		}
		plaintext, err := workspace.NewKeyPlaintext()
		if err != nil {
			return fmt.Errorf("new key: %w", err)
		}
		now := clock.Now()
		k := workspace.NewAPIKey(id, workspace.HashKey(plaintext), spec, caller, now)
		if err := workspace.CoversKey(caller, k); err != nil {
			return err
		}
		if err := store.CreateAPIKey(r.Context(), httpapi.Actor(r, caller), k, now); err != nil {
			return err
		}
		httpapi.CreatedKey(w, NewResource(k), plaintext)
		return nil
	}
}

// updateKey handles PATCH /workspaceapi/keys/{keyId}: renames, disables or
// enables the key and answers it. The caller (403), the body (400), the id
// (404 without reading), then the key (404) and whether the caller's key
// covers it (workspace.KeyChange.Permits, 403), whatever the change.
func updateKey(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req workspace.KeyPatch
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		ch, err := req.Check(caller)
		if err != nil {
			return err
		}
		id, err := pathKeyID(r)
		if err != nil {
			return err
		}
		k, err := store.UpdateAPIKey(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, id, ch, clock.Now())
		if err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, NewResource(k))
		return nil
	}
}

// revokeKey handles DELETE /workspaceapi/keys/{keyId}: the key is deleted,
// 204, and stops working (docs/api-keys.md). A key already revoked, or
// unknown, is 404. It reads no body, but one that is sent follows the rules
// of every body.
func revokeKey(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		if err := httpapi.DecodeNone(r); err != nil {
			return err
		}
		id, err := pathKeyID(r)
		if err != nil {
			return err
		}
		if err := store.RevokeAPIKey(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, id, clock.Now()); err != nil {
			return err
		}
		httpapi.NoContent(w)
		return nil
	}
}
