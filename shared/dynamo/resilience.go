package dynamo

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/agentplatform/workspaceapi/shared/roundtrip"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Bounds are how long storage may take before a request gives up on it: an
// attempt of a call (a hung connection is cut), and a call with its retries
// and their back-off.
type Bounds struct {
	Attempt, Call time.Duration
}

// ProductionBounds are every client's (ClientFromConfig). A request must
// answer 503 within 3 seconds when the table cannot be reached or keeps
// throttling, never run into its Lambda timeout. DynamoDB answers in
// milliseconds; these bounds only ever bite on a failing dependency.
var ProductionBounds = Bounds{Attempt: 1500 * time.Millisecond, Call: 2 * time.Second}

// maxAttempts and maxBackoff let a throttled call try three times within
// its budget.
const (
	maxAttempts = 3
	maxBackoff  = 300 * time.Millisecond
)

// resilient is the client option every DynamoDB client of the service gets
// (ClientFromConfig): ProductionBounds, bounded retries, and errors that mean
// "unavailable" turned into workspace.ErrStorageUnavailable (the 503 every
// layer understands) while keeping the SDK's error in the chain for the code
// that inspects it. It also counts each attempt, from its start to its
// answer, in the request's round trips (package roundtrip), for the request
// log.
func resilient(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = maxAttempts
		so.MaxBackoff = maxBackoff
	})
	WithBounds(ProductionBounds)(o)
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		// After the retry middleware: one count per attempt on the wire.
		return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("CountRequestRoundTrips",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
				middleware.FinalizeOutput, middleware.Metadata, error) {
				defer roundtrip.Begin(ctx)()
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	})
}

// WithBounds returns a client option that bounds its attempts and calls by
// b, in place of the bounds it had. Only tests against DynamoDB Local relax
// them: it queues transactions on one item that DynamoDB would cancel, so
// under load a legitimate wait there can outlast ProductionBounds.
func WithBounds(b Bounds) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.HTTPClient = awshttp.NewBuildableClient().WithTimeout(b.Attempt)
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			_, _ = s.Initialize.Remove(storageBudgetID)
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc(storageBudgetID,
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					callCtx, cancel := context.WithTimeout(ctx, b.Call)
					defer cancel()
					out, md, err := next.HandleInitialize(callCtx, in)
					if err != nil && ctx.Err() == nil && unavailable(err) {
						slog.WarnContext(ctx, "DynamoDB unavailable", "operation", middleware.GetOperationName(ctx), "error", err)
						err = &unavailableError{cause: err}
					}
					return out, md, err
				}), middleware.Before)
		})
	}
}

// storageBudgetID names the middleware that bounds a call and classifies
// its failure.
const storageBudgetID = "StorageBudget"

// unavailable reports whether err means the table could not serve the call
// now (throttling, a 5xx, a timeout, a refused or broken connection, the
// retry quota spent), as opposed to a refusal of the request itself (a
// failed condition, a cancelled transaction, a validation error).
func unavailable(err error) bool {
	var quota *ratelimit.QuotaExceededError
	if errors.As(err, &quota) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	return retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err) == aws.TrueTernary
}

// unavailableError is a DynamoDB error that means the storage is
// unavailable. It shows callers workspace.ErrStorageUnavailable's message
// and unwraps to both that and the SDK's error.
type unavailableError struct{ cause error }

// Error returns the caller-facing message; the cause is logged where it
// happened.
func (e *unavailableError) Error() string { return workspace.ErrStorageUnavailable.Error() }

// Unwrap returns the domain error and the SDK's.
func (e *unavailableError) Unwrap() []error {
	return []error{workspace.ErrStorageUnavailable, e.cause}
}
