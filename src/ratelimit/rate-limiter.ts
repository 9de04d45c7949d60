import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { WINDOW_MS } from "./buckets";
import { SlidingLog, type SlidingLogDecision } from "./sliding-log";

/** One request to count: its bucket, the bucket's limit per 60 s, and its arrival time (ms since epoch). */
export interface RateLimitHit {
  bucket: string;
  limit: number;
  nowMs: number;
}

/**
 * One per account (named by the account id): keeps an exact sliding log per bucket. A Durable Object runs
 * one call at a time and `hit` never awaits, so concurrent requests are decided in a strict order and the
 * window admits exactly `limit` (DESIGN.md §2). The log lives in memory: an object is only evicted after
 * being idle, by which time its 60 s window has emptied anyway.
 */
export class RateLimiter extends DurableObject<Env> {
  private readonly logs = new Map<string, SlidingLog>();

  /**
   * Counts one request of `bucket` at `nowMs` (ms since epoch, from the caller's clock) against `limit` per
   * 60 s. A refused request is not counted.
   */
  hit(bucket: string, limit: number, nowMs: number): SlidingLogDecision {
    let log = this.logs.get(bucket);
    if (!log) {
      log = new SlidingLog(WINDOW_MS);
      this.logs.set(bucket, log);
    }
    return log.hit(nowMs, limit);
  }

  /**
   * Counts several requests in one call, in the order given (their arrival order in the calling isolate), exactly
   * as that many `hit` calls would (`src/ratelimit/client.ts` batches concurrent requests this way).
   */
  hitMany(hits: RateLimitHit[]): SlidingLogDecision[] {
    return hits.map((h) => this.hit(h.bucket, h.limit, h.nowMs));
  }
}
