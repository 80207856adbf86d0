package tableops

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestSnapshotItems(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	snap := Snapshot{
		Workspace:   workspace.Workspace{ID: "ws1", Name: "W", Seats: 5, SeatsUsed: 99},
		Members:     []workspace.Member{{ID: "u1", Email: "One@a.example", Role: workspace.RoleAdmin}},
		Teams:       []workspace.Team{{ID: "t1", Name: "T"}},
		TeamMembers: []workspace.TeamMembership{{TeamID: "t1", UserID: "u1", Role: workspace.TeamRoleGuest}},
		Agents: []workspace.Agent{
			{ID: "a1", TeamID: "t1", AgentDiscoverability: "team"},
			{ID: "a2", AgentDiscoverability: "none", PromotionRequests: []workspace.PromotionRequest{
				{ID: "p1", RequestedAt: time.Date(2026, 1, 2, 5, 0, 0, 0, time.FixedZone("x", 2*3600))},
			}},
		},
		Invitations: []workspace.Invitation{
			{ID: "i1", Email: "p@a.example", HoldsSeat: true, CreatedAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.FixedZone("x", 2*3600)),
				ExpiresAt: time.Date(2027, 7, 1, 0, 0, 0, 0, time.UTC), RemoveAt: time.Date(2027, 12, 28, 0, 0, 0, 0, time.UTC)},
			{ID: "i2", Email: "e@a.example", CreatedAt: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), ExpiresAt: time.Date(2026, 10, 8, 0, 0, 0, 0, time.UTC)},
			{ID: "i3", Email: "late@a.example", HoldsSeat: true, CreatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), ExpiresAt: now},
		},
		APIKeys: []workspace.APIKey{{ID: "key_1", Hash: "abc", UserID: "u1", Scopes: []workspace.Scope{"read"}}},
	}
	raw, err := snapshotItems(snap, now)
	if err != nil {
		t.Fatal(err)
	}
	// 2 per member, team (its name claim), invitation and key (its reference), 1 per membership and agent, the key count and the workspace.
	if len(raw) != 2+2+1+2+6+2+1+1 {
		t.Fatalf("%d items", len(raw))
	}
	if last := raw[len(raw)-1]; last["SK"] == nil || keyOf(last, "SK") != "META" {
		t.Errorf("the last item is %v, want the workspace item", last)
	}
	for _, r := range raw {
		var it map[string]any
		if err := attributevalue.UnmarshalMap(r, &it); err != nil {
			t.Fatal(err)
		}
		str := func(name string) string { s, _ := it[name].(string); return s }
		switch str("entity") {
		case "member":
			if teams, _ := it["teams"].(map[string]any); teams["t1"] != "guest" || len(teams) != 1 {
				t.Errorf("member u1's teams = %v, want its membership mirrored (t1: guest)", it["teams"])
			}
		case "teamName":
			if str("SK") != "TEAMNAME#t" || str("teamId") != "t1" {
				t.Errorf("team name claim = %v, want TEAMNAME#t for t1", it)
			}
		case "workspace":
			if it["seatsUsed"] != 2.0 { // the member and i1; i3 expired at now exactly
				t.Errorf("seatsUsed = %v, want 2", it["seatsUsed"])
			}
		case "invitation":
			id := str("id")
			if id == "i1" && (str("createdAt") != "2026-11-20T08:00:00.000Z" || str("expiresAt") != "2027-07-01T00:00:00.000Z" ||
				it["holdsSeat"] != true || it["ttl"] != float64(time.Date(2027, 12, 28, 0, 0, 0, 0, time.UTC).Unix())) {
				t.Errorf("i1 = %v", it)
			}
			if id == "i1" && (str("GSI1PK") != "WS#ws1#SEATS" || str("GSI1SK") != "2027-07-01T00:00:00.000Z#i1") {
				t.Errorf("i1 is not in the seat index: %v", it)
			}
			if id != "i1" && (it["holdsSeat"] != false || str("GSI1PK") != "") {
				t.Errorf("%s holds a seat", id)
			}
			if str("workspaceId") != "ws1" {
				t.Errorf("%s workspaceId = %q", id, str("workspaceId"))
			}
		case "emailClaim":
			if str("SK") == "EMAIL#one@a.example" && str("userId") != "u1" {
				t.Errorf("member claim = %v", it)
			}
		case "teamMember":
			if str("PK") != "WS#ws1" || str("SK") != "TEAMMEMBER#t1#u1" || str("GSI1PK") != "WS#ws1#USER#u1" || str("GSI1SK") != "TEAM#t1" {
				t.Errorf("membership = %v", it)
			}
		case "agent":
			if str("id") == "a1" && (str("GSI1PK") != "WS#ws1#TEAM#t1" || str("GSI1SK") != "AGENT#a1") {
				t.Errorf("a1 = %v", it)
			}
			if str("id") == "a2" {
				reqs, _ := it["promotionRequests"].([]any)
				if str("GSI1PK") != "" || str("GSI1SK") != "" || len(reqs) != 1 || reqs[0].(map[string]any)["requestedAt"] != "2026-01-02T03:00:00.000Z" {
					t.Errorf("a2 = %v", it)
				}
			}
			for _, list := range []string{"tags", "connections", "keyMetrics", "promotionRequests"} {
				if _, ok := it[list].([]any); !ok {
					t.Errorf("agent %s has no list %s: %v", str("id"), list, it[list])
				}
			}
		case "apiKey":
			if str("workspaceId") != "ws1" || str("PK") != "KEY#abc" {
				t.Errorf("key = %v", it)
			}
		case "apiKeyRef":
			if str("PK") != "WS#ws1" || str("SK") != "APIKEY#key_1" || str("keyHash") != "abc" {
				t.Errorf("key reference = %v", it)
			}
		case "apiKeyCount":
			if str("PK") != "WS#ws1" || it["count"] != 1.0 {
				t.Errorf("key count = %v, want 1", it)
			}
		}
	}

	bad := snap
	bad.Agents = []workspace.Agent{{ID: "a9", WorkspaceID: "ws2"}}
	if _, err := snapshotItems(bad, now); err == nil || !strings.Contains(err.Error(), "agent a9 belongs to workspace ws2") {
		t.Errorf("foreign agent: err = %v", err)
	}
	if _, err := snapshotItems(Snapshot{}, now); err == nil {
		t.Error("a snapshot without a workspace id was accepted")
	}
}
