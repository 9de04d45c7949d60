import { type BucketName, limitFor, WINDOW_MS } from "./buckets";
import type { LeaseGrant, LeaseSettlement } from "./leases";
import type { HitManyOptions, RateLimitDecision, RateLimitHit } from "./rate-limiter";
import type { SlidingLogDecision } from "./sliding-log";

/** The part of the RateLimiter Durable Object stub the client calls (an interface so tests can observe batches). */
export interface RateLimiterCaller {
  hitMany(hits: RateLimitHit[], options?: HitManyOptions): Promise<RateLimitDecision[]>;
}

/** One request's check while it waits for, or rides in, a call to the account's RateLimiter. */
interface PendingHit extends RateLimitHit {
  decision?: SlidingLogDecision;
  error?: unknown;
}

/** A lease this isolate holds for one bucket of one account (src/ratelimit/leases.ts). */
interface HeldLease {
  id: string;
  bucket: string;
  /** Credits not yet given out. */
  remaining: number;
  grantedAt: number;
  leaseUntil: number;
  /** `count` of the decisions given out from this lease (the object's count right after the grant). */
  count: number;
  /** Times (the checks' `nowMs`) of the admissions given out from this lease. */
  usedAt: number[];
}

/**
 * What keeps a request's context alive past its response until a promise settles: the request's `ExecutionContext`,
 * or a Durable Object's `DurableObjectState` (both have `waitUntil`). The coalescer uses it to settle a lease with
 * credits left when the lease ends (src/ratelimit/leases.ts).
 */
export type KeepAlive = Pick<ExecutionContext, "waitUntil">;

/** How long after a lease's end its unused credits are settled (ms): past `leaseUntil` by the caller's clock. */
export const LEASE_END_SETTLE_DELAY_MS = 50;

/**
 * The checks of one account in this isolate: those waiting for the next call, the call in flight, the leases held
 * per bucket, and finished leases still to report.
 */
interface Lane {
  waiting: PendingHit[];
  flight: Promise<void> | null;
  leases: Map<string, HeldLease>;
  unsettled: LeaseSettlement[];
}

/**
 * How long a waiting check trusts a call in flight before it gives up on it and calls the RateLimiter itself (ms).
 * A call only outlives this when the request that sent it was torn down mid-call; the waiter then sends its own
 * batch, so no check can hang on another request's fate. A check already counted by the lost call may be counted
 * twice, which errs towards refusing, never towards admitting too many.
 */
export const STALLED_CALL_MS = 5_000;

/**
 * Lanes kept before lanes that hold nothing that still counts are swept. After a sweep the next one waits until the
 * map has doubled, so sweeping stays amortised O(1) per new lane however many accounts stay active.
 */
const LANE_SWEEP_THRESHOLD = 1_024;

/**
 * Coalesces the rate-limit checks of concurrent requests of one account in this isolate into one Durable Object
 * call, and gives out admissions leased by the account's RateLimiter without any call
 * (docs/architecture.md §Components, docs/api.md §Rate limits, src/ratelimit/leases.ts).
 *
 * Why: the call to the account's RateLimiter is the largest fixed cost of a cheap read (about 0.6-0.8 ms of the
 * ~8 ms a request costs in `npm run bench -- api`), and each call that admits commits to the object's storage. With
 * several requests of one account in flight, all checks that arrive while a call is out ride together in the next
 * one; and while at least half the limit is free, checks are admitted from a lease, with one call per lease (1 % of a
 * limit ≥ `LEASE_MIN_LIMIT` for 1 s; 5 % of an ordinary limit ≥ `SMALL_LEASE_MIN_LIMIT` for 3 s).
 *
 * Exactness: the RateLimiter decides every check that reaches it one at a time and in arrival order against its
 * exact sliding log; a lease is a reservation counted in that log, so no rolling 60 s window ever admits more than
 * the limit (proof in src/ratelimit/leases.ts). A call settles this isolate's leases of the buckets it asks about
 * before deciding, so with one isolate per account every decision is the exact log's; below `SMALL_LEASE_MIN_LIMIT`
 * no lease is granted at all. A check never waits for more than the call in flight plus its own.
 *
 * Contexts: the request that sends a batch awaits it in its own context, and every waiting request wakes up in its
 * own context when the call in flight settles (workerd delivers a promise's continuations to the request that
 * awaited it), then either finds its decision, takes a credit of a lease that call brought, or sends the next batch
 * itself. So no request depends on another request's context staying alive, except for at most `STALLED_CALL_MS`.
 */
export class RateLimitCoalescer {
  private readonly lanes = new Map<string, Lane>();
  private sweepAt = LANE_SWEEP_THRESHOLD;

  constructor(private readonly stallMs = STALLED_CALL_MS) {}

  /**
   * Decides one request of `bucket` at `nowMs` (ms since epoch) against `limit` per rolling 60 s for `laneKey` (the
   * account id), through `caller` (the account's RateLimiter), or locally from a live lease of that bucket. With
   * `keepAlive` (the request's execution context), a lease this check's call brings is settled when it ends if credits are
   * left, in a call of its own kept alive by it; without, at the lane's next call. Rejects with the call's error when
   * the Durable Object call fails.
   */
  async check(
    laneKey: string,
    caller: () => RateLimiterCaller,
    hit: RateLimitHit,
    keepAlive?: KeepAlive,
  ): Promise<SlidingLogDecision> {
    let lane = this.lanes.get(laneKey);
    if (!lane) {
      if (this.lanes.size >= this.sweepAt) this.sweep(hit.nowMs);
      lane = { waiting: [], flight: null, leases: new Map(), unsettled: [] };
      this.lanes.set(laneKey, lane);
    }
    const local = takeCredit(lane, hit);
    if (local) return local;
    const pending: PendingHit = { bucket: hit.bucket, limit: hit.limit, nowMs: hit.nowMs };
    lane.waiting.push(pending);
    while (pending.decision === undefined && pending.error === undefined) {
      const flight = lane.flight;
      if (flight) {
        if (!(await this.settlesInTime(flight))) {
          // The request that sent this call is gone; stop waiting for it, and ask again if this check rode in it.
          if (lane.flight === flight) lane.flight = null;
          if (pending.decision === undefined && !lane.waiting.includes(pending)) lane.waiting.push(pending);
        }
        // The call may have brought a lease this check can use; it then leaves the queue (skipped when sending).
        if (pending.decision === undefined && pending.error === undefined) {
          const leased = takeCredit(lane, pending);
          if (leased) pending.decision = leased;
        }
        continue;
      }
      const batch = lane.waiting.splice(0).filter((p) => p.decision === undefined && p.error === undefined);
      if (batch.length === 0) {
        // Only when this check rode in a call given up as stalled and was not queued again: queue it now.
        lane.waiting.push(pending);
        continue;
      }
      const settle = takeSettlements(lane, batch, hit.nowMs);
      const sent = this.send(caller(), laneKey, lane, batch, settle, keepAlive).finally(() => {
        if (lane.flight === sent) lane.flight = null;
        if (this.lanes.get(laneKey) === lane && isIdle(lane)) this.lanes.delete(laneKey);
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

  /** Credits left on the lease this isolate holds for (`laneKey`, `bucket`), 0 without one (tests, diagnostics). */
  leaseCredits(laneKey: string, bucket: string): number {
    return this.lanes.get(laneKey)?.leases.get(bucket)?.remaining ?? 0;
  }

  /**
   * Sends one batch (settling `settle` first) and writes each check's decision (or the call's error) onto it,
   * installing any lease granted (and, with `keepAlive`, its settling when it ends); never rejects. On failure the
   * settlements are kept for the next call (settling is idempotent: the object ignores a lease it no longer holds).
   */
  private async send(
    caller: RateLimiterCaller,
    laneKey: string,
    lane: Lane,
    batch: PendingHit[],
    settle: LeaseSettlement[],
    keepAlive: KeepAlive | undefined,
  ): Promise<void> {
    try {
      const hits = batch.map(({ bucket, limit, nowMs }) => ({ bucket, limit, nowMs }));
      const decisions = await caller.hitMany(hits, settle.length > 0 ? { settle, acceptLeases: true } : LEASES_ONLY);
      if (decisions.length !== batch.length) throw new Error("RateLimiter answered a batch with the wrong length");
      batch.forEach((p, i) => {
        const d = decisions[i] as RateLimitDecision;
        if (d.lease) {
          const held = installLease(lane, d.lease);
          if (keepAlive) this.settleWhenEnded(caller, laneKey, lane, held, keepAlive);
        }
        p.decision = { allowed: d.allowed, count: d.count, retryAfterSeconds: d.retryAfterSeconds };
      });
    } catch (error) {
      lane.unsettled.push(...settle);
      for (const p of batch) p.error = error;
    }
  }

  /**
   * Waits, under `keepAlive` (the request that took the lease), for the end of `held` (its duration after the grant,
   * plus `LEASE_END_SETTLE_DELAY_MS`), then settles it in a call of its own if it is still held with credits left.
   * The wait always runs its whole course in that request's context: its timer and the promise `keepAlive` holds may
   * not be touched from another request's (workerd refuses I/O on behalf of another request), so a lease used up or
   * settled meanwhile simply finds nothing to do.
   */
  private settleWhenEnded(
    caller: RateLimiterCaller,
    laneKey: string,
    lane: Lane,
    held: HeldLease,
    keepAlive: KeepAlive,
  ): void {
    const ended = new Promise<void>((resolve) => {
      setTimeout(resolve, held.leaseUntil - held.grantedAt + LEASE_END_SETTLE_DELAY_MS);
    });
    keepAlive.waitUntil(ended.then(() => this.settleEnded(caller, laneKey, lane, held)));
  }

  /**
   * Settles `held` with its uses (and the lane's undelivered settlements) in a call carrying no hit, when the lane
   * still holds it with credits left; never rejects (a failed call leaves the settlements for the lane's next call).
   */
  private async settleEnded(caller: RateLimiterCaller, laneKey: string, lane: Lane, held: HeldLease): Promise<void> {
    if (lane.leases.get(held.bucket) !== held || held.remaining === 0) return;
    lane.leases.delete(held.bucket);
    const settle = [...lane.unsettled.splice(0), { bucket: held.bucket, leaseId: held.id, usedAt: held.usedAt }];
    try {
      await caller.hitMany([], { settle });
    } catch {
      lane.unsettled.push(...settle);
    }
    if (this.lanes.get(laneKey) === lane && isIdle(lane)) this.lanes.delete(laneKey);
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

  /**
   * Drops lanes with nothing in flight, nothing to report, and no lease whose reservation may still count at `nowMs`
   * (one that ended within the last 60 s). Such a lease must be settled by the lane's next call: forgetting it would
   * leave its unused credits reserved in the object and refuse the account's requests early.
   */
  private sweep(nowMs: number): void {
    for (const [key, lane] of this.lanes) {
      if (lane.flight || lane.waiting.length > 0 || lane.unsettled.length > 0) continue;
      for (const [bucket, lease] of lane.leases) {
        if (lease.leaseUntil + WINDOW_MS < nowMs) lane.leases.delete(bucket);
      }
      if (lane.leases.size === 0) this.lanes.delete(key);
    }
    this.sweepAt = Math.max(LANE_SWEEP_THRESHOLD, this.lanes.size * 2);
  }
}

const LEASES_ONLY: HitManyOptions = { acceptLeases: true };

/**
 * Admits `hit` from the lane's lease of its bucket when that lease is live at `hit.nowMs` (grantedAt ≤ nowMs ≤
 * leaseUntil) and has a credit left, recording the use; otherwise returns undefined. Expired credits are never used.
 */
function takeCredit(lane: Lane, hit: RateLimitHit): SlidingLogDecision | undefined {
  const lease = lane.leases.get(hit.bucket);
  if (!lease || lease.remaining <= 0 || hit.nowMs < lease.grantedAt || hit.nowMs > lease.leaseUntil) return undefined;
  lease.remaining--;
  lease.usedAt.push(hit.nowMs);
  return { allowed: true, count: lease.count, retryAfterSeconds: 0 };
}

/**
 * The leases to settle in the call that carries `batch`: those of the batch's buckets (the batch's checks could not
 * use them: spent, expired, or not yet valid), every lease expired by `nowMs`, and earlier reports not yet delivered.
 */
function takeSettlements(lane: Lane, batch: PendingHit[], nowMs: number): LeaseSettlement[] {
  const settle = lane.unsettled.splice(0);
  if (lane.leases.size === 0) return settle;
  for (const [bucket, lease] of lane.leases) {
    if (lease.leaseUntil < nowMs || batch.some((p) => p.bucket === bucket)) {
      lane.leases.delete(bucket);
      settle.push({ bucket, leaseId: lease.id, usedAt: lease.usedAt });
    }
  }
  return settle;
}

/**
 * Holds a newly granted lease and returns it; a lease it replaces (only when calls overlap) is queued for settling.
 */
function installLease(lane: Lane, grant: LeaseGrant): HeldLease {
  const previous = lane.leases.get(grant.bucket);
  if (previous) lane.unsettled.push({ bucket: previous.bucket, leaseId: previous.id, usedAt: previous.usedAt });
  const held: HeldLease = {
    id: grant.id,
    bucket: grant.bucket,
    remaining: grant.credits,
    grantedAt: grant.grantedAt,
    leaseUntil: grant.leaseUntil,
    count: grant.count,
    usedAt: [],
  };
  lane.leases.set(grant.bucket, held);
  return held;
}

/** True when a lane holds nothing: no call, no waiting check, no lease, nothing to report. */
function isIdle(lane: Lane): boolean {
  return lane.flight === null && lane.waiting.length === 0 && lane.leases.size === 0 && lane.unsettled.length === 0;
}

/** The isolate's coalescer for REST and MCP requests. */
const coalescer = new RateLimitCoalescer();

/**
 * Counts one request of `accountId` against `bucket` (limit from the environment, `limitFor`) at `nowMs`, in the
 * account's RateLimiter Durable Object, coalesced with concurrent checks of the same account and admitted from a
 * lease without a call while one is held (`RateLimitCoalescer`, src/ratelimit/leases.ts). `keepAlive` (the request's
 * execution context) lets a lease this request takes be settled when it ends. Refused requests are not counted. Rejects
 * when the Durable Object cannot be reached.
 */
export function checkRateLimit(
  env: Env,
  accountId: string,
  bucket: BucketName,
  nowMs: number,
  keepAlive?: KeepAlive,
): Promise<SlidingLogDecision> {
  return coalescer.check(
    accountId,
    () => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(accountId)),
    { bucket, limit: limitFor(env, bucket), nowMs },
    keepAlive,
  );
}
