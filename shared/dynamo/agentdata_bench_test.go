package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// BenchmarkKeyMetricsRead reads a 365-day key-metrics report (period ending
// at a time of day, so both ends are partial days) whose period holds n
// records of one metric, spread evenly. items/op is the items read: it
// must stay under 2,000 and flat as n grows, since whole days come from
// summaries and only the partial days from records.
func BenchmarkKeyMetricsRead(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n, "records"), func(b *testing.B) {
			store, rt, agents := benchWorkspace(b, 1)
			agent := agents[0]
			agent.KeyMetrics = []workspace.KeyMetricDefinition{{Name: "resolved", Measurement: workspace.Measurement{Unit: "min", Aggregation: "average"}}}
			end := time.Date(2026, 11, 21, 13, 37, 0, 0, time.UTC)
			p := workspace.Period{Start: end.Add(-365 * workspace.Day), End: end}
			step := p.Length() / time.Duration(n)
			recs := make([]workspace.MetricRecord, n)
			for i := range recs {
				v := float64(i % 50)
				recs[i] = workspace.MetricRecord{ID: fmt.Sprint("r", i), Metric: "resolved", OccurredAt: p.Start.Add(time.Duration(i) * step), Value: &v}
			}
			ctx := context.Background()
			if err := bulkLoadMetricRecords(ctx, store, "ws1", agent.ID, recs); err != nil {
				b.Fatal(err)
			}
			var items int
			rt.Reset()
			b.ResetTimer()
			for b.Loop() {
				rep, err := store.KeyMetrics(ctx, "ws1", agent, p, 10)
				if err != nil {
					b.Fatal(err)
				}
				if got := rep.Metrics[0].Current.Count; got != n {
					b.Fatalf("count %d, want %d", got, n)
				}
				items = rep.ItemsRead
			}
			b.ReportMetric(float64(items), "items/op")
			b.ReportMetric(float64(rt.Count())/float64(b.N), "roundtrips/op")
			if items >= 2000 {
				b.Errorf("read %d items, over the budget of 2,000", items)
			}
		})
	}
}
