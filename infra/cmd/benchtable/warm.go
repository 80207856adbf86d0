package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/agentplatform/workspaceapi/infra/benchbaseline"
)

// warmTarget is the warm target through the gateway: p50 at most 1.3x the
// raw calls' p50.
const warmTarget = 1.3

// handlerTarget is the warm target of a function's handler alone (its
// Invoke of the gateway's event, without the local gateway's hop): p50 at
// most 1.15x the raw calls' p50.
const handlerTarget = 1.15

// endpoint is how one route of the template is requested, warm.
type endpoint struct {
	route string // the template's route: "GET /workspaceapi/agents/{agentId}"
	what  string // the request measured, for the row
	want  int    // its status
	req   func(i int) request
	after func(body []byte) error // reads what a later request of its group needs
}

// budget is an endpoint's DynamoDB round-trip budgets and where they come
// from: trips in all, and path of them in turn (its critical path,
// roundtrip.Counter), which is what its latency pays.
type budget struct {
	trips, path int
	why         string
}

// budgets are the round-trip budgets of the requests warmPlan makes, from
// the tests that hold them and the costs the README documents.
var budgets = map[string]budget{
	"AuthorizerFunction":                                    {2, 2, "the key, then its owner (shared/authorizer and shared/invites tests)"},
	"GET /agents/{agentId}":                                 {1, 1, "the agent (GetItem)"},
	"GET /workspaceapi/agents":                              {2, 2, "a Query of the page, then a BatchGetItem per 100 standings, at once (shared/agents tests)"},
	"POST /workspaceapi/agents/credit-details":              {2, 2, "a BatchGetItem per 100 ids, then a transaction per changed agent: its update and its audit entry (README)"},
	"POST /workspaceapi/agents/credit-limits":               {3, 3, "a BatchGetItem of the agents' standings and one of their teams', a transaction per changed agent (shared/dynamo eachAgent)"},
	"POST /workspaceapi/agents/daily-usage/reset":           {3, 3, "a BatchGetItem of the agents' standings and one of their teams', a transaction per changed agent (shared/dynamo eachAgent)"},
	"POST /workspaceapi/agents/status":                      {3, 3, "a BatchGetItem of the agents' standings and one of their teams', a transaction per changed agent with its event and its audit entries (shared/dynamo eachAgent)"},
	"POST /workspaceapi/agents/tags":                        {2, 2, "a BatchGetItem per 100 ids, then a transaction per changed agent: its update and its audit entry (shared/tags tests)"},
	"GET /workspaceapi/agents/{agentId}":                    {1, 1, "the agent (GetItem)"},
	"GET /workspaceapi/agents/{agentId}/chats/{chatId}":     {3, 3, "the agent, the chat, a Query per MB of its messages"},
	"GET /workspaceapi/agents/{agentId}/connected-agents":   {3, 3, "the agent, a Query of the workspace's agents, a BatchGetItem of the names of the answered agents' teams"},
	"GET /workspaceapi/agents/{agentId}/diary":              {2, 2, "the agent, the month's summary"},
	"GET /workspaceapi/agents/{agentId}/key-metrics":        {9, 2, "the agent, then at once per metric (2): a Query of day summaries, one per stretch of partial days (none), the total, the newest record, the recent ones (shared/dynamo KeyMetrics, shared/agentdata tests)"},
	"GET /workspaceapi/agents/{agentId}/promotion-requests": {1, 1, "the agent (GetItem)"},
	"GET /workspaceapi/agents/{agentId}/usage":              {2, 2, "the agent, a Query of its usage (shared/credits tests)"},
	"GET /workspaceapi/credits":                             {4, 2, "a Query of the teams and one of the agents at once, then at once a BatchGetItem per 100 of the page's standings and one of the month's totals (README: 10 agents, 4; shared/credits tests)"},
	"GET /workspaceapi/credits/export":                      {3, 3, "per month of the period a Query of its listing, then a BatchGetItem per 100 names (shared/credits export tests)"},
	"DELETE /workspaceapi/invites":                          {2, 2, "a BatchGetItem, a transaction per 33 invitations (shared/invites tests)"},
	"GET /workspaceapi/invites":                             {1, 1, "one Query (shared/invites tests)"},
	"POST /workspaceapi/invites":                            {4, 4, "createInviteBudget (shared/invites tests)"},
	"GET /workspaceapi/keys":                                {2, 2, "a Query of the key references, then a BatchGetItem of the keys (docs/api-keys.md)"},
	"POST /workspaceapi/keys":                               {1, 1, "one transaction while the count is not full (docs/api-keys.md)"},
	"PATCH /workspaceapi/keys/{keyId}":                      {3, 3, "the reference, then the key (GetItem each), then a transaction of its update and its audit entry (docs/api-keys.md)"},
	"DELETE /workspaceapi/keys/{keyId}":                     {2, 2, "the reference (GetItem), then a transaction (docs/api-keys.md)"},
	"GET /workspaceapi/members":                             {1, 1, "one Query (shared/members tests)"},
	"GET /workspaceapi/version":                             {0, 0, "reads nothing (shared/release)"},
	"GET /workspaceapi/webhooks":                            {1, 1, "one Query of the subscriptions and their count (docs/webhooks.md)"},
	"POST /workspaceapi/webhooks":                           {3, 3, "the Query of the subscriptions, the transaction of the new one, its count, the workspace and the audit entry; the idempotency claim (docs/webhooks.md)"},
	"GET /workspaceapi/webhooks/{webhookId}":                {1, 1, "the subscription (docs/webhooks.md)"},
	"PATCH /workspaceapi/webhooks/{webhookId}":              {3, 3, "the Query of the subscriptions, the change's transaction; the idempotency claim (docs/webhooks.md)"},
	"DELETE /workspaceapi/webhooks/{webhookId}":             {3, 3, "the Query of the subscriptions, the delete's transaction; the idempotency claim (docs/webhooks.md)"},
	"POST /workspaceapi/webhooks/{webhookId}/rotate-secret": {3, 3, "the Query of the subscriptions, the rotation's transaction; the idempotency claim (docs/webhooks.md)"},
	"POST /workspaceapi/webhooks/{webhookId}/test":          {2, 2, "the subscription, found or not (docs/webhooks.md)"},
	"GET /workspaceapi/webhooks/{webhookId}/deliveries":     {2, 2, "the subscription, then one Query of its deliveries (docs/webhooks.md)"},
	"GET /workspaceapi/audit-log":                           {17, 1, "a Query per shard of the log and one of the partition 2.0.0 wrote, at once (shared/audit tests)"},
	"POST /workspaceapi/members/tags":                       {2, 2, "a BatchGetItem per 100 ids, then a transaction per changed member: its update and its audit entry (README)"},
	"GET /workspaceapi/teams":                               {2, 2, "the workspace (team settings), a Query of its teams"},
	"POST /workspaceapi/teams":                              {1, 1, "one transaction: team settings on, the team, its name claim"},
	"POST /workspaceapi/teams/tags":                         {2, 2, "a BatchGetItem per 100 ids, then a transaction per changed team: its update and its audit entry (README)"},
	"GET /workspaceapi/teams/{teamId}":                      {3, 2, "the team and its state, then a Query of its members and one of its agents at once"},
	"PATCH /workspaceapi/teams/{teamId}":                    {5, 4, "the team and the workspace, a transaction when the name changes, then the team as GET reads it (3, 2 in turn)"},
	"PUT /workspaceapi/teams/{teamId}/credit-limit":         {3, 3, "one read, one transaction, one read of usage after it (shared/credits team tests)"},
	"DELETE /workspaceapi/teams/{teamId}/members/{userId}":  {2, 2, "a BatchGetItem of the team, the workspace and the member (the role before), then one transaction: the membership, the member's teams and the audit entry"},
	"PUT /workspaceapi/teams/{teamId}/members/{userId}":     {2, 2, "a BatchGetItem of the team, the workspace and the member (the role before), then one transaction: the membership, the member's teams and the audit entry"},
}

// warmPlan is the request of every route of the template, in groups whose
// members are requested in turn (a POST and the DELETE that undoes it), so
// that each can be repeated hundreds of times on the demo workspace.
// Writes alternate between two values, so each changes something (but a
// daily-usage reset: after the first, nothing is counted to reset, and the
// request costs its reads). Team creation comes last: the teams it adds
// would otherwise lengthen the lists measured after it.
func warmPlan(nonce string) [][]endpoint {
	get := func(route, path, key string) []endpoint {
		return []endpoint{{route: route, what: "GET " + path, want: 200, req: func(int) request { return request{method: "GET", path: path, key: key} }}}
	}
	alternate := func(route, method, path, format string, values ...any) []endpoint {
		what := fmt.Sprintf("%s %s %s", method, path, fmt.Sprintf(format, values[0]))
		if len(values) > 1 {
			what += fmt.Sprintf(" and %v in turn", values[1])
		}
		return []endpoint{{route: route, what: what, want: 200,
			req: func(i int) request {
				return request{method: method, path: path, key: adminKey, body: fmt.Sprintf(format, values[i%len(values)])}
			}}}
	}
	var inviteID string
	invites := []endpoint{
		{route: "POST /workspaceapi/invites", what: `POST /workspaceapi/invites {"email": "bench-<i>@acme.example", "role": "member"}`, want: 201,
			req: func(i int) request {
				return request{method: "POST", path: "/workspaceapi/invites", key: adminKey,
					body: fmt.Sprintf(`{"email": "bench-%s-%d@acme.example", "role": "member"}`, nonce, i)}
			},
			after: func(body []byte) error {
				var created struct{ ID string }
				if err := json.Unmarshal(body, &created); err != nil || created.ID == "" {
					return fmt.Errorf("no invitation id in %.200s", body)
				}
				inviteID = created.ID
				return nil
			}},
		{route: "DELETE /workspaceapi/invites", what: `DELETE /workspaceapi/invites {"ids": [the invitation just made]}`, want: 200,
			req: func(int) request {
				return request{method: "DELETE", path: "/workspaceapi/invites", key: adminKey, body: fmt.Sprintf(`{"ids": [%q]}`, inviteID)}
			}},
	}
	membership := []endpoint{
		{route: "PUT /workspaceapi/teams/{teamId}/members/{userId}", what: `PUT /workspaceapi/teams/team_support/members/usr_priya {"role": "member"}`, want: 200,
			req: func(int) request {
				return request{method: "PUT", path: "/workspaceapi/teams/team_support/members/usr_priya", key: adminKey, body: `{"role": "member"}`}
			}},
		{route: "DELETE /workspaceapi/teams/{teamId}/members/{userId}", what: "DELETE /workspaceapi/teams/team_support/members/usr_priya", want: 204,
			req: func(int) request {
				return request{method: "DELETE", path: "/workspaceapi/teams/team_support/members/usr_priya", key: adminKey}
			}},
	}
	var keyID string
	keys := []endpoint{
		{route: "POST /workspaceapi/keys", what: `POST /workspaceapi/keys {"name": "Bench <i>", "scopes": ["read"]}`, want: 201,
			req: func(i int) request {
				return request{method: "POST", path: "/workspaceapi/keys", key: adminKey,
					body: fmt.Sprintf(`{"name": "Bench %s %d", "scopes": ["read"]}`, nonce, i)}
			},
			after: func(body []byte) error {
				var created struct{ ID string }
				if err := json.Unmarshal(body, &created); err != nil || created.ID == "" {
					return fmt.Errorf("no key id in %.200s", body)
				}
				keyID = created.ID
				return nil
			}},
		{route: "PATCH /workspaceapi/keys/{keyId}", what: `PATCH /workspaceapi/keys/{the key just made} {"disabled": true}`, want: 200,
			req: func(int) request {
				return request{method: "PATCH", path: "/workspaceapi/keys/" + keyID, key: adminKey, body: `{"disabled": true}`}
			}},
		{route: "DELETE /workspaceapi/keys/{keyId}", what: "DELETE /workspaceapi/keys/{the key just made}", want: 204,
			req: func(int) request {
				return request{method: "DELETE", path: "/workspaceapi/keys/" + keyID, key: adminKey}
			}},
	}
	var webhookID string
	hook := func(route, method, suffix, body string, want int) endpoint {
		return endpoint{route: route, what: method + " /workspaceapi/webhooks/{the subscription just made}" + suffix + " " + body, want: want,
			req: func(int) request {
				return request{method: method, path: "/workspaceapi/webhooks/" + webhookID + suffix, key: adminKey, body: body}
			}}
	}
	webhooks := []endpoint{
		{route: "POST /workspaceapi/webhooks", what: `POST /workspaceapi/webhooks {"url": "https://93.184.215.14/hooks/<i>", "eventTypes": ["Agent Stopped"]}`, want: 201,
			req: func(i int) request {
				return request{method: "POST", path: "/workspaceapi/webhooks", key: adminKey,
					body: fmt.Sprintf(`{"url": "https://93.184.215.14/hooks/%s-%d", "eventTypes": ["Agent Stopped"]}`, nonce, i)}
			},
			after: func(body []byte) error {
				var created struct{ ID string }
				if err := json.Unmarshal(body, &created); err != nil || created.ID == "" {
					return fmt.Errorf("no webhook id in %.200s", body)
				}
				webhookID = created.ID
				return nil
			}},
		hook("GET /workspaceapi/webhooks/{webhookId}", "GET", "", "", 200),
		hook("PATCH /workspaceapi/webhooks/{webhookId}", "PATCH", "", `{"description": "bench"}`, 200),
		hook("POST /workspaceapi/webhooks/{webhookId}/rotate-secret", "POST", "/rotate-secret", "", 200),
		hook("GET /workspaceapi/webhooks/{webhookId}/deliveries", "GET", "/deliveries", "", 200),
		hook("DELETE /workspaceapi/webhooks/{webhookId}", "DELETE", "", "", 204),
	}
	createTeam := []endpoint{{route: "POST /workspaceapi/teams", what: `POST /workspaceapi/teams {"name": "Bench <i>"}`, want: 201,
		req: func(i int) request {
			return request{method: "POST", path: "/workspaceapi/teams", key: adminKey, body: fmt.Sprintf(`{"name": "Bench %s %d"}`, nonce, i)}
		}}}
	const agent = "/workspaceapi/agents/agt_support_triage"
	return [][]endpoint{
		get("GET /agents/{agentId}", "/agents/agt_support_triage", readOnlyKey),
		get("GET /workspaceapi/agents", "/workspaceapi/agents?includeOverview=true", adminKey),
		alternate("POST /workspaceapi/agents/credit-details", "POST", "/workspaceapi/agents/credit-details",
			`{"ids": ["agt_kb_search"], "showTokenOptimisationInfo": %v}`, true, false),
		alternate("POST /workspaceapi/agents/credit-limits", "POST", "/workspaceapi/agents/credit-limits",
			`{"ids": ["agt_onboarding"], "dailyCreditLimit": %d}`, 30, 35),
		alternate("POST /workspaceapi/agents/daily-usage/reset", "POST", "/workspaceapi/agents/daily-usage/reset",
			`{"ids": [%q]}`, "agt_support_triage"),
		alternate("POST /workspaceapi/agents/status", "POST", "/workspaceapi/agents/status",
			`{"ids": ["agt_onboarding"], "status": %q}`, "disabled", "enabled"),
		alternate("POST /workspaceapi/agents/tags", "POST", "/workspaceapi/agents/tags",
			`{"ids": ["agt_kb_search"], "tags": [%q], "mode": "set"}`, "search", "retrieval"),
		get("GET /workspaceapi/agents/{agentId}", agent, readOnlyKey),
		get("GET /workspaceapi/agents/{agentId}/chats/{chatId}", agent+"/chats/chat_refund", readOnlyKey),
		get("GET /workspaceapi/agents/{agentId}/connected-agents", agent+"/connected-agents", readOnlyKey),
		get("GET /workspaceapi/agents/{agentId}/diary", agent+"/diary?year=2026&month=11", readOnlyKey),
		get("GET /workspaceapi/agents/{agentId}/key-metrics", agent+"/key-metrics?startDate=2026-11-18&endDate=2026-11-22&recent=2", readOnlyKey),
		get("GET /workspaceapi/agents/{agentId}/promotion-requests", agent+"/promotion-requests", readOnlyKey),
		get("GET /workspaceapi/agents/{agentId}/usage", agent+"/usage?days=7", adminKey),
		get("GET /workspaceapi/credits", "/workspaceapi/credits", adminKey),
		get("GET /workspaceapi/credits/export", "/workspaceapi/credits/export?from=2026-11-01&to=2026-11-21", adminKey),
		get("GET /workspaceapi/invites", "/workspaceapi/invites", adminKey),
		invites,
		get("GET /workspaceapi/keys", "/workspaceapi/keys", adminKey),
		keys,
		get("GET /workspaceapi/members", "/workspaceapi/members", adminKey),
		get("GET /workspaceapi/version", "/workspaceapi/version", readOnlyKey),
		get("GET /workspaceapi/webhooks", "/workspaceapi/webhooks", adminKey),
		webhooks,
		[]endpoint{{route: "POST /workspaceapi/webhooks/{webhookId}/test", what: "POST /workspaceapi/webhooks/{a subscription of none}/test", want: 404,
			req: func(int) request {
				return request{method: "POST", path: "/workspaceapi/webhooks/wh_none/test", key: adminKey}
			}}},
		get("GET /workspaceapi/audit-log", "/workspaceapi/audit-log", adminKey),
		alternate("POST /workspaceapi/members/tags", "POST", "/workspaceapi/members/tags",
			`{"ids": ["usr_priya"], "tags": [%q], "mode": "set"}`, "marketing", "growth"),
		get("GET /workspaceapi/teams", "/workspaceapi/teams", adminKey),
		alternate("POST /workspaceapi/teams/tags", "POST", "/workspaceapi/teams/tags",
			`{"ids": ["team_growth"], "tags": [%q], "mode": "set"}`, "revenue", "pipeline"),
		get("GET /workspaceapi/teams/{teamId}", "/workspaceapi/teams/team_support", adminKey),
		alternate("PATCH /workspaceapi/teams/{teamId}", "PATCH", "/workspaceapi/teams/team_growth",
			`{"name": %q}`, "Growth", "Growth and Revenue"),
		alternate("PUT /workspaceapi/teams/{teamId}/credit-limit", "PUT", "/workspaceapi/teams/team_growth/credit-limit",
			`{"monthlyCreditLimit": %d}`, 500, 600),
		membership,
		createTeam,
	}
}

// warmSamples are one endpoint's measurements.
type warmSamples struct {
	ep       endpoint
	gw, raw  []time.Duration
	handler  []time.Duration // the function's handler alone
	trips    []trips
	ops      []string // of the measured request with the most round trips
	measured bool
}

// warm measures every selected route through the gateway `make run` serves,
// against the same calls replayed raw from the functions' client, request
// by request: the p50 and p99 of each, and the round trips.
func (b *bench) warm(ctx context.Context) error {
	if !b.wantWarm() {
		return nil
	}
	plan := warmPlan(time.Now().UTC().Format("150405"))
	planned := map[string]bool{}
	for _, g := range plan {
		for _, ep := range g {
			planned[ep.route] = true
		}
	}
	for _, r := range b.tmpl.Routes() {
		if !planned[routeID(r)] {
			return fmt.Errorf("benchtable has no request for the route %s of template.yaml: add one to warmPlan and budgets", routeID(r))
		}
	}

	if b.s.want("trips:AuthorizerFunction") {
		// The bin gateway runs the authorizer on every request.
		b.authTrips.Reset()
		req := request{method: "GET", path: "/workspaceapi/members", key: adminKey}
		res, err := b.do(ctx, b.bin.URL, req)
		if err != nil {
			return err
		}
		if err := expect(req, res, 200); err != nil {
			return err
		}
		b.rows = append(b.rows, tripsRow("trips:AuthorizerFunction", "AuthorizerFunction", "a REQUEST event (cache miss)",
			[]trips{{b.authTrips.Count(), b.authTrips.Depth()}}, b.authTrips.Ops(), budgets["AuthorizerFunction"]))
	}

	start := time.Now()
	var results []*warmSamples
	for _, g := range plan {
		selected := false
		for _, ep := range g {
			selected = selected || b.s.wantAny("warm:"+ep.route, "handler:"+ep.route, "trips:"+ep.route)
		}
		if !selected {
			continue
		}
		samples := make([]*warmSamples, len(g))
		for k, ep := range g {
			samples[k] = &warmSamples{ep: ep, measured: b.s.wantAny("warm:"+ep.route, "handler:"+ep.route, "trips:"+ep.route)}
		}
		warmup, n := b.s.warmup, b.s.warmup+b.s.requests
		if !slices.ContainsFunc(g, func(ep endpoint) bool { return b.s.wantAny("warm:"+ep.route, "handler:"+ep.route) }) {
			warmup, n = 0, 3 // round trips alone need no statistics
		}
		for i := range n {
			for k, ep := range g {
				gw, handler, raw, tr, ops, err := b.warmRequest(ctx, ep, i)
				if err != nil {
					return fmt.Errorf("%s, request %d: %w", ep.route, i+1, err)
				}
				if i < warmup {
					continue
				}
				s := samples[k]
				s.gw, s.raw, s.trips = append(s.gw, gw), append(s.raw, raw), append(s.trips, tr)
				s.handler = append(s.handler, handler)
				if s.ops == nil || len(ops) > len(s.ops) {
					s.ops = ops
				}
			}
		}
		results = append(results, samples...)
	}
	b.logf("warm requests measured in %s", time.Since(start).Round(time.Millisecond))

	// Rows in the template's route order, each endpoint's warm row then
	// its round trips.
	byRoute := map[string]*warmSamples{}
	for _, s := range results {
		if s.measured {
			byRoute[s.ep.route] = s
		}
	}
	for _, r := range b.tmpl.Routes() {
		s := byRoute[routeID(r)]
		if s == nil {
			continue
		}
		if id := "warm:" + s.ep.route; b.s.want(id) {
			gw50, gw99 := percentile(s.gw, 50), percentile(s.gw, 99)
			raw50, raw99 := percentile(s.raw, 50), percentile(s.raw, 99)
			against := fmt.Sprintf("its calls (%s) replayed raw: p50 %s (%.2fx, +%s), p99 %s (%.2fx)",
				opsSummary(s.ops), ms(raw50), ratio(gw50, raw50), ms(gw50-raw50), ms(raw99), ratio(gw99, raw99))
			if n := b.refused[s.ep.route]; n > 0 {
				// The twin tables drifted apart: the comparison is off.
				against += fmt.Sprintf("; %d replayed calls were refused", n)
			}
			b.rows = append(b.rows, row{
				id: id, measure: "warm latency through the local gateway (make run)", subject: s.ep.route,
				value:   fmt.Sprintf("p50 %s, p99 %s (%s)", ms(gw50), ms(gw99), s.ep.what),
				against: against,
				target:  fmt.Sprintf("p50 ≤ %.1fx raw", warmTarget), met: met(ratio(gw50, raw50) <= warmTarget),
			})
		}
		if id := "handler:" + s.ep.route; b.s.want(id) {
			h50, h99 := percentile(s.handler, 50), percentile(s.handler, 99)
			raw50, raw99 := percentile(s.raw, 50), percentile(s.raw, 99)
			b.rows = append(b.rows, row{
				id: id, measure: "warm latency of the handler alone (its Invoke of the gateway's event, in-process)", subject: s.ep.route,
				value: fmt.Sprintf("p50 %s, p99 %s (%s)", ms(h50), ms(h99), s.ep.what),
				against: fmt.Sprintf("its calls (%s) replayed raw: p50 %s (%.2fx, +%s), p99 %s (%.2fx); through the gateway p50 %s",
					opsSummary(s.ops), ms(raw50), ratio(h50, raw50), ms(h50-raw50), ms(raw99), ratio(h99, raw99), ms(percentile(s.gw, 50))),
				target: fmt.Sprintf("p50 ≤ %.2fx raw", handlerTarget), met: met(ratio(h50, raw50) <= handlerTarget),
			})
		}
		if id := "trips:" + s.ep.route; b.s.want(id) {
			b.rows = append(b.rows, tripsRow(id, s.ep.route, s.ep.what, s.trips, s.ops, budgets[s.ep.route]))
		}
	}
	return nil
}

// trips are one request's round trips: in all, and in turn (its critical
// path).
type trips struct{ count, path int }

// tripsRow is an endpoint's round trips and critical path beside their
// budgets.
func tripsRow(id, subject, what string, samples []trips, ops []string, bud budget) row {
	span := func(of func(trips) int) (string, int) {
		lo, hi := of(samples[0]), of(samples[0])
		for _, t := range samples[1:] {
			lo, hi = min(lo, of(t)), max(hi, of(t))
		}
		if lo != hi {
			return fmt.Sprintf("%d to %d", lo, hi), hi
		}
		return fmt.Sprint(hi), hi
	}
	count, hiCount := span(func(t trips) int { return t.count })
	path, hiPath := span(func(t trips) int { return t.path })
	value := fmt.Sprintf("%s, %s in turn (%s; %s)", count, path, opsSummary(ops), what)
	r := row{id: id, measure: "DynamoDB round trips, and in turn (critical path)", subject: subject, value: value, target: "≤ budgets"}
	if bud.trips == 0 {
		r.against, r.met = "no budget set", "no"
		return r
	}
	r.against = fmt.Sprintf("budget %d, %d in turn: %s", bud.trips, bud.path, bud.why)
	r.met = met(hiCount <= bud.trips && hiPath <= bud.path)
	return r
}

// warmRequest sends request i of ep through the `make run` gateway (the
// functions over tableA), then replays the calls the function made on
// tableB from the functions' own client, and times both.
func (b *bench) warmRequest(ctx context.Context, ep endpoint, i int) (gw, handler, raw time.Duration, tr trips, ops []string, err error) {
	req := ep.req(i)
	b.fnTrips.Reset()
	b.fnCalls.Reset()
	b.handlerTimes.reset()
	res, err := b.do(ctx, b.run.URL, req)
	if err != nil {
		return 0, 0, 0, trips{}, nil, err
	}
	if err := expect(req, res, ep.want); err != nil {
		return 0, 0, 0, trips{}, nil, err
	}
	tr, ops, calls := trips{b.fnTrips.Count(), b.fnTrips.Depth()}, b.fnTrips.Ops(), b.fnCalls.Calls()
	handler = b.handlerTimes.of(b.routeFunction[ep.route])
	if ep.after != nil {
		if err := ep.after(res.body); err != nil {
			return 0, 0, 0, trips{}, nil, err
		}
	}
	if calls, err = benchbaseline.Retarget(calls, b.tableA, b.tableB); err != nil {
		return 0, 0, 0, trips{}, nil, err
	}
	start := time.Now()
	rep, err := benchbaseline.Replay(ctx, b.fnClient, calls)
	if err != nil {
		return 0, 0, 0, trips{}, nil, err
	}
	raw = time.Since(start)
	if rep.Failed > 0 {
		b.refused[ep.route] += rep.Failed
	}
	return res.took, handler, raw, tr, ops, nil
}
