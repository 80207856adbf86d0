// Package scheduler is the function EventBridge runs at 00:00 UTC every day,
// and every 5 minutes to finish a day's run cut off part way
// (docs/credit-rules.md#the-scheduler): it resumes the agents and teams that
// a new UTC day or month frees. "Now" is the scheduled event's time, not the
// clock at the moment it runs, so that a delayed or retried run decides as
// the scheduled one would; the store's resumes are conditioned on what they
// resume, so running twice changes nothing more and a run after missed days
// catches up. The store records the day's progress, so the day's later runs
// start where an earlier one stopped, and only look once it has finished.
package scheduler

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the function uses.
type Store interface {
	// ResumeDue resumes everything a new UTC day or month has freed by now,
	// from where the day's earlier runs stopped, and returns what it did
	// (even when it also fails).
	ResumeDue(ctx context.Context, by workspace.Actor, now time.Time) (workspace.ResumeRun, error)
}

// Result is what a run did, as the function's JSON result: what
// POST /_local/invoke/SchedulerFunction shows.
type Result struct {
	// Now is the time the run decided at (RFC 3339, UTC).
	Now string `json:"now"`
	// ResumedAgents and ResumedTeams count what this run resumed; 0 on a
	// second run for the same time.
	ResumedAgents int `json:"resumedAgents"`
	ResumedTeams  int `json:"resumedTeams"`
	// Finished is true once everything due on the day is resumed (by this
	// run or an earlier one); false when the run stopped part way (its time
	// ran out, or it failed): the day's next run goes on from there.
	Finished bool `json:"finished"`
	// Busy is true when another run of the day was going on: this one did
	// nothing.
	Busy bool `json:"busy"`
}

// Handler is the function's Lambda handler.
type Handler func(ctx context.Context, ev events.EventBridgeEvent) (Result, error)

// New returns the handler. It returns an error when resuming failed, so that
// Lambda retries the run (the resumes already made are kept, and a retry
// changes nothing more for them); clock stands in for an event without a
// time.
func New(store Store, clock workspace.Clock) Handler {
	return func(ctx context.Context, ev events.EventBridgeEvent) (Result, error) {
		now := ev.Time.UTC()
		if ev.Time.IsZero() {
			now = clock.Now().UTC()
			slog.WarnContext(ctx, "the scheduled event has no time; resuming as of the clock's now", "now", workspace.FormatTime(now))
		}
		run, err := store.ResumeDue(ctx, workspace.SystemActor(workspace.SystemScheduler), now)
		res := Result{Now: workspace.FormatTime(now), ResumedAgents: run.ResumedAgents, ResumedTeams: run.ResumedTeams,
			Finished: run.Finished, Busy: run.Busy}
		if err != nil {
			slog.ErrorContext(ctx, "resume what the new period frees", "now", res.Now,
				"resumedAgents", res.ResumedAgents, "resumedTeams", res.ResumedTeams, "error", err)
			return res, err
		}
		// The message "scheduler run" with finished true is what the
		// SchedulerRunMissing alarm counts (template.yaml).
		slog.InfoContext(ctx, "scheduler run", "now", res.Now, "resumedAgents", res.ResumedAgents, "resumedTeams", res.ResumedTeams,
			"finished", res.Finished, "busy", res.Busy)
		return res, nil
	}
}
