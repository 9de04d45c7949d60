import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUCKET_MESSAGES, WINDOW_MS } from "../../src/ratelimit/buckets";
import type { LeaseGrant } from "../../src/ratelimit/leases";
import type { RateLimiter, RateLimitHit } from "../../src/ratelimit/rate-limiter";
import { SlidingLog, type SlidingLogDecision } from "../../src/ratelimit/sliding-log";
import { api, createAccount } from "../helpers/api";

// Issue 11 §1: the RateLimiter keeps its sliding log (admissions and lease reservations) in its own SQLite storage,
// so an eviction (idle ~10 s, deploy, runtime restart) forgets nothing: the window is the same before and after.

const T0 = 1_800_000_000_000;
const PROPERTY_SEED = 20261125;

const stubFor = (name: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));
const freshStub = () => stubFor(`durable-${crypto.randomUUID()}`);

/** The most admissions in any rolling window `(t - WINDOW_MS, t]` of `times` (ms). */
function maxInAnyWindow(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= WINDOW_MS) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

/** Rows the object keeps in its storage for `bucket` (admissions, reservations), read inside the object. */
async function storedRows(
  stub: ReturnType<typeof freshStub>,
  bucket: string,
): Promise<{ entries: number; reservations: number }> {
  return runInDurableObject(stub, (_instance: RateLimiter, state) => {
    const count = (table: string) =>
      state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE bucket = ?`, bucket).one().n;
    return { entries: count("rate_limit_entries"), reservations: count("rate_limit_reservations") };
  });
}

describe("the window survives eviction of the RateLimiter", () => {
  it("through the Worker: 100 admitted, the object evicted, the 101st within 60 s is still refused", async () => {
    const { key, accountId } = await createAccount();
    const stub = stubFor(accountId);
    for (let i = 0; i < 100; i++) {
      const res = await api("/shipping_lines?page[size]=1", { key });
      expect(res.status).toBe(200);
      await res.body?.cancel();
      // Evicted now and then inside the burst too: each instance must pick up where the last one stopped.
      if (i % 25 === 24) await evictDurableObject(stub);
    }
    const refused = await api("/shipping_lines?page[size]=1", { key });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    // The first admission is moments old: it leaves in nearly a full window (slack for a slow host).
    expect(retryAfter).toBeGreaterThanOrEqual(45);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await refused.json()).toEqual({
      errors: [{ status: "429", title: "Too Many Requests", detail: BUCKET_MESSAGES.default }],
    });
    // Evicted again after the refusal: still refused, and the refusal was not counted.
    await evictDurableObject(stub);
    expect((await api("/parties", { key })).status).toBe(429);
    const count = await stub.hit("default", 0, Date.now());
    expect(count.count).toBe(100);
  });

  it("through the Worker: the refresh bucket (10/min, guarding the carriers' own limits) survives eviction", async () => {
    const { key, accountId } = await createAccount();
    const id = crypto.randomUUID();
    for (let i = 0; i < 10; i++) {
      const res = await api(`/containers/${id}/refresh`, { key, method: "PATCH" });
      expect(res.status).not.toBe(429);
      await res.body?.cancel();
    }
    await evictDurableObject(stubFor(accountId));
    const refused = await api(`/containers/${id}/refresh`, { key, method: "PATCH" });
    expect(refused.status).toBe(429);
    expect((await refused.json()) as unknown).toEqual({
      errors: [{ status: "429", title: "Too Many Requests", detail: BUCKET_MESSAGES.refresh_container }],
    });
  });

  it("with an explicit clock: the same decisions and Retry-After before and after each eviction", async () => {
    const stub = freshStub();
    expect(await stub.hit("default", 3, T0)).toEqual({ allowed: true, count: 1, retryAfterSeconds: 0 });
    await evictDurableObject(stub);
    expect(await stub.hit("default", 3, T0 + 10_000)).toEqual({ allowed: true, count: 2, retryAfterSeconds: 0 });
    await evictDurableObject(stub);
    expect(await stub.hit("default", 3, T0 + 20_000)).toEqual({ allowed: true, count: 3, retryAfterSeconds: 0 });
    await evictDurableObject(stub);
    expect(await stub.hit("default", 3, T0 + 45_500)).toEqual({ allowed: false, count: 3, retryAfterSeconds: 15 });
    await evictDurableObject(stub);
    // T0 leaves at exactly T0 + 60 s (docs/decisions.md §Rate limits).
    expect(await stub.hit("default", 3, T0 + 60_000)).toEqual({ allowed: true, count: 3, retryAfterSeconds: 0 });
    await evictDurableObject(stub);
    expect(await stub.hit("default", 3, T0 + 60_000)).toEqual({ allowed: false, count: 3, retryAfterSeconds: 10 });
  });

  it("keeps every bucket of the account apart across an eviction", async () => {
    const stub = freshStub();
    const decisions = await stub.hitMany([
      { bucket: "refresh_container", limit: 2, nowMs: T0 },
      { bucket: "refresh_container", limit: 2, nowMs: T0 + 1 },
      { bucket: "infer_number", limit: 2, nowMs: T0 + 2 },
    ]);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    await evictDurableObject(stub);
    expect(await stub.hit("refresh_container", 2, T0 + 3)).toEqual({
      allowed: false,
      count: 2,
      retryAfterSeconds: 60,
    });
    expect(await stub.hit("infer_number", 2, T0 + 3)).toEqual({ allowed: true, count: 2, retryAfterSeconds: 0 });
    expect(await stub.hit("default", 2, T0 + 3)).toEqual({ allowed: true, count: 1, retryAfterSeconds: 0 });
  });

  it("a lease granted before an eviction stays reserved after it, and is settled by the new instance", async () => {
    const stub = freshStub();
    const [first] = await stub.hitMany([{ bucket: "default", limit: 1_000, nowMs: T0 }], { acceptLeases: true });
    const lease = first?.lease as LeaseGrant;
    expect(lease).toMatchObject({ credits: 10, leaseUntil: T0 + 1_000, count: 11 });
    await evictDurableObject(stub);
    // The reservation still counts: 1 + 10 reserved.
    expect(await stub.hit("default", 0, T0 + 100)).toEqual({ allowed: false, count: 11, retryAfterSeconds: 60 });
    // Settled after the eviction: 3 used, 7 freed.
    const settled = await stub.hitMany([], {
      settle: [{ bucket: "default", leaseId: lease.id, usedAt: [T0 + 10, T0 + 20, T0 + 30] }],
    });
    expect(settled).toEqual([]);
    await evictDurableObject(stub);
    expect(await stub.hit("default", 0, T0 + 200)).toEqual({ allowed: false, count: 4, retryAfterSeconds: 60 });
    // Settling again (the reservation is gone from storage too) changes nothing.
    await stub.hitMany([], { settle: [{ bucket: "default", leaseId: lease.id, usedAt: [T0 + 40] }] });
    await evictDurableObject(stub);
    expect((await stub.hit("default", 0, T0 + 300)).count).toBe(4);
    // The uses count at their own times: T0 and T0 + 10 ms have left at T0 + 60 010 ms.
    expect((await stub.hit("default", 0, T0 + 60_010)).count).toBe(2);
    expect(await storedRows(stub, "default")).toMatchObject({ reservations: 0 });
  });

  it("an abandoned lease stays reserved across evictions until leaseUntil + 60 s, then leaves storage too", async () => {
    const stub = freshStub();
    const [first] = await stub.hitMany([{ bucket: "default", limit: 1_000, nowMs: T0 }], { acceptLeases: true });
    expect(first?.lease).toMatchObject({ credits: 10, leaseUntil: T0 + 1_000 });
    expect(await storedRows(stub, "default")).toEqual({ entries: 1, reservations: 1 });
    await evictDurableObject(stub);
    // Stamped at leaseUntil: still counted 60 s after the hit at T0 has left.
    expect(await stub.hit("default", 10, T0 + 60_500)).toEqual({ allowed: false, count: 10, retryAfterSeconds: 1 });
    await evictDurableObject(stub);
    expect((await stub.hit("default", 0, T0 + 61_000)).count).toBe(0);
    expect(await storedRows(stub, "default")).toMatchObject({ reservations: 0 });
    await evictDurableObject(stub);
    expect((await stub.hit("default", 0, T0 + 61_001)).count).toBe(0);
  });

  it("keeps its storage bounded: entries that left the window are pruned", async () => {
    const stub = freshStub();
    // 20 minutes of steady traffic at 10 per second against a limit of 100 (most refused and never stored).
    for (let second = 0; second < 1_200; second += 1) {
      const hits: RateLimitHit[] = Array.from({ length: 10 }, (_, j) => ({
        bucket: "default",
        limit: 100,
        nowMs: T0 + second * 1_000 + j,
      }));
      await stub.hitMany(hits);
    }
    const { entries, reservations } = await storedRows(stub, "default");
    expect(reservations).toBe(0);
    // At most the limit counted in the window, plus the prune batch still to delete.
    expect(entries).toBeGreaterThanOrEqual(100);
    expect(entries).toBeLessThanOrEqual(100 + 128);
  });
});

describe("property: random evictions change no decision", () => {
  it("the RateLimiter evicted at random points decides exactly as one uninterrupted sliding log", async () => {
    // Within a step the clocks of the hits differ by 1 ms either way (isolates' clocks); a step starts at least
    // 1 ms after the last one, so no clock steps back across an eviction (SqlLogStore: what that would cost).
    const step = fc.record({
      gapMs: fc.oneof(
        { arbitrary: fc.integer({ min: 1, max: 2_000 }), weight: 10 },
        { arbitrary: fc.integer({ min: 1, max: 70_000 }), weight: 1 },
      ),
      size: fc.integer({ min: 1, max: 12 }),
      bucket: fc.constantFrom("default", "refresh_container"),
      evictBefore: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 25 }),
        fc.array(step, { minLength: 5, maxLength: 40 }),
        async (limit, steps) => {
          const stub = freshStub();
          const models = new Map<string, SlidingLog>();
          const admitted = new Map<string, number[]>();
          let t = T0;
          let running = false;
          for (const s of steps) {
            t += s.gapMs;
            if (s.evictBefore && running) {
              await evictDurableObject(stub);
              running = false;
            }
            const hits = Array.from({ length: s.size }, (_, j) => ({ bucket: s.bucket, limit, nowMs: t + (j % 2) }));
            const decisions = await stub.hitMany(hits);
            running = true;
            let model = models.get(s.bucket);
            if (!model) {
              model = new SlidingLog(WINDOW_MS);
              models.set(s.bucket, model);
            }
            const expected: SlidingLogDecision[] = hits.map((h) => (model as SlidingLog).hit(h.nowMs, limit));
            expect(decisions).toEqual(expected);
            const times = admitted.get(s.bucket) ?? [];
            hits.forEach((h, i) => {
              if (decisions[i]?.allowed) times.push(h.nowMs);
            });
            admitted.set(s.bucket, times);
          }
          for (const times of admitted.values()) expect(maxInAnyWindow(times)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 25, seed: PROPERTY_SEED, endOnFailure: true },
    );
  }, 120_000);
});
