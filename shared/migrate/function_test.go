package migrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/migrate"
	"github.com/agentplatform/workspaceapi/shared/release"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// failingStore is a table of one workspace whose first step fails: the
// storage interface the runner consumes, answered in memory.
type failingStore struct {
	migrate.Store
	ended []workspace.MigrationStatus
	fail  error
	panic bool
}

func (f *failingStore) MigrationStates(context.Context) ([]workspace.MigrationProgress, error) {
	return nil, nil
}

func (f *failingStore) ClaimMigration(_ context.Context, step int, name string, segments int, owner string, now, until time.Time) (workspace.MigrationProgress, error) {
	return workspace.MigrationProgress{Step: step, Name: name, Status: workspace.MigrationRunning, Owner: owner,
		Segments: make([]workspace.MigrationSegment, segments)}, nil
}

func (f *failingStore) WorkspacePage(_ context.Context, seg, total int, page string) ([]string, string, error) {
	if seg == 0 {
		return []string{"ws_a"}, "", nil
	}
	return nil, "", nil
}

func (f *failingStore) SaveMigrationSegment(context.Context, int, string, int, workspace.MigrationSegment, workspace.MigrationCounts, time.Time) error {
	return nil
}

func (f *failingStore) EndMigration(_ context.Context, _ int, _ string, status workspace.MigrationStatus, _ string, _ time.Time) error {
	f.ended = append(f.ended, status)
	return nil
}

func (f *failingStore) BackfillKeyReferences(context.Context, string) (workspace.MigrationCounts, error) {
	if f.panic {
		panic("boom")
	}
	return workspace.MigrationCounts{}, f.fail
}

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

type ids struct{}

func (ids) NewID(prefix string) (string, error) { return prefix + "1", nil }

// invoke sends the function a custom-resource request and returns what it
// PUT to the response URL.
func invoke(t *testing.T, store migrate.Store, ev migrate.Event) (migrate.Response, error) {
	t.Helper()
	var got migrate.Response
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewDecoder(r.Body).Decode(&got)
	}))
	defer srv.Close()
	ev.ResponseURL, ev.RequestID, ev.StackID, ev.LogicalResourceID = srv.URL, "r1", "stack", "Migrations"
	fn := migrate.NewFunction(migrate.Deps{Store: store, Clock: fixedClock{time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}, IDs: ids{}, HTTP: srv.Client()})
	_, err := fn(context.Background(), ev)
	return got, err
}

func TestAFailedStepFailsTheDeployAndIsRecorded(t *testing.T) {
	store := &failingStore{fail: errors.New("throttled for good")}
	resp, err := invoke(t, store, migrate.Event{RequestType: "Update",
		ResourceProperties: migrate.Properties{Version: release.Version}, OldResourceProperties: migrate.Properties{Version: "1.0.0"}})
	if err == nil || resp.Status != "FAILED" || resp.Reason == "" || resp.PhysicalResourceID != migrate.PhysicalID {
		t.Fatalf("response %+v, error %v", resp, err)
	}
	if len(store.ended) != 1 || store.ended[0] != workspace.MigrationFailed {
		t.Errorf("recorded %v, want the step failed", store.ended)
	}
}

func TestAPanicStillAnswersCloudFormation(t *testing.T) {
	resp, err := invoke(t, &failingStore{panic: true}, migrate.Event{RequestType: "Create",
		ResourceProperties: migrate.Properties{Version: release.Version}})
	if err == nil || resp.Status != "FAILED" {
		t.Fatalf("response %+v, error %v", resp, err)
	}
}

// A rollback, a delete and another release's template never touch the
// table, and always succeed: nothing stands in a rollback's way.
func TestWhatRunsNothingSucceeds(t *testing.T) {
	for _, ev := range []migrate.Event{
		{RequestType: "Delete", ResourceProperties: migrate.Properties{Version: release.Version}},
		{RequestType: "Update", ResourceProperties: migrate.Properties{Version: "1.9.0"}, OldResourceProperties: migrate.Properties{Version: release.Version}},
		{RequestType: "Create", ResourceProperties: migrate.Properties{Version: "9.0.0"}},
	} {
		store := &failingStore{panic: true}
		resp, err := invoke(t, store, ev)
		if err != nil || resp.Status != "SUCCESS" || len(store.ended) != 0 {
			t.Errorf("%s %s: response %+v, error %v", ev.RequestType, ev.ResourceProperties.Version, resp, err)
		}
	}
}

// heldStore is a table whose first step another run holds.
type heldStore struct{ failingStore }

func (h *heldStore) ClaimMigration(context.Context, int, string, int, string, time.Time, time.Time) (workspace.MigrationProgress, error) {
	return workspace.MigrationProgress{Status: workspace.MigrationRunning}, workspace.ErrMigrationClaimed
}

// A scheduled run that finds a step held by the deploy's run is no failure
// (the Errors alarm stays quiet), and neither is the deploy's request then.
func TestARunThatFindsAStepHeldIsNoFailure(t *testing.T) {
	fn := migrate.NewFunction(migrate.Deps{Store: &heldStore{}, Clock: fixedClock{time.Now()}, IDs: ids{}})
	if res, err := fn(context.Background(), migrate.Event{DetailType: "Scheduled Event"}); err != nil || res.Done {
		t.Errorf("scheduled run: %+v, %v", res, err)
	}
	resp, err := invoke(t, &heldStore{}, migrate.Event{RequestType: "Create", ResourceProperties: migrate.Properties{Version: release.Version}})
	if err != nil || resp.Status != "SUCCESS" || resp.Data["Pending"] != "true" {
		t.Errorf("custom resource: %+v, %v", resp, err)
	}
}
