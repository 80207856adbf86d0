package workspace

import "time"

// MigrationStatus is where a migration step of the table stands.
type MigrationStatus string

// A step is pending until a run claims it, running while runs go through the
// workspaces (a run that stops at its time bound leaves it running, to be
// resumed), done when every workspace was gone through, failed when a run
// met an error (the next run starts it again where it stood).
const (
	MigrationPending MigrationStatus = "pending"
	MigrationRunning MigrationStatus = "running"
	MigrationDone    MigrationStatus = "done"
	MigrationFailed  MigrationStatus = "failed"
)

// MigrationCounts are what a migration step did to the table.
type MigrationCounts struct {
	// Workspaces gone through.
	Workspaces int64
	// Changed is the number of items written (put, updated or deleted).
	Changed int64
	// Conflicts describes, by ids only, each item the step could not
	// migrate and left as it was (for example two teams whose names now
	// compare equal): an operator settles it by hand (docs/operations.md).
	Conflicts []string
}

// Add returns c with o's counts added.
func (c MigrationCounts) Add(o MigrationCounts) MigrationCounts {
	return MigrationCounts{
		Workspaces: c.Workspaces + o.Workspaces,
		Changed:    c.Changed + o.Changed,
		Conflicts:  append(c.Conflicts[:len(c.Conflicts):len(c.Conflicts)], o.Conflicts...),
	}
}

// MigrationSegment is where a step's pass over one segment of the table's
// workspaces stands, so that a run resumes where the last one stopped.
type MigrationSegment struct {
	// Page is where the segment's current page of workspaces starts (opaque
	// to all but the store; "" is the segment's beginning).
	Page string
	// After is the last workspace of that page gone through ("" for none).
	After string
	// Done is set once the segment's last page was gone through.
	Done bool
}

// MigrationProgress is a migration step's recorded state.
type MigrationProgress struct {
	Step   int
	Name   string
	Status MigrationStatus
	// Segments is the pass's place in each segment of the workspaces (as
	// many as the run that started the step used).
	Segments []MigrationSegment
	// Workspaces, Changed and Conflicts add up every run's counts.
	Workspaces, Changed, Conflicts int64
	// Owner is the run holding the step until LeaseUntil ("" for none).
	Owner      string
	LeaseUntil time.Time
	// StartedAt is the first run's start; FinishedAt is set when done.
	StartedAt, FinishedAt time.Time
	// LastError is the failure of the last failed run, as logged.
	LastError string
}

// ErrMigrationClaimed is the error of a run that finds a migration step held
// by another run whose lease has not expired, or that lost its own lease.
var ErrMigrationClaimed = Conflict("another run holds this migration step")
