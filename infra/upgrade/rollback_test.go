package upgrade_test

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/release"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// release2Key is the plaintext of a key this release stored.
const release2Key = "wk_releaseTwoKey000000000000000000000000010"

var update = flag.Bool("update", false, "write testdata/v"+release.Version+".jsonl again")

// release2Dump is what this release wrote over an upgraded release-1 table:
// the input of the rollback check (make rollback-check), which loads it into
// the previous release's code and runs that release's paths on it.
var release2Dump = "testdata/v" + release.Version + ".jsonl"

// TestWhatThisReleaseWrites builds the table the rollback check reads: the
// release-1 table, migrated, then changed through this release's API and
// ingest path in every way it writes (a key, a team, usage, a limit, a
// disabled agent, audit entries, an outbox item, an idempotency record).
// With -update it writes the table to testdata; without, it checks that the
// committed file holds the same kinds of items.
func TestWhatThisReleaseWrites(t *testing.T) {
	env := release1(t)
	if resp := customResource(t, env, "Create", release.Version, ""); resp.Status != "SUCCESS" {
		t.Fatalf("migrations: %+v", resp)
	}
	do := func(method, path, key, body string, want int) {
		t.Helper()
		if res := env.Do(t, method, path, key, body); res.Status != want {
			t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
		}
	}
	do("POST", "/workspaceapi/keys", adminKey, `{"name": "made by 2.0.0", "scopes": ["read", "write"]}`, 201)
	// A key whose plaintext the check knows, stored by the same store call
	// as POST /workspaceapi/keys.
	now := env.Clock.Now()
	if err := env.Store.CreateAPIKey(context.Background(), workspace.Unrecorded, workspace.APIKey{
		ID: "key_release2", Hash: workspace.HashKey(release2Key), Name: "made by 2.0.0, known", WorkspaceID: "ws_acme",
		UserID: "usr_ada", Scopes: []workspace.Scope{workspace.ScopeRead, workspace.ScopeWrite}, CreatedAt: now,
	}, now); err != nil {
		t.Fatal(err)
	}
	do("POST", "/workspaceapi/teams", adminKey, `{"name": "Ｒｅｌｅａｓｅ  Crew"}`, 201)
	do("PATCH", "/workspaceapi/teams/team_growth", adminKey, `{"name": "Growth Team"}`, 200)
	do("POST", "/workspaceapi/agents/credit-limits", adminKey, `{"ids": ["agt_kb_search"], "dailyCreditLimit": 500}`, 200)
	do("POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_lead_qualifier"], "status": "disabled"}`, 200)
	at := env.Clock.Now().Add(-time.Minute).Format(time.RFC3339)
	awscalls.Invoke(t, env.URL, "IngestFunction", map[string]any{"Records": []any{
		awsevents.SQSMessage("m1", map[string]any{"type": "credits.used", "id": "evt-release2-1", "workspaceId": "ws_acme",
			"agentId": "agt_support_triage", "credits": 12.5, "occurredAt": at}),
	}})

	items, err := tableops.ScanItems(context.Background(), env.Store)
	if err != nil {
		t.Fatal(err)
	}
	data, err := tableops.MarshalItems(items)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(release2Dump, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(release2Dump)
	if err != nil {
		t.Fatalf("%v (go test ./infra/upgrade -run TestWhatThisReleaseWrites -update writes it)", err)
	}
	kinds := func(data []byte) map[string]bool {
		out := map[string]bool{}
		for _, line := range strings.Split(string(data), "\n") {
			if i := strings.Index(line, `"entity":{"S":"`); i >= 0 {
				out[strings.SplitN(line[i+len(`"entity":{"S":"`):], `"`, 2)[0]] = true
			}
		}
		return out
	}
	want, got := kinds(data), kinds(committed)
	for k := range want {
		if !got[k] {
			t.Errorf("%s holds no %s item: write it again with -update", release2Dump, k)
		}
	}
}
