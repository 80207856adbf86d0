package workspace

import (
	"testing"
	"time"
)

func TestMetricPeriod(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 30, 0, 0, time.UTC)
	at := func(s string) *time.Time { v, _ := time.Parse(time.RFC3339, s); return &v }
	n := func(i int) *int { return &i }
	tests := []struct {
		name       string
		q          MetricPeriodQuery
		start, end string
		invalid    bool
	}{
		{"default: 30 × 24 h ending now", MetricPeriodQuery{}, "2026-10-22T12:30:00Z", "2026-11-21T12:30:00Z", false},
		{"days ending at endDate", MetricPeriodQuery{Days: n(1), EndDate: at("2026-11-01T00:00:00Z")}, "2026-10-31T00:00:00Z", "2026-11-01T00:00:00Z", false},
		{"startDate wins over days", MetricPeriodQuery{Days: n(5), StartDate: at("2026-11-20T00:00:00Z")}, "2026-11-20T00:00:00Z", "2026-11-21T12:30:00Z", false},
		{"startDate equal to endDate: an empty period", MetricPeriodQuery{StartDate: at("2026-11-20T00:00:00Z"), EndDate: at("2026-11-20T00:00:00Z")}, "2026-11-20T00:00:00Z", "2026-11-20T00:00:00Z", false},
		{"startDate after endDate: invalid", MetricPeriodQuery{StartDate: at("2026-11-21T00:00:00Z"), EndDate: at("2026-11-20T00:00:00Z")}, "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := MetricPeriod(tc.q, now)
			if tc.invalid {
				if KindOf(err) != KindInvalid {
					t.Fatalf("err = %v, want invalid", err)
				}
				return
			}
			if err != nil || FormatTime(p.Start) != FormatTime(*at(tc.start)) || FormatTime(p.End) != FormatTime(*at(tc.end)) {
				t.Fatalf("got %v–%v, %v; want %s–%s", p.Start, p.End, err, tc.start, tc.end)
			}
		})
	}
}

func TestPeriodIsHalfOpenAndPreviousIsAdjacent(t *testing.T) {
	p := Period{Start: time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 3, 6, 0, 0, 0, time.UTC)}
	if !p.Contains(p.Start) || p.Contains(p.End) || !p.Contains(p.End.Add(-time.Millisecond)) {
		t.Error("a record at start is in, at end is out")
	}
	prev := p.Previous()
	if !prev.End.Equal(p.Start) || prev.Length() != p.Length() || prev.Contains(p.Start) {
		t.Errorf("previous = %v", prev)
	}
}

func TestPeriodSplit(t *testing.T) {
	d := func(day, hour int) time.Time { return time.Date(2026, 11, day, hour, 0, 0, 0, time.UTC) }
	tests := []struct {
		name               string
		p                  Period
		wholeFrom, wholeTo time.Time
		partials           int
	}{
		{"midnight to midnight: whole days only", Period{d(1, 0), d(4, 0)}, d(1, 0), d(4, 0), 0},
		{"partial ends on both sides", Period{d(1, 6), d(4, 6)}, d(2, 0), d(4, 0), 2},
		{"inside one day: records only", Period{d(1, 6), d(1, 9)}, d(2, 0), d(2, 0), 1},
		{"across one midnight, no whole day", Period{d(1, 6), d(2, 6)}, d(2, 0), d(2, 0), 1},
		{"empty", Period{d(1, 6), d(1, 6)}, d(2, 0), d(2, 0), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.p.Split()
			if !s.WholeFrom.Equal(tc.wholeFrom) || !s.WholeTo.Equal(tc.wholeTo) || len(s.Partial) != tc.partials {
				t.Fatalf("split = %+v", s)
			}
			covered := s.WholeTo.Sub(s.WholeFrom)
			for _, q := range s.Partial {
				covered += q.Length()
			}
			if covered != tc.p.Length() {
				t.Errorf("split covers %v of %v", covered, tc.p.Length())
			}
		})
	}
}

func TestAggregate(t *testing.T) {
	tot := MetricTotals{Count: 3, ValueCount: 2, Sum: 10}
	if v := Aggregate(AggregationSum, tot); v == nil || *v != 10 {
		t.Errorf("sum = %v", v)
	}
	if v := Aggregate(AggregationAverage, tot); v == nil || *v != 5 {
		t.Errorf("average = %v", v)
	}
	if v := Aggregate(AggregationAverage, MetricTotals{Count: 2}); v != nil {
		t.Errorf("no values: %v, want nil", *v)
	}
}

func TestConnect(t *testing.T) {
	me := Agent{ID: "me", TeamID: "t1", Connections: []string{"out_private", "out_other_team", "gone"}}
	all := []Agent{
		me,
		{ID: "out_private", TeamID: "t1", IsPrivate: true, AgentDiscoverability: DiscoverabilityWorkspace},
		{ID: "out_other_team", TeamID: "t2", AgentDiscoverability: DiscoverabilityWorkspace},
		{ID: "in_only", TeamID: "t2", AgentDiscoverability: DiscoverabilityWorkspace, Connections: []string{"me"}},
		{ID: "team_same", TeamID: "t1", AgentDiscoverability: DiscoverabilityTeam},
		{ID: "team_other", TeamID: "t2", AgentDiscoverability: DiscoverabilityTeam},
		{ID: "nobody", TeamID: "t1", AgentDiscoverability: DiscoverabilityNone},
		{ID: "private", TeamID: "t1", IsPrivate: true, AgentDiscoverability: DiscoverabilityWorkspace},
	}
	ids := func(as []Agent) (out []string) {
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	c := Connect(me, all, all)
	if got := ids(c.Outbound); len(got) != 2 || got[0] != "out_private" || got[1] != "out_other_team" {
		t.Errorf("outbound = %v: real connections include private agents and other teams", got)
	}
	if got := ids(c.Inbound); len(got) != 1 || got[0] != "in_only" {
		t.Errorf("inbound = %v", got)
	}
	if got := ids(c.Available); len(got) != 2 || got[0] != "in_only" || got[1] != "team_same" {
		t.Errorf("available = %v: inbound-only is available; not self, outbound, private, undiscoverable", got)
	}
	if got := ids(Connect(me, all, all[4:5]).Available); len(got) != 1 || got[0] != "team_same" {
		t.Errorf("available outside the key's scope: %v", got)
	}
}

func TestAPeriodThatWouldReachPast9999EndsThere(t *testing.T) {
	late := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	start := time.Date(9999, 12, 30, 0, 0, 0, 0, time.UTC)
	one := 1
	for _, tc := range []struct {
		name       string
		q          MetricPeriodQuery
		start, end time.Time
	}{
		{"an end past 9999 ends at the last instant", MetricPeriodQuery{StartDate: &start, EndDate: &late}, start, LatestTime},
		{"a lookback from past 9999 ends there too", MetricPeriodQuery{EndDate: &late, Days: &one}, LatestTime.Add(-Day), LatestTime},
		{"a start past 9999 starts at the last instant", MetricPeriodQuery{StartDate: &late, EndDate: &late}, LatestTime, LatestTime},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := MetricPeriod(tc.q, start)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Start.Equal(tc.start) || !p.End.Equal(tc.end) {
				t.Errorf("period [%s, %s), want [%s, %s)", FormatTime(p.Start), FormatTime(p.End), FormatTime(tc.start), FormatTime(tc.end))
			}
		})
	}
}

func TestMergePeriodsJoinsTouchingAndOverlapping(t *testing.T) {
	at := func(h int) time.Time {
		return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Hour)
	}
	p := func(a, b int) Period { return Period{Start: at(a), End: at(b)} }
	tests := []struct {
		name     string
		in, want []Period
	}{
		{"none", nil, nil},
		{"apart stay apart, sorted", []Period{p(5, 6), p(1, 2)}, []Period{p(1, 2), p(5, 6)}},
		{"touching join", []Period{p(2, 4), p(1, 2)}, []Period{p(1, 4)}},
		{"overlapping join", []Period{p(1, 3), p(2, 4)}, []Period{p(1, 4)}},
		{"contained is absorbed", []Period{p(1, 5), p(2, 3)}, []Period{p(1, 5)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MergePeriods(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if !got[i].Start.Equal(tc.want[i].Start) || !got[i].End.Equal(tc.want[i].End) {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestMetricReadsCountEachDayAndRecordInItsPeriod(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	// Two days and a half; the period before starts on day 8 at midnight.
	p := Period{Start: day(10).Add(12 * time.Hour), End: day(13)}
	r := p.Reads()
	if !r.Days.Start.Equal(day(8)) || !r.Days.End.Equal(day(13)) {
		t.Fatalf("got days %v–%v, want %v–%v", r.Days.Start, r.Days.End, day(8), day(13))
	}
	if len(r.Partial) != 1 || !r.Partial[0].Start.Equal(day(10)) || !r.Partial[0].End.Equal(day(11)) {
		t.Fatalf("got partial stretches %v, want day 10 alone (its two halves joined)", r.Partial)
	}
	one := MetricTotals{Count: 1}
	tests := []struct {
		name           string
		day            *time.Time
		rec            time.Time
		wantCur, wantP int
	}{
		{"a whole day of the period", &[]time.Time{day(11)}[0], time.Time{}, 1, 0},
		{"a whole day of the period before", &[]time.Time{day(9)}[0], time.Time{}, 0, 1},
		{"a record in the period's first half day", nil, day(10).Add(13 * time.Hour), 1, 0},
		{"a record in the previous period's last half day", nil, day(10).Add(11 * time.Hour), 0, 1},
		{"a record outside both", nil, day(13).Add(time.Hour), 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f MetricFigures
			if tc.day != nil {
				r.AddDay(&f, *tc.day, one)
			} else {
				r.AddRecord(&f, MetricRecord{OccurredAt: tc.rec})
			}
			if f.Current.Count != tc.wantCur || f.Previous.Count != tc.wantP {
				t.Fatalf("got current %d previous %d, want %d and %d", f.Current.Count, f.Previous.Count, tc.wantCur, tc.wantP)
			}
		})
	}
}
