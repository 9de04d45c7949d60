/**
 * Admission leases (docs/decisions.md §Rate limits, "Admission leases"): the account's RateLimiter Durable Object may
 * hand the calling isolate a small number of admissions it can give out locally, without a Durable Object call (and,
 * since issue 11 §1, without a durable write) per request.
 *
 * The rule, and why no rolling 60 s window ever admits more than the limit:
 * - A lease of `credits` admissions for one (account, bucket) is granted at `grantedAt` (the caller's clock, ms) and
 *   usable for requests at `grantedAt ≤ t ≤ leaseUntil` (`leaseUntil = grantedAt + leaseDurationMs(limit)`).
 * - The Durable Object records the lease as `credits` reserved entries stamped at `leaseUntil`, durably, in the call
 *   that grants it. A use at any `t ≤ leaseUntil` is therefore covered by an entry that counts in every window that
 *   could contain it, from the moment of the grant until the lease is settled or `leaseUntil + 60 s` has passed, and
 *   an eviction or restart of the object in between loses nothing (src/ratelimit/log-store.ts).
 * - The isolate settles a lease in its next call to the object, reporting the times of the admissions it made from
 *   it; the object swaps the reservation for those times (at most `credits` of them, each clamped into
 *   `[grantedAt, leaseUntil]`). Unused credits are freed at once. A lease never settled (the isolate died) stays
 *   reserved at `leaseUntil`: it blocks at most `credits` admissions, and only until `leaseUntil + 60 s`.
 * - Every admission is thus counted by one entry stamped no earlier than the admission, from its decision on, and
 *   each decision (a hit, or a grant) is made against that exact count, so the count in any window never exceeds the
 *   limit.
 * - Leases are granted only while at least half the limit is free (reservations count as used), so the second half
 *   of every window is decided one request at a time by the object, with an exact `Retry-After`.
 * - An ordinary-limit lease goes only to an account that had another admission in that bucket within the lease's
 *   duration (`leaseWanted`): a slower account would use none of it.
 * - The isolate settles a lease that still has credits when it ends (`leaseUntil`), from the request's `waitUntil`
 *   (src/ratelimit/client.ts), so its unused credits are freed about when the lease ends, not at the isolate's next
 *   call to the object, which may never come. A lease used up is settled by the next call as before (its entries,
 *   stamped at `leaseUntil`, then count at most the lease's duration longer than their real times).
 *
 * Two sizes (issue 11 §1: one durable commit per admitted call made the object's storage the bottleneck of accounts
 * at ordinary limits; bench/README.md §bench/api, session 5):
 * - high limits (≥ `LEASE_MIN_LIMIT` per minute): 1 % of the limit, at most `LEASE_MAX`, for `LEASE_MS` (1 s);
 * - ordinary limits (`SMALL_LEASE_MIN_LIMIT` up to `LEASE_MIN_LIMIT`, the docs/api.md §Rate limits defaults 100, 100
 *   and 200 included): 5 % of the limit, at most `SMALL_LEASE_MAX` (5 of 100, 10 of 200 and above), for
 *   `SMALL_LEASE_MS` (3 s, the time a client sending at exactly its limit's average rate takes to send 5 % of it). The
 *   refresh bucket (10/min) and any limit under 20 get none.
 *
 * What a lease costs a client, exactly: with one isolate serving the account (wrangler dev, tests, a quiet account),
 * the isolate settles its lease in the call that asks the object anything, so every decision equals the exact
 * sliding log's. When several isolates serve one account, credits an isolate holds but does not use count until the
 * lease ends and the isolate settles it (or calls again): another isolate may be refused up to `credits` requests
 * early (at most one lease per isolate and bucket) during a lease's duration (3 s, or 1 s for high limits). Only an
 * isolate that died holding a lease leaves its credits counted until `leaseUntil + 60 s`.
 */

/** How long a high-limit lease's credits can be used after the grant (ms). */
export const LEASE_MS = 1_000;

/** The smallest limit (requests per 60 s) granted high-limit leases (1 %, `LEASE_MS`). */
export const LEASE_MIN_LIMIT = 1_000;

/** The smallest limit (requests per 60 s) granted any lease; below it every request is decided alone. */
export const SMALL_LEASE_MIN_LIMIT = 20;

/** Share of an ordinary limit (below `LEASE_MIN_LIMIT`) one lease carries: `floor(limit / 20)`, 5 %. */
export const SMALL_LEASE_LIMIT_DIVISOR = 20;

/**
 * The most credits an ordinary-limit lease carries: 10, reached at 200/min and what 1 % of `LEASE_MIN_LIMIT` gives,
 * so a lease never shrinks as the limit grows.
 */
export const SMALL_LEASE_MAX = 10;

/**
 * How long an ordinary-limit lease's credits can be used after the grant (ms): 3 s, in which a client at exactly its
 * limit's average rate (limit per 60 s) sends 5 % of the limit, the lease's size. Longer would only keep unused
 * credits away from other isolates for longer.
 */
export const SMALL_LEASE_MS = 3_000;

/** The most credits one lease carries. */
export const LEASE_MAX = 256;

/** Share of the limit one lease carries at most (1 %): `credits = min(LEASE_MAX, floor(limit / LEASE_LIMIT_DIVISOR))`. */
export const LEASE_LIMIT_DIVISOR = 100;

/**
 * Whether the account is active enough for a lease of a bucket with `limit` per 60 s, given `recentAdmissions`: the
 * bucket's admitted entries within the lease's duration (`leaseDurationMs`) before and including the hit the lease
 * would go with. Ordinary limits (below `LEASE_MIN_LIMIT`) need at least 2: an account sending one request every
 * 3 s or slower would use none of a lease's credits before it ends, and its unused credits would only be held away
 * from the account's other isolates until settled. High limits lease from the first request (an account allowed
 * 1 000+ a minute is there for bulk traffic).
 */
export function leaseWanted(limit: number, recentAdmissions: number): boolean {
  return limit >= LEASE_MIN_LIMIT || recentAdmissions >= 2;
}

/**
 * Credits of a lease for a bucket with `limit` per 60 s that now counts `counted` entries (reservations included), or
 * 0 when no lease may be granted: `limit < SMALL_LEASE_MIN_LIMIT`, or less than half the limit is free. 1 % of the
 * limit (at most `LEASE_MAX`) from `LEASE_MIN_LIMIT` up, 5 % (at most `SMALL_LEASE_MAX`) below.
 */
export function leaseCredits(limit: number, counted: number): number {
  if (!(limit >= SMALL_LEASE_MIN_LIMIT)) return 0;
  if ((limit - counted) * 2 < limit) return 0;
  if (limit < LEASE_MIN_LIMIT) return Math.min(SMALL_LEASE_MAX, Math.floor(limit / SMALL_LEASE_LIMIT_DIVISOR));
  return Math.min(LEASE_MAX, Math.floor(limit / LEASE_LIMIT_DIVISOR));
}

/** How long (ms) a lease of a bucket with `limit` per 60 s is usable after its grant: `LEASE_MS` or `SMALL_LEASE_MS`. */
export function leaseDurationMs(limit: number): number {
  return limit >= LEASE_MIN_LIMIT ? LEASE_MS : SMALL_LEASE_MS;
}

/** A lease as granted by the RateLimiter Durable Object, attached to the last decision of its bucket in a call. */
export interface LeaseGrant {
  /** Unique id (a UUID) to settle the lease with. */
  id: string;
  bucket: string;
  /** Admissions the holder may give out locally. */
  credits: number;
  /** The grant time (the caller's clock, ms since epoch); credits are usable from here. */
  grantedAt: number;
  /** The last moment (ms since epoch, inclusive) a credit may be used. */
  leaseUntil: number;
  /** Entries counted in the window right after the grant, the reservation included (the `count` of local decisions). */
  count: number;
}

/** The report that settles a lease: the times (ms since epoch) of the admissions made from it. */
export interface LeaseSettlement {
  bucket: string;
  leaseId: string;
  usedAt: number[];
}
