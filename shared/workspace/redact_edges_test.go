package workspace

import (
	"testing"
	"time"
)

// A period starts no earlier than 1970 (its previous period then always
// has the same length, docs/agent-data.md), and bounds keep milliseconds, as
// records' times do.
func TestMetricPeriodBounds(t *testing.T) {
	start := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := MetricPeriod(MetricPeriodQuery{StartDate: &start, EndDate: &end}, end); KindOf(err) != KindInvalid {
		t.Errorf("startDate in 1000: %v, want a KindInvalid error", err)
	}
	start = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	p, err := MetricPeriod(MetricPeriodQuery{StartDate: &start, EndDate: &end}, end)
	if err != nil {
		t.Fatal(err)
	}
	if prev := p.Previous(); prev.End.Sub(prev.Start) != p.End.Sub(p.Start) {
		t.Errorf("previous period %v is not as long as %v", prev, p)
	}
	fine := time.Date(2026, 1, 1, 12, 0, 0, 300_000, time.UTC)
	p, _ = MetricPeriod(MetricPeriodQuery{StartDate: &fine}, end.AddDate(0, 1, 0))
	if !p.Start.Equal(fine.Truncate(time.Millisecond)) {
		t.Errorf("start %v, want it truncated to the millisecond", p.Start)
	}
}
