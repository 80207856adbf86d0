package workspaceapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWebhookTolerance is how far a webhook's timestamp may be from now,
// either way, for VerifyWebhook to accept it (Standard Webhooks' five minutes).
const DefaultWebhookTolerance = 5 * time.Minute

// Webhook verification errors, for errors.Is.
var (
	// ErrWebhookSecret: the secret is not whsec_<base64>.
	ErrWebhookSecret = errors.New("workspaceapi: webhook secret is not whsec_<base64>")
	// ErrWebhookHeaders: webhook-id, webhook-timestamp or webhook-signature is missing or malformed.
	ErrWebhookHeaders = errors.New("workspaceapi: webhook headers missing or malformed")
	// ErrWebhookTimestamp: the timestamp is further from now than the tolerance.
	ErrWebhookTimestamp = errors.New("workspaceapi: webhook timestamp outside the tolerance")
	// ErrWebhookSignature: no v1 signature of the header matches the body.
	ErrWebhookSignature = errors.New("workspaceapi: no matching webhook signature")
)

// VerifyWebhook checks a Standard Webhooks delivery: its webhook-signature
// header (one or more space-separated "v1,<base64>") must hold the base64
// HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>", keyed with the
// base64-decoded part of secret (whsec_<base64>), and its webhook-timestamp
// (Unix seconds) must lie within tolerance of now, either way. body is the
// request's body exactly as received, before any JSON decoding. Pass
// time.Now() as now and DefaultWebhookTolerance unless you have reasons.
func VerifyWebhook(secret string, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	key, err := webhookKey(secret)
	if err != nil {
		return err
	}
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrWebhookHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrWebhookHeaders
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrWebhookTimestamp
	}
	want := sign(key, id, sec, body)
	for sig := range strings.FieldsSeq(sigs) {
		version, value, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue // another scheme (v1a, a future one): not ours to check
		}
		if hmac.Equal([]byte(value), []byte(want)) {
			return nil
		}
	}
	return ErrWebhookSignature
}

// SignWebhook is the webhook-signature of a message, "v1,<base64>", as a
// sender computes it (VerifyWebhook checks it): for tests of a receiver.
func SignWebhook(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := webhookKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + sign(key, id, timestamp, body), nil
}

// sign is the base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed with key.
func sign(key []byte, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// webhookKey decodes a whsec_ secret into the HMAC key.
func webhookKey(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, ErrWebhookSecret
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(key) == 0 {
		return nil, ErrWebhookSecret
	}
	return key, nil
}
