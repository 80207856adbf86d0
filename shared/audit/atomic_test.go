package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
)

// auditedTransactions records, per function, how many of its
// TransactWriteItems attempts carried an audit entry's Put, and how many
// other write calls (PutItem, UpdateItem, DeleteItem, BatchWriteItem) it
// made outside a transaction.
type auditedTransactions struct {
	mu      sync.Mutex
	audited int
	bare    []string
}

func (a *auditedTransactions) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.audited, a.bare = 0, nil
}

func (a *auditedTransactions) counts() (int, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.audited, slices.Clone(a.bare)
}

// option observes a function's calls before they are sent.
func (a *auditedTransactions) option(fn string) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("ObserveAuditedWrites",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
					middleware.InitializeOutput, middleware.Metadata, error) {
					a.mu.Lock()
					switch v := in.Parameters.(type) {
					case *dynamodb.TransactWriteItemsInput:
						for _, it := range v.TransactItems {
							if it.Put == nil {
								continue
							}
							if e, ok := it.Put.Item["entity"].(*types.AttributeValueMemberS); ok && e.Value == "audit" {
								a.audited++
								break
							}
						}
					case *dynamodb.UpdateItemInput:
						// The scheduler's run item (a day's lease and the
						// partitions it finished) changes nothing of a
						// workspace: bookkeeping, not a change to audit.
						// Nor does an agent's latest activity, which ingest
						// moves forward after the usage committed.
						pk, _ := v.Key["PK"].(*types.AttributeValueMemberS)
						sk, _ := v.Key["SK"].(*types.AttributeValueMemberS)
						scheduler := pk != nil && strings.HasPrefix(pk.Value, "SCHEDULER#")
						names := slices.Collect(maps.Values(v.ExpressionAttributeNames))
						activity := fn == "IngestFunction" && sk != nil && sk.Value == "STATE" &&
							slices.Contains(names, "lastActivityAt") && !slices.Contains(names, "version")
						if !scheduler && !activity {
							a.bare = append(a.bare, fmt.Sprintf("%s %T", fn, v))
						}
					case *dynamodb.PutItemInput:
						// An agent's month listing entry is an index of usage
						// already counted, not a change.
						if e, ok := v.Item["entity"].(*types.AttributeValueMemberS); !ok || e.Value != "usageListing" {
							a.bare = append(a.bare, fmt.Sprintf("%s %T", fn, v))
						}
					case *dynamodb.DeleteItemInput, *dynamodb.BatchWriteItemInput:
						a.bare = append(a.bare, fmt.Sprintf("%s %T", fn, v))
					}
					a.mu.Unlock()
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		})
	}
}

// tableState is every item of the table, as text, but those of an entity
// named in skip; with skip, an agent's lastActivityAt (usage, no audited
// change) is left out too.
func tableState(t *testing.T, env *apitest.Env, skip ...string) []string {
	t.Helper()
	items, err := tableops.ScanItems(t.Context(), env.Store)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		if e, ok := it["entity"].(*types.AttributeValueMemberS); ok && slices.Contains(skip, e.Value) {
			continue
		}
		if len(skip) > 0 {
			delete(it, "lastActivityAt")
		}
		raw, _ := json.Marshal(it)
		out = append(out, string(raw))
	}
	return out
}

// TestNoChangeLandsWithoutItsEntryNorAnEntryWithoutItsChange cuts every
// function's TransactWriteItems off (DynamoDB answers 500 to each attempt)
// and sends every kind of write of the API and of the system actors: each
// one tried a transaction carrying its audit entry, none wrote anything
// outside a transaction, and the table is exactly as it was. Since a
// transaction lands whole or not at all, a change and its entry land
// together or neither does.
func TestNoChangeLandsWithoutItsEntryNorAnEntryWithoutItsChange(t *testing.T) {
	faults := &dynamolocal.Faults{}
	t.Cleanup(faults.Close)
	seen := &auditedTransactions{}
	env := apitest.New(t, apitest.DemoFixture(t), apitest.Options{
		FunctionOptions: func(fn string) []func(*dynamodb.Options) {
			if fn == "AuthorizerFunction" { // it writes lastUsedAt, no audited change
				return nil
			}
			return []func(*dynamodb.Options){seen.option(fn), faults.Option()}
		},
	})
	// Something for the scheduler to resume; the keys' last use recorded.
	if res := env.Do(t, "POST", "/workspaceapi/agents/credit-limits", adminKey, `{"ids": ["agt_release_notes"], "dailyCreditLimit": 5}`); res.Status != 200 {
		t.Fatalf("setup: %d %s", res.Status, res.Body)
	}
	// Something to enable.
	if res := env.Do(t, "POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_onboarding"], "status": "disabled"}`); res.Status != 200 {
		t.Fatalf("setup: %d %s", res.Status, res.Body)
	}
	env.Do(t, "GET", "/workspaceapi/members?limit=1", creatorKey, "")

	invoke := func(fn string, event any) (int, string) {
		body, _ := json.Marshal(event)
		res, err := http.Post(env.URL+"/_local/invoke/"+fn, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out bytes.Buffer
		_, _ = out.ReadFrom(res.Body)
		return res.StatusCode, out.String()
	}
	now := env.Clock.Now().Format(time.RFC3339)
	for _, tc := range []struct {
		name string
		do   func() (int, string)
		// pass is how many transactions land before the others fail, and
		// skip the entities they write: ingest's usage lands (it records no
		// entry: usage is no audited change), its stop must not.
		pass int
		skip []string
	}{
		{"invite", api(t, env, "POST", "/workspaceapi/invites", adminKey, `{"email": "hedy@acme.example", "role": "member"}`), 0, nil},
		{"revoke", api(t, env, "DELETE", "/workspaceapi/invites", adminKey, `{"ids": ["inv_demo_nora"]}`), 0, nil},
		{"agent limit", api(t, env, "POST", "/workspaceapi/agents/credit-limits", adminKey, `{"ids": ["agt_support_triage"], "dailyCreditLimit": 1}`), 0, nil},
		{"daily-usage reset", api(t, env, "POST", "/workspaceapi/agents/daily-usage/reset", adminKey, `{"ids": ["agt_release_notes"]}`), 0, nil},
		{"agent disable", api(t, env, "POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_support_triage"], "status": "disabled"}`), 0, nil},
		{"agent enable", api(t, env, "POST", "/workspaceapi/agents/status", adminKey, `{"ids": ["agt_onboarding"], "status": "enabled"}`), 0, nil},
		{"credit details", api(t, env, "POST", "/workspaceapi/agents/credit-details", adminKey, `{"ids": ["agt_kb_search"], "showTokenOptimisationInfo": true}`), 0, nil},
		{"agent tags", api(t, env, "POST", "/workspaceapi/agents/tags", adminKey, `{"ids": ["agt_onboarding"], "tags": ["x"]}`), 0, nil},
		{"member tags", api(t, env, "POST", "/workspaceapi/members/tags", adminKey, `{"ids": ["usr_kofi"], "tags": ["x"]}`), 0, nil},
		{"team tags", api(t, env, "POST", "/workspaceapi/teams/tags", adminKey, `{"ids": ["team_growth"], "tags": ["x"]}`), 0, nil},
		{"team create", api(t, env, "POST", "/workspaceapi/teams", adminKey, `{"name": "Design"}`), 0, nil},
		{"team rename", api(t, env, "PATCH", "/workspaceapi/teams/team_growth", adminKey, `{"name": "Growth Lab"}`), 0, nil},
		{"team member set", api(t, env, "PUT", "/workspaceapi/teams/team_growth/members/usr_sam", adminKey, `{"role": "member"}`), 0, nil},
		{"team member removed", api(t, env, "DELETE", "/workspaceapi/teams/team_growth/members/usr_priya", adminKey, ""), 0, nil},
		{"team limit", api(t, env, "PUT", "/workspaceapi/teams/team_growth/credit-limit", adminKey, `{"monthlyCreditLimit": 1}`), 0, nil},
		{"key create", api(t, env, "POST", "/workspaceapi/keys", adminKey, `{"name": "CI", "scopes": ["read"]}`), 0, nil},
		{"key update", api(t, env, "PATCH", "/workspaceapi/keys/key_acme_creator", adminKey, `{"disabled": true}`), 0, nil},
		{"key revoke", api(t, env, "DELETE", "/workspaceapi/keys/key_acme_creator", adminKey, ""), 0, nil},
		{"ingest", func() (int, string) {
			return invoke("IngestFunction", map[string]any{"Records": []any{awsevents.SQSMessage("m1", map[string]any{
				"type": "credits.used", "id": "atomic-1", "workspaceId": "ws_acme", "agentId": "agt_support_triage", "credits": 60, "occurredAt": now})}})
		}, 1, []string{"usage", "event", "chat"}},
		{"scheduler", func() (int, string) {
			return invoke("SchedulerFunction", awsevents.Scheduled("tick", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)))
		}, 0, []string{"schedulerRun"}},
		{"retention", func() (int, string) {
			return invoke("RetentionFunction", map[string]any{"Records": []any{awsevents.TTLRemoval("1", "ws_acme", "inv_demo_oldhire", true)}})
		}, 0, nil},
	} {
		seen.reset()
		before := tableState(t, env, tc.skip...)
		faults.Arm(dynamolocal.ServerError, tc.pass, "TransactWriteItems")
		status, body := tc.do()
		audited, bare := seen.counts()
		if status/100 == 2 && !strings.Contains(body, `"success":false`) && !strings.Contains(body, `"itemIdentifier"`) {
			t.Errorf("%s: %d %s, want a failure: every transaction was refused", tc.name, status, body)
		}
		if audited == 0 {
			t.Errorf("%s: no transaction carried an audit entry", tc.name)
		}
		if len(bare) > 0 {
			t.Errorf("%s: writes outside a transaction: %v", tc.name, bare)
		}
		faults.Disarm()
		if after := tableState(t, env, tc.skip...); !slices.Equal(after, before) {
			var diff []string
			for _, it := range after {
				if !slices.Contains(before, it) {
					diff = append(diff, it)
				}
			}
			t.Errorf("%s: the table changed though no audited transaction landed: %v", tc.name, diff)
		}
	}
}

// api is a request of the test, answered with its status and body.
func api(t *testing.T, env *apitest.Env, method, path, key, body string) func() (int, string) {
	return func() (int, string) {
		res := env.Do(t, method, path, key, body)
		return res.Status, string(res.Body)
	}
}

// TestACancelledTransactionLeavesNeitherChangeNorEntry lands a tag write
// between the read a tag change is decided on and its transaction:
// DynamoDB cancels the transaction for its condition, and neither that
// change nor its entry is there; the change decided again on the fresh
// tags lands with its one entry, whose "from" is what it replaced.
func TestACancelledTransactionLeavesNeitherChangeNorEntry(t *testing.T) {
	var interleave dynamolocal.Interleaver
	env := apitest.New(t, apitest.DemoFixture(t), apitest.Options{
		FunctionOptions: func(fn string) []func(*dynamodb.Options) {
			if fn == "TagsFunction" {
				return []func(*dynamodb.Options){interleave.Option()}
			}
			return nil
		},
	})
	db := dynamolocal.NewClient(t, nil)
	interleave.Before(func() {
		_, err := db.UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
			TableName: aws.String(env.Store.Table()),
			Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "WS#ws_acme"}, "SK": &types.AttributeValueMemberS{Value: "AGENT#agt_onboarding"}},
			UpdateExpression:          aws.String("SET tags = :t"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "meanwhile"}}}},
		})
		if err != nil {
			t.Error(err)
		}
	})
	res := env.Do(t, "POST", "/workspaceapi/agents/tags", adminKey, `{"ids": ["agt_onboarding"], "tags": ["pilot"]}`)
	if res.Status != 200 || !strings.Contains(string(res.Body), `"tags":["meanwhile","pilot"]`) {
		t.Fatalf("tag write: %d %s, want the tags decided again on the fresh read", res.Status, res.Body)
	}
	if ops := env.FunctionTrips.Ops(); strings.Count(strings.Join(ops, " "), "TransactWriteItems") != 2 {
		t.Errorf("round trips %v, want the cancelled transaction and the one that landed", ops)
	}
	got := entriesBetween(t, env, env.Clock.Now().Add(-time.Minute), env.Clock.Now().Add(time.Minute), []string{res.Header.Get("x-amzn-RequestId")})
	want := []string{`agent.tags_changed agent:agt_onboarding by ` + admin + ` {"tags":{"from":["meanwhile"],"to":["meanwhile","pilot"]}}`}
	if !slices.Equal(got, want) {
		t.Errorf("entries %q\nwant    %q: the cancelled transaction's entry never landed", got, want)
	}
}
