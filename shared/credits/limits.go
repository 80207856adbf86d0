package credits

import (
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
func setAgentLimits(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req limitsRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		ids, err := httpapi.UniqueIDs(req.IDs)
		if err != nil {
			return err
		}
		change := workspace.LimitChange{Daily: req.DailyCreditLimit, Monthly: req.MonthlyCreditLimit}
		if err := change.Check(); err != nil {
			return err
		}
		if change.TouchesMonthly() && caller.Role != workspace.RoleAdmin {
			return errMonthlyNeedsAdmin
		}
		outs := store.SetAgentLimits(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, caller.TeamID, ids, change, clock.Now())
		httpapi.WriteOutcomes(w, r, outs, creditOutcome(func(o workspace.CreditOutcome) any {
			return appliedLimits{DailyCreditLimit: o.Limits.Daily, MonthlyCreditLimit: o.Limits.Monthly,
				EffectiveDailyCreditLimit: o.Limits.EffectiveDaily}
		}), agentLog("credit batch", caller))
		return nil
	}
}

// resetDailyUsage handles POST /workspaceapi/agents/daily-usage/reset: a
// batch that zeroes today's usage of the listed agents, resuming those their
// daily limit stopped; the month's usage is unchanged.
func resetDailyUsage(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := httpapi.Caller(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		ids, err := httpapi.DecodeIDs(r)
		if err != nil {
			return err
		}
		outs := store.ResetDailyUsage(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, caller.TeamID, ids, clock.Now())
		httpapi.WriteOutcomes(w, r, outs, creditOutcome(func(workspace.CreditOutcome) any {
			return appliedReset{CreditsToday: 0}
		}), agentLog("credit batch", caller))
		return nil
	}
}

// creditOutcome maps a credit batch's outcomes: applied gives a success's
// applied value, and a success carries its impact on the agent's running
// state. An agent the caller cannot see fails with "agent not found"; any
// other failure is one the batch has no rule for (httpapi.FailedUnexpectedly).
func creditOutcome(applied func(workspace.CreditOutcome) any) func(workspace.CreditOutcome) httpapi.Outcome {
	return func(o workspace.CreditOutcome) httpapi.Outcome {
		if workspace.IsNotFound(o.Err) {
			return agentNotFound(o.ID)
		}
		return httpapi.Outcome{ID: o.ID, Name: o.Name, Unchanged: o.Unchanged, Applied: applied(o),
			Impact: httpapi.Impact(o.Impact), Err: o.Err}
	}
}

// agentNotFound is the outcome of an agent the caller cannot see: it fails
// with "agent not found", without a name, whatever the store's error said.
func agentNotFound(id string) httpapi.Outcome {
	return httpapi.Outcome{ID: id, Err: workspace.ErrAgentNotFound, Refused: true}
}

// agentLog logs an agent's unexpected failure in a batch as msg, with the
// caller's workspace and the agent's id.
func agentLog(msg string, caller workspace.Caller) httpapi.BatchLog {
	return httpapi.BatchLog{Msg: msg, IDKey: "agentId", Attrs: []any{"workspaceId", caller.WorkspaceID}}
}
