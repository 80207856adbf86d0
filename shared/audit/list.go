package audit

import (
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Entry is an audit entry as GET /workspaceapi/audit-log lists it.
type Entry struct {
	ID        string            `json:"id"`
	At        string            `json:"at"`
	Action    string            `json:"action"`
	Actor     Actor             `json:"actor"`
	Target    Target            `json:"target"`
	Changes   workspace.Changes `json:"changes"`
	RequestID *string           `json:"requestId"`
}

// Actor is who made a change: {"type": "key", "keyId", "userId"} or
// {"type": "system", "name"}. Never a key or its hash.
type Actor struct {
	Type   string `json:"type"`
	KeyID  string `json:"keyId,omitempty"`
	UserID string `json:"userId,omitempty"`
	Name   string `json:"name,omitempty"`
}

// Target is the entity a change is about.
type Target struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// NewEntry returns e's listed form; requestId is null for system actors.
func NewEntry(e workspace.AuditEntry) Entry {
	out := Entry{
		ID: e.ID, At: workspace.FormatTime(e.At), Action: string(e.Action),
		Actor:   Actor{Type: string(e.Actor.Type)},
		Target:  Target{Type: string(e.Target.Type), ID: e.Target.ID},
		Changes: e.Changes,
	}
	if out.Changes == nil {
		out.Changes = workspace.Changes{}
	}
	switch e.Actor.Type {
	case workspace.ActorKey:
		out.Actor.KeyID, out.Actor.UserID = e.Actor.KeyID, e.Actor.UserID
		id := e.Actor.RequestID
		out.RequestID = &id
	case workspace.ActorSystem:
		out.Actor.Name = string(e.Actor.System)
	}
	return out
}

// page is the body of GET /workspaceapi/audit-log.
type page struct {
	Entries    []Entry `json:"entries"`
	NextCursor *string `json:"nextCursor"`
}

// listEntries handles GET /workspaceapi/audit-log: one page of the
// workspace's audit log, newest first, filtered by action, targetId,
// actorKeyId and the half-open period [since, until). Workspace admins only;
// team-scoped keys are refused. A page is at most one Query per shard of the
// log, sent at once, whatever the log's size (dynamo.Store.AuditPage), and
// every parameter is checked before them.
func listEntries(store Store, cursors *httpapi.Cursors) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.WorkspaceCaller(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		if err := workspace.CanReadAuditLog(caller); err != nil {
			return err
		}
		limit, cursor, key, err := cursors.QueryPage(r, httpapi.DefaultPageLimit)
		if err != nil {
			return err
		}
		f, none, err := queryFilter(r)
		if err != nil {
			return err
		}
		if none { // an id no entity can have: nothing to read
			httpapi.JSON(w, http.StatusOK, page{Entries: []Entry{}})
			return nil
		}
		entries, next, err := store.AuditPage(r.Context(), caller.WorkspaceID, f, cursor, limit)
		if err != nil {
			return err
		}
		out := page{Entries: make([]Entry, len(entries))}
		for i, e := range entries {
			out.Entries[i] = NewEntry(e)
		}
		if next != "" {
			c := key.Encode(r, next)
			out.NextCursor = &c
		}
		httpapi.JSON(w, http.StatusOK, out)
		return nil
	}
}

// queryFilter reads the filters of the query. none is true when an id
// filter is longer than any id (which, like any unknown id, matches
// nothing).
func queryFilter(r *http.Request) (f workspace.AuditFilter, none bool, err error) {
	action, set, err := httpapi.QueryString(r, "action")
	if err != nil {
		return f, false, err
	}
	if set && !workspace.AuditAction(action).Valid() {
		return f, false, workspace.Invalid("action must be an audit log action, such as team.renamed (the OpenAPI document lists them)")
	}
	f.Action = workspace.AuditAction(action)
	for _, p := range []struct {
		name string
		to   *string
	}{{"targetId", &f.TargetID}, {"actorKeyId", &f.ActorKeyID}} {
		v, set, err := httpapi.QueryString(r, p.name)
		if err != nil {
			return f, false, err
		}
		if set && v == "" {
			return f, false, workspace.Invalid("%s must not be empty", p.name)
		}
		if len(v) > workspace.MaxIDLength {
			none = true
		}
		*p.to = v
	}
	since, sinceSet, err := httpapi.QueryTime(r, "since")
	if err != nil {
		return f, false, err
	}
	until, untilSet, err := httpapi.QueryTime(r, "until")
	if err != nil {
		return f, false, err
	}
	if sinceSet && untilSet && until.Before(since) {
		return f, false, workspace.Invalid("until must not be before since")
	}
	// A bound before 1970 reads as 1970, before every entry: never as the
	// zero time (year 1), which would mean no bound at all.
	if sinceSet {
		f.Since = workspace.NotBeforeEarliest(since)
	}
	if untilSet {
		f.Until = workspace.NotBeforeEarliest(until)
	}
	return f, none, nil
}
