package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Resource is a subscription as the webhooks endpoints show it: never its
// secret, which only the create and rotate answers carry.
type Resource struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	EventTypes  []string `json:"eventTypes"`
	Description string   `json:"description"`
	Thresholds  []int    `json:"thresholds"`
	Disabled    bool     `json:"disabled"`
	CreatedAt   string   `json:"createdAt"`
}

// NewResource shows h.
func NewResource(h workspace.Webhook) Resource {
	return Resource{
		ID: h.ID, URL: h.URL, EventTypes: h.EventTypes, Description: h.Description,
		Thresholds: h.Thresholds, Disabled: h.Disabled, CreatedAt: workspace.FormatTime(h.CreatedAt),
	}
}

// DeliveryResource is one attempt as the deliveries log lists it.
type DeliveryResource struct {
	ID          string  `json:"id"`
	EventID     string  `json:"eventId"`
	EventType   string  `json:"eventType"`
	Attempt     int     `json:"attempt"`
	AttemptedAt string  `json:"attemptedAt"`
	Status      *int    `json:"status"`
	Error       *string `json:"error"`
}

// manager returns the caller of r when it may manage webhooks with scope:
// the scope (403), then a workspace-wide key (403) of a workspace admin
// (403), all from the authorizer's context, before anything is read.
func manager(r *http.Request, scope workspace.Scope) (workspace.Caller, error) {
	caller, err := httpapi.Caller(r, scope)
	if err != nil {
		return workspace.Caller{}, err
	}
	return caller, workspace.CanManageWebhooks(caller)
}

// pathID returns the subscription id of r's path, or ErrWebhookNotFound
// without reading anything when it cannot be an id.
func pathID(r *http.Request) (string, error) {
	id := r.PathValue("webhookId")
	if !workspace.PlausibleID(id) {
		return "", workspace.ErrWebhookNotFound
	}
	return id, nil
}

// bodilessWrite returns the caller and the subscription id of r, a write
// to one subscription that takes no body: the caller (403), a body that is
// sent (400), then the id (404 without reading).
func bodilessWrite(r *http.Request) (workspace.Caller, string, error) {
	caller, err := manager(r, workspace.ScopeWrite)
	if err != nil {
		return workspace.Caller{}, "", err
	}
	if err := httpapi.DecodeNone(r); err != nil {
		return workspace.Caller{}, "", err
	}
	id, err := pathID(r)
	return caller, id, err
}

// publicHost checks, outside make run, that raw's host resolves to public
// addresses only (workspace.PublicAddress): a 400 otherwise. The delivery
// checks again at every connection, so a name that later resolves elsewhere
// (DNS rebinding) is refused then.
func publicHost(ctx context.Context, d Deps, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return workspace.Invalid("url must be an absolute https URL to a public host")
	}
	host := u.Hostname()
	if d.Local && workspace.LoopbackHost(host) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := d.Resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return workspace.Invalid("url's host %q does not resolve", host)
	}
	for _, a := range addrs {
		if !workspace.PublicAddress(a) {
			return workspace.Invalid("url's host must resolve to public addresses only")
		}
	}
	return nil
}

// secretShaped reports whether s is a secret NewWebhookSecret makes: safe
// to write into JSON unescaped.
func secretShaped(s string) bool {
	if !strings.HasPrefix(s, workspace.WebhookSecretPrefix) {
		return false
	}
	for _, c := range s[len(workspace.WebhookSecretPrefix):] {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// listWebhooks handles GET /workspaceapi/webhooks: every subscription of
// the workspace (at most workspace.MaxWebhooks), in creation order.
func listWebhooks(d Deps) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		hooks, err := d.Store.Webhooks(r.Context(), caller.WorkspaceID)
		if err != nil {
			return err
		}
		out := struct {
			Webhooks []Resource `json:"webhooks"`
		}{Webhooks: make([]Resource, len(hooks))}
		for i, h := range hooks {
			out.Webhooks[i] = NewResource(h)
		}
		httpapi.JSON(w, http.StatusOK, out)
		return nil
	}
}

// createWebhook handles POST /workspaceapi/webhooks: the caller (403), the
// body (400), the host's addresses (400), then in the storing transaction
// room under workspace.MaxWebhooks (409); 201 with the resource and, this
// once, its secret.
func createWebhook(d Deps) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req workspace.WebhookRequest
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		spec, err := req.Check(d.Local)
		if err != nil {
			return err
		}
		if err := publicHost(r.Context(), d, spec.URL); err != nil {
			return err
		}
		id, err := d.IDs.NewID(workspace.WebhookIDPrefix)
		if err != nil {
			return fmt.Errorf("new webhook id: %w", err)
		}
		secret, err := workspace.NewWebhookSecret()
		if err != nil {
			return fmt.Errorf("new webhook secret: %w", err)
		}
		now := d.Clock.Now()
		h := workspace.NewWebhook(id, secret, spec, caller, now)
		if err := d.Store.CreateWebhook(r.Context(), httpapi.Actor(r, caller), h, now); err != nil {
			return err
		}
		httpapi.WithSecret(w, http.StatusCreated, NewResource(h), "secret", secret, secretShaped(secret))
		return nil
	}
}

// getWebhook handles GET /workspaceapi/webhooks/{webhookId}.
func getWebhook(d Deps) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		id, err := pathID(r)
		if err != nil {
			return err
		}
		h, err := d.Store.Webhook(r.Context(), caller.WorkspaceID, id)
		if err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, NewResource(h))
		return nil
	}
}

// updateWebhook handles PATCH /workspaceapi/webhooks/{webhookId}: the
// caller (403), the body (400), a new URL's addresses (400), the id (404).
func updateWebhook(d Deps) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeWrite)
		if err != nil {
			return err
		}
		var req workspace.WebhookPatch
		if err := httpapi.Decode(r, &req); err != nil {
			return err
		}
		ch, err := req.Check(d.Local)
		if err != nil {
			return err
		}
		id, err := pathID(r)
		if err != nil {
			return err
		}
		if ch.URL != nil {
			if err := publicHost(r.Context(), d, *ch.URL); err != nil {
				return err
			}
		}
		h, err := d.Store.UpdateWebhook(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, id, ch, d.Clock.Now())
		if err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, NewResource(h))
		return nil
	}
}

// deleteWebhook handles DELETE /workspaceapi/webhooks/{webhookId}: 204;
// deliveries already queued find no subscription and are dropped.
func deleteWebhook(d Deps) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, id, err := bodilessWrite(r)
		if err != nil {
			return err
		}
		if err := d.Store.DeleteWebhook(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, id, d.Clock.Now()); err != nil {
			return err
		}
		httpapi.NoContent(w)
		return nil
	}
}

// rotateSecret handles POST /workspaceapi/webhooks/{webhookId}/rotate-secret:
// 200 with the new secret, shown this once; the old one keeps signing
// beside it for workspace.SecretOverlap.
func rotateSecret(d Deps) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, id, err := bodilessWrite(r)
		if err != nil {
			return err
		}
		secret, err := workspace.NewWebhookSecret()
		if err != nil {
			return fmt.Errorf("new webhook secret: %w", err)
		}
		if _, err := d.Store.RotateWebhookSecret(r.Context(), httpapi.Actor(r, caller), caller.WorkspaceID, id, secret, d.Clock.Now()); err != nil {
			return err
		}
		httpapi.WithSecret(w, http.StatusOK, struct{}{}, "secret", secret, secretShaped(secret))
		return nil
	}
}

// testWebhook handles POST /workspaceapi/webhooks/{webhookId}/test: 202,
// and one Webhook Test delivery is queued (delivered even when the
// subscription is disabled, so a fixed receiver can be checked).
func testWebhook(d Deps) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, id, err := bodilessWrite(r)
		if err != nil {
			return err
		}
		h, err := d.Store.Webhook(r.Context(), caller.WorkspaceID, id)
		if err != nil {
			return err
		}
		eventID, err := d.IDs.NewID("evt_")
		if err != nil {
			return fmt.Errorf("new event id: %w", err)
		}
		now := d.Clock.Now()
		data, err := json.Marshal(map[string]string{"webhookId": h.ID, "workspaceId": h.WorkspaceID})
		if err != nil {
			return err
		}
		m := webhookdelivery.Message{WorkspaceID: h.WorkspaceID, WebhookID: h.ID, EventID: eventID,
			EventType: workspace.EventWebhookTest, Timestamp: workspace.FormatTime(now), Data: data}
		if err := d.Queue.Enqueue(r.Context(), m, 0); err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusAccepted, struct {
			EventID string `json:"eventId"`
		}{eventID})
		return nil
	}
}

// listDeliveries handles GET /workspaceapi/webhooks/{webhookId}/deliveries:
// one page of the subscription's delivery attempts, newest first; every
// parameter is checked before the one Query.
func listDeliveries(d Deps) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, err := manager(r, workspace.ScopeRead)
		if err != nil {
			return err
		}
		id, err := pathID(r)
		if err != nil {
			return err
		}
		limit, after, key, err := d.Cursors.QueryPage(r, httpapi.DefaultPageLimit)
		if err != nil {
			return err
		}
		if _, err := d.Store.Webhook(r.Context(), caller.WorkspaceID, id); err != nil {
			return err
		}
		ds, next, err := d.Store.Deliveries(r.Context(), caller.WorkspaceID, id, after, limit)
		if err != nil {
			return err
		}
		out := make([]DeliveryResource, len(ds))
		for i, x := range ds {
			out[i] = DeliveryResource{ID: x.ID, EventID: x.EventID, EventType: x.EventType, Attempt: x.Attempt,
				AttemptedAt: workspace.FormatTime(x.AttemptedAt), Status: x.Status, Error: x.Error}
		}
		httpapi.WritePage(w, r, key, "deliveries", out, next != "", func(x DeliveryResource) string { return x.ID })
		return nil
	}
}
