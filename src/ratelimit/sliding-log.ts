/** Outcome of one check against a sliding-log window. */
export interface SlidingLogDecision {
  allowed: boolean;
  /** Requests counted in the window after this decision (reserved lease credits included). */
  count: number;
  /**
   * When refused: whole seconds until the oldest counted request leaves the window (≥ 1), the value of
   * `Retry-After` (DECISIONS.md §Rate limits). 0 when allowed.
   */
  retryAfterSeconds: number;
}

/** Lease credits held back in a log: `count` entries stamped at `until`, for uses in `[from, until]`. */
interface Reservation {
  count: number;
  from: number;
  until: number;
}

/**
 * An exact rolling-window counter: it keeps the time of every admitted request in the last `windowMs`
 * and admits a new one only while fewer than `limit` are counted. Refused requests are not recorded, so
 * they cost the caller nothing (SPEC.md §8, DECISIONS.md §Rate limits). Pure: time is passed in (ms).
 *
 * It also holds lease reservations (src/ratelimit/leases.ts): `count` entries stamped at the lease's end, which may
 * lie in the future. An entry counts in the window ending at `nowMs` when its stamp is after `nowMs - windowMs`, so
 * future stamps always count, until the lease is settled (`settle`) or its stamp leaves the window.
 */
export class SlidingLog {
  /** Admitted request times, ascending (ms since epoch). */
  private times: number[] = [];
  private head = 0;
  /** Open lease reservations by lease id. */
  private readonly reservations = new Map<string, Reservation>();
  /** Sum of the reservations' counts. */
  private reserved = 0;

  constructor(private readonly windowMs: number) {}

  /** Decides one request at time `nowMs` against `limit` requests per window, recording it if admitted. */
  hit(nowMs: number, limit: number): SlidingLogDecision {
    this.evict(nowMs);
    const count = this.times.length - this.head + this.reserved;
    if (count < limit) {
      // Clocks may step back a little between isolates; keep the log sorted.
      const last = this.times[this.times.length - 1];
      this.times.push(last !== undefined && last > nowMs ? last : nowMs);
      return { allowed: true, count: count + 1, retryAfterSeconds: 0 };
    }
    // The entry that must leave before one more fits: with `limit` admitted, the oldest counted one.
    const leaving = this.stampAt(count - limit) ?? nowMs;
    const waitMs = leaving + this.windowMs - nowMs;
    return { allowed: false, count, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Entries counted in the window ending at `nowMs`, reservations included. */
  size(nowMs: number): number {
    this.evict(nowMs);
    return this.times.length - this.head + this.reserved;
  }

  /**
   * Reserves `count` entries for lease `id`, usable in `[fromMs, untilMs]` and stamped at `untilMs` until settled.
   * The caller checks there is room (`leaseCredits`); this only records.
   */
  reserve(id: string, count: number, fromMs: number, untilMs: number): void {
    if (count <= 0 || this.reservations.has(id)) return;
    this.reservations.set(id, { count, from: fromMs, until: untilMs });
    this.reserved += count;
  }

  /**
   * Settles lease `id`: drops its reservation and records the admissions made from it at `usedAt` (ms since epoch),
   * at most the reserved count of them, each clamped into the lease's `[from, until]` (a non-number counts as
   * `until`). An unknown id (never granted, settled before, or already out of the window) changes nothing.
   */
  settle(id: string, usedAt: readonly number[]): void {
    const reservation = this.reservations.get(id);
    if (!reservation) return;
    this.reservations.delete(id);
    this.reserved -= reservation.count;
    const { from, until } = reservation;
    const uses = usedAt
      .slice(0, reservation.count)
      .map((t) => (typeof t === "number" && Number.isFinite(t) ? Math.min(until, Math.max(from, t)) : until))
      .sort((a, b) => a - b);
    this.insertSorted(uses);
  }

  /** Open reservations' entries (for tests and diagnostics; evicts nothing). */
  reservedCount(): number {
    return this.reserved;
  }

  /** The stamp of the counted entry at 0-based `position` in ascending order, reservations merged in. */
  private stampAt(position: number): number | undefined {
    let remaining = position;
    let real = this.head;
    if (this.reserved > 0) {
      const groups = [...this.reservations.values()].sort((a, b) => a.until - b.until);
      for (const group of groups) {
        const before = this.upperBound(group.until, real) - real;
        if (remaining < before) return this.times[real + remaining];
        remaining -= before;
        real += before;
        if (remaining < group.count) return group.until;
        remaining -= group.count;
      }
    }
    return this.times[real + remaining];
  }

  /** First index in `[from, times.length)` whose time is greater than `t`. */
  private upperBound(t: number, from: number): number {
    let lo = from;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.times[mid] ?? 0) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Merges ascending `uses` into the log, keeping it ascending (only the tail after the first use moves). */
  private insertSorted(uses: number[]): void {
    const first = uses[0];
    if (first === undefined) return;
    const at = this.upperBound(first, this.head);
    const tail = this.times.splice(at);
    let i = 0;
    let j = 0;
    while (i < uses.length || j < tail.length) {
      const u = uses[i];
      const t = tail[j];
      if (t === undefined || (u !== undefined && u <= t)) {
        this.times.push(u as number);
        i++;
      } else {
        this.times.push(t);
        j++;
      }
    }
  }

  private evict(nowMs: number): void {
    const cutoff = nowMs - this.windowMs;
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= cutoff) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    if (this.reserved > 0) {
      for (const [id, r] of this.reservations) {
        if (r.until <= cutoff) {
          this.reservations.delete(id);
          this.reserved -= r.count;
        }
      }
    }
  }
}
