// Package migrate brings a table written by an earlier release up to the
// layout this release reads (docs/operations.md, "Upgrade a stack"). Each
// step is numbered, idempotent (its writes are conditioned on the item not
// being migrated yet, so a second pass changes nothing) and resumable: its
// progress is recorded in the table, one item per step (status, each
// segment's place, counts), and a run bounded in time stops between
// workspaces and the next run goes on from there. Steps run in their
// numbered order, once each; a step done stays done.
//
// The steps work per workspace, with Queries of its partitions. Finding the
// workspaces is the one full pass over the table (the table has no index of
// them): a paged Scan of its workspace items in parallel segments, made by
// the migrations only, never by a request (dynamo.Store.WorkspacePage).
//
// Two things run the steps: the MigrateFunction of the stack, after every
// deploy of a new release (a CloudFormation custom resource) and on a
// schedule until they are done (function.go), and `wsadmin migrate`.
package migrate

import (
	"context"
	"fmt"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the steps and the runner use.
type Store interface {
	Backfills
	MigrationStates(ctx context.Context) ([]workspace.MigrationProgress, error)
	ClaimMigration(ctx context.Context, step int, name string, segments int, owner string, now, until time.Time) (workspace.MigrationProgress, error)
	SaveMigrationSegment(ctx context.Context, step int, owner string, seg int, at workspace.MigrationSegment, counts workspace.MigrationCounts, until time.Time) error
	EndMigration(ctx context.Context, step int, owner string, status workspace.MigrationStatus, lastError string, now time.Time) error
	WorkspacePage(ctx context.Context, seg, total int, page string) (ids []string, next string, err error)
}

// Backfills are the steps' work on one workspace, each idempotent.
type Backfills interface {
	BackfillKeyReferences(ctx context.Context, ws string) (workspace.MigrationCounts, error)
	BackfillUsageListings(ctx context.Context, ws string) (workspace.MigrationCounts, error)
	RekeyTeamNameClaims(ctx context.Context, ws string) (workspace.MigrationCounts, error)
	FoldUsageShards(ctx context.Context, ws string) (workspace.MigrationCounts, error)
}

// Step is one numbered migration.
type Step struct {
	// Number orders the steps; a step's number never changes once released.
	Number int
	// Name names it in logs, progress items and `wsadmin migrate`.
	Name string
	// Since is the release whose code needs it.
	Since string
	// Apply migrates one workspace (a method expression of Backfills).
	Apply func(b Backfills, ctx context.Context, ws string) (workspace.MigrationCounts, error)
}

// Steps are every migration step, in order. Their number is the table's
// layout version this release reads: a table whose steps are all done.
var Steps = []Step{
	{Number: 1, Name: "api-key-references", Since: "2.0.0", Apply: Backfills.BackfillKeyReferences},
	{Number: 2, Name: "usage-listings", Since: "2.0.0", Apply: Backfills.BackfillUsageListings},
	{Number: 3, Name: "team-name-claims", Since: "2.0.0", Apply: Backfills.RekeyTeamNameClaims},
	{Number: 4, Name: "usage-shards", Since: "3.0.0", Apply: Backfills.FoldUsageShards},
}

// Workspace runs every step on workspace ws alone, now, without recording
// progress (the steps are idempotent): for an operator who needs one
// workspace migrated before the whole pass reaches it.
func Workspace(ctx context.Context, b Backfills, ws string) (workspace.MigrationCounts, error) {
	var total workspace.MigrationCounts
	for _, s := range Steps {
		c, err := s.Apply(b, ctx, ws)
		if err != nil {
			return total, fmt.Errorf("step %d %s: %w", s.Number, s.Name, err)
		}
		total = total.Add(workspace.MigrationCounts{Changed: c.Changed, Conflicts: c.Conflicts})
	}
	total.Workspaces = 1
	return total, nil
}
