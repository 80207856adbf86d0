// Package upgrade_test holds the upgrade from the oldest supported release:
// testdata/v1.0.0.jsonl is every item a 1.0.0 stack wrote (its own code,
// checked out at the 1.0.0 commit, loaded the demo fixture through its
// loader and ingest path, created the team "Ｓｅｃｕｒｉｔｙ  Ops" and set a
// daily limit through its API, and the table was dumped raw). The tests
// load those items as they are, run this release's migrations the ways a
// stack runs them, and then use the API as its clients do.
package upgrade_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/migrate"
	"github.com/agentplatform/workspaceapi/shared/release"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// The demo fixture's keys, as release 1.0.0 stored them (hashes only).
const (
	adminKey    = "wk_demoAdminKey0000000000000000000000000001"
	readOnlyKey = "wk_demoReadOnlyKey0000000000000000000000002"
	teamKey     = "wk_demoSupportTeamKey0000000000000000000005"
	disabledKey = "wk_demoDisabledKey0000000000000000000000007"
	expiredKey  = "wk_demoExpiredKey00000000000000000000000008"
	globexKey   = "wk_demoGlobexAdminKey0000000000000000000009"
)

// release1 starts the API of this release over a table holding exactly the
// items release 1.0.0 wrote.
func release1(t *testing.T) *apitest.Env {
	t.Helper()
	env, _ := releaseTable(t, "testdata/v1.0.0.jsonl")
	return env
}

// releaseTable starts the API of this release over a table holding exactly
// the items of file (what a release wrote), and returns them too.
func releaseTable(t *testing.T, file string) (*apitest.Env, []map[string]types.AttributeValue) {
	t.Helper()
	env := apitest.New(t, `{"workspaces": []}`)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	items, err := tableops.UnmarshalItems(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := tableops.PutItems(context.Background(), env.Store, items); err != nil {
		t.Fatal(err)
	}
	return env, items
}

// customResource stands in for CloudFormation: it sends the function a
// custom-resource request and returns the response the function PUT to the
// request's ResponseURL.
func customResource(t *testing.T, env *apitest.Env, requestType, version, oldVersion string) migrate.Response {
	t.Helper()
	var (
		mu  sync.Mutex
		got []migrate.Response
	)
	s3 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var resp migrate.Response
		if r.Method != http.MethodPut || r.Header.Get("Content-Type") != "" || json.NewDecoder(r.Body).Decode(&resp) != nil {
			t.Errorf("custom resource response: %s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
		}
		mu.Lock()
		got = append(got, resp)
		mu.Unlock()
	}))
	defer s3.Close()
	ev := map[string]any{
		"RequestType": requestType, "ResponseURL": s3.URL + "/signed", "StackId": "arn:aws:cloudformation:eu-west-1:123456789012:stack/workspace-api-acme/1",
		"RequestId": "req-" + requestType, "LogicalResourceId": "Migrations", "ResourceType": "AWS::CloudFormation::CustomResource",
		"ResourceProperties": map[string]any{"ServiceToken": "arn:fn", "Version": version},
	}
	if requestType != "Create" {
		ev["PhysicalResourceId"] = migrate.PhysicalID
	}
	if oldVersion != "" {
		ev["OldResourceProperties"] = map[string]any{"ServiceToken": "arn:fn", "Version": oldVersion}
	}
	awscalls.Invoke(t, env.URL, "MigrateFunction", ev)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%s: %d responses, want 1", requestType, len(got))
	}
	r := got[0]
	if r.PhysicalResourceID != migrate.PhysicalID || r.RequestID != "req-"+requestType || r.LogicalResourceID != "Migrations" || r.StackID == "" {
		t.Errorf("%s: response %+v does not answer the request", requestType, r)
	}
	return r
}

func TestAStackOfRelease1UpgradesAndServesItsData(t *testing.T) {
	env := release1(t)
	do := func(method, path, key, body string, want int) *apitest.Response {
		t.Helper()
		res := env.Do(t, method, path, key, body)
		if res.Status != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, res.Status, res.Body, want)
		}
		return res
	}

	// Before the migrations: release 1's keys authenticate, but the keys
	// endpoints neither list nor count them.
	var keys struct{ Keys []struct{ ID string } }
	do("GET", "/workspaceapi/keys", adminKey, "", 200).JSON(t, &keys)
	if len(keys.Keys) != 0 {
		t.Fatalf("before migrating, keys listed: %+v", keys.Keys)
	}

	// The deploy of this release: CloudFormation creates the Migrations
	// custom resource, and the function runs every step to the end.
	resp := customResource(t, env, "Create", release.Version, "")
	if resp.Status != "SUCCESS" || resp.Data["Pending"] != "false" || resp.Data["Version"] != release.Version ||
		resp.Data["Layout"] != "4" {
		t.Fatalf("create: %+v", resp)
	}
	states, err := env.Store.MigrationStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != len(migrate.Steps) {
		t.Fatalf("progress items: %+v", states)
	}
	for i, s := range states {
		if s.Step != i+1 || s.Status != workspace.MigrationDone || s.Workspaces != 2 || s.Owner != "" || s.FinishedAt.IsZero() || s.Conflicts != 0 {
			t.Errorf("step %d: %+v", i+1, s)
		}
	}
	// API-key references: 9 keys (3 items each); usage listings: the 4
	// agents that spent in November; team name claims: the one whose key
	// changed is moved (a put and a delete); usage shards: release 1's
	// month counters, each folded.
	if states[0].Changed != 27 || states[1].Changed != 4 || states[2].Changed != 2 || states[3].Changed == 0 {
		t.Errorf("changed: keys %d, usage %d, claims %d, shards %d", states[0].Changed, states[1].Changed, states[2].Changed, states[3].Changed)
	}

	// The same release deployed again (or the schedule): nothing more to
	// do, and nothing is written. A rollback's update, and a delete, run
	// nothing and succeed.
	if again := customResource(t, env, "Update", release.Version, "1.0.0"); again.Status != "SUCCESS" || again.Data["Pending"] != "false" {
		t.Errorf("update: %+v", again)
	}
	if back := customResource(t, env, "Update", "1.0.0", release.Version); back.Status != "SUCCESS" || !strings.Contains(back.Reason, "older release") {
		t.Errorf("rollback: %+v", back)
	}
	if del := customResource(t, env, "Delete", release.Version, ""); del.Status != "SUCCESS" || !strings.Contains(del.Reason, "not undone") {
		t.Errorf("delete: %+v", del)
	}
	after, err := env.Store.MigrationStates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range after {
		if after[i].Changed != states[i].Changed || after[i].Workspaces != states[i].Workspaces {
			t.Errorf("step %d ran again: %+v, then %+v", i+1, states[i], after[i])
		}
	}

	var version release.Resource
	do("GET", "/workspaceapi/version", teamKey, "", 200).JSON(t, &version)
	if version.Version != release.Version {
		t.Errorf("version %q", version.Version)
	}

	// Keys: release 1's keys authenticate as they did, are listed and
	// counted now, and a new key takes its place beside them.
	do("GET", "/workspaceapi/agents", readOnlyKey, "", 200)
	do("GET", "/workspaceapi/agents", disabledKey, "", 401)
	do("GET", "/workspaceapi/agents", expiredKey, "", 401)
	do("GET", "/workspaceapi/keys", adminKey, "", 200).JSON(t, &keys)
	var ids []string
	for _, k := range keys.Keys {
		ids = append(ids, k.ID)
	}
	if want := []string{"key_acme_admin", "key_acme_creator", "key_acme_disabled", "key_acme_expired", "key_acme_invite_only",
		"key_acme_read_only", "key_acme_support_team", "key_acme_write_only"}; !slices.Equal(ids, want) {
		t.Errorf("keys listed %v, want %v", ids, want)
	}
	var created struct{ ID, Key string }
	do("POST", "/workspaceapi/keys", adminKey, `{"name": "after the upgrade", "scopes": ["read"]}`, 201).JSON(t, &created)
	do("GET", "/workspaceapi/members", created.Key, "", 200)
	do("DELETE", "/workspaceapi/keys/key_acme_write_only", adminKey, "", 204)
	do("GET", "/workspaceapi/keys", globexKey, "", 200)

	// Agents and credits, as release 1 counted them.
	var agents struct{ Agents []struct{ ID string } }
	do("GET", "/workspaceapi/agents?includeOverview=true", adminKey, "", 200).JSON(t, &agents)
	if len(agents.Agents) != 6 {
		t.Errorf("agents: %+v", agents.Agents)
	}
	var credits struct{ TotalCredits float64 }
	do("GET", "/workspaceapi/credits", adminKey, "", 200).JSON(t, &credits)
	if credits.TotalCredits <= 0 {
		t.Errorf("credits this month: %v", credits.TotalCredits)
	}
	do("GET", "/workspaceapi/agents/agt_kb_search/usage?days=7", adminKey, "", 200)

	// Usage: the month usage release 1 wrote is in the export now, per
	// agent and per team.
	export := do("GET", "/workspaceapi/credits/export?from=2026-11-01&to=2026-11-21&format=json", adminKey, "", 200)
	for _, agent := range []string{"agt_kb_search", "agt_lead_qualifier", "agt_release_notes"} {
		if !strings.Contains(string(export.Body), agent) {
			t.Errorf("export lacks %s: %s", agent, export.Body)
		}
	}
	byTeam := do("GET", "/workspaceapi/credits/export?from=2026-11-01&to=2026-11-21&groupBy=team", adminKey, "", 200)
	if !strings.Contains(string(byTeam.Body), "team_") {
		t.Errorf("export by team: %s", byTeam.Body)
	}

	// Teams: the name release 1 claimed under its own key is held under
	// today's, so its NFKC twin is refused; renamed, it frees the name.
	var teams struct{ Teams []struct{ ID, Name string } }
	do("GET", "/workspaceapi/teams", adminKey, "", 200).JSON(t, &teams)
	var security string
	for _, tm := range teams.Teams {
		if tm.Name == "Ｓｅｃｕｒｉｔｙ  Ops" {
			security = tm.ID
		}
	}
	if len(teams.Teams) != 4 || security == "" {
		t.Fatalf("teams: %+v", teams.Teams)
	}
	do("POST", "/workspaceapi/teams", adminKey, `{"name": "security ops"}`, 409)
	do("PATCH", "/workspaceapi/teams/"+security, adminKey, `{"name": "Security Operations"}`, 200)
	do("POST", "/workspaceapi/teams", adminKey, `{"name": "Security Ops"}`, 201)
	do("PUT", "/workspaceapi/teams/team_support/members/usr_grace", adminKey, `{"role": "member"}`, 200)
	do("GET", "/workspaceapi/teams/team_support", teamKey, "", 200)
}

// A run bounded in time stops between workspaces and records where; the
// next run goes on from there, and the runs together do what one does.
func TestMigrationsResumeWhereARunStopped(t *testing.T) {
	env := release1(t)
	ctx := context.Background()
	clock := apitest.NewClock(apitest.Start)
	runs := 0
	for ; runs < 50; runs++ {
		// Each run may start one workspace: the clock passes its bound
		// once the run has asked it the time a few times.
		tick := &tickingClock{Clock: clock, step: time.Second}
		r := migrate.Runner{Store: env.Store, Clock: tick, Owner: "run-" + string(rune('a'+runs)), Segments: 2}
		rep, err := r.Run(ctx, clock.Now().Add(6*time.Second))
		if err != nil {
			t.Fatalf("run %d: %v", runs, err)
		}
		if rep.Done {
			break
		}
	}
	if runs < 2 {
		t.Errorf("the migrations took %d runs; the bound should have cut them", runs+1)
	}
	states, err := env.Store.MigrationStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != len(migrate.Steps) {
		t.Fatalf("progress items: %+v", states)
	}
	for i, s := range states {
		if s.Status != workspace.MigrationDone || s.Workspaces != 2 || len(s.Segments) != 2 {
			t.Errorf("step %d: %+v", i+1, s)
		}
	}
	if states[0].Changed != 27 || states[1].Changed != 4 || states[2].Changed != 2 {
		t.Errorf("changed: keys %d, usage %d, claims %d", states[0].Changed, states[1].Changed, states[2].Changed)
	}
	var keys struct{ Keys []struct{ ID string } }
	env.Do(t, "GET", "/workspaceapi/keys", adminKey, "").JSON(t, &keys)
	if len(keys.Keys) != 8 {
		t.Errorf("keys: %+v", keys.Keys)
	}
}

// tickingClock advances by step each time it is asked the time.
type tickingClock struct {
	*apitest.Clock
	step time.Duration
}

func (c *tickingClock) Now() time.Time {
	c.Advance(c.step)
	return c.Clock.Now()
}

// Two runs never hold a step at once: the second is refused until the
// first's lease ends.
func TestARunHoldsItsStepAlone(t *testing.T) {
	env := release1(t)
	ctx := context.Background()
	now := apitest.Start
	if _, err := env.Store.ClaimMigration(ctx, 1, "api-key-references", 2, "first", now, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	second := migrate.Runner{Store: env.Store, Clock: apitest.NewClock(now), Owner: "second"}
	if _, err := second.Run(ctx, now.Add(time.Minute)); err != workspace.ErrMigrationClaimed {
		t.Fatalf("second run: %v, want ErrMigrationClaimed", err)
	}
	later := migrate.Runner{Store: env.Store, Clock: apitest.NewClock(now.Add(2 * time.Minute)), Owner: "third"}
	if rep, err := later.Run(ctx, now.Add(time.Hour)); err != nil || !rep.Done {
		t.Fatalf("after the lease: %+v, %v", rep, err)
	}
	if err := env.Store.SaveMigrationSegment(ctx, 1, "first", 0, workspace.MigrationSegment{}, workspace.MigrationCounts{}, now); err != workspace.ErrMigrationClaimed {
		t.Errorf("the first run's late write: %v, want ErrMigrationClaimed", err)
	}
}
