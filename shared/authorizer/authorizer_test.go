package authorizer_test

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/authorizer"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const (
	keyAdmin    = "wk_authAdminKey00000000000000000000000001"
	keyRead     = "wk_authReadKey000000000000000000000000001"
	keyWrite    = "wk_authWriteKey00000000000000000000000001"
	keyInvite   = "wk_authInviteKey0000000000000000000000001"
	keyDisabled = "wk_authDisabledKey00000000000000000000001"
	keyExpired  = "wk_authExpiredKey000000000000000000000001"
	keyNoScope  = "wk_authNoScopeKey000000000000000000000001"
	// keyOwnerLeft belongs to u_gone, who is no longer a member.
	keyOwnerLeft = "wk_authOwnerLeftKey0000000000000000000001"
)

const fixtureJSON = `{"workspaces": [{"id": "ws_auth", "name": "Auth Co", "seats": 50, "teamSettingsEnabled": true,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
 "members": [{"id": "u_1", "email": "one@auth.example", "name": "One", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "teams": [], "agents": [], "invites": [], "events": [],
 "apiKeys": [
  {"key": "` + keyAdmin + `", "name": "admin", "userId": "u_1", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false},
  {"key": "` + keyRead + `", "name": "read", "userId": "u_1", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
  {"key": "` + keyWrite + `", "name": "write", "userId": "u_1", "scopes": ["write"], "teamId": null, "expiresAt": null, "disabled": false},
  {"key": "` + keyInvite + `", "name": "invite", "userId": "u_1", "scopes": ["invite"], "teamId": null, "expiresAt": null, "disabled": false},
  {"key": "` + keyDisabled + `", "name": "disabled", "userId": "u_1", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": true},
  {"key": "` + keyNoScope + `", "name": "none", "userId": "u_1", "scopes": [], "teamId": null, "expiresAt": null, "disabled": false},
  {"key": "` + keyOwnerLeft + `", "name": "former member's", "userId": "u_gone", "scopes": ["read"], "teamId": null, "expiresAt": null, "disabled": false},
  {"key": "` + keyExpired + `", "name": "expired", "userId": "u_1", "scopes": ["read"], "teamId": null, "expiresAt": "2026-11-21T11:59:59Z", "disabled": false}
 ]}]}`

const unauthorizedMessage = "missing or invalid API key"

func TestBadCredentialsAre401WithOneGenericMessage(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON)
	tests := []struct{ name, header string }{
		{"no header", ""},
		{"not a bearer credential", "Basic dXNlcjpwYXNz"},
		{"bearer without token", "Bearer "},
		{"malformed key", "Bearer wk_short"},
		{"unknown key", "Bearer wk_unknownKey000000000000000000000000001"},
		{"disabled key", "Bearer " + keyDisabled},
		{"expired key", "Bearer " + keyExpired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := doWithHeader(t, env, http.MethodGet, "/workspaceapi/invites", tc.header)
			if res.Status != http.StatusUnauthorized {
				t.Fatalf("status = %d (%s), want 401", res.Status, res.Body)
			}
			if msg := res.Error(t); msg != unauthorizedMessage {
				t.Errorf("error = %q, want %q", msg, unauthorizedMessage)
			}
		})
	}
}

func TestScopesDecideWhatAKeyMayCall(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON)
	tests := []struct {
		key, method string
		wantAllowed bool
	}{
		{keyAdmin, http.MethodGet, true},
		{keyAdmin, http.MethodPost, true},
		{keyAdmin, http.MethodDelete, true},
		{keyRead, http.MethodGet, true},
		{keyRead, http.MethodPost, false},
		{keyRead, http.MethodDelete, false},
		{keyWrite, http.MethodGet, false},
		{keyWrite, http.MethodPost, false}, // invites need invite, not write
		{keyWrite, http.MethodDelete, false},
		{keyInvite, http.MethodGet, false},
		{keyInvite, http.MethodPost, true},
		{keyInvite, http.MethodDelete, true},
	}
	bodies := map[string]string{
		http.MethodPost:   `{"email": "x@auth.example", "role": "member"}`,
		http.MethodDelete: `{"ids": ["inv_none"]}`,
	}
	for _, tc := range tests {
		res := env.Do(t, tc.method, "/workspaceapi/invites", tc.key, bodies[tc.method])
		if allowed := res.Status != http.StatusForbidden; allowed != tc.wantAllowed {
			t.Errorf("%s with key %s: status %d (%s), want allowed=%v", tc.method, tc.key[:14], res.Status, res.Body, tc.wantAllowed)
		}
	}
}

func TestCachedPolicyCoversEveryRouteTheKeyMayCall(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON, apitest.Options{AuthorizerTTL: 5 * time.Minute})
	if res := env.Do(t, http.MethodGet, "/workspaceapi/invites", keyAdmin, ""); res.Status != http.StatusOK {
		t.Fatalf("GET: %d %s", res.Status, res.Body)
	}
	res := env.Do(t, http.MethodPost, "/workspaceapi/invites", keyAdmin, `{"email": "cached@auth.example", "role": "member"}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("POST after a cached GET: %d %s, want 201", res.Status, res.Body)
	}
	if res.AuthorizerTrips != 0 {
		t.Errorf("the cached decision still cost %d authorizer round trips", res.AuthorizerTrips)
	}
	if res := env.Do(t, http.MethodGet, "/workspaceapi/invites", keyRead, ""); res.Status != http.StatusOK {
		t.Fatalf("GET read key: %d", res.Status)
	}
	if res := env.Do(t, http.MethodPost, "/workspaceapi/invites", keyRead, `{"email": "y@auth.example", "role": "member"}`); res.Status != http.StatusForbidden {
		t.Errorf("POST with a cached read-only policy: %d, want 403", res.Status)
	}
}

// TestAuthorizerStaysWithinTwoRoundTrips: two reads (the key, its owner),
// plus the write of lastUsedAt on a key's first use of the hour only.
func TestAuthorizerStaysWithinTwoRoundTrips(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON)
	for i, want := range []int{3, 2, 2} {
		res := env.Do(t, http.MethodGet, "/workspaceapi/invites", keyAdmin, "")
		if res.Status != http.StatusOK {
			t.Fatalf("status %d", res.Status)
		}
		if res.AuthorizerTrips != want {
			t.Errorf("request %d: authorizer took %d round trips, want %d", i+1, res.AuthorizerTrips, want)
		}
	}
}

// TestAFailedLastUsedWriteNeverFailsTheRequest: with the table's writes
// failing for the authorizer, a key is still authorized (the write is
// bookkeeping, logged and dropped).
func TestAFailedLastUsedWriteNeverFailsTheRequest(t *testing.T) {
	t.Parallel()
	for _, fault := range []dynamolocal.Fault{dynamolocal.ServerError, dynamolocal.Hang} {
		t.Run(fault.String(), func(t *testing.T) {
			t.Parallel()
			faults := &dynamolocal.Faults{}
			t.Cleanup(faults.Close)
			faults.Arm(fault, 0, "UpdateItem")
			env := apitest.New(t, fixtureJSON, apitest.Options{
				FunctionOptions: func(fn string) []func(*dynamodb.Options) {
					if fn != "AuthorizerFunction" {
						return nil
					}
					return []func(*dynamodb.Options){dynamo.WithBounds(dynamo.ProductionBounds), faults.Option()}
				},
			})
			start := time.Now()
			res := env.Do(t, http.MethodGet, "/workspaceapi/invites", keyAdmin, "")
			if res.Status != http.StatusOK {
				t.Errorf("got %d %s, want 200", res.Status, res.Body)
			}
			if faults.Injected() == 0 {
				t.Error("the lastUsedAt write was never attempted")
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("the request took %v: the failed write held it up", took)
			}
		})
	}
}

func TestUnknownRoutesAre404WithOrWithoutAKey(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON)
	tests := []struct{ method, path, key string }{
		{http.MethodGet, "/nope", ""},
		{http.MethodGet, "/nope", keyAdmin},
		{http.MethodPut, "/workspaceapi/invites", ""},
		{http.MethodPut, "/workspaceapi/invites", keyAdmin},
		{http.MethodPatch, "/workspaceapi/invites", keyAdmin},
		{http.MethodGet, "/workspaceapi/invites/inv_1", keyAdmin},
		{http.MethodGet, "/workspaceapi/invites/", keyAdmin},
	}
	for _, tc := range tests {
		res := env.Do(t, tc.method, tc.path, tc.key, "")
		if res.Status != http.StatusNotFound || res.Error(t) != "not found" {
			t.Errorf("%s %s (key %v): %d %s, want 404 not found", tc.method, tc.path, tc.key != "", res.Status, res.Body)
		}
	}
}

func TestPolicyStatements(t *testing.T) {
	t.Parallel()
	const arn = "arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/GET/workspaceapi/invites"
	const base = "arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/"
	tests := []struct {
		name                string
		scopes              []workspace.Scope
		wantAllow, wantDeny []string
	}{
		{"read", []workspace.Scope{"read"}, []string{base + "GET/*"}, nil},
		{"write without invite", []workspace.Scope{"write"},
			[]string{base + "POST/*", base + "PUT/*", base + "PATCH/*", base + "DELETE/*"},
			[]string{base + "POST/workspaceapi/invites", base + "DELETE/workspaceapi/invites"}},
		{"invite only", []workspace.Scope{"invite"},
			[]string{base + "POST/workspaceapi/invites", base + "DELETE/workspaceapi/invites"}, nil},
		{"all", []workspace.Scope{"read", "write", "invite"},
			[]string{base + "GET/*", base + "POST/*", base + "PUT/*", base + "PATCH/*", base + "DELETE/*"}, nil},
		{"none", nil, nil, []string{base + "*"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var allow, deny []string
			for _, st := range authorizer.Policy(arn, tc.scopes).Statement {
				if st.Effect == "Allow" {
					allow = append(allow, st.Resource...)
				} else {
					deny = append(deny, st.Resource...)
				}
			}
			if !slices.Equal(allow, tc.wantAllow) || !slices.Equal(deny, tc.wantDeny) {
				t.Errorf("allow %v deny %v\nwant allow %v deny %v", allow, deny, tc.wantAllow, tc.wantDeny)
			}
		})
	}
}

func doWithHeader(t *testing.T, env *apitest.Env, method, path, header string) *apitest.Response {
	t.Helper()
	return env.DoRaw(t, method, path, map[string]string{"Authorization": header}, "")
}

func TestKeyWhoseOwnerLeftIs401(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON)
	res := env.Do(t, http.MethodGet, "/workspaceapi/invites", keyOwnerLeft, "")
	if res.Status != http.StatusUnauthorized || res.Error(t) != unauthorizedMessage {
		t.Errorf("key of a former member: %d %s, want 401 %q", res.Status, res.Body, unauthorizedMessage)
	}
}

func TestKeyWithoutScopesIs403(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON)
	if res := env.Do(t, http.MethodGet, "/workspaceapi/invites", keyNoScope, ""); res.Status != http.StatusForbidden {
		t.Errorf("key without scopes: %d %s, want 403", res.Status, res.Body)
	}
}

func TestRepeatedAuthorizationIsRefusedBeforeAnyStoreRead(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON)
	handler := authorizer.New(env.Store, env.Clock)
	valid, disabled := "Bearer "+keyAdmin, "Bearer "+keyDisabled
	const arn = "arn:aws:execute-api:us-east-1:123456789012:local/v1/GET/workspaceapi/invites"
	tests := []struct {
		name      string
		single    map[string]string
		multi     map[string][]string
		wantAllow bool
	}{
		{"one value in both views is allowed", map[string]string{"Authorization": valid}, map[string][]string{"Authorization": {valid}}, true},
		{"one value, Headers only (a hand-made event), is allowed", map[string]string{"authorization": valid}, nil, true},
		{"disabled then valid is refused", map[string]string{"Authorization": valid}, map[string][]string{"Authorization": {disabled, valid}}, false},
		{"valid then disabled is refused", map[string]string{"Authorization": disabled}, map[string][]string{"Authorization": {valid, disabled}}, false},
		{"the same key twice is refused", map[string]string{"Authorization": valid}, map[string][]string{"Authorization": {valid, valid}}, false},
		{"names differing in case count together", map[string]string{"Authorization": valid}, map[string][]string{"Authorization": {valid}, "authorization": {disabled}}, false},
		{"two spellings in Headers are refused", map[string]string{"Authorization": valid, "AUTHORIZATION": disabled}, nil, false},
		{"views that disagree are refused", map[string]string{"Authorization": valid}, map[string][]string{"authorization": {disabled}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env.FunctionTrips.Reset()
			_, err := handler(t.Context(), events.APIGatewayCustomAuthorizerRequestTypeRequest{
				Type: "REQUEST", MethodArn: arn, Headers: tc.single, MultiValueHeaders: tc.multi,
			})
			if gotAllow := err == nil; gotAllow != tc.wantAllow {
				t.Fatalf("allowed: got %v (error %v), want %v", gotAllow, err, tc.wantAllow)
			}
			if tc.wantAllow {
				return
			}
			if !errors.Is(err, authorizer.ErrUnauthorized) {
				t.Errorf("error: got %v, want ErrUnauthorized", err)
			}
			if n := env.FunctionTrips.Count(); n != 0 {
				t.Errorf("store round trips: got %d, want 0 (refused before any read)", n)
			}
		})
	}
}

// sendAuthorization sends GET /workspaceapi/invites with the given
// Authorization values, each as its own header line.
func sendAuthorization(t *testing.T, env *apitest.Env, values ...string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.URL+"/workspaceapi/invites", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		req.Header.Add("Authorization", v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode >= 400 {
		apitest.CheckErrorBody(t, res.Header, body)
	}
	return res.StatusCode
}

func TestRepeatedAuthorizationNeverAuthenticatesThroughTheCache(t *testing.T) {
	t.Parallel()
	valid, disabled := "Bearer "+keyAdmin, "Bearer "+keyDisabled
	steps := []struct {
		name   string
		values []string
		want   int
	}{
		{"the valid key alone", []string{valid}, 200},
		{"disabled beside the valid key", []string{disabled, valid}, 401},
		{"valid beside the disabled key", []string{valid, disabled}, 401},
		{"the valid key alone, afterwards", []string{valid}, 200},
		{"the disabled key alone, afterwards", []string{disabled}, 401},
		{"the pair again: never cached as valid", []string{disabled, valid}, 401},
	}
	env := apitest.New(t, fixtureJSON, apitest.Options{AuthorizerTTL: 5 * time.Minute})
	for _, s := range steps {
		if got := sendAuthorization(t, env, s.values...); got != s.want {
			t.Errorf("%s: got %d, want %d", s.name, got, s.want)
		}
	}
}

// API Gateway applies a usage plan to the value the authorizer names
// (usageIdentifierKey; the API's key source is AUTHORIZER): every key of a
// workspace must name the workspace's one identifier, so the workspace's
// requests are throttled together whichever key sends them.
func TestEveryKeyOfAWorkspaceNamesTheWorkspacesUsageIdentifier(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixtureJSON)
	handler := authorizer.New(env.Store, env.Clock)
	const arn = "arn:aws:execute-api:us-east-1:123456789012:local/v1/GET/workspaceapi/invites"
	want := workspace.UsageIdentifier("ws_auth")
	tests := []struct{ name, key string }{
		{"admin key", keyAdmin},
		{"read-only key", keyRead},
		{"invite-only key", keyInvite},
		{"key without scopes (refused by its policy, still counted)", keyNoScope},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := handler(t.Context(), events.APIGatewayCustomAuthorizerRequestTypeRequest{
				Type: "REQUEST", MethodArn: arn, Headers: map[string]string{"Authorization": "Bearer " + tc.key},
			})
			if err != nil {
				t.Fatalf("authorizer: %v", err)
			}
			if res.UsageIdentifierKey != want {
				t.Errorf("usageIdentifierKey: got %q, want %q", res.UsageIdentifierKey, want)
			}
		})
	}
}
