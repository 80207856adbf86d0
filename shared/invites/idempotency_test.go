package invites_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// createWithKey sends POST /workspaceapi/invites with an Idempotency-Key.
func createWithKey(t *testing.T, env *apitest.Env, idem, body string) *apitest.Response {
	t.Helper()
	return env.DoRaw(t, http.MethodPost, invitesPath,
		map[string]string{"Authorization": "Bearer " + keyAdmin, httpapi.IdempotencyKeyHeader: idem}, body)
}

func isReplay(res *apitest.Response) bool {
	return res.Header.Get(httpapi.IdempotentReplayedHeader) == "true"
}

func TestAReplayedInvitationSendsNoSecondEmailAndTakesNoSecondSeat(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	body := `{"email": "once@alpha.example", "role": "member"}`
	first := createWithKey(t, env, "invite-once", body)
	if first.Status != http.StatusCreated || isReplay(first) {
		t.Fatalf("first: %d %s, want 201", first.Status, first.Body)
	}
	var inv invites.Resource
	first.JSON(t, &inv)
	for range 2 {
		again := createWithKey(t, env, "invite-once", body)
		if again.Status != http.StatusCreated || !isReplay(again) || !bytes.Equal(again.Body, first.Body) {
			t.Errorf("repeat: %d %s (replayed %v), want the first 201 replayed", again.Status, again.Body, isReplay(again))
		}
	}
	if n := len(env.Mail.Sent()); n != 1 {
		t.Errorf("e-mails sent = %d, want 1", n)
	}
	assertSeatsUsed(t, env, "ws_a", 4) // 2 members, the fixture's pending invitation and this one
	// Revoked meanwhile: a repeat still gets the first answer and creates nothing.
	if rev := env.Do(t, http.MethodDelete, invitesPath, keyAdmin, `{"ids": ["`+inv.ID+`"]}`); rev.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", rev.Status, rev.Body)
	}
	if again := createWithKey(t, env, "invite-once", body); !isReplay(again) {
		t.Errorf("repeat after the revoke: %d %s, want the replay", again.Status, again.Body)
	}
	for _, i := range listInvites(t, env, keyAdmin) {
		if i.Email == "once@alpha.example" {
			t.Errorf("invitation %s exists after the revoke: the repeat created it again", i.ID)
		}
	}
	assertSeatsUsed(t, env, "ws_a", 3)
	if n := len(env.Mail.Sent()); n != 1 {
		t.Errorf("e-mails sent = %d, want 1", n)
	}
}

func TestARefusedInvitationIsKeptAndReplayedToo(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	body := `{"email": "boss@alpha.example", "role": "admin"}`
	first := createWithKey(t, env, "invite-refused", body)
	again := createWithKey(t, env, "invite-refused", body)
	if first.Status != http.StatusBadRequest || again.Status != first.Status || !isReplay(again) || !bytes.Equal(again.Body, first.Body) {
		t.Errorf("%d %s then %d %s (replayed %v), want the 400 replayed", first.Status, first.Body, again.Status, again.Body, isReplay(again))
	}
}

// failOnce fails its first e-mail, then sends.
type failOnce struct {
	mu     sync.Mutex
	failed bool
	sent   int
}

func (m *failOnce) Send(context.Context, mail.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.failed {
		m.failed = true
		return errors.New("SES: throttled")
	}
	m.sent++
	return nil
}

func TestAFailedInvitationIsNotKeptSoTheRetryRunsAndSendsOneEmail(t *testing.T) {
	t.Parallel()
	mailer := &failOnce{}
	env := apitest.New(t, testFixture, apitest.Options{Mailer: mailer})
	body := `{"email": "retry.me@alpha.example", "role": "member"}`
	if first := createWithKey(t, env, "invite-retry", body); first.Status != http.StatusServiceUnavailable {
		t.Fatalf("first: %d %s, want 503", first.Status, first.Body)
	}
	retry := createWithKey(t, env, "invite-retry", body)
	if retry.Status != http.StatusCreated || isReplay(retry) {
		t.Errorf("retry: %d %s (replayed %v), want 201 run again", retry.Status, retry.Body, isReplay(retry))
	}
	if again := createWithKey(t, env, "invite-retry", body); !isReplay(again) || !bytes.Equal(again.Body, retry.Body) {
		t.Errorf("after the retry: %d %s, want the retry's 201 replayed", again.Status, again.Body)
	}
	if mailer.sent != 1 {
		t.Errorf("e-mails sent = %d, want 1", mailer.sent)
	}
	assertSeatsUsed(t, env, "ws_a", 4)
}

// panickingSetup is the real store whose first read crashes the request.
type panickingSetup struct{ invites.Store }

func (panickingSetup) InviteSetup(context.Context, string, string, string) (dynamo.InviteSetup, error) {
	panic("the process died")
}

func TestARequestThatPanicsReleasesItsKey(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	idem := httpapi.Idempotency{Store: env.Store, Clock: env.Clock}
	deps := func(store invites.Store) invites.Deps {
		return invites.Deps{Store: store, Mailer: env.Mail, Clock: env.Clock, IDs: workspace.SortableIDs{Clock: env.Clock},
			AcceptURL: "https://app.example/accept", Idempotency: idem}
	}
	event := events.APIGatewayProxyRequest{
		HTTPMethod: http.MethodPost, Path: invitesPath, Resource: invitesPath, Body: `{"email": "phoenix@alpha.example", "role": "member"}`,
		Headers:        map[string]string{"Content-Type": "application/json", httpapi.IdempotencyKeyHeader: "invite-panic"},
		RequestContext: events.APIGatewayProxyRequestContext{Authorizer: callerContext("read write invite", "")},
	}
	invoke := func(fn httpapi.ProxyHandler) (res events.APIGatewayProxyResponse, panicked bool) {
		defer func() { panicked = recover() != nil }()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		res, err := fn(ctx, event)
		if err != nil {
			t.Fatalf("invoke: %v", err)
		}
		return res, false
	}
	if _, panicked := invoke(invites.Function(deps(panickingSetup{env.Store}))); !panicked {
		t.Fatal("the request did not panic")
	}
	res, panicked := invoke(invites.Function(deps(env.Store)))
	if panicked || res.StatusCode != http.StatusCreated || res.MultiValueHeaders[httpapi.IdempotentReplayedHeader] != nil {
		t.Errorf("retry: %d %s %v, want 201 run again", res.StatusCode, res.Body, res.MultiValueHeaders)
	}
	if n := len(env.Mail.Sent()); n != 1 {
		t.Errorf("e-mails sent = %d, want 1", n)
	}
}
