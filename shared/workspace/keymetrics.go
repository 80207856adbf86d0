package workspace

import (
	"slices"
	"time"
)

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

// NotBeforeEarliest returns t, or EarliestMetricTime when t is earlier:
// nothing the API keeps predates 1970, and a time before it must not read
// as the zero time, which means "not given".
func NotBeforeEarliest(t time.Time) time.Time {
	if t.Before(EarliestMetricTime) {
		return EarliestMetricTime
	}
	return t
}

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

// MetricReads are what a metric's figures for a period and the period
// before it are read from: one range of day summaries, Days, covering both
// periods' whole days (empty when its start is not before its end), and the
// stretches of partial days whose records are read, merged where the two
// periods' stretches touch (the previous period's end is this one's start).
type MetricReads struct {
	Current, Previous MetricSplit
	Days              Period
	Partial           []Period
}

// Reads returns what p's figures and those of the period before it are read
// from.
func (p Period) Reads() MetricReads {
	r := MetricReads{Current: p.Split(), Previous: p.Previous().Split()}
	r.Days = Period{Start: minTime(r.Previous.WholeFrom, r.Current.WholeFrom), End: maxTime(r.Previous.WholeTo, r.Current.WholeTo)}
	r.Partial = MergePeriods(append(slices.Clone(r.Previous.Partial), r.Current.Partial...))
	return r
}

// AddDay adds the summary t of the UTC day starting at day to the figures
// of whichever period holds that whole day.
func (r MetricReads) AddDay(f *MetricFigures, day time.Time, t MetricTotals) {
	if !day.Before(r.Current.WholeFrom) && day.Before(r.Current.WholeTo) {
		f.Current.Add(t)
	}
	if !day.Before(r.Previous.WholeFrom) && day.Before(r.Previous.WholeTo) {
		f.Previous.Add(t)
	}
}

// AddRecord counts rec in the figures of whichever period's partial days
// hold it.
func (r MetricReads) AddRecord(f *MetricFigures, rec MetricRecord) {
	for _, q := range r.Current.Partial {
		if q.Contains(rec.OccurredAt) {
			f.Current.AddRecord(rec)
		}
	}
	for _, q := range r.Previous.Partial {
		if q.Contains(rec.OccurredAt) {
			f.Previous.AddRecord(rec)
		}
	}
}

// MergePeriods sorts ps and joins those that touch or overlap.
func MergePeriods(ps []Period) []Period {
	slices.SortFunc(ps, func(a, b Period) int { return a.Start.Compare(b.Start) })
	var out []Period
	for _, q := range ps {
		if n := len(out); n > 0 && !q.Start.After(out[n-1].End) {
			out[n-1].End = maxTime(out[n-1].End, q.End)
			continue
		}
		out = append(out, q)
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
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
