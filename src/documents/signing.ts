import { toHex } from "../lib/crypto";

/**
 * Signed tokens of the document upload flow (docs/api.md §Documents; docs/configuration.md §Documents): the blob's
 * `signed_id`, the short-lived upload URL of `direct_upload.url` and the short-lived download URL. Each is
 * `<base64url of the payload>--<hex HMAC-SHA256 of purpose + payload>`, keyed with the Worker secret
 * `DOCUMENT_SIGNING_KEY`. The purpose is part of what is signed, so a token minted for one use (a download) is never
 * accepted for another (an upload). WebCrypto only, no I/O; verification is constant-time (`crypto.subtle.verify`).
 */

/** What a token is for; signed with the payload. */
export type TokenPurpose = "blob" | "upload" | "download";

/** The fields a token carries: the resource id, its account, and (for URLs) when it stops working. */
export interface TokenPayload {
  /** Blob id (`blob`, `upload`) or document id (`download`). */
  id: string;
  accountId: string;
  /** Unix seconds after which the token is refused; absent for a `signed_id`, which does not expire. */
  expiresAt?: number;
}

const encoder = new TextEncoder();

/** The signing key from the secret; throws a clear configuration error when it is missing or short. */
async function keyFor(secret: string | undefined, usage: "sign" | "verify"): Promise<CryptoKey> {
  if (!secret || secret.length < 32) {
    throw new Error("DOCUMENT_SIGNING_KEY is not set (at least 32 characters; docs/configuration.md §Documents)");
  }
  return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

function base64url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): string | null {
  try {
    return atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    return null;
  }
}

function fromHex(hex: string): Uint8Array | null {
  if (!/^[0-9a-f]{64}$/.test(hex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** A token for `payload` and `purpose`, signed with `secret` (the Worker secret `DOCUMENT_SIGNING_KEY`). */
export async function signToken(
  secret: string | undefined,
  purpose: TokenPurpose,
  payload: TokenPayload,
): Promise<string> {
  const body = base64url(JSON.stringify([payload.id, payload.accountId, payload.expiresAt ?? null]));
  const key = await keyFor(secret, "sign");
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`${purpose}:${body}`)));
  return `${body}--${toHex(mac)}`;
}

/**
 * The payload of `token` when it was signed with `secret` for `purpose` and has not expired at `nowMs`; null
 * otherwise (malformed, tampered, another purpose, expired). Never throws for a bad token.
 */
export async function verifyToken(
  secret: string | undefined,
  purpose: TokenPurpose,
  token: string,
  nowMs: number,
): Promise<TokenPayload | null> {
  const at = token.lastIndexOf("--");
  if (at <= 0 || token.length > 512) return null;
  const body = token.slice(0, at);
  const mac = fromHex(token.slice(at + 2));
  if (!mac) return null;
  const key = await keyFor(secret, "verify");
  if (!(await crypto.subtle.verify("HMAC", key, mac, encoder.encode(`${purpose}:${body}`)))) return null;
  const json = fromBase64url(body);
  if (json === null) return null;
  let fields: unknown;
  try {
    fields = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(fields) || typeof fields[0] !== "string" || typeof fields[1] !== "string") return null;
  const expiresAt = typeof fields[2] === "number" ? fields[2] : undefined;
  if (expiresAt !== undefined && nowMs / 1000 > expiresAt) return null;
  return { id: fields[0], accountId: fields[1], ...(expiresAt !== undefined ? { expiresAt } : {}) };
}
