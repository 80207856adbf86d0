package invites_test

// Keys of the test fixture, named for what they may do.
const (
	keyAdmin    = "wk_testAdminKey00000000000000000000000001"
	keyRead     = "wk_testReadKey000000000000000000000000001"
	keyWrite    = "wk_testWriteKey00000000000000000000000001"
	keyInvite   = "wk_testInviteKey0000000000000000000000001"
	keyTeam     = "wk_testTeamKey000000000000000000000000001"
	keyDisabled = "wk_testDisabledKey00000000000000000000001"
	keyExpired  = "wk_testExpiredKey000000000000000000000001"
	keyOther    = "wk_testOtherWorkspaceKey00000000000000001"
	keyFull     = "wk_testFullWorkspaceKey000000000000000001"
)

// testFixture: ws_a (10 seats, teams on, any domain) with one pending and one
// expired invitation; ws_b (teams off, domain restricted); ws_full (2 seats,
// one member and one pending invitation: no free seat).
const testFixture = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha Labs", "seats": 10, "teamSettingsEnabled": true,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [
   {"id": "u_admin", "email": "Admin@Alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"},
   {"id": "u_creator", "email": "creator@alpha.example", "name": "Cy Creator", "role": "member", "tags": [], "joinedAt": "2026-01-02T00:00:00Z"}
  ],
  "teams": [
   {"id": "team_a", "name": "Research", "monthlyCreditLimit": null, "tags": [], "members": [{"userId": "u_creator", "role": "admin"}]},
   {"id": "team_b", "name": "Support", "monthlyCreditLimit": 500, "tags": [], "members": []}
  ],
  "agents": [],
  "invites": [
   {"id": "inv_pending", "type": "workspace", "email": "pending@alpha.example", "customerId": "ws_a", "customerName": "Alpha Labs",
    "customerRole": "member", "status": "pending", "createdAt": "2026-11-20T10:00:00.000Z", "expiresAt": "2026-11-27T10:00:00.000Z",
    "isExpired": false, "invitedByUserName": "Ada Admin", "groups": [{"groupId": "team_a", "role": "member"}]},
   {"id": "inv_expired", "type": "workspace", "email": "late@alpha.example", "customerId": "ws_a", "customerName": "Alpha Labs",
    "customerRole": "collaborator", "status": "expired", "createdAt": "2026-10-01T10:00:00.000Z", "expiresAt": "2026-10-08T10:00:00.000Z",
    "isExpired": true, "invitedByUserName": "Ada Admin"}
  ],
  "apiKeys": [
   {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyRead + `", "name": "read only", "userId": "u_admin", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyWrite + `", "name": "write only", "userId": "u_admin", "scopes": ["read", "write"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyInvite + `", "name": "invite only", "userId": "u_creator", "scopes": ["invite"], "teamId": null, "expiresAt": null, "disabled": false},
   {"key": "` + keyTeam + `", "name": "team scoped", "userId": "u_creator", "scopes": ["read", "write", "invite"], "teamId": "team_a", "expiresAt": null, "disabled": false},
   {"key": "` + keyDisabled + `", "name": "disabled", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": true},
   {"key": "` + keyExpired + `", "name": "expired", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": "2026-11-01T00:00:00Z", "disabled": false}
  ],
  "events": []},
 {"id": "ws_b", "name": "Beta Corp", "seats": 5, "teamSettingsEnabled": false,
  "allowedEmailDomains": ["beta.example"], "defaultDailyCreditLimit": 10,
  "members": [{"id": "u_b", "email": "boss@beta.example", "name": "Bea Boss", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [{"id": "team_other", "name": "Other", "monthlyCreditLimit": null, "tags": [], "members": []}], "agents": [], "invites": [
   {"id": "inv_b", "type": "workspace", "email": "someone@beta.example", "customerId": "ws_b", "customerName": "Beta Corp",
    "customerRole": "member", "status": "pending", "createdAt": "2026-11-20T10:00:00.000Z", "expiresAt": "2026-11-27T10:00:00.000Z", "isExpired": false}
  ],
  "apiKeys": [{"key": "` + keyOther + `", "name": "admin", "userId": "u_b", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []},
 {"id": "ws_full", "name": "Full House", "seats": 2, "teamSettingsEnabled": false,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_f", "email": "owner@full.example", "name": "Fay Owner", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [], "agents": [], "invites": [
   {"id": "inv_f", "type": "workspace", "email": "seat@full.example", "customerId": "ws_full", "customerName": "Full House",
    "customerRole": "member", "status": "pending", "createdAt": "2026-11-20T12:00:00.000Z", "expiresAt": "2026-11-22T12:00:00.000Z", "isExpired": false}
  ],
  "apiKeys": [{"key": "` + keyFull + `", "name": "admin", "userId": "u_f", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}],
  "events": []}
]}`
