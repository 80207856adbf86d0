package migrate

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// DefaultSegments is how many segments a step's pass over the workspaces
// scans at once when a run starts it: each segment is a Scan of its own,
// paged and resumed apart.
const DefaultSegments = 4

// leaseMargin is how long past its time bound a run keeps a step: a run
// that dies without releasing it holds it that much longer, no more.
const leaseMargin = 2 * time.Minute

// Runner runs the migration steps over every workspace of the table.
type Runner struct {
	Store Store
	Clock workspace.Clock
	// Owner names the run in the steps' leases and logs (unique per run).
	Owner string
	// Segments is how many segments a step this run starts scans at once
	// (DefaultSegments when 0). A step resumed keeps its recorded number.
	Segments int
}

// StepReport is what a run did for one step.
type StepReport struct {
	Number int                       `json:"number"`
	Name   string                    `json:"name"`
	Status workspace.MigrationStatus `json:"status"`
	// Workspaces and Changed count this run's work alone.
	Workspaces int64 `json:"workspaces"`
	Changed    int64 `json:"changed"`
	Conflicts  int   `json:"conflicts"`
}

// Report is what a run did.
type Report struct {
	// Done is set when every step is done: the table has this release's layout.
	Done  bool         `json:"done"`
	Steps []StepReport `json:"steps"`
}

// Run runs the steps not yet done, in order, until they are all done or the
// clock passes until, and returns what it did. A run that reaches until
// stops between two workspaces, records where, and leaves the step running
// for the next run. Errors: workspace.ErrMigrationClaimed when another run
// holds a step (its lease not expired), or the first failure of a step,
// which is recorded in the step's item (status failed, lastError); the next
// run starts the step again where it stood.
func (r Runner) Run(ctx context.Context, until time.Time) (Report, error) {
	states, err := r.Store.MigrationStates(ctx)
	if err != nil {
		return Report{}, err
	}
	done := map[int]bool{}
	for _, s := range states {
		done[s.Step] = s.Status == workspace.MigrationDone
	}
	var rep Report
	for _, step := range Steps {
		if done[step.Number] {
			rep.Steps = append(rep.Steps, StepReport{Number: step.Number, Name: step.Name, Status: workspace.MigrationDone})
			continue
		}
		sr, err := r.runStep(ctx, step, until)
		rep.Steps = append(rep.Steps, sr)
		if err != nil || sr.Status != workspace.MigrationDone {
			return rep, err
		}
	}
	rep.Done = true
	return rep, nil
}

// runStep claims step and runs its segments' passes at once.
func (r Runner) runStep(ctx context.Context, step Step, until time.Time) (StepReport, error) {
	sr := StepReport{Number: step.Number, Name: step.Name}
	segments := r.Segments
	if segments <= 0 {
		segments = DefaultSegments
	}
	p, err := r.Store.ClaimMigration(ctx, step.Number, step.Name, segments, r.Owner, r.Clock.Now(), until.Add(leaseMargin))
	sr.Status = p.Status
	if err != nil || p.Status == workspace.MigrationDone {
		return sr, err
	}
	slog.InfoContext(ctx, "migration step running", "step", step.Number, "name", step.Name, "owner", r.Owner)
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		finished = 0
		first    error
	)
	for seg, at := range p.Segments {
		if at.Done {
			finished++
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts, complete, err := r.recoveredSegment(ctx, step, seg, len(p.Segments), at, until)
			mu.Lock()
			defer mu.Unlock()
			sr.Workspaces += counts.Workspaces
			sr.Changed += counts.Changed
			sr.Conflicts += len(counts.Conflicts)
			if complete {
				finished++
			}
			if err != nil && first == nil {
				first = err
			}
		}()
	}
	wg.Wait()
	now := r.Clock.Now()
	switch {
	case first != nil:
		sr.Status = workspace.MigrationFailed
		slog.ErrorContext(ctx, "migration step failed", "step", step.Number, "name", step.Name, "error", first)
		if err := r.Store.EndMigration(ctx, step.Number, r.Owner, workspace.MigrationFailed, first.Error(), now); err != nil {
			slog.ErrorContext(ctx, "migration step: recording the failure failed", "step", step.Number, "error", err)
		}
		return sr, first
	case finished == len(p.Segments):
		sr.Status = workspace.MigrationDone
	default:
		sr.Status = workspace.MigrationRunning
	}
	slog.InfoContext(ctx, "migration step "+string(sr.Status), "step", step.Number, "name", step.Name,
		"workspaces", sr.Workspaces, "changed", sr.Changed, "conflicts", sr.Conflicts)
	return sr, r.Store.EndMigration(ctx, step.Number, r.Owner, sr.Status, "", now)
}

// recoveredSegment is runSegment with a panic turned into its error: a
// segment runs in a goroutine of its own, where the function's handler
// could not recover it, and the custom resource must still be answered.
func (r Runner) recoveredSegment(ctx context.Context, step Step, seg, total int, at workspace.MigrationSegment, until time.Time) (
	counts workspace.MigrationCounts, complete bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("segment %d panicked: %v", seg, p)
		}
	}()
	return r.runSegment(ctx, step, seg, total, at, until)
}

// runSegment goes through segment seg's workspaces from at, recording its
// place after each workspace, until the segment ends (complete) or the
// clock passes until.
func (r Runner) runSegment(ctx context.Context, step Step, seg, total int, at workspace.MigrationSegment, until time.Time) (
	counts workspace.MigrationCounts, complete bool, err error) {
	lease := until.Add(leaseMargin)
	for {
		if !r.Clock.Now().Before(until) {
			return counts, false, nil
		}
		ids, next, err := r.Store.WorkspacePage(ctx, seg, total, at.Page)
		if err != nil {
			return counts, false, err
		}
		// A resumed page skips the workspaces gone through (if the last
		// one is gone from it, the page is gone through again: the steps
		// are idempotent).
		if i := slices.Index(ids, at.After); at.After != "" && i >= 0 {
			ids = ids[i+1:]
		}
		for _, ws := range ids {
			if !r.Clock.Now().Before(until) {
				return counts, false, nil
			}
			c, err := step.Apply(r.Store, ctx, ws)
			if err != nil {
				return counts, false, fmt.Errorf("workspace %s: %w", ws, err)
			}
			for _, conflict := range c.Conflicts {
				slog.WarnContext(ctx, "migration left an item as it was", "step", step.Number, "name", step.Name, "conflict", conflict)
			}
			at.After = ws
			if err := r.Store.SaveMigrationSegment(ctx, step.Number, r.Owner, seg, at, c, lease); err != nil {
				return counts, false, err
			}
			counts = counts.Add(c)
		}
		at = workspace.MigrationSegment{Page: next, Done: next == ""}
		if err := r.Store.SaveMigrationSegment(ctx, step.Number, r.Owner, seg, at, workspace.MigrationCounts{}, lease); err != nil {
			return counts, false, err
		}
		if at.Done {
			return counts, true, nil
		}
	}
}
