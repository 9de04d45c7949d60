import type { Env } from "../env";
import { type BucketName, limitFor } from "./buckets";
import type { RateLimitHit } from "./rate-limiter";
import type { SlidingLogDecision } from "./sliding-log";

/** The part of the RateLimiter Durable Object stub the client calls (an interface so tests can observe batches). */
export interface RateLimiterCaller {
  hitMany(hits: RateLimitHit[]): Promise<SlidingLogDecision[]>;
}

/** One request's check while it waits for, or rides in, a call to the account's RateLimiter. */
interface PendingHit extends RateLimitHit {
  decision?: SlidingLogDecision;
  error?: unknown;
}

/** The checks of one account in this isolate: those waiting for the next call, and the call in flight. */
interface Lane {
  waiting: PendingHit[];
  flight: Promise<void> | null;
}

/**
 * How long a waiting check trusts a call in flight before it gives up on it and calls the RateLimiter itself (ms).
 * A call only outlives this when the request that sent it was torn down mid-call; the waiter then sends its own
 * batch, so no check can hang on another request's fate. A check already counted by the lost call may be counted
 * twice, which errs towards refusing, never towards admitting too many.
 */
export const STALLED_CALL_MS = 5_000;

/**
 * Coalesces the rate-limit checks of concurrent requests of one account in this isolate into one Durable Object
 * call (DESIGN.md §2, SPEC.md §8).
 *
 * Why: the call to the account's RateLimiter is the largest fixed cost of a cheap read (about 2.3 ms of CPU per
 * request in `npm run bench -- api`). With several requests of one account in flight, all checks that arrive while
 * a call is out ride together in the next one.
 *
 * Exactness is unchanged: the RateLimiter still decides every check, one at a time and in arrival order, against
 * its exact sliding log; a batch only saves round trips. A check never waits for more than the call in flight plus
 * its own.
 *
 * Contexts: the request that sends a batch awaits it in its own context, and every waiting request wakes up in its
 * own context when the call in flight settles (workerd delivers a promise's continuations to the request that
 * awaited it), then either finds its decision or sends the next batch itself. So no request depends on another
 * request's context staying alive, except for at most `STALLED_CALL_MS` (see above).
 */
export class RateLimitCoalescer {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly stallMs = STALLED_CALL_MS) {}

  /**
   * Decides one request of `bucket` at `nowMs` (ms since epoch) against `limit` per rolling 60 s for `laneKey` (the
   * account id), through `caller` (the account's RateLimiter). Rejects with the call's error when the Durable
   * Object call fails.
   */
  async check(laneKey: string, caller: () => RateLimiterCaller, hit: RateLimitHit): Promise<SlidingLogDecision> {
    let lane = this.lanes.get(laneKey);
    if (!lane) {
      lane = { waiting: [], flight: null };
      this.lanes.set(laneKey, lane);
    }
    const pending: PendingHit = { ...hit };
    lane.waiting.push(pending);
    while (pending.decision === undefined && pending.error === undefined) {
      const flight = lane.flight;
      if (flight) {
        if (!(await this.settlesInTime(flight))) {
          // The request that sent this call is gone; stop waiting for it, and ask again if this check rode in it.
          if (lane.flight === flight) lane.flight = null;
          if (pending.decision === undefined && !lane.waiting.includes(pending)) lane.waiting.push(pending);
        }
        continue;
      }
      const batch = lane.waiting.splice(0);
      const sent = this.send(caller(), batch).finally(() => {
        if (lane.flight === sent) lane.flight = null;
        if (lane.flight === null && lane.waiting.length === 0 && this.lanes.get(laneKey) === lane) {
          this.lanes.delete(laneKey);
        }
      });
      lane.flight = sent;
      await sent;
    }
    if (pending.error !== undefined) throw pending.error;
    return pending.decision as SlidingLogDecision;
  }

  /** Checks waiting or in flight for `laneKey` (for tests and diagnostics). */
  waitingCount(laneKey: string): number {
    return this.lanes.get(laneKey)?.waiting.length ?? 0;
  }

  /** Sends one batch and writes each check's decision (or the call's error) onto it; never rejects. */
  private async send(caller: RateLimiterCaller, batch: PendingHit[]): Promise<void> {
    try {
      const decisions = await caller.hitMany(batch.map(({ bucket, limit, nowMs }) => ({ bucket, limit, nowMs })));
      if (decisions.length !== batch.length) throw new Error("RateLimiter answered a batch with the wrong length");
      batch.forEach((p, i) => {
        p.decision = decisions[i];
      });
    } catch (error) {
      for (const p of batch) p.error = error;
    }
  }

  /** True when `flight` settles within the stall bound. */
  private async settlesInTime(flight: Promise<void>): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.stallMs);
    });
    try {
      return await Promise.race([flight.then(() => true as const), stalled]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}

/** The isolate's coalescer for REST and MCP requests. */
const coalescer = new RateLimitCoalescer();

/**
 * Counts one request of `accountId` against `bucket` (limit from the environment, `limitFor`) at `nowMs`, in the
 * account's RateLimiter Durable Object, coalesced with concurrent checks of the same account (`RateLimitCoalescer`).
 * Refused requests are not counted. Rejects when the Durable Object cannot be reached.
 */
export function checkRateLimit(
  env: Env,
  accountId: string,
  bucket: BucketName,
  nowMs: number,
): Promise<SlidingLogDecision> {
  return coalescer.check(accountId, () => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(accountId)), {
    bucket,
    limit: limitFor(env, bucket),
    nowMs,
  });
}
