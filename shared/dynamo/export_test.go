package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// MetricRecordItems encodes records of one metric of an agent, with the day
// summaries and the total the ingest path would have made, for a bulk load
// (tableops.PutItems): benchmarks with far more records than the
// transactional path loads in reasonable time.
func MetricRecordItems(ws, agent string, recs []workspace.MetricRecord) ([]map[string]types.AttributeValue, error) {
	var items []item
	days := map[string]*workspace.MetricTotals{}
	for _, r := range recs {
		raw, err := marshal(toRecordItem(ws, agent, r))
		if err != nil {
			return nil, err
		}
		items = append(items, raw)
		d := workspace.DayKey(r.OccurredAt)
		if days[d] == nil {
			days[d] = &workspace.MetricTotals{}
		}
		days[d].AddRecord(r)
	}
	metric := recs[0].Metric
	for d, t := range days {
		raw, err := marshal(metricSumItem{keys: keys{PK: metricPK(ws, agent, metric), SK: metricDaySK(d), Entity: typeMetricDay},
			Count: t.Count, ValueCount: t.ValueCount, Sum: t.Sum})
		if err != nil {
			return nil, err
		}
		items = append(items, raw)
	}
	raw, err := marshal(metricSumItem{keys: keys{PK: metricPK(ws, agent, metric), SK: skMetricTotal, Entity: typeMetricTotal}, Count: len(recs)})
	if err != nil {
		return nil, err
	}
	return append(items, raw), nil
}

// WriteThreshold writes threshold crossing c of target (its marker and its
// event's outbox item) in one transaction, as the credit engine does; it
// reports false when the period's marker was there already.
func (s *Store) WriteThreshold(ctx context.Context, ws string, target workspace.EventTarget, c workspace.Crossing, now time.Time) (bool, error) {
	items, err := s.thresholdPuts(ws, target, c, now)
	if err != nil {
		return false, err
	}
	failed, err := s.transact(ctx, items)
	return len(failed) == 0, err
}

// WithResumePace returns a store over the same table whose scheduler starts
// at most perWorkspace resumes of one workspace a second and stops starting
// them stopMargin before its context's deadline (0 keeps the default).
func (s *Store) WithResumePace(perWorkspace float64, stopMargin time.Duration) *Store {
	c := *s
	c.resumePace = resumePace{perWorkspace: perWorkspace, stopMargin: stopMargin}
	return &c
}

// SchedulerPace is the scheduler's pace (scheduler.go), for the model of a
// run at scale.
var SchedulerPace = struct {
	RunRate, WorkspaceRate float64
	Concurrency, Readers   int
	StopMargin             time.Duration
	ResumeShards           int
}{runResumeRate, workspaceResumeRate, resumeConcurrency, resumeReaders, resumeStopMargin, resumeShards}
