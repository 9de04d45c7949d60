import type { MiddlewareHandler } from "hono";
import { rememberAccountShard, shardDb } from "../db/shards";
import type { AppEnv, Principal } from "../env";
import { API_KEY_PATTERN, sha256Hex } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { executionContextOf } from "../lib/http";
import { boundedLru } from "../lib/lru";
import { ActiveKeyIndex, loadActiveKeyHashPrefixes } from "./active-key-index";
import { AuthFailureThrottle, authFailureLimit, clientAddress } from "./auth-throttle";
import { ApiKeyCache, KEY_CACHE_MAX_ENTRIES } from "./key-cache";

/** `detail` of every 401 (docs/decisions.md §Wire format). */
export const UNAUTHORIZED_DETAIL = "Invalid or missing API key.";
/** `WWW-Authenticate` of every 401. */
export const WWW_AUTHENTICATE = 'Token realm="api"';

/** The 401 error, with its challenge header. */
export function unauthorized(): ApiError {
  return new ApiError(401, [{ detail: UNAUTHORIZED_DETAIL }], { "WWW-Authenticate": WWW_AUTHENTICATE });
}

/**
 * Extracts the API key from an `Authorization` value: `Token <key>` or `Bearer <key>` (docs/api.md §Authentication;
 * scheme words case-insensitive, docs/decisions.md §Accounts and keys). Returns null for anything else, including a key
 * that does not have the shape of our keys (so garbage never reaches the database).
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
 * the key an MCP session belongs to without storing anything that authenticates (docs/architecture.md §MCP).
 */
export function fingerprintOfKeyHash(keyHash: string): string {
  return keyHash.slice(0, 16);
}

/** The per-isolate key cache shared by REST and `/mcp` (src/middleware/key-cache.ts). */
const keyCache = new ApiKeyCache();
/** The per-isolate failure throttle shared by REST and `/mcp` (src/middleware/auth-throttle.ts). */
const failureThrottle = new AuthFailureThrottle();
/** The per-isolate index of active keys' hash prefixes the throttle consults (src/middleware/active-key-index.ts). */
const activeKeys = new ActiveKeyIndex();
/** `last_used_at` is written at most this often per key (ms), off the request path. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** API key id → when (ms since epoch) this isolate last wrote its `last_used_at`. */
const lastUsedWritten = boundedLru<string, number>(KEY_CACHE_MAX_ENTRIES);

/**
 * Resolves an API key to its account: SHA-256 of the key, looked up among keys that are not revoked. Both answers
 * are cached for `ttlSeconds` (`AUTH_CACHE_TTL_SECONDS`, default 5; 0 disables), a valid key apart from unknown ones
 * (src/middleware/key-cache.ts), so revocation takes effect within that time and a bad key reaches D1 at most once
 * per TTL while the cache holds it. Applies no throttle: `checkApiKey` does.
 */
export async function authenticate(
  d1: D1Database,
  key: string,
  nowMs: number,
  ttlSeconds: number,
): Promise<Principal | null> {
  const cached = keyCache.lookup(key, nowMs);
  if (cached !== undefined) return cached;
  const hash = await sha256Hex(key);
  const row = await d1
    .prepare(
      "SELECT k.id, k.account_id, a.shard FROM api_keys k JOIN accounts a ON a.id = k.account_id " +
        "WHERE k.key_hash = ?1 AND k.revoked_at IS NULL",
    )
    .bind(hash)
    .first<{ id: string; account_id: string; shard: number }>();
  const principal = row
    ? { accountId: row.account_id, shard: row.shard, apiKeyId: row.id, keyFingerprint: fingerprintOfKeyHash(hash) }
    : null;
  if (row) rememberAccountShard(row.account_id, row.shard);
  keyCache.remember(key, principal, nowMs, ttlSeconds * 1000);
  return principal;
}

/**
 * Forgets a revoked key in this isolate's cache (`ApiKeyCache.forgetKeyId`): its next request here is checked against
 * D1 and refused. Other isolates refuse it within `AUTH_CACHE_TTL_SECONDS` (src/api-keys/service.ts revokes).
 */
export function forgetRevokedApiKey(apiKeyId: string): void {
  keyCache.forgetKeyId(apiKeyId);
}

/** What `checkApiKey` found: the caller, an unknown or revoked key, or an address refused for its failures. */
export type KeyCheck =
  | { outcome: "authenticated"; principal: Principal }
  | { outcome: "unauthorized" }
  | { outcome: "throttled"; retryAfterSeconds: number };

/** The settings `checkApiKey` reads (wrangler.toml `[vars]`, strings). */
export type AuthSettings = Pick<Env, "DB" | "AUTH_CACHE_TTL_SECONDS" | "AUTH_FAILURES_PER_MINUTE">;

/**
 * Checks a well-formed API key presented from a client address (issue 11 §3), for REST and `/mcp` alike:
 * 1. a key cached as valid answers at once (no hashing, no D1, no throttle);
 * 2. an address with `AUTH_FAILURES_PER_MINUTE` failures in the last 60 s is refused (`throttled`, with whole seconds
 *    for `Retry-After`) with no D1 read per request, unless the key authenticated in this isolate before or its hash
 *    is among the active keys' hash prefixes ({@link ActiveKeyIndex}, loaded at most once a second and only for such
 *    addresses): a valid key behind a shared address is never refused for others' failures (issue 23 §2), while a
 *    guessed key, whose hash prefix no active key has, stays refused;
 * 3. otherwise `authenticate` (negative cache, else D1); a key found unknown or revoked counts one failure.
 * `clientAddress` is only computed when needed (a thunk), so the cached hot path never parses `CF-Connecting-IP`.
 */
export async function checkApiKey(
  settings: AuthSettings,
  key: string,
  clientAddress: () => string,
  nowMs: number,
): Promise<KeyCheck> {
  const cached = keyCache.lookup(key, nowMs);
  if (cached) return { outcome: "authenticated", principal: cached };
  const limit = authFailureLimit(settings.AUTH_FAILURES_PER_MINUTE);
  const address = clientAddress();
  if (!keyCache.isKnownValid(key)) {
    const retryAfterSeconds = failureThrottle.retryAfterSeconds(address, nowMs, limit);
    if (retryAfterSeconds > 0) {
      const mayBeActive = await activeKeys.mayHold(await sha256Hex(key), () => loadActiveKeyHashPrefixes(settings.DB));
      if (!mayBeActive) return { outcome: "throttled", retryAfterSeconds };
    }
  }
  const principal = await authenticate(settings.DB, key, nowMs, authCacheTtl(settings.AUTH_CACHE_TTL_SECONDS));
  if (principal) return { outcome: "authenticated", principal };
  failureThrottle.recordFailure(address, nowMs, limit);
  if (limit > 0 && activeKeys.size > 0) activeKeys.forget(await sha256Hex(key));
  return { outcome: "unauthorized" };
}

/** `detail` of the 429 an address gets after too many failed authentications (issue 11 §3). */
export const THROTTLED_DETAIL = "Too many requests with an invalid API key from this address. Retry later.";

/** The 429 of a throttled address, with `Retry-After` in whole seconds. */
export function authThrottled(retryAfterSeconds: number): ApiError {
  return new ApiError(429, [{ detail: THROTTLED_DETAIL }], { "Retry-After": String(retryAfterSeconds) });
}

/** `AUTH_CACHE_TTL_SECONDS` as seconds: a whole number, else the default 5 (REST and `/mcp` read it alike). */
export function authCacheTtl(raw: string | undefined): number {
  if (raw === undefined || !/^\d+$/.test(raw)) return 5;
  return Number.parseInt(raw, 10);
}

/**
 * Requires a valid API key (docs/api.md §Authentication). Missing, malformed, unknown or revoked → 401 JSON:API error
 * with `WWW-Authenticate`; a client address over `AUTH_FAILURES_PER_MINUTE` failed keys → 429 with `Retry-After`
 * (`checkApiKey`). Missing or malformed keys cost nothing and are not counted. Sets the `principal` variable for
 * everything after it.
 */
export const requireApiKey: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = parseAuthorization(c.req.header("authorization"));
  if (!key) throw unauthorized();
  const now = c.get("clock").now();
  const check = await checkApiKey(c.env, key, () => clientAddress(c.req.header("cf-connecting-ip")), now);
  if (check.outcome === "throttled") throw authThrottled(check.retryAfterSeconds);
  if (check.outcome === "unauthorized") throw unauthorized();
  const principal = check.principal;
  c.set("principal", principal);
  // From here on `db` is the account's shard (src/db/shards.ts); `primaryDb` stays the primary.
  c.set("db", shardDb(c.env, principal.shard));
  const apiKeyId = principal.apiKeyId;
  const last = apiKeyId ? (lastUsedWritten.get(apiKeyId) ?? 0) : now;
  if (apiKeyId && now - last >= LAST_USED_RESOLUTION_MS) {
    lastUsedWritten.set(apiKeyId, now);
    const write = c.env.DB.prepare("UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2")
      .bind(new Date(now).toISOString().replace(/\.\d{3}Z$/, "Z"), apiKeyId)
      .run()
      .catch(() => undefined);
    const ctx = executionContextOf(c);
    if (ctx) ctx.waitUntil(write);
    else await write;
  }
  await next();
};
