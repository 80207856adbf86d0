package webhookdelivery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// inlineQueue delivers each message at once with d (set once the Env
// exists), as SQS would hand it to the delivery function.
type inlineQueue struct{ d *webhookdelivery.Deliverer }

func (q inlineQueue) Enqueue(ctx context.Context, m webhookdelivery.Message, delay time.Duration) error {
	if delay > 0 {
		return nil // retries are another test's
	}
	return q.d.Deliver(ctx, m)
}

// TestUsageCrossingADailyLimitDeliversSignedEvents: in the standings
// fixture ag_daily has a daily limit of 5; usage of 4 then 1 crosses 80 %,
// then 100 % and stops it. A subscriber of both event types on loopback
// gets Credit Threshold Reached (80, then 100) and Agent Stopped, each
// signed with its secret.
func TestUsageCrossingADailyLimitDeliversSignedEvents(t *testing.T) {
	d := &webhookdelivery.Deliverer{}
	env := apitest.New(t, apitest.Fixture(t, "standings.json"), apitest.Options{Streams: true, WebhookQueue: inlineQueue{d}})
	*d = webhookdelivery.Deliverer{Store: env.Store, Queue: inlineQueue{d}, Clock: env.Clock,
		IDs: workspace.SortableIDs{Clock: env.Clock}, Client: webhookdelivery.NewClient(true, net.DefaultResolver), Local: true}
	rc := &receiver{status: 200}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	secret, err := workspace.NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	now := env.Clock.Now()
	h := workspace.Webhook{ID: "wh_e2e", WorkspaceID: "ws_a", URL: srv.URL + "/hook",
		EventTypes: []string{workspace.EventThresholdReached, workspace.EventAgentStopped}, Thresholds: []int{80, 100},
		CreatedAt: now, Secret: secret}
	if err := env.Store.CreateWebhook(t.Context(), workspace.SystemActor(workspace.SystemWebhooks), h, now); err != nil {
		t.Fatal(err)
	}
	for i, credits := range []float64{4, 1} {
		id := fmt.Sprintf("e2e-%d", i)
		got := awscalls.Invoke(t, env.URL, "IngestFunction", map[string]any{"Records": []any{awsevents.SQSMessage("m-"+id, map[string]any{
			"type": "credits.used", "id": id, "workspaceId": "ws_a", "agentId": "ag_daily", "credits": credits,
			"occurredAt": env.Clock.Now().Format(time.RFC3339),
		})}})
		if string(got) != `{"batchItemFailures":[]}` {
			t.Fatalf("ingest %s: %s", id, got)
		}
		env.Clock.Advance(time.Second)
		// Wait for this step's deliveries, so their order is the usage's.
		want := map[int]int{0: 1, 1: 3}[i]
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			rc.mu.Lock()
			n := len(rc.got)
			rc.mu.Unlock()
			if n >= want {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	time.Sleep(300 * time.Millisecond)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var got []string
	for i, r := range rc.got {
		var body struct {
			Type string
			Data struct {
				Threshold int
				Target    struct{ ID string }
			}
		}
		if err := json.Unmarshal(rc.bodies[i], &body); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %d", body.Type, body.Data.Target.ID, body.Data.Threshold))
		want := opensslSignature(t, secret, r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), rc.bodies[i])
		if r.Header.Get("webhook-signature") != want {
			t.Errorf("delivery %d: signature %q, openssl says %q", i, r.Header.Get("webhook-signature"), want)
		}
	}
	slices.Sort(got[1:]) // the 100 % crossing and the stop come from one transaction
	if want := []string{"Credit Threshold Reached ag_daily 80", "Agent Stopped ag_daily 0", "Credit Threshold Reached ag_daily 100"}; !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
}
