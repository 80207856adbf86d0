import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { signWebhook, verifyWebhook, WebhookError } from "../src/index.js";

// The Standard Webhooks specification's published example.
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const timestamp = 1614265330;
const body = '{"test": 2432232314}';
const signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
const now = new Date(timestamp * 1000);
const headers = (sigs: string, msgId = id, ts = String(timestamp)) => ({
  "webhook-id": msgId,
  "webhook-timestamp": ts,
  "webhook-signature": sigs,
});

test("the Standard Webhooks example verifies", () => {
  verifyWebhook(secret, headers(signature), body, { now });
  verifyWebhook(secret, new Headers(headers(signature)), Buffer.from(body), { now });
  assert.equal(signWebhook(secret, id, timestamp, body), signature);
});

test("signatures agree with openssl", () => {
  // openssl is an implementation independent of node:crypto's HMAC code path.
  const s = "whsec_c2VjcmV0LWtleS1mb3ItdGhlLXdvcmtzcGFjZS1hcGktd2ViaG9va3M=";
  const msg = '{"type":"agent.limit_reached","agentId":"agt_onboarding","credits":6}';
  const hexKey = Buffer.from(s.slice(6), "base64").toString("hex");
  const mac = execFileSync("openssl", ["dgst", "-sha256", "-mac", "HMAC", "-macopt", `hexkey:${hexKey}`, "-binary"], {
    input: `msg_1.1764288000.${msg}`,
  });
  const want = `v1,${mac.toString("base64")}`;
  assert.equal(signWebhook(s, "msg_1", 1764288000, msg), want);
  verifyWebhook(s, headers(want, "msg_1", "1764288000"), msg, { now: new Date(1764288000 * 1000) });
});

test("any of several signatures may match", () => {
  verifyWebhook(secret, headers(`v1,bm90IHRoZSByaWdodCBvbmU= v1a,ignored ${signature}`), body, { now });
});

test("a webhook is refused", () => {
  const cases: [string, () => void, WebhookError["reason"]][] = [
    ["body changed", () => verifyWebhook(secret, headers(signature), '{"test": 2432232315}', { now }), "signature"],
    ["id changed", () => verifyWebhook(secret, headers(signature, "msg_other"), body, { now }), "signature"],
    ["another secret", () => verifyWebhook("whsec_b3RoZXItc2VjcmV0", headers(signature), body, { now }), "signature"],
    ["only another scheme", () => verifyWebhook(secret, headers(signature.replace("v1,", "v2,")), body, { now }), "signature"],
    ["too old", () => verifyWebhook(secret, headers(signature), body, { now: new Date((timestamp + 301) * 1000) }), "timestamp"],
    ["too far ahead", () => verifyWebhook(secret, headers(signature), body, { now: new Date((timestamp - 301) * 1000) }), "timestamp"],
    ["no signature", () => verifyWebhook(secret, headers(""), body, { now }), "headers"],
    ["timestamp not a number", () => verifyWebhook(secret, headers(signature, id, "soon"), body, { now }), "headers"],
    ["secret without whsec_", () => verifyWebhook(secret.slice(6), headers(signature), body, { now }), "secret"],
    ["secret not base64", () => verifyWebhook("whsec_not base64!", headers(signature), body, { now }), "secret"],
  ];
  for (const [name, run, reason] of cases) {
    assert.throws(run, (e: unknown) => e instanceof WebhookError && e.reason === reason, name);
  }
});
