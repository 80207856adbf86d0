// Package writeraces_test races every write route of one workspace through
// the real gateway, authorizer and handlers on DynamoDB Local, many requests
// at once on each entity, with usage landing meanwhile, and then holds what
// was answered and what was recorded to the rules:
//
//   - every answer arrives within the write budget (plus a margin for a
//     loaded machine) and is a 2xx, or a 409 or 503 with Retry-After;
//   - the audit log records only what happened: each entry's `from` is the
//     value its own write replaced, so the entries of one field of one
//     target chain from the value before the race to the value after it;
//   - an answered `unchanged: false` has its entry, an `unchanged: true`
//     none.
package writeraces_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// Keys of infra/fixtures/standings.json.
const (
	keyAdmin  = "wk_testAdminKey00000000000000000000000001"
	keyTarget = "key_5" // the fixture's "write only" key, the target of key updates
)

// writeBound is how long any write may take to answer: the store's write
// budget (workspace.WriteBudget, and the attempt in flight when it ends) and
// a margin for a machine the tests share (and the race detector's slowdown).
const writeBound = slowdown * 2500 * time.Millisecond

// parallel is how many requests race on each entity.
const parallel = 24

// route is one write route raced on one target: body picks the i-th
// request's method, path and body; field is the audited field whose entries
// must chain; action, when set, is the entry an answered change records
// (counted against the answers' `unchanged`).
type route struct {
	name, target string
	field        string
	action       workspace.AuditAction
	// also is a status besides 2xx the route may answer (0: none): the
	// removal of a member who is not in the team is a 404.
	also int
	send func(i int) (method, path, body string)
}

// pick returns one of vs at random.
func pick[T any](vs ...T) T { return vs[rand.IntN(len(vs))] }

func routes() []route {
	batch := func(path, body string) (string, string, string) { return http.MethodPost, path, body }
	return []route{
		{name: "agent credit limits", target: "ag_free", field: "dailyCreditLimit", action: workspace.ActionAgentLimitsChanged,
			send: func(int) (string, string, string) {
				return batch("/workspaceapi/agents/credit-limits", fmt.Sprintf(`{"ids": ["ag_free"], "dailyCreditLimit": %d}`, pick(1, 2, 3, 4)))
			}},
		{name: "agent status", target: "ag_monthly", field: "status",
			send: func(int) (string, string, string) {
				return batch("/workspaceapi/agents/status", fmt.Sprintf(`{"ids": ["ag_monthly"], "status": %q}`, pick("disabled", "enabled")))
			}},
		{name: "credit details", target: "ag_support1", field: "showTokenOptimisationInfo", action: workspace.ActionAgentCreditDetails,
			send: func(int) (string, string, string) {
				return batch("/workspaceapi/agents/credit-details", fmt.Sprintf(`{"ids": ["ag_support1"], "showTokenOptimisationInfo": %t}`, pick(true, false)))
			}},
		// Usage lands on ag_daily all along (race): its resets and the
		// stops that usage makes must chain in its status.
		{name: "daily-usage reset under ingest", target: "ag_daily", field: "status", action: workspace.ActionAgentDailyUsageReset,
			send: func(int) (string, string, string) {
				return batch("/workspaceapi/agents/daily-usage/reset", `{"ids": ["ag_daily"]}`)
			}},
		{name: "team limit", target: "team_b", field: "monthlyCreditLimit", action: workspace.ActionTeamLimitChanged,
			send: func(int) (string, string, string) {
				return http.MethodPut, "/workspaceapi/teams/team_b/credit-limit", fmt.Sprintf(`{"monthlyCreditLimit": %s}`, pick("10", "20", "30", "null"))
			}},
		{name: "team member", target: "team_b", field: "members.u_member", also: http.StatusNotFound,
			send: func(int) (string, string, string) {
				if rand.IntN(4) == 0 {
					return http.MethodDelete, "/workspaceapi/teams/team_b/members/u_member", ""
				}
				return http.MethodPut, "/workspaceapi/teams/team_b/members/u_member", fmt.Sprintf(`{"role": %q}`, pick("admin", "member", "guest"))
			}},
		{name: "team rename", target: "team_a", field: "name",
			send: func(int) (string, string, string) {
				return http.MethodPatch, "/workspaceapi/teams/team_a", fmt.Sprintf(`{"name": %q}`, pick("Research", "Labs", "Lab Two"))
			}},
		{name: "agent tags", target: "ag_private", field: "tags", action: workspace.ActionAgentTagsChanged,
			send: func(int) (string, string, string) {
				return batch("/workspaceapi/agents/tags", fmt.Sprintf(`{"ids": ["ag_private"], "tags": [%q], "mode": %q}`, pick("x", "y"), pick("add", "remove")))
			}},
		{name: "member tags", target: "u_member", field: "tags", action: workspace.ActionMemberTagsChanged,
			send: func(int) (string, string, string) {
				return batch("/workspaceapi/members/tags", fmt.Sprintf(`{"ids": ["u_member"], "tags": [%q], "mode": %q}`, pick("x", "y"), pick("add", "remove")))
			}},
		{name: "team tags", target: "team_a", field: "tags", action: workspace.ActionTeamTagsChanged,
			send: func(int) (string, string, string) {
				return batch("/workspaceapi/teams/tags", fmt.Sprintf(`{"ids": ["team_a"], "tags": [%q], "mode": %q}`, pick("x", "y"), pick("add", "remove")))
			}},
		{name: "key name", target: keyTarget, field: "name",
			send: func(int) (string, string, string) {
				return http.MethodPatch, "/workspaceapi/keys/" + keyTarget, fmt.Sprintf(`{"name": %q}`, pick("one", "two", "three"))
			}},
		{name: "key disabled", target: keyTarget, field: "disabled",
			send: func(int) (string, string, string) {
				return http.MethodPatch, "/workspaceapi/keys/" + keyTarget, fmt.Sprintf(`{"disabled": %t}`, pick(true, false))
			}},
	}
}

// answer is what one raced request got.
type answer struct {
	route     string
	also      int
	status    int
	took      time.Duration
	retry     string
	unchanged *bool // nil: the answer says nothing of it
	body      string
}

func TestEveryWriteRouteRacedKeepsAnAuditChainAndAnswersInTime(t *testing.T) {
	env := apitest.New(t, apitest.Fixture(t, "standings.json"))
	rs := routes()

	// One route at a time: its requests all at once on one entity, as a
	// client's burst would send them.
	var answers []answer
	for _, r := range rs {
		answers = append(answers, race(t, env, r)...)
	}

	changed := map[string]int{} // route: answers that changed something
	for _, a := range answers {
		switch {
		case a.took > writeBound:
			t.Errorf("%s: answered %d after %v, want within %v", a.route, a.status, a.took.Round(time.Millisecond), writeBound)
		case a.status == http.StatusConflict || a.status == http.StatusServiceUnavailable:
			if a.retry == "" {
				t.Errorf("%s: %d without Retry-After", a.route, a.status)
			}
		case (a.status < 200 || a.status > 299) && a.status != a.also:
			t.Errorf("%s: answered %d %s, want a 2xx, or 409 or 503 with Retry-After", a.route, a.status, a.body)
		}
		if a.unchanged != nil && !*a.unchanged {
			changed[a.route]++
		}
	}

	for _, r := range rs {
		entries := auditOf(t, env, r.target)
		if err := chains(entries, r.field); err != nil {
			t.Errorf("%s: the audit log of %s does not chain in %s: %v", r.name, r.target, r.field, err)
		}
		if r.action == "" {
			continue
		}
		recorded := 0
		for _, e := range entries {
			if e.Action == string(r.action) {
				recorded++
			}
		}
		if recorded != changed[r.name] {
			t.Errorf("%s: %d answers said unchanged: false, but %d %s entries were recorded", r.name, changed[r.name], recorded, r.action)
		}
	}
}

// race sends parallel requests of r at once (with usage landing on ag_daily
// all along, at about 16 events a second) and returns their answers.
func race(t *testing.T, env *apitest.Env, r route) []answer {
	stop := make(chan struct{})
	var ingest sync.WaitGroup
	ingest.Add(1)
	go func() {
		defer ingest.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(60 * time.Millisecond):
			}
			now := env.Clock.Now()
			rep := env.Store.ApplyUsage(t.Context(), workspace.SystemActor(workspace.SystemIngest), []workspace.Usage{{
				EventID: fmt.Sprintf("ev_race_%d", rand.Int64()), WorkspaceID: "ws_a", AgentID: "ag_daily", Credits: 1, OccurredAt: now,
			}}, now)
			for _, err := range rep.Errs {
				if err != nil && !workspace.IsBusy(err) {
					t.Errorf("usage: %v", err)
				}
			}
		}
	}()
	var mu sync.Mutex
	var answers []answer
	var wg sync.WaitGroup
	for i := range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			method, path, body := r.send(i)
			start := time.Now()
			res := env.Do(t, method, path, keyAdmin, body)
			a := answer{route: r.name, also: r.also, status: res.Status, took: time.Since(start), retry: res.Header.Get("Retry-After"), body: string(res.Body)}
			a.unchanged = unchangedOf(res.Body, r.target)
			mu.Lock()
			answers = append(answers, a)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(stop)
	ingest.Wait()
	return answers
}

// unchangedOf reads the `unchanged` of target's result from a batch answer,
// or of a single answer; nil when the answer has none (or failed).
func unchangedOf(body []byte, target string) *bool {
	var out struct {
		Unchanged *bool
		Results   []struct {
			ID        string
			Success   bool
			Unchanged *bool
		}
	}
	if json.Unmarshal(body, &out) != nil {
		return nil
	}
	for _, r := range out.Results {
		if r.ID == target && r.Success {
			return r.Unchanged
		}
	}
	return out.Unchanged
}

// entry is an audit entry as the log answers it.
type entry struct {
	ID      string
	Action  string
	Changes map[string]struct{ From, To json.RawMessage }
}

// auditOf reads every entry of target, all pages.
func auditOf(t *testing.T, env *apitest.Env, target string) []entry {
	t.Helper()
	var all []entry
	cursor := ""
	for {
		q := url.Values{"targetId": {target}, "limit": {"1000"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log?"+q.Encode(), keyAdmin, "")
		if res.Status != http.StatusOK {
			t.Fatalf("audit log of %s: %d %s", target, res.Status, res.Body)
		}
		var page struct {
			Entries    []entry
			NextCursor *string
		}
		res.JSON(t, &page)
		all = append(all, page.Entries...)
		if page.NextCursor == nil {
			return all
		}
		cursor = *page.NextCursor
	}
}

// chains checks that the changes of field in entries can be put in an order
// where each one's from is the one before's to: the entries' clock stands
// still in these tests, so the log's order within a millisecond is no
// order of commits, and the check is that the changes form one path (an
// Eulerian path of the multigraph of values): at most one value is left
// once more than it is entered (the value before the race), at most one
// entered once more than it is left (the value after), all others as often
// as each other, and every change but the first leaves a value some change
// entered.
func chains(entries []entry, field string) error {
	out, in := map[string]int{}, map[string]int{}
	n := 0
	for _, e := range entries {
		c, ok := e.Changes[field]
		if !ok {
			continue
		}
		from, to := canon(c.From), canon(c.To)
		if from == to {
			return fmt.Errorf("entry %s records no change (%s to %s)", e.ID, from, to)
		}
		out[from]++
		in[to]++
		n++
	}
	starts, ends := 0, 0
	for v := range merge(out, in) {
		switch d := out[v] - in[v]; {
		case d == 1:
			starts++
		case d == -1:
			ends++
		case d != 0:
			return fmt.Errorf("%s is replaced %d times but written %d times (%d changes)", v, out[v], in[v], n)
		}
	}
	if starts > 1 || ends > 1 || starts != ends {
		return fmt.Errorf("the %d changes form no single chain (%d starts, %d ends): out %v, in %v", n, starts, ends, out, in)
	}
	return nil
}

// canon is a JSON value spelled one way.
func canon(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func merge(a, b map[string]int) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
