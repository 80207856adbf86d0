// Standard Webhooks signature verification (webhook-id, webhook-timestamp,
// webhook-signature), with node:crypto.
import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a webhook's timestamp may be from now, either way (Standard Webhooks' five minutes). */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** Why a webhook was refused. */
export class WebhookError extends Error {
  readonly reason: "secret" | "headers" | "timestamp" | "signature";

  constructor(reason: WebhookError["reason"], message: string) {
    super(message);
    this.name = "WebhookError";
    this.reason = reason;
  }
}

function key(secret: string): Buffer {
  if (!secret.startsWith("whsec_")) throw new WebhookError("secret", "webhook secret is not whsec_<base64>");
  const b64 = secret.slice("whsec_".length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    throw new WebhookError("secret", "webhook secret is not whsec_<base64>");
  }
  return Buffer.from(b64, "base64");
}

function sign(k: Buffer, id: string, timestamp: number, body: string | Uint8Array): string {
  return createHmac("sha256", k).update(`${id}.${timestamp}.`).update(body).digest("base64");
}

/** The webhook-signature of a message, "v1,<base64>", as a sender computes it: for tests of a receiver. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  return `v1,${sign(key(secret), id, timestamp, body)}`;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(h: HeaderSource, name: string): string | undefined {
  if (h instanceof Headers) return h.get(name) ?? undefined;
  for (const [k, v] of Object.entries(h)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(" ") : v;
  }
  return undefined;
}

/**
 * Checks a Standard Webhooks delivery and throws a WebhookError when it fails:
 * webhook-signature (one or more space-separated "v1,<base64>") must hold the
 * base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>", keyed with
 * the base64-decoded part of secret (whsec_<base64>), and webhook-timestamp
 * (Unix seconds) must lie within toleranceSeconds of now, either way. body is
 * the raw request body, before any JSON parsing.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  body: string | Uint8Array,
  options: { now?: Date; toleranceSeconds?: number } = {},
): void {
  const k = key(secret);
  const id = header(headers, "webhook-id");
  const ts = header(headers, "webhook-timestamp");
  const sigs = header(headers, "webhook-signature");
  if (!id || !ts || !sigs || !/^\d+$/.test(ts)) {
    throw new WebhookError("headers", "webhook headers missing or malformed");
  }
  const timestamp = Number(ts);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookError("timestamp", "webhook timestamp outside the tolerance");
  }
  const want = Buffer.from(sign(k, id, timestamp, body));
  for (const sig of sigs.split(" ")) {
    const comma = sig.indexOf(",");
    if (comma < 0 || sig.slice(0, comma) !== "v1") continue; // another scheme: not ours to check
    const got = Buffer.from(sig.slice(comma + 1));
    if (got.length === want.length && timingSafeEqual(got, want)) return;
  }
  throw new WebhookError("signature", "no matching webhook signature");
}
