package workspace

import "time"

// Bounds of GET .../key-metrics (docs/agent-data.md).
const (
	MinMetricDays     = 1
	MaxMetricDays     = 365
	DefaultMetricDays = 30
	MaxMetricRecent   = 500
)

// Day is the length of a UTC calendar day.
const Day = 24 * time.Hour

// Period is a half-open interval of time, [Start, End) (docs/agent-data.md).
type Period struct {
	Start, End time.Time
}

// Length is the period's duration.
func (p Period) Length() time.Duration { return p.End.Sub(p.Start) }

// Contains reports whether t lies in [Start, End).
func (p Period) Contains(t time.Time) bool { return !t.Before(p.Start) && t.Before(p.End) }

// Previous is the period of equal length just before p: [Start − length, Start).
func (p Period) Previous() Period { return Period{Start: p.Start.Add(-p.Length()), End: p.Start} }

// EarliestMetricTime is the earliest bound a key-metrics period may have.
var EarliestMetricTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// LatestTime is the last instant the API speaks of, to the millisecond
// timestamps keep: every date and time parameter takes years up to 9999,
// and a period that would reach past it ends there (docs/bounds.md), so no
// bound read from storage or answered ever has a five-digit year.
var LatestTime = time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC)

// NotAfterLatest returns t, or LatestTime when t is later.
func NotAfterLatest(t time.Time) time.Time {
	if t.After(LatestTime) {
		return LatestTime
	}
	return t
}

// MetricPeriodQuery is what a key-metrics request says about its period;
// nil: not given.
type MetricPeriodQuery struct {
	Days      *int
	StartDate *time.Time
	EndDate   *time.Time
}

// MetricPeriod resolves a request's period at now (docs/agent-data.md): endDate
// defaults to now; startDate, when given, fixes the start (days is then
// ignored); otherwise the period is days × 24 h (default 30) ending at
// endDate. A start after the end is a KindInvalid error; a start equal to the
// end is an empty period. Bounds are kept to the millisecond, as records'
// times are; a bound before EarliestMetricTime is a KindInvalid error, which
// also keeps every period and its previous one within time.Duration.
func MetricPeriod(q MetricPeriodQuery, now time.Time) (Period, error) {
	end := now.UTC()
	if q.EndDate != nil {
		end = NotAfterLatest(q.EndDate.UTC().Truncate(time.Millisecond))
		if end.Before(EarliestMetricTime) {
			return Period{}, Invalid("endDate must not be before %s", FormatTime(EarliestMetricTime))
		}
	}
	if q.StartDate != nil {
		start := NotAfterLatest(q.StartDate.UTC().Truncate(time.Millisecond))
		if start.Before(EarliestMetricTime) {
			return Period{}, Invalid("startDate must not be before %s", FormatTime(EarliestMetricTime))
		}
		if start.After(end) {
			return Period{}, Invalid("startDate must not be after endDate")
		}
		return Period{Start: start, End: end}, nil
	}
	days := DefaultMetricDays
	if q.Days != nil {
		days = *q.Days
	}
	return Period{Start: end.Add(-time.Duration(days) * Day), End: end}, nil
}

// DayStart is the start of t's UTC day.
func DayStart(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// CeilDay is the first UTC midnight at or after t.
func CeilDay(t time.Time) time.Time {
	s := DayStart(t)
	if s.Equal(t.UTC()) {
		return s
	}
	return s.Add(Day)
}

// MetricSplit is how a period is read from storage: the whole UTC days
// [WholeFrom, WholeTo) from per-day summaries, and the rest, Partial (at
// most two intervals, at either end), from the records themselves.
type MetricSplit struct {
	WholeFrom, WholeTo time.Time // equal: no whole day
	Partial            []Period
}

// Split returns p's split into whole UTC days and partial ends.
func (p Period) Split() MetricSplit {
	from, to := CeilDay(p.Start), DayStart(p.End)
	if !from.Before(to) {
		// No whole day inside: the records of the period itself.
		if p.Start.Before(p.End) {
			return MetricSplit{WholeFrom: from, WholeTo: from, Partial: []Period{p}}
		}
		return MetricSplit{WholeFrom: from, WholeTo: from}
	}
	s := MetricSplit{WholeFrom: from, WholeTo: to}
	if p.Start.Before(from) {
		s.Partial = append(s.Partial, Period{Start: p.Start, End: from})
	}
	if to.Before(p.End) {
		s.Partial = append(s.Partial, Period{Start: to, End: p.End})
	}
	return s
}

// MetricTotals are a metric's figures over some time: records, records with
// a value, and the sum of those values.
type MetricTotals struct {
	Count      int
	ValueCount int
	Sum        float64
}

// Add adds o to t.
func (t *MetricTotals) Add(o MetricTotals) {
	t.Count += o.Count
	t.ValueCount += o.ValueCount
	t.Sum += o.Sum
}

// AddRecord counts one record.
func (t *MetricTotals) AddRecord(r MetricRecord) {
	t.Count++
	if r.Value != nil {
		t.ValueCount++
		t.Sum += *r.Value
	}
}

// Aggregate is the metric's figure for totals under aggregation
// (docs/agent-data.md): the sum, or the average, of the values; nil when no
// record carries a value. An unknown aggregation reads as average.
func Aggregate(aggregation string, t MetricTotals) *float64 {
	if t.ValueCount == 0 {
		return nil
	}
	v := t.Sum
	if aggregation != AggregationSum {
		v = t.Sum / float64(t.ValueCount)
	}
	return &v
}

// MetricFigures are one key metric's figures for a period.
type MetricFigures struct {
	Definition KeyMetricDefinition
	Current    MetricTotals
	Previous   MetricTotals
	// TotalCount is the number of records ever.
	TotalCount int
	// LastRecordedAt is the newest record's time ever; zero when none.
	LastRecordedAt time.Time
	// Recent are the newest records inside the period, newest first.
	Recent []MetricRecord
}

// KeyMetricsReport is an agent's key metrics over a period.
type KeyMetricsReport struct {
	AgentID   string
	AgentName string
	Period    Period
	Metrics   []MetricFigures
	// ItemsRead is how many stored items the report cost (for its budget:
	// O(days), not O(records)).
	ItemsRead int
}
