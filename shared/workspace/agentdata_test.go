package workspace

import (
	"reflect"
	"testing"
	"time"
)

func TestDiaryMonthDaysListsDaysWithEntriesAscending(t *testing.T) {
	month := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		counts map[int]float64
		want   []DiaryDay
	}{
		{"no entries: an empty list", nil, []DiaryDay{}},
		{"days in order, empty days left out", map[int]float64{28: 1, 1: 3}, []DiaryDay{{"2026-02-01", 3}, {"2026-02-28", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var counts [32]float64
			for d, n := range tc.counts {
				counts[d] = n
			}
			if got := DiaryMonthDays(month, counts); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDailySpendGivesEveryDayOfTheRangeAcrossMonths(t *testing.T) {
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 15, 0, 0, 0, time.UTC) }
	spent := map[string]map[int]float64{"2026-01": {31: 2.5}, "2026-02": {1: 1}}
	lookup := func(month string, d int) float64 { return spent[month][d] }
	tests := []struct {
		name     string
		from, to time.Time
		want     []DayUsage
	}{
		{"one day", day(1, 31), day(1, 31), []DayUsage{{"2026-01-31", 2.5}}},
		{"across a month end, 0 without usage", day(1, 30), day(2, 2),
			[]DayUsage{{"2026-01-30", 0}, {"2026-01-31", 2.5}, {"2026-02-01", 1}, {"2026-02-02", 0}}},
		{"to before from: none", day(2, 2), day(2, 1), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DailySpend(tc.from, tc.to, lookup); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
