package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// A 365-day key-metrics report reads whole days from their summaries and
// only the partial first and last days from records, so its items stay
// under the budget of 2,000 and do not grow with the records of the period
// (BenchmarkKeyMetricsRead shows it flat up to 100,000 records).
func TestAKeyMetricsReportReadsDaysNotRecords(t *testing.T) {
	t.Parallel()
	store, _ := dynamolocal.NewStore(t)
	ctx := context.Background()
	end := time.Date(2026, 11, 21, 13, 37, 0, 0, time.UTC)
	p := workspace.Period{Start: end.Add(-365 * workspace.Day), End: end}
	metrics := []workspace.KeyMetricDefinition{{Name: "resolved", Measurement: workspace.Measurement{Unit: "min", Aggregation: "sum"}}}
	items := map[int]int{}
	for _, n := range []int{1_000, 4_000} {
		agent := workspace.Agent{ID: fmt.Sprint("a", n), WorkspaceID: "ws1", Name: "A", AgentDiscoverability: "none", KeyMetrics: metrics}
		if err := tableops.PutSnapshot(ctx, store, tableops.Snapshot{Workspace: workspace.Workspace{ID: "ws1", Name: "W", Seats: 1}, Agents: []workspace.Agent{agent}}, end); err != nil {
			t.Fatal(err)
		}
		step := p.Length() / time.Duration(n)
		var recs []workspace.MetricRecord
		for i := range n {
			v := 1.0
			recs = append(recs, workspace.MetricRecord{ID: fmt.Sprint("r", i), Metric: "resolved", OccurredAt: p.Start.Add(time.Duration(i) * step), Value: &v})
		}
		if err := bulkLoadMetricRecords(ctx, store, "ws1", agent.ID, recs); err != nil {
			t.Fatal(err)
		}
		rep, err := store.KeyMetrics(ctx, "ws1", agent, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Metrics[0].Current.Count; got != n {
			t.Fatalf("count = %d, want %d", got, n)
		}
		items[n] = rep.ItemsRead
		if rep.ItemsRead >= 2000 {
			t.Errorf("%d records: read %d items, over the budget of 2,000", n, rep.ItemsRead)
		}
	}
	// Four times the records adds at most the records of the two partial days.
	if grown := items[4_000] - items[1_000]; grown > 4_000/365*2+4 {
		t.Errorf("items read grew from %d to %d with the records: not O(days)", items[1_000], items[4_000])
	}
}

// bulkLoadMetricRecords writes recs, of one metric of agent, with the
// summaries the ingest path would have made, by BatchWriteItem.
func bulkLoadMetricRecords(ctx context.Context, store *dynamo.Store, ws, agent string, recs []workspace.MetricRecord) error {
	items, err := dynamo.MetricRecordItems(ws, agent, recs)
	if err != nil {
		return err
	}
	return tableops.PutItems(ctx, store, items)
}
