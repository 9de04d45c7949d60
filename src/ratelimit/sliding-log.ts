/** Outcome of one check against a sliding-log window. */
export interface SlidingLogDecision {
  allowed: boolean;
  /** Requests counted in the window after this decision. */
  count: number;
  /**
   * When refused: whole seconds until the oldest counted request leaves the window (≥ 1), the value of
   * `Retry-After` (DECISIONS.md §Rate limits). 0 when allowed.
   */
  retryAfterSeconds: number;
}

/**
 * An exact rolling-window counter: it keeps the time of every admitted request in the last `windowMs`
 * and admits a new one only while fewer than `limit` are counted. Refused requests are not recorded, so
 * they cost the caller nothing (SPEC.md §8, DECISIONS.md §Rate limits). Pure: time is passed in (ms).
 */
export class SlidingLog {
  /** Admitted request times, ascending (ms since epoch). */
  private times: number[] = [];
  private head = 0;

  constructor(private readonly windowMs: number) {}

  /** Decides one request at time `nowMs` against `limit` requests per window, recording it if admitted. */
  hit(nowMs: number, limit: number): SlidingLogDecision {
    this.evict(nowMs);
    const count = this.times.length - this.head;
    if (count < limit) {
      // Clocks may step back a little between isolates; keep the log sorted.
      const last = this.times[this.times.length - 1];
      this.times.push(last !== undefined && last > nowMs ? last : nowMs);
      return { allowed: true, count: count + 1, retryAfterSeconds: 0 };
    }
    // The request that must leave before one more fits: with `limit` admitted, the oldest counted one.
    const index = this.head + count - limit;
    const oldest = this.times[index] ?? nowMs;
    const waitMs = oldest + this.windowMs - nowMs;
    return { allowed: false, count, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Requests counted in the window ending at `nowMs`. */
  size(nowMs: number): number {
    this.evict(nowMs);
    return this.times.length - this.head;
  }

  private evict(nowMs: number): void {
    const cutoff = nowMs - this.windowMs;
    while (this.head < this.times.length && (this.times[this.head] ?? 0) <= cutoff) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
