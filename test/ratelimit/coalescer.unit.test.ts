import { describe, expect, it } from "vitest";
import { RateLimitCoalescer, type RateLimiterCaller } from "../../src/ratelimit/client";
import type { RateLimitHit } from "../../src/ratelimit/rate-limiter";
import { SlidingLog, type SlidingLogDecision } from "../../src/ratelimit/sliding-log";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/**
 * A stand-in for the RateLimiter Durable Object that decides with the real SlidingLog, records every batch it
 * receives, and answers only when the test releases the call (so the test controls what is "in flight").
 */
class GatedLimiter implements RateLimiterCaller {
  readonly batches: RateLimitHit[][] = [];
  private readonly logs = new Map<string, SlidingLog>();
  private gates: Array<() => void> = [];
  failNext: Error | null = null;
  hangNext = false;

  async hitMany(hits: RateLimitHit[]): Promise<SlidingLogDecision[]> {
    this.batches.push(hits);
    if (this.hangNext) {
      this.hangNext = false;
      return new Promise<never>(() => {});
    }
    await new Promise<void>((resolve) => this.gates.push(resolve));
    if (this.failNext) {
      const error = this.failNext;
      this.failNext = null;
      throw error;
    }
    return hits.map((h) => {
      let log = this.logs.get(h.bucket);
      if (!log) {
        log = new SlidingLog(60_000);
        this.logs.set(h.bucket, log);
      }
      return log.hit(h.nowMs, h.limit);
    });
  }

  /** Lets every call made so far answer. */
  release(): void {
    const gates = this.gates;
    this.gates = [];
    for (const open of gates) open();
  }
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("RateLimitCoalescer", () => {
  it("sends the checks that arrive while a call is in flight together in the next call, in arrival order", async () => {
    const limiter = new GatedLimiter();
    const coalescer = new RateLimitCoalescer();
    const first = coalescer.check("acct", () => limiter, { bucket: "default", limit: 100, nowMs: T0 });
    await flush();
    const later = [1, 2, 3, 4].map((i) =>
      coalescer.check("acct", () => limiter, { bucket: "default", limit: 100, nowMs: T0 + i }),
    );
    await flush();
    expect(limiter.batches.map((b) => b.length)).toEqual([1]);
    expect(coalescer.waitingCount("acct")).toBe(4);
    limiter.release();
    await flush();
    limiter.release();
    const decisions = await Promise.all([first, ...later]);
    expect(limiter.batches.map((b) => b.map((h) => h.nowMs))).toEqual([[T0], [T0 + 1, T0 + 2, T0 + 3, T0 + 4]]);
    expect(decisions.map((d) => d.count)).toEqual([1, 2, 3, 4, 5]);
  });

  it("stays exact: of 150 concurrent checks against a limit of 100, exactly 100 are admitted", async () => {
    const limiter = new GatedLimiter();
    const coalescer = new RateLimitCoalescer();
    const checks = Array.from({ length: 150 }, (_, i) =>
      coalescer.check("acct", () => limiter, { bucket: "default", limit: 100, nowMs: T0 + i }),
    );
    // Release calls until every check has its decision.
    let settled = false;
    const all = Promise.all(checks).then((d) => {
      settled = true;
      return d;
    });
    while (!settled) {
      limiter.release();
      await flush();
    }
    const decisions = await all;
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    expect(decisions.slice(0, 100).every((d) => d.allowed)).toBe(true);
    expect(decisions.slice(100).every((d) => !d.allowed && d.retryAfterSeconds >= 1)).toBe(true);
    // Far fewer calls than checks, and every check counted exactly once.
    expect(limiter.batches.length).toBeLessThan(10);
    expect(limiter.batches.flat()).toHaveLength(150);
  });

  it("keeps accounts apart: checks of two accounts never share a call", async () => {
    const a = new GatedLimiter();
    const b = new GatedLimiter();
    const coalescer = new RateLimitCoalescer();
    const pa = coalescer.check("a", () => a, { bucket: "default", limit: 1, nowMs: T0 });
    const pb = coalescer.check("b", () => b, { bucket: "default", limit: 1, nowMs: T0 });
    await flush();
    a.release();
    b.release();
    expect((await pa).allowed).toBe(true);
    expect((await pb).allowed).toBe(true);
    expect(a.batches).toHaveLength(1);
    expect(b.batches).toHaveLength(1);
  });

  it("rejects every check of a failed call and lets the next checks call again", async () => {
    const limiter = new GatedLimiter();
    const coalescer = new RateLimitCoalescer();
    limiter.failNext = new Error("Durable Object unreachable");
    const failed = coalescer.check("acct", () => limiter, { bucket: "default", limit: 5, nowMs: T0 });
    await flush();
    limiter.release();
    await expect(failed).rejects.toThrow("Durable Object unreachable");
    const next = coalescer.check("acct", () => limiter, { bucket: "default", limit: 5, nowMs: T0 + 1 });
    await flush();
    limiter.release();
    expect(await next).toEqual({ allowed: true, count: 1, retryAfterSeconds: 0 });
  });

  it("does not hang on a call that never answers: waiters give up after the stall bound and call themselves", async () => {
    const limiter = new GatedLimiter();
    const coalescer = new RateLimitCoalescer(30);
    limiter.hangNext = true;
    const lost = coalescer.check("acct", () => limiter, { bucket: "default", limit: 5, nowMs: T0 });
    await flush();
    const waiter = coalescer.check("acct", () => limiter, { bucket: "default", limit: 5, nowMs: T0 + 1 });
    // The waiter waits out the stall bound, then sends its own batch, which answers once released.
    await new Promise((resolve) => setTimeout(resolve, 60));
    limiter.release();
    expect((await waiter).allowed).toBe(true);
    expect(limiter.batches.map((b) => b.map((h) => h.nowMs))).toEqual([[T0], [T0 + 1]]);
    void lost;
  });
});
