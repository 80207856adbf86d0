package ingest

import (
	"fmt"
	"time"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// RedriveMargin is how long before its marker may expire a usage event stops
// being moved back from the dead-letter queue: more than a moved event needs to
// be applied or dead-lettered again (five receives of at most an hour's
// visibility timeout each).
const RedriveMargin = 2 * 24 * time.Hour

// Redrive says whether an event taken from the ingest dead-letter queue may be
// sent to the ingest queue again at now without any chance of counting twice,
// and why not when it may not.
//
// A moved message is a new message to SQS, with a new retention period, so
// only the service's own records keep it from applying twice. Chat messages,
// diary entries, metric records and provisioning events are idempotent by
// their own items and versions, whenever they come. A credits.used event is
// recognised by its marker, which lives dynamo.EventDedupWindow from the
// delivery that applied it; that delivery came at or after the usage's
// occurredAt less workspace.MaxUsageSkew. So usage whose occurredAt is within
// the window less RedriveMargin still has its marker, if it ever applied, and
// older usage is held back: nobody can tell any more whether it was counted.
// A body the function would refuse is held back too, with the reason.
func Redrive(body []byte, now time.Time) (ok bool, why string) {
	ev, err := Parse(body)
	if err != nil {
		return false, "the ingest function refuses it: " + workspace.RedactKeys(err.Error())
	}
	if ev.Usage == nil {
		return true, ""
	}
	oldest := now.Add(-(dynamo.EventDedupWindow - RedriveMargin))
	if ev.Usage.OccurredAt.Before(oldest) {
		return false, fmt.Sprintf("usage that occurred at %s, more than %s ago: if it was applied, its marker may be gone, and it would count twice",
			workspace.FormatTime(ev.Usage.OccurredAt), dynamo.EventDedupWindow-RedriveMargin)
	}
	return true, ""
}
