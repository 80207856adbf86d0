package invites_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
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

// BenchmarkListInvites measures GET /workspaceapi/invites with the test fixture.
func BenchmarkListInvites(b *testing.B) {
	env := apitest.New(b, testFixture)
	for b.Loop() {
		if res := env.Do(b, http.MethodGet, invitesPath, keyRead, ""); res.Status != http.StatusOK {
			b.Fatalf("status %d", res.Status)
		}
	}
}

// benchFixture is the test fixture with room for seats invitations.
func benchFixture(seats int) string {
	return fmt.Sprintf(`{"workspaces": [{"id": "ws_a", "name": "Alpha Labs", "seats": %d, "teamSettingsEnabled": true,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "teams": [], "agents": [], "invites": [], "events": [],
 "members": [{"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "apiKeys": [{"key": %q, "name": "admin", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}]}]}`,
		seats, keyAdmin)
}
