package upgrade_test

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/release"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// release2Usage sums release 2.0.0's month counters of workspace ws in
// month: the workspace's (WS#<ws>#USAGE) and each team's
// (WS#<ws>#TEAMDATA#<team>), USAGE#<month>#<shard> each.
func release2Usage(items []map[string]types.AttributeValue, ws, month string) (total float64, teams map[string]float64) {
	teams = map[string]float64{}
	str := func(it map[string]types.AttributeValue, a string) string {
		v, _ := it[a].(*types.AttributeValueMemberS)
		if v == nil {
			return ""
		}
		return v.Value
	}
	for _, it := range items {
		pk, sk := str(it, "PK"), str(it, "SK")
		if !strings.HasPrefix(sk, "USAGE#"+month+"#") {
			continue
		}
		n, _ := it["total"].(*types.AttributeValueMemberN)
		if n == nil {
			continue
		}
		v, _ := strconv.ParseFloat(n.Value, 64)
		switch team, isTeam := strings.CutPrefix(pk, "WS#"+ws+"#TEAMDATA#"); {
		case pk == "WS#"+ws+"#USAGE":
			total += v
		case isTeam:
			teams[team] += v
		}
	}
	return total, teams
}

// A stack of release 2.0.0 upgrades: the migration step usage-shards folds
// its month counters into the usage shards, and the month's usage reads
// exactly as release 2.0.0 counted it, for the workspace and each team.
func TestAStackOfRelease2KeepsItsMonthUsage(t *testing.T) {
	// testdata/v2.0.0.jsonl: the release-1 table migrated, then changed
	// through release 2.0.0's API and ingest path.
	env, items := releaseTable(t, "testdata/v2.0.0.jsonl")
	month := workspace.MonthKey(env.Clock.Now())
	wantTotal, wantTeams := release2Usage(items, "ws_acme", month)
	if wantTotal == 0 || len(wantTeams) == 0 {
		t.Fatalf("release 2.0.0's table has no usage in %s: total %v, teams %v", month, wantTotal, wantTeams)
	}
	resp := customResource(t, env, "Update", release.Version, "2.0.0")
	if resp.Status != "SUCCESS" || resp.Data["Pending"] != "false" || resp.Data["Layout"] != "4" {
		t.Fatalf("update: %+v", resp)
	}
	report := func() (float64, map[string]float64) {
		t.Helper()
		res := env.Do(t, "GET", "/workspaceapi/credits", adminKey, "")
		if res.Status != 200 {
			t.Fatalf("credits report: %d %s", res.Status, res.Body)
		}
		var r struct {
			TotalCredits float64
			Teams        []struct {
				ID          string
				CreditsUsed float64
			}
		}
		res.JSON(t, &r)
		teams := map[string]float64{}
		for _, tm := range r.Teams {
			teams[tm.ID] = tm.CreditsUsed
		}
		return r.TotalCredits, teams
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	check := func(when string) {
		t.Helper()
		total, teams := report()
		if !near(total, wantTotal) {
			t.Errorf("%s: total %v, want %v as release 2.0.0 counted", when, total, wantTotal)
		}
		for team, want := range wantTeams {
			if !near(teams[team], want) {
				t.Errorf("%s: team %s used %v, want %v", when, team, teams[team], want)
			}
			var d struct{ CreditsThisMonth float64 }
			res := env.Do(t, "GET", "/workspaceapi/teams/"+team, adminKey, "")
			res.JSON(t, &d)
			if res.Status != 200 || !near(d.CreditsThisMonth, want) {
				t.Errorf("%s: team %s detail %d, %v this month; want %v", when, team, res.Status, d.CreditsThisMonth, want)
			}
		}
	}
	check("migrated")

	// Run again (the schedule, a second deploy): nothing moves twice.
	states, err := env.Store.MigrationStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again := customResource(t, env, "Update", release.Version, "2.0.0"); again.Status != "SUCCESS" {
		t.Fatalf("again: %+v", again)
	}
	after, err := env.Store.MigrationStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != 4 || after[3].Changed != states[3].Changed || states[3].Changed == 0 {
		t.Errorf("usage-shards: %+v, then %+v", states, after)
	}
	check("after a second run")
}
