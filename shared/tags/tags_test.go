package tags_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

const (
	memberTags = "/workspaceapi/members/tags"
	agentTags  = "/workspaceapi/agents/tags"
	teamTags   = "/workspaceapi/teams/tags"
)

func TestTagWritesOnEveryKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body string
		want             string // "name tags unchanged"
	}{
		{"add appends to a member's tags", memberTags, `{"ids": ["u_admin"], "tags": ["c", "a"]}`, "Ada Admin [a b c] false"},
		{"add is the default mode and collapses repeats", agentTags, `{"ids": ["ag_a"], "tags": ["x", "x", "y"]}`, "Agent a [x y] false"},
		{"remove deletes from a team's tags", teamTags, `{"ids": ["team_a"], "tags": ["lab"], "mode": "remove"}`, "Research [] false"},
		{"set replaces", memberTags, `{"ids": ["u_admin"], "tags": ["z"], "mode": "set"}`, "Ada Admin [z] false"},
		{"set with the same set in another order is unchanged", memberTags, `{"ids": ["u_admin"], "tags": ["b", "a"], "mode": "set"}`, "Ada Admin [a b] true"},
		{"set with [] clears", memberTags, `{"ids": ["u_admin"], "tags": [], "mode": "set"}`, "Ada Admin [] false"},
		{"add with [] is an unchanged no-op", teamTags, `{"ids": ["team_a"], "tags": []}`, "Research [lab] true"},
		{"remove with [] is an unchanged no-op", memberTags, `{"ids": ["u_admin"], "tags": [], "mode": "remove"}`, "Ada Admin [a b] true"},
		{"tags are case-sensitive", teamTags, `{"ids": ["team_a"], "tags": ["Lab"]}`, "Research [lab Lab] false"},
		{"a private agent is a valid target", agentTags, `{"ids": ["ag_private"], "tags": ["p"]}`, "Agent private [p] false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t)
			res := env.Do(t, http.MethodPost, tc.path, keyAdmin, tc.body)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			var b batch
			res.JSON(t, &b)
			r := b.Results[0]
			if got := fmt.Sprintf("%s %v %v", r.Name, r.Tags, *r.Unchanged); got != tc.want || !r.Success {
				t.Errorf("result %s (success %v), want %s", got, r.Success, tc.want)
			}
			if want := fmt.Sprintf(`{"tags":%s}`, show(r.Tags)); string(r.Applied) != want {
				t.Errorf("applied %s, want %s", r.Applied, want)
			}
			wantWrites := map[bool]int{true: 0, false: 1}[*r.Unchanged]
			if env.FunctionTrips.OpCount("TransactWriteItems") != wantWrites {
				t.Errorf("ops %v, want %d TransactWriteItems (the update and its audit entry)", env.FunctionTrips.Ops(), wantWrites)
			}
			// Every kind, teams included (whose workspace the same batch
			// reads): one BatchGetItem, then the write.
			if res.FunctionTrips != 1+wantWrites || res.FunctionPath != 1+wantWrites {
				t.Errorf("%d round trips, %d in turn (%v); want %d, %d", res.FunctionTrips, res.FunctionPath, env.FunctionTrips.Ops(), 1+wantWrites, 1+wantWrites)
			}
		})
	}
}

func TestTagsShowWhereverTheEntityIsRead(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, w := range []struct{ path, id string }{{memberTags, "u_creator"}, {agentTags, "ag_a"}, {teamTags, "team_b"}} {
		if res := env.Do(t, http.MethodPost, w.path, keyAdmin, `{"ids": ["`+w.id+`"], "tags": ["seen"]}`); res.Status != 200 {
			t.Fatalf("%s: %d", w.path, res.Status)
		}
	}
	checks := []struct{ path, want string }{
		{"/workspaceapi/members", `"id":"u_creator","email":"creator@alpha.example","name":"Cy Creator","role":"member","tags":["seen"]`},
		{"/workspaceapi/agents", `"teamId":"team_a","isPrivate":false,"agentDiscoverability":"workspace","tags":["seen"]`},
		{"/workspaceapi/teams/team_b", `"tags":["seen"]`},
		{"/workspaceapi/teams", `"id":"team_b","name":"Support","monthlyCreditLimit":null,"tags":["seen"]`},
	}
	for _, c := range checks {
		if res := env.Do(t, http.MethodGet, c.path, keyRead, ""); !strings.Contains(string(res.Body), c.want) {
			t.Errorf("GET %s: %s\nwant it to contain %s", c.path, res.Body, c.want)
		}
	}
}

func TestTagBatchReportsEveryIDOnceWithASummary(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	long := strings.Repeat("u", 257)
	res := env.Do(t, http.MethodPost, memberTags, keyAdmin,
		`{"ids": ["u_admin", "u_nope", "u_b", "u_creator", "`+long+`", "u_admin"], "tags": ["a"]}`)
	var b batch
	res.JSON(t, &b)
	var got []string
	for _, r := range b.Results {
		got = append(got, fmt.Sprintf("%s:%v:%s:%s", r.ID, r.Success, r.Name, r.Error))
	}
	want := []string{"u_admin:true:Ada Admin:", "u_nope:false::member not found", "u_b:false::member not found",
		"u_creator:true:Cy Creator:", long + ":false::member not found"}
	if !slices.Equal(got, want) {
		t.Errorf("results %q\nwant    %q", got, want)
	}
	if s := b.Summary; s.Total != 5 || s.Succeeded != 2 || s.Failed != 3 || s.Unchanged != 1 {
		t.Errorf("summary %+v, want total 5, succeeded 2 (1 unchanged), failed 3", s)
	}
	for _, r := range b.Results {
		if !r.Success && (r.Unchanged != nil || r.Applied != nil || r.Tags != nil) {
			t.Errorf("failed result %s carries unchanged, applied or tags", r.ID)
		}
	}
}

func TestAnAddPastFiftyTagsFailsForThatIDAlone(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var fifty []string
	for i := range 50 {
		fifty = append(fifty, fmt.Sprintf(`"t%02d"`, i))
	}
	if res := env.Do(t, http.MethodPost, agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": [`+strings.Join(fifty, ",")+`], "mode": "set"}`); res.Status != 200 {
		t.Fatalf("set 50: %d %s", res.Status, res.Body)
	}
	res := env.Do(t, http.MethodPost, agentTags, keyAdmin, `{"ids": ["ag_a", "ag_b"], "tags": ["one-more"]}`)
	var b batch
	res.JSON(t, &b)
	full, other := b.Results[0], b.Results[1]
	if full.Success || !strings.Contains(full.Error, "at most 50 tags") || len(full.Tags) != 50 {
		t.Errorf("ag_a: success %v error %q with %d tags, want a failure naming the limit and its 50 tags kept", full.Success, full.Error, len(full.Tags))
	}
	if !other.Success || !slices.Equal(other.Tags, []string{"one-more"}) {
		t.Errorf("ag_b: %+v, want it tagged regardless", other)
	}
	if env.FunctionTrips.OpCount("TransactWriteItems") != 1 {
		t.Errorf("ops %v, want one TransactWriteItems (ag_b's)", env.FunctionTrips.Ops())
	}
}

func TestTagWholeRequestErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	var fiftyOne []string
	for i := range 51 {
		fiftyOne = append(fiftyOne, fmt.Sprintf(`"t%02d"`, i))
	}
	tests := []struct {
		name, path, key, body string
		wantStatus            int
		wantError             string
	}{
		{"tags missing", agentTags, keyAdmin, `{"ids": ["ag_a"]}`, 400, "tags is required"},
		{"tags null", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": null}`, 400, "tags"},
		{"an empty tag", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": [""]}`, 400, "tags[0] must be 1 to 50 characters"},
		{"a tag holding NUL", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": ["a\u0000b"]}`, 400, "tags[0] holds U+0000, a control character"},
		{"a tag holding a right-to-left override", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": ["a\u202eb"]}`, 400, "tags[0] holds U+202E"},
		{"a blank tag", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": ["   "]}`, 400, "tags[0] must be 1 to 50 characters after trimming"},
		{"a tag of 51 characters", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": ["` + strings.Repeat("x", 51) + `"]}`, 400, "1 to 50 characters"},
		{"51 tags", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": [` + strings.Join(fiftyOne, ",") + `]}`, 400, "at most 50 tags"},
		{"an unknown mode", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": ["x"], "mode": "replace"}`, 400, "mode must be"},
		{"an empty mode", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": ["x"], "mode": ""}`, 400, "mode must be"},
		{"a tag that is not a string", agentTags, keyAdmin, `{"ids": ["ag_a"], "tags": [1]}`, 400, "tags"},
		{"a key-shaped id", memberTags, keyAdmin, `{"ids": ["u_admin", "` + keyAdmin + `"], "tags": ["x"]}`, 400, "ids[1] looks like an API key"},
		{"101 ids", agentTags, keyAdmin, `{"ids": [` + ids("ag_", 101) + `], "tags": ["x"]}`, 400, "at most 100"},
		{"an unknown field", teamTags, keyAdmin, `{"ids": ["team_a"], "tags": ["x"], "tag": "y"}`, 400, `unknown field "tag"`},
		{"a key without write", agentTags, keyRead, `{"ids": ["ag_a"], "tags": ["x"]}`, 403, ""},
		{"member tags with a team-scoped key", memberTags, keyTeamA, `{"ids": ["u_admin"], "tags": ["x"]}`, 403, "team-scoped"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Do(t, http.MethodPost, tc.path, tc.key, tc.body)
			if res.Status != tc.wantStatus {
				t.Fatalf("status %d (%s), want %d", res.Status, res.Body, tc.wantStatus)
			}
			if msg := res.Error(t); !strings.Contains(msg, tc.wantError) || strings.Contains(msg, "wk_") {
				t.Errorf("error %q, want it to mention %q and no key", msg, tc.wantError)
			}
			if res.FunctionTrips != 0 {
				t.Errorf("a refused request reached storage: %v", env.FunctionTrips.Ops())
			}
		})
	}
	if res := env.Do(t, http.MethodPost, teamTags, keyOther, `{"ids": ["team_other"], "tags": ["x"]}`); res.Status != 400 || !strings.Contains(res.Error(t), "team settings") {
		t.Errorf("team tags with team settings off: %d %s, want 400", res.Status, res.Body)
	}
}

func TestTeamScopedKeysTagOnlyTheirTeam(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		path, body string
		want       []string
	}{
		{agentTags, `{"ids": ["ag_a", "ag_private", "ag_b", "ag_free", "ag_other"], "tags": ["x"]}`,
			[]string{"ag_a:true:", "ag_private:true:", "ag_b:false:agent not found", "ag_free:false:agent not found", "ag_other:false:agent not found"}},
		{teamTags, `{"ids": ["team_a", "team_b", "team_other"], "tags": ["x"]}`,
			[]string{"team_a:true:", "team_b:false:team not found", "team_other:false:team not found"}},
	}
	for _, tc := range tests {
		res := env.Do(t, http.MethodPost, tc.path, keyTeamA, tc.body)
		var b batch
		res.JSON(t, &b)
		var got []string
		for _, r := range b.Results {
			got = append(got, fmt.Sprintf("%s:%v:%s", r.ID, r.Success, r.Error))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q\nwant %q", tc.path, got, tc.want)
		}
	}
}

func TestTagBatchDynamoDBBudget(t *testing.T) {
	t.Parallel()
	env := newEnvWith(t, 150)
	// 100 ids: 60 get a new tag, 40 already have it (tagged first).
	if res := env.Do(t, http.MethodPost, agentTags, keyAdmin, `{"ids": [`+ids("ag_x", 40)+`], "tags": ["done"]}`); res.Status != 200 {
		t.Fatalf("setup: %d", res.Status)
	}
	res := env.Do(t, http.MethodPost, agentTags, keyAdmin, `{"ids": [`+ids("ag_x", 100)+`], "tags": ["done"]}`)
	var b batch
	res.JSON(t, &b)
	if s := b.Summary; s.Total != 100 || s.Succeeded != 100 || s.Unchanged != 40 {
		t.Errorf("summary %+v, want 100 succeeded, 40 unchanged", s)
	}
	trips := env.FunctionTrips
	if n, gets, writes := len(trips.Ops()), trips.OpCount("BatchGetItem"), trips.OpCount("TransactWriteItems"); gets != 1 || writes != 60 || n != 61 {
		t.Errorf("a batch of 100 ids changing 60: %d round trips (%d BatchGetItem, %d TransactWriteItems), want 1 BatchGetItem and 60 TransactWriteItems (an update and its audit entry each)",
			n, gets, writes)
	}
	env.Do(t, http.MethodPost, agentTags, keyAdmin, `{"ids": [`+ids("ag_x", 100)+`], "tags": ["done"]}`)
	if ops := env.FunctionTrips.Ops(); len(ops) != 1 || ops[0] != "BatchGetItem" {
		t.Errorf("a batch changing nothing: ops %v, want one BatchGetItem and no write", ops)
	}
}

// show renders tags as JSON.
func show(tags []string) string {
	if len(tags) == 0 {
		return "[]"
	}
	return `["` + strings.Join(tags, `","`) + `"]`
}

func TestConcurrentAddsToOneEntityLoseNothing(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	type added struct {
		status int
		tag    string
		ok     bool
	}
	done := make(chan added, 10)
	for i := range 10 {
		go func() {
			tag := fmt.Sprintf("c%d", i)
			res := env.Do(t, http.MethodPost, memberTags, keyAdmin, fmt.Sprintf(`{"ids": ["u_creator"], "tags": [%q]}`, tag))
			var b batch
			if res.Status == http.StatusOK {
				res.JSON(t, &b)
			}
			done <- added{res.Status, tag, len(b.Results) == 1 && b.Results[0].Success}
		}()
	}
	// An add either lands or fails alone with the busy answer (it kept
	// losing races within its write deadline); none that succeeded is lost.
	var want []string
	for range 10 {
		a := <-done
		if a.status != 200 {
			t.Errorf("status %d, want 200", a.status)
		}
		if a.ok {
			want = append(want, a.tag)
		}
	}
	res := env.Do(t, http.MethodPost, memberTags, keyAdmin, `{"ids": ["u_creator"], "tags": []}`)
	var b batch
	res.JSON(t, &b)
	got := b.Results[0].Tags
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("tags %q after concurrent adds that answered success for %q: a lost race is read again, not overwritten", got, want)
	}
}
