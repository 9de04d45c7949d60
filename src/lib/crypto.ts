/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return toHex(new Uint8Array(digest));
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * `length` characters drawn uniformly from the base62 alphabet with a CSPRNG (rejection sampling, no modulo
 * bias). 43 characters carry 256 bits.
 */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(64));
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/**
 * A new API key, docs/decisions.md §Accounts and keys: `svc_live_` (or `svc_test_` for local development) followed by
 * 43 base62 characters (256 bits).
 */
export function generateApiKey(environment: "live" | "test"): string {
  return `svc_${environment}_${randomBase62(43)}`;
}

/** The shape every API key has; anything else is rejected before a database lookup. */
export const API_KEY_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{43}$/;
