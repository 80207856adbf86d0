package dynamo_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

var provNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// provision is the Provision of event id of ws_p at version.
func provision(id string, version int64) workspace.Provision {
	return workspace.Provision{EventID: id, WorkspaceID: "ws_p", Version: version}
}

func sptr[T any](v T) *T { return &v }

// newProvisioned returns a store whose table holds workspace ws_p with seats
// seats and team settings on, provisioned at version 1.
func newProvisioned(t *testing.T, seats int) *dynamo.Store {
	t.Helper()
	store, _ := dynamolocal.NewStore(t)
	err := store.ApplyWorkspaceUpsert(t.Context(), provision("w1", 1), workspace.WorkspaceFields{
		Name: sptr("Provisioned"), Seats: sptr(seats), TeamSettingsEnabled: sptr(true)}, provNow)
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// addMember applies a member.upserted of user at version.
func addMember(t *testing.T, store *dynamo.Store, eventID, user string, version int64, role workspace.Role) {
	t.Helper()
	err := store.ApplyMemberUpsert(t.Context(), provision(eventID, version), user, workspace.MemberFields{
		Email: sptr(user + "@p.example"), Name: sptr("User " + user), Role: &role}, provNow)
	if err != nil {
		t.Fatalf("member.upserted %s: %v", user, err)
	}
}

// usedSeats reads ws_p's used seats.
func usedSeats(t *testing.T, store *dynamo.Store) int {
	t.Helper()
	w, err := store.Workspace(t.Context(), "ws_p")
	if err != nil {
		t.Fatal(err)
	}
	return w.SeatsUsed
}

// platformEntries counts ws_p's audit entries by the platform, by action.
func platformEntries(t *testing.T, store *dynamo.Store) map[workspace.AuditAction]int {
	t.Helper()
	entries, _, err := store.AuditPage(t.Context(), "ws_p", workspace.AuditFilter{}, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[workspace.AuditAction]int{}
	for _, e := range entries {
		if e.Actor == workspace.PlatformActor() {
			out[e.Action]++
		}
	}
	return out
}

// An event whose version is not above the stored one changes nothing and
// is no failure, whatever order the events come in.
func TestAnOlderProvisioningVersionIsANoOp(t *testing.T) {
	t.Parallel()
	store := newProvisioned(t, 5)
	ctx := t.Context()
	if err := store.ApplyWorkspaceUpsert(ctx, provision("w3", 3), workspace.WorkspaceFields{Name: sptr("Third")}, provNow); err != nil {
		t.Fatal(err)
	}
	if err := store.ApplyWorkspaceUpsert(ctx, provision("w2", 2), workspace.WorkspaceFields{Name: sptr("Second"), Seats: sptr(1)}, provNow); err != nil {
		t.Fatalf("an older workspace.upserted: %v, want a no-op", err)
	}
	if w, _ := store.Workspace(ctx, "ws_p"); w.Name != "Third" || w.Seats != 5 {
		t.Errorf("workspace after an older version: got %+v, want Third with 5 seats", w)
	}

	addMember(t, store, "m5", "u1", 5, workspace.RoleAdmin)
	addMember(t, store, "m4", "u1", 4, workspace.RoleCollaborator)
	if m, _ := store.Member(ctx, "ws_p", "u1"); m.Role != workspace.RoleAdmin {
		t.Errorf("member after an older version: got role %s, want admin", m.Role)
	}

	// A removal newer than the upsert that arrives after it: the upsert
	// never brings the member back.
	if err := store.ApplyMemberRemoval(ctx, provision("r2", 2), "u2", provNow); err != nil {
		t.Fatal(err)
	}
	addMember(t, store, "m1", "u2", 1, workspace.RoleMember)
	if _, err := store.Member(ctx, "ws_p", "u2"); !workspace.IsNotFound(err) {
		t.Errorf("member upserted at version 1 after its removal at 2: read %v, want not found", err)
	}

	// Likewise for agents; and an agent once removed stays removed.
	if err := store.ApplyAgentRemoval(ctx, provision("a2", 2), "ag", provNow); err != nil {
		t.Fatal(err)
	}
	if err := store.ApplyAgentUpsert(ctx, provision("a1", 1), "ag", workspace.AgentFields{Name: sptr("Old")}, provNow); err != nil {
		t.Errorf("an older agent.upserted after the removal: %v, want a no-op", err)
	}
	if err := store.ApplyAgentUpsert(ctx, provision("a3", 3), "ag", workspace.AgentFields{Name: sptr("New")}, provNow); err != workspace.ErrAgentRemoved {
		t.Errorf("a newer agent.upserted after the removal: %v, want ErrAgentRemoved", err)
	}
	if _, err := store.Agent(ctx, "ws_p", "ag"); !workspace.IsNotFound(err) {
		t.Errorf("agent read: %v, want not found", err)
	}
	if got := platformEntries(t, store); got[workspace.ActionWorkspaceUpdated] != 1 || got[workspace.ActionMemberAdded] != 1 ||
		got[workspace.ActionMemberUpdated] != 0 || got[workspace.ActionAgentAdded] != 0 {
		t.Errorf("audit log: got %v, want one workspace.updated and one member.added, no more", got)
	}
}

// A redelivered event id is applied once, whatever it says the second time.
func TestARedeliveredProvisioningEventAppliesOnce(t *testing.T) {
	t.Parallel()
	store := newProvisioned(t, 5)
	ctx := t.Context()
	addMember(t, store, "m1", "u1", 1, workspace.RoleMember)
	for range 2 {
		if err := store.ApplyMemberUpsert(ctx, provision("m2", 2), "u1", workspace.MemberFields{Name: sptr("Renamed")}, provNow); err != nil {
			t.Fatal(err)
		}
	}
	// The same id again, even at a higher version: the marker says it was applied.
	if err := store.ApplyMemberUpsert(ctx, provision("m2", 3), "u1", workspace.MemberFields{Name: sptr("Again")}, provNow); err != nil {
		t.Fatal(err)
	}
	if m, _ := store.Member(ctx, "ws_p", "u1"); m.Name != "Renamed" {
		t.Errorf("member name: got %q, want Renamed", m.Name)
	}
	if rec, _ := store.ProvisionedVersion(ctx, "ws_p", "member", "u1"); rec.Version != 2 {
		t.Errorf("member version: got %d, want 2", rec.Version)
	}
	if got := platformEntries(t, store); got[workspace.ActionMemberAdded] != 1 || got[workspace.ActionMemberUpdated] != 1 || usedSeats(t, store) != 1 {
		t.Errorf("audit log %v, %d seats used; want one member.added, one member.updated, one seat", got, usedSeats(t, store))
	}
}

// Seats move exactly where members do: a new member takes one (even past
// the seats: the platform decides), an update takes none, a removal frees
// one, an accepted invitation hands its seat to the member.
func TestSeatsMoveWithProvisionedMembers(t *testing.T) {
	t.Parallel()
	store := newProvisioned(t, 2)
	ctx := t.Context()
	addMember(t, store, "m1", "u1", 1, workspace.RoleAdmin)
	addMember(t, store, "m2", "u2", 1, workspace.RoleMember)
	addMember(t, store, "m3", "u3", 1, workspace.RoleMember)
	addMember(t, store, "m4", "u1", 2, workspace.RoleMember) // an update
	if got := usedSeats(t, store); got != 3 {
		t.Errorf("after three members and an update: %d seats used, want 3", got)
	}
	if err := store.ApplyMemberRemoval(ctx, provision("r1", 2), "u2", provNow); err != nil {
		t.Fatal(err)
	}
	if err := store.ApplyMemberRemoval(ctx, provision("r2", 3), "u2", provNow); err != nil {
		t.Fatal(err)
	}
	if got := usedSeats(t, store); got != 2 {
		t.Errorf("after a removal (and another of the same member): %d seats used, want 2", got)
	}

	// An invitation takes the third seat; its acceptance keeps it taken.
	if err := store.ApplyWorkspaceUpsert(ctx, provision("w2", 2), workspace.WorkspaceFields{Seats: sptr(3)}, provNow); err != nil {
		t.Fatal(err)
	}
	w, _ := store.Workspace(ctx, "ws_p")
	email, role := "new@p.example", "member"
	inv := workspace.NewInvitation("inv_1", workspace.InviteRequest{Email: &email, Role: &role}, w, workspace.Member{Name: "U1"}, provNow, time.Hour)
	if err := store.CreateInvitation(ctx, workspace.Unrecorded, inv, workspace.EmailClaim{}, w.Seats, provNow); err != nil {
		t.Fatal(err)
	}
	if got := usedSeats(t, store); got != 3 {
		t.Errorf("after the invitation: %d seats used, want 3", got)
	}
	accept := workspace.Acceptance{InviteID: "inv_1", UserID: "u9", Name: "Nine", AcceptedAt: provNow}
	for _, id := range []string{"i1", "i1"} {
		if err := store.ApplyInviteAcceptance(ctx, provision(id, 1), accept, provNow); err != nil {
			t.Fatal(err)
		}
	}
	if got := usedSeats(t, store); got != 3 {
		t.Errorf("after the acceptance (delivered twice): %d seats used, want 3", got)
	}
	m, err := store.Member(ctx, "ws_p", "u9")
	if err != nil || m.Email != email || m.Role != workspace.RoleMember {
		t.Errorf("the accepted member: %+v, %v", m, err)
	}
	// Accepted, the invitation is gone: a second acceptance fails clearly.
	accept.UserID = "u10"
	if err := store.ApplyInviteAcceptance(ctx, provision("i2", 1), accept, provNow); err != workspace.ErrInvitationUnknown {
		t.Errorf("a second acceptance: %v, want ErrInvitationUnknown", err)
	}
}

// A member's removal revokes every key they own (team-scoped ones too),
// takes them out of every team, however many, and records each of these
// changes by the platform.
func TestAMemberRemovalRevokesTheirKeysAndLeavesEveryTeam(t *testing.T) {
	t.Parallel()
	store := newProvisioned(t, 5)
	ctx := t.Context()
	addMember(t, store, "m1", "u1", 1, workspace.RoleAdmin)
	addMember(t, store, "m2", "u2", 1, workspace.RoleMember)
	admin := workspace.KeyActor(workspace.Caller{KeyID: "key_admin", UserID: "u1"}, "req")
	const teams = 45 // more than one transaction's worth
	for i := range teams {
		team := workspace.Team{ID: fmt.Sprintf("t%02d", i), WorkspaceID: "ws_p", Name: fmt.Sprintf("Team %d", i), CreatedAt: provNow}
		if err := store.CreateTeam(ctx, admin, team, provNow); err != nil {
			t.Fatal(err)
		}
		if err := store.PutTeamMember(ctx, admin, false, workspace.TeamMembership{WorkspaceID: "ws_p", TeamID: team.ID, UserID: "u2", Role: workspace.TeamRoleMember}, provNow); err != nil {
			t.Fatal(err)
		}
	}
	var hashes []string
	for i, team := range []string{"", "t00", ""} {
		k := workspace.APIKey{ID: fmt.Sprintf("key_u2_%d", i), Hash: fmt.Sprintf("%064d", i), Name: "k", WorkspaceID: "ws_p", UserID: "u2",
			Scopes: []workspace.Scope{workspace.ScopeRead}, TeamID: team, CreatedAt: provNow}
		if err := store.CreateAPIKey(ctx, workspace.Unrecorded, k, provNow); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, k.Hash)
	}
	other := workspace.APIKey{ID: "key_u1", Hash: fmt.Sprintf("%064d", 9), Name: "k", WorkspaceID: "ws_p", UserID: "u1",
		Scopes: []workspace.Scope{workspace.ScopeRead}, CreatedAt: provNow}
	if err := store.CreateAPIKey(ctx, workspace.Unrecorded, other, provNow); err != nil {
		t.Fatal(err)
	}

	if err := store.ApplyMemberRemoval(ctx, provision("r1", 2), "u2", provNow); err != nil {
		t.Fatal(err)
	}
	for _, h := range hashes {
		if _, err := store.APIKey(ctx, h); !workspace.IsNotFound(err) {
			t.Errorf("a key of the removed member: read %v, want not found", err)
		}
	}
	if _, err := store.APIKey(ctx, other.Hash); err != nil {
		t.Errorf("another member's key: %v, want it kept", err)
	}
	if _, err := store.Member(ctx, "ws_p", "u2"); !workspace.IsNotFound(err) {
		t.Errorf("the removed member: read %v, want not found", err)
	}
	detail, err := store.TeamDetail(ctx, "ws_p", "t00", provNow)
	if err != nil || len(detail.Members) != 0 {
		t.Errorf("team t00 after the removal: %+v, %v; want no members", detail.Members, err)
	}
	got := platformEntries(t, store)
	if got[workspace.ActionKeyRevoked] != 3 || got[workspace.ActionTeamMemberRemoved] != teams || got[workspace.ActionMemberRemoved] != 1 {
		t.Errorf("audit log: got %v, want 3 key.revoked, %d team.member_removed, 1 member.removed", got, teams)
	}
	if usedSeats(t, store) != 1 {
		t.Errorf("%d seats used, want 1", usedSeats(t, store))
	}
	// The address is free again: the member may come back at a newer version.
	addMember(t, store, "m3", "u2", 3, workspace.RoleCollaborator)
	if m, err := store.Member(ctx, "ws_p", "u2"); err != nil || len(m.Teams) != 0 || m.Role != workspace.RoleCollaborator {
		t.Errorf("the member back at version 3: %+v, %v", m, err)
	}
}

// An agent's upsert moves it between teams (the team index follows), and
// leaves its tags (like its limits and showTokenOptimisationInfo) to the API.
func TestAnAgentUpsertMovesItsTeamAndKeepsWhatTheAPIManages(t *testing.T) {
	t.Parallel()
	store := newProvisioned(t, 5)
	ctx := t.Context()
	admin := workspace.KeyActor(workspace.Caller{KeyID: "key_admin", UserID: "u1"}, "req")
	for _, id := range []string{"t1", "t2"} {
		if err := store.CreateTeam(ctx, admin, workspace.Team{ID: id, WorkspaceID: "ws_p", Name: id, CreatedAt: provNow}, provNow); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.ApplyAgentUpsert(ctx, provision("a1", 1), "ag", workspace.AgentFields{Name: sptr("Agent"), TeamID: workspace.Value("t1")}, provNow); err != nil {
		t.Fatal(err)
	}
	if _, err := store.SetTags(ctx, admin, "ws_p", workspace.TaggableAgent, "", []string{"ag"},
		workspace.TagChange{Mode: workspace.TagModeAdd, Tags: []string{"kept"}}, provNow); err != nil {
		t.Fatal(err)
	}
	if err := store.ApplyAgentUpsert(ctx, provision("a2", 2), "ag", workspace.AgentFields{TeamID: workspace.Value("t2"), Description: workspace.Value("d")}, provNow); err != nil {
		t.Fatal(err)
	}
	a, err := store.Agent(ctx, "ws_p", "ag")
	if err != nil || a.TeamID != "t2" || a.Name != "Agent" || a.Description != "d" || len(a.Tags) != 1 {
		t.Errorf("agent after the move: %+v, %v", a, err)
	}
	for team, want := range map[string]int{"t1": 0, "t2": 1} {
		agents, _, err := store.AgentPage(ctx, "ws_p", team, "", 10)
		if err != nil || len(agents) != want {
			t.Errorf("team %s lists %d agents (%v), want %d", team, len(agents), err, want)
		}
	}
	if err := store.ApplyAgentUpsert(ctx, provision("a3", 3), "ag", workspace.AgentFields{TeamID: workspace.Value("t9")}, provNow); err != workspace.ErrAgentTeamNotFound {
		t.Errorf("a move to a team that does not exist: %v, want ErrAgentTeamNotFound", err)
	}
}

// Versions of one member delivered at once, in any order, by concurrent
// invocations: every one succeeds, the newest is what stays, and the
// member took one seat.
func TestConcurrentVersionsOfOneMemberLeaveTheNewest(t *testing.T) {
	t.Parallel()
	store := newProvisioned(t, 5)
	const versions = 12
	var wg sync.WaitGroup
	errs := make([]error, versions)
	for v := versions; v >= 1; v-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			role := workspace.RoleMember
			errs[v-1] = store.ApplyMemberUpsert(t.Context(), provision(fmt.Sprintf("m%d", v), int64(v)), "u1", workspace.MemberFields{
				Email: sptr("u1@p.example"), Name: sptr(fmt.Sprintf("Version %d", v)), Role: &role}, provNow)
		}()
	}
	wg.Wait()
	for v, err := range errs {
		if err != nil {
			t.Errorf("version %d: %v", v+1, err)
		}
	}
	m, err := store.Member(t.Context(), "ws_p", "u1")
	if err != nil || m.Name != fmt.Sprintf("Version %d", versions) {
		t.Errorf("member: %+v, %v; want the newest version's name", m, err)
	}
	if got := usedSeats(t, store); got != 1 {
		t.Errorf("%d seats used, want 1", got)
	}
}

// Updates of every provisioned field succeed against what earlier events
// stored: each write is conditioned on the stored value as read, lists,
// maps and numbers included.
func TestEveryProvisionedFieldUpdatesOverItsStoredValue(t *testing.T) {
	t.Parallel()
	store := newProvisioned(t, 5)
	ctx := t.Context()
	ws := func(id string, v int64, f workspace.WorkspaceFields) {
		t.Helper()
		if err := store.ApplyWorkspaceUpsert(ctx, provision(id, v), f, provNow); err != nil {
			t.Fatalf("workspace.upserted %s: %v", id, err)
		}
	}
	ws("w2", 2, workspace.WorkspaceFields{AllowedEmailDomains: &[]string{"p.example"}, DefaultDailyCreditLimit: workspace.Value(2.5),
		TeamSettingsEnabled: sptr(false)})
	ws("w3", 3, workspace.WorkspaceFields{AllowedEmailDomains: &[]string{}, DefaultDailyCreditLimit: workspace.Null[float64](),
		TeamSettingsEnabled: sptr(true), Seats: sptr(7), Name: sptr("Renamed")})
	w, _ := store.Workspace(ctx, "ws_p")
	if w.Name != "Renamed" || w.Seats != 7 || len(w.AllowedEmailDomains) != 0 || w.DefaultDailyCreditLimit != nil || !w.TeamSettingsEnabled {
		t.Errorf("workspace: got %+v", w)
	}

	addMember(t, store, "m1", "u1", 1, workspace.RoleMember)
	joined := provNow.Add(-time.Hour)
	admin := workspace.RoleAdmin
	if err := store.ApplyMemberUpsert(ctx, provision("m2", 2), "u1", workspace.MemberFields{Email: sptr("moved@p.example"),
		Name: sptr("Moved"), Role: &admin, JoinedAt: &joined}, provNow); err != nil {
		t.Fatal(err)
	}
	m, _ := store.Member(ctx, "ws_p", "u1")
	if m.Email != "moved@p.example" || m.Name != "Moved" || m.Role != admin || !m.JoinedAt.Equal(joined) {
		t.Errorf("member: got %+v", m)
	}
	// The old address is free for someone else, the new one is taken.
	role := workspace.RoleMember
	if err := store.ApplyMemberUpsert(ctx, provision("m3", 1), "u3", workspace.MemberFields{Email: sptr("u1@p.example"),
		Name: sptr("Three"), Role: &role}, provNow); err != nil {
		t.Errorf("another member at the old address: %v", err)
	}
	if err := store.ApplyMemberUpsert(ctx, provision("m4", 1), "u2", workspace.MemberFields{Email: sptr("moved@p.example"),
		Name: sptr("Two"), Role: &role}, provNow); err != workspace.ErrAddressOfOtherMember {
		t.Errorf("another member at the moved address: %v, want ErrAddressOfOtherMember", err)
	}

	metric := func(name, agg string) workspace.KeyMetricDefinition {
		return workspace.KeyMetricDefinition{Name: name, Measurement: workspace.Measurement{Unit: "u", Aggregation: agg}}
	}
	agent := func(id string, v int64, f workspace.AgentFields) {
		t.Helper()
		if err := store.ApplyAgentUpsert(ctx, provision(id, v), "ag", f, provNow); err != nil {
			t.Fatalf("agent.upserted %s: %v", id, err)
		}
	}
	agent("a1", 1, workspace.AgentFields{Name: sptr("A"), ImageURL: workspace.Value("https://img.example/a.png"), IsPrivate: sptr(true),
		KeyMetrics: &[]workspace.KeyMetricDefinition{metric("M", "sum")}, Connections: &[]string{"x", "y"}})
	agent("a2", 2, workspace.AgentFields{ImageURL: workspace.Null[string](), IsPrivate: sptr(false), AgentDiscoverability: sptr("none"),
		KeyMetrics: &[]workspace.KeyMetricDefinition{metric("M", "average"), metric("N", "sum")}, Connections: &[]string{}})
	a, _ := store.Agent(ctx, "ws_p", "ag")
	if a.ImageURL != "" || a.IsPrivate || a.AgentDiscoverability != "none" || len(a.KeyMetrics) != 2 ||
		a.KeyMetrics[0].Measurement.Aggregation != "average" || len(a.Connections) != 0 {
		t.Errorf("agent: got %+v", a)
	}
	if got := platformEntries(t, store); got[workspace.ActionWorkspaceUpdated] != 2 || got[workspace.ActionMemberUpdated] != 1 ||
		got[workspace.ActionAgentUpdated] != 1 {
		t.Errorf("audit log: got %v", got)
	}
}

// An operator's tool applying the same code with workspace.Unrecorded
// (a fixture load) changes the entities and records nothing.
func TestProvisioningByAnUnrecordedActorRecordsNothing(t *testing.T) {
	t.Parallel()
	store, _ := dynamolocal.NewStore(t)
	ctx := t.Context()
	op := workspace.Unrecorded
	p := workspace.Provision{EventID: "fixture-ws", WorkspaceID: "ws_p", Version: 1, By: &op}
	if err := store.ApplyWorkspaceUpsert(ctx, p, workspace.WorkspaceFields{Name: sptr("W"), Seats: sptr(2)}, provNow); err != nil {
		t.Fatal(err)
	}
	p.EventID = "fixture-agent"
	if err := store.ApplyAgentUpsert(ctx, p, "ag", workspace.AgentFields{Name: sptr("A")}, provNow); err != nil {
		t.Fatal(err)
	}
	entries, _, err := store.AuditPage(ctx, "ws_p", workspace.AuditFilter{}, "", 10)
	if err != nil || len(entries) != 0 {
		t.Errorf("audit log: %+v, %v; want no entries", entries, err)
	}
	if _, err := store.Agent(ctx, "ws_p", "ag"); err != nil {
		t.Errorf("agent: %v", err)
	}
}

// An operator's creation (Provision.Create) writes the entity at version 0,
// so the platform's first event (version 1) applies over it, and never
// writes over an entity: a second creation fails and writes nothing, its
// event's marker included.
func TestProvisioningACreationCarriesVersionZeroAndNeverWritesOver(t *testing.T) {
	t.Parallel()
	store, _ := dynamolocal.NewStore(t)
	ctx := t.Context()
	create := workspace.Provision{EventID: "op-1", WorkspaceID: "ws_p", Create: true}
	if err := store.ApplyWorkspaceUpsert(ctx, create, workspace.WorkspaceFields{Name: sptr("Made"), Seats: sptr(3)}, provNow); err != nil {
		t.Fatal(err)
	}
	create.EventID = "op-2"
	if err := store.ApplyMemberUpsert(ctx, create, "usr_a", workspace.MemberFields{
		Email: sptr("a@p.example"), Name: sptr("A"), Role: sptr(workspace.RoleAdmin)}, provNow); err != nil {
		t.Fatal(err)
	}
	for _, kind := range [][2]string{{"workspace", "ws_p"}, {"member", "usr_a"}} {
		if rec, err := store.ProvisionedVersion(ctx, "ws_p", kind[0], kind[1]); err != nil || rec.Version != 0 {
			t.Errorf("%s's provisioning record: %+v, %v; want version 0", kind[0], rec, err)
		}
	}
	if got := platformEntries(t, store); got[workspace.ActionWorkspaceCreated] != 1 || got[workspace.ActionMemberAdded] != 1 {
		t.Errorf("audit log: %v", got)
	}

	create.EventID = "op-3"
	err := store.ApplyWorkspaceUpsert(ctx, create, workspace.WorkspaceFields{Name: sptr("Other"), Seats: sptr(9)}, provNow)
	if !errors.Is(err, workspace.ErrAlreadyProvisioned) {
		t.Errorf("a second creation: %v, want ErrAlreadyProvisioned", err)
	}
	// Its event id stays unused: a platform event with it would apply.
	if err := store.ApplyWorkspaceUpsert(ctx, provision("op-3", 1), workspace.WorkspaceFields{Name: sptr("Renamed")}, provNow); err != nil {
		t.Fatal(err)
	}
	addMember(t, store, "m1", "usr_a", 1, workspace.RoleMember)
	w, err := store.Workspace(ctx, "ws_p")
	if err != nil || w.Name != "Renamed" || w.Seats != 3 || w.SeatsUsed != 1 {
		t.Errorf("workspace after the platform's version 1: %+v, %v", w, err)
	}
	if m, err := store.Member(ctx, "ws_p", "usr_a"); err != nil || m.Role != workspace.RoleMember {
		t.Errorf("member after the platform's version 1: %+v, %v", m, err)
	}
}

// A removal delivered again after its transaction committed, as when the
// revocation that follows it failed, still revokes what the user owns: a
// key left behind would work again if the user came back.
func TestARedeliveredRemovalRevokesAKeyLeftBehind(t *testing.T) {
	t.Parallel()
	store := newProvisioned(t, 5)
	ctx := t.Context()
	addMember(t, store, "m1", "u1", 1, workspace.RoleAdmin)
	addMember(t, store, "m2", "u2", 1, workspace.RoleMember)
	k := workspace.APIKey{ID: "key_u2_late", Hash: fmt.Sprintf("%064d", 7), Name: "k", WorkspaceID: "ws_p", UserID: "u2",
		Scopes: []workspace.Scope{workspace.ScopeRead}, CreatedAt: provNow}
	if err := store.CreateAPIKey(ctx, workspace.Unrecorded, k, provNow); err != nil {
		t.Fatal(err)
	}
	// The key's items as a key created while the removal ran leaves them.
	left := make([]map[string]types.AttributeValue, 0, 3)
	for _, at := range [][2]string{{"KEY#" + k.Hash, "KEY"}, {"WS#ws_p", "APIKEY#" + k.ID}, {"WS#ws_p", "KEYCOUNT"}} {
		out, err := store.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(store.Table()), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: at[0]}, "SK": &types.AttributeValueMemberS{Value: at[1]}}})
		if err != nil || out.Item == nil {
			t.Fatalf("read %v: %v, %v", at, out, err)
		}
		left = append(left, out.Item)
	}
	if err := store.ApplyMemberRemoval(ctx, provision("r1", 2), "u2", provNow); err != nil {
		t.Fatal(err)
	}
	for _, it := range left {
		if _, err := store.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(store.Table()), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.APIKey(ctx, k.Hash); err != nil {
		t.Fatalf("the key left behind: %v", err)
	}

	if err := store.ApplyMemberRemoval(ctx, provision("r1", 2), "u2", provNow); err != nil {
		t.Fatalf("the removal delivered again: %v", err)
	}
	if _, err := store.APIKey(ctx, k.Hash); !workspace.IsNotFound(err) {
		t.Errorf("the key left behind after the removal came again: read %v, want not found", err)
	}
}
