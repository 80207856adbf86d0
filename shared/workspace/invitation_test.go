package workspace_test

import (
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func ptr[T any](v T) *T { return &v }

func TestInviteRequestValidate(t *testing.T) {
	email, member := ptr("a@b.example"), ptr("member")
	tests := []struct {
		name  string
		req   workspace.InviteRequest
		valid bool
	}{
		{"member", workspace.InviteRequest{Email: email, Role: member}, true},
		{"collaborator", workspace.InviteRequest{Email: email, Role: ptr("collaborator")}, true},
		{"admin refused", workspace.InviteRequest{Email: email, Role: ptr("admin")}, false},
		{"guest refused", workspace.InviteRequest{Email: email, Role: ptr("guest")}, false},
		{"role in other case", workspace.InviteRequest{Email: email, Role: ptr("Member")}, false},
		{"no email", workspace.InviteRequest{Role: member}, false},
		{"no role", workspace.InviteRequest{Email: email}, false},
		{"1 day", workspace.InviteRequest{Email: email, Role: member, ExpiresInDays: ptr(1)}, true},
		{"90 days", workspace.InviteRequest{Email: email, Role: member, ExpiresInDays: ptr(90)}, true},
		{"0 days", workspace.InviteRequest{Email: email, Role: member, ExpiresInDays: ptr(0)}, false},
		{"91 days", workspace.InviteRequest{Email: email, Role: member, ExpiresInDays: ptr(91)}, false},
		{"team roles", workspace.InviteRequest{Email: email, Role: member, Teams: []workspace.TeamInvite{
			{TeamID: "t1", Role: "admin"}, {TeamID: "t2", Role: "member"}, {TeamID: "t3", Role: "guest"}}}, true},
		{"team listed twice", workspace.InviteRequest{Email: email, Role: member, Teams: []workspace.TeamInvite{
			{TeamID: "t1", Role: "admin"}, {TeamID: "t1", Role: "member"}}}, false},
		{"team without id", workspace.InviteRequest{Email: email, Role: member, Teams: []workspace.TeamInvite{{Role: "admin"}}}, false},
		{"team role unknown", workspace.InviteRequest{Email: email, Role: member, Teams: []workspace.TeamInvite{{TeamID: "t1", Role: "owner"}}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.req.Validate(); (err == nil) != tc.valid {
				t.Errorf("Validate() = %v, want valid=%v", err, tc.valid)
			}
		})
	}
}

func TestInvitationStatusFollowsExpiry(t *testing.T) {
	inv := workspace.Invitation{ExpiresAt: "2026-11-21T12:00:00.000Z"}
	before := time.Date(2026, 11, 21, 11, 59, 59, 0, time.UTC)
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if got := inv.AsOf(before); got.Status != "pending" || got.IsExpired {
		t.Errorf("before expiry: %s %v, want pending", got.Status, got.IsExpired)
	}
	if got := inv.AsOf(at); got.Status != "expired" || !got.IsExpired {
		t.Errorf("at expiry: %s %v, want expired", got.Status, got.IsExpired)
	}
}

func TestSortableIDsAreOrderedByTime(t *testing.T) {
	clock := &fixedClock{t: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)}
	gen := workspace.SortableIDs{Clock: clock}
	a, _ := gen.NewID("inv_")
	clock.t = clock.t.Add(time.Millisecond)
	b, _ := gen.NewID("inv_")
	if len(a) != len("inv_")+26 || !(a < b) {
		t.Errorf("ids %q, %q: want 26 characters after the prefix, in time order", a, b)
	}
}

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

func TestWellFormedKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"wk_" + "abcdefghijABCDEFGHIJ0123456789xy", true},
		{"wk_" + "abcdefghijABCDEFGHIJ0123456789x", false},
		{"wk_" + "abcdefghijABCDEFGHIJ0123456789x-", false},
		{"sk_" + "abcdefghijABCDEFGHIJ0123456789xy", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := workspace.WellFormedKey(tc.key); got != tc.want {
			t.Errorf("WellFormedKey(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
	k, err := workspace.NewKeyPlaintext()
	if err != nil || !workspace.WellFormedKey(k) {
		t.Errorf("NewKeyPlaintext() = %q, %v: want a well-formed key", k, err)
	}
}
