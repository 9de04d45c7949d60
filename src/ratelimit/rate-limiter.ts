import { DurableObject } from "cloudflare:workers";
import { WINDOW_MS } from "./buckets";
import { type LeaseGrant, type LeaseSettlement, leaseCredits, leaseDurationMs, leaseWanted } from "./leases";
import { SqlLogStore } from "./log-store";
import { SlidingLog, type SlidingLogDecision } from "./sliding-log";

/** One request to count: its bucket, the bucket's limit per 60 s, and its arrival time (ms since epoch). */
export interface RateLimitHit {
  bucket: string;
  limit: number;
  nowMs: number;
}

/** Options of `RateLimiter.hitMany`. */
export interface HitManyOptions {
  /** Leases of the calling isolate to settle before the hits are decided (src/ratelimit/leases.ts). */
  settle?: LeaseSettlement[];
  /**
   * True when the caller can hold leases: the object may then grant one per bucket of the call
   * (`leaseCredits`). A caller that leaves this unset gets plain decisions, exactly as `hit` gives.
   */
  acceptLeases?: boolean;
}

/** A decision of `hitMany`, carrying the bucket's new lease on the last hit of that bucket when one was granted. */
export interface RateLimitDecision extends SlidingLogDecision {
  lease?: LeaseGrant;
}

/**
 * One per account (named by the account id): keeps an exact sliding log per bucket. A Durable Object runs
 * one call at a time and `hit` never awaits, so concurrent requests are decided in a strict order and the
 * window admits exactly `limit` (docs/architecture.md §Components). For high limits it may lease a few admissions to
 * the calling isolate (src/ratelimit/leases.ts), still never admitting more than `limit` in any 60 s window.
 *
 * Durable (issue 11 §1): decisions are made from the logs in memory, and every admission, reservation and
 * settlement is written in the same call to the object's own SQLite storage (`SqlLogStore`, which prunes entries
 * that left the window in batches); the call's answer leaves only once that write is durable (output gate). An
 * idle object is evicted after about 10 s, and every deploy or runtime restart drops the instance; the next instance
 * loads the logs back in its constructor, so the window and the open leases are exactly what they were. The load
 * needs no `blockConcurrencyWhile`: SQLite storage is synchronous, so the constructor has finished before the first
 * call runs.
 *
 * Cost: an admitted call writes one row (a settlement one more statement); a refused call writes nothing. Measured
 * in the Workers test pool: ~0.4 ms more per admitted call than a refused one with the storage on tmpfs; on a disk,
 * local workerd fsyncs each commit on its one thread (~6 ms here; bench/README.md, session 4 of bench/api).
 */
export class RateLimiter extends DurableObject<Env> {
  private readonly logs = new Map<string, SlidingLog>();
  private readonly store: SqlLogStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new SqlLogStore(ctx.storage.sql);
    for (const [bucket, state] of this.store.load()) {
      this.logs.set(bucket, new SlidingLog(WINDOW_MS, state, this.store.journal(bucket)));
    }
  }

  /**
   * Counts one request of `bucket` at `nowMs` (ms since epoch, from the caller's clock) against `limit` per
   * 60 s. A refused request is not counted. Never grants a lease.
   */
  hit(bucket: string, limit: number, nowMs: number): SlidingLogDecision {
    return this.log(bucket).hit(nowMs, limit);
  }

  /**
   * Counts several requests in one call, in the order given (their arrival order in the calling isolate), exactly
   * as that many `hit` calls would (`src/ratelimit/client.ts` batches concurrent requests this way).
   *
   * With `options.settle`, first settles the caller's finished leases (unused credits are freed, used ones recorded
   * at their times); a call may carry settlements and no hits. With `options.acceptLeases`, then grants at most one
   * lease per bucket of the call, when the account is active enough (`leaseWanted`) and `leaseCredits(limit,
   * counted)` allows it at the time of that bucket's last hit, and attaches it to that hit's decision
   * (src/ratelimit/leases.ts).
   */
  hitMany(hits: RateLimitHit[], options?: HitManyOptions): RateLimitDecision[] {
    for (const s of options?.settle ?? []) {
      if (Array.isArray(s.usedAt)) this.logs.get(s.bucket)?.settle(s.leaseId, s.usedAt);
    }
    const decisions: RateLimitDecision[] = hits.map((h) => this.log(h.bucket).hit(h.nowMs, h.limit));
    if (options?.acceptLeases) {
      const lastOfBucket = new Map<string, number>();
      hits.forEach((h, i) => {
        lastOfBucket.set(h.bucket, i);
      });
      for (const [bucket, i] of lastOfBucket) {
        const h = hits[i] as RateLimitHit;
        const decision = decisions[i] as RateLimitDecision;
        const log = this.log(bucket);
        const duration = leaseDurationMs(h.limit);
        if (!leaseWanted(h.limit, log.admittedSince(h.nowMs - duration))) continue;
        const credits = leaseCredits(h.limit, log.size(h.nowMs));
        if (credits === 0) continue;
        const id = crypto.randomUUID();
        const leaseUntil = h.nowMs + duration;
        log.reserve(id, credits, h.nowMs, leaseUntil);
        decision.lease = {
          id,
          bucket,
          credits,
          grantedAt: h.nowMs,
          leaseUntil,
          count: log.size(h.nowMs),
        };
      }
    }
    return decisions;
  }

  private log(bucket: string): SlidingLog {
    let log = this.logs.get(bucket);
    if (!log) {
      log = new SlidingLog(WINDOW_MS, undefined, this.store.journal(bucket));
      this.logs.set(bucket, log);
    }
    return log;
  }
}
