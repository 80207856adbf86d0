// Package webhooks is the webhooks endpoint group: a workspace admin's
// workspace-wide key lists, creates, changes, deletes, tests and rotates
// the secret of the workspace's webhook subscriptions, and reads each one's
// deliveries log (docs/webhooks.md). The delivery itself is
// webhookdelivery's.
package webhooks

import (
	"context"
	"net/http"
	"net/netip"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Store is the storage the group uses.
type Store interface {
	Webhooks(ctx context.Context, ws string) ([]workspace.Webhook, error)
	Webhook(ctx context.Context, ws, id string) (workspace.Webhook, error)
	CreateWebhook(ctx context.Context, by workspace.Actor, h workspace.Webhook, now time.Time) error
	UpdateWebhook(ctx context.Context, by workspace.Actor, ws, id string, ch workspace.WebhookChange, now time.Time) (workspace.Webhook, error)
	RotateWebhookSecret(ctx context.Context, by workspace.Actor, ws, id, secret string, now time.Time) (workspace.Webhook, error)
	DeleteWebhook(ctx context.Context, by workspace.Actor, ws, id string, now time.Time) error
	Deliveries(ctx context.Context, ws, webhookID, after string, limit int) ([]workspace.Delivery, string, error)
}

// Resolver resolves a URL's host name to its addresses (net.Resolver).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Deps are the group's dependencies.
type Deps struct {
	Store   Store
	Clock   workspace.Clock
	IDs     workspace.IDGenerator
	Cursors *httpapi.Cursors
	// Queue takes the test deliveries.
	Queue webhookdelivery.Queue
	// Resolver checks at creation that a URL's host resolves to public
	// addresses only; Local allows loopback http URLs (make run).
	Resolver Resolver
	Local    bool
	// Idempotency keeps the answers of writes sent with an Idempotency-Key.
	Idempotency httpapi.Idempotency
}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("GET /workspaceapi/webhooks", listWebhooks(d))
	mux.Handle("POST /workspaceapi/webhooks", createWebhook(d))
	mux.Handle("GET /workspaceapi/webhooks/{webhookId}", getWebhook(d))
	mux.Handle("PATCH /workspaceapi/webhooks/{webhookId}", updateWebhook(d))
	mux.Handle("DELETE /workspaceapi/webhooks/{webhookId}", deleteWebhook(d))
	mux.Handle("POST /workspaceapi/webhooks/{webhookId}/rotate-secret", rotateSecret(d))
	mux.Handle("POST /workspaceapi/webhooks/{webhookId}/test", testWebhook(d))
	mux.Handle("GET /workspaceapi/webhooks/{webhookId}/deliveries", listDeliveries(d))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), d.Idempotency) }
