package invites_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/invites"
)

const invitesPath = "/workspaceapi/invites"

// Round-trip budgets of the invitation routes.
const (
	authorizerBudget   = 3 // the key and its owner, and a key's first use in an hour records lastUsedAt
	createInviteBudget = 4
)

func newEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.New(t, testFixture)
}

func TestCreateInviteAnswers201WithTheInvitationAndSendsOneEmail(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodPost, invitesPath, keyAdmin,
		`{"email": "New.Person@Alpha.example", "role": "collaborator", "teams": [{"teamId": "team_a", "role": "guest"}], "expiresInDays": 3}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("status = %d (%s), want 201", res.Status, res.Body)
	}
	var inv invites.Resource
	res.JSON(t, &inv)
	if !strings.HasPrefix(inv.ID, "inv_") {
		t.Errorf("id = %q, want an inv_ prefix", inv.ID)
	}
	want := invites.Resource{
		ID: inv.ID, Type: "workspace", Email: "New.Person@Alpha.example", CustomerID: "ws_a",
		CustomerName: "Alpha Labs", CustomerRole: "collaborator", Status: "pending",
		CreatedAt: "2026-11-21T12:00:00.000Z", ExpiresAt: "2026-11-24T12:00:00.000Z",
		InvitedByUserName: "Ada Admin", Groups: []invites.Group{{GroupID: "team_a", Role: "guest"}},
	}
	if fmt.Sprint(inv) != fmt.Sprint(want) {
		t.Errorf("invitation = %+v\nwant        %+v", inv, want)
	}
	sent := env.Mail.Sent()
	if len(sent) != 1 || sent[0].To != "New.Person@Alpha.example" || !strings.Contains(sent[0].Text, inv.ID) {
		t.Errorf("e-mails sent = %+v, want one to New.Person@Alpha.example with the invitation link", sent)
	}
	if res.FunctionTrips > createInviteBudget {
		t.Errorf("POST invite took %d DynamoDB round trips, budget %d", res.FunctionTrips, createInviteBudget)
	}
	if res.AuthorizerTrips > authorizerBudget {
		t.Errorf("authorizer took %d DynamoDB round trips, budget %d", res.AuthorizerTrips, authorizerBudget)
	}
}

func TestCreateInviteDefaultsToSevenDays(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "week@alpha.example", "role": "member"}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("status = %d (%s), want 201", res.Status, res.Body)
	}
	var inv invites.Resource
	res.JSON(t, &inv)
	if inv.ExpiresAt != "2026-11-28T12:00:00.000Z" {
		t.Errorf("expiresAt = %s, want 7 days after 2026-11-21T12:00:00.000Z", inv.ExpiresAt)
	}
	if inv.Groups != nil {
		t.Errorf("groups = %v, want none", inv.Groups)
	}
}

func TestCreateInviteRules(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, key, body string
		wantStatus      int
		wantError       string // substring of the error message
	}{
		{"invalid e-mail", keyAdmin, `{"email": "not-an-email", "role": "member"}`, 400, "email"},
		{"e-mail with surrounding space", keyAdmin, `{"email": " x@alpha.example", "role": "member"}`, 400, "email"},
		{"e-mail without a dot in the domain", keyAdmin, `{"email": "user@localhost", "role": "member"}`, 400, "email"},
		{"missing e-mail", keyAdmin, `{"role": "member"}`, 400, "email is required"},
		{"missing role", keyAdmin, `{"email": "r@alpha.example"}`, 400, "role is required"},
		{"admin cannot be invited", keyAdmin, `{"email": "r@alpha.example", "role": "admin"}`, 400, "admins"},
		{"guest cannot be invited", keyAdmin, `{"email": "r@alpha.example", "role": "guest"}`, 400, "guests"},
		{"unknown role", keyAdmin, `{"email": "r@alpha.example", "role": "owner"}`, 400, "role must be"},
		{"unknown field", keyAdmin, `{"email": "r@alpha.example", "role": "member", "expiresInDay": 3}`, 400, `unknown field "expiresInDay"`},
		{"field in another case", keyAdmin, `{"Email": "r@alpha.example", "role": "member"}`, 400, `unknown field "Email"`},
		{"unknown field in a team", keyAdmin, `{"email": "r@alpha.example", "role": "member", "teams": [{"teamId": "team_a", "role": "member", "x": 1}]}`, 400, `unknown field "teams[0].x"`},
		{"team without role", keyAdmin, `{"email": "r@alpha.example", "role": "member", "teams": [{"teamId": "team_a"}]}`, 400, "teams[0].role"},
		{"bad team role", keyAdmin, `{"email": "r@alpha.example", "role": "member", "teams": [{"teamId": "team_a", "role": "owner"}]}`, 400, "teams[0].role"},
		{"expiresInDays 0", keyAdmin, `{"email": "r@alpha.example", "role": "member", "expiresInDays": 0}`, 400, "expiresInDays"},
		{"expiresInDays 91", keyAdmin, `{"email": "r@alpha.example", "role": "member", "expiresInDays": 91}`, 400, "expiresInDays"},
		{"expiresInDays 1.5", keyAdmin, `{"email": "r@alpha.example", "role": "member", "expiresInDays": 1.5}`, 400, "expiresInDays"},
		{"expiresInDays as text", keyAdmin, `{"email": "r@alpha.example", "role": "member", "expiresInDays": "7"}`, 400, "expiresInDays"},
		{"malformed JSON", keyAdmin, `{"email": `, 400, "JSON"},
		{"body not an object", keyAdmin, `["r@alpha.example"]`, 400, "object"},
		{"unknown team", keyAdmin, `{"email": "r@alpha.example", "role": "member", "teams": [{"teamId": "team_zz", "role": "member"}]}`, 404, "teams[0].teamId: team not found"},
		{"another workspace's team", keyAdmin, `{"email": "r@alpha.example", "role": "member", "teams": [{"teamId": "team_other", "role": "member"}]}`, 404, "not found"},
		{"already a member, other case", keyAdmin, `{"email": "ADMIN@alpha.EXAMPLE", "role": "member"}`, 400, "already a member"},
		{"already pending, other case", keyAdmin, `{"email": "Pending@Alpha.Example", "role": "member"}`, 400, "pending invitation"},
		{"teams while team settings are off", keyOther, `{"email": "r@beta.example", "role": "member", "teams": [{"teamId": "t", "role": "member"}]}`, 400, "team settings"},
		{"domain not allowed", keyOther, `{"email": "r@alpha.example", "role": "member"}`, 400, "domain"},
		{"subdomain of an allowed domain", keyOther, `{"email": "r@eu.beta.example", "role": "member"}`, 400, "domain"},
		{"no free seat", keyFull, `{"email": "r@full.example", "role": "member"}`, 403, "seats"},
		{"team-scoped key", keyTeam, `{"email": "r@alpha.example", "role": "member"}`, 403, "team-scoped"},
		{"key without the invite scope", keyWrite, `{"email": "r@alpha.example", "role": "member"}`, 403, ""},
		{"read-only key", keyRead, `{"email": "r@alpha.example", "role": "member"}`, 403, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPost, invitesPath, tc.key, tc.body)
			if res.Status != tc.wantStatus {
				t.Fatalf("status = %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if msg := res.Error(t); !strings.Contains(msg, tc.wantError) {
				t.Errorf("error = %q, want it to mention %q", msg, tc.wantError)
			}
		})
	}
	if sent := env.Mail.Sent(); len(sent) != 0 {
		t.Errorf("refused invitations sent %d e-mails, want 0", len(sent))
	}
}

func TestCreateInviteEmptyTeamsCountsAsNotSet(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodPost, invitesPath, keyOther, `{"email": "fine@beta.example", "role": "member", "teams": []}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("status = %d (%s), want 201: teams [] counts as not set", res.Status, res.Body)
	}
}

func TestCreateInviteBodyOver256KiBIs413(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	body := `{"email": "big@alpha.example", "role": "member", "pad": "` + strings.Repeat("x", httpapi.MaxBodyBytes) + `"}`
	res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, body)
	if res.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status = %d, want 413", res.Status)
	}
}

func TestRetriedInvitationSendsNoSecondEmail(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	body := `{"email": "retry@alpha.example", "role": "member"}`
	if res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, body); res.Status != http.StatusCreated {
		t.Fatalf("first call: status = %d (%s), want 201", res.Status, res.Body)
	}
	res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, body)
	if res.Status != http.StatusBadRequest {
		t.Fatalf("retry: status = %d, want 400", res.Status)
	}
	if n := len(env.Mail.Sent()); n != 1 {
		t.Errorf("e-mails sent = %d, want exactly 1", n)
	}
}

func TestReinvitingAnExpiredAddressReplacesTheExpiredRecord(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "LATE@alpha.example", "role": "member"}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("status = %d (%s), want 201", res.Status, res.Body)
	}
	var created invites.Resource
	res.JSON(t, &created)
	list := listInvites(t, env, keyAdmin)
	var forAddress []string
	for _, inv := range list {
		if strings.EqualFold(inv.Email, "late@alpha.example") {
			forAddress = append(forAddress, inv.ID)
		}
	}
	if len(forAddress) != 1 || forAddress[0] != created.ID {
		t.Errorf("invitations of the address = %v, want only the new %s", forAddress, created.ID)
	}
}

func TestSeatsFreedByExpiryAreReused(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	if res := env.Do(t, http.MethodPost, invitesPath, keyFull, `{"email": "r@full.example", "role": "member"}`); res.Status != http.StatusForbidden {
		t.Fatalf("before expiry: status = %d, want 403", res.Status)
	}
	env.Clock.Advance(25 * time.Hour) // inv_f expires
	res := env.Do(t, http.MethodPost, invitesPath, keyFull, `{"email": "r@full.example", "role": "member"}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("after expiry: status = %d (%s), want 201", res.Status, res.Body)
	}
	if res.FunctionTrips > createInviteBudget {
		t.Errorf("took %d round trips, budget %d", res.FunctionTrips, createInviteBudget)
	}
	if res := env.Do(t, http.MethodPost, invitesPath, keyFull, `{"email": "s@full.example", "role": "member"}`); res.Status != http.StatusForbidden {
		t.Fatalf("seats full again: status = %d, want 403", res.Status)
	}
}

func TestParallelInvitationsNeverExceedTheFreeSeats(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	// ws_a has 10 seats, used by 2 members and 1 pending invitation: 7 free.
	const n, free = 12, 7
	statuses := apitest.Parallel(n, func(i int) int {
		return env.Do(t, http.MethodPost, invitesPath, keyAdmin,
			fmt.Sprintf(`{"email": "p%d@alpha.example", "role": "member"}`, i)).Status
	})
	created, refused := count(statuses, 201), count(statuses, 403)
	if created != free || refused != n-free {
		t.Errorf("created %d and refused %d of %d, want %d and %d (statuses %v)", created, refused, n, free, n-free, statuses)
	}
	if sent := len(env.Mail.Sent()); sent != created {
		t.Errorf("e-mails = %d, want one per created invitation (%d)", sent, created)
	}
	ws, err := env.Store.Workspace(t.Context(), "ws_a")
	if err != nil {
		t.Fatal(err)
	}
	if ws.SeatsUsed != ws.Seats {
		t.Errorf("seatsUsed = %d, want %d", ws.SeatsUsed, ws.Seats)
	}
}

func TestParallelInvitationsOfOneAddressCreateOne(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	const n = 8
	statuses := apitest.Parallel(n, func(i int) int {
		email := "Same@alpha.example"
		if i%2 == 1 {
			email = "same@ALPHA.example"
		}
		return env.Do(t, http.MethodPost, invitesPath, keyAdmin, fmt.Sprintf(`{"email": %q, "role": "member"}`, email)).Status
	})
	if created, refused := count(statuses, 201), count(statuses, 400); created != 1 || refused != n-1 {
		t.Errorf("created %d, refused %d, want 1 and %d (statuses %v)", created, refused, n-1, statuses)
	}
	if sent := len(env.Mail.Sent()); sent != 1 {
		t.Errorf("e-mails = %d, want 1", sent)
	}
}

func TestListInvitesShowsPendingAndExpiredOfTheCallersWorkspaceOnly(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodGet, invitesPath, keyRead, "")
	if res.Status != http.StatusOK {
		t.Fatalf("status = %d (%s), want 200", res.Status, res.Body)
	}
	var body struct{ Invites []invites.Resource }
	res.JSON(t, &body)
	got := make([]string, len(body.Invites))
	for i, inv := range body.Invites {
		got[i] = fmt.Sprintf("%s:%s:%v", inv.ID, inv.Status, inv.IsExpired)
	}
	want := []string{"inv_expired:expired:true", "inv_pending:pending:false"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("invites = %v, want %v (oldest first, ws_a only)", got, want)
	}
	if res.FunctionTrips != 1 {
		t.Errorf("GET invites took %d round trips (%v), want 1 Query", res.FunctionTrips, env.FunctionTrips.Ops())
	}
}

func TestListInvitesMarksInvitationsExpiredAsTimePasses(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	env.Clock.Advance(7 * 24 * time.Hour)
	for _, inv := range listInvites(t, env, keyAdmin) {
		if inv.Status != "expired" || !inv.IsExpired {
			t.Errorf("%s: status %s isExpired %v, want expired", inv.ID, inv.Status, inv.IsExpired)
		}
	}
}

func TestListInvitesEmptyIs200(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodDelete, invitesPath, keyOther, `{"ids": ["inv_b"]}`)
	if res.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.Status, res.Body)
	}
	res = env.Do(t, http.MethodGet, invitesPath, keyOther, "")
	if res.Status != http.StatusOK || strings.TrimSpace(string(res.Body)) != `{"invites":[],"nextCursor":null}` {
		t.Errorf("GET = %d %s, want 200 {\"invites\":[],\"nextCursor\":null}", res.Status, res.Body)
	}
}

func TestListInvitesRefusesTeamScopedKeys(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	if res := env.Do(t, http.MethodGet, invitesPath, keyTeam, ""); res.Status != http.StatusForbidden {
		t.Errorf("status = %d, want 403", res.Status)
	}
}

func TestRevokeInvitesIsABatch(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodDelete, invitesPath, keyAdmin, `{"ids": ["inv_pending", "inv_missing", "inv_b", "inv_pending"]}`)
	if res.Status != http.StatusOK {
		t.Fatalf("status = %d (%s), want 200", res.Status, res.Body)
	}
	var got httpapi.BatchResult
	res.JSON(t, &got)
	want := `{"results":[{"id":"inv_pending","success":true,"name":"pending@alpha.example","unchanged":false,"applied":{"status":"revoked"}},` +
		`{"id":"inv_missing","success":false,"error":"invitation not found"},` +
		`{"id":"inv_b","success":false,"error":"invitation not found"}],` +
		`"summary":{"total":3,"succeeded":1,"failed":2,"unchanged":0}}`
	if strings.TrimSpace(string(res.Body)) != want {
		t.Errorf("body = %s\nwant   %s", res.Body, want)
	}
	for _, inv := range listInvites(t, env, keyAdmin) {
		if inv.ID == "inv_pending" {
			t.Error("inv_pending is still listed after its revocation")
		}
	}
	// ws_b's invitation is untouched: another tenant's id behaves as missing.
	if list := listInvites(t, env, keyOther); len(list) != 1 {
		t.Errorf("ws_b invitations = %d, want 1", len(list))
	}
}

func TestRevokingFreesTheSeat(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	if res := env.Do(t, http.MethodDelete, invitesPath, keyFull, `{"ids": ["inv_f"]}`); res.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.Status, res.Body)
	}
	res := env.Do(t, http.MethodPost, invitesPath, keyFull, `{"email": "seat@full.example", "role": "member"}`)
	if res.Status != http.StatusCreated {
		t.Errorf("re-invite after revoke: status = %d (%s), want 201", res.Status, res.Body)
	}
}

func TestRevokeInvitesValidatesIDs(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("%q", fmt.Sprint("inv_", i))
	}
	tests := []struct{ name, body string }{
		{"no ids", `{"ids": []}`},
		{"missing ids", `{}`},
		{"empty id", `{"ids": [""]}`},
		{"over 100 ids", `{"ids": [` + strings.Join(many, ",") + `]}`},
		{"unknown field", `{"ids": ["inv_pending"], "force": true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if res := env.Do(t, http.MethodDelete, invitesPath, keyAdmin, tc.body); res.Status != http.StatusBadRequest {
				t.Errorf("status = %d (%s), want 400", res.Status, res.Body)
			}
		})
	}
}

func listInvites(t *testing.T, env *apitest.Env, key string) []invites.Resource {
	t.Helper()
	res := env.Do(t, http.MethodGet, invitesPath, key, "")
	if res.Status != http.StatusOK {
		t.Fatalf("GET invites: %d %s", res.Status, res.Body)
	}
	var body struct{ Invites []invites.Resource }
	res.JSON(t, &body)
	return body.Invites
}

func count(xs []int, v int) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}

func TestFailedInvitationEmailLeavesNoInvitationAndNoSeatTaken(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture, apitest.Options{MailFailure: errors.New("SES: throttled")})
	res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "unlucky@alpha.example", "role": "member"}`)
	if res.Status != http.StatusServiceUnavailable {
		t.Fatalf("status = %d (%s), want 503", res.Status, res.Body)
	}
	if msg := res.Error(t); strings.Contains(msg, "SES") {
		t.Errorf("error %q leaks the mail service's error", msg)
	}
	for _, inv := range listInvites(t, env, keyAdmin) {
		if inv.Email == "unlucky@alpha.example" {
			t.Errorf("invitation %s exists although its e-mail failed", inv.ID)
		}
	}
	ws, err := env.Store.Workspace(t.Context(), "ws_a")
	if err != nil {
		t.Fatal(err)
	}
	if ws.SeatsUsed != 3 {
		t.Errorf("seatsUsed = %d, want 3 (2 members, 1 pending invitation)", ws.SeatsUsed)
	}
}
