package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/agentplatform/workspaceapi/shared/release"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The MigrateFunction of template.yaml is invoked two ways:
//
//   - By CloudFormation, as the custom resource Migrations, whose Version
//     property is the release's (template.yaml's Release mapping): a deploy
//     that changes the release sends an Update, so each new release runs its
//     steps right after its deploy. The function answers every request,
//     within its time bound, by a PUT of the custom-resource response to the
//     request's ResponseURL, and never stands in a rollback's way: Delete,
//     and an Update to an older release (CloudFormation rolling back, or an
//     operator deploying the previous release), succeed at once without
//     touching the table (migrations are not undone; the previous release
//     reads what they wrote, docs/operations.md). A Create or Update to this
//     release runs the steps until the invocation's time bound: all done is
//     SUCCESS; not done yet (a large table) is SUCCESS with Pending "true",
//     and the schedule goes on; a failed step is FAILED with its error, so
//     the deploy fails and CloudFormation rolls it back.
//   - By its schedule (every 15 minutes), which resumes steps that are not
//     done and otherwise costs one Query.

// Event is what the function is invoked with: a custom-resource request
// (RequestType set) or a scheduled event.
type Event struct {
	RequestType           string     `json:"RequestType"`
	ResponseURL           string     `json:"ResponseURL"`
	StackID               string     `json:"StackId"`
	RequestID             string     `json:"RequestId"`
	LogicalResourceID     string     `json:"LogicalResourceId"`
	PhysicalResourceID    string     `json:"PhysicalResourceId"`
	ResourceProperties    Properties `json:"ResourceProperties"`
	OldResourceProperties Properties `json:"OldResourceProperties"`
	// DetailType is a scheduled event's ("Scheduled Event").
	DetailType string `json:"detail-type"`
}

// Properties are the custom resource's properties that the function reads.
type Properties struct {
	// Version is the release the stack's template is (release.Version).
	Version string `json:"Version"`
}

// Response is a custom-resource response (the body PUT to ResponseURL).
type Response struct {
	Status             string            `json:"Status"`
	Reason             string            `json:"Reason,omitempty"`
	PhysicalResourceID string            `json:"PhysicalResourceId"`
	StackID            string            `json:"StackId"`
	RequestID          string            `json:"RequestId"`
	LogicalResourceID  string            `json:"LogicalResourceId"`
	Data               map[string]string `json:"Data,omitempty"`
}

// PhysicalID is the custom resource's physical id: always the same, so no
// Update is ever taken for a replacement (which would send a Delete).
const PhysicalID = "workspace-api-migrations"

// responseMargin is the part of an invocation kept to answer CloudFormation
// after the steps stop.
const responseMargin = 90 * time.Second

// localBudget bounds a run whose context has no deadline (outside Lambda).
const localBudget = 10 * time.Minute

// Result is the function's result: what the run did.
type Result struct {
	Report
	// Skipped says why nothing ran (a Delete, another release), if so.
	Skipped string `json:"skipped,omitempty"`
}

// Handler is the function's Lambda handler.
type Handler func(ctx context.Context, ev Event) (Result, error)

// Deps are the function's dependencies.
type Deps struct {
	Store Store
	Clock workspace.Clock
	IDs   workspace.IDGenerator
	// HTTP sends the custom-resource responses.
	HTTP *http.Client
}

// NewFunction returns the handler.
func NewFunction(d Deps) Handler {
	return func(ctx context.Context, ev Event) (res Result, err error) {
		if ev.RequestType == "" {
			res, err = runSteps(ctx, d)
			if errors.Is(err, workspace.ErrMigrationClaimed) {
				// Another run (the deploy's, or wsadmin) is on it: not a
				// failure, so the Errors alarm stays quiet.
				slog.InfoContext(ctx, "migrations: another run holds a step; this run leaves it")
				return res, nil
			}
			return res, err
		}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("migrations panicked: %v", p)
				answer(ctx, d.HTTP, ev, Response{Status: "FAILED", Reason: "the migrations function panicked; see its log"})
			}
		}()
		if why := skipReason(ev); why != "" {
			slog.InfoContext(ctx, "custom resource: nothing to run", "requestType", ev.RequestType, "reason", why)
			return Result{Skipped: why}, answer(ctx, d.HTTP, ev, Response{Status: "SUCCESS", Reason: why})
		}
		res, err = runSteps(ctx, d)
		resp := Response{Status: "SUCCESS", Data: map[string]string{
			"Version": release.Version, "Layout": strconv.Itoa(len(Steps)), "Pending": strconv.FormatBool(!res.Done),
		}}
		switch {
		case errors.Is(err, workspace.ErrMigrationClaimed):
			resp.Reason = "another run holds a migration step; it goes on"
			err = nil
		case err != nil:
			resp = Response{Status: "FAILED", Reason: workspace.RedactKeys(truncate("migrations failed: "+err.Error(), 1000))}
		case !res.Done:
			resp.Reason = "migrations go on on the function's schedule (wsadmin migrate -status)"
		}
		if aerr := answer(ctx, d.HTTP, ev, resp); aerr != nil {
			return res, errors.Join(err, aerr)
		}
		return res, err
	}
}

// skipReason says why a custom-resource request runs nothing, or "".
func skipReason(ev Event) string {
	switch {
	case ev.RequestType == "Delete":
		return "migrations are not undone on delete"
	case ev.RequestType == "Update" && release.Compare(ev.ResourceProperties.Version, ev.OldResourceProperties.Version) < 0:
		return "an update to an older release (a rollback) runs no migration"
	case ev.ResourceProperties.Version != release.Version:
		return fmt.Sprintf("the template's release %q is not this function's %s", ev.ResourceProperties.Version, release.Version)
	}
	return ""
}

// runSteps runs the steps until the invocation's time bound.
func runSteps(ctx context.Context, d Deps) (Result, error) {
	now := d.Clock.Now()
	until := now.Add(localBudget)
	if dl, ok := ctx.Deadline(); ok {
		until = dl.Add(-responseMargin)
	}
	owner, err := d.IDs.NewID("mig_")
	if err != nil {
		return Result{}, err
	}
	rep, err := Runner{Store: d.Store, Clock: d.Clock, Owner: owner}.Run(ctx, until)
	return Result{Report: rep}, err
}

// answer PUTs resp, completed from ev, to ev's ResponseURL (a pre-signed S3
// URL: no Content-Type), trying three times.
func answer(ctx context.Context, client *http.Client, ev Event, resp Response) error {
	resp.PhysicalResourceID, resp.StackID, resp.RequestID, resp.LogicalResourceID = PhysicalID, ev.StackID, ev.RequestID, ev.LogicalResourceID
	body, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	var last error
	for attempt := range 3 {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * time.Second)
		}
		req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPut, ev.ResponseURL, bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("custom resource response: %w", err)
		}
		got, err := client.Do(req)
		if err != nil {
			last = err
			continue
		}
		_ = got.Body.Close()
		if got.StatusCode/100 == 2 {
			slog.InfoContext(ctx, "custom resource answered", "status", resp.Status, "reason", resp.Reason)
			return nil
		}
		last = fmt.Errorf("status %d", got.StatusCode)
	}
	return fmt.Errorf("custom resource response: %w", last)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
