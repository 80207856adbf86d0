package invites_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// BenchmarkCreateInvite measures POST /workspaceapi/invites end to end: the
// gateway, the authorizer and the function against DynamoDB Local.
func BenchmarkCreateInvite(b *testing.B) {
	env := apitest.New(b, benchFixture(1_000_000))
	for i := 0; b.Loop(); i++ {
		res := env.Do(b, http.MethodPost, invitesPath, keyAdmin, fmt.Sprintf(`{"email": "bench%d@alpha.example", "role": "member"}`, i))
		if res.Status != http.StatusCreated {
			b.Fatalf("status %d: %s", res.Status, res.Body)
		}
	}
}

// benchFixture is a workspace of one member, with room for seats invitations.
func benchFixture(seats int) string {
	return fmt.Sprintf(`{"workspaces": [{"id": "ws_a", "name": "Alpha Labs", "seats": %d, "teamSettingsEnabled": true,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "teams": [], "agents": [], "invites": [], "events": [],
 "members": [{"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "apiKeys": [{"key": %q, "name": "admin", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}]}]}`,
		seats, keyAdmin)
}

// withInvitations fills ws_a of an Env made from benchFixture(n+1) with n
// pending invitations, each holding a seat, so none is free.
func withInvitations(b *testing.B, n int) *apitest.Env {
	b.Helper()
	env := apitest.New(b, benchFixture(n+1), apitest.Options{OwnDynamoDB: n > 1000})
	snap := tableops.Snapshot{
		Workspace: workspace.Workspace{ID: "ws_a", Name: "Alpha Labs", Seats: n + 1, TeamSettingsEnabled: true},
		Members: []workspace.Member{{ID: "u_admin", Email: "admin@alpha.example", Name: "Ada Admin",
			Role: workspace.RoleAdmin, JoinedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	// Realistic entropy, so that compression is not flattered: ids as the API
	// makes them, a spread of creation times, names and domains.
	ids := workspace.SortableIDs{Clock: apitest.NewClock(apitest.Start.Add(-30 * 24 * time.Hour))}
	first := []string{"ada", "grace", "alan", "edsger", "barbara", "donald", "frances", "ken", "radia", "tim"}
	domains := []string{"alpha.example", "mail.alpha.example", "partner.example.co.uk", "contractors.example.org"}
	for i := range n {
		id, err := ids.NewID("inv_")
		if err != nil {
			b.Fatal(err)
		}
		created := apitest.Start.Add(-time.Duration(n-i) * 37 * time.Second)
		inv := workspace.Invitation{
			ID: id, Type: workspace.InviteTypeWorkspace,
			Email:         fmt.Sprintf("%s.%x%d@%s", first[i%len(first)], i*2654435761%65521, i, domains[i%len(domains)]),
			WorkspaceName: "Alpha Labs", Role: []string{"member", "collaborator"}[i%2],
			CreatedAt: created, ExpiresAt: created.Add(time.Duration(10+i%80) * 24 * time.Hour), // none expired yet
			InvitedByUserName: "Ada Admin", HoldsSeat: true,
		}
		if i%3 == 0 {
			inv.Groups = []workspace.Group{{GroupID: fmt.Sprintf("team_%02d", i%17), Role: "member"}}
		}
		snap.Invitations = append(snap.Invitations, inv)
	}
	start := time.Now()
	if err := tableops.PutSnapshot(b.Context(), env.Store, snap, apitest.Start); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d invitations in %v", n, time.Since(start))
	return env
}

// BenchmarkListInvites measures GET /workspaceapi/invites without parameters,
// the whole list in one answer, as a client that accepts gzip gets it:
// time, DynamoDB round trips, and the bytes sent (gzipped) and meant (JSON).
func BenchmarkListInvites(b *testing.B) {
	for _, n := range []int{10, 1000, 10_000, 50_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			env := withInvitations(b, n)
			var sent, plain int
			for b.Loop() {
				sent, plain = getAll(b, env, n)
			}
			b.ReportMetric(float64(env.FunctionTrips.Count()), "trips/op")
			b.ReportMetric(float64(sent), "gzip-bytes/op")
			b.ReportMetric(float64(plain), "json-bytes/op")
		})
	}
}

// getAll lists every invitation with Accept-Encoding: gzip and checks it got n.
func getAll(b *testing.B, env *apitest.Env, n int) (sent, plain int) {
	b.Helper()
	req, _ := http.NewRequest(http.MethodGet, env.URL+invitesPath, nil)
	req.Header.Set("Authorization", "Bearer "+keyAdmin)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	env.FunctionTrips.Reset()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		b.Fatalf("status %d: %.200s", res.StatusCode, raw)
	}
	body := raw
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		body, _ = io.ReadAll(zr)
	}
	if got := strings.Count(string(body), `"id":`); got != n {
		b.Fatalf("the list holds %d invitations, want %d", got, n)
	}
	return len(raw), len(body)
}

// BenchmarkRefusedInvite measures a POST refused for lack of seats: its cost
// must not grow with the invitations the workspace holds.
func BenchmarkRefusedInvite(b *testing.B) {
	for _, n := range []int{10, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			env := withInvitations(b, n)
			var trips int
			for b.Loop() {
				res := env.Do(b, http.MethodPost, invitesPath, keyAdmin, `{"email": "one.more@alpha.example", "role": "member"}`)
				if res.Status != http.StatusForbidden {
					b.Fatalf("status %d: %s", res.Status, res.Body)
				}
				trips = res.FunctionTrips
			}
			b.ReportMetric(float64(trips), "trips/op")
		})
	}
}
