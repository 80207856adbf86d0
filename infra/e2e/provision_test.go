package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The platform's data enters only through ingest events
// (docs/ingest-events.md, Provisioning events): from an empty table, a
// workspace, its members and agents are provisioned through the ingest
// function (real SQS event shapes, through the local gateway's
// /_local/invoke), then the API takes over: an invitation made through the
// API is accepted by an event, limits are set through the API, usage stops
// an agent, a member's removal stops their keys, and an agent's removal
// keeps its usage in the credits report and the export.
func TestProvisioningFromAnEmptyTable(t *testing.T) {
	env := apitest.New(t, `{"workspaces": []}`)
	now := env.Clock.Now()
	const ws = "ws_prov"
	ev := func(typ, id string, version int, fields string) string {
		return fmt.Sprintf(`{"type": %q, "id": %q, "workspaceId": %q, "version": %d%s}`, typ, id, ws, version, fields)
	}
	agentEv := func(typ, id, agentID string, version int, fields string) string {
		return ev(typ, id, version, fmt.Sprintf(`, "agentId": %q%s`, agentID, fields))
	}
	member := func(id string, version int, user, email, role string) string {
		return ev("member.upserted", id, version, fmt.Sprintf(`, "member": {"id": %q, "email": %q, "name": %q, "role": %q, "joinedAt": "2026-01-02T03:04:05Z"}`,
			user, email, "User "+user, role))
	}
	agent := func(id string, version int, agentID, fields string) string {
		return agentEv("agent.upserted", id, agentID, version, `, "agent": {`+fields+`}`)
	}
	usage := func(id, agentID string, credits float64) string {
		return fmt.Sprintf(`{"type": "credits.used", "id": %q, "workspaceId": %q, "agentId": %q, "credits": %g, "occurredAt": %q}`,
			id, ws, agentID, credits, now.Format(time.RFC3339))
	}

	// 1. Provisioning, in one batch: each event depends on the one before.
	ingestAll(t, env,
		ev("workspace.upserted", "p1", 1, `, "workspace": {"name": "Provisioned", "seats": 3, "teamSettingsEnabled": true,
		  "allowedEmailDomains": [], "defaultDailyCreditLimit": null}`),
		member("p2", 1, "u_admin", "admin@prov.example", "admin"),
		member("p3", 1, "u_dev", "dev@prov.example", "member"),
		agent("p4", 1, "ag_a", `"name": "Agent A", "description": "first", "imageUrl": null, "teamId": null,
		  "isPrivate": false, "agentDiscoverability": "workspace", "connections": [],
		  "keyMetrics": [{"name": "Resolved", "description": "tickets", "measurement": {"unit": "tickets", "aggregation": "sum"}}]`),
		agent("p5", 1, "ag_b", `"name": "Agent B", "connections": ["ag_a"]`),
	)
	w, err := env.Store.Workspace(t.Context(), ws)
	if err != nil || w.Name != "Provisioned" || w.Seats != 3 || w.SeatsUsed != 2 {
		t.Fatalf("workspace: got %+v, %v; want Provisioned, 3 seats, 2 used", w, err)
	}

	// The operator issues each member a key (wsadmin keys issue); keys are
	// not provisioned.
	admin := issueKey(t, env, ws, "u_admin", workspace.ScopeRead, workspace.ScopeWrite, workspace.ScopeInvite)
	dev := issueKey(t, env, ws, "u_dev", workspace.ScopeRead, workspace.ScopeWrite)

	var agents struct {
		Agents []struct{ ID, Name string }
	}
	env.Do(t, "GET", "/workspaceapi/agents", admin, "").JSON(t, &agents)
	if len(agents.Agents) != 2 || agents.Agents[0].Name != "Agent A" || agents.Agents[1].Name != "Agent B" {
		t.Fatalf("agents: got %+v, want Agent A and Agent B", agents.Agents)
	}

	// 2. An invitation made through the API becomes a member by an event;
	// its seat stays taken (3 of 3).
	res := env.Do(t, "POST", "/workspaceapi/invites", admin, `{"email": "new@prov.example", "role": "collaborator"}`)
	if res.Status != http.StatusCreated && res.Status != http.StatusOK {
		t.Fatalf("invite: got %d %s", res.Status, res.Body)
	}
	var inv struct{ ID string }
	res.JSON(t, &inv)
	accepted := ev("invite.accepted", "p6", 1, fmt.Sprintf(`, "inviteId": %q, "userId": "u_new", "name": "New Person", "acceptedAt": %q`,
		inv.ID, now.Format(time.RFC3339)))
	ingestAll(t, env, accepted)
	ingestAll(t, env, accepted) // redelivered: applied once
	var members struct {
		Members []struct{ ID, Email, Role string }
	}
	env.Do(t, "GET", "/workspaceapi/members", admin, "").JSON(t, &members)
	if len(members.Members) != 3 || members.Members[2].ID != "u_new" || members.Members[2].Role != "collaborator" ||
		members.Members[2].Email != "new@prov.example" {
		t.Fatalf("members after the acceptance: got %+v", members.Members)
	}
	if w, _ := env.Store.Workspace(t.Context(), ws); w.SeatsUsed != 3 {
		t.Errorf("seats after the acceptance: got %d used, want 3", w.SeatsUsed)
	}
	if res := env.Do(t, "GET", "/workspaceapi/invites", admin, ""); strings.Contains(string(res.Body), inv.ID) {
		t.Errorf("the accepted invitation is still listed: %s", res.Body)
	}
	// An invitation accepted twice (another event id) fails clearly.
	if got := ingest(t, env, ev("invite.accepted", "p6b", 2, fmt.Sprintf(`, "inviteId": %q, "userId": "u_other", "name": "X", "acceptedAt": %q`,
		inv.ID, now.Format(time.RFC3339)))); len(got) != 1 {
		t.Errorf("a second acceptance of one invitation: got failures %v, want it failed", got)
	}

	// 3. Limits through the API, then usage until the agent stops.
	if res := env.Do(t, "POST", "/workspaceapi/agents/credit-limits", admin, `{"ids": ["ag_a"], "dailyCreditLimit": 5}`); res.Status != http.StatusOK {
		t.Fatalf("credit limits: got %d %s", res.Status, res.Body)
	}
	ingestAll(t, env, usage("c1", "ag_a", 3), usage("c2", "ag_a", 3), usage("c3", "ag_b", 1))
	var listed struct {
		Agents []struct {
			ID       string
			Overview struct{ Status, StatusReason string }
		}
	}
	env.Do(t, "GET", "/workspaceapi/agents?includeOverview=true", admin, "").JSON(t, &listed)
	if a := listed.Agents[0]; a.ID != "ag_a" || a.Overview.Status != workspace.StatusStopped || a.Overview.StatusReason != "daily_limit" {
		t.Errorf("ag_a after 6 credits against a daily limit of 5: got %+v, want stopped by daily_limit", listed.Agents[0])
	}

	// 4. A member's removal revokes their keys at once and frees the seat.
	if res := env.Do(t, "GET", "/workspaceapi/agents", dev, ""); res.Status != http.StatusOK {
		t.Fatalf("the developer's key before the removal: got %d", res.Status)
	}
	ingestAll(t, env, ev("member.removed", "p7", 2, `, "userId": "u_dev"`))
	if res := env.Do(t, "GET", "/workspaceapi/agents", dev, ""); res.Status != http.StatusUnauthorized {
		t.Errorf("the removed member's key: got %d, want 401", res.Status)
	}
	if w, _ := env.Store.Workspace(t.Context(), ws); w.SeatsUsed != 2 {
		t.Errorf("seats after the removal: got %d used, want 2", w.SeatsUsed)
	}
	var keys struct{ Keys []struct{ UserID string } }
	env.Do(t, "GET", "/workspaceapi/keys", admin, "").JSON(t, &keys)
	for _, k := range keys.Keys {
		if k.UserID == "u_dev" {
			t.Errorf("the removed member still has a key listed: %+v", keys.Keys)
		}
	}
	// An older upsert arriving late does not bring them back.
	ingestAll(t, env, member("p3-late", 1, "u_dev", "dev@prov.example", "member"))
	if _, err := env.Store.Member(t.Context(), ws, "u_dev"); !workspace.IsNotFound(err) {
		t.Errorf("an older member.upserted after the removal: member read %v, want not found", err)
	}

	// 5. An agent's removal: gone from reads and lists, its usage kept in
	// the credits report's total and the export; later events fail.
	ingestAll(t, env, agentEv("agent.removed", "p8", "ag_a", 2, ""))
	if res := env.Do(t, "GET", "/workspaceapi/agents/ag_a", admin, ""); res.Status != http.StatusNotFound {
		t.Errorf("GET the removed agent: got %d, want 404", res.Status)
	}
	var report struct {
		TotalCredits float64
		Agents       []struct{ ID string }
	}
	env.Do(t, "GET", "/workspaceapi/credits", admin, "").JSON(t, &report)
	if report.TotalCredits != 7 || len(report.Agents) != 1 || report.Agents[0].ID != "ag_b" {
		t.Errorf("credits report after the removal: got %+v, want a total of 7 and ag_b alone", report)
	}
	day := now.Format("2006-01-02")
	var export struct {
		Rows []struct {
			AgentID, AgentName string
			Credits            float64
		}
	}
	env.Do(t, "GET", "/workspaceapi/credits/export?from="+day+"&to="+day, admin, "").JSON(t, &export)
	if len(export.Rows) != 2 || export.Rows[0].AgentID != "ag_a" || export.Rows[0].AgentName != "Agent A" || export.Rows[0].Credits != 6 {
		t.Errorf("usage export after the removal: got %+v, want ag_a's 6 credits kept", export.Rows)
	}
	if got := ingest(t, env, usage("c4", "ag_a", 1)); len(got) != 1 {
		t.Errorf("usage of the removed agent: got failures %v, want it failed", got)
	}

	// 6. Every change is audited by the platform.
	var log struct {
		Entries []struct {
			Action string
			Actor  map[string]any
			Target struct{ Type, ID string }
		}
	}
	env.Do(t, "GET", "/workspaceapi/audit-log?limit=100", admin, "").JSON(t, &log)
	seen := map[string]int{}
	for _, e := range log.Entries {
		if e.Actor["type"] == "system" && e.Actor["name"] == "platform" {
			seen[e.Action]++
		}
	}
	for action, n := range map[string]int{"workspace.created": 1, "member.added": 2, "agent.added": 2, "invite.accepted": 1,
		"member.removed": 1, "key.revoked": 1, "agent.removed": 1} {
		if seen[action] != n {
			t.Errorf("audit log: %d %s entries by the platform, want %d (all: %v)", seen[action], action, n, seen)
		}
	}
}

// issueKey stores a key for user of ws, as an operator's `wsadmin keys
// issue` does, and returns its plaintext.
func issueKey(t *testing.T, env *apitest.Env, ws, user string, scopes ...workspace.Scope) string {
	t.Helper()
	plaintext, err := workspace.NewKeyPlaintext()
	if err != nil {
		t.Fatal(err)
	}
	now := env.Clock.Now()
	k := workspace.APIKey{ID: "key_" + user, Hash: workspace.HashKey(plaintext), Name: user, WorkspaceID: ws, UserID: user,
		Scopes: scopes, CreatedAt: now}
	if err := env.Store.CreateAPIKey(t.Context(), workspace.Unrecorded, k, now); err != nil {
		t.Fatal(err)
	}
	return plaintext
}

// ingest sends bodies as one SQS batch to the ingest function through the
// local gateway and returns the message ids it reports failed.
func ingest(t *testing.T, env *apitest.Env, bodies ...string) []string {
	t.Helper()
	var batch events.SQSEvent
	for i, b := range bodies {
		if !json.Valid([]byte(b)) {
			t.Fatalf("event %d is not JSON: %s", i, b)
		}
		batch.Records = append(batch.Records, events.SQSMessage{
			MessageId: fmt.Sprintf("m%d", i+1), Body: b, EventSource: "aws:sqs",
			EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:IngestQueue", AWSRegion: "us-east-1",
		})
	}
	payload, err := json.Marshal(batch)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(env.URL+"/_local/invoke/IngestFunction", "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("invoke IngestFunction: %d %s %v", res.StatusCode, out, err)
	}
	var answer events.SQSEventResponse
	if err := json.Unmarshal(out, &answer); err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range answer.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	return failed
}

// ingestAll is ingest, failing the test when any event failed.
func ingestAll(t *testing.T, env *apitest.Env, bodies ...string) {
	t.Helper()
	if failed := ingest(t, env, bodies...); len(failed) > 0 {
		t.Fatalf("ingest: failed %v of %d events", failed, len(bodies))
	}
}
