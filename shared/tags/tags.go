package tags

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// tagsRequest is the body of every tag write (docs/endpoints.md). Tags is a
// pointer so that a missing list is told from an empty one; mode is one so
// that an empty string is told from an omitted one.
type tagsRequest struct {
	IDs  []string  `json:"ids"`
	Tags *[]string `json:"tags"`
	Mode *string   `json:"mode"`
}

// appliedTags is the applied value of a tag result (docs/batches.md).
type appliedTags struct {
	Tags []string `json:"tags"`
}

// setTags handles a tag write on entities of kind: a batch that adds,
// removes or sets the listed tags on each id. Everything the body says is
// checked before anything is read. Member tags are workspace-wide (a
// team-scoped key gets 403); a team-scoped key reaches only its team's
// agents and its team. Team tags answer 400 while team settings are off.
func setTags(store Store, clock workspace.Clock, kind workspace.Taggable) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err == nil && kind == workspace.TaggableMember {
			err = caller.RequireWorkspaceWide()
		}
		if err != nil {
			return err
		}
		var req tagsRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		ids, err := httpapi.UniqueIDs(req.IDs)
		if err != nil {
			return err
		}
		var tags []string
		if req.Tags != nil {
			tags = *req.Tags
			if tags == nil {
				tags = []string{}
			}
		}
		mode := workspace.TagModeAdd
		if req.Mode != nil {
			mode = workspace.TagMode(*req.Mode)
			if mode == "" {
				return workspace.Invalid("mode must be add, remove or set")
			}
		}
		change, err := workspace.NewTagChange(tags, mode)
		if err != nil {
			return err
		}
		outs, err := store.SetTags(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, kind, caller.TeamID, ids, change, clock.Now())
		if err != nil {
			return err
		}
		httpapi.WriteOutcomes(w, r, outs, func(o workspace.TagOutcome) httpapi.Outcome {
			out := httpapi.Outcome{ID: o.ID, Name: o.Name, Unchanged: o.Unchanged, Applied: appliedTags{Tags: o.Tags}, Err: o.Err}
			// Not found, or past the tag limit (the entity's tags are unchanged).
			out.Refused = workspace.KindOf(o.Err) != 0 && !workspace.IsBusy(o.Err)
			if o.Err == nil || o.Name != "" { // a refusal shows the tags of an entity it found
				out.Tags = &o.Tags
			}
			return out
		}, httpapi.BatchLog{Msg: "tag batch", IDKey: "id", Attrs: []any{"workspaceId", caller.WorkspaceID, "kind", kind}})
		return nil
	}
}
