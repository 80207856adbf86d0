package limitevents

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
)

// MaxRecorded is how many events a Recorder keeps: the newest ones. A
// runner left going for days must not grow without bound.
const MaxRecorded = 1000

// Published is one event a Recorder took, as `GET /_local/events` lists it.
type Published struct {
	DetailType string          `json:"detail-type"`
	Detail     json.RawMessage `json:"detail"`
}

// Recorder is an in-memory EventBridge bus behind Bus, where EventBridge
// cannot run (the local runner, sam local, tests): it keeps the last
// MaxRecorded events it took and logs every one. Fail, when set, makes it
// refuse entries as PutEvents does in part (FailedEntryCount and each
// refused entry's ErrorCode), so the publisher's retries can be tested. Its
// zero value is ready to use, and safe for concurrent use.
type Recorder struct {
	Logger *slog.Logger // nil: slog.Default()

	mu   sync.Mutex
	fail func(types.PutEventsRequestEntry) bool
	took []Published
}

// SetFail makes the recorder refuse the entries fail reports true for (nil:
// take every entry again).
func (r *Recorder) SetFail(fail func(types.PutEventsRequestEntry) bool) {
	r.mu.Lock()
	r.fail = fail
	r.mu.Unlock()
}

// PutEvents takes the entries the failure rule lets through, records and
// logs them, and answers as EventBridge does: one result per entry, an
// ErrorCode on each refused one, and their count.
func (r *Recorder) PutEvents(ctx context.Context, in *eventbridge.PutEventsInput, _ ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error) {
	logger := r.Logger
	if logger == nil {
		logger = slog.Default()
	}
	out := &eventbridge.PutEventsOutput{Entries: make([]types.PutEventsResultEntry, len(in.Entries))}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, e := range in.Entries {
		if r.fail != nil && r.fail(e) {
			out.FailedEntryCount++
			out.Entries[i] = types.PutEventsResultEntry{ErrorCode: aws.String("InternalFailure"), ErrorMessage: aws.String("the local bus refused the entry")}
			continue
		}
		if len(r.took) == MaxRecorded {
			// Shift rather than reslice, so the dropped events are freed.
			copy(r.took, r.took[1:])
			r.took = r.took[:MaxRecorded-1]
		}
		r.took = append(r.took, Published{DetailType: aws.ToString(e.DetailType), Detail: json.RawMessage(aws.ToString(e.Detail))})
		out.Entries[i] = types.PutEventsResultEntry{EventId: aws.String(aws.ToString(e.DetailType) + "-" + strconv.Itoa(len(r.took)))}
		logger.InfoContext(ctx, "limit event recorded (not sent to EventBridge)", "detailType", aws.ToString(e.DetailType), "detail", aws.ToString(e.Detail))
	}
	return out, nil
}

// Events returns the events taken (the last MaxRecorded), oldest first.
func (r *Recorder) Events() []Published {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Published{}, r.took...)
}
