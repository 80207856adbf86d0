package workspaceapi

import (
	"errors"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Standard Webhooks specification's published example, which its
// reference libraries test against.
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func webhookHeader(id string, ts int64, sigs string) http.Header {
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	h.Set("webhook-signature", sigs)
	return h
}

func TestTheStandardWebhooksExampleVerifies(t *testing.T) {
	now := time.Unix(vectorTimestamp, 0)
	h := webhookHeader(vectorID, vectorTimestamp, vectorSignature)
	if err := VerifyWebhook(vectorSecret, h, []byte(vectorBody), now, DefaultWebhookTolerance); err != nil {
		t.Fatalf("the specification's example: %v", err)
	}
	got, err := SignWebhook(vectorSecret, vectorID, vectorTimestamp, []byte(vectorBody))
	if err != nil || got != vectorSignature {
		t.Fatalf("SignWebhook = %q, %v; the specification says %q", got, err, vectorSignature)
	}
}

// openSSLSignature computes the signature with openssl, an implementation
// independent of Go's crypto: the key is the secret's decoded base64 part,
// given to openssl in hexadecimal.
func openSSLSignature(t *testing.T, secret, id string, ts int64, body string) string {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is needed for this test (Debian package openssl)")
	}
	script := `key=$(printf %s "$1" | base64 -d | od -An -tx1 | tr -d ' \n')
printf %s "$2" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -binary | base64`
	signed := id + "." + strconv.FormatInt(ts, 10) + "." + body
	out, err := exec.Command("sh", "-c", script, "sh", strings.TrimPrefix(secret, "whsec_"), signed).Output()
	if err != nil {
		t.Fatalf("openssl: %v", err)
	}
	return "v1," + strings.TrimSpace(string(out))
}

func TestSignaturesAgreeWithOpenSSL(t *testing.T) {
	secret := "whsec_" + "c2VjcmV0LWtleS1mb3ItdGhlLXdvcmtzcGFjZS1hcGktd2ViaG9va3M="
	body := `{"type":"agent.limit_reached","agentId":"agt_onboarding","credits":6}`
	ts := int64(1764288000)
	want := openSSLSignature(t, secret, "msg_1", ts, body)
	got, err := SignWebhook(secret, "msg_1", ts, []byte(body))
	if err != nil || got != want {
		t.Fatalf("SignWebhook = %q, %v; openssl says %q", got, err, want)
	}
	if vec := openSSLSignature(t, vectorSecret, vectorID, vectorTimestamp, vectorBody); vec != vectorSignature {
		t.Fatalf("openssl on the specification's example = %q, want %q", vec, vectorSignature)
	}
	if err := VerifyWebhook(secret, webhookHeader("msg_1", ts, want), []byte(body), time.Unix(ts, 0), DefaultWebhookTolerance); err != nil {
		t.Fatalf("openssl's signature does not verify: %v", err)
	}
}

func TestAnyOfSeveralSignaturesMayMatch(t *testing.T) {
	now := time.Unix(vectorTimestamp, 0)
	// A secret being rotated: the sender signs with the old and the new key.
	sigs := "v1,bm90IHRoZSByaWdodCBvbmU= v1a,ignored " + vectorSignature
	if err := VerifyWebhook(vectorSecret, webhookHeader(vectorID, vectorTimestamp, sigs), []byte(vectorBody), now, DefaultWebhookTolerance); err != nil {
		t.Fatalf("one matching signature among several: %v", err)
	}
}

func TestAWebhookIsRefused(t *testing.T) {
	now := time.Unix(vectorTimestamp, 0)
	body := []byte(vectorBody)
	for _, c := range []struct {
		name   string
		secret string
		header http.Header
		body   []byte
		now    time.Time
		want   error
	}{
		{"body changed", vectorSecret, webhookHeader(vectorID, vectorTimestamp, vectorSignature), []byte(`{"test": 2432232315}`), now, ErrWebhookSignature},
		{"id changed", vectorSecret, webhookHeader("msg_other", vectorTimestamp, vectorSignature), body, now, ErrWebhookSignature},
		{"another secret", "whsec_" + "b3RoZXItc2VjcmV0", webhookHeader(vectorID, vectorTimestamp, vectorSignature), body, now, ErrWebhookSignature},
		{"only another scheme", vectorSecret, webhookHeader(vectorID, vectorTimestamp, "v2,"+strings.TrimPrefix(vectorSignature, "v1,")), body, now, ErrWebhookSignature},
		{"too old", vectorSecret, webhookHeader(vectorID, vectorTimestamp, vectorSignature), body, now.Add(DefaultWebhookTolerance + time.Second), ErrWebhookTimestamp},
		{"too far ahead", vectorSecret, webhookHeader(vectorID, vectorTimestamp, vectorSignature), body, now.Add(-DefaultWebhookTolerance - time.Second), ErrWebhookTimestamp},
		{"no signature", vectorSecret, webhookHeader(vectorID, vectorTimestamp, ""), body, now, ErrWebhookHeaders},
		{"timestamp not a number", vectorSecret, http.Header{"Webhook-Id": {vectorID}, "Webhook-Timestamp": {"soon"}, "Webhook-Signature": {vectorSignature}}, body, now, ErrWebhookHeaders},
		{"secret without whsec_", strings.TrimPrefix(vectorSecret, "whsec_"), webhookHeader(vectorID, vectorTimestamp, vectorSignature), body, now, ErrWebhookSecret},
		{"secret not base64", "whsec_not base64!", webhookHeader(vectorID, vectorTimestamp, vectorSignature), body, now, ErrWebhookSecret},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := VerifyWebhook(c.secret, c.header, c.body, c.now, DefaultWebhookTolerance); !errors.Is(err, c.want) {
				t.Fatalf("VerifyWebhook = %v, want %v", err, c.want)
			}
		})
	}
}
