/** Outcome of one check against a sliding-log window. */
export interface SlidingLogDecision {
  allowed: boolean;
  /** Requests counted in the window after this decision (reserved lease credits included). */
  count: number;
  /**
   * When refused: whole seconds until the oldest counted request leaves the window (≥ 1), the value of
   * `Retry-After` (docs/decisions.md §Rate limits). 0 when allowed.
   */
  retryAfterSeconds: number;
}

/** Lease credits held back in a log: `count` entries stamped at `until`, for uses in `[from, until]` (ms). */
export interface Reservation {
  count: number;
  from: number;
  until: number;
}

/** An open reservation with its lease id, as a log's state is saved and restored. */
export interface StoredReservation extends Reservation {
  id: string;
}

/** The whole state of a log: admitted times ascending (ms since epoch) and open reservations. */
export interface SlidingLogState {
  times: number[];
  reservations: StoredReservation[];
}

/**
 * Receives every change of a log's state as it happens, so a caller can keep a durable copy of it (the RateLimiter
 * writes each change to its SQLite storage, src/ratelimit/log-store.ts). Called synchronously, after the change.
 */
export interface SlidingLogJournal {
  /** A request was admitted and recorded at `stampMs` (its time, or the newest entry's if the clock stepped back). */
  admitted(stampMs: number): void;
  /** A reservation was opened. */
  reserved(reservation: StoredReservation): void;
  /** Reservation `id` was settled: dropped, and its uses recorded at `usesMs` (ascending, already capped and clamped). */
  settled(id: string, usesMs: readonly number[]): void;
  /**
   * The window moved on: every admitted entry stamped at or before `cutoffMs` left (`dropped` of them, possibly 0),
   * `live` entries remain, and the reservations `expiredIds` left too.
   */
  expired(cutoffMs: number, dropped: number, live: number, expiredIds: readonly string[]): void;
}

/**
 * An exact rolling-window counter: it keeps the time of every admitted request in the last `windowMs`
 * and admits a new one only while fewer than `limit` are counted. Refused requests are not recorded, so
 * they cost the caller nothing (docs/api.md §Rate limits, docs/decisions.md §Rate limits). Pure: time is passed in
 * (ms).
 *
 * It also holds lease reservations (src/ratelimit/leases.ts): `count` entries stamped at the lease's end, which may
 * lie in the future. An entry counts in the window ending at `nowMs` when its stamp is after `nowMs - windowMs`, so
 * future stamps always count, until the lease is settled (`settle`) or its stamp leaves the window.
 *
 * Durability stays outside: a `SlidingLogJournal` given to the constructor hears of every change, and a log built
 * from the state its journal kept (`SlidingLogState`) decides exactly as the original (the RateLimiter's SQLite copy,
 * src/ratelimit/log-store.ts; issue 11 §1).
 */
export class SlidingLog {
  /** Admitted request times, ascending (ms since epoch). */
  private times: number[] = [];
  private head = 0;
  /** Open lease reservations by lease id. */
  private readonly reservations = new Map<string, Reservation>();
  /** Sum of the reservations' counts. */
  private reserved = 0;

  /**
   * An empty log of `windowMs`, or one resuming `state` (as its journal saw it; times ascending). `journal`, when
   * given, is told of every later change.
   */
  constructor(
    private readonly windowMs: number,
    state?: SlidingLogState,
    private readonly journal?: SlidingLogJournal,
  ) {
    if (state) {
      this.times = [...state.times].sort((a, b) => a - b);
      for (const { id, count, from, until } of state.reservations) {
        if (count <= 0 || this.reservations.has(id)) continue;
        this.reservations.set(id, { count, from, until });
        this.reserved += count;
      }
    }
  }

  /** Decides one request at time `nowMs` against `limit` requests per window, recording it if admitted. */
  hit(nowMs: number, limit: number): SlidingLogDecision {
    this.evict(nowMs);
    const count = this.times.length - this.head + this.reserved;
    if (count < limit) {
      // Clocks may step back a little between isolates; keep the log sorted.
      const last = this.times[this.times.length - 1];
      const stamp = last !== undefined && last > nowMs ? last : nowMs;
      this.times.push(stamp);
      this.journal?.admitted(stamp);
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
    this.journal?.reserved({ id, count, from: fromMs, until: untilMs });
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
    this.journal?.settled(id, uses);
  }

  /**
   * Admitted entries stamped at or after `sinceMs` (ms since epoch), reservations not included; evicts nothing. The
   * RateLimiter asks it whether an account is active enough for an ordinary-limit lease (src/ratelimit/leases.ts).
   */
  admittedSince(sinceMs: number): number {
    return this.times.length - this.upperBound(sinceMs, this.head, true);
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

  /**
   * First index in `[from, times.length)` whose time is greater than `t`, or with `inclusive` at least `t` (times are
   * ascending).
   */
  private upperBound(t: number, from: number, inclusive = false): number {
    let lo = from;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const time = this.times[mid] ?? 0;
      if (time < t || (!inclusive && time === t)) lo = mid + 1;
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
    const headBefore = this.head;
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= cutoff) this.head++;
    const dropped = this.head - headBefore;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    let expiredIds: string[] | undefined;
    if (this.reserved > 0) {
      for (const [id, r] of this.reservations) {
        if (r.until <= cutoff) {
          this.reservations.delete(id);
          this.reserved -= r.count;
          if (expiredIds) expiredIds.push(id);
          else expiredIds = [id];
        }
      }
    }
    if (this.journal && (dropped > 0 || expiredIds)) {
      this.journal.expired(cutoff, dropped, this.times.length - this.head, expiredIds ?? []);
    }
  }
}
