package webhookdelivery_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const fixture = `{"workspaces": [
 {"id": "ws_a", "name": "Alpha", "seats": 10, "teamSettingsEnabled": false,
  "allowedEmailDomains": [], "defaultDailyCreditLimit": null,
  "members": [{"id": "u_admin", "email": "admin@alpha.example", "name": "Ada", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
  "teams": [], "agents": [], "invites": [], "apiKeys": [], "events": []}
]}`

// receiver is a webhook receiver on loopback answering status.
type receiver struct {
	mu     sync.Mutex
	got    []*http.Request
	bodies [][]byte
	status int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got, rc.bodies = append(rc.got, r), append(rc.bodies, b)
	status := rc.status
	rc.mu.Unlock()
	w.WriteHeader(status)
}

type setup struct {
	env   *apitest.Env
	queue *webhookdelivery.MemoryQueue
	d     webhookdelivery.Deliverer
	hook  workspace.Webhook
}

func newSetup(t *testing.T, url string, local bool, resolver webhookdelivery.Resolver) setup {
	t.Helper()
	env := apitest.New(t, fixture)
	secret, err := workspace.NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	now := env.Clock.Now()
	h := workspace.Webhook{ID: "wh_1", WorkspaceID: "ws_a", URL: url, EventTypes: []string{workspace.EventAgentStopped},
		Thresholds: []int{80, 100}, CreatedAt: now, Secret: secret}
	if err := env.Store.CreateWebhook(t.Context(), workspace.SystemActor(workspace.SystemWebhooks), h, now); err != nil {
		t.Fatal(err)
	}
	q := &webhookdelivery.MemoryQueue{}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	return setup{env: env, queue: q, hook: h, d: webhookdelivery.Deliverer{Store: env.Store, Queue: q, Clock: env.Clock,
		IDs: workspace.SortableIDs{Clock: env.Clock}, Client: webhookdelivery.NewClient(local, resolver), Local: local}}
}

func message() webhookdelivery.Message {
	return webhookdelivery.Message{WorkspaceID: "ws_a", WebhookID: "wh_1", EventID: "evt_stop1", EventType: workspace.EventAgentStopped,
		Timestamp: "2026-11-28T00:00:00.000Z", Data: json.RawMessage(`{"eventId":"evt_stop1","target":{"type":"agent","id":"agt_1"}}`)}
}

func deliveries(t *testing.T, s setup) []workspace.Delivery {
	t.Helper()
	ds, _, err := s.env.Store.Deliveries(t.Context(), "ws_a", "wh_1", "", 100)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// opensslSignature is v1 and the base64 HMAC-SHA256 of id.ts.body keyed by
// secret's decoded part, computed by openssl: an implementation apart.
func opensslSignature(t *testing.T, secret, id, ts string, body []byte) string {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is not installed: the signature is checked against it, an implementation apart (.ci/run installs it)")
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sh", "-c", `printf '%s' "$0" | openssl dgst -sha256 -mac HMAC -macopt hexkey:"$1" -binary | base64`,
		id+"."+ts+"."+string(body), hex.EncodeToString(key)).Output()
	if err != nil {
		t.Fatal(err)
	}
	return "v1," + strings.TrimSpace(string(out))
}

func TestADeliveryIsSignedAndLogged(t *testing.T) {
	rc := &receiver{status: 204}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	s := newSetup(t, srv.URL+"/hook", true, nil)
	if err := s.d.Deliver(t.Context(), message()); err != nil {
		t.Fatal(err)
	}
	if len(rc.got) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(rc.got))
	}
	r, body := rc.got[0], rc.bodies[0]
	var sent struct {
		Type, Timestamp string
		Data            map[string]any
	}
	if err := json.Unmarshal(body, &sent); err != nil || sent.Type != "Agent Stopped" || sent.Data["eventId"] != "evt_stop1" {
		t.Errorf("body %s", body)
	}
	if r.Header.Get("webhook-id") != "evt_stop1" {
		t.Errorf("webhook-id %q", r.Header.Get("webhook-id"))
	}
	want := opensslSignature(t, s.hook.Secret, "evt_stop1", r.Header.Get("webhook-timestamp"), body)
	if got := r.Header.Get("webhook-signature"); got != want {
		t.Errorf("webhook-signature %q, openssl says %q", got, want)
	}
	ds := deliveries(t, s)
	if len(ds) != 1 || ds[0].Status == nil || *ds[0].Status != 204 || ds[0].Error != nil || ds[0].Attempt != 1 {
		t.Errorf("logged %+v, want one successful attempt", ds)
	}
}

func TestFailuresAreRetriedForOverADayThenTheWebhookIsDisabled(t *testing.T) {
	rc := &receiver{status: 500}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	s := newSetup(t, srv.URL+"/hook", true, nil)
	start := s.env.Clock.Now()
	m := message()
	for hop := 0; hop < 200; hop++ {
		if err := s.d.Deliver(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		sent := s.queue.Sent()
		if len(sent) == hop {
			break // nothing queued: the last attempt failed
		}
		next := sent[hop]
		// SQS holds a message at most MaxDelay: a longer wait hops.
		s.env.Clock.Advance(min(next.Delay, webhookdelivery.MaxDelay))
		m = next.Message
	}
	if len(rc.got) != len(workspace.RetryDelays)+1 {
		t.Errorf("receiver got %d attempts, want %d", len(rc.got), len(workspace.RetryDelays)+1)
	}
	if el := s.env.Clock.Now().Sub(start); el < 24*time.Hour {
		t.Errorf("retried for %s, want at least 24 h", el)
	}
	h, err := s.env.Store.Webhook(t.Context(), "ws_a", "wh_1")
	if err != nil || !h.Disabled {
		t.Fatalf("webhook after the last failure: %+v %v, want disabled", h, err)
	}
	ds := deliveries(t, s)
	if len(ds) != len(workspace.RetryDelays)+1 || ds[0].Attempt != len(workspace.RetryDelays)+1 || *ds[0].Status != 500 {
		t.Errorf("log: %d attempts, newest %+v", len(ds), ds[0])
	}
	// A disabled webhook gets nothing more.
	if err := s.d.Deliver(t.Context(), message()); err != nil || len(rc.got) != len(workspace.RetryDelays)+1 {
		t.Errorf("a delivery to the disabled webhook was made (%v)", err)
	}
}

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return net.DefaultResolver.LookupNetIP(context.Background(), "ip", host)
}

func TestTheGuardRefusesPrivateAddressesAtConnection(t *testing.T) {
	rc := &receiver{status: 200}
	srv := httptest.NewTLSServer(rc)
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	resolver := fakeResolver{"evil.example": {netip.MustParseAddr("10.0.0.5")}, "rebound.example": {netip.MustParseAddr("127.0.0.1")}}
	for _, u := range []string{
		"https://127.0.0.1:" + strconv.Itoa(port) + "/hook",
		"https://10.0.0.1/hook",
		"https://169.254.169.254/latest/meta-data",
		"https://evil.example/hook",
		"https://rebound.example:" + strconv.Itoa(port) + "/hook",
		"http://93.184.215.14/hook",
	} {
		s := newSetup(t, u, false, resolver)
		if err := s.d.Deliver(t.Context(), message()); err != nil {
			t.Fatal(err)
		}
		ds := deliveries(t, s)
		if len(ds) != 1 || ds[0].Status != nil || ds[0].Error == nil {
			t.Errorf("%s: logged %+v, want a refusal", u, ds)
		}
	}
	if len(rc.got) != 0 {
		t.Errorf("the loopback receiver was reached %d times in AWS mode", len(rc.got))
	}
}

func TestARedirectIsNotFollowed(t *testing.T) {
	target := &receiver{status: 200}
	tsrv := httptest.NewServer(target)
	defer tsrv.Close()
	srv := httptest.NewServer(http.RedirectHandler(tsrv.URL+"/elsewhere", http.StatusFound))
	defer srv.Close()
	s := newSetup(t, srv.URL+"/hook", true, nil)
	if err := s.d.Deliver(t.Context(), message()); err != nil {
		t.Fatal(err)
	}
	ds := deliveries(t, s)
	if len(ds) != 1 || ds[0].Status == nil || *ds[0].Status != http.StatusFound || ds[0].Error == nil {
		t.Errorf("logged %+v, want a failed 302", ds)
	}
	if len(target.got) != 0 {
		t.Error("the redirect was followed")
	}
}
