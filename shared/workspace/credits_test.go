package workspace_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func limit(v float64) *float64 { return &v }

var (
	stoppedDaily   = workspace.AgentState{Status: "stopped", Reason: "daily_limit"}
	stoppedMonthly = workspace.AgentState{Status: "stopped", Reason: "monthly_limit"}
	pausedTeam     = workspace.AgentState{Status: "paused", Reason: "team_limit"}
)

// The running states of docs/credit-rules.md.
func TestCreditLimitsHoldAgentsBack(t *testing.T) {
	tests := []struct {
		name string
		pos  workspace.CreditPosition
		want workspace.AgentState
	}{
		{"no limits: running", workspace.CreditPosition{Today: 1e6, Month: 1e6, TeamMonth: 1e6}, workspace.Running},
		{"below the daily limit: running", workspace.CreditPosition{DailyLimit: limit(10), Today: 9.99}, workspace.Running},
		{"usage reaches the daily limit: stopped", workspace.CreditPosition{DailyLimit: limit(10), Today: 10}, stoppedDaily},
		{"usage past the daily limit: stopped", workspace.CreditPosition{DailyLimit: limit(10), Today: 12}, stoppedDaily},
		{"the workspace default applies without an own limit", workspace.CreditPosition{DefaultDailyLimit: limit(5), Today: 5}, stoppedDaily},
		{"the agent's own limit beats the default", workspace.CreditPosition{DailyLimit: limit(8), DefaultDailyLimit: limit(5), Today: 6}, workspace.Running},
		{"a daily limit of 0 stops at once", workspace.CreditPosition{DailyLimit: limit(0)}, stoppedDaily},
		{"usage reaches the monthly limit: stopped", workspace.CreditPosition{MonthlyLimit: limit(100), Month: 100}, stoppedMonthly},
		{"the team's month usage reaches its limit: paused", workspace.CreditPosition{TeamLimit: limit(500), TeamMonth: 500}, pausedTeam},
		{"a new day frees the daily stop", workspace.CreditPosition{DailyLimit: limit(10), Today: 0, Month: 40}, workspace.Running},
		{"a new month frees the monthly stop", workspace.CreditPosition{MonthlyLimit: limit(100), Today: 0, Month: 0}, workspace.Running},
		{"a new month frees the team", workspace.CreditPosition{TeamLimit: limit(500), TeamMonth: 0}, workspace.Running},
		{"a reset of today leaves the monthly stop", workspace.CreditPosition{DailyLimit: limit(10), MonthlyLimit: limit(100), Today: 0, Month: 100}, stoppedMonthly},
		{"monthly outlasts daily", workspace.CreditPosition{DailyLimit: limit(10), MonthlyLimit: limit(100), Today: 10, Month: 100}, stoppedMonthly},
		{"team outlasts monthly and daily", workspace.CreditPosition{DailyLimit: limit(10), MonthlyLimit: limit(100), Today: 10, Month: 100,
			TeamLimit: limit(50), TeamMonth: 50}, pausedTeam},
		{"a raised team limit resumes", workspace.CreditPosition{TeamLimit: limit(600), TeamMonth: 500}, workspace.Running},
		{"a removed team limit resumes", workspace.CreditPosition{TeamLimit: nil, TeamMonth: 500}, workspace.Running},
		{"a team limit set at the usage pauses", workspace.CreditPosition{TeamLimit: limit(500), TeamMonth: 500}, pausedTeam},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.pos.State(); got != tc.want {
				t.Errorf("State() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestImpactIsTheNewStateOnlyWhenItChanged(t *testing.T) {
	if got := workspace.Impact(workspace.Running, workspace.Running); got != nil {
		t.Errorf("Impact(running, running) = %+v, want nil", got)
	}
	if got := workspace.Impact(stoppedDaily, workspace.Running); got == nil || *got != workspace.Running {
		t.Errorf("Impact(stopped, running) = %v, want running", got)
	}
}

func TestUsagePeriodsAreUTCDaysAndMonths(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 30, 0, 0, time.FixedZone("UTC+1", 3600)) // 23:30 UTC on Nov 30
	if d, m := workspace.DayKey(at), workspace.MonthKey(at); d != "2026-11-30" || m != "2026-11" {
		t.Errorf("DayKey, MonthKey = %s, %s; want 2026-11-30, 2026-11", d, m)
	}
}

func TestAgentPositionCountsTodayWhatCountsTowardTheDailyLimit(t *testing.T) {
	var counted [32]float64
	counted[20], counted[21] = 3, 0 // day 21 was reset
	a := workspace.Agent{DailyCreditLimit: limit(4), MonthlyCreditLimit: limit(50)}
	tests := []struct {
		name      string
		now       time.Time
		wantToday float64
	}{
		{"today's counted usage", time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC), 3},
		{"a reset day counts nothing", time.Date(2026, 11, 21, 1, 0, 0, 0, time.UTC), 0},
		{"the UTC day, whatever now's zone", time.Date(2026, 11, 21, 1, 0, 0, 0, time.FixedZone("x", -3*3600)), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := workspace.AgentPosition(a, limit(9), 12, counted, tc.now)
			if got.Today != tc.wantToday || got.Month != 12 || *got.DailyLimit != 4 || *got.DefaultDailyLimit != 9 || *got.MonthlyLimit != 50 {
				t.Fatalf("got %+v, want today %v, month 12 and the limits as given", got, tc.wantToday)
			}
		})
	}
}

func TestAgentCreditsLineShowsTodayOnlyForTheCurrentMonth(t *testing.T) {
	credit := workspace.AgentCredit{Position: workspace.CreditPosition{Today: 2, Month: 7}}
	tests := []struct {
		name             string
		current          bool
		wantToday, wantM float64
	}{
		{"current month: the standing's figures", true, 2, 7},
		{"another month: its total, nothing today", false, 0, 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := workspace.AgentCreditsLine(workspace.Agent{ID: "a"}, credit, tc.current, 30)
			if got.Today != tc.wantToday || got.Month != tc.wantM || got.Agent.ID != "a" || got.Credit != credit {
				t.Fatalf("got %+v, want today %v month %v", got, tc.wantToday, tc.wantM)
			}
		})
	}
}

// Figures are kept to nine decimal places, so DynamoDB's sums of them never
// need more than its 38 digits, and to the 15 significant digits sums are
// compared in, so a limit can be reached exactly; -0 is 0.
func TestFiguresAreKeptToNineDecimalPlaces(t *testing.T) {
	for _, tc := range []struct {
		in, want float64
	}{
		{0.1, 0.1},
		{0.7, 0.7},
		{0.123456789, 0.123456789},
		{0.1234567891234, 0.123456789},
		{0.0000000005, 0.000000001},
		{1e-200, 0},
		{math.Copysign(0, -1), 0},
		{-2.5, -2.5},
		{1e12, 1e12},
		{999999999999.123456789, 999999999999.123},
		{1000000.000000001, 1000000},
		{123456.123456789, 123456.123456789},
	} {
		got := workspace.RoundFigure(tc.in)
		if got != tc.want || math.Signbit(got) != math.Signbit(tc.want) {
			t.Errorf("RoundFigure(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
}

// Usage of any credits above 0 counts, at least the least figure kept.
func TestUsageCountsAtLeastTheLeastFigureKept(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{1e-200, 1e-9}, {1e-10, 1e-9}, {1.4e-9, 1e-9}, {1.6e-9, 2e-9}, {0.5, 0.5}, {1e12, 1e12},
	} {
		if got := workspace.UsageCredits(tc.in); got != tc.want {
			t.Errorf("UsageCredits(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
}

func TestCreditFiguresAndMetricValuesHaveBounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		wantText string
	}{
		{"a limit of 0", workspace.CheckCredits("limit", 0, false), ""},
		{"a limit of -0", workspace.CheckCredits("limit", math.Copysign(0, -1), false), ""},
		{"a limit past the maximum", workspace.CheckCredits("limit", 1e12+1, false), "limit must be at most 1e+12"},
		{"credits of the least figure kept", workspace.CheckCredits("credits", 1e-9, true), ""},
		{"credits below it, counted as it", workspace.CheckCredits("credits", 1e-200, true), ""},
		{"credits of 0", workspace.CheckCredits("credits", 0, true), "credits must be greater than 0"},
		{"a metric value at the maximum", workspace.CheckMetricValue("value", -1e15), ""},
		{"a metric value past it", workspace.CheckMetricValue("value", 1.0000001e15), "value must be a number from -1e+15 to 1e+15"},
		{"a metric value of NaN", workspace.CheckMetricValue("value", math.NaN()), "value must be a number"},
	} {
		switch {
		case tc.wantText == "" && tc.err != nil:
			t.Errorf("%s: got %v, want no error", tc.name, tc.err)
		case tc.wantText != "" && (tc.err == nil || tc.err.Error() != tc.wantText && !strings.HasPrefix(tc.err.Error(), tc.wantText)):
			t.Errorf("%s: got %v, want %q", tc.name, tc.err, tc.wantText)
		}
	}
}
