package workspaceapi

import (
	"context"
	"iter"

	"github.com/oapi-codegen/nullable"
)

// Page fetches one page of a list: the page after cursor (the first page when
// cursor is nil), its items, and its nextCursor (null on the last page), as
// the generated list answers have it.
type Page[T any] func(ctx context.Context, cursor *string) (items []T, next nullable.Nullable[string], err error)

// maxPages bounds All: a list that kept answering a nextCursor would otherwise
// be followed for ever.
const maxPages = 100_000

// All yields every item of every page, following nextCursor from the first
// page until a page has none. It stops at the first error, which it yields
// with a zero item, and when the caller stops ranging.
//
//	for agent, err := range workspaceapi.All(ctx, func(ctx context.Context, c *string) ([]workspaceapi.Agent, nullable.Nullable[string], error) {
//		r, err := client.ListAgentsWithResponse(ctx, &workspaceapi.ListAgentsParams{Cursor: c})
//		if err != nil {
//			return nil, nil, err
//		}
//		return r.JSON200.Agents, r.JSON200.NextCursor, nil
//	}) { ... }
func All[T any](ctx context.Context, page Page[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var cursor *string
		for range maxPages {
			items, next, err := page(ctx, cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			c, err := next.Get()
			if err != nil || c == "" { // null or left out: the last page
				return
			}
			cursor = &c
		}
	}
}
