import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { generateApiKey, sha256Hex } from "../../src/lib/crypto";
import { authenticate, THROTTLED_DETAIL } from "../../src/middleware/auth";
import {
  AuthFailureThrottle,
  authFailureLimit,
  clientAddress,
  UNKNOWN_CLIENT,
} from "../../src/middleware/auth-throttle";
import { ApiKeyCache, KEY_CACHE_MAX_ENTRIES } from "../../src/middleware/key-cache";
import { BASE, createAccount } from "../helpers/api";
import { initializeBody } from "../mcp/helpers";

// Issue 11 §3: the cost of authentication under a flood of bad keys. "Reached D1" is counted, never guessed: the key
// lookups go through a D1 that counts every `SELECT … FROM api_keys`. The suite runs with AUTH_CACHE_TTL_SECONDS=0 and
// the throttle off (vitest.config.ts); these tests set both explicitly.

const KEY_LOOKUP = /^\s*SELECT\b[\s\S]*\bFROM api_keys\b[\s\S]*\bkey_hash = \?/i;
/** The read of the active keys' hash prefixes (src/middleware/active-key-index.ts): one scan, not per key. */
const INDEX_LOAD = /^\s*SELECT substr\(key_hash\b[\s\S]*\bFROM api_keys\b/i;

/** The real D1 wrapped so that every API key lookup and index load prepared through it is counted. */
function countingD1(db: D1Database): { db: D1Database; keyLookups: () => number; indexLoads: () => number } {
  let lookups = 0;
  let loads = 0;
  const wrapped = new Proxy(db, {
    get(target, property) {
      if (property === "prepare") {
        return (sql: string) => {
          if (KEY_LOOKUP.test(sql)) lookups++;
          if (INDEX_LOAD.test(sql)) loads++;
          return target.prepare(sql);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: wrapped, keyLookups: () => lookups, indexLoads: () => loads };
}

/**
 * An in-memory stand-in for D1 that knows the API keys whose SHA-256 is in `rows` and counts lookups: fast enough to
 * push more keys through `authenticate` than its cache holds (through the real D1 that takes minutes).
 */
function fakeKeyD1(rows: Map<string, { id: string; account_id: string; shard: number }>): {
  db: D1Database;
  keyLookups: () => number;
} {
  let lookups = 0;
  const db = {
    prepare(sql: string) {
      expect(sql).toMatch(KEY_LOOKUP);
      return {
        bind(hash: string) {
          return {
            async first() {
              lookups++;
              return rows.get(hash) ?? null;
            },
          };
        },
      };
    },
  };
  return { db: db as unknown as D1Database, keyLookups: () => lookups };
}

/** GETs `path` with `key` (and `CF-Connecting-IP: address` when given) through the Worker's own fetch handler. */
async function send(workerEnv: Env, key: string, address?: string, path = "/shipping_lines?page[size]=1") {
  const headers = new Headers({ Authorization: `Token ${key}` });
  if (address) headers.set("CF-Connecting-IP", address);
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, { headers }), workerEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** POSTs an MCP `initialize` to `/mcp` with `key` from `address` through the Worker's own fetch handler. */
async function mcpInitialize(workerEnv: Env, key: string, address: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost:8787/mcp", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "CF-Connecting-IP": address,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(initializeBody()),
    }),
    workerEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** A distinct IPv4 documentation address (RFC 5737) per index below 65 536 (in 198.18.0.0/15, RFC 2544). */
function ipv4(i: number): string {
  return `198.18.${i >> 8}.${i & 0xff}`;
}

/** Runs `task` for each item, `concurrency` at a time, and returns the results in order. */
async function inBatches<T, R>(items: T[], concurrency: number, task: (item: T, i: number) => Promise<R>) {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += concurrency) {
    const batch = items.slice(start, start + concurrency);
    results.push(...(await Promise.all(batch.map((item, j) => task(item, start + j)))));
  }
  return results;
}

describe("the key cache behind authenticate (REST and /mcp)", () => {
  it("a flood of more bad keys than the cache holds never evicts a valid key, and reaches D1 once per bad key per TTL", async () => {
    const validKey = generateApiKey("test");
    const validHash = await sha256Hex(validKey);
    const fake = fakeKeyD1(new Map([[validHash, { id: "key-1", account_id: "account-1", shard: 0 }]]));
    const t0 = Date.UTC(2026, 10, 25, 12);
    const ttlSeconds = 300;
    const principal = await authenticate(fake.db, validKey, t0, ttlSeconds);
    expect(principal).toMatchObject({ accountId: "account-1", shard: 0, apiKeyId: "key-1" });
    expect(fake.keyLookups()).toBe(1);

    // As many distinct bad keys as the cache holds: the old single cache was cleared whole at 10 000 entries.
    const badKeys = Array.from({ length: KEY_CACHE_MAX_ENTRIES }, () => generateApiKey("test"));
    for (const key of badKeys) expect(await authenticate(fake.db, key, t0 + 1, ttlSeconds)).toBeNull();
    expect(fake.keyLookups()).toBe(1 + badKeys.length);
    // The valid key is still answered from the cache, with no D1 lookup.
    expect(await authenticate(fake.db, validKey, t0 + 2, ttlSeconds)).toEqual(principal);
    expect(fake.keyLookups()).toBe(1 + badKeys.length);
    // Every bad key again within the TTL: all from the negative cache.
    for (const key of badKeys) expect(await authenticate(fake.db, key, t0 + 3, ttlSeconds)).toBeNull();
    expect(fake.keyLookups()).toBe(1 + badKeys.length);

    // Once the TTL has passed, a bad key is looked up again, exactly once, and the valid key too.
    const later = t0 + 1 + ttlSeconds * 1000;
    const [first] = badKeys;
    expect(first).toBeDefined();
    if (first === undefined) return;
    expect(await authenticate(fake.db, first, later, ttlSeconds)).toBeNull();
    expect(await authenticate(fake.db, first, later + 1, ttlSeconds)).toBeNull();
    expect(fake.keyLookups()).toBe(2 + badKeys.length);
    expect(await authenticate(fake.db, validKey, t0 + ttlSeconds * 1000, ttlSeconds)).toEqual(principal);
    expect(fake.keyLookups()).toBe(3 + badKeys.length);
  });

  it("ApiKeyCache: separate bounded halves, TTL 0 serves nothing, a 'no' forgets the valid entry", () => {
    const cache = new ApiKeyCache(3);
    const principal = { accountId: "a", shard: 0, apiKeyId: "k", keyFingerprint: "f" };
    cache.remember("valid", principal, 1_000, 5_000);
    for (let i = 0; i < 10; i++) cache.remember(`bad-${i}`, null, 1_000, 5_000);
    expect(cache.size).toEqual({ valid: 1, invalid: 3 });
    expect(cache.lookup("valid", 5_999)).toEqual(principal);
    expect(cache.lookup("valid", 6_000)).toBeUndefined();
    // The least recently used bad keys went; the last three stay.
    expect(cache.lookup("bad-0", 2_000)).toBeUndefined();
    expect(cache.lookup("bad-9", 2_000)).toBeNull();
    expect(cache.lookup("bad-9", 6_000)).toBeUndefined();

    // Expired, the valid key is still known as once valid (it may pass the throttle to be checked again).
    expect(cache.isKnownValid("valid")).toBe(true);
    // TTL 0: nothing is served (exact revocation), but the key is marked as seen valid.
    cache.remember("exact", principal, 1_000, 0);
    expect(cache.lookup("exact", 1_000)).toBeUndefined();
    expect(cache.isKnownValid("exact")).toBe(true);
    cache.remember("exact", null, 1_001, 0);
    expect(cache.isKnownValid("exact")).toBe(false);
    expect(cache.lookup("exact", 1_001)).toBeUndefined();
    // Revoked with a TTL: the valid entry goes and the "no" is cached.
    cache.remember("valid", null, 7_000, 5_000);
    expect(cache.isKnownValid("valid")).toBe(false);
    expect(cache.lookup("valid", 7_001)).toBeNull();
  });
});

describe("AuthFailureThrottle (pure)", () => {
  const t0 = Date.UTC(2026, 10, 25, 12);

  it("refuses an address at the limit until its oldest counted failure leaves the 60 s window", () => {
    const throttle = new AuthFailureThrottle();
    for (let i = 0; i < 20; i++) {
      expect(throttle.retryAfterSeconds("198.51.100.7", t0 + i * 1000, 20)).toBe(0);
      throttle.recordFailure("198.51.100.7", t0 + i * 1000, 20);
    }
    // 20 failures at t0 … t0+19 s: the one at t0 leaves at t0+60 s.
    expect(throttle.retryAfterSeconds("198.51.100.7", t0 + 19_000, 20)).toBe(41);
    expect(throttle.retryAfterSeconds("198.51.100.7", t0 + 30_000, 20)).toBe(30);
    expect(throttle.retryAfterSeconds("198.51.100.7", t0 + 59_999, 20)).toBe(1);
    expect(throttle.retryAfterSeconds("198.51.100.7", t0 + 60_000, 20)).toBe(0);
    // Another address is not affected.
    expect(throttle.retryAfterSeconds("198.51.100.8", t0 + 30_000, 20)).toBe(0);
    // Refusals are not counted: asking again and again while refused does not push the time back.
    for (let i = 0; i < 50; i++) throttle.retryAfterSeconds("198.51.100.7", t0 + 20_000, 20);
    expect(throttle.retryAfterSeconds("198.51.100.7", t0 + 30_000, 20)).toBe(30);
    // One more failure just after the window freed a slot refuses again until the next oldest leaves.
    throttle.recordFailure("198.51.100.7", t0 + 60_000, 20);
    expect(throttle.retryAfterSeconds("198.51.100.7", t0 + 60_000, 20)).toBe(1);
    expect(throttle.retryAfterSeconds("198.51.100.7", t0 + 61_000, 20)).toBe(0);
  });

  it("limit 0 is off; the address table is a bounded LRU", () => {
    const throttle = new AuthFailureThrottle(2);
    for (let i = 0; i < 100; i++) throttle.recordFailure("a", t0, 0);
    expect(throttle.retryAfterSeconds("a", t0, 0)).toBe(0);
    expect(throttle.retryAfterSeconds("a", t0, 1)).toBe(0);
    throttle.recordFailure("a", t0, 1);
    throttle.recordFailure("b", t0, 1);
    expect(throttle.retryAfterSeconds("a", t0, 1)).toBe(60);
    throttle.recordFailure("c", t0, 1);
    // "b" was the least recently used of the two remembered addresses.
    expect(throttle.retryAfterSeconds("b", t0, 1)).toBe(0);
    expect(throttle.retryAfterSeconds("a", t0, 1)).toBe(60);
    expect(throttle.retryAfterSeconds("c", t0, 1)).toBe(60);
  });

  it("AUTH_FAILURES_PER_MINUTE: whole numbers up to 10 000, 0 off, anything else the default 20", () => {
    expect(authFailureLimit(undefined)).toBe(20);
    expect(authFailureLimit("5")).toBe(5);
    expect(authFailureLimit("0")).toBe(0);
    expect(authFailureLimit("10000")).toBe(10_000);
    for (const raw of ["", "-1", "1.5", "ten", "10001", " 5"]) expect(authFailureLimit(raw), raw).toBe(20);
  });

  it("client address: IPv4 as is, IPv6 by /64, IPv4-mapped as IPv4, absent or garbage one unknown bucket", () => {
    expect(clientAddress("203.0.113.9")).toBe("203.0.113.9");
    expect(clientAddress("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientAddress("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(clientAddress("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientAddress("::ffff:203.0.113.9")).toBe("203.0.113.9");
    for (const raw of [undefined, null, "", "not an ip", "203.0.113.9, 10.0.0.1"]) {
      expect(clientAddress(raw), String(raw)).toBe(UNKNOWN_CLIENT);
    }
  });
});

describe("a flood of bad keys through the Worker", () => {
  it("300 random keys at 20 concurrent from many addresses: all 401, the valid key kept, each bad key in D1 once", async () => {
    const counted = countingD1(env.DB);
    const workerEnv: Env = { ...env, DB: counted.db, AUTH_CACHE_TTL_SECONDS: "300", AUTH_FAILURES_PER_MINUTE: "20" };
    const account = await createAccount();
    expect((await send(workerEnv, account.key, ipv4(0))).status).toBe(200);
    expect(counted.keyLookups()).toBe(1);
    // The key's row disappears: from here on only the cache can let it in, so a 200 proves its entry survived.
    await env.DB.prepare("DELETE FROM api_keys WHERE id = ?1").bind(account.apiKeyId).run();

    const badKeys = Array.from({ length: 300 }, () => generateApiKey("test"));
    // Ten keys per address: under the throttle's limit, so every key reaches the cache.
    const statuses = await inBatches(
      badKeys,
      20,
      async (key, i) => (await send(workerEnv, key, ipv4(1 + (i % 30)))).status,
    );
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(counted.keyLookups()).toBe(1 + badKeys.length);
    expect((await send(workerEnv, account.key, ipv4(0))).status).toBe(200);

    // The same keys again from fresh addresses within the TTL: answered from the negative cache.
    const again = await inBatches(
      badKeys,
      20,
      async (key, i) => (await send(workerEnv, key, ipv4(100 + (i % 30)))).status,
    );
    expect(new Set(again)).toEqual(new Set([401]));
    expect(counted.keyLookups()).toBe(1 + badKeys.length);
  });

  it("an address with 20 failures in a minute gets 429 with Retry-After, with no key lookup in D1", async () => {
    const counted = countingD1(env.DB);
    const workerEnv: Env = { ...env, DB: counted.db, AUTH_CACHE_TTL_SECONDS: "0", AUTH_FAILURES_PER_MINUTE: "20" };
    const attacker = "2001:db8:abcd:1:0:0:0:10";
    for (let i = 0; i < 20; i++) expect((await send(workerEnv, generateApiKey("test"), attacker)).status).toBe(401);
    expect(counted.keyLookups()).toBe(20);

    const refused = await send(workerEnv, generateApiKey("test"), attacker);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(refused.headers.get("X-Request-Id")).toBeTruthy();
    expect(await refused.json()).toEqual({
      errors: [{ status: "429", title: "Too Many Requests", detail: THROTTLED_DETAIL }],
    });
    // Another host of the same IPv6 /64 is the same client; the refusals looked no key up in D1 (each read the index
    // of active keys, once: test/middleware/auth-flood.test.ts "a flood ... behind a throttled address" counts those).
    expect((await send(workerEnv, generateApiKey("test"), "2001:db8:abcd:1:ffff::2")).status).toBe(429);
    expect(counted.keyLookups()).toBe(20);
    expect(counted.indexLoads()).toBe(2);

    // Another address is not affected.
    expect((await send(workerEnv, generateApiKey("test"), "2001:db8:abcd:2::10")).status).toBe(401);
    expect(counted.keyLookups()).toBe(21);
    // A malformed key costs nothing and stays a plain 401.
    expect((await send(workerEnv, "not-a-key", attacker)).status).toBe(401);
  });

  it("behind a throttled address, every valid key works, seen before or not; revoked or guessed keys are refused", async () => {
    const counted = countingD1(env.DB);
    // TTL 0: nothing is served from the cache, so the known key is checked against D1 every time.
    const workerEnv: Env = { ...env, DB: counted.db, AUTH_CACHE_TTL_SECONDS: "0", AUTH_FAILURES_PER_MINUTE: "3" };
    const shared = "198.51.100.77";
    const colleague = await createAccount();
    expect((await send(workerEnv, colleague.key, shared)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await send(workerEnv, generateApiKey("test"), shared)).status).toBe(401);
    expect((await send(workerEnv, generateApiKey("test"), shared)).status).toBe(429);

    const before = counted.keyLookups();
    expect((await send(workerEnv, colleague.key, shared)).status).toBe(200);
    expect(counted.keyLookups()).toBe(before + 1);
    // Issue 23 §2: a real key this isolate never saw, created after the address was throttled, is not refused for
    // the other keys' failures, on REST and on /mcp.
    const newcomer = await createAccount();
    expect((await send(workerEnv, newcomer.key, shared)).status).toBe(200);
    expect(counted.keyLookups()).toBe(before + 2);
    const latecomer = await createAccount();
    expect((await mcpInitialize(workerEnv, latecomer.key, shared)).status).toBe(200);
    // Revoked, the once-known key is checked once more (401) and from then on throttled like any other.
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ?1 WHERE id = ?2")
      .bind(new Date().toISOString(), colleague.apiKeyId)
      .run();
    expect((await send(workerEnv, colleague.key, shared)).status).toBe(401);
    const lookups = counted.keyLookups();
    expect((await send(workerEnv, colleague.key, shared)).status).toBe(429);
    expect(counted.keyLookups()).toBe(lookups);
  });

  it("a flood of guessed keys behind a throttled address: all 429, no key lookup, the index read about once a second", async () => {
    const counted = countingD1(env.DB);
    const workerEnv: Env = { ...env, DB: counted.db, AUTH_CACHE_TTL_SECONDS: "0", AUTH_FAILURES_PER_MINUTE: "2" };
    const office = "198.51.100.99";
    for (let i = 0; i < 2; i++) expect((await send(workerEnv, generateApiKey("test"), office)).status).toBe(401);
    const lookups = counted.keyLookups();
    const loads = counted.indexLoads();
    const started = Date.now();
    const statuses = await inBatches(
      Array.from({ length: 120 }, () => generateApiKey("test")),
      40,
      async (key) => (await send(workerEnv, key, office)).status,
    );
    const seconds = (Date.now() - started) / 1000;
    expect(new Set(statuses)).toEqual(new Set([429]));
    expect(counted.keyLookups()).toBe(lookups);
    // Three waves of 40 share a load each (a wave's misses wait for the next one), loads at least a second apart.
    expect(counted.indexLoads() - loads).toBeGreaterThanOrEqual(1);
    expect(counted.indexLoads() - loads).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    // The colleague's key still gets in from the same address.
    const colleague = await createAccount();
    expect((await send(workerEnv, colleague.key, office)).status).toBe(200);
  });

  it("/mcp shares the throttle: 429 JSON-RPC error with Retry-After", async () => {
    const workerEnv: Env = { ...env, AUTH_CACHE_TTL_SECONDS: "0", AUTH_FAILURES_PER_MINUTE: "2" };
    const address = "203.0.113.201";
    const mcp = (key: string) => mcpInitialize(workerEnv, key, address);
    expect((await mcp(generateApiKey("test"))).status).toBe(401);
    // Failures on REST and /mcp count together.
    expect((await send(workerEnv, generateApiKey("test"), address)).status).toBe(401);
    const refused = await mcp(generateApiKey("test"));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 }, id: null });
    expect((await send(workerEnv, generateApiKey("test"), address)).status).toBe(429);
  });
});
