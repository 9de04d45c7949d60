import type { LRUCache } from "lru-cache";
import type { Principal } from "../env";
import { boundedLru } from "../lib/lru";

/** How many API keys each half of the key cache holds at most (valid keys; unknown or revoked keys). */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

interface ValidEntry {
  principal: Principal;
  /** Until when (ms since epoch) the entry answers without D1; after that it only marks the key as seen valid. */
  expiresAt: number;
}

/**
 * Per-isolate cache of API key → principal, and of keys D1 did not know (docs/architecture.md §Performance model, issue
 * 11 §3). Keyed by the key itself, in this isolate's memory only (never stored or logged), so a hit costs no hashing:
 * SHA-256 through `crypto.subtle` plus hex was about 0.2 ms of CPU on every request in `npm run bench -- api`.
 *
 * Valid and invalid keys live in two separate LRU caches (`lru-cache`) of `KEY_CACHE_MAX_ENTRIES` each, so a flood of
 * bad keys only ever evicts other bad keys: a valid key's entry cannot be pushed out by keys nobody holds. Entries
 * carry their own expiry (ms since epoch, from the caller's clock) so tests are exact.
 *
 * A valid entry outlives its expiry as a "seen valid" mark until the LRU drops it: through `isKnownValid`, a key that
 * authenticated before passes the failure throttle (src/middleware/auth-throttle.ts) and is checked against D1 again,
 * while guessed keys, which were never valid, stay throttled. A stale entry is never served as a principal.
 */
export class ApiKeyCache {
  private readonly valid: LRUCache<string, ValidEntry>;
  /** Unknown or revoked key → until when (ms since epoch) D1's "no" stands. */
  private readonly invalid: LRUCache<string, number>;

  /** @param maxEntries capacity of each half (valid, invalid); default `KEY_CACHE_MAX_ENTRIES`. */
  constructor(maxEntries = KEY_CACHE_MAX_ENTRIES) {
    this.valid = boundedLru(maxEntries);
    this.invalid = boundedLru(maxEntries);
  }

  /**
   * The cached answer for `key` at `nowMs`: the principal of a valid key, null for a key D1 recently did not know,
   * undefined when D1 must be asked (never seen, or the entry expired).
   */
  lookup(key: string, nowMs: number): Principal | null | undefined {
    const hit = this.valid.get(key);
    if (hit && hit.expiresAt > nowMs) return hit.principal;
    const invalidUntil = this.invalid.get(key);
    if (invalidUntil !== undefined && invalidUntil > nowMs) return null;
    return undefined;
  }

  /** Whether `key` authenticated in this isolate and has not been found unknown or revoked since (fresh or stale). */
  isKnownValid(key: string): boolean {
    return this.valid.has(key);
  }

  /**
   * Records D1's answer for `key` at `nowMs`, standing for `ttlMs` (0: not served from the cache at all, so a
   * revocation is seen on the very next request; a valid key is still marked as seen valid). A null answer also
   * forgets any valid entry of the key (it was revoked).
   */
  remember(key: string, principal: Principal | null, nowMs: number, ttlMs: number): void {
    if (principal) {
      this.invalid.delete(key);
      this.valid.set(key, { principal, expiresAt: nowMs + ttlMs });
      return;
    }
    this.valid.delete(key);
    if (ttlMs > 0) this.invalid.set(key, nowMs + ttlMs);
  }

  /**
   * Drops every entry of the key with id `apiKeyId` (just revoked through the API or the dashboard), so this isolate
   * asks D1 on that key's next request instead of serving it for the rest of its TTL. Other isolates still may, for
   * at most `AUTH_CACHE_TTL_SECONDS`. Walks the valid half (at most `KEY_CACHE_MAX_ENTRIES`): revocations are rare.
   */
  forgetKeyId(apiKeyId: string): void {
    for (const [key, entry] of this.valid.entries()) {
      if (entry.principal.apiKeyId === apiKeyId) this.valid.delete(key);
    }
  }

  /** Entries held (valid, invalid): for tests and diagnostics. */
  get size(): { valid: number; invalid: number } {
    return { valid: this.valid.size, invalid: this.invalid.size };
  }
}
