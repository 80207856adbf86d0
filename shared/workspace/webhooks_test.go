package workspace

import (
	"encoding/base64"
	"encoding/hex"
	"net/netip"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestThresholdsOfAreTheDefaultsAndTheWebhooksUnion(t *testing.T) {
	for _, tc := range []struct {
		union, want []int
	}{
		{nil, []int{80, 100}},
		{[]int{50, 80}, []int{50, 80, 100}},
		{[]int{1, 25, 100}, []int{1, 25, 80, 100}},
	} {
		if got := ThresholdsOf(Workspace{WebhookThresholds: tc.union}); !slices.Equal(got, tc.want) {
			t.Errorf("ThresholdsOf(union %v) = %v, want %v", tc.union, got, tc.want)
		}
	}
	if got := WebhookThresholdsUnion([]Webhook{{Thresholds: []int{90, 50}}, {Thresholds: []int{50, 10}}}); !slices.Equal(got, []int{10, 50, 90}) {
		t.Errorf("WebhookThresholdsUnion = %v, want [10 50 90]", got)
	}
}

// TestSignatureMatchesOpenSSL checks SignWebhook against an independent
// HMAC-SHA256: openssl's, keyed by the secret's decoded bytes.
func TestSignatureMatchesOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Fatal("openssl is not installed: the signature is checked against it, an implementation apart (.ci/run installs it)")
	}
	secret, err := NewWebhookSecret()
	if err != nil {
		t.Fatal(err)
	}
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, WebhookSecretPrefix))
	body := []byte(`{"type":"Agent Stopped","timestamp":"2026-11-28T00:00:00Z","data":{"eventId":"evt_1"}}`)
	out, err := exec.Command("sh", "-c", `printf '%s' "$0" | openssl dgst -sha256 -mac HMAC -macopt hexkey:"$1" -binary | base64`,
		"evt_1.1764288000."+string(body), hex.EncodeToString(key)).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "v1," + strings.TrimSpace(string(out))
	if got := SignWebhook([]string{secret}, "evt_1", 1764288000, body); got != want {
		t.Errorf("SignWebhook = %q, openssl says %q", got, want)
	}
}

// TestSignatureMatchesTheStandardWebhooksVector is the Standard Webhooks
// specification's published example.
func TestSignatureMatchesTheStandardWebhooksVector(t *testing.T) {
	got := SignWebhook([]string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
		[]byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("SignWebhook = %q, want %q", got, want)
	}
}

func TestRotationSignsWithBothSecretsForADay(t *testing.T) {
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	h := Webhook{Secret: "whsec_b2xk"}.Rotated("whsec_bmV3", now)
	if got := h.ActiveSecrets(now.Add(time.Hour)); !slices.Equal(got, []string{"whsec_bmV3", "whsec_b2xk"}) {
		t.Errorf("an hour in: %v", got)
	}
	if sig := SignWebhook(h.ActiveSecrets(now), "id", 1, nil); strings.Count(sig, "v1,") != 2 || !strings.Contains(sig, " ") {
		t.Errorf("signature during the overlap %q, want two space-separated", sig)
	}
	if got := h.ActiveSecrets(now.Add(SecretOverlap)); !slices.Equal(got, []string{"whsec_bmV3"}) {
		t.Errorf("a day in: %v", got)
	}
}

func TestOnlyPublicAddressesPass(t *testing.T) {
	for _, a := range []string{"10.1.2.3", "127.0.0.1", "169.254.169.254", "172.16.0.1", "192.168.1.1", "100.64.0.1",
		"0.0.0.0", "224.0.0.1", "::1", "fe80::1", "fd00::1", "::ffff:10.0.0.1", "::"} {
		if PublicAddress(netip.MustParseAddr(a)) {
			t.Errorf("%s passed as public", a)
		}
	}
	for _, a := range []string{"93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"} {
		if !PublicAddress(netip.MustParseAddr(a)) {
			t.Errorf("%s refused", a)
		}
	}
	if _, err := CheckWebhookURL("http://127.0.0.1:9000/hook", true); err != nil {
		t.Errorf("local loopback http refused: %v", err)
	}
	if _, err := CheckWebhookURL("http://127.0.0.1:9000/hook", false); err == nil {
		t.Error("loopback http passed outside local mode")
	}
}
