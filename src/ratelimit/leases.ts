/**
 * Admission leases (DECISIONS.md §Rate limits, "Admission leases"): for high limits only, the account's RateLimiter
 * Durable Object may hand the calling isolate a small number of admissions it can give out locally, without a
 * Durable Object call per request.
 *
 * The rule, and why no rolling 60 s window ever admits more than the limit:
 * - A lease of `credits` admissions for one (account, bucket) is granted at `grantedAt` (the caller's clock, ms) and
 *   usable for requests at `grantedAt ≤ t ≤ leaseUntil` (`leaseUntil = grantedAt + LEASE_MS`).
 * - The Durable Object records the lease as `credits` reserved entries stamped at `leaseUntil`. A use at any
 *   `t ≤ leaseUntil` is therefore covered by an entry that counts in every window that could contain it, from the
 *   moment of the grant until the lease is settled or `leaseUntil + 60 s` has passed.
 * - The isolate settles a lease in its next call to the object, reporting the times of the admissions it made from
 *   it; the object swaps the reservation for those times (at most `credits` of them, each clamped into
 *   `[grantedAt, leaseUntil]`). Unused credits are freed at once. A lease never settled (the isolate died) stays
 *   reserved at `leaseUntil`: it blocks at most `credits` admissions, and only until `leaseUntil + 60 s`.
 * - Every admission is thus counted by one entry stamped no earlier than the admission, from its decision on, and
 *   each decision (a hit, or a grant) is made against that exact count, so the count in any window never exceeds the
 *   limit.
 * - Leases are granted only when `limit ≥ LEASE_MIN_LIMIT` and at least half the limit is free (reservations count as
 *   used), so ordinary limits (SPEC.md §8 defaults: 100, 100, 200, 10) keep one exact decision per request.
 */

/** How long a lease's credits can be used after the grant (ms). */
export const LEASE_MS = 1_000;

/** The smallest limit (requests per 60 s) for which a lease is granted; below it every request is decided alone. */
export const LEASE_MIN_LIMIT = 1_000;

/** The most credits one lease carries. */
export const LEASE_MAX = 256;

/** Share of the limit one lease carries at most (1 %): `credits = min(LEASE_MAX, floor(limit / LEASE_LIMIT_DIVISOR))`. */
export const LEASE_LIMIT_DIVISOR = 100;

/**
 * Credits of a lease for a bucket with `limit` per 60 s that now counts `counted` entries (reservations included), or
 * 0 when no lease may be granted: `limit < LEASE_MIN_LIMIT`, or less than half the limit is free.
 */
export function leaseCredits(limit: number, counted: number): number {
  if (!(limit >= LEASE_MIN_LIMIT)) return 0;
  if ((limit - counted) * 2 < limit) return 0;
  return Math.min(LEASE_MAX, Math.floor(limit / LEASE_LIMIT_DIVISOR));
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
