package workspace_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func ptr[T any](v T) *T { return &v }

func TestInviteRequestValidate(t *testing.T) {
	email, member := ptr("a@b.example"), ptr("member")
	manyTeams := make([]workspace.TeamInvite, workspace.MaxInviteTeams+1)
	for i := range manyTeams {
		manyTeams[i] = workspace.TeamInvite{TeamID: "t" + strings.Repeat("x", i), Role: "member"}
	}
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
		{"key-shaped e-mail refused", workspace.InviteRequest{Email: ptr("wk_abc123@b.example"), Role: member}, false},
		{"key-shaped text inside an e-mail refused", workspace.InviteRequest{Email: ptr("x.wk_abc123@b.example"), Role: member}, false},
		{"bare key prefix in an e-mail", workspace.InviteRequest{Email: ptr("wk_-x@b.example"), Role: member}, true},
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
		{"100 teams at most", workspace.InviteRequest{Email: email, Role: member, Teams: manyTeams}, false},
		{"over-long team id is left to not found", workspace.InviteRequest{Email: email, Role: member, Teams: []workspace.TeamInvite{
			{TeamID: strings.Repeat("t", 5000), Role: "member"}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.req.Validate(); (err == nil) != tc.valid {
				t.Errorf("Validate() = %v, want valid=%v", err, tc.valid)
			}
		})
	}
}

func TestOverLongTeamIDsAreNeverRead(t *testing.T) {
	req := workspace.InviteRequest{Teams: []workspace.TeamInvite{
		{TeamID: "team_a"}, {TeamID: strings.Repeat("t", workspace.MaxIDLength+1)}, {TeamID: strings.Repeat("u", workspace.MaxIDLength)},
	}}
	if got := req.TeamIDs(); len(got) != 2 || got[0] != "team_a" {
		t.Errorf("TeamIDs() = %d ids starting %q, want team_a and the 256-character id", len(got), got[0])
	}
}

func TestCheckInviteAppliesTheRulesInTheirDocumentedOrder(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	req := func(email string, teams ...string) workspace.InviteRequest {
		r := workspace.InviteRequest{Email: ptr(email), Role: ptr("member")}
		for _, id := range teams {
			r.Teams = append(r.Teams, workspace.TeamInvite{TeamID: id, Role: "member"})
		}
		return r
	}
	teamsOn := workspace.Workspace{TeamSettingsEnabled: true, AllowedEmailDomains: []string{"a.example"}}
	teamsOff := workspace.Workspace{AllowedEmailDomains: []string{"a.example"}}
	pending := workspace.EmailClaim{InviteID: "inv_1", InviteExpiresAt: now.Add(time.Hour)}
	tests := []struct {
		name  string
		req   workspace.InviteRequest
		ws    workspace.Workspace
		claim workspace.EmailClaim
		want  workspace.Kind
		msg   string
	}{
		{"team settings before the domain", req("x@other.example", "t1"), teamsOff, workspace.EmailClaim{}, workspace.KindInvalid, "team settings"},
		{"domain before unknown teams", req("x@other.example", "nope"), teamsOn, workspace.EmailClaim{}, workspace.KindInvalid, "domain"},
		{"unknown team before the claim", req("x@a.example", "nope"), teamsOn, workspace.EmailClaim{MemberID: "u1"}, workspace.KindNotFound, "teams[0].teamId"},
		{"member", req("x@a.example", "t1"), teamsOn, workspace.EmailClaim{MemberID: "u1"}, workspace.KindInvalid, "already a member"},
		{"pending invitation", req("x@a.example"), teamsOn, pending, workspace.KindInvalid, "pending invitation"},
		{"expired invitation is no obstacle", req("x@a.example"), teamsOn,
			workspace.EmailClaim{InviteID: "inv_1", InviteExpiresAt: now}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := workspace.CheckInvite(tc.req, tc.ws, map[string]bool{"t1": true}, tc.claim, now)
			if got := workspace.KindOf(err); got != tc.want || (err != nil && !strings.Contains(err.Error(), tc.msg)) {
				t.Errorf("CheckInvite() = %v (kind %d), want kind %d mentioning %q", err, got, tc.want, tc.msg)
			}
		})
	}
}

func TestInvitationStatusFollowsExpiry(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	inv := workspace.Invitation{ExpiresAt: at}
	if got := inv.Status(at.Add(-time.Second)); got != "pending" {
		t.Errorf("before expiry: %s, want pending", got)
	}
	if got := inv.Status(at); got != "expired" || !inv.Expired(at) {
		t.Errorf("at expiry: %s, want expired", got)
	}
}

func TestNewInvitationHoldsASeatAndIsRemovedAfterRetention(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	inv := workspace.NewInvitation("inv_1", workspace.InviteRequest{Email: ptr("a@b.example"), Role: ptr("member")},
		workspace.Workspace{ID: "ws", Name: "W"}, workspace.Member{Name: "Ann"}, now, 180*24*time.Hour)
	if !inv.HoldsSeat || inv.Status(now) != workspace.InviteStatusPending {
		t.Errorf("holdsSeat %v, status %s; want a pending invitation holding a seat", inv.HoldsSeat, inv.Status(now))
	}
	if want := now.Add(7 * 24 * time.Hour); !inv.ExpiresAt.Equal(want) || !inv.RemoveAt.Equal(want.Add(180*24*time.Hour)) {
		t.Errorf("expires %v, removed %v; want 7 days, then 180 more", inv.ExpiresAt, inv.RemoveAt)
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

func TestSeatChangeOfAnInvitationsCreation(t *testing.T) {
	tests := []struct {
		name         string
		inheritsSeat bool
		released     int
		want         int
	}{
		{"a new invitation takes a seat", false, 0, 1},
		{"replacing an expired one that holds its seat takes none", true, 0, 0},
		{"releasing expired ones frees theirs", false, 3, -2},
		{"both", true, 2, -2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := workspace.SeatChange(tc.inheritsSeat, tc.released); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestTakenClaimsRefuseAnInvitation(t *testing.T) {
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		claim workspace.EmailClaim
		want  error
	}{
		{"free", workspace.EmailClaim{}, nil},
		{"a member's", workspace.EmailClaim{MemberID: "u1"}, workspace.ErrAlreadyMember},
		{"a pending invitation's", workspace.EmailClaim{InviteID: "i1", InviteExpiresAt: now.Add(time.Second)}, workspace.ErrAlreadyInvited},
		{"an invitation's that expires now", workspace.EmailClaim{InviteID: "i1", InviteExpiresAt: now}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.claim.Taken(now); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
