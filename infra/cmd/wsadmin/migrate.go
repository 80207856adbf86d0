package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/agentplatform/workspaceapi/shared/migrate"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// migrateUsage is the migrate command's help (wsadmin migrate -h).
const migrateUsage = `Usage: wsadmin [-table NAME] [-endpoint URL] [-region R] migrate [-status | -workspace WS] [-for DURATION] [-segments N]

  migrate
        run the table's migration steps not yet done (shared/migrate), in order,
        for at most -for (default 1h); a run cut short records where it stopped and
        the next one (this command, or the stack's MigrateFunction) goes on from there
  migrate -status
        each step's status, its counts and where its segments stand; writes nothing
  migrate -workspace WS
        run every step on workspace WS alone, now, without recording progress (the
        steps are idempotent): before the whole pass reaches it
  -segments N     segments a step this run starts scans at once (default 4)
`

// migrate runs, or reports, the table's migrations (docs/operations.md,
// "Upgrade a stack"). It exits 1 when a step failed or another run holds one.
func (a *app) migrate(ctx context.Context, args []string) error {
	const cmd = "migrate"
	fs := newFlagSet(cmd)
	status := fs.Bool("status", false, "")
	ws := fs.String("workspace", "", "")
	budget := fs.Duration("for", time.Hour, "")
	segments := fs.Int("segments", migrate.DefaultSegments, "")
	if err := parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(a.stdout, migrateUsage)
			return nil
		}
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	switch {
	case *status && *ws != "":
		return usagef("%s: give -status or -workspace, not both", cmd)
	case *budget <= 0:
		return usagef("%s: -for must be positive", cmd)
	case *segments < 1 || *segments > 64:
		return usagef("%s: -segments must be 1 to 64", cmd)
	}
	store, err := a.store(ctx)
	if err != nil {
		return err
	}
	switch {
	case *status:
		states, err := store.MigrationStates(ctx)
		if err != nil {
			return err
		}
		a.printMigrationStates(states)
		return nil
	case *ws != "":
		c, err := migrate.Workspace(ctx, store, *ws)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "workspace %s: %d items written, %d left as they were\n", *ws, c.Changed, len(c.Conflicts))
		for _, conflict := range c.Conflicts {
			fmt.Fprintf(a.stdout, "  left: %s\n", conflict)
		}
		return nil
	}
	host, _ := os.Hostname()
	owner := fmt.Sprintf("wsadmin@%s#%d", host, os.Getpid())
	rep, err := migrate.Runner{Store: store, Clock: clockFunc(a.now), Owner: owner, Segments: *segments}.Run(ctx, a.now().Add(*budget))
	for _, s := range rep.Steps {
		fmt.Fprintf(a.stdout, "step %d %s: %s (this run: %d workspaces, %d items written, %d left as they were)\n",
			s.Number, s.Name, s.Status, s.Workspaces, s.Changed, s.Conflicts)
	}
	switch {
	case errors.Is(err, workspace.ErrMigrationClaimed):
		return fmt.Errorf("another run holds a migration step (the stack's MigrateFunction, or another wsadmin); try again once it is done: %w", err)
	case err != nil:
		return err
	case !rep.Done:
		fmt.Fprintln(a.stdout, "not done yet: run it again to go on")
	default:
		fmt.Fprintf(a.stdout, "every step done: the table has layout %d\n", len(migrate.Steps))
	}
	return nil
}

// printMigrationStates writes each known step with its recorded state.
func (a *app) printMigrationStates(states []workspace.MigrationProgress) {
	by := map[int]workspace.MigrationProgress{}
	for _, s := range states {
		by[s.Step] = s
	}
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "STEP\tNAME\tSINCE\tSTATUS\tWORKSPACES\tCHANGED\tCONFLICTS\tSEGMENTS DONE\tHELD BY\tLAST ERROR")
	for _, step := range migrate.Steps {
		s, ok := by[step.Number]
		if !ok {
			s.Status = workspace.MigrationPending
		}
		done := 0
		for _, seg := range s.Segments {
			if seg.Done {
				done++
			}
		}
		held, lastErr := "-", "-"
		if s.LastError != "" {
			lastErr = s.LastError
		}
		if s.Owner != "" {
			held = s.Owner + " until " + workspace.FormatTime(s.LeaseUntil)
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%d/%d\t%s\t%s\n", step.Number, step.Name, step.Since, s.Status,
			s.Workspaces, s.Changed, s.Conflicts, done, len(s.Segments), held, lastErr)
	}
	_ = w.Flush()
}
