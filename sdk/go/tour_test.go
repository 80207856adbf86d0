package workspaceapi_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/oapi-codegen/nullable"

	workspaceapi "github.com/agentplatform/workspaceapi/sdk/go"
)

// The README's demo keys (infra/fixtures/demo.json).
const (
	adminKey    = "wk_demoAdminKey0000000000000000000000000001"
	readOnlyKey = "wk_demoReadOnlyKey0000000000000000000000002"
)

// baseURL is the local stack the tour walks: WORKSPACEAPI_TEST_URL, which
// the repository's infra/sdktest sets when it starts the stack with the demo
// fixture (make test). Without it, the tour is skipped: it needs the stack.
func baseURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("WORKSPACEAPI_TEST_URL")
	if u == "" {
		t.Skip("WORKSPACEAPI_TEST_URL is not set: the tour runs against the local stack (go test ./infra/sdktest in the repository)")
	}
	return u
}

func client(t *testing.T, key string, opts ...workspaceapi.Option) *workspaceapi.ClientWithResponses {
	t.Helper()
	c, err := workspaceapi.New(baseURL(t), key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apiError is err as *APIError, failing the test when it is not one.
func apiError(t *testing.T, err error) *workspaceapi.APIError {
	t.Helper()
	var e *workspaceapi.APIError
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *APIError", err, err)
	}
	return e
}

func TestTourListsEveryAgentPageByPage(t *testing.T) {
	c := client(t, adminKey)
	ctx := context.Background()
	var pages int
	var ids []string
	for agent, err := range workspaceapi.All(ctx, func(ctx context.Context, cursor *string) ([]workspaceapi.Agent, nullable.Nullable[string], error) {
		pages++
		limit := 2
		r, err := c.ListAgentsWithResponse(ctx, &workspaceapi.ListAgentsParams{Limit: &limit, Cursor: cursor})
		if err != nil {
			return nil, nil, err
		}
		return r.JSON200.Agents, r.JSON200.NextCursor, nil
	}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, agent.Id)
	}
	if len(ids) != 6 || !slices.IsSorted(ids) || pages != 3 {
		t.Fatalf("agents %v in %d pages; want the demo's 6 agents in id order, 2 a page", ids, pages)
	}
}

func TestTourPagesThroughTheMembers(t *testing.T) {
	c := client(t, adminKey)
	n := 0
	for _, err := range workspaceapi.All(context.Background(), func(ctx context.Context, cursor *string) ([]workspaceapi.Member, nullable.Nullable[string], error) {
		limit := 3
		r, err := c.ListMembersWithResponse(ctx, &workspaceapi.ListMembersParams{Limit: &limit, Cursor: cursor})
		if err != nil {
			return nil, nil, err
		}
		return r.JSON200.Members, r.JSON200.NextCursor, nil
	}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 10 {
		t.Fatalf("%d members, want the demo's 10", n)
	}
}

func TestTourSetsAndRemovesCreditLimits(t *testing.T) {
	c := client(t, adminKey)
	ctx := context.Background()
	r, err := c.SetAgentCreditLimitsWithResponse(ctx, nil, workspaceapi.CreditLimitsRequest{
		Ids: []string{"agt_onboarding"}, DailyCreditLimit: nullable.NewNullableWithValue(5.0),
		MonthlyCreditLimit: nullable.NewNullNullable[float64](),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.JSON200.AsCreditLimitsResult()
	if err != nil || len(res.Results) != 1 || !res.Results[0].Success {
		t.Fatalf("credit limits: %+v, %v", res, err)
	}
	overview := true
	list, err := c.ListAgentsWithResponse(ctx, &workspaceapi.ListAgentsParams{IncludeOverview: &overview})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list.JSON200.Agents {
		if a.Id != "agt_onboarding" {
			continue
		}
		daily, _ := a.Overview.DailyCreditLimit.Get()
		if daily != 5 || !a.Overview.MonthlyCreditLimit.IsNull() {
			t.Fatalf("the agent's limits after the change: %+v", a.Overview)
		}
		return
	}
	t.Fatal("agt_onboarding is not listed")
}

func TestTourInvitesAndErrorsAreTyped(t *testing.T) {
	ctx := context.Background()
	teams := []struct {
		Role   workspaceapi.CreateInviteRequestTeamsRole `json:"role"`
		TeamId string                                    `json:"teamId"`
	}{{Role: "member", TeamId: "team_platform"}}
	r, err := client(t, adminKey).CreateInviteWithResponse(ctx, nil, workspaceapi.CreateInviteRequest{
		Email: "hedy@acme.example", Role: workspaceapi.CreateInviteRequestRoleMember, Teams: &teams,
	})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := r.JSON201.AsInvitation()
	if err != nil || r.StatusCode() != http.StatusCreated || !strings.HasPrefix(inv.Id, "inv_") {
		t.Fatalf("invite: %d %s, %v", r.StatusCode(), r.Body, err)
	}

	// A key without the invite scope: 403, as an *APIError with the API's message.
	_, err = client(t, readOnlyKey).CreateInviteWithResponse(ctx, nil, workspaceapi.CreateInviteRequest{
		Email: "ann@acme.example", Role: workspaceapi.CreateInviteRequestRoleMember,
	})
	if e := apiError(t, err); e.Status != http.StatusForbidden || e.Message == "" {
		t.Fatalf("read-only key inviting: %+v", e)
	}
	// A free e-mail domain: 400.
	_, err = client(t, adminKey).CreateInviteWithResponse(ctx, nil, workspaceapi.CreateInviteRequest{
		Email: "someone@gmail.com", Role: workspaceapi.CreateInviteRequestRoleMember,
	})
	if e := apiError(t, err); e.Status != http.StatusBadRequest {
		t.Fatalf("gmail invite: %+v", e)
	}
	// No key at all: 401.
	_, err = client(t, "").ListInvitesWithResponse(ctx, nil)
	if e := apiError(t, err); e.Status != http.StatusUnauthorized || e.Message != "missing or invalid API key" {
		t.Fatalf("no key: %+v", e)
	}
}

func TestTourTagsAreIdempotentUnderOneKey(t *testing.T) {
	c := client(t, adminKey)
	ctx := context.Background()
	key := "sdk-go-tour-tags"
	params := &workspaceapi.SetAgentTagsParams{IdempotencyKey: &key}
	body := workspaceapi.TagsRequest{Ids: []string{"agt_kb_search"}, Tags: []string{"faq"}}
	first, err := c.SetAgentTagsWithResponse(ctx, params, body)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.SetAgentTagsWithResponse(ctx, params, body)
	if err != nil {
		t.Fatal(err)
	}
	if again.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
		t.Fatalf("the repeat: %s %v, want the first answer replayed", again.Body, again.HTTPResponse.Header)
	}
	// The same key with another body: 422.
	body.Tags = []string{"docs"}
	_, err = c.SetAgentTagsWithResponse(ctx, params, body)
	if e := apiError(t, err); e.Status != http.StatusUnprocessableEntity {
		t.Fatalf("the key reused: %+v", e)
	}
}

// dropFirstAnswer delivers the first request and then loses its answer, as a
// connection cut after the server acted does.
type dropFirstAnswer struct {
	n    atomic.Int32
	keys []string
}

func (d *dropFirstAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	d.keys = append(d.keys, r.Header.Get("Idempotency-Key"))
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && d.n.Add(1) == 1 {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return nil, errors.New("connection reset (simulated)")
	}
	return resp, err
}

func TestTourARetriedWriteIsAppliedOnce(t *testing.T) {
	lossy := &dropFirstAnswer{}
	c := client(t, adminKey, workspaceapi.HTTPClient(&http.Client{Transport: lossy}))
	ctx := context.Background()
	r, err := c.CreateTeamWithResponse(ctx, nil, workspaceapi.CreateTeamJSONRequestBody{Name: "SDK Go Retry"})
	if err != nil {
		t.Fatal(err)
	}
	if r.StatusCode() != http.StatusCreated || r.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retried create: %d %v %s; want the first answer, replayed", r.StatusCode(), r.HTTPResponse.Header, r.Body)
	}
	if len(lossy.keys) != 2 || lossy.keys[0] == "" || lossy.keys[0] != lossy.keys[1] {
		t.Fatalf("Idempotency-Keys sent: %q; want one generated key, sent twice", lossy.keys)
	}
	teams, err := client(t, adminKey).ListTeamsWithResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(teams.Body), `"SDK Go Retry"`); n != 1 {
		t.Fatalf("%d teams named SDK Go Retry, want 1: %s", n, teams.Body)
	}
}

func TestTourCreatesUsesAndRevokesAKey(t *testing.T) {
	ctx := context.Background()
	admin := client(t, adminKey)
	days := 30
	r, err := admin.CreateKeyWithResponse(ctx, nil, workspaceapi.CreateApiKeyRequest{
		Name: "SDK tour", Scopes: []workspaceapi.CreateApiKeyRequestScopes{workspaceapi.CreateApiKeyRequestScopesRead},
		ExpiresInDays: &days,
	})
	if err != nil {
		t.Fatal(err)
	}
	created, err := r.JSON201.AsApiKeyCreated()
	if err != nil || !strings.HasPrefix(created.Key, "wk_") {
		t.Fatalf("new key: %s, %v", r.Body, err)
	}
	reader := client(t, created.Key)
	if _, err := reader.ListAgentsWithResponse(ctx, nil); err != nil {
		t.Fatalf("the new key lists agents: %v", err)
	}
	if _, err := admin.RevokeKeyWithResponse(ctx, created.Id, nil); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	_, err = reader.ListAgentsWithResponse(ctx, nil)
	if e := apiError(t, err); e.Status != http.StatusUnauthorized {
		t.Fatalf("the revoked key: %+v", e)
	}
}
