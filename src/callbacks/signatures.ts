/**
 * Signature checks of upstream callbacks, one function per provider scheme (issue 13 §4). Each takes the exact
 * bytes received, the request's headers and the subscription's secret, and says whether the upstream signed them.
 * A provider that signs its callbacks adds its function here and has src/callbacks/lifecycle.ts call it (the Port of
 * Virginia, issue 14, signs nothing: its callback URL carries a random token instead).
 */
import { fromBase64 } from "./secrets";

/** Why a callback's signature is not accepted, or `ok`. */
export type SignatureVerdict =
  | { ok: true }
  | { ok: false; reason: "missing_signature" | "malformed_signature" | "unsupported_signature" | "bad_signature" };

const encoder = new TextEncoder();

/** Lowercase hex of bytes. */
function hex(bytes: ArrayBuffer): string {
  let out = "";
  for (const b of new Uint8Array(bytes)) out += b.toString(16).padStart(2, "0");
  return out;
}

/** Equality of two strings in time independent of where they differ (both are hex digests of one length). */
function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** HMAC-SHA256 of `body` under `key`, lowercase hex. */
export async function hmacSha256Hex(key: Uint8Array, body: Uint8Array): Promise<string> {
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(await crypto.subtle.sign("HMAC", cryptoKey, body));
}

/**
 * The DCSA Track & Trace 2.2 callback signature (TNT_v2.2.0-resolved.yaml, callback parameter
 * `Notification-Signature`): `Notification-Signature: <signature-type>=<signature>`, pattern
 * `\s*([a-zA-Z0-9-_+]+=[0-9a-fA-F]+)\s*`, only type `sha256` defined; the signature covers the entire request body
 * as received (whitespace and newlines included), no header and not the URL.
 *
 * Assumed where the spec is silent (written down per issue 13): `sha256` means HMAC-SHA256 keyed with the
 * subscription's `secret` — the secret is "used to compute the contents of the Notification-Signature header" and is
 * declared `format: byte` (base64), so the key is the base64-DECODED bytes, as DCSA's reference implementation
 * (DCSA-Event-Core `MessageSignatureHandler`, `byte[]` key) does; the hex digest is compared case-insensitively.
 * Exactly one header value is accepted (a comma-joined repeat is malformed). The deprecated `Signature` header is
 * ignored.
 */
export async function verifyDcsaNotificationSignature(
  body: Uint8Array,
  headers: Headers,
  secretBase64: string,
): Promise<SignatureVerdict> {
  const header = headers.get("Notification-Signature");
  if (header === null || header.trim() === "") return { ok: false, reason: "missing_signature" };
  const match = /^\s*([a-zA-Z0-9_+-]+)=([0-9a-fA-F]+)\s*$/.exec(header);
  if (!match) return { ok: false, reason: "malformed_signature" };
  const [, type = "", signature = ""] = match;
  if (type.toLowerCase() !== "sha256") return { ok: false, reason: "unsupported_signature" };
  const key = fromBase64(secretBase64);
  if (!key || key.length === 0) return { ok: false, reason: "bad_signature" };
  const expected = await hmacSha256Hex(key, body);
  return constantTimeEqual(expected, signature.toLowerCase()) ? { ok: true } : { ok: false, reason: "bad_signature" };
}
