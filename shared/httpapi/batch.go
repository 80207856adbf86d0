package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// MaxBatchIDs is the most ids one batch request may name.
const MaxBatchIDs = 100

// BatchRequest is the ids part of every batch body.
type BatchRequest struct {
	IDs []string `json:"ids"`
}

// UniqueIDs returns ids without repeats, in first-seen order. It returns a
// KindInvalid error unless there are 1 to MaxBatchIDs ids, none empty and
// none key-shaped (the message names the position, never the value, so a key
// pasted by mistake is not echoed). An id over workspace.MaxIDLength is kept:
// it is simply not found (see workspace.PlausibleID).
func UniqueIDs(ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, workspace.Invalid("ids must list at least one id")
	}
	if len(ids) > MaxBatchIDs {
		return nil, workspace.Invalid("ids may list at most %d ids", MaxBatchIDs)
	}
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for i, id := range ids {
		if strings.TrimSpace(id) == "" {
			return nil, workspace.Invalid("ids[%d] must be a non-empty string", i)
		}
		if workspace.ContainsKey(id) {
			return nil, workspace.Invalid("ids[%d] looks like an API key, not an id; keys go only in the Authorization header", i)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// DecodeIDs reads a batch body that is only {"ids": [...]} and returns its
// ids as UniqueIDs does.
func DecodeIDs(r *http.Request) ([]string, error) {
	var req BatchRequest
	if err := Decode(r, &req); err != nil {
		return nil, err
	}
	return UniqueIDs(req.IDs)
}

// BatchItem is the result for one id of a batch write (docs/batches.md).
type BatchItem struct {
	ID        string    `json:"id"`
	Success   bool      `json:"success"`
	Name      string    `json:"name,omitempty"`
	Unchanged *bool     `json:"unchanged,omitempty"`
	Applied   any       `json:"applied,omitempty"`
	Tags      *[]string `json:"tags,omitempty"` // set on tag writes only; [] is shown, not omitted
	Impact    any       `json:"impact,omitempty"`
	Error     string    `json:"error,omitempty"`
	// outage marks a failure because storage was unavailable: a batch made
	// only of failures, one of them an outage, is answered 503 as a whole
	// (WriteBatch).
	outage bool
}

// Summary counts a batch's results.
type Summary struct {
	Total     int `json:"total"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Unchanged int `json:"unchanged"`
}

// BatchResult is the response body of every batch write.
type BatchResult struct {
	Results []BatchItem `json:"results"`
	Summary Summary     `json:"summary"`
}

// Succeeded returns the result of a successful write to id; unchanged tells
// whether it changed nothing, applied holds the values now in force.
func Succeeded(id, name string, unchanged bool, applied any) BatchItem {
	return BatchItem{ID: id, Success: true, Name: name, Unchanged: &unchanged, Applied: applied}
}

// Failed returns the result of a write to id that failed with a caller-facing message.
func Failed(id, name, message string) BatchItem {
	return BatchItem{ID: id, Success: false, Name: name, Error: message}
}

// FailedUnexpectedly is the result of an id whose write failed with an error
// the handler has no rule for: a write that kept losing races fails with
// workspace.ErrBusy's message (the caller may retry it); anything else is
// logged as msg with attrs and err, and fails as "internal error", so
// internals never reach the client.
//
// A storage outage fails the id with its retry message the same way.
func FailedUnexpectedly(ctx context.Context, id, name string, err error, msg string, attrs ...any) BatchItem {
	if workspace.IsBusy(err) {
		it := Failed(id, name, workspace.MessageOf(err))
		it.outage = errors.Is(err, workspace.ErrStorageUnavailable)
		return it
	}
	slog.ErrorContext(ctx, msg, append(attrs, "error", err)...)
	return Failed(id, name, "internal error")
}

// Outcome is one id's outcome of a batch write in the terms every batch
// shares. Each endpoint maps its store's outcomes to it by its own rules
// (WriteOutcomes): what a success applied and adds, which failures it has a
// rule for.
type Outcome struct {
	ID        string
	Name      string // the entity's name; "" when it was not found
	Unchanged bool   // a success that changed nothing
	Applied   any    // a success's values now in force
	Impact    any    // a success's effect on the running state (credit writes)
	// Tags are the entity's tags after the write (tag writes): shown on a
	// success, and on a refusal that found the entity.
	Tags *[]string
	// Err is nil when the write succeeded.
	Err error
	// Refused marks Err as a failure the endpoint has a rule for (not
	// found, a bound): the id fails with Err's message. Any other Err is
	// one it has no rule for, and fails as FailedUnexpectedly says.
	Refused bool
}

// BatchLog is how a batch logs an id that failed unexpectedly: Msg, with
// Attrs (the caller's workspace, say) and the id under IDKey.
type BatchLog struct {
	Msg   string
	IDKey string
	Attrs []any
}

// WriteOutcomes answers a batch write whose store reported outs, one per id
// in the ids' order: outcome maps each to its Outcome, which becomes its
// result, and WriteBatch writes them, so every batch endpoint shares the
// results' rules and the whole answer's 503.
func WriteOutcomes[O any](w http.ResponseWriter, r *http.Request, outs []O, outcome func(O) Outcome, log BatchLog) {
	items := make([]BatchItem, len(outs))
	for i, o := range outs {
		items[i] = outcome(o).result(r.Context(), log)
	}
	WriteBatch(w, r, items)
}

// result is o's result: applied on a success, failed with Err's message on
// a refusal, and as FailedUnexpectedly says otherwise (logged per log).
func (o Outcome) result(ctx context.Context, log BatchLog) BatchItem {
	switch {
	case o.Err == nil:
		it := Succeeded(o.ID, o.Name, o.Unchanged, o.Applied)
		it.Impact, it.Tags = o.Impact, o.Tags
		return it
	case o.Refused:
		it := Failed(o.ID, o.Name, o.Err.Error())
		it.Tags = o.Tags
		return it
	}
	attrs := append(slices.Clip(log.Attrs), log.IDKey, o.ID)
	return FailedUnexpectedly(ctx, o.ID, o.Name, o.Err, log.Msg, attrs...)
}

// WriteBatch answers a batch write with items' result, 200. When no id
// succeeded and one failed because storage was unavailable, it answers a 503
// instead: a 200 whose every result failed would read as final. Where some
// ids were written before the outage, the 200 stands, with the others failed
// with the retry message. (An id that lost races to other writes fails
// alone with its retry message, as before.)
func WriteBatch(w http.ResponseWriter, r *http.Request, items []BatchItem) {
	res := NewBatchResult(items)
	if res.Summary.Succeeded == 0 {
		for _, it := range items {
			if it.outage {
				w.Header().Set("Retry-After", RetryAfterSeconds)
				JSON(w, http.StatusServiceUnavailable, ErrorBody{Error: it.Error})
				return
			}
		}
	}
	JSON(w, http.StatusOK, res)
}

// NewBatchResult totals items into a BatchResult.
func NewBatchResult(items []BatchItem) BatchResult {
	res := BatchResult{Results: items, Summary: Summary{Total: len(items)}}
	if res.Results == nil {
		res.Results = []BatchItem{}
	}
	for _, it := range items {
		switch {
		case !it.Success:
			res.Summary.Failed++
		case it.Unchanged != nil && *it.Unchanged:
			res.Summary.Succeeded++
			res.Summary.Unchanged++
		default:
			res.Summary.Succeeded++
		}
	}
	return res
}
