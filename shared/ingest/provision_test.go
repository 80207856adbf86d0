package ingest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Provisioning events are decoded as strictly as every event: each failure
// names its field, and a valid one carries its version and fields.
func TestParseProvisioningEvents(t *testing.T) {
	head := func(typ, rest string) string {
		return `{"type": "` + typ + `", "id": "e1", "workspaceId": "ws1"` + rest + `}`
	}
	tests := []struct {
		name, body string
		err        string // "" when valid
	}{
		{"a workspace", head("workspace.upserted", `, "version": 1, "workspace": {"name": "W", "seats": 3, "defaultDailyCreditLimit": null}`), ""},
		{"no version", head("workspace.upserted", `, "workspace": {"name": "W"}`), "version is required"},
		{"version 0", head("member.removed", `, "version": 0, "userId": "u"`), "version must be an integer from 1"},
		{"a fractional version", head("member.removed", `, "version": 1.5, "userId": "u"`), "version"},
		{"too many seats", head("workspace.upserted", `, "version": 1, "workspace": {"seats": 1000001}`), "workspace.seats"},
		{"a bad domain", head("workspace.upserted", `, "version": 1, "workspace": {"allowedEmailDomains": ["localhost"]}`), "allowedEmailDomains[0]"},
		{"null where the fixture has no null", head("workspace.upserted", `, "version": 1, "workspace": {"name": null}`), "name"},
		{"an unknown field", head("workspace.upserted", `, "version": 1, "workspace": {"nmae": "W"}`), "nmae"},
		{"a member", head("member.upserted", `, "version": 2, "member": {"id": "u", "email": "u@x.example", "name": "U", "role": "admin", "joinedAt": "2026-01-01T00:00:00Z"}`), ""},
		{"a member without id", head("member.upserted", `, "version": 2, "member": {"email": "u@x.example"}`), "member.id is required"},
		{"a guest role", head("member.upserted", `, "version": 2, "member": {"id": "u", "role": "guest"}`), "member.role"},
		{"a bad e-mail", head("member.upserted", `, "version": 2, "member": {"id": "u", "email": "u@localhost"}`), "member.email"},
		{"agentId on a member event", head("member.removed", `, "agentId": "ag", "version": 2, "userId": "u"`), "agentId is not a field of member.removed"},
		{"an acceptance", head("invite.accepted", `, "version": 1, "inviteId": "inv", "userId": "u", "name": "N", "acceptedAt": "2026-01-01T00:00:00Z"`), ""},
		{"an acceptance without acceptedAt", head("invite.accepted", `, "version": 1, "inviteId": "inv", "userId": "u", "name": "N"`), "acceptedAt is required"},
		{"an agent", head("agent.upserted", `, "agentId": "ag", "version": 1, "agent": {"name": "A", "teamId": null, "imageUrl": null,
			"keyMetrics": [{"name": "M", "description": "", "measurement": {"unit": "u", "aggregation": "sum"}}], "connections": ["ag2"]}`), ""},
		{"an agent event without agentId", head("agent.removed", `, "version": 1`), "agentId is required"},
		{"an agent connecting to itself", head("agent.upserted", `, "agentId": "ag", "version": 1, "agent": {"connections": ["ag"]}`), "connections[0]"},
		{"a bad aggregation", head("agent.upserted", `, "agentId": "ag", "version": 1, "agent": {"keyMetrics": [{"name": "M", "description": "", "measurement": {"unit": "u", "aggregation": "max"}}]}`), "aggregation"},
		{"a bad discoverability", head("agent.upserted", `, "agentId": "ag", "version": 1, "agent": {"agentDiscoverability": "public"}`), "agentDiscoverability"},
		{"a key in a name", head("agent.upserted", `, "agentId": "ag", "version": 1, "agent": {"name": "wk_0123456789abcdefghijklmnopqrstuvwxyz"}`), "API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := ingest.Parse([]byte(tt.body))
			if tt.err == "" {
				if err != nil || ev.Provision == nil || ev.Provision.Version < 1 {
					t.Fatalf("got %+v, %v; want a provisioning event", ev, err)
				}
				return
			}
			if err == nil || workspace.KindOf(err) != workspace.KindInvalid || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("got %v, want an invalid event naming %q", err, tt.err)
			}
			if strings.Contains(err.Error(), "wk_0123") {
				t.Errorf("the error repeats key-shaped text: %v", err)
			}
		})
	}
}

// A provisioning event is applied in its place in the batch: an agent
// provisioned early in a batch can use credits later in it, and usage sent
// before an agent's removal counts while usage after it fails.
func TestAProvisioningEventIsAppliedInItsPlaceInTheBatch(t *testing.T) {
	env := apitest.New(t, testFixture(""))
	at := env.Clock.Now()
	handler := ingest.New(env.Store, ingest.NotStoredYet{}, env.Clock)
	res, err := handler(t.Context(), batch(
		`{"type": "agent.upserted", "id": "p1", "workspaceId": "ws_i", "agentId": "ag_new", "version": 1, "agent": {"name": "New"}}`,
		usage("u1", "ag_new", 2, at),
		usage("u2", "ag_free", 3, at),
		`{"type": "agent.removed", "id": "p2", "workspaceId": "ws_i", "agentId": "ag_free", "version": 1}`,
		usage("u3", "ag_free", 4, at),
	))
	if err != nil {
		t.Fatal(err)
	}
	if got := failed(res); !slices.Equal(got, []string{"m5"}) {
		t.Errorf("failures: got %v, want [m5] (the usage after the removal)", got)
	}
	if got := standings(t, env)["ag_new"]; got.Today != 2 {
		t.Errorf("ag_new: got %+v, want 2 credits today", got)
	}
	rep, err := env.Store.CreditsReport(t.Context(), "ws_i", workspace.MonthKey(at), at)
	if err != nil || rep.Total != 5 {
		t.Errorf("the workspace's month: %v, %v; want 5 credits, the removed agent's 3 included", rep.Total, err)
	}
}
