package ingest_test

import (
	"strings"
	"testing"

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
