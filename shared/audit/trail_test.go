package audit_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// admin is how the demo admin key's entries name their actor.
const admin = "key:key_acme_admin/usr_ada"

// entriesBetween reads ws_acme's audit log in [from, to), oldest first, each
// entry as "action target by actor changes" (changes as JSON, keys sorted),
// and checks that a key actor's requestId is the gateway's id of one of
// requestIDs (the requests of the step) and a system actor's is null.
func entriesBetween(t *testing.T, env *apitest.Env, from, to time.Time, requestIDs []string) []string {
	t.Helper()
	q := "?limit=1000&since=" + url.QueryEscape(from.Format(time.RFC3339Nano)) + "&until=" + url.QueryEscape(to.Format(time.RFC3339Nano))
	res := env.Do(t, http.MethodGet, "/workspaceapi/audit-log"+q, adminKey, "")
	if res.Status != http.StatusOK {
		t.Fatalf("audit log: %d %s", res.Status, res.Body)
	}
	var p pageJSON
	res.JSON(t, &p)
	var out []string
	for _, e := range slices.Backward(p.Entries) {
		actor := "key:" + e.Actor.KeyID + "/" + e.Actor.UserID
		switch {
		case e.Actor.Type == "system":
			actor = "system:" + e.Actor.Name
			if e.RequestID != nil {
				t.Errorf("%s by %s: requestId %q, want null", e.Action, actor, *e.RequestID)
			}
		case e.RequestID == nil || !slices.Contains(requestIDs, *e.RequestID):
			t.Errorf("%s by %s: requestId %v, want the gateway's id of the step's request %v", e.Action, actor, e.RequestID, requestIDs)
		}
		changes, _ := json.Marshal(lower(e.Changes))
		out = append(out, fmt.Sprintf("%s %s:%s by %s %s", e.Action, e.Target.Type, e.Target.ID, actor, changes))
	}
	return out
}

// lower is changes as the API writes them, with "from" and "to".
func lower(changes map[string]struct{ From, To any }) map[string]map[string]any {
	out := make(map[string]map[string]any, len(changes))
	for k, c := range changes {
		out[k] = map[string]any{"from": c.From, "to": c.To}
	}
	return out
}

// TestEveryWriteRecordsWhoChangedWhatAndWhen walks every write route and
// every system actor of the service over the demo workspace and reads, after
// each step, the entries of that step alone: one per changed id with its
// changes before and after, none for what changed nothing.
func TestEveryWriteRecordsWhoChangedWhatAndWhen(t *testing.T) {
	env := apitest.New(t, apitest.DemoFixture(t))
	var created struct{ ID string }
	var team struct{ ID string }
	var key struct{ ID string }
	type call struct {
		method, path, key, body string
		status                  int
		into                    any
	}
	api := func(c call) func(t *testing.T) []string {
		return func(t *testing.T) []string {
			path := strings.NewReplacer("{invite}", created.ID, "{team}", team.ID, "{key}", key.ID).Replace(c.path)
			body := strings.NewReplacer("{invite}", created.ID).Replace(c.body)
			res := env.Do(t, c.method, path, c.key, body)
			if res.Status != c.status {
				t.Fatalf("%s %s: %d %s, want %d", c.method, path, res.Status, res.Body, c.status)
			}
			if c.into != nil {
				res.JSON(t, c.into)
			}
			return []string{res.Header.Get("x-amzn-RequestId")}
		}
	}
	invoke := func(fn string, event func() any) func(t *testing.T) []string {
		return func(t *testing.T) []string {
			awscalls.Invoke(t, env.URL, fn, event())
			return nil
		}
	}
	var stepStart time.Time
	at := func(d time.Duration) string { return workspace.FormatTime(stepStart.Add(d)) }
	tomorrow := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	december := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

	steps := []struct {
		name string
		do   func(t *testing.T) []string
		want func() []string // the step's entries
	}{
		{"an invitation is created", api(call{"POST", "/workspaceapi/invites", adminKey,
			`{"email": "hedy@acme.example", "role": "member", "teams": [{"teamId": "team_platform", "role": "member"}], "expiresInDays": 14}`, 201, &created}),
			func() []string {
				return []string{`invite.created invite:` + created.ID + ` by ` + admin + ` {"email":{"from":null,"to":"hedy@acme.example"},"expiresAt":{"from":null,"to":"` +
					at(14*24*time.Hour) + `"},"role":{"from":null,"to":"member"},"status":{"from":null,"to":"pending"},"teams":{"from":null,"to":[{"role":"member","teamId":"team_platform"}]}}`}
			}},
		{"a revoke records each revoked invitation, not the unknown one", api(call{"DELETE", "/workspaceapi/invites", adminKey,
			`{"ids": ["inv_demo_nora", "{invite}", "inv_nope"]}`, 200, nil}),
			func() []string {
				return []string{
					`invite.revoked invite:inv_demo_nora by ` + admin + ` {"status":{"from":"pending","to":"revoked"}}`,
					`invite.revoked invite:` + created.ID + ` by ` + admin + ` {"status":{"from":"pending","to":"revoked"}}`,
				}
			}},
		{"a limit below today's usage stops the agent", api(call{"POST", "/workspaceapi/agents/credit-limits", adminKey,
			`{"ids": ["agt_release_notes", "agt_nope"], "dailyCreditLimit": 5}`, 200, nil}),
			func() []string {
				return []string{
					`agent.limits_changed agent:agt_release_notes by ` + admin + ` {"dailyCreditLimit":{"from":20,"to":5}}`,
					`agent.stopped agent:agt_release_notes by ` + admin + ` {"status":{"from":"running","to":"stopped"},"statusReason":{"from":null,"to":"daily_limit"}}`,
				}
			}},
		{"the same limit again changes and records nothing", api(call{"POST", "/workspaceapi/agents/credit-limits", adminKey,
			`{"ids": ["agt_release_notes"], "dailyCreditLimit": 5}`, 200, nil}), func() []string { return nil }},
		{"disabling the stopped agent records its status, not the unknown one", api(call{"POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_release_notes", "agt_nope"], "status": "disabled"}`, 200, nil}),
			func() []string {
				return []string{`agent.disabled agent:agt_release_notes by ` + admin + ` {"status":{"from":"stopped","to":"disabled"},"statusReason":{"from":"daily_limit","to":"disabled"}}`}
			}},
		{"disabling it again records nothing", api(call{"POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_release_notes"], "status": "disabled"}`, 200, nil}), func() []string { return nil }},
		{"enabling it re-evaluates it into stopped", api(call{"POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_release_notes"], "status": "enabled"}`, 200, nil}),
			func() []string {
				return []string{
					`agent.enabled agent:agt_release_notes by ` + admin + ` {"status":{"from":"disabled","to":"stopped"},"statusReason":{"from":"disabled","to":"daily_limit"}}`,
					`agent.stopped agent:agt_release_notes by ` + admin + ` {"status":{"from":"disabled","to":"stopped"},"statusReason":{"from":"disabled","to":"daily_limit"}}`,
				}
			}},
		{"a daily-usage reset resumes it", api(call{"POST", "/workspaceapi/agents/daily-usage/reset", adminKey,
			`{"ids": ["agt_release_notes"]}`, 200, nil}),
			func() []string {
				return []string{
					`agent.daily_usage_reset agent:agt_release_notes by ` + admin + ` {"creditsToday":{"from":8,"to":0}}`,
					`agent.resumed agent:agt_release_notes by ` + admin + ` {"status":{"from":"stopped","to":"running"},"statusReason":{"from":"daily_limit","to":null}}`,
				}
			}},
		{"disabling the running agent", api(call{"POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_release_notes"], "status": "disabled"}`, 200, nil}),
			func() []string {
				return []string{`agent.disabled agent:agt_release_notes by ` + admin + ` {"status":{"from":"running","to":"disabled"},"statusReason":{"from":null,"to":"disabled"}}`}
			}},
		{"enabling it runs it again", api(call{"POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_release_notes"], "status": "enabled"}`, 200, nil}),
			func() []string {
				return []string{`agent.enabled agent:agt_release_notes by ` + admin + ` {"status":{"from":"disabled","to":"running"},"statusReason":{"from":"disabled","to":null}}`}
			}},
		{"enabling it again records nothing", api(call{"POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_release_notes"], "status": "enabled"}`, 200, nil}), func() []string { return nil }},
		{"credit details: the agent already showing them records nothing", api(call{"POST", "/workspaceapi/agents/credit-details", adminKey,
			`{"ids": ["agt_kb_search", "agt_support_triage"], "showTokenOptimisationInfo": true}`, 200, nil}),
			func() []string {
				return []string{`agent.credit_details_changed agent:agt_kb_search by ` + admin + ` {"showTokenOptimisationInfo":{"from":false,"to":true}}`}
			}},
		{"agent tags", api(call{"POST", "/workspaceapi/agents/tags", adminKey, `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`, 200, nil}),
			func() []string {
				return []string{`agent.tags_changed agent:agt_onboarding by ` + admin + ` {"tags":{"from":["hr","production"],"to":["hr","production","pilot"]}}`}
			}},
		{"member tags", api(call{"POST", "/workspaceapi/members/tags", adminKey, `{"ids": ["usr_kofi"], "tags": ["emea"], "mode": "set"}`, 200, nil}),
			func() []string {
				return []string{`member.tags_changed member:usr_kofi by ` + admin + ` {"tags":{"from":[],"to":["emea"]}}`}
			}},
		{"team tags", api(call{"POST", "/workspaceapi/teams/tags", adminKey, `{"ids": ["team_growth"], "tags": ["revenue"]}`, 200, nil}),
			func() []string {
				return []string{`team.tags_changed team:team_growth by ` + admin + ` {"tags":{"from":[],"to":["revenue"]}}`}
			}},
		{"a team is created", api(call{"POST", "/workspaceapi/teams", adminKey, `{"name": "Research"}`, 201, &team}),
			func() []string {
				return []string{`team.created team:` + team.ID + ` by ` + admin + ` {"name":{"from":null,"to":"Research"}}`}
			}},
		{"a team is renamed", api(call{"PATCH", "/workspaceapi/teams/{team}", adminKey, `{"name": "Research Lab"}`, 200, nil}),
			func() []string {
				return []string{`team.renamed team:` + team.ID + ` by ` + admin + ` {"name":{"from":"Research","to":"Research Lab"}}`}
			}},
		{"a member joins it", api(call{"PUT", "/workspaceapi/teams/{team}/members/usr_kofi", adminKey, `{"role": "member"}`, 200, nil}),
			func() []string {
				return []string{`team.member_set team:` + team.ID + ` by ` + admin + ` {"members.usr_kofi":{"from":null,"to":"member"}}`}
			}},
		{"the same role again records nothing", api(call{"PUT", "/workspaceapi/teams/{team}/members/usr_kofi", adminKey, `{"role": "member"}`, 200, nil}),
			func() []string { return nil }},
		{"a role changes", api(call{"PUT", "/workspaceapi/teams/{team}/members/usr_kofi", adminKey, `{"role": "admin"}`, 200, nil}),
			func() []string {
				return []string{`team.member_set team:` + team.ID + ` by ` + admin + ` {"members.usr_kofi":{"from":"member","to":"admin"}}`}
			}},
		{"the member leaves", api(call{"DELETE", "/workspaceapi/teams/{team}/members/usr_kofi", adminKey, "", 204, nil}),
			func() []string {
				return []string{`team.member_removed team:` + team.ID + ` by ` + admin + ` {"members.usr_kofi":{"from":"admin","to":null}}`}
			}},
		{"a team limit below the month's usage pauses the team", api(call{"PUT", "/workspaceapi/teams/team_growth/credit-limit", adminKey,
			`{"monthlyCreditLimit": 50}`, 200, nil}),
			func() []string {
				return []string{
					`team.limit_changed team:team_growth by ` + admin + ` {"monthlyCreditLimit":{"from":null,"to":50}}`,
					`team.paused team:team_growth by ` + admin + ` {"paused":{"from":false,"to":true}}`,
				}
			}},
		{"a raised team limit resumes it", api(call{"PUT", "/workspaceapi/teams/team_growth/credit-limit", adminKey,
			`{"monthlyCreditLimit": 100}`, 200, nil}),
			func() []string {
				return []string{
					`team.limit_changed team:team_growth by ` + admin + ` {"monthlyCreditLimit":{"from":50,"to":100}}`,
					`team.resumed team:team_growth by ` + admin + ` {"paused":{"from":true,"to":false}}`,
				}
			}},
		{"a daily limit that stops nothing yet", api(call{"POST", "/workspaceapi/agents/credit-limits", adminKey,
			`{"ids": ["agt_onboarding"], "dailyCreditLimit": 5}`, 200, nil}),
			func() []string {
				return []string{`agent.limits_changed agent:agt_onboarding by ` + admin + ` {"dailyCreditLimit":{"from":null,"to":5}}`}
			}},
		{"ingest: usage stops an agent and pauses a team", invoke("IngestFunction", func() any {
			now := env.Clock.Now().Format(time.RFC3339)
			return map[string]any{"Records": []any{
				awsevents.SQSMessage("m1", map[string]any{"type": "credits.used", "id": "trail-1", "workspaceId": "ws_acme", "agentId": "agt_onboarding", "credits": 6, "occurredAt": now}),
				awsevents.SQSMessage("m2", map[string]any{"type": "credits.used", "id": "trail-2", "workspaceId": "ws_acme", "agentId": "agt_lead_qualifier", "credits": 20, "occurredAt": now}),
			}}
		}),
			func() []string {
				return []string{
					`agent.stopped agent:agt_onboarding by system:ingest {"status":{"from":"running","to":"stopped"},"statusReason":{"from":null,"to":"daily_limit"}}`,
					`team.paused team:team_growth by system:ingest {"paused":{"from":false,"to":true}}`,
				}
			}},
		{"the scheduler resumes what a new day frees", invoke("SchedulerFunction", func() any {
			return awsevents.Scheduled("tick-day", tomorrow)
		}),
			func() []string {
				return []string{`agent.resumed agent:agt_onboarding by system:scheduler {"status":{"from":"stopped","to":"running"},"statusReason":{"from":"daily_limit","to":null}}`}
			}},
		{"and a new month", invoke("SchedulerFunction", func() any {
			return awsevents.Scheduled("tick-month", december)
		}),
			func() []string {
				return []string{`team.resumed team:team_growth by system:scheduler {"paused":{"from":true,"to":false}}`}
			}},
		{"retention: the TTL removed invitations", invoke("RetentionFunction", func() any {
			return map[string]any{"Records": []any{
				awsevents.TTLRemoval("1", "ws_acme", "inv_demo_oldhire", true),
				awsevents.TTLRemoval("2", "ws_acme", "inv_gone_seatless", false),
				awsevents.TTLRemoval("1", "ws_acme", "inv_demo_oldhire", true), // redelivered: recorded once
			}}
		}),
			func() []string {
				return []string{
					`invite.removed invite:inv_demo_oldhire by system:retention {"status":{"from":"expired","to":null}}`,
					`invite.removed invite:inv_gone_seatless by system:retention {"status":{"from":"expired","to":null}}`,
				}
			}},
		{"a key is created", api(call{"POST", "/workspaceapi/keys", adminKey, `{"name": "CI", "scopes": ["read"], "expiresInDays": 30}`, 201, &key}),
			func() []string {
				return []string{`key.created key:` + key.ID + ` by ` + admin + ` {"expiresAt":{"from":null,"to":"` + at(30*24*time.Hour) +
					`"},"name":{"from":null,"to":"CI"},"scopes":{"from":null,"to":["read"]},"teamId":{"from":null,"to":null},"userId":{"from":null,"to":"usr_ada"}}`}
			}},
		{"a key is disabled", api(call{"PATCH", "/workspaceapi/keys/{key}", adminKey, `{"disabled": true}`, 200, nil}),
			func() []string {
				return []string{`key.updated key:` + key.ID + ` by ` + admin + ` {"disabled":{"from":false,"to":true}}`}
			}},
		{"disabling it again records nothing", api(call{"PATCH", "/workspaceapi/keys/{key}", adminKey, `{"disabled": true}`, 200, nil}),
			func() []string { return nil }},
		{"a key is revoked", api(call{"DELETE", "/workspaceapi/keys/{key}", adminKey, "", 204, nil}),
			func() []string {
				return []string{`key.revoked key:` + key.ID + ` by ` + admin + ` {"revoked":{"from":false,"to":true}}`}
			}},
		{"a write refused as a whole records nothing", api(call{"POST", "/workspaceapi/teams", creatorKey, `{"name": "Mine"}`, 403, nil}),
			func() []string { return nil }},
	}
	// The scheduler's changes are made at its event's time, not the clock's.
	when := map[string]time.Time{"the scheduler resumes what a new day frees": tomorrow, "and a new month": december}
	for _, s := range steps {
		env.Clock.Advance(time.Second)
		stepStart = env.Clock.Now()
		ids := s.do(t)
		env.Clock.Advance(time.Second)
		// A step's entries share its instant: their order among themselves
		// is their ids', so they compare as sets.
		from, to := stepStart, env.Clock.Now()
		if at, ok := when[s.name]; ok {
			from, to = at, at.Add(time.Millisecond)
		}
		got := entriesBetween(t, env, from, to, ids)
		want := s.want()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: entries\n%s\nwant\n%s", s.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}

	// No entry holds a key or a key's hash.
	items, err := tableops.ScanItems(t.Context(), env.Store)
	if err != nil {
		t.Fatal(err)
	}
	hash := workspace.HashKey(adminKey)
	audited := 0
	for _, it := range items {
		if e, ok := it["entity"].(*types.AttributeValueMemberS); !ok || e.Value != "audit" {
			continue
		}
		audited++
		raw, _ := json.Marshal(it)
		if strings.Contains(string(raw), "wk_") || strings.Contains(string(raw), hash) {
			t.Errorf("an audit entry holds a key or a key hash: %s", raw)
		}
	}
	if audited < 30 {
		t.Errorf("%d audit items scanned, want every entry of the walk", audited)
	}
}
