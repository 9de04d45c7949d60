import type { MiddlewareHandler } from "hono";
import type { AppEnv, Principal } from "../env";
import { API_KEY_PATTERN, sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";

/** `detail` of every 401 (DECISIONS.md §Wire format). */
export const UNAUTHORIZED_DETAIL = "Invalid or missing API key.";
/** `WWW-Authenticate` of every 401. */
export const WWW_AUTHENTICATE = 'Token realm="api"';

/** The 401 error, with its challenge header. */
export function unauthorized(): ApiError {
  return new ApiError(401, [{ detail: UNAUTHORIZED_DETAIL }], { "WWW-Authenticate": WWW_AUTHENTICATE });
}

/**
 * Extracts the API key from an `Authorization` value: `Token <key>` or `Bearer <key>` (SPEC.md §5; scheme
 * words case-insensitive, DECISIONS.md §Accounts). Returns null for anything else, including a key that does
 * not have the shape of our keys (so garbage never reaches the database).
 */
export function parseAuthorization(header: string | undefined | null): string | null {
  if (!header) return null;
  const match = /^\s*(token|bearer)\s+(\S+)\s*$/i.exec(header);
  const key = match?.[2];
  if (!key || !API_KEY_PATTERN.test(key)) return null;
  return key;
}

/**
 * A non-secret fingerprint of an API key from its SHA-256 (hex): the first 16 hex digits (64 bits). It identifies
 * the key an MCP session belongs to without storing anything that authenticates (DESIGN.md §6).
 */
export function fingerprintOfKeyHash(keyHash: string): string {
  return keyHash.slice(0, 16);
}

interface CacheEntry {
  principal: Principal | null;
  expiresAt: number;
}

/**
 * Per-isolate cache of API key → principal (or null for unknown/revoked), DESIGN.md §8. Keyed by the key itself, in
 * this isolate's memory only (never stored or logged), so a hit costs no hashing: SHA-256 through
 * `crypto.subtle` plus hex was about 0.2 ms of CPU on every request in `npm run bench -- api`.
 */
const cache = new Map<string, CacheEntry>();
const MAX_CACHE_ENTRIES = 10_000;
/** `last_used_at` is written at most this often per key (ms), off the request path. */
const LAST_USED_RESOLUTION_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

/**
 * Resolves an API key to its account: SHA-256 of the key, looked up among keys that are not revoked.
 * Cached for `AUTH_CACHE_TTL_SECONDS` (default 5; 0 disables), so revocation takes effect within that time.
 */
export async function authenticate(
  d1: D1Database,
  key: string,
  nowMs: number,
  ttlSeconds: number,
): Promise<Principal | null> {
  const hit = cache.get(key);
  if (hit && hit.expiresAt > nowMs) return hit.principal;
  const hash = await sha256Hex(key);
  const row = await d1
    .prepare("SELECT id, account_id FROM api_keys WHERE key_hash = ?1 AND revoked_at IS NULL")
    .bind(hash)
    .first<{ id: string; account_id: string }>();
  const principal = row
    ? { accountId: row.account_id, apiKeyId: row.id, keyFingerprint: fingerprintOfKeyHash(hash) }
    : null;
  if (ttlSeconds > 0) {
    if (cache.size >= MAX_CACHE_ENTRIES) cache.clear();
    cache.set(key, { principal, expiresAt: nowMs + ttlSeconds * 1000 });
  }
  return principal;
}

/** `AUTH_CACHE_TTL_SECONDS` as seconds: a whole number, else the default 5 (REST and `/mcp` read it alike). */
export function authCacheTtl(raw: string | undefined): number {
  if (raw === undefined || !/^\d+$/.test(raw)) return 5;
  return Number.parseInt(raw, 10);
}

/**
 * Requires a valid API key (SPEC.md §5). Missing, malformed, unknown or revoked → 401 JSON:API error with
 * `WWW-Authenticate`. Sets the `principal` variable for everything after it.
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = parseAuthorization(c.req.header("authorization"));
  if (!key) throw unauthorized();
  const now = c.var.clock.now();
  const principal = await authenticate(c.env.DB, key, now, authCacheTtl(c.env.AUTH_CACHE_TTL_SECONDS));
  if (!principal) throw unauthorized();
  c.set("principal", principal);
  const last = lastUsedWritten.get(principal.apiKeyId) ?? 0;
  if (now - last >= LAST_USED_RESOLUTION_MS) {
    if (lastUsedWritten.size >= MAX_CACHE_ENTRIES) lastUsedWritten.clear();
    lastUsedWritten.set(principal.apiKeyId, now);
    const write = c.env.DB.prepare("UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2")
      .bind(new Date(now).toISOString().replace(/\.\d{3}Z$/, "Z"), principal.apiKeyId)
      .run()
      .catch(() => undefined);
    try {
      c.executionCtx.waitUntil(write);
    } catch {
      await write;
    }
  }
  await next();
};
