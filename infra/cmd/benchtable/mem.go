package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/chatgen"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// memTargetKiB is the memory target: the function runs in Lambda's
// smallest size, 128 MB (Lambda's MB are MiB).
const memTargetKiB = 128 << 10

// The heavy workspace, loaded for the peak-memory rows only.
const (
	bigWorkspace = "ws_bench_big"
	bigKey       = "wk_benchBigWorkspaceAdminKey000000000000001"
	bigAdmin     = "bm_admin"
	bigChat      = "chat_big"
	bigChatAgent = "bg_00000"
)

// heavy is a function's heaviest request.
type heavy struct {
	what  string
	req   request       // through the bin gateway, for an API function
	event func() []byte // straight to the function, for an event function
	check func([]byte) error
}

// heavyRequests are each function's heaviest request in the heavy
// workspace (see loadBig).
func (b *bench) heavyRequests() map[string]heavy {
	s := b.s
	var ids []string
	for i := range 100 {
		ids = append(ids, fmt.Sprintf("%q", agentID(i*(s.agents/100))))
	}
	tagBatch := `{"ids": [` + strings.Join(ids, ", ") + `], "tags": ["heavy"], "mode": "set"}`
	tomorrow := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	var removed []string
	for i := range 100 {
		removed = append(removed, fmt.Sprintf("inv_bench_heavy_%03d", i))
	}
	api := func(what, method, path, body string) heavy {
		return heavy{what: what, req: request{method: method, path: path, key: bigKey, body: body, gzip: true}}
	}
	return map[string]heavy{
		"AuthorizerFunction": api("a REQUEST event (GET /workspaceapi/members?limit=1)", "GET", "/workspaceapi/members?limit=1", ""),
		"AgentsFunction": api(fmt.Sprintf("a page of %d agents with overviews, of %d", min(s.agents, 1000), s.agents),
			"GET", "/workspaceapi/agents?includeOverview=true&limit=1000", ""),
		"AgentDataFunction": api(fmt.Sprintf("connected agents of one of %d agents (all available)", s.agents),
			"GET", "/workspaceapi/agents/"+agentID(1)+"/connected-agents", ""),
		"ChatsFunction": api(fmt.Sprintf("the largest chat: %d MB of JSON, gzipped", s.chatMB),
			"GET", "/workspaceapi/agents/"+bigChatAgent+"/chats/"+bigChat, ""),
		"CreditsFunction": api(fmt.Sprintf("the credits report of %d agents with usage", s.agents), "GET", "/workspaceapi/credits", ""),
		"InvitesFunction": api(fmt.Sprintf("every one of %d invitations, unpaged, gzipped", s.invites), "GET", "/workspaceapi/invites", ""),
		"MembersFunction": api(fmt.Sprintf("a page of %d members", s.members), "GET", fmt.Sprintf("/workspaceapi/members?limit=%d", s.members), ""),
		"AuditFunction":   api("a page of up to 1,000 audit log entries", "GET", "/workspaceapi/audit-log?limit=1000", ""),
		"TagsFunction":    api("a 100-id agent tag batch, every id changed", "POST", "/workspaceapi/agents/tags", tagBatch),
		"TeamsFunction":   api(fmt.Sprintf("the list of %d teams", (s.agents+99)/100), "GET", "/workspaceapi/teams", ""),
		"KeysFunction":    api("the workspace's key list", "GET", "/workspaceapi/keys", ""),
		"IngestFunction": {what: "an SQS batch of 25 chat.message events of 230 KB (a 6 MB event)", check: checkBatch,
			event: func() []byte { return heavyIngest() }},
		"SchedulerFunction": {what: fmt.Sprintf("the daily run resuming %d agents", s.stopped), check: checkResumed(s.stopped),
			event: func() []byte { return mustJSON(awsevents.Scheduled("bench-tick", tomorrow)) }},
		"EventsFunction": {what: "a stream batch of 100 limit events' outbox insertions (the template's BatchSize)", check: checkBatch,
			event: func() []byte { return outboxInserts("ws_acme", "heavy", 100) }},
		"MigrateFunction": {what: "its scheduled event: every step goes through the heavy workspace (nothing to migrate)", check: checkJSON,
			event: func() []byte { return mustJSON(awsevents.Scheduled("bench-migrate", tomorrow)) }},
		"RetentionFunction": {what: "a stream batch of 100 TTL removals (the template's BatchSize)", check: checkBatch,
			event: func() []byte { return ttlRemovals(retentionWorkspace, removed) }},
	}
}

// memoryPeaks runs each selected function's bootstrap under its heaviest
// request and reads its peak resident memory.
func (b *bench) memoryPeaks(ctx context.Context) error {
	var ids []string
	for _, id := range b.fnIDs {
		if b.s.want("mem:" + id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if err := b.loadBig(ctx, ids); err != nil {
		return fmt.Errorf("load the heavy workspace: %w", err)
	}
	reqs := b.heavyRequests()
	for _, id := range ids {
		h, ok := reqs[id]
		if !ok {
			return fmt.Errorf("benchtable has no heavy request for %s (a new function of template.yaml: add one to heavyRequests)", id)
		}
		peak, took, err := b.peak(ctx, id, h)
		if err != nil {
			return fmt.Errorf("peak memory of %s: %w", id, err)
		}
		b.logf("%s: %.1f MiB under %s (%s)", id, float64(peak)/1024, h.what, ms(took))
		measure := "peak memory (VmHWM) under the heaviest request"
		if b.s.goMemLimit != "" {
			measure += ", GOMEMLIMIT=" + b.s.goMemLimit
		}
		b.rows = append(b.rows, row{
			id: "mem:" + id, measure: measure, subject: id,
			value:   fmt.Sprintf("%.1f MiB; %s, answered in %s", float64(peak)/1024, h.what, ms(took)),
			against: fmt.Sprintf("template MemorySize %d MB", b.memory[id]),
			target:  "≤ 128 MB (Lambda's MB: MiB)", met: met(peak <= memTargetKiB),
		})
	}
	return nil
}

// peak starts function id's bootstrap, sends it h, and returns the peak
// resident memory of its process in KiB and how long the request took.
func (b *bench) peak(ctx context.Context, id string, h heavy) (kib int64, took time.Duration, err error) {
	var more map[string]string
	if b.s.goMemLimit != "" {
		more = map[string]string{"GOMEMLIMIT": b.s.goMemLimit}
	}
	p, err := b.startProc(ctx, id, more)
	if err != nil {
		return 0, 0, err
	}
	defer p.Stop()
	start := time.Now()
	if h.event != nil {
		body, err := p.Invoke(ctx, h.event(), 5*time.Minute)
		if err != nil {
			return 0, 0, err
		}
		if err := h.check(body); err != nil {
			return 0, 0, err
		}
	} else {
		b.reg.set(id, p)
		res, err := b.do(ctx, b.bin.URL, h.req)
		b.reg.set(id, nil)
		if err != nil {
			return 0, 0, err
		}
		if err := expect(h.req, res, 200); err != nil {
			return 0, 0, fmt.Errorf("%w; its output ends with: %s", err, tail(p.Output(), 2000))
		}
	}
	took = time.Since(start)
	kib, err = vmHWM(p.PID())
	return kib, took, err
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// vmHWM reads a live process's peak resident set size, in KiB.
func vmHWM(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}

// agentID is the id of the heavy workspace's i-th agent.
func agentID(i int) string { return fmt.Sprintf("bg_%05d", i) }

// loadBig loads the heavy workspace: s.agents agents in teams of 100 with
// usage this month (the first s.stopped stopped by a daily limit of 1),
// s.members members, s.invites invitations, an admin key, and the largest
// chat; only what the selected functions need.
func (b *bench) loadBig(ctx context.Context, ids []string) error {
	if b.loadedBig {
		return nil
	}
	b.loadedBig = true
	s := b.s
	start := time.Now()
	now := time.Now().UTC()
	need := map[string]bool{}
	for _, id := range ids {
		need[id] = true
	}
	snap := tableops.Snapshot{
		Workspace: workspace.Workspace{ID: bigWorkspace, Name: "Heavy Industries", Seats: s.members + s.invites + 10, TeamSettingsEnabled: true},
		Members:   []workspace.Member{{ID: bigAdmin, Email: "admin@heavy.example", Name: "Hedda Admin", Role: workspace.RoleAdmin, Tags: []string{}, JoinedAt: now}},
		APIKeys: []workspace.APIKey{{ID: "key_big_admin", Hash: workspace.HashKey(bigKey), Name: "bench", WorkspaceID: bigWorkspace,
			UserID: bigAdmin, Scopes: []workspace.Scope{workspace.ScopeRead, workspace.ScopeWrite, workspace.ScopeInvite}, CreatedAt: now}},
	}
	teams := (s.agents + 99) / 100
	for t := range teams {
		snap.Teams = append(snap.Teams, workspace.Team{ID: fmt.Sprintf("team_b%03d", t), Name: fmt.Sprintf("Heavy team %03d", t), Tags: []string{}, CreatedAt: now})
	}
	for i := 1; i < s.members; i++ {
		id := fmt.Sprintf("bm_%05d", i)
		snap.Members = append(snap.Members, workspace.Member{ID: id, Email: id + "@heavy.example", Name: "Member " + id,
			Role: workspace.RoleMember, Tags: []string{"heavy", fmt.Sprintf("group-%d", i%7)}, JoinedAt: now})
		snap.TeamMembers = append(snap.TeamMembers, workspace.TeamMembership{TeamID: fmt.Sprintf("team_b%03d", i%teams), UserID: id, Role: workspace.TeamRoleMember})
	}
	one := 1.0
	for i := range s.agents {
		a := workspace.Agent{ID: agentID(i), Name: "Agent " + agentID(i), Description: "An agent of the heavy workspace",
			TeamID: fmt.Sprintf("team_b%03d", i/100), AgentDiscoverability: workspace.DiscoverabilityWorkspace, Tags: []string{}}
		if i < s.stopped {
			a.DailyCreditLimit = &one
		}
		snap.Agents = append(snap.Agents, a)
	}
	if need["InvitesFunction"] {
		snap.Invitations = bigInvitations(s.invites, now)
	}
	if err := tableops.PutSnapshot(ctx, b.loader, snap, now); err != nil {
		return err
	}
	b.logf("heavy workspace: %d agents, %d members, %d invitations written in %s", s.agents, s.members, len(snap.Invitations), time.Since(start).Round(time.Millisecond))

	if need["CreditsFunction"] || need["SchedulerFunction"] || need["AgentsFunction"] {
		if err := b.loadUsage(ctx, now); err != nil {
			return err
		}
	}
	if need["ChatsFunction"] {
		start := time.Now()
		for i, m := range chatgen.Messages(s.chatMB<<20*108/100, "sk-proj-BENCHplanted0123456789abcdef") {
			if err := b.loader.PutChatMessage(ctx, fmt.Sprint("ev_heavy_chat_", i), bigWorkspace, bigChatAgent, bigChat, workspace.ChatUpdate{}, m, now); err != nil {
				return err
			}
		}
		b.logf("heavy workspace: a %d MB chat written in %s", s.chatMB, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// loadUsage records one credit of usage for every agent of the heavy
// workspace, through the ingest code path, 25 events a batch as SQS
// delivers them, a few batches at once.
func (b *bench) loadUsage(ctx context.Context, now time.Time) error {
	start := time.Now()
	batches := make(chan []workspace.Usage)
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range batches {
				for _, err := range b.loader.ApplyUsage(ctx, workspace.SystemActor(workspace.SystemIngest), batch, now).Errs {
					if err != nil {
						select {
						case errs <- err:
						default:
						}
					}
				}
			}
		}()
	}
	for first := 0; first < b.s.agents; first += 25 {
		var batch []workspace.Usage
		for i := first; i < min(first+25, b.s.agents); i++ {
			batch = append(batch, workspace.Usage{EventID: "heavy-usage-" + agentID(i), WorkspaceID: bigWorkspace, AgentID: agentID(i), Credits: 1, OccurredAt: now})
		}
		batches <- batch
	}
	close(batches)
	wg.Wait()
	select {
	case err := <-errs:
		return fmt.Errorf("usage: %w", err)
	default:
	}
	b.logf("heavy workspace: usage of %d agents (%d stopped) in %s", b.s.agents, b.s.stopped, time.Since(start).Round(time.Millisecond))
	return nil
}

// bigInvitations are n pending invitations with realistic entropy (ids as
// the API makes them, a spread of dates, names and domains), so that the
// list's compression is not flattered.
func bigInvitations(n int, now time.Time) []workspace.Invitation {
	ids := workspace.SortableIDs{Clock: fixedClock(now.Add(-30 * 24 * time.Hour))}
	first := []string{"ada", "grace", "alan", "edsger", "barbara", "donald", "frances", "ken", "radia", "tim"}
	domains := []string{"heavy.example", "mail.heavy.example", "partner.example.co.uk", "contractors.example.org"}
	out := make([]workspace.Invitation, 0, n)
	for i := range n {
		id, err := ids.NewID("inv_")
		if err != nil {
			id = fmt.Sprintf("inv_heavy_%06d", i)
		}
		created := now.Add(-time.Duration(n-i) * 37 * time.Second)
		inv := workspace.Invitation{
			ID: id, Type: workspace.InviteTypeWorkspace,
			Email:         fmt.Sprintf("%s.%x%d@%s", first[i%len(first)], i*2654435761%65521, i, domains[i%len(domains)]),
			WorkspaceName: "Heavy Industries", Role: []string{"member", "collaborator"}[i%2],
			CreatedAt: created, ExpiresAt: created.Add(time.Duration(10+i%80) * 24 * time.Hour),
			InvitedByUserName: "Hedda Admin", HoldsSeat: true,
		}
		if i%3 == 0 {
			inv.Groups = []workspace.Group{{GroupID: fmt.Sprintf("team_b%03d", i%17), Role: "member"}}
		}
		out = append(out, inv)
	}
	return out
}

// fixedClock is a clock standing still.
type fixedClock time.Time

// Now returns the clock's time.
func (c fixedClock) Now() time.Time { return time.Time(c) }

// heavyIngest is the largest SQS batch the ingest function gets: 25
// messages (the template's BatchSize) of chat.message events of 230 KB of
// prose each, under SQS's 256 KiB a message and Lambda's 6 MB an event.
func heavyIngest() []byte {
	r := rand.New(rand.NewPCG(3, 4))
	now := time.Now().UTC().Add(-time.Minute)
	var bodies []string
	for i := range 25 {
		ev := map[string]any{
			"type": "chat.message", "id": fmt.Sprintf("heavy-ingest-%d-%d", now.UnixNano(), i), "workspaceId": bigWorkspace,
			"agentId": agentID(2), "chatId": "chat_ingest",
			"chat": map[string]any{"createdDate": workspace.FormatTime(now), "shortDesc": "Heavy ingest", "llmModel": "claude-fast"},
			"message": map[string]any{"format": "text", "body": chatgen.Prose(r, 230_000), "messageId": fmt.Sprintf("msg_heavy_%d_%d", now.UnixNano(), i),
				"ts": workspace.FormatTime(now.Add(time.Duration(i) * time.Millisecond)), "senderName": "Bench"},
		}
		bodies = append(bodies, string(mustJSON(ev)))
	}
	return mustJSON(awsevents.SQSBatch(bodies...))
}

// checkResumed requires the scheduler to have resumed n agents.
func checkResumed(n int) func([]byte) error {
	return func(body []byte) error {
		var res struct {
			ResumedAgents int `json:"resumedAgents"`
		}
		if err := json.Unmarshal(body, &res); err != nil {
			return fmt.Errorf("answer %.200s: %w", body, err)
		}
		if res.ResumedAgents < n {
			return fmt.Errorf("resumed %d agents, want %d: %.200s", res.ResumedAgents, n, body)
		}
		return nil
	}
}
