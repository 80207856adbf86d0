package httpapi

import (
	"encoding/json"
	"net/http"
)

// Paging of the paged lists (agents, members, invitations; docs/endpoints.md):
// limit from 1 to MaxPageLimit, DefaultPageLimit when absent where the list
// has a default.
const (
	DefaultPageLimit = 100
	MaxPageLimit     = 1000
)

// WritePage answers one page of r's list, 200: {"<name>": items,
// "nextCursor": c}, where c wraps the id (id) of the page's last item when
// more follow (key.Encode, bound to r's listing), and is null after the
// last page.
func WritePage[T any](w http.ResponseWriter, r *http.Request, key CursorKey, name string, items []T, more bool, id func(T) string) {
	p := page[T]{name: name, items: items}
	if p.items == nil {
		p.items = []T{} // a list is never null
	}
	if more && len(items) > 0 {
		next := key.Encode(r, id(items[len(items)-1]))
		p.next = &next
	}
	JSON(w, http.StatusOK, p)
}

// page is the body WritePage answers. Its JSON is written by hand because
// the list's member is named at run time, and it keeps the list first.
type page[T any] struct {
	name  string
	items []T
	next  *string
}

// MarshalJSON writes {"<name>": items, "nextCursor": next}.
func (p page[T]) MarshalJSON() ([]byte, error) {
	name, err := json.Marshal(p.name)
	if err != nil {
		return nil, err
	}
	items, err := json.Marshal(p.items)
	if err != nil {
		return nil, err
	}
	next, err := json.Marshal(p.next)
	if err != nil {
		return nil, err
	}
	b := append([]byte{'{'}, name...)
	b = append(append(b, ':'), items...)
	b = append(append(b, `,"nextCursor":`...), next...)
	return append(b, '}'), nil
}
