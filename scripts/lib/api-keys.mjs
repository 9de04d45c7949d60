// API key material for the scripts, in the format the Worker checks (src/lib/crypto.ts, src/middleware/auth.ts;
// docs/decisions.md §Accounts and keys). Kept here rather than imported from src/ so the scripts do not depend on how
// src/ is laid out; a test of the scripts' output against API_KEY_PATTERN keeps the two in step.
import { createHash, getRandomValues } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Random characters after `svc_live_` / `svc_test_`: 43 base62 characters carry 256 bits. */
const KEY_RANDOM_LENGTH = 43;
/** Characters of a key stored and shown as its prefix: `svc_test_` plus 4, e.g. `svc_test_AbCd`. */
export const KEY_PREFIX_LENGTH = 13;

/** The shape of every key; the Worker rejects anything else before it looks in the database. */
export const API_KEY_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{43}$/;

/**
 * `length` base62 characters from the CSPRNG. Bytes of 248 and above are rejected so `byte % 62` is uniform.
 * @param {number} length
 */
function randomBase62(length) {
  let out = "";
  while (out.length < length) {
    for (const byte of getRandomValues(new Uint8Array(64))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/**
 * A random one-time token of 256 bits (43 base62 characters), the shape of the Worker's sign-in link tokens
 * (src/sessions/sign-in-links.ts); the database stores its {@link hashApiKey} (SHA-256 hex) only.
 */
export function generateToken() {
  return randomBase62(KEY_RANDOM_LENGTH);
}

/**
 * A new API key: `svc_live_…` for a remote (production) database, `svc_test_…` for local development.
 * @param {"live" | "test"} environment
 */
export function generateApiKey(environment) {
  return `svc_${environment}_${randomBase62(KEY_RANDOM_LENGTH)}`;
}

/**
 * What the database stores instead of the key: lowercase hex SHA-256 of the key's UTF-8 bytes.
 * @param {string} key
 */
export function hashApiKey(key) {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * The displayable start of a key (first 13 characters), stored beside the hash so keys can be told apart.
 * @param {string} key
 */
export function apiKeyPrefix(key) {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
