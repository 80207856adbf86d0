package credits

import (
	"context"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// limitsRequest is the body of POST /workspaceapi/agents/credit-limits:
// omitted leaves a limit as it is, null clears it.
type limitsRequest struct {
	IDs                []string                    `json:"ids"`
	DailyCreditLimit   workspace.Nullable[float64] `json:"dailyCreditLimit"`
	MonthlyCreditLimit workspace.Nullable[float64] `json:"monthlyCreditLimit"`
}

// appliedLimits is the applied value of a credit-limits result: the limits
// now in force, null where there is none.
type appliedLimits struct {
	DailyCreditLimit          *float64 `json:"dailyCreditLimit"`
	MonthlyCreditLimit        *float64 `json:"monthlyCreditLimit"`
	EffectiveDailyCreditLimit *float64 `json:"effectiveDailyCreditLimit"`
}

// appliedReset is the applied value of a daily-usage reset result.
type appliedReset struct {
	CreditsToday float64 `json:"creditsToday"`
}

// errMonthlyNeedsAdmin is the 403 of a credit-limits request naming the
// monthly limit from a key whose owner is not a workspace admin.
var errMonthlyNeedsAdmin = workspace.Forbidden("only workspace admins can change the monthly credit limit")

// setAgentLimits handles POST /workspaceapi/agents/credit-limits: a batch
// that sets or clears the daily and/or monthly limit of the listed agents
// and re-evaluates each one's running state at once. A body naming
// monthlyCreditLimit (even as null) from a non-admin is refused whole (403).
func setAgentLimits(store Store, clock workspace.Clock) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		var req limitsRequest
		if err := httpapi.Decode(r, &req); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		ids, err := httpapi.UniqueIDs(req.IDs)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		change := workspace.LimitChange{Daily: req.DailyCreditLimit, Monthly: req.MonthlyCreditLimit}
		if err := change.Check(); err != nil {
			httpapi.Error(w, r, err)
			return
		}
		if change.TouchesMonthly() && caller.Role != workspace.RoleAdmin {
			httpapi.Error(w, r, errMonthlyNeedsAdmin)
			return
		}
		outs := store.SetAgentLimits(r.Context(), caller.WorkspaceID, caller.TeamID, ids, change, clock.Now())
		httpapi.WriteBatch(w, r, batchResult(r.Context(), caller, outs, func(o workspace.CreditOutcome) any {
			return appliedLimits{DailyCreditLimit: o.Limits.Daily, MonthlyCreditLimit: o.Limits.Monthly,
				EffectiveDailyCreditLimit: o.Limits.EffectiveDaily}
		}))
	}
}

// resetDailyUsage handles POST /workspaceapi/agents/daily-usage/reset: a
// batch that zeroes today's usage of the listed agents, resuming those their
// daily limit stopped; the month's usage is unchanged.
func resetDailyUsage(store Store, clock workspace.Clock) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		ids, err := httpapi.DecodeIDs(r)
		if err != nil {
			httpapi.Error(w, r, err)
			return
		}
		outs := store.ResetDailyUsage(r.Context(), caller.WorkspaceID, caller.TeamID, ids, clock.Now())
		httpapi.WriteBatch(w, r, batchResult(r.Context(), caller, outs, func(workspace.CreditOutcome) any {
			return appliedReset{CreditsToday: 0}
		}))
	}
}

// batchResult turns a credit batch's outcomes into its result: applied
// gives a success's applied value. An agent the caller cannot see fails with
// "agent not found"; one that kept losing races to other writes fails with
// ErrBusy's message (retry it), one storage could not serve with the retry
// message of an outage; any other failure fails its id alone, logged, as
// "internal error".
func batchResult(ctx context.Context, caller workspace.Caller, outs []workspace.CreditOutcome, applied func(workspace.CreditOutcome) any) []httpapi.BatchItem {
	items := make([]httpapi.BatchItem, len(outs))
	for i, o := range outs {
		switch {
		case o.Err == nil:
			items[i] = httpapi.Succeeded(o.ID, o.Name, o.Unchanged, applied(o))
			items[i].Impact = httpapi.Impact(o.Impact)
		case workspace.IsNotFound(o.Err):
			items[i] = httpapi.Failed(o.ID, "", workspace.ErrAgentNotFound.Error())
		default:
			items[i] = httpapi.FailedUnexpectedly(ctx, o.ID, o.Name, o.Err, "credit batch", "workspaceId", caller.WorkspaceID, "agentId", o.ID)
		}
	}
	return items
}
