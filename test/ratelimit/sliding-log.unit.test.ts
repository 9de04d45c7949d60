import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WINDOW_MS } from "../../src/ratelimit/buckets";
import {
  SlidingLog,
  type SlidingLogJournal,
  type SlidingLogState,
  type StoredReservation,
} from "../../src/ratelimit/sliding-log";

// docs/decisions.md §Rate limits: exact rolling 60 s window; refused requests are not counted; Retry-After is the
// whole seconds until the oldest counted request leaves the window (≥ 1).

const T0 = 1_700_000_000_000;

function logWith(times: number[], limit: number): SlidingLog {
  const log = new SlidingLog(WINDOW_MS);
  for (const t of times) expect(log.hit(t, limit).allowed).toBe(true);
  return log;
}

describe("SlidingLog", () => {
  it("uses a 60 s window", () => {
    expect(WINDOW_MS).toBe(60_000);
  });

  it("admits exactly `limit` requests in a window, counting each", () => {
    const log = new SlidingLog(WINDOW_MS);
    const decisions = Array.from({ length: 7 }, (_, i) => log.hit(T0 + i, 5));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(decisions.map((d) => d.count)).toEqual([1, 2, 3, 4, 5, 5, 5]);
    expect(decisions.slice(0, 5).every((d) => d.retryAfterSeconds === 0)).toBe(true);
  });

  it("admits a burst at the same millisecond up to the limit", () => {
    const log = new SlidingLog(WINDOW_MS);
    const allowed = Array.from({ length: 150 }, () => log.hit(T0, 100)).filter((d) => d.allowed).length;
    expect(allowed).toBe(100);
    expect(log.size(T0)).toBe(100);
  });

  it("does not record refused requests", () => {
    const log = logWith([T0, T0 + 1_000, T0 + 2_000], 3);
    for (let i = 0; i < 50; i++) expect(log.hit(T0 + 3_000 + i * 100, 3).allowed).toBe(false);
    expect(log.size(T0 + 30_000)).toBe(3);
    // Had the refusals been logged, they would still fill the window at T0 + 60 s; they do not.
    expect(log.hit(T0 + 60_000, 3).allowed).toBe(true);
    expect(log.size(T0 + 60_000)).toBe(3);
    expect(log.hit(T0 + 61_000, 3).allowed).toBe(true);
    expect(log.hit(T0 + 62_000, 3).allowed).toBe(true);
    expect(log.hit(T0 + 62_000, 3).allowed).toBe(false);
  });

  it("rolls: a request at t0 stops counting at exactly t0 + 60000 ms", () => {
    const log = logWith([T0], 1);
    expect(log.size(T0 + 59_999)).toBe(1);
    expect(log.hit(T0 + 59_999, 1)).toEqual({ allowed: false, count: 1, retryAfterSeconds: 1 });
    expect(log.size(T0 + 60_000)).toBe(0);
    expect(log.hit(T0 + 60_000, 1)).toEqual({ allowed: true, count: 1, retryAfterSeconds: 0 });
  });

  it("lets requests leave one by one, oldest first", () => {
    const log = logWith([T0, T0 + 10_000, T0 + 20_000], 10);
    expect(log.size(T0 + 59_999)).toBe(3);
    expect(log.size(T0 + 60_000)).toBe(2);
    expect(log.size(T0 + 70_000)).toBe(1);
    expect(log.size(T0 + 79_999)).toBe(1);
    expect(log.size(T0 + 80_000)).toBe(0);
  });

  it("gives Retry-After as whole seconds until the oldest counted request leaves, at several clock positions", () => {
    const log = logWith([T0, T0 + 1_000, T0 + 2_000], 3);
    const retryAt = (offset: number) => {
      const d = log.hit(T0 + offset, 3);
      expect(d.allowed).toBe(false);
      expect(d.count).toBe(3);
      return d.retryAfterSeconds;
    };
    expect(retryAt(2_000)).toBe(58);
    expect(retryAt(3_000)).toBe(57);
    expect(retryAt(29_999)).toBe(31); // 30.001 s left → rounds up
    expect(retryAt(30_000)).toBe(30);
    expect(retryAt(30_001)).toBe(30); // 29.999 s → 30
    expect(retryAt(30_999)).toBe(30); // 29.001 s → 30
    expect(retryAt(31_000)).toBe(29);
    expect(retryAt(58_500)).toBe(2);
    expect(retryAt(59_000)).toBe(1);
    expect(retryAt(59_999)).toBe(1); // 1 ms left → still at least 1
    // At T0 + 60 s the oldest has left: one fits again, and the next oldest (T0 + 1 s) sets the wait.
    expect(log.hit(T0 + 60_000, 3).allowed).toBe(true);
    expect(log.hit(T0 + 60_000, 3).retryAfterSeconds).toBe(1);
    expect(log.hit(T0 + 60_500, 3).retryAfterSeconds).toBe(1);
    expect(log.hit(T0 + 61_000, 3).allowed).toBe(true);
    expect(log.hit(T0 + 61_000, 3).retryAfterSeconds).toBe(1);
  });

  it("waits for the oldest *counted* request, not for requests that already left", () => {
    const log = logWith([T0, T0 + 30_000, T0 + 40_000], 3);
    // At T0 + 65 s only T0+30 s and T0+40 s count; T0+30 s leaves at T0+90 s.
    expect(log.hit(T0 + 65_000, 2)).toEqual({ allowed: false, count: 2, retryAfterSeconds: 25 });
  });

  it("lowering the limit refuses until enough requests have left", () => {
    const log = logWith([T0, T0 + 10_000, T0 + 20_000, T0 + 30_000], 4);
    // Limit now 2: three of the four must leave before one more fits; the third (T0+20 s) leaves at T0+80 s.
    expect(log.hit(T0 + 40_000, 2)).toEqual({ allowed: false, count: 4, retryAfterSeconds: 40 });
    expect(log.hit(T0 + 60_000, 2)).toEqual({ allowed: false, count: 3, retryAfterSeconds: 20 });
    expect(log.hit(T0 + 79_999, 2)).toEqual({ allowed: false, count: 2, retryAfterSeconds: 1 });
    expect(log.hit(T0 + 80_000, 2)).toEqual({ allowed: true, count: 2, retryAfterSeconds: 0 });
    expect(log.hit(T0 + 80_000, 2).allowed).toBe(false);
  });

  it("raising the limit admits at once", () => {
    const log = logWith([T0, T0 + 1, T0 + 2], 3);
    expect(log.hit(T0 + 3, 3).allowed).toBe(false);
    expect(log.hit(T0 + 3, 4)).toEqual({ allowed: true, count: 4, retryAfterSeconds: 0 });
  });

  it("keeps buckets of different limits apart only by instance (one log per bucket)", () => {
    const a = logWith([T0], 1);
    const b = new SlidingLog(WINDOW_MS);
    expect(a.hit(T0, 1).allowed).toBe(false);
    expect(b.hit(T0, 1).allowed).toBe(true);
  });

  it("treats a clock that steps back as the latest time seen, so the log stays ordered", () => {
    const log = new SlidingLog(WINDOW_MS);
    expect(log.hit(T0 + 1_000, 3).allowed).toBe(true);
    expect(log.hit(T0 + 5_000, 3).allowed).toBe(true);
    expect(log.hit(T0 + 4_000, 3).allowed).toBe(true); // another isolate's clock, 1 s behind: counted as T0 + 5 s
    expect(log.hit(T0 + 6_000, 3).retryAfterSeconds).toBe(55);
    // With the limit lowered to 1 all three must leave; the last one leaves at T0 + 65 s, not T0 + 64 s.
    expect(log.hit(T0 + 6_000, 1).retryAfterSeconds).toBe(59);
    expect(log.size(T0 + 64_999)).toBe(2);
    expect(log.size(T0 + 65_000)).toBe(0);
  });

  it("stays exact after compacting a long log", () => {
    const log = new SlidingLog(WINDOW_MS);
    for (let i = 0; i < 1_500; i++) expect(log.hit(T0 + i, 5_000).allowed).toBe(true);
    expect(log.size(T0 + 61_000)).toBe(499); // T0+0 … T0+1000 left
    expect(log.size(T0 + 61_200)).toBe(299); // past the compaction threshold
    expect(log.hit(T0 + 61_200, 300)).toEqual({ allowed: true, count: 300, retryAfterSeconds: 0 });
    // Oldest counted is T0 + 1201 ms → leaves at T0 + 61 201 ms, 1 ms away.
    expect(log.hit(T0 + 61_200, 300)).toEqual({ allowed: false, count: 300, retryAfterSeconds: 1 });
    expect(log.hit(T0 + 61_201, 300).allowed).toBe(true);
    expect(log.size(T0 + 200_000)).toBe(0);
  });
});

/** A journal that keeps what a durable store would: admitted stamps and open reservations, pruned as told. */
class MemoryJournal implements SlidingLogJournal {
  times: number[] = [];
  readonly reservations = new Map<string, StoredReservation>();
  readonly expiredCalls: { cutoffMs: number; dropped: number; live: number; expiredIds: readonly string[] }[] = [];

  admitted(stampMs: number): void {
    this.times.push(stampMs);
  }
  reserved(reservation: StoredReservation): void {
    this.reservations.set(reservation.id, reservation);
  }
  settled(id: string, usesMs: readonly number[]): void {
    this.reservations.delete(id);
    this.times.push(...usesMs);
  }
  expired(cutoffMs: number, dropped: number, live: number, expiredIds: readonly string[]): void {
    this.expiredCalls.push({ cutoffMs, dropped, live, expiredIds });
    this.times = this.times.filter((t) => t > cutoffMs);
    for (const id of expiredIds) this.reservations.delete(id);
  }
  /** The state a new instance would load. */
  state(): SlidingLogState {
    return { times: [...this.times].sort((a, b) => a - b), reservations: [...this.reservations.values()] };
  }
}

describe("SlidingLog journal (what the RateLimiter saves to its storage, issue 11 §1)", () => {
  it("reports each admission with its stamp, each reservation and settlement, and what left the window", () => {
    const journal = new MemoryJournal();
    const log = new SlidingLog(WINDOW_MS, undefined, journal);
    log.hit(T0, 2);
    log.hit(T0 - 500, 2); // a clock 0.5 s behind: stamped at T0, as kept in memory
    log.hit(T0 + 1, 2); // refused: nothing reported
    expect(journal.times).toEqual([T0, T0]);
    log.reserve("lease", 3, T0 + 10, T0 + 1_010);
    expect([...journal.reservations.values()]).toEqual([{ id: "lease", count: 3, from: T0 + 10, until: T0 + 1_010 }]);
    log.settle("lease", [T0 + 5_000, T0 + 20]); // clamped into the lease and sorted
    expect(journal.reservations.size).toBe(0);
    expect(journal.times).toEqual([T0, T0, T0 + 20, T0 + 1_010]);
    expect(journal.expiredCalls).toEqual([]);
    expect(log.size(T0 + 60_020)).toBe(1);
    expect(journal.expiredCalls).toEqual([{ cutoffMs: T0 + 20, dropped: 3, live: 1, expiredIds: [] }]);
    expect(journal.times).toEqual([T0 + 1_010]);
  });

  it("reports an expired reservation by id", () => {
    const journal = new MemoryJournal();
    const log = new SlidingLog(WINDOW_MS, undefined, journal);
    log.reserve("abandoned", 2, T0, T0 + 1_000);
    expect(log.size(T0 + 60_999)).toBe(2);
    expect(journal.expiredCalls).toEqual([]);
    expect(log.size(T0 + 61_000)).toBe(0);
    expect(journal.expiredCalls).toEqual([{ cutoffMs: T0 + 1_000, dropped: 0, live: 0, expiredIds: ["abandoned"] }]);
    expect(journal.reservations.size).toBe(0);
  });

  it("property: a log restored from its journal at any point decides exactly as the uninterrupted log", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("hit" as const), gapMs: fc.integer({ min: -800, max: 9_000 }) }),
      fc.record({ kind: fc.constant("reserve" as const), count: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ kind: fc.constant("settle" as const), used: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant("restart" as const) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(op, { minLength: 1, maxLength: 120 }), (limit, ops) => {
        const model = new SlidingLog(WINDOW_MS);
        let journal = new MemoryJournal();
        let log = new SlidingLog(WINDOW_MS, undefined, journal);
        let t = T0;
        const open: string[] = [];
        let leaseNo = 0;
        for (const o of ops) {
          if (o.kind === "hit") {
            t += o.gapMs;
            expect(log.hit(t, limit)).toEqual(model.hit(t, limit));
          } else if (o.kind === "reserve") {
            const id = `lease-${leaseNo++}`;
            open.push(id);
            log.reserve(id, o.count, t, t + 1_000);
            model.reserve(id, o.count, t, t + 1_000);
          } else if (o.kind === "settle") {
            const id = open.shift();
            if (id === undefined) continue;
            const usedAt = Array.from({ length: o.used }, (_, i) => t - 100 + i * 300);
            log.settle(id, usedAt);
            model.settle(id, usedAt);
          } else {
            // A new instance: only what the journal kept survives.
            const state = journal.state();
            journal = new MemoryJournal();
            journal.times = [...state.times];
            for (const r of state.reservations) journal.reservations.set(r.id, r);
            log = new SlidingLog(WINDOW_MS, state, journal);
          }
          expect(log.size(t)).toBe(model.size(t));
          expect(log.reservedCount()).toBe(model.reservedCount());
        }
      }),
      { numRuns: 300, seed: 20261125 },
    );
  });
});
