package invites_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// hangingMailer never returns by itself: it ignores its context, as a
// stuck connection to the mail service could.
type hangingMailer struct{ release chan struct{} }

func (m hangingMailer) Send(context.Context, mail.Message) error { <-m.release; return nil }

// panickingMailer stands for a sender that crashes mid-send.
type panickingMailer struct{}

func (panickingMailer) Send(context.Context, mail.Message) error { panic("connection reset") }

// callCreate calls the invitations function directly, as Lambda would, with
// a deadline the test chooses.
func callCreate(t *testing.T, fn httpapi.ProxyHandler, deadline time.Duration, body string) events.APIGatewayProxyResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	res, err := fn(ctx, events.APIGatewayProxyRequest{
		HTTPMethod: http.MethodPost, Path: invitesPath, Resource: invitesPath, Body: body,
		Headers:        map[string]string{"Content-Type": "application/json"},
		RequestContext: events.APIGatewayProxyRequestContext{Authorizer: callerContext("read write invite", "")},
	})
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	return res
}

func TestAMailerThatHangsPastTheDeadlineLeavesNoHiddenInvitation(t *testing.T) {
	env := newEnv(t)
	mailer := hangingMailer{release: make(chan struct{})}
	defer close(mailer.release)
	fn := invites.Function(invites.Deps{Store: env.Store, Mailer: mailer, Clock: env.Clock,
		IDs: workspace.SortableIDs{Clock: env.Clock}, AcceptURL: "https://app.example/accept"})

	started := time.Now()
	res := callCreate(t, fn, 3*time.Second, `{"email": "slow@alpha.example", "role": "member"}`)
	if took := time.Since(started); took > 3*time.Second {
		t.Errorf("answered after %v, past the 3 s deadline", took)
	}
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(res.Body, "no invitation was created") {
		t.Fatalf("status %d %s, want 503 saying no invitation was created", res.StatusCode, res.Body)
	}
	for _, inv := range listInvites(t, env, keyAdmin) {
		if inv.Email == "slow@alpha.example" {
			t.Errorf("invitation %s exists although the answer said none was created", inv.ID)
		}
	}
	assertSeatsUsed(t, env, "ws_a", 3)
	// The retry succeeds, with one e-mail.
	retry := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "slow@alpha.example", "role": "member"}`)
	if retry.Status != http.StatusCreated || len(env.Mail.Sent()) != 1 {
		t.Errorf("retry: status %d, %d e-mails; want 201 and one e-mail", retry.Status, len(env.Mail.Sent()))
	}
}

func TestAMailerThatPanicsIsAFailedSendAndTheInvitationIsWithdrawn(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	fn := invites.Function(invites.Deps{Store: env.Store, Mailer: panickingMailer{}, Clock: env.Clock,
		IDs: workspace.SortableIDs{Clock: env.Clock}})
	res := callCreate(t, fn, 5*time.Second, `{"email": "crash@alpha.example", "role": "member"}`)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(res.Body, "no invitation was created") {
		t.Fatalf("status %d %s, want 503 saying no invitation was created", res.StatusCode, res.Body)
	}
	assertSeatsUsed(t, env, "ws_a", 3)
}

// failingWithdrawal is the real store whose deletions fail, as when the
// process dies between storing the invitation and withdrawing it.
type failingWithdrawal struct{ invites.Store }

func (failingWithdrawal) DeleteInvitations(_ context.Context, _ workspace.Actor, invs []workspace.Invitation, _ time.Time) []error {
	errs := make([]error, len(invs))
	for i := range errs {
		errs[i] = fmt.Errorf("connection lost")
	}
	return errs
}

func TestAnInvitationThatCannotBeWithdrawnIsNamedAndARetryFindsIt(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	fn := invites.Function(invites.Deps{Store: failingWithdrawal{env.Store}, Mailer: &mail.Recorder{Fail: fmt.Errorf("SES down")},
		Clock: env.Clock, IDs: workspace.SortableIDs{Clock: env.Clock}})
	res := callCreate(t, fn, 5*time.Second, `{"email": "stuck@alpha.example", "role": "member"}`)
	var held []invites.Resource
	for _, inv := range listInvites(t, env, keyAdmin) {
		if inv.Email == "stuck@alpha.example" {
			held = append(held, inv)
		}
	}
	if len(held) != 1 {
		t.Fatalf("invitations of the address = %d, want the one that could not be withdrawn", len(held))
	}
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(res.Body, held[0].ID) || strings.Contains(res.Body, "no invitation was created") {
		t.Errorf("status %d %s, want 503 naming invitation %s as still there", res.StatusCode, res.Body, held[0].ID)
	}
	if retry := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "stuck@alpha.example", "role": "member"}`); retry.Status != http.StatusBadRequest {
		t.Errorf("retry: status %d, want 400: the retry finds the pending invitation", retry.Status)
	}
	if rev := env.Do(t, http.MethodDelete, invitesPath, keyAdmin, fmt.Sprintf(`{"ids": [%q]}`, held[0].ID)); rev.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", rev.Status, rev.Body)
	}
	if again := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "stuck@alpha.example", "role": "member"}`); again.Status != http.StatusCreated {
		t.Errorf("after revoking it: status %d, want 201", again.Status)
	}
}

func TestOverLongIDsAreNotFoundAndTheOthersAreRevoked(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	long := strings.Repeat("x", 1018)
	res := env.Do(t, http.MethodDelete, invitesPath, keyAdmin, fmt.Sprintf(`{"ids": [%q, "inv_pending"]}`, long))
	if res.Status != http.StatusOK {
		t.Fatalf("status = %d (%s), want 200", res.Status, res.Body)
	}
	var got httpapi.BatchResult
	res.JSON(t, &got)
	if got.Results[0].Success || got.Results[0].Error != "invitation not found" || !got.Results[1].Success {
		t.Errorf("results = %+v, want the long id not found and inv_pending revoked", got.Results)
	}
}

func TestBoundsAreCheckedBeforeAnyRead(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	many := make([]string, 7000)
	for i := range many {
		many[i] = fmt.Sprintf(`{"teamId":"t%d","role":"guest"}`, i)
	}
	tests := []struct {
		name, key, body string
		status, trips   int
	}{
		{"7,000 teams", keyAdmin, `{"email": "a@alpha.example", "role": "member", "teams": [` + strings.Join(many, ",") + `]}`, 400, 0},
		{"101 teams", keyAdmin, `{"email": "a@alpha.example", "role": "member", "teams": [` + strings.Join(many[:101], ",") + `]}`, 400, 0},
		{"teams while team settings are off: no team read", keyOther, `{"email": "a@beta.example", "role": "member", "teams": [` + strings.Join(many[:100], ",") + `]}`, 400, 1},
		{"a domain not allowed: no team read", keyOther, `{"email": "a@gmail.example", "role": "member"}`, 400, 1},
		{"an over-long team id is not found, never read", keyAdmin, `{"email": "a@alpha.example", "role": "member", "teams": [{"teamId": "` + strings.Repeat("t", 300) + `", "role": "member"}]}`, 404, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPost, invitesPath, tc.key, tc.body)
			if res.Status != tc.status || res.FunctionTrips != tc.trips {
				t.Errorf("status %d after %d round trips (%v), want %d after %d", res.Status, res.FunctionTrips, env.FunctionTrips.Ops(), tc.status, tc.trips)
			}
		})
	}
}

func TestKeyShapedTextIsNeverEchoed(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name, method, body string
		status             int
	}{
		{"a key as a field name", http.MethodPost, `{"` + keyAdmin + `": true}`, 400},
		{"a key as a team id", http.MethodPost, `{"email": "a@alpha.example", "role": "member", "teams": [{"teamId": "` + keyAdmin + `", "role": "member"}]}`, 404},
		{"a key as a batch id", http.MethodDelete, `{"ids": ["inv_pending", "` + keyAdmin + `"]}`, 400},
		{"a key as an e-mail's local part", http.MethodPost, `{"email": "` + keyAdmin + `@alpha.example", "role": "member"}`, 400},
		{"key-shaped text inside an e-mail", http.MethodPost, `{"email": "x.wk_abc123@alpha.example", "role": "member"}`, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, tc.method, invitesPath, keyAdmin, tc.body)
			if res.Status != tc.status || workspace.ContainsKey(string(res.Body)) {
				t.Errorf("status %d %s, want %d and no key-shaped text", res.Status, res.Body, tc.status)
			}
		})
	}
	if sent := env.Mail.Sent(); len(sent) != 0 {
		t.Errorf("e-mails sent = %+v, want none to a key-shaped address", sent)
	}
	res := env.Do(t, http.MethodDelete, invitesPath, keyAdmin, `{"ids": ["inv_pending", "`+keyAdmin+`"]}`)
	if msg := res.Error(t); !strings.Contains(msg, "ids[1]") {
		t.Errorf("error %q, want it to name the position ids[1]", msg)
	}
}

// bigFixture is a workspace of n invitations (pending when expired is false),
// with seats for every one of them and the members, so none is free.
func bigFixture(n int, expired bool) string {
	var invs []string
	status, expires := "pending", "2027-01-01T00:00:00.000Z"
	if expired {
		status, expires = "expired", "2026-11-01T00:00:00.000Z"
	}
	for i := range n {
		invs = append(invs, fmt.Sprintf(`{"id": "inv_%05d", "type": "workspace", "email": "p%d@alpha.example", "customerId": "ws_a",
 "customerRole": "member", "status": %q, "createdAt": "2026-10-01T00:00:00.000Z", "expiresAt": %q, "isExpired": %v, "invitedByUserName": "Ada Admin"}`,
			i, i, status, expires, expired))
	}
	return fmt.Sprintf(`{"workspaces": [{"id": "ws_a", "name": "Alpha Labs", "seats": %d, "teamSettingsEnabled": true,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "teams": [], "agents": [], "events": [],
 "members": [{"id": "u_admin", "email": "admin@alpha.example", "name": "Ada Admin", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "invites": [%s],
 "apiKeys": [{"key": %q, "name": "admin", "userId": "u_admin", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}]}]}`,
		n+1, strings.Join(invs, ",\n"), keyAdmin)
}

func TestARefusedInvitationCostsTheSameAt10And1000Invitations(t *testing.T) {
	t.Parallel()
	for _, n := range []int{10, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			env := apitest.New(t, bigFixture(n, false))
			res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "one.more@alpha.example", "role": "member"}`)
			if res.Status != http.StatusForbidden {
				t.Fatalf("status %d (%s), want 403: no free seat", res.Status, res.Body)
			}
			// Setup, the refused transaction and one Query of the seat index
			// that finds no expired holder.
			if want := []string{"BatchGetItem", "TransactWriteItems", "Query"}; !slices.Equal(env.FunctionTrips.Ops(), want) {
				t.Errorf("round trips %v, want %v", env.FunctionTrips.Ops(), want)
			}
		})
	}
}

func TestExpiredSeatsAreReleasedFromTheSeatIndex(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, bigFixture(60, false))
	env.Clock.Advance(60 * 24 * time.Hour) // every invitation has expired, all still hold seats
	res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "fresh@alpha.example", "role": "member"}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("status %d (%s), want 201 after releasing expired seats", res.Status, res.Body)
	}
	if res.FunctionTrips > createInviteBudget {
		t.Errorf("%d round trips (%v), budget %d", res.FunctionTrips, env.FunctionTrips.Ops(), createInviteBudget)
	}
	// 40 expired seats released at most per creation, one taken: 61 - 40 + 1.
	assertSeatsUsed(t, env, "ws_a", 22)
}

func TestListInvitesPagesWithLimitAndCursor(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, bigFixture(25, false))
	var seen []string
	cursor := ""
	for page := 0; ; page++ {
		path := invitesPath + "?limit=10"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := env.Do(t, http.MethodGet, path, keyAdmin, "")
		if res.Status != http.StatusOK {
			t.Fatalf("page %d: %d %s", page, res.Status, res.Body)
		}
		var body struct {
			Invites    []invites.Resource
			NextCursor *string
		}
		res.JSON(t, &body)
		for _, inv := range body.Invites {
			seen = append(seen, inv.ID)
		}
		if res.FunctionTrips != 1 {
			t.Errorf("page %d took %d round trips, want 1 Query", page, res.FunctionTrips)
		}
		if body.NextCursor == nil {
			if page != 2 || len(body.Invites) != 5 {
				t.Errorf("last page was page %d with %d invitations, want page 2 with 5", page, len(body.Invites))
			}
			break
		}
		cursor = *body.NextCursor
	}
	if len(seen) != 25 || !slices.IsSorted(seen) || len(slices.Compact(slices.Clone(seen))) != 25 {
		t.Errorf("pages listed %d invitations %v, want the 25 once each in order", len(seen), seen)
	}
	exact := env.Do(t, http.MethodGet, invitesPath+"?limit=25", keyAdmin, "")
	if !strings.Contains(string(exact.Body), `"nextCursor":null`) {
		t.Error("a page that holds the last invitation must end with nextCursor null, never a cursor to an empty page")
	}
}

func TestListInvitesRejectsBadPaging(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, q := range []string{"limit=0", "limit=1001", "limit=abc", "limit=1.5", "limit=1&limit=2", "cursor=!!!", "cursor=" + strings.Repeat("A", 600)} {
		if res := env.Do(t, http.MethodGet, invitesPath+"?"+q, keyAdmin, ""); res.Status != http.StatusBadRequest {
			t.Errorf("?%s: status %d, want 400", q, res.Status)
		}
	}
}

func TestLargeListsAreServedCompressed(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, bigFixture(200, false))
	req, _ := http.NewRequest(http.MethodGet, env.URL+invitesPath, nil)
	req.Header.Set("Authorization", "Bearer "+keyAdmin)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("status %d, Content-Encoding %q, want 200 gzip", res.StatusCode, res.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("body is not gzip: %v", err)
	}
	plain, _ := io.ReadAll(zr)
	var body struct{ Invites []invites.Resource }
	if err := json.Unmarshal(plain, &body); err != nil || len(body.Invites) != 200 {
		t.Errorf("decompressed body: %d invitations, %v; want 200", len(body.Invites), err)
	}
	if len(raw)*4 > len(plain) {
		t.Errorf("compressed %d bytes to %d: want at least 4 to 1", len(plain), len(raw))
	}
}

func TestARevokeOf100UpdatesTheSeatCounterOncePerTransaction(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, bigFixture(100, false))
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = fmt.Sprintf("%q", fmt.Sprintf("inv_%05d", i))
	}
	res := env.Do(t, http.MethodDelete, invitesPath, keyAdmin, `{"ids": [`+strings.Join(ids, ",")+`]}`)
	var got httpapi.BatchResult
	res.JSON(t, &got)
	if got.Summary.Succeeded != 100 {
		t.Fatalf("summary %+v, want 100 revoked", got.Summary)
	}
	// Each invitation's invitation, claim and audit entry, and the seat
	// update: 32 a transaction, within DynamoDB's 100 items with a key's mark.
	if want := []string{"BatchGetItem", "TransactWriteItems", "TransactWriteItems", "TransactWriteItems", "TransactWriteItems"}; !slices.Equal(env.FunctionTrips.Ops(), want) {
		t.Errorf("round trips %v, want one read and four transactions of up to 32 invitations", env.FunctionTrips.Ops())
	}
	assertSeatsUsed(t, env, "ws_a", 1)
}

// Creates and revokes racing on one workspace's seats, behind DynamoDB's
// contention, never answer a 5xx other than a busy 503 (sent again), and
// leave the seat count exact.
func TestCreatesAndRevokesStayExactUnderTransactionConflicts(t *testing.T) {
	t.Parallel()
	contention := &dynamolocal.Contention{}
	env := apitest.New(t, bigFixture(30, false), apitest.Options{Conflicts: contention})
	// 30 seats are held by invitations; make room for 20 more.
	if _, err := env.Store.Workspace(t.Context(), "ws_a"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	statuses := make([]int, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A request that kept losing races answers 503 busy, having
			// changed nothing; the client sends it again.
			for try := 1; ; try++ {
				var res *apitest.Response
				if i%2 == 0 {
					res = env.Do(t, http.MethodDelete, invitesPath, keyAdmin, fmt.Sprintf(`{"ids": ["inv_%05d"]}`, i/2))
				} else {
					res = env.Do(t, http.MethodPost, invitesPath, keyAdmin, fmt.Sprintf(`{"email": "new%d@alpha.example", "role": "member"}`, i))
				}
				statuses[i] = res.Status
				var body struct{ Error string }
				if res.Status != http.StatusServiceUnavailable || try == 10 {
					return
				}
				if res.JSON(t, &body); body.Error != workspace.ErrBusy.Error() {
					return
				}
			}
		}()
	}
	wg.Wait()
	if contention.Stats().Conflicts() == 0 {
		t.Fatal("no transaction met another")
	}
	for i, s := range statuses {
		if s >= 500 {
			t.Errorf("request %d answered %d under conflicts", i, s)
		}
	}
	// Exact: seatsUsed is the member plus every invitation still listed.
	holders := 0
	for _, inv := range listInvites(t, env, keyAdmin) {
		if inv.Status == "pending" {
			holders++
		}
	}
	assertSeatsUsed(t, env, "ws_a", 1+holders)
}

func assertSeatsUsed(t *testing.T, env *apitest.Env, ws string, want int) {
	t.Helper()
	w, err := env.Store.Workspace(t.Context(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if w.SeatsUsed != want {
		t.Errorf("seatsUsed = %d, want %d", w.SeatsUsed, want)
	}
}

// A revoke reads its invitations, then deletes them conditioned on their seat
// as read. When a creation releases an expired invitation's seat in between,
// the invitation is still there: it is revoked as it now stands, never
// reported "not found", and no seat is freed twice.
func TestARevokeRacingASeatReleaseStillRevokes(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, bigFixture(2, false))
	env.Clock.Advance(60 * 24 * time.Hour) // both invitations expired, still holding seats
	ids := []string{"inv_00000", "inv_00001"}
	read, err := env.Store.InvitationsByID(t.Context(), "ws_a", ids)
	if err != nil {
		t.Fatal(err)
	}
	stale := []workspace.Invitation{read[ids[0]], read[ids[1]]}
	if !stale[0].HoldsSeat || !stale[1].HoldsSeat {
		t.Fatalf("read %+v, want both holding seats", stale)
	}
	// Between the revoke's read and its write, a creation releases their seats.
	if res := env.Do(t, http.MethodPost, invitesPath, keyAdmin, `{"email": "fresh@alpha.example", "role": "member"}`); res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	for i, err := range env.Store.DeleteInvitations(t.Context(), workspace.KeyActor(workspace.Caller{KeyID: "key_test", UserID: "u_test"}, ""), stale, apitest.Start) {
		if err != nil {
			t.Errorf("revoke %s: %v, want it revoked", ids[i], err)
		}
	}
	for _, inv := range listInvites(t, env, keyAdmin) {
		if slices.Contains(ids, inv.ID) {
			t.Errorf("invitation %s still listed after its revoke", inv.ID)
		}
	}
	assertSeatsUsed(t, env, "ws_a", 2) // the member and the new invitation
}
