/**
 * Signing of webhook deliveries (docs/decisions.md §Webhooks "Signature headers"). WebCrypto only, no I/O.
 *
 * Every delivery carries two independent signatures of the exact body bytes:
 * - `X-SVC-Webhook-Signature`: lowercase hex HMAC-SHA256 of the raw body, key = the secret string's UTF-8 bytes
 *   (the reference service's scheme, docs/webhooks.md §Signatures, under our header name);
 * - Standard Webhooks (standardwebhooks.com): `webhook-id` (the notification id), `webhook-timestamp` (Unix seconds
 *   of the attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the
 *   base64-decoded part of the secret after `whsec_`, so the `standardwebhooks` libraries verify deliveries and
 *   receivers get replay protection (they reject timestamps more than 5 minutes off).
 * During a secret rotation's grace period (`POST /webhooks/{id}/rotate_secret`), `webhook-signature` carries one
 * `v1,` signature per valid secret, space-separated, the current secret's first (the Standard Webhooks format for
 * key rotation); `X-SVC-Webhook-Signature` holds one value and uses the current secret only.
 */

/** Header with the plain hex HMAC of the body (docs/decisions.md §Webhooks). */
export const PLAIN_SIGNATURE_HEADER = "X-SVC-Webhook-Signature";
/** Standard Webhooks message id header: the notification id, the same on every retry. */
export const WEBHOOK_ID_HEADER = "webhook-id";
/** Standard Webhooks timestamp header: Unix seconds of the attempt. */
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
/** Standard Webhooks signature header: `v1,<base64>`, several space-separated during a secret rotation. */
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";
/** `User-Agent` of every delivery (docs/decisions.md §Webhooks). */
export const WEBHOOK_USER_AGENT = "ContainerTrackingService-Webhook/1";
/** Prefix of generated secrets (`whsec_` + base64 of 32 random bytes, docs/decisions.md §Webhooks). */
export const SECRET_PREFIX = "whsec_";

/**
 * Header names a webhook's custom headers can never set: the signature and Standard Webhooks headers, the body's
 * media type and length, and the hop-level headers fetch manages itself. Lower case.
 */
export const RESERVED_HEADER_NAMES: ReadonlySet<string> = new Set([
  PLAIN_SIGNATURE_HEADER.toLowerCase(),
  WEBHOOK_ID_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  "content-type",
  "content-length",
  "user-agent",
  "host",
  "connection",
  "transfer-encoding",
]);

const encoder = new TextEncoder();

async function hmacSha256(key: Uint8Array, message: string): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(message)));
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * `X-SVC-Webhook-Signature`: lowercase hex HMAC-SHA256 of `body`, key = UTF-8 bytes of `secret`
 * (docs/decisions.md §Webhooks; docs/webhooks.md §Signatures). Node receivers check it with
 * `createHmac("sha256", secret).update(rawBody).digest("hex")` and a constant-time compare.
 */
export async function plainSignature(secret: string, body: string): Promise<string> {
  return toHex(await hmacSha256(encoder.encode(secret), body));
}

/**
 * The Standard Webhooks key of a secret: the base64-decoded part after `whsec_`. A secret of another form (only
 * possible through `POST /webhooks/trigger`, whose caller picks any string) is used as its UTF-8 bytes, which is
 * what `new Webhook(secret, { format: "raw" })` of the `standardwebhooks` library expects for ASCII secrets.
 */
export function standardWebhooksKey(secret: string): Uint8Array {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : null;
  if (encoded && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && encoded.length % 4 === 0) {
    try {
      const binary = atob(encoded);
      if (binary.length > 0) return Uint8Array.from(binary, (c) => c.charCodeAt(0));
    } catch {
      // Not base64 after all: fall through to the raw bytes.
    }
  }
  return encoder.encode(secret);
}

/**
 * `webhook-signature` of Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `${id}.${timestampSeconds}.${body}`,
 * keyed by {@link standardWebhooksKey}.
 * @param timestampSeconds Unix seconds (the value of `webhook-timestamp`).
 */
export async function standardWebhooksSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  const mac = await hmacSha256(standardWebhooksKey(secret), `${id}.${timestampSeconds}.${body}`);
  return `v1,${toBase64(mac)}`;
}

/** What a delivery is signed with. */
export interface SigningInput {
  /** The webhook's secret; null sends the delivery unsigned (only `POST /webhooks/trigger` without a secret). */
  secret: string | null;
  /**
   * Secrets replaced by a rotation whose grace period has not ended: each adds a `v1,` signature to
   * `webhook-signature` after the current secret's (none by default). Ignored without `secret`.
   */
  previousSecrets?: readonly string[];
  /** The notification id: `webhook-id`, unchanged across retries. */
  notificationId: string;
  /** The exact body bytes sent (a JSON string). */
  body: string;
  /** Time of the attempt (ms since the epoch); `webhook-timestamp` is its whole seconds. */
  nowMs: number;
  /**
   * The webhook's custom headers (docs/webhooks.md §Webhook resource `headers`), sent as given except for reserved
   * names.
   */
  customHeaders?: readonly { name: string; value: string }[];
}

/**
 * All headers of one delivery, as `[name, value]` pairs in sending order (docs/decisions.md §Webhooks):
 * `Content-Type: application/json`, `User-Agent`, `webhook-id`, `webhook-timestamp`, then (with a secret)
 * `webhook-signature` (the current secret's signature, then one per `previousSecrets`, space-separated) and
 * `X-SVC-Webhook-Signature` (current secret only), then the webhook's custom headers, names as stored. A custom
 * header whose name is reserved ({@link RESERVED_HEADER_NAMES}) or is not a valid header name/value is skipped, so
 * it can never replace a signature.
 */
export async function deliveryHeaders(input: SigningInput): Promise<[string, string][]> {
  const timestamp = Math.floor(input.nowMs / 1000);
  const headers: [string, string][] = [
    ["Content-Type", "application/json"],
    ["User-Agent", WEBHOOK_USER_AGENT],
    [WEBHOOK_ID_HEADER, input.notificationId],
    [WEBHOOK_TIMESTAMP_HEADER, String(timestamp)],
  ];
  if (input.secret !== null && input.secret !== "") {
    const secrets = [input.secret, ...(input.previousSecrets ?? []).filter((p) => p !== "" && p !== input.secret)];
    const signatures = await Promise.all(
      secrets.map((secret) => standardWebhooksSignature(secret, input.notificationId, timestamp, input.body)),
    );
    headers.push([WEBHOOK_SIGNATURE_HEADER, signatures.join(" ")]);
    headers.push([PLAIN_SIGNATURE_HEADER, await plainSignature(input.secret, input.body)]);
  }
  for (const h of input.customHeaders ?? []) {
    if (RESERVED_HEADER_NAMES.has(h.name.toLowerCase())) continue;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h.name) || /[\r\n\0]/.test(h.value)) continue;
    headers.push([h.name, h.value]);
  }
  return headers;
}
