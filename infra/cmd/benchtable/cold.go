package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/benchbaseline"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The demo fixture's keys (infra/fixtures/demo.json).
const (
	adminKey    = "wk_demoAdminKey0000000000000000000000000001"
	readOnlyKey = "wk_demoReadOnlyKey0000000000000000000000002"
)

// coldTarget is the cold-start target: at most 1.3x the same-calls baseline.
const coldTarget = 1.3

// initTarget is the init target: process start to the first
// request for an event at most 1.5x the hello-world function's; initToday
// is what was measured before the bootstraps were trimmed.
const (
	initTarget = 1.5
	initToday  = "1.8x-2.2x"
)

// coldRequests are the requests that start each endpoint function cold: a
// read where the function has one (a cold start is measured many times
// and should find the same state), and a tag write that changes nothing
// after its first time for the tag function, which has no read.
var coldRequests = map[string]request{
	"AgentsFunction":    {method: "GET", path: "/workspaceapi/agents?includeOverview=true", key: adminKey},
	"AgentDataFunction": {method: "GET", path: "/workspaceapi/agents/agt_support_triage", key: readOnlyKey},
	"ChatsFunction":     {method: "GET", path: "/workspaceapi/agents/agt_support_triage/chats/chat_refund", key: readOnlyKey},
	"CreditsFunction":   {method: "GET", path: "/workspaceapi/credits", key: adminKey},
	"InvitesFunction":   {method: "GET", path: "/workspaceapi/invites", key: adminKey},
	"MembersFunction":   {method: "GET", path: "/workspaceapi/members", key: adminKey},
	"AuditFunction":     {method: "GET", path: "/workspaceapi/audit-log", key: adminKey},
	"TagsFunction":      {method: "POST", path: "/workspaceapi/agents/tags", key: adminKey, body: `{"ids": ["agt_kb_search"], "tags": ["search"]}`},
	"TeamsFunction":     {method: "GET", path: "/workspaceapi/teams", key: adminKey},
	"KeysFunction":      {method: "GET", path: "/workspaceapi/keys", key: adminKey},
	// The authorizer's event is API Gateway's for this request.
	"AuthorizerFunction": {method: "GET", path: "/workspaceapi/invites", key: adminKey},
}

// retentionWorkspace is a workspace of its own whose seats the retention
// function's events free, so that the demo workspace's stay as loaded.
const retentionWorkspace = "ws_bench_retention"

// coldSubject is how one function is started cold.
type coldSubject struct {
	id    string
	what  string               // the event, for the row
	event func(run int) []byte // run's event; run -1 is the warm-up
	check func([]byte) error   // judges the function's answer
	local lambda.Handler       // the function in-process, over tableA
	ops   []string             // the operations of its calls
	steps int                  // how many of them it made in turn
}

// cold measures each selected function's cold start against the baselines.
// Each run of a function is mirrored: its in-process handler serves the
// same event on tableA, and the same-calls baseline replays those calls on
// tableB, so the function (on table) and the baseline do the same
// successful reads and writes.
func (b *bench) cold(ctx context.Context) error {
	if !b.wantCold() {
		return nil
	}
	var subjects []*coldSubject
	for _, id := range b.fnIDs {
		if !b.s.wantAny("cold:"+id, "init:"+id) {
			continue
		}
		subj, err := b.coldSubject(ctx, id)
		if err != nil {
			return fmt.Errorf("cold start of %s: %w", id, err)
		}
		subjects = append(subjects, subj)
	}

	type samples struct{ fn, fnInit, same, sameInit, hello, helloInit []time.Duration }
	got := make([]samples, len(subjects))
	start := time.Now()
	b.logf("cold starts: %d functions, %d runs each, with both baselines", len(subjects), b.s.runs)
	for run := range b.s.runs {
		for i, subj := range subjects {
			calls, err := b.callsOf(ctx, subj, run)
			if err != nil {
				return fmt.Errorf("cold start of %s, run %d, in-process: %w", subj.id, run+1, err)
			}
			replay, err := json.Marshal(benchbaseline.Event{Calls: calls})
			if err != nil {
				return err
			}
			// The three alternate their order, so that none is always
			// the one after another process's exit.
			steps := []func() error{
				func() error {
					first, init, err := b.coldRun(ctx, subj.id, subj.event(run), subj.check)
					got[i].fn, got[i].fnInit = append(got[i].fn, first), append(got[i].fnInit, init)
					return err
				},
				func() error {
					first, init, err := b.coldRun(ctx, sameCallsID, replay, checkReplay(len(calls)))
					got[i].same, got[i].sameInit = append(got[i].same, first), append(got[i].sameInit, init)
					return err
				},
				func() error {
					first, init, err := b.coldRun(ctx, helloID, []byte(`{}`), nil)
					got[i].hello, got[i].helloInit = append(got[i].hello, first), append(got[i].helloInit, init)
					return err
				},
			}
			for k := range steps {
				if err := steps[(k+run)%len(steps)](); err != nil {
					return fmt.Errorf("cold start of %s, run %d: %w", subj.id, run+1, err)
				}
			}
		}
	}
	b.logf("cold starts measured in %s", time.Since(start).Round(time.Millisecond))
	for i, subj := range subjects {
		fn, same, hello := median(got[i].fn), median(got[i].same), median(got[i].hello)
		fnInit, helloInit := median(got[i].fnInit), median(got[i].helloInit)
		if b.s.want("init:" + subj.id) {
			r := ratio(fnInit, helloInit)
			b.rows = append(b.rows, row{
				id: "init:" + subj.id, measure: "init (process start → first request for an event, lambdaemu)", subject: subj.id,
				value: ms(fnInit),
				against: fmt.Sprintf("hello-world init %s: %.2fx (before trimming: %s); same-calls init %s: %.2fx",
					ms(helloInit), r, initToday, ms(median(got[i].sameInit)), ratio(fnInit, median(got[i].sameInit))),
				target: fmt.Sprintf("≤ %.1fx hello-world init", initTarget), met: met(r <= initTarget),
			})
		}
		if !b.s.want("cold:" + subj.id) {
			continue
		}
		r := ratio(fn, same)
		b.rows = append(b.rows, row{
			id: "cold:" + subj.id, measure: "cold start (process start → first response, lambdaemu)", subject: subj.id,
			value: fmt.Sprintf("%s (init %s); %s", ms(fn), ms(median(got[i].fnInit)), subj.what),
			against: fmt.Sprintf("same-calls %s (init %s): %.2fx, its calls: %s, %d in turn; hello-world %s: %.2fx",
				ms(same), ms(median(got[i].sameInit)), r, opsSummary(subj.ops), subj.steps, ms(hello), ratio(fn, hello)),
			target: fmt.Sprintf("≤ %.1fx same-calls", coldTarget), met: met(r <= coldTarget),
		})
	}
	return nil
}

// coldRun starts the bootstrap of id, sends it payload at once (so no wait
// for the event is counted), and returns its cold start: process start to
// first response, and to its first request for an event (init).
func (b *bench) coldRun(ctx context.Context, id string, payload []byte, check func([]byte) error) (first, init time.Duration, err error) {
	p, err := b.startProc(ctx, id, nil)
	if err != nil {
		return 0, 0, err
	}
	defer p.Stop()
	body, err := p.Invoke(ctx, payload, 30*time.Second)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", id, err)
	}
	if check != nil {
		if err := check(body); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", id, err)
		}
	}
	init, first = p.ColdStart()
	return first, init, nil
}

// coldSubject prepares function id's cold start: its event, and a warm-up
// run of it on each table, so that every cold run finds the state the
// mirrored runs find.
func (b *bench) coldSubject(ctx context.Context, id string) (*coldSubject, error) {
	now := time.Now().UTC()
	nonce := now.Format("150405.000000")
	subj := &coldSubject{id: id, local: stackHandler(b.deps, id)}
	switch id {
	case "IngestFunction":
		subj.what, subj.check = "an SQS batch of one credits.used event", checkBatch
		subj.event = func(run int) []byte {
			return mustJSON(awsevents.SQSBatch(fmt.Sprintf(`{"type": "credits.used", "id": "bench-cold-%s-%d", "workspaceId": "ws_acme", "agentId": "agt_kb_search", "credits": 0.01, "occurredAt": %q}`,
				nonce, run, workspace.FormatTime(now.Add(-time.Second)))))
		}
	case "SchedulerFunction":
		tomorrow := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
		subj.what, subj.check = "the daily scheduled event, at the next 00:00 UTC", checkJSON
		subj.event = func(int) []byte { return mustJSON(awsevents.Scheduled("bench-tick", tomorrow)) }
	case "EventsFunction":
		subj.what, subj.check = "a stream batch of one limit event's outbox insertion", checkBatch
		subj.event = func(run int) []byte { return outboxInserts("ws_acme", fmt.Sprintf("%s_%d", nonce, run), 1) }
	case "MigrateFunction":
		subj.what, subj.check = "its scheduled event (the first run goes through the workspaces, nothing to migrate; the rest read the steps done)", checkJSON
		subj.event = func(int) []byte { return mustJSON(awsevents.Scheduled("bench-migrate", now)) }
	case "RetentionFunction":
		subj.what, subj.check = "a stream batch of one TTL removal of a seat-holding invitation", checkBatch
		subj.event = func(run int) []byte {
			return ttlRemovals(retentionWorkspace, []string{fmt.Sprintf("inv_bench_cold_%s_%d", nonce, run)})
		}
	}
	if subj.event != nil {
		// The warm-up on table, as the bin gateway's request does below.
		if err := invokeChecked(ctx, stackHandler(b.binDeps, id), subj.event(-1), subj.check); err != nil {
			return nil, fmt.Errorf("in-process: %w", err)
		}
	} else {
		req, ok := coldRequests[id]
		if !ok {
			return nil, fmt.Errorf("benchtable has no cold request for %s (a new function of template.yaml: add one to coldRequests)", id)
		}
		res, err := b.do(ctx, b.bin.URL, req)
		if err != nil {
			return nil, err
		}
		if res.status/100 != 2 {
			return nil, fmt.Errorf("%s %s answered %d %.300s in-process", req.method, req.path, res.status, res.body)
		}
		event := b.reg.event(id)
		if event == nil {
			return nil, fmt.Errorf("%s %s did not reach %s", req.method, req.path, id)
		}
		subj.event = func(int) []byte { return event }
		subj.what, subj.check = fmt.Sprintf("API Gateway's proxy event of %s %s", req.method, req.path), checkProxy
		if id == "AuthorizerFunction" {
			subj.what, subj.check = fmt.Sprintf("API Gateway's REQUEST event of %s %s", req.method, req.path), checkAllowed
		}
	}
	// The warm-up on tableA, and its calls on tableB.
	calls, err := b.callsOf(ctx, subj, -1)
	if err != nil {
		return nil, fmt.Errorf("in-process: %w", err)
	}
	if _, err := benchbaseline.Replay(ctx, b.fnClient, calls); err != nil {
		return nil, err
	}
	return subj, nil
}

// callsOf runs subj's event of run through its in-process handler over
// tableA and returns the calls it made, retargeted to tableB.
func (b *bench) callsOf(ctx context.Context, subj *coldSubject, run int) ([]benchbaseline.Call, error) {
	rec := b.fnCalls
	if subj.id == "AuthorizerFunction" {
		rec = b.authCalls
	}
	rec.Reset()
	if err := invokeChecked(ctx, subj.local, subj.event(run), subj.check); err != nil {
		return nil, err
	}
	calls := rec.Calls()
	subj.ops = make([]string, len(calls))
	subj.steps = len(benchbaseline.Steps(calls))
	for i, c := range calls {
		subj.ops[i] = c.Op
	}
	return benchbaseline.Retarget(calls, b.tableA, b.tableB)
}

// invokeChecked invokes h with payload, with a function's timeout, and
// judges its answer.
func invokeChecked(ctx context.Context, h lambda.Handler, payload []byte, check func([]byte) error) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	body, err := h.Invoke(ctx, payload)
	if err != nil {
		return err
	}
	return check(body)
}

// checkProxy requires a 2xx API Gateway proxy answer.
func checkProxy(body []byte) error {
	var res struct {
		StatusCode int    `json:"statusCode"`
		Body       string `json:"body"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("answer %.200s: %w", body, err)
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("answered %d %.300s", res.StatusCode, res.Body)
	}
	return nil
}

// checkAllowed requires an authorizer answer allowing the request.
func checkAllowed(body []byte) error {
	var res struct {
		PrincipalID    string `json:"principalId"`
		PolicyDocument struct {
			Statement []struct{ Effect string }
		} `json:"policyDocument"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("answer %.200s: %w", body, err)
	}
	if res.PrincipalID == "" || len(res.PolicyDocument.Statement) == 0 || res.PolicyDocument.Statement[0].Effect != "Allow" {
		return fmt.Errorf("the authorizer did not allow: %.300s", body)
	}
	return nil
}

// checkBatch requires a batch answer without failures.
func checkBatch(body []byte) error {
	var res struct {
		Failures []any `json:"batchItemFailures"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("answer %.200s: %w", body, err)
	}
	if len(res.Failures) > 0 {
		return fmt.Errorf("failed items: %.300s", body)
	}
	return nil
}

// checkJSON requires a JSON answer.
func checkJSON(body []byte) error {
	if !json.Valid(body) {
		return fmt.Errorf("answer is not JSON: %.200s", body)
	}
	return nil
}

// checkReplay requires the samecalls baseline to have made n calls.
func checkReplay(n int) func([]byte) error {
	return func(body []byte) error {
		var res benchbaseline.Result
		if err := json.Unmarshal(body, &res); err != nil {
			return fmt.Errorf("answer %.200s: %w", body, err)
		}
		if res.Calls != n {
			return fmt.Errorf("made %d calls, want %d", res.Calls, n)
		}
		return nil
	}
}
