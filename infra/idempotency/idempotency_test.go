// Package idempotency_test holds every write of the API to its
// Idempotency-Key rules (docs/idempotency.md), through the local gateway,
// the real authorizer and the real handlers, against DynamoDB Local: a
// repeat gets the first answer again and changes nothing; another request
// under the same key is 422; a repeat while the first runs is 409; a 5xx is
// not kept; an answer is kept 24 hours; keys are per API key and workspace.
package idempotency_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/authctx"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// Keys of the demo fixture.
const (
	adminKey     = "wk_demoAdminKey0000000000000000000000000001"
	adminKeyID   = "key_acme_admin"
	writeOnlyKey = "wk_demoWriteOnlyKey000000000000000000000003"
	globexKey    = "wk_demoGlobexAdminKey0000000000000000000009"
	agentTags    = "/workspaceapi/agents/tags"
)

// send sends a request with the bearer key and, when idem is not empty, an
// Idempotency-Key; the answer is checked against the OpenAPI document.
func send(t *testing.T, env *apitest.Env, method, path, key, idem, body string) *apitest.Response {
	t.Helper()
	return env.DoRaw(t, method, path, map[string]string{"Authorization": "Bearer " + key, httpapi.IdempotencyKeyHeader: idem}, body)
}

func replayed(res *apitest.Response) bool {
	return res.Header.Get(httpapi.IdempotentReplayedHeader) == "true"
}

// agentTagsOf reads an agent's tags.
func agentTagsOf(t *testing.T, env *apitest.Env, id string) []string {
	t.Helper()
	var agent struct{ Tags []string }
	env.Do(t, http.MethodGet, "/workspaceapi/agents/"+id, adminKey, "").JSON(t, &agent)
	return agent.Tags
}

func TestARepeatedBatchGetsTheFirstAnswerAgainAndChangesNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body, undo string
		changed                func(env *apitest.Env) string
	}{
		{"tags", agentTags, `{"ids": ["agt_onboarding", "agt_unknown"], "tags": ["pilot"]}`,
			`{"ids": ["agt_onboarding"], "tags": ["pilot"], "mode": "remove"}`,
			func(env *apitest.Env) string { return fmt.Sprint(agentTagsOf(t, env, "agt_onboarding")) }},
		{"agent credit limits", "/workspaceapi/agents/credit-limits", `{"ids": ["agt_kb_search", "agt_unknown"], "dailyCreditLimit": 7}`,
			`{"ids": ["agt_kb_search"], "dailyCreditLimit": 9}`,
			func(env *apitest.Env) string {
				var list struct {
					Agents []struct {
						ID       string
						Overview struct{ DailyCreditLimit *float64 }
					}
				}
				env.Do(t, http.MethodGet, "/workspaceapi/agents?includeOverview=true&limit=1000", adminKey, "").JSON(t, &list)
				for _, a := range list.Agents {
					if a.ID == "agt_kb_search" && a.Overview.DailyCreditLimit != nil {
						return fmt.Sprint(*a.Overview.DailyCreditLimit)
					}
				}
				return "none"
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := apitest.New(t, apitest.DemoFixture(t))
			first := send(t, env, http.MethodPost, tc.path, adminKey, "batch-1", tc.body)
			if first.Status != http.StatusOK || replayed(first) {
				t.Fatalf("first: %d %s (replayed %v), want 200 not replayed", first.Status, first.Body, replayed(first))
			}
			// Another request (no key) changes the state; the repeat must
			// not change it back.
			if undo := env.Do(t, http.MethodPost, tc.path, adminKey, tc.undo); undo.Status != http.StatusOK {
				t.Fatalf("undo: %d %s", undo.Status, undo.Body)
			}
			before := tc.changed(env)
			again := send(t, env, http.MethodPost, tc.path, adminKey, "batch-1", tc.body)
			if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) || !replayed(again) {
				t.Errorf("repeat: %d %s (replayed %v)\nwant  %d %s replayed", again.Status, again.Body, replayed(again), first.Status, first.Body)
			}
			if got := again.Header.Get("Content-Type"); got != first.Header.Get("Content-Type") {
				t.Errorf("repeat Content-Type %q, want %q", got, first.Header.Get("Content-Type"))
			}
			if again.FunctionTrips != 1 {
				t.Errorf("repeat made %d round trips, want 1 (the refused claim that reads the kept answer)", again.FunctionTrips)
			}
			if after := tc.changed(env); after != before {
				t.Errorf("the repeat changed the state: %s, want %s", after, before)
			}
		})
	}
}

func TestTheSameKeyWithAnotherRequestIs422(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	body := `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`
	if first := send(t, env, http.MethodPost, agentTags, adminKey, "k-422", body); first.Status != http.StatusOK {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	tests := []struct{ name, method, path, body string }{
		{"another body", http.MethodPost, agentTags, `{"ids": ["agt_onboarding"], "tags": ["other"]}`},
		{"the same body spelled otherwise", http.MethodPost, agentTags, `{"tags": ["pilot"], "ids": ["agt_onboarding"]}`},
		{"another path of the same function", http.MethodPost, "/workspaceapi/teams/tags", body},
		{"another query", http.MethodPost, agentTags + "?x=1", body},
		{"another function", http.MethodPost, "/workspaceapi/agents/credit-details", `{"ids": ["agt_onboarding"], "showTokenOptimisationInfo": true}`},
		{"another method", http.MethodDelete, "/workspaceapi/teams/team_support/members/usr_maya", ""},
	}
	for _, tc := range tests {
		res := send(t, env, tc.method, tc.path, adminKey, "k-422", tc.body)
		if res.Status != http.StatusUnprocessableEntity || replayed(res) {
			t.Errorf("%s: %d %s, want 422", tc.name, res.Status, res.Body)
		}
	}
	if tags := agentTagsOf(t, env, "agt_onboarding"); !slices.Contains(tags, "pilot") || slices.Contains(tags, "other") {
		t.Errorf("tags %v after the refused requests, want pilot and not other", tags)
	}
	if team := env.Do(t, http.MethodGet, "/workspaceapi/teams/team_support", adminKey, ""); !strings.Contains(string(team.Body), "usr_maya") {
		t.Errorf("the refused DELETE removed usr_maya from team_support")
	}
}

func TestAnIdempotencyKeyOutsideItsBoundsIs400BeforeAnyRead(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	body := `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`
	tests := []struct{ name, key string }{
		{"256 characters", strings.Repeat("k", 256)},
		{"a space", "two words"},
		{"a tab", "a\tb"},
		{"a character outside ASCII", "clé"},
	}
	for _, tc := range tests {
		res := send(t, env, http.MethodPost, agentTags, adminKey, tc.key, body)
		if res.Status != http.StatusBadRequest || !strings.Contains(res.Error(t), "Idempotency-Key") || res.FunctionTrips != 0 {
			t.Errorf("%s: %d %s after %d round trips, want 400 naming the header before any", tc.name, res.Status, res.Body, res.FunctionTrips)
		}
	}
	for _, ok := range []string{"k", strings.Repeat("k", 255), "wk_lookslikeakey0000000000000000000000000", "!~{}\"'#/"} {
		if res := send(t, env, http.MethodPost, agentTags, adminKey, ok, body); res.Status != http.StatusOK {
			t.Errorf("key %q: %d %s, want 200", ok, res.Status, res.Body)
		}
	}
	// Two headers are refused too.
	req, err := http.NewRequest(http.MethodPost, env.URL+agentTags, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header[httpapi.IdempotencyKeyHeader] = []string{"one", "two"}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(text), "at most one") {
		t.Errorf("two headers: %d %s, want 400", res.StatusCode, text)
	}
}

func TestAKeyShapedIdempotencyKeyIsNeverEchoed(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	key := "wk_" + strings.Repeat("A", 40)
	send(t, env, http.MethodPost, agentTags, adminKey, key, `{"ids": ["agt_onboarding"], "tags": ["a"]}`)
	for _, res := range []*apitest.Response{
		send(t, env, http.MethodPost, agentTags, adminKey, key, `{"ids": ["agt_onboarding"], "tags": ["b"]}`),
		send(t, env, http.MethodPost, agentTags, adminKey, key+" ", `{"ids": ["agt_onboarding"], "tags": ["b"]}`),
	} {
		if res.Status < 400 || workspace.ContainsKey(string(res.Body)) || workspace.ContainsKey(fmt.Sprint(res.Header)) {
			t.Errorf("%d %s %v: an error that echoes no key-shaped text expected", res.Status, res.Body, res.Header)
		}
	}
}

func TestWithoutTheHeaderAWriteCostsNothingMore(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	body := func(tag string) string { return `{"ids": ["agt_onboarding"], "tags": ["` + tag + `"]}` }
	plain := env.Do(t, http.MethodPost, agentTags, adminKey, body("a"))
	keyed := send(t, env, http.MethodPost, agentTags, adminKey, "cost-1", body("b"))
	repeat := send(t, env, http.MethodPost, agentTags, adminKey, "cost-1", body("b"))
	if plain.Status != 200 || keyed.Status != 200 || repeat.Status != 200 {
		t.Fatalf("statuses %d %d %d, want 200", plain.Status, keyed.Status, repeat.Status)
	}
	if got, want := keyed.FunctionTrips, plain.FunctionTrips+2; got != want {
		t.Errorf("with the header: %d round trips, want %d (the claim and the kept answer on top of %d)", got, want, plain.FunctionTrips)
	}
	if repeat.FunctionTrips != 1 {
		t.Errorf("repeat: %d round trips, want 1", repeat.FunctionTrips)
	}
	// Reads ignore the header.
	get := env.Do(t, http.MethodGet, "/workspaceapi/agents/agt_onboarding", adminKey, "")
	keyedGet := send(t, env, http.MethodGet, "/workspaceapi/agents/agt_onboarding", adminKey, "cost-1", "")
	if keyedGet.Status != 200 || keyedGet.FunctionTrips != get.FunctionTrips || replayed(keyedGet) {
		t.Errorf("GET with the header: %d, %d round trips (replayed %v), want 200 and %d like without", keyedGet.Status,
			keyedGet.FunctionTrips, replayed(keyedGet), get.FunctionTrips)
	}
}

func TestA5xxIsNotKeptSoARetryRunsAgain(t *testing.T) {
	t.Parallel()
	faults := &dynamolocal.Faults{}
	t.Cleanup(faults.Close)
	env := apitest.New(t, apitest.DemoFixture(t), apitest.Options{FunctionOptions: func(fn string) []func(*dynamodb.Options) {
		if fn == "TagsFunction" {
			return []func(*dynamodb.Options){faults.Option()}
		}
		return nil
	}})
	body := `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`
	faults.Arm(dynamolocal.ServerError, 0, "BatchGetItem")
	failed := send(t, env, http.MethodPost, agentTags, adminKey, "retry-1", body)
	faults.Disarm()
	if failed.Status != http.StatusServiceUnavailable {
		t.Fatalf("under the fault: %d %s, want 503", failed.Status, failed.Body)
	}
	retry := send(t, env, http.MethodPost, agentTags, adminKey, "retry-1", body)
	if retry.Status != http.StatusOK || replayed(retry) {
		t.Errorf("retry: %d %s (replayed %v), want 200 run again", retry.Status, retry.Body, replayed(retry))
	}
	if tags := agentTagsOf(t, env, "agt_onboarding"); !slices.Contains(tags, "pilot") {
		t.Errorf("tags %v, want pilot among them", tags)
	}
	if again := send(t, env, http.MethodPost, agentTags, adminKey, "retry-1", body); !replayed(again) || !bytes.Equal(again.Body, retry.Body) {
		t.Errorf("after the retry: %d %s (replayed %v), want the retry's answer replayed", again.Status, again.Body, replayed(again))
	}
}

func TestAKeptAnswerExpiresAfter24Hours(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	body := `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`
	send(t, env, http.MethodPost, agentTags, adminKey, "day-1", body)
	env.Clock.Advance(workspace.IdempotencyKeep - time.Second)
	if res := send(t, env, http.MethodPost, agentTags, adminKey, "day-1", body); !replayed(res) {
		t.Errorf("a second before 24 hours: %d %s, want the replay", res.Status, res.Body)
	}
	// Past its time to live the record counts as gone, whether or not
	// DynamoDB has removed it yet (it may take a while).
	env.Clock.Advance(time.Second)
	res := send(t, env, http.MethodPost, agentTags, adminKey, "day-1", body)
	if res.Status != http.StatusOK || replayed(res) {
		t.Errorf("at 24 hours: %d %s (replayed %v), want it run again", res.Status, res.Body, replayed(res))
	}
	if !strings.Contains(string(res.Body), `"unchanged":true`) {
		t.Errorf("the second run: %s, want unchanged (the tag was there)", res.Body)
	}
}

func TestKeysAreTheirAPIKeysAndWorkspaces(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	first := send(t, env, http.MethodPost, agentTags, adminKey, "shared-key", `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`)
	if first.Status != http.StatusOK {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	// The same workspace's other key, the same request: its own key. (It
	// lacks read, so its answer is the cut one: its own run, never the
	// admin's answer replayed.)
	other := send(t, env, http.MethodPost, agentTags, writeOnlyKey, "shared-key", `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`)
	if other.Status != http.StatusOK || replayed(other) || bytes.Equal(other.Body, first.Body) || !strings.Contains(string(other.Body), `"success":true`) {
		t.Errorf("another API key: %d %s (replayed %v), want its own run", other.Status, other.Body, replayed(other))
	}
	// Another workspace's key never sees the answer: its own run, where the
	// agent does not exist.
	globex := send(t, env, http.MethodPost, agentTags, globexKey, "shared-key", `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`)
	if globex.Status != http.StatusOK || replayed(globex) || !strings.Contains(string(globex.Body), "agent not found") {
		t.Errorf("another workspace: %d %s (replayed %v), want its own run (not found)", globex.Status, globex.Body, replayed(globex))
	}
	// Each is kept apart: another body under the key is 422 for each alone.
	if res := send(t, env, http.MethodPost, agentTags, globexKey, "shared-key", `{"ids": ["agt_x"], "tags": ["pilot"]}`); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("globex, another body: %d, want 422", res.Status)
	}
	if res := send(t, env, http.MethodPost, agentTags, adminKey, "shared-key", `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`); !replayed(res) || !bytes.Equal(res.Body, first.Body) {
		t.Errorf("admin again: %d %s, want its first answer replayed", res.Status, res.Body)
	}
}

func TestRacingRepeatsRunOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	results := apitest.Parallel(8, func(int) *apitest.Response {
		return send(t, env, http.MethodPost, "/workspaceapi/teams", adminKey, "race-1", `{"name": "Research"}`)
	})
	runs := 0
	for _, res := range results {
		switch {
		case res.Status == http.StatusCreated && !replayed(res):
			runs++
		case res.Status == http.StatusCreated:
		case res.Status == http.StatusConflict && strings.Contains(res.Error(t), "still running"):
			if res.Header.Get("Retry-After") == "" {
				t.Errorf("409 without Retry-After")
			}
		default:
			t.Errorf("%d %s (replayed %v): a second run or an unexpected answer", res.Status, res.Body, replayed(res))
		}
	}
	if runs != 1 {
		t.Errorf("%d runs, want exactly 1", runs)
	}
	var list struct{ Teams []struct{ Name string } }
	env.Do(t, http.MethodGet, "/workspaceapi/teams", adminKey, "").JSON(t, &list)
	count := 0
	for _, team := range list.Teams {
		if team.Name == "Research" {
			count++
		}
	}
	if count != 1 {
		t.Errorf("%d teams named Research, want 1", count)
	}
}

func TestARunningClaimIs409UntilItsLeaseEnds(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	body := `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`
	// A request that claimed the key and then died (its function crashed
	// or timed out) left it running.
	k := workspace.IdempotencyKey{WorkspaceID: "ws_acme", KeyID: adminKeyID, Key: "crashed-1"}
	fp := workspace.RequestFingerprint(http.MethodPost, agentTags, "", []byte(body))
	if _, claimed, err := env.Store.ClaimIdempotencyKey(t.Context(), k, fp, "dead-claim", env.Clock.Now()); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	res := send(t, env, http.MethodPost, agentTags, adminKey, "crashed-1", body)
	if res.Status != http.StatusConflict || res.Header.Get("Retry-After") == "" {
		t.Errorf("while it runs: %d %s, want 409 with Retry-After", res.Status, res.Body)
	}
	if other := send(t, env, http.MethodPost, agentTags, adminKey, "crashed-1", `{"ids": ["agt_x"], "tags": ["b"]}`); other.Status != http.StatusUnprocessableEntity {
		t.Errorf("another request while it runs: %d, want 422", other.Status)
	}
	env.Clock.Advance(workspace.IdempotencyLease + time.Second)
	res = send(t, env, http.MethodPost, agentTags, adminKey, "crashed-1", body)
	if res.Status != http.StatusOK || replayed(res) {
		t.Errorf("after the lease: %d %s, want 200 run", res.Status, res.Body)
	}
	// The dead claim can no longer keep an answer over its successor's.
	err := env.Store.KeepIdempotentAnswer(t.Context(), k, "dead-claim", workspace.IdempotentAnswer{Status: 500}, env.Clock.Now())
	if err == nil {
		t.Errorf("the dead claim kept an answer")
	}
	if again := send(t, env, http.MethodPost, agentTags, adminKey, "crashed-1", body); !replayed(again) || !bytes.Equal(again.Body, res.Body) {
		t.Errorf("repeat: %d %s, want the successor's answer", again.Status, again.Body)
	}
}

// A write whose answer could not be kept (storage failed as it answered)
// holds its key until the lease ends, and is then never run again: its
// transaction marked the key's record applied, so a repeat after the lease
// answers 409 (its answer was lost) and the change lands once.
func TestAWriteWhoseAnswerWasLostIsNeverRunAgain(t *testing.T) {
	t.Parallel()
	faults := &dynamolocal.Faults{}
	t.Cleanup(faults.Close)
	env := apitest.New(t, apitest.DemoFixture(t), apitest.Options{
		FunctionOptions: func(fn string) []func(*dynamodb.Options) {
			if fn == "TagsFunction" {
				return []func(*dynamodb.Options){faults.Option()}
			}
			return nil
		},
	})
	body := `{"ids": ["agt_onboarding"], "tags": ["lost"], "mode": "set"}`
	faults.Arm(dynamolocal.ServerError, 0, "UpdateItem") // keeping the answer fails
	if res := send(t, env, http.MethodPost, agentTags, adminKey, "lost-1", body); res.Status != http.StatusOK {
		t.Fatalf("first: %d %s, want 200", res.Status, res.Body)
	}
	faults.Disarm()
	if res := send(t, env, http.MethodPost, agentTags, adminKey, "lost-1", body); res.Status != http.StatusConflict || res.Header.Get("Retry-After") == "" {
		t.Errorf("within the lease: %d %s, want 409 with Retry-After", res.Status, res.Body)
	}
	// Someone else sets other tags meanwhile: a second run would undo it.
	if res := env.Do(t, http.MethodPost, agentTags, adminKey, `{"ids": ["agt_onboarding"], "tags": ["later"], "mode": "set"}`); res.Status != http.StatusOK {
		t.Fatalf("other write: %d %s", res.Status, res.Body)
	}
	env.Clock.Advance(workspace.IdempotencyLease + time.Second)
	for range 2 {
		res := send(t, env, http.MethodPost, agentTags, adminKey, "lost-1", body)
		if res.Status != http.StatusConflict || res.Error(t) != workspace.ErrIdempotentAnswerLost.Error() {
			t.Errorf("after the lease: %d %s, want 409 %q", res.Status, res.Body, workspace.ErrIdempotentAnswerLost)
		}
	}
	if other := send(t, env, http.MethodPost, agentTags, adminKey, "lost-1", `{"ids": ["agt_x"], "tags": ["b"]}`); other.Status != http.StatusUnprocessableEntity {
		t.Errorf("another request with the key: %d, want 422", other.Status)
	}
	if got := agentTagsOf(t, env, "agt_onboarding"); !slices.Equal(got, []string{"later"}) {
		t.Errorf("tags %q, want [later]: the lost request ran again", got)
	}
}

// TestEveryWriteRouteTakesAnIdempotencyKey sends every write route of
// template.yaml, whatever function serves it, a request with a key twice:
// the second is the first answer replayed. A route added without the
// middleware fails here.
func TestEveryWriteRouteTakesAnIdempotencyKey(t *testing.T) {
	t.Parallel()
	tmpl, err := localgw.LoadTemplate(filepath.Join(apitest.RepoRoot(t), "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env := apitest.New(t, apitest.DemoFixture(t))
	writes := 0
	for _, r := range tmpl.Routes() {
		if r.Method == http.MethodGet {
			continue
		}
		writes++
		path := strings.NewReplacer("{teamId}", "team_support", "{userId}", "usr_nobody", "{agentId}", "agt_nobody", "{keyId}", "key_nobody").Replace(r.Path)
		key := "every-" + r.Method + "-" + path
		if bad := send(t, env, r.Method, path, adminKey, "bad key", `{}`); bad.Status != http.StatusBadRequest {
			t.Errorf("%s %s with a bad key: %d %s, want 400", r.Method, path, bad.Status, bad.Body)
		}
		first := send(t, env, r.Method, path, adminKey, key, `{}`)
		again := send(t, env, r.Method, path, adminKey, key, `{}`)
		if first.Status >= 500 || !replayed(again) || again.Status != first.Status || !bytes.Equal(again.Body, first.Body) {
			t.Errorf("%s %s: %d %s then %d %s (replayed %v), want the first answer replayed", r.Method, path,
				first.Status, first.Body, again.Status, again.Body, replayed(again))
		}
	}
	if writes == 0 {
		t.Fatal("no write route in template.yaml")
	}
}

// A new API key is shown once and never stored (docs/api-keys.md): the
// repeat of its create gets the 201 with the key resource alone, and no item
// of the table, kept answers included, holds the key.
func TestARepeatedKeyCreateNeverShowsNorStoresTheKey(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	body := `{"name": "nightly export", "scopes": ["read"]}`
	first := send(t, env, http.MethodPost, "/workspaceapi/keys", adminKey, "new-key-1", body)
	var created map[string]any
	first.JSON(t, &created)
	plaintext, _ := created["key"].(string)
	if first.Status != http.StatusCreated || !workspace.WellFormedKey(plaintext) || replayed(first) {
		t.Fatalf("first: %d %s, want 201 with the key", first.Status, first.Body)
	}
	again := send(t, env, http.MethodPost, "/workspaceapi/keys", adminKey, "new-key-1", body)
	var resource map[string]any
	again.JSON(t, &resource)
	delete(created, "key")
	if again.Status != http.StatusCreated || !replayed(again) || !reflect.DeepEqual(resource, created) {
		t.Errorf("repeat: %d %s (replayed %v), want 201 replayed with %v", again.Status, again.Body, replayed(again), created)
	}
	if strings.Contains(string(again.Body), plaintext) {
		t.Error("the repeat showed the key again")
	}
	items, err := tableops.ScanItems(t.Context(), env.Store)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if holdsText(it, plaintext) {
			t.Errorf("item %v %v holds the new key", it["PK"], it["SK"])
		}
	}
	if res := env.Do(t, http.MethodGet, "/workspaceapi/agents", plaintext, ""); res.Status != http.StatusOK {
		t.Errorf("the new key: %d %s, want it to work", res.Status, res.Body)
	}
}

// holdsText reports whether any attribute of item, nested or gzip-compressed
// (as kept answers are), holds s.
func holdsText(item map[string]types.AttributeValue, s string) bool {
	for _, v := range item {
		if avHolds(v, s) {
			return true
		}
	}
	return false
}

func avHolds(v types.AttributeValue, s string) bool {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return strings.Contains(v.Value, s)
	case *types.AttributeValueMemberSS:
		return slices.ContainsFunc(v.Value, func(x string) bool { return strings.Contains(x, s) })
	case *types.AttributeValueMemberB:
		if bytes.Contains(v.Value, []byte(s)) {
			return true
		}
		if zr, err := gzip.NewReader(bytes.NewReader(v.Value)); err == nil {
			plain, _ := io.ReadAll(zr)
			return bytes.Contains(plain, []byte(s))
		}
	case *types.AttributeValueMemberL:
		return slices.ContainsFunc(v.Value, func(x types.AttributeValue) bool { return avHolds(x, s) })
	case *types.AttributeValueMemberM:
		return holdsText(v.Value, s)
	}
	return false
}

// The last guard: an answer that holds key-shaped text, from a writer that
// said nothing of what to keep, is kept with the key redacted.
func TestAKeptAnswerNeverHoldsAKey(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.DemoFixture(t))
	leak := "wk_" + strings.Repeat("Q", 40)
	h := httpapi.Lambda(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"leak":"` + leak + `"}`))
	}), httpapi.Idempotency{Store: env.Store, Clock: env.Clock})
	caller := workspace.Caller{WorkspaceID: "ws_acme", KeyID: adminKeyID, UserID: "usr_ada", Role: workspace.RoleAdmin,
		Scopes: []workspace.Scope{workspace.ScopeWrite}}
	event := events.APIGatewayProxyRequest{HTTPMethod: http.MethodPost, Path: "/workspaceapi/leak", Resource: "/workspaceapi/leak",
		Headers: map[string]string{httpapi.IdempotencyKeyHeader: "guard-1"}, MultiValueHeaders: map[string][]string{httpapi.IdempotencyKeyHeader: {"guard-1"}},
		RequestContext: events.APIGatewayProxyRequestContext{RequestID: "req-guard", Authorizer: authctx.Encode(caller)}}
	if _, err := h(t.Context(), event); err != nil {
		t.Fatal(err)
	}
	again, err := h(t.Context(), event)
	if err != nil {
		t.Fatal(err)
	}
	if again.MultiValueHeaders[httpapi.IdempotentReplayedHeader] == nil && again.Headers[httpapi.IdempotentReplayedHeader] == "" {
		t.Fatalf("repeat not replayed: %d %s", again.StatusCode, again.Body)
	}
	if strings.Contains(again.Body, leak) {
		t.Errorf("the kept answer held the key: %s", again.Body)
	}
}
