package webhookdelivery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the delivery function uses.
type Store interface {
	Webhook(ctx context.Context, ws, id string) (workspace.Webhook, error)
	RecordDelivery(ctx context.Context, ws string, d workspace.Delivery) error
	DisableWebhook(ctx context.Context, ws, id string, now time.Time) (bool, error)
}

// Resolver resolves a host name to its addresses (net.Resolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// maxAnswerBytes bounds how much of a receiver's answer is read.
const maxAnswerBytes = 64 << 10

// errRefusedAddress is a connection the guard refused: the host resolved
// to no address a delivery may reach.
var errRefusedAddress = errors.New("the URL's host resolves to no public address")

// NewClient returns the HTTP client of deliveries: workspace.DeliveryTimeout
// per attempt, no redirect followed, and a dialer that resolves the host
// itself and connects only to public addresses (workspace.PublicAddress),
// at every connection, so a name that resolves elsewhere later (DNS
// rebinding) reaches nothing private; local allows loopback too (make run).
func NewClient(local bool, resolver Resolver) *http.Client {
	dialer := &net.Dialer{Timeout: workspace.DeliveryTimeout}
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			ips, err := resolver.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, fmt.Errorf("resolve %s: %w", host, err)
			}
			for _, ip := range ips {
				if workspace.PublicAddress(ip) || (local && ip.Unmap().IsLoopback()) {
					return dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
				}
			}
			return nil, errRefusedAddress
		},
		TLSHandshakeTimeout: workspace.DeliveryTimeout, ResponseHeaderTimeout: workspace.DeliveryTimeout,
		MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second,
	}
	return &http.Client{
		Transport: transport, Timeout: workspace.DeliveryTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Deliverer makes deliveries: the delivery function's handler (Handle).
type Deliverer struct {
	Store  Store
	Queue  Queue
	Clock  workspace.Clock
	IDs    workspace.IDGenerator
	Client *http.Client
	// Local allows http URLs (to loopback, the client's guard decides).
	Local bool
}

// Handle is the delivery function's SQS handler: each message delivered
// (or retried, or dropped), a message it could not handle reported as a
// batch item failure, so SQS hands it over again.
func (d Deliverer) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	res := events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{}}
	for _, rec := range ev.Records {
		var m Message
		if err := json.Unmarshal([]byte(rec.Body), &m); err != nil {
			slog.ErrorContext(ctx, "a webhook delivery message that does not decode; dropped", "messageId", rec.MessageId, "error", err)
			continue
		}
		if err := d.Deliver(ctx, m); err != nil {
			slog.ErrorContext(ctx, "webhook delivery", "webhookId", m.WebhookID, "eventId", m.EventID, "error", err)
			res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
		}
	}
	return res, nil
}

// Deliver makes m's attempt: a message not yet due goes back for the rest
// of its wait; a deleted subscription's, or a disabled one's (but for a
// test), is dropped; otherwise it POSTs, logs the attempt, and on failure
// queues the next retry (workspace.RetryDelays) or, past the last,
// disables the subscription. An error means the attempt's own work failed
// (storage, the queue): the message is handed over again.
func (d Deliverer) Deliver(ctx context.Context, m Message) error {
	now := d.Clock.Now()
	if due, err := time.Parse(time.RFC3339Nano, m.NotBefore); err == nil && now.Before(due) {
		return d.Queue.Enqueue(ctx, m, due.Sub(now))
	}
	h, err := d.Store.Webhook(ctx, m.WorkspaceID, m.WebhookID)
	if workspace.IsNotFound(err) {
		return nil // deleted: nothing to deliver to
	}
	if err != nil {
		return err
	}
	test := m.EventType == workspace.EventWebhookTest
	if h.Disabled && !test {
		return nil
	}
	status, failure := d.post(ctx, h, m, now)
	id, err := d.IDs.NewID(workspace.DeliveryIDPrefix)
	if err != nil {
		return err
	}
	rec := workspace.Delivery{ID: id, WebhookID: h.ID, EventID: m.EventID, EventType: m.EventType,
		Attempt: m.Attempt + 1, AttemptedAt: now, Status: status, Error: failure}
	if err := d.Store.RecordDelivery(ctx, m.WorkspaceID, rec); err != nil {
		return err
	}
	if rec.Succeeded() {
		return nil
	}
	if m.Attempt < len(workspace.RetryDelays) {
		wait := workspace.RetryDelays[m.Attempt]
		next := m
		next.Attempt++
		next.NotBefore = now.Add(wait).Format(time.RFC3339Nano)
		return d.Queue.Enqueue(ctx, next, wait)
	}
	if test {
		return nil
	}
	disabled, err := d.Store.DisableWebhook(ctx, m.WorkspaceID, h.ID, now)
	if err == nil && disabled {
		slog.WarnContext(ctx, "webhook disabled after its deliveries failed for a day", "workspaceId", m.WorkspaceID, "webhookId", h.ID)
	}
	return err
}

// post sends m to h, signed with h's active secrets at now: the status of
// the answer (nil when none came) and what went wrong (nil on a 2xx).
func (d Deliverer) post(ctx context.Context, h workspace.Webhook, m Message, now time.Time) (*int, *string) {
	fail := func(format string, args ...any) *string { s := fmt.Sprintf(format, args...); return &s }
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "https" && !(d.Local && u.Scheme == "http")) {
		return nil, fail("the URL is not https")
	}
	body, err := json.Marshal(struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{m.EventType, m.Timestamp, m.Data})
	if err != nil {
		return nil, fail("encode the body")
	}
	ctx, cancel := context.WithTimeout(ctx, workspace.DeliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fail("the URL is not usable")
	}
	ts := now.Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "workspaceapi-webhooks")
	req.Header.Set("webhook-id", m.EventID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", workspace.SignWebhook(h.ActiveSecrets(now), m.EventID, ts, body))
	res, err := d.Client.Do(req)
	if err != nil {
		if errors.Is(err, errRefusedAddress) {
			return nil, fail("refused: the URL's host resolves to no public address")
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fail("no answer within %s", workspace.DeliveryTimeout)
		}
		return nil, fail("the connection failed")
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxAnswerBytes))
	status := res.StatusCode
	if status/100 != 2 {
		return &status, fail("answered %d", status)
	}
	return &status, nil
}
