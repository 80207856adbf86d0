package teams_test

import (
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
)

// Keys of the test fixture, named for what they may do.
const (
	keyAdmin = "wk_testAdminKey00000000000000000000000001"
	keyRead  = "wk_testReadKey000000000000000000000000001"
	keyTeamA = "wk_testTeamKey000000000000000000000000001"
	keyOther = "wk_testOtherWorkspaceKey00000000000000001"
)

// testFixture: ws_a (teams on) with members u_admin and u_creator, team_a
// "Research" (u_creator admin; agents ag_a1, ag_a2) and team_b "Support"
// (limit 10); ws_b has team settings off, a team and a member of its own.
const testFixture = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha Labs", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [
   {"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_creator", "email": "creator@alpha.example", "name": "Cy Creator", "role": "member", "tags": ["x"], "joinedAt": "2026-01-02T00:00:00Z"}
  ],
  "teams": [
   {"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": ["lab"], "members": [{"userId": "u_creator", "role": "admin"}]},
   {"id": "team_b", "name": "Support", "monthlyCreditLimit": 10, "tags": [], "members": []}
  ],
  "agents": [
   {"id": "ag_a1", "name": "A1", "description": "", "imageUrl": "", "teamId": "team_a", "isPrivate": false, "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []},
   {"id": "ag_a2", "name": "A2", "description": "", "imageUrl": "", "teamId": "team_a", "isPrivate": true, "agentDiscoverability": "workspace", "tags": [], "dailyCreditLimit": null, "monthlyCreditLimit": null, "showTokenOptimisationInfo": false, "keyMetrics": [], "connections": [], "promotionRequests": []}
  ],
  "invites": [],
  "apiKeys": [
   {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyRead + `", "name": "read only", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeamA + `", "name": "team scoped", "userId": "u_admin", "scopes": ["read", "write"], "teamId": "team_a", "expiresAt": null, "disabled": false}
  ],
  "events": [
   {"type": "credits.used", "id": "ev1", "workspaceId": "ws_a", "agentId": "ag_a1", "credits": 4, "occurredAt": "2026-11-21T11:00:00Z"},
   {"type": "credits.used", "id": "ev2", "workspaceId": "ws_a", "agentId": "ag_a2", "credits": 1.5, "occurredAt": "2026-11-21T11:30:00Z"}
  ]},
 {"id": "ws_b", "name": "Beta Corp", "seats": 5, "teamSettingsEnabled": false,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_b", "email": "boss@beta.example", "name": "Bea Boss", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [{"id": "team_other", "name": "Other", "monthlyCreditLimit": null, "tags": [], "members": []}],
  "agents": [], "invites": [],
  "apiKeys": [{"key": "` + keyOther + `", "name": "admin", "userId": "u_b", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`

func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.New(t, testFixture)
}

// team is a team as GET /workspaceapi/teams/{teamId} shows it.
type team struct {
	ID                 string
	Name               string
	MonthlyCreditLimit *float64
	CreditsThisMonth   float64
	Paused             bool
	Tags               []string
	Members            []struct{ UserID, Role string }
	AgentIDs           []string
	CreatedAt          string
}
