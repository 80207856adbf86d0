package tags_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// scaleMembers and scaleAgents are the largest workspace the service is sized to
// serve: 10,000 members and 10,000 agents, 20 teams.
const (
	scaleMembers = 10_000
	scaleAgents  = 10_000
	scaleTeams   = 20
)

// atScale returns an Env whose ws_a (from fixture(0)) also holds
// scaleMembers members bm_00000... (each in one team, with two tags) and
// scaleAgents agents bg_00000... spread over scaleTeams teams, on a
// DynamoDB Local of its own.
func atScale(b *testing.B) *apitest.Env {
	b.Helper()
	env := apitest.New(b, fixture(0), apitest.Options{OwnDynamoDB: true})
	snap := tableops.Snapshot{Workspace: workspace.Workspace{ID: "ws_a", Name: "Alpha Labs", Seats: scaleMembers + 10, TeamSettingsEnabled: true}}
	for i := range scaleTeams {
		snap.Teams = append(snap.Teams, workspace.Team{ID: fmt.Sprintf("team_s%02d", i), Name: fmt.Sprintf("Scale %02d", i), Tags: []string{}, CreatedAt: apitest.Start})
	}
	for i := range scaleMembers {
		id := fmt.Sprintf("bm_%05d", i)
		snap.Members = append(snap.Members, workspace.Member{ID: id, Email: id + "@alpha.example", Name: "Member " + id,
			Role: workspace.RoleMember, Tags: []string{"scale", fmt.Sprintf("group-%d", i%7)}, JoinedAt: apitest.Start})
		snap.TeamMembers = append(snap.TeamMembers, workspace.TeamMembership{TeamID: fmt.Sprintf("team_s%02d", i%scaleTeams), UserID: id, Role: workspace.TeamRoleMember})
	}
	for i := range scaleAgents {
		id := fmt.Sprintf("bg_%05d", i)
		snap.Agents = append(snap.Agents, workspace.Agent{ID: id, Name: "Agent " + id, TeamID: fmt.Sprintf("team_s%02d", i%scaleTeams),
			AgentDiscoverability: workspace.DiscoverabilityWorkspace, Tags: []string{}})
	}
	start := time.Now()
	if err := tableops.PutSnapshot(b.Context(), env.Store, snap, apitest.Start); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d members and %d agents in %v", scaleMembers, scaleAgents, time.Since(start))
	return env
}

// BenchmarkScale measures, in a workspace of 10,000 members and 10,000
// agents, GET /workspaceapi/members pages (100 and 1,000 members) and a
// 100-id agent tag batch whose every id changes (the tag alternates), end to
// end: gateway, authorizer, function, DynamoDB Local.
func BenchmarkScale(b *testing.B) {
	env := atScale(b)
	for _, limit := range []int{100, 1000} {
		b.Run(fmt.Sprintf("members page of %d", limit), func(b *testing.B) {
			cursor := ""
			for b.Loop() {
				res := env.Do(b, http.MethodGet, fmt.Sprintf("/workspaceapi/members?limit=%d%s", limit, cursor), keyAdmin, "")
				if res.Status != http.StatusOK || res.FunctionTrips != 1 {
					b.Fatalf("status %d after %d round trips", res.Status, res.FunctionTrips)
				}
				var p struct{ NextCursor *string }
				res.JSON(b, &p)
				cursor = ""
				if p.NextCursor != nil {
					cursor = "&cursor=" + *p.NextCursor
				}
			}
		})
	}
	var idList []string
	for i := range 100 {
		idList = append(idList, fmt.Sprintf(`"bg_%05d"`, i*97))
	}
	body := `{"ids": [` + strings.Join(idList, ",") + `], "tags": ["%s"], "mode": "set"}`
	b.Run("agent tag batch of 100 ids", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			res := env.Do(b, http.MethodPost, agentTags, keyAdmin, fmt.Sprintf(body, []string{"even", "odd"}[i%2]))
			if res.Status != http.StatusOK || res.FunctionTrips != 101 {
				b.Fatalf("status %d after %d round trips, want 200 after 1 BatchGetItem and 100 TransactWriteItems", res.Status, res.FunctionTrips)
			}
		}
	})
}
