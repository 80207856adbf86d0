package workspace_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

var provAt = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func prov(version int64) workspace.Provision {
	return workspace.Provision{EventID: "evt", WorkspaceID: "ws", Version: version}
}

// An event applies only when its version is above the stored one; any
// other is a no-op, never a failure.
func TestAProvisioningEventAppliesOnlyAboveTheStoredVersion(t *testing.T) {
	tests := []struct {
		stored, version int64
		apply           bool
	}{
		{0, 1, true}, {1, 2, true}, {5, 9, true},
		{1, 1, false}, {3, 2, false}, {9, 1, false},
	}
	ws := &workspace.Workspace{ID: "ws", Name: "Old", Seats: 1}
	m := &workspace.Member{ID: "u", Email: "u@x.example", Role: workspace.RoleMember}
	a := &workspace.Agent{ID: "a", Name: "A"}
	for _, tt := range tests {
		p, stored := prov(tt.version), workspace.Provisioned{Version: tt.stored}
		_, _, wApply, wErr := workspace.DecideWorkspace(p, ws, stored, workspace.WorkspaceFields{Name: ptr("New")}, provAt)
		md, mErr := workspace.DecideMember(p, "u", m, stored, workspace.MemberFields{Name: ptr("N")}, workspace.EmailClaim{}, provAt)
		ad, aErr := workspace.DecideAgent(p, "a", a, stored, workspace.AgentFields{Name: ptr("B")}, false, provAt)
		mr := workspace.DecideMemberRemoval(p, "u", m, stored, provAt)
		ar := workspace.DecideAgentRemoval(p, "a", a, stored, provAt)
		for what, got := range map[string]bool{"workspace": wApply, "member": md.Apply, "agent": ad.Apply,
			"member removal": mr.Apply, "agent removal": ar.Apply} {
			if got != tt.apply {
				t.Errorf("stored %d, event %d: %s applies %v, want %v", tt.stored, tt.version, what, got, tt.apply)
			}
		}
		if err := errors.Join(wErr, mErr, aErr); err != nil {
			t.Errorf("stored %d, event %d: %v", tt.stored, tt.version, err)
		}
	}
}

// An operator's creation (Provision.Create) makes an entity that neither
// exists nor was touched by an event, at version 0; it fails, never
// updating, on one that does or was.
func TestACreationNeverWritesOverAnEntity(t *testing.T) {
	create := workspace.Provision{WorkspaceID: "ws", Create: true}
	ws := &workspace.Workspace{ID: "ws", Name: "Old", Seats: 1}
	m := &workspace.Member{ID: "u", Email: "u@x.example", Role: workspace.RoleMember}
	a := &workspace.Agent{ID: "a", Name: "A"}
	wf := workspace.WorkspaceFields{Name: ptr("New"), Seats: ptr(2)}
	mf := workspace.MemberFields{Email: ptr("u@x.example"), Name: ptr("N"), Role: ptr(workspace.RoleAdmin)}
	af := workspace.AgentFields{Name: ptr("B")}
	for _, tt := range []struct {
		name   string
		exists bool
		stored workspace.Provisioned
		fails  bool
	}{
		{"new", false, workspace.Provisioned{}, false},
		{"exists", true, workspace.Provisioned{}, true},
		{"touched by an event", false, workspace.Provisioned{Version: 1, Removed: true}, true},
	} {
		cw, cm, ca := ws, m, a
		if !tt.exists {
			cw, cm, ca = nil, nil, nil
		}
		_, wEntries, wApply, wErr := workspace.DecideWorkspace(create, cw, tt.stored, wf, provAt)
		md, mErr := workspace.DecideMember(create, "u", cm, tt.stored, mf, workspace.EmailClaim{}, provAt)
		ad, aErr := workspace.DecideAgent(create, "a", ca, tt.stored, af, false, provAt)
		for what, got := range map[string]struct {
			apply bool
			err   error
		}{"workspace": {wApply, wErr}, "member": {md.Apply, mErr}, "agent": {ad.Apply, aErr}} {
			if tt.fails && (got.apply || !errors.Is(got.err, workspace.ErrAlreadyProvisioned)) {
				t.Errorf("%s: %s: apply %v, err %v; want ErrAlreadyProvisioned", tt.name, what, got.apply, got.err)
			}
			if !tt.fails && (!got.apply || got.err != nil) {
				t.Errorf("%s: %s: apply %v, err %v; want a creation", tt.name, what, got.apply, got.err)
			}
		}
		if !tt.fails && (len(wEntries) != 1 || wEntries[0].Action != workspace.ActionWorkspaceCreated || !md.New || !ad.New) {
			t.Errorf("%s: entries %+v, member new %v, agent new %v", tt.name, wEntries, md.New, ad.New)
		}
	}
}

func TestWorkspaceUpsert(t *testing.T) {
	limit := 5.0
	current := &workspace.Workspace{ID: "ws", Name: "Acme", Seats: 10, SeatsUsed: 4, AllowedEmailDomains: []string{}, DefaultDailyCreditLimit: &limit}
	tests := []struct {
		name    string
		current *workspace.Workspace
		fields  workspace.WorkspaceFields
		want    workspace.Workspace
		action  workspace.AuditAction // "" for no entry
		changes []string
		err     bool
	}{
		{name: "a new workspace needs name and seats", fields: workspace.WorkspaceFields{Name: ptr("X")}, err: true},
		{name: "a new workspace starts with no seat used",
			fields: workspace.WorkspaceFields{Name: ptr("X"), Seats: ptr(3)},
			want:   workspace.Workspace{ID: "ws", Name: "X", Seats: 3, AllowedEmailDomains: []string{}},
			action: workspace.ActionWorkspaceCreated, changes: []string{"name", "seats"}},
		{name: "an update changes the given fields and keeps the used seats", current: current,
			fields: workspace.WorkspaceFields{Seats: ptr(2), DefaultDailyCreditLimit: workspace.Null[float64]()},
			want:   workspace.Workspace{ID: "ws", Name: "Acme", Seats: 2, SeatsUsed: 4, AllowedEmailDomains: []string{}},
			action: workspace.ActionWorkspaceUpdated, changes: []string{"seats", "defaultDailyCreditLimit"}},
		{name: "an update to the same values records nothing", current: current,
			fields: workspace.WorkspaceFields{Name: ptr("Acme"), AllowedEmailDomains: &[]string{}, DefaultDailyCreditLimit: workspace.Value(5.0)},
			want:   *current},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, entries, apply, err := workspace.DecideWorkspace(prov(1), tt.current, workspace.Provisioned{}, tt.fields, provAt)
			if tt.err {
				if err == nil || apply {
					t.Fatalf("got %+v, %v; want a failure", got, err)
				}
				return
			}
			if err != nil || !apply {
				t.Fatalf("got %v, apply %v", err, apply)
			}
			if got.Name != tt.want.Name || got.Seats != tt.want.Seats || got.SeatsUsed != tt.want.SeatsUsed ||
				(got.DefaultDailyCreditLimit == nil) != (tt.want.DefaultDailyCreditLimit == nil) {
				t.Errorf("workspace: got %+v, want %+v", got, tt.want)
			}
			checkEntry(t, entries, tt.action, tt.changes)
		})
	}
}

// checkEntry requires entries to be one entry of action by the platform
// with exactly changes, or none when action is "".
func checkEntry(t *testing.T, entries []workspace.AuditEntry, action workspace.AuditAction, changes []string) {
	t.Helper()
	if action == "" {
		if len(entries) != 0 {
			t.Errorf("entries: got %+v, want none", entries)
		}
		return
	}
	if len(entries) != 1 || entries[0].Action != action || entries[0].Actor != workspace.PlatformActor() {
		t.Fatalf("entries: got %+v, want one %s by the platform", entries, action)
	}
	if len(entries[0].Changes) != len(changes) {
		t.Errorf("%s changes: got %v, want %v", action, entries[0].Changes, changes)
	}
	for _, c := range changes {
		if _, ok := entries[0].Changes[c]; !ok {
			t.Errorf("%s changes: got %v, want %s among them", action, entries[0].Changes, c)
		}
	}
}

func TestMemberUpsert(t *testing.T) {
	admin := workspace.RoleAdmin
	current := &workspace.Member{ID: "u", WorkspaceID: "ws", Email: "u@x.example", Name: "U", Role: workspace.RoleMember,
		Tags: []string{"keep"}, Teams: []workspace.MemberTeam{{TeamID: "t", Role: workspace.TeamRoleAdmin}}}
	full := workspace.MemberFields{Email: ptr("n@x.example"), Name: ptr("N"), Role: &admin}
	tests := []struct {
		name     string
		current  *workspace.Member
		fields   workspace.MemberFields
		claim    workspace.EmailClaim
		err      error // nil: applies
		isNew    bool
		moves    bool // the e-mail claim moves
		action   workspace.AuditAction
		changes  []string
		keepTags bool
	}{
		{name: "a new member takes the given fields and starts without tags or teams", fields: full, isNew: true, moves: true,
			action: workspace.ActionMemberAdded, changes: []string{"email", "name", "role", "joinedAt"}},
		{name: "a new member needs email, name and role", fields: workspace.MemberFields{Email: ptr("n@x.example")},
			err: workspace.Invalid("")},
		{name: "an address another member holds fails", fields: full, claim: workspace.EmailClaim{MemberID: "other"},
			err: workspace.ErrAddressOfOtherMember},
		{name: "an address an invitation holds fails", fields: full, claim: workspace.EmailClaim{InviteID: "inv"},
			err: workspace.ErrAddressInvited},
		{name: "a role change keeps tags and team roles", current: current, fields: workspace.MemberFields{Role: &admin},
			action: workspace.ActionMemberUpdated, changes: []string{"role"}, keepTags: true},
		{name: "a new address moves the claim", current: current, fields: workspace.MemberFields{Email: ptr("v@x.example")},
			moves: true, action: workspace.ActionMemberUpdated, changes: []string{"email"}, keepTags: true},
		{name: "the same address in another case keeps the claim", current: current, fields: workspace.MemberFields{Email: ptr("U@X.example")},
			claim: workspace.EmailClaim{MemberID: "u"}, action: workspace.ActionMemberUpdated, changes: []string{"email"}, keepTags: true},
		{name: "the same values record nothing", current: current, fields: workspace.MemberFields{Name: ptr("U")}, keepTags: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := workspace.DecideMember(prov(2), "u", tt.current, workspace.Provisioned{Version: 1}, tt.fields, tt.claim, provAt)
			if tt.err != nil {
				if workspace.KindOf(err) != workspace.KindOf(tt.err) || d.Apply {
					t.Fatalf("got %+v, %v; want %v", d, err, tt.err)
				}
				return
			}
			if err != nil || !d.Apply || d.New != tt.isNew || d.EmailChanged != tt.moves {
				t.Fatalf("got %+v, %v; want new %v, claim moves %v", d, err, tt.isNew, tt.moves)
			}
			if tt.isNew && (len(d.Member.Tags) != 0 || len(d.Member.Teams) != 0 || !d.Member.JoinedAt.Equal(provAt)) {
				t.Errorf("new member: got %+v", d.Member)
			}
			if tt.keepTags && (len(d.Member.Tags) != 1 || len(d.Member.Teams) != 1) {
				t.Errorf("updated member lost their tags or team roles: %+v", d.Member)
			}
			checkEntry(t, d.Entries, tt.action, tt.changes)
		})
	}
}

func TestMemberRemoval(t *testing.T) {
	m := &workspace.Member{ID: "u", Email: "u@x.example", Role: workspace.RoleMember}
	if d := workspace.DecideMemberRemoval(prov(2), "u", m, workspace.Provisioned{Version: 1}, provAt); !d.Apply || !d.Remove {
		t.Errorf("removing a member: got %+v", d)
	} else {
		checkEntry(t, d.Entries, workspace.ActionMemberRemoved, []string{"email", "role"})
	}
	// Unknown at a newer version: only the version is recorded, so an
	// older upsert arriving later is a no-op.
	if d := workspace.DecideMemberRemoval(prov(2), "u", nil, workspace.Provisioned{}, provAt); !d.Apply || d.Remove || len(d.Entries) != 0 {
		t.Errorf("removing an unknown member: got %+v, want the version recorded alone", d)
	}
	keys := []workspace.APIKey{{ID: "k1", WorkspaceID: "ws", UserID: "u"}, {ID: "k2", WorkspaceID: "ws", UserID: "v"},
		{ID: "k3", WorkspaceID: "ws", UserID: "u", TeamID: "t"}, {ID: "k4", WorkspaceID: "other", UserID: "u"}}
	got := workspace.KeysOwnedBy(keys, "ws", "u")
	if len(got) != 2 || got[0].ID != "k1" || got[1].ID != "k3" {
		t.Errorf("keys revoked with the member: got %+v, want k1 and the team-scoped k3", got)
	}
}

func TestInviteAcceptance(t *testing.T) {
	pending := &workspace.Invitation{ID: "inv", Email: "n@x.example", Role: "collaborator", ExpiresAt: provAt.Add(time.Hour), HoldsSeat: true,
		Groups: []workspace.Group{{GroupID: "t1", Role: "admin"}, {GroupID: "gone", Role: "member"}}}
	released := *pending
	released.HoldsSeat = false
	noRole := *pending
	noRole.Role = ""
	accept := workspace.Acceptance{InviteID: "inv", UserID: "u", Name: "New", AcceptedAt: provAt}
	late := accept
	late.AcceptedAt = provAt.Add(2 * time.Hour)
	tests := []struct {
		name      string
		inv       *workspace.Invitation
		member    *workspace.Member
		a         workspace.Acceptance
		err       error
		takesSeat bool
	}{
		{name: "a pending invitation becomes a member and hands over its seat", inv: pending, a: accept},
		{name: "an invitation whose seat was released takes one again", inv: &released, a: accept, takesSeat: true},
		{name: "an unknown, revoked or accepted invitation fails", a: accept, err: workspace.ErrInvitationUnknown},
		{name: "an invitation expired when accepted fails", inv: pending, a: late, err: workspace.ErrInvitationExpired},
		{name: "an invitation without a role fails", inv: &noRole, a: accept, err: workspace.ErrInvitationNoRole},
		{name: "a user who is a member already fails", inv: pending, member: &workspace.Member{ID: "u"}, a: accept, err: workspace.ErrAlreadyMemberUser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := workspace.DecideAcceptance(prov(1), tt.a, tt.inv, tt.member, workspace.Provisioned{}, map[string]bool{"t1": true}, provAt)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || d.Apply {
					t.Fatalf("got %+v, %v; want %v", d, err, tt.err)
				}
				return
			}
			if err != nil || !d.Apply || d.TakesSeat != tt.takesSeat {
				t.Fatalf("got %+v, %v; want it applied, takes a seat %v", d, err, tt.takesSeat)
			}
			m := d.Member
			if m.ID != "u" || m.Email != "n@x.example" || m.Role != workspace.RoleCollaborator || m.Name != "New" || !m.JoinedAt.Equal(provAt) {
				t.Errorf("member: got %+v", m)
			}
			if len(d.Memberships) != 1 || d.Memberships[0].TeamID != "t1" || d.Memberships[0].Role != workspace.TeamRoleAdmin ||
				len(m.Teams) != 1 {
				t.Errorf("memberships: got %+v (member teams %+v), want t1 alone: a team that no longer exists is left out", d.Memberships, m.Teams)
			}
			checkEntry(t, d.Entries, workspace.ActionInviteAccepted, []string{"status", "userId", "role", "teams"})
		})
	}
	// A redelivery after it was applied is a no-op before anything else:
	// the invitation is gone by then.
	if d, err := workspace.DecideAcceptance(prov(1), accept, nil, &workspace.Member{ID: "u"}, workspace.Provisioned{Version: 1}, nil, provAt); err != nil || d.Apply {
		t.Errorf("a redelivered acceptance: got %+v, %v; want a no-op", d, err)
	}
}

func TestAgentUpsert(t *testing.T) {
	limit := 3.0
	current := &workspace.Agent{ID: "a", WorkspaceID: "ws", Name: "A", TeamID: "t1", Tags: []string{"x"},
		DailyCreditLimit: &limit, ShowTokenOptimisationInfo: true, AgentDiscoverability: workspace.DiscoverabilityTeam}
	tests := []struct {
		name       string
		current    *workspace.Agent
		stored     workspace.Provisioned
		fields     workspace.AgentFields
		teamExists bool
		err        error
		moves      bool
		action     workspace.AuditAction
		changes    []string
	}{
		{name: "a new agent runs discoverable to the workspace, without limits or tags", fields: workspace.AgentFields{Name: ptr("New")},
			action: workspace.ActionAgentAdded, changes: []string{"name"}},
		{name: "a new agent needs a name", fields: workspace.AgentFields{IsPrivate: ptr(true)}, err: workspace.Invalid("")},
		{name: "a team the workspace lacks fails", fields: workspace.AgentFields{Name: ptr("N"), TeamID: workspace.Value("t9")},
			err: workspace.ErrAgentTeamNotFound},
		{name: "a team change moves the agent", current: current, fields: workspace.AgentFields{TeamID: workspace.Value("t2")}, teamExists: true,
			moves: true, action: workspace.ActionAgentUpdated, changes: []string{"teamId"}},
		{name: "leaving every team moves the agent too", current: current, fields: workspace.AgentFields{TeamID: workspace.Null[string]()},
			moves: true, action: workspace.ActionAgentUpdated, changes: []string{"teamId"}},
		{name: "null description and image clear them", current: &workspace.Agent{ID: "a", Name: "A", Description: "d", ImageURL: "i"},
			fields: workspace.AgentFields{Description: workspace.Null[string](), ImageURL: workspace.Null[string]()},
			action: workspace.ActionAgentUpdated, changes: []string{"description", "imageUrl"}},
		{name: "a removed agent stays removed", stored: workspace.Provisioned{Version: 1, Removed: true},
			fields: workspace.AgentFields{Name: ptr("Back")}, err: workspace.ErrAgentRemoved},
		{name: "the same values record nothing", current: current, fields: workspace.AgentFields{Name: ptr("A")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := workspace.DecideAgent(prov(2), "a", tt.current, tt.stored, tt.fields, tt.teamExists, provAt)
			if tt.err != nil {
				if workspace.KindOf(err) != workspace.KindOf(tt.err) || d.Apply {
					t.Fatalf("got %+v, %v; want %v", d, err, tt.err)
				}
				return
			}
			if err != nil || !d.Apply || d.TeamChanged != tt.moves {
				t.Fatalf("got %+v, %v; want the team to move %v", d, err, tt.moves)
			}
			if tt.current == nil {
				a := d.Agent
				if a.AgentDiscoverability != workspace.DiscoverabilityWorkspace || a.DailyCreditLimit != nil || len(a.Tags) != 0 || a.ShowTokenOptimisationInfo {
					t.Errorf("new agent: got %+v", a)
				}
			} else if tt.current == current && (d.Agent.DailyCreditLimit != &limit || len(d.Agent.Tags) != 1 || !d.Agent.ShowTokenOptimisationInfo) {
				t.Errorf("an update changed what the API manages: %+v", d.Agent)
			}
			checkEntry(t, d.Entries, tt.action, tt.changes)
		})
	}
}

func TestAgentRemoval(t *testing.T) {
	a := &workspace.Agent{ID: "a", Name: "A", TeamID: "t1"}
	if d := workspace.DecideAgentRemoval(prov(3), "a", a, workspace.Provisioned{Version: 2}, provAt); !d.Apply || !d.Remove {
		t.Errorf("removing an agent: got %+v", d)
	} else {
		checkEntry(t, d.Entries, workspace.ActionAgentRemoved, []string{"name", "teamId"})
	}
	if d := workspace.DecideAgentRemoval(prov(3), "a", nil, workspace.Provisioned{}, provAt); !d.Apply || d.Remove || len(d.Entries) != 0 {
		t.Errorf("removing an unknown agent: got %+v, want the removal recorded alone", d)
	}
}
