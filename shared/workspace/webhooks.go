package workspace

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Webhooks (docs/webhooks.md): a workspace admin subscribes an https URL to
// limit events; each matching event is POSTed to it, signed the Standard
// Webhooks way with the subscription's secret, and retried with back-off
// until it is taken or a day has passed, when the subscription is disabled.
const (
	// MaxWebhooks is how many subscriptions a workspace may hold.
	MaxWebhooks = 20
	// MaxWebhookThresholds bounds a subscription's thresholds.
	MaxWebhookThresholds = 5
	// MaxWebhookURLLength bounds a subscription's URL, in bytes.
	MaxWebhookURLLength = 2048
	// MaxWebhookDescriptionLength bounds a description, in characters.
	MaxWebhookDescriptionLength = 500
	// WebhookIDPrefix starts every subscription's id; DeliveryIDPrefix
	// every delivery attempt's.
	WebhookIDPrefix  = "wh_"
	DeliveryIDPrefix = "dlv_"
	// WebhookSecretPrefix starts every secret; the rest is the base64 of
	// webhookSecretBytes random bytes, the HMAC key.
	WebhookSecretPrefix = "whsec_"
	webhookSecretBytes  = 32
	// SecretOverlap is how long a rotated-out secret keeps signing beside
	// the new one, so receivers can switch without losing a delivery.
	SecretOverlap = 24 * time.Hour
	// DeliveryLogRetention is how long a delivery attempt stays listed.
	DeliveryLogRetention = 30 * 24 * time.Hour
	// DeliveryTimeout is how long a receiver has to answer 2xx.
	DeliveryTimeout = 10 * time.Second
)

// Event types a webhook carries beyond the limit events.
const (
	// EventWebhookDisabled is sent when a subscription was disabled after
	// its deliveries failed for a day (to the workspace's other
	// subscriptions that ask for it, and the bus).
	EventWebhookDisabled = "Webhook Disabled"
	// EventWebhookTest is the delivery POST .../test sends; nobody
	// subscribes to it.
	EventWebhookTest = "Webhook Test"
)

// WebhookEventTypes are the event types a subscription may ask for.
var WebhookEventTypes = append(slices.Clone(EventDetailTypes), EventWebhookDisabled)

// DefaultWebhookThresholds are a subscription's thresholds when its
// creator names none.
var DefaultWebhookThresholds = []int{80, 100}

// RetryDelays are the waits before each retry of a failed delivery: 7
// retries over 27 h 35 min, so a receiver down for a day still gets it.
// After the last one fails the subscription is disabled.
var RetryDelays = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// ErrWebhookNotFound is the 404 of an unknown subscription (another
// workspace's included).
var ErrWebhookNotFound = NotFound("webhook not found")

// ErrWebhookLimit is the 409 of a subscription past MaxWebhooks.
var ErrWebhookLimit = Conflict("this workspace already has %d webhooks; delete one first", MaxWebhooks)

// ErrManageWebhooksForbidden is the 403 of a webhooks endpoint called with
// a key whose owner is not a workspace admin.
var ErrManageWebhooksForbidden = Forbidden("only workspace admins can manage webhooks")

// CanManageWebhooks returns a KindForbidden error unless c may call the
// webhooks endpoints: a workspace-wide key whose owner is a workspace admin.
func CanManageWebhooks(c Caller) error { return workspaceAdmin(c, ErrManageWebhooksForbidden) }

// Webhook is one subscription. Secret and PreviousSecret sign deliveries
// and are never shown after creation or rotation.
type Webhook struct {
	ID          string
	WorkspaceID string
	URL         string
	EventTypes  []string
	Description string
	Thresholds  []int
	Disabled    bool
	CreatedAt   time.Time
	Secret      string
	// PreviousSecret signs beside Secret until PreviousExpiresAt.
	PreviousSecret    string
	PreviousExpiresAt *time.Time
}

// ActiveSecrets are the secrets that sign a delivery made at now: the
// current one, and the previous one during its overlap.
func (h Webhook) ActiveSecrets(now time.Time) []string {
	out := []string{h.Secret}
	if h.PreviousSecret != "" && h.PreviousExpiresAt != nil && now.Before(*h.PreviousExpiresAt) {
		out = append(out, h.PreviousSecret)
	}
	return out
}

// Wants reports whether h takes an event of detailType: enabled, subscribed
// to it, and for a threshold event at one of its own thresholds.
func (h Webhook) Wants(detailType string, threshold int) bool {
	if h.Disabled || !slices.Contains(h.EventTypes, detailType) {
		return false
	}
	return detailType != EventThresholdReached || slices.Contains(h.Thresholds, threshold)
}

// NewWebhookSecret returns a fresh secret: WebhookSecretPrefix and the
// base64 of 32 random bytes.
func NewWebhookSecret() (string, error) {
	var b [webhookSecretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
}

// SignWebhook returns the webhook-signature header of a delivery: for each
// secret, "v1," and the base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"
// keyed by the secret's base64-decoded part after WebhookSecretPrefix,
// space-separated (the Standard Webhooks scheme). A secret that does not
// decode is skipped.
func SignWebhook(secrets []string, id string, timestamp int64, body []byte) string {
	var sigs []string
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, WebhookSecretPrefix))
		if err != nil {
			continue
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
		m.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return strings.Join(sigs, " ")
}

// WebhookRequest is the body of POST /workspaceapi/webhooks.
type WebhookRequest struct {
	URL         *string  `json:"url"`
	EventTypes  []string `json:"eventTypes"`
	Description *string  `json:"description"`
	Thresholds  *[]int   `json:"thresholds"`
}

// WebhookSpec is a checked WebhookRequest.
type WebhookSpec struct {
	URL         string
	EventTypes  []string
	Description string
	Thresholds  []int
}

// Check returns the request's checked values, or a KindInvalid error: url
// required (CheckWebhookURL, loopback http allowed when local), eventTypes
// 1 or more of WebhookEventTypes without repeats, description at most
// MaxWebhookDescriptionLength characters, thresholds 1 to
// MaxWebhookThresholds percents of 1 to 100 (default
// DefaultWebhookThresholds). It reads nothing.
func (r WebhookRequest) Check(local bool) (WebhookSpec, error) {
	if r.URL == nil {
		return WebhookSpec{}, Invalid("url is required")
	}
	u, err := CheckWebhookURL(*r.URL, local)
	if err != nil {
		return WebhookSpec{}, err
	}
	types, err := webhookEventTypes(r.EventTypes)
	if err != nil {
		return WebhookSpec{}, err
	}
	spec := WebhookSpec{URL: u, EventTypes: types, Thresholds: slices.Clone(DefaultWebhookThresholds)}
	if r.Description != nil {
		if spec.Description, err = webhookDescription(*r.Description); err != nil {
			return WebhookSpec{}, err
		}
	}
	if r.Thresholds != nil {
		if spec.Thresholds, err = webhookThresholds(*r.Thresholds); err != nil {
			return WebhookSpec{}, err
		}
	}
	return spec, nil
}

// NewWebhook is the subscription spec makes for caller c at now.
func NewWebhook(id, secret string, spec WebhookSpec, c Caller, now time.Time) Webhook {
	return Webhook{
		ID: id, WorkspaceID: c.WorkspaceID, URL: spec.URL, EventTypes: spec.EventTypes,
		Description: spec.Description, Thresholds: spec.Thresholds, CreatedAt: now, Secret: secret,
	}
}

// WebhookPatch is the body of PATCH /workspaceapi/webhooks/{webhookId}.
type WebhookPatch struct {
	URL         *string  `json:"url"`
	EventTypes  []string `json:"eventTypes"`
	Description *string  `json:"description"`
	Thresholds  *[]int   `json:"thresholds"`
	Disabled    *bool    `json:"disabled"`
}

// WebhookChange is a checked WebhookPatch: nil where unchanged.
type WebhookChange struct {
	URL         *string
	EventTypes  []string
	Description *string
	Thresholds  []int
	Disabled    *bool
}

// Check returns the change asked for, or a KindInvalid error when it names
// no field or a field breaks the rules of WebhookRequest.Check.
func (p WebhookPatch) Check(local bool) (WebhookChange, error) {
	if p.URL == nil && p.EventTypes == nil && p.Description == nil && p.Thresholds == nil && p.Disabled == nil {
		return WebhookChange{}, Invalid("give url, eventTypes, description, thresholds and/or disabled")
	}
	ch := WebhookChange{Disabled: p.Disabled}
	var err error
	if p.URL != nil {
		u, err := CheckWebhookURL(*p.URL, local)
		if err != nil {
			return WebhookChange{}, err
		}
		ch.URL = &u
	}
	if p.EventTypes != nil {
		if ch.EventTypes, err = webhookEventTypes(p.EventTypes); err != nil {
			return WebhookChange{}, err
		}
	}
	if p.Description != nil {
		d, err := webhookDescription(*p.Description)
		if err != nil {
			return WebhookChange{}, err
		}
		ch.Description = &d
	}
	if p.Thresholds != nil {
		if ch.Thresholds, err = webhookThresholds(*p.Thresholds); err != nil {
			return WebhookChange{}, err
		}
	}
	return ch, nil
}

// Apply returns h with ch applied and the webhook.updated entry of what
// changed (by, at at); ok is false when ch changes nothing.
func (ch WebhookChange) Apply(h Webhook, at time.Time, by Actor) (after Webhook, e AuditEntry, ok bool) {
	after = h
	changes := Changes{}
	if ch.URL != nil && *ch.URL != h.URL {
		changes["url"], after.URL = Change{From: h.URL, To: *ch.URL}, *ch.URL
	}
	if ch.EventTypes != nil && !slices.Equal(ch.EventTypes, h.EventTypes) {
		changes["eventTypes"], after.EventTypes = Change{From: anyList(h.EventTypes), To: anyList(ch.EventTypes)}, ch.EventTypes
	}
	if ch.Description != nil && *ch.Description != h.Description {
		changes["description"], after.Description = Change{From: h.Description, To: *ch.Description}, *ch.Description
	}
	if ch.Thresholds != nil && !slices.Equal(ch.Thresholds, h.Thresholds) {
		changes["thresholds"], after.Thresholds = Change{From: anyList(h.Thresholds), To: anyList(ch.Thresholds)}, ch.Thresholds
	}
	if ch.Disabled != nil && *ch.Disabled != h.Disabled {
		changes["disabled"], after.Disabled = Change{From: h.Disabled, To: *ch.Disabled}, *ch.Disabled
	}
	if len(changes) == 0 {
		return h, AuditEntry{}, false
	}
	return after, NewAuditEntry(at, by, ActionWebhookUpdated, AuditTarget{Type: TargetWebhook, ID: h.ID}, changes), true
}

// Rotated returns h with secret as its secret and the current one kept as
// the previous, signing beside it until now + SecretOverlap.
func (h Webhook) Rotated(secret string, now time.Time) Webhook {
	exp := now.Add(SecretOverlap)
	h.PreviousSecret, h.PreviousExpiresAt, h.Secret = h.Secret, &exp, secret
	return h
}

// CreatedEntry is the webhook.created entry of h: its url, event types,
// description and thresholds, each from null. Never its secret.
func (h Webhook) CreatedEntry(at time.Time, by Actor) AuditEntry {
	return NewAuditEntry(at, by, ActionWebhookCreated, AuditTarget{Type: TargetWebhook, ID: h.ID}, Changes{
		"url":         {From: nil, To: h.URL},
		"eventTypes":  {From: nil, To: anyList(h.EventTypes)},
		"description": {From: nil, To: h.Description},
		"thresholds":  {From: nil, To: anyList(h.Thresholds)},
	})
}

// SecretRotatedEntry is the webhook.updated entry of a rotation: the secret
// changed (never its value).
func (h Webhook) SecretRotatedEntry(at time.Time, by Actor) AuditEntry {
	return NewAuditEntry(at, by, ActionWebhookUpdated, AuditTarget{Type: TargetWebhook, ID: h.ID},
		Changes{"secretRotated": {From: false, To: true}})
}

// WebhookDeletedEntry is the webhook.deleted entry of subscription id.
func WebhookDeletedEntry(at time.Time, by Actor, id string) AuditEntry {
	return NewAuditEntry(at, by, ActionWebhookDeleted, AuditTarget{Type: TargetWebhook, ID: id},
		Changes{"deleted": {From: false, To: true}})
}

// Disable is h disabled by the delivery function at at, after its
// deliveries failed for RetryDelays' total: its webhook.disabled entry and
// its Webhook Disabled event (the store gives the event its id). ok is
// false when h is disabled already.
func (h Webhook) Disable(at time.Time) (after Webhook, e AuditEntry, ev LimitEvent, ok bool) {
	if h.Disabled {
		return h, AuditEntry{}, LimitEvent{}, false
	}
	after = h
	after.Disabled = true
	e = NewAuditEntry(at, SystemActor(SystemWebhooks), ActionWebhookDisabled, AuditTarget{Type: TargetWebhook, ID: h.ID},
		Changes{"disabled": {From: false, To: true}})
	ev = LimitEvent{WorkspaceID: h.WorkspaceID, DetailType: EventWebhookDisabled,
		Target: EventTarget{Type: TargetWebhook, ID: h.ID}, Reason: "delivery_failed", At: at}
	return after, e, ev, true
}

// WebhookThresholdsUnion is the union of hooks' thresholds, sorted: what the
// workspace item keeps so the credit engine knows which shares to mark.
func WebhookThresholdsUnion(hooks []Webhook) []int {
	var out []int
	for _, h := range hooks {
		out = append(out, h.Thresholds...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ThresholdsOf are the shares of a limit, in percent, whose crossing the
// credit engine must publish for w: the defaults (Thresholds) plus those of
// its webhook subscriptions, sorted, without repeats.
func ThresholdsOf(w Workspace) []int {
	out := append(slices.Clone(Thresholds), w.WebhookThresholds...)
	slices.Sort(out)
	return slices.Compact(out)
}

// Delivery is one attempt to deliver an event to a subscription, as its
// deliveries log lists it. Status is the receiver's HTTP status (nil when
// none came), Error what went wrong (nil on success).
type Delivery struct {
	ID          string
	WebhookID   string
	EventID     string
	EventType   string
	Attempt     int
	AttemptedAt time.Time
	Status      *int
	Error       *string
}

// Succeeded reports whether the attempt was answered 2xx.
func (d Delivery) Succeeded() bool { return d.Error == nil && d.Status != nil && *d.Status/100 == 2 }

// CheckWebhookURL returns raw when it is an absolute https URL with a host,
// no user information and no fragment, at most MaxWebhookURLLength bytes,
// whose host, when an IP address, is public (PublicAddress); when local,
// an http URL to a loopback host (127.0.0.0/8, ::1, localhost) also passes.
// A host name's addresses are checked where it is resolved (the handler at
// creation, the delivery at every connection).
func CheckWebhookURL(raw string, local bool) (string, error) {
	const rule = "url must be an absolute https URL to a public host"
	if len(raw) > MaxWebhookURLLength {
		return "", Invalid("url must be at most %d bytes", MaxWebhookURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return "", Invalid(rule)
	}
	host := u.Hostname()
	if ContainsKey(raw) {
		return "", Invalid("url looks like it holds an API key; keys go only in the Authorization header")
	}
	loopback := local && LoopbackHost(host)
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback:
	default:
		return "", Invalid(rule)
	}
	if ip, err := netip.ParseAddr(host); err == nil && !loopback && !PublicAddress(ip) {
		return "", Invalid(rule)
	}
	return raw, nil
}

// LoopbackHost reports whether host is localhost or a loopback address.
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// PublicAddress reports whether ip may be connected to in AWS: not
// loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
// (169.254/16 with the metadata service, fe80::/10), multicast,
// unspecified, CGNAT (100.64/10) or an IPv4-mapped form of those.
func PublicAddress(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// nonPublic are ranges the standard library does not class but that never
// reach the internet: CGNAT, "this network", IETF protocol assignments,
// documentation, benchmarking, reserved, and NAT64.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"), netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("2001:db8::/32"),
}

func webhookEventTypes(raw []string) ([]string, error) {
	if len(raw) < 1 || len(raw) > len(WebhookEventTypes) {
		return nil, Invalid("eventTypes must hold 1 to %d event types", len(WebhookEventTypes))
	}
	out := make([]string, 0, len(raw))
	for i, t := range raw {
		if !slices.Contains(WebhookEventTypes, t) {
			return nil, Invalid("eventTypes[%d] must be one of: %s", i, strings.Join(WebhookEventTypes, ", "))
		}
		if slices.Contains(out, t) {
			return nil, Invalid("eventTypes[%d] repeats an event type", i)
		}
		out = append(out, t)
	}
	return out, nil
}

func webhookDescription(raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", nil
	}
	return DisplayText("description", raw, MaxWebhookDescriptionLength)
}

func webhookThresholds(raw []int) ([]int, error) {
	if len(raw) < 1 || len(raw) > MaxWebhookThresholds {
		return nil, Invalid("thresholds must hold 1 to %d percents", MaxWebhookThresholds)
	}
	out := slices.Clone(raw)
	for i, p := range out {
		if p < 1 || p > 100 {
			return nil, Invalid("thresholds[%d] must be a whole percent from 1 to 100", i)
		}
	}
	slices.Sort(out)
	if len(slices.Compact(slices.Clone(out))) != len(out) {
		return nil, Invalid("thresholds must not repeat a percent")
	}
	return out, nil
}

func anyList[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
