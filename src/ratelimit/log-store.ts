import type { SlidingLogJournal, SlidingLogState, StoredReservation } from "./sliding-log";

/**
 * Admitted entries that have left the window are deleted from storage in batches of at least this many (or half the
 * bucket's live entries, whichever is more): the table stays within `live + max(PRUNE_MIN, live / 2)` rows per
 * bucket, and a prune's scan costs a constant amount per admission, amortised.
 */
export const PRUNE_MIN = 64;

/** Schema of the RateLimiter's own SQLite storage; idempotent, run on every start of the object. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS rate_limit_entries (
  bucket TEXT NOT NULL,
  t INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rate_limit_reservations (
  id TEXT PRIMARY KEY,
  bucket TEXT NOT NULL,
  count INTEGER NOT NULL,
  from_ms INTEGER NOT NULL,
  until_ms INTEGER NOT NULL
);`;

/** Per-bucket bookkeeping of entries that left the window in memory but are still stored. */
interface PruneState {
  pending: number;
}

/**
 * The durable copy of a RateLimiter's sliding logs, in the Durable Object's own SQLite storage (issue 11 §1): one row
 * per admitted request still (or lately) in the window, one row per open lease reservation
 * (src/ratelimit/leases.ts). The in-memory `SlidingLog` stays the source of every decision; this store only mirrors
 * each change through its journal, so a new instance (after eviction, deploy or restart) resumes the exact window.
 *
 * No index on purpose: every admission writes one row and nothing else; the only scans are the load at start and the
 * batched prune (`PRUNE_MIN`), both over a table bounded by the buckets' live entries.
 *
 * Exactness across a restart: the new instance decides exactly as the old one would have, with one conservative
 * exception. Entries that left the window in memory but were not yet pruned from storage (fewer than one prune
 * batch) are loaded again; they still leave at the first check, unless that check's clock is behind the latest one
 * seen before the restart (isolates' clocks differ by milliseconds), in which case they count for it, as an exact
 * window at that earlier time would count them. That only ever refuses, never admits more.
 *
 * Writes are synchronous `sql.exec` calls inside the object's call: the Durable Object coalesces them into one
 * implicit transaction and holds the call's answer behind its output gate until they are durable, so no decision is
 * ever seen that storage could lose, and no extra round trip is waited for.
 */
export class SqlLogStore {
  private readonly prune = new Map<string, PruneState>();

  /** Opens the store on `sql` (`ctx.storage.sql`), creating its tables if needed. */
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  /** Every bucket's saved state: admitted times ascending (ms since epoch) and open reservations. */
  load(): Map<string, SlidingLogState> {
    const states = new Map<string, SlidingLogState>();
    const stateOf = (bucket: string): SlidingLogState => {
      let state = states.get(bucket);
      if (!state) {
        state = { times: [], reservations: [] };
        states.set(bucket, state);
      }
      return state;
    };
    for (const [bucket, t] of this.sql
      .exec<{ bucket: string; t: number }>("SELECT bucket, t FROM rate_limit_entries ORDER BY bucket, t")
      .raw<[string, number]>()) {
      stateOf(bucket).times.push(t);
    }
    for (const row of this.sql.exec<{
      id: string;
      bucket: string;
      count: number;
      from_ms: number;
      until_ms: number;
    }>("SELECT id, bucket, count, from_ms, until_ms FROM rate_limit_reservations")) {
      stateOf(row.bucket).reservations.push({
        id: row.id,
        count: row.count,
        from: row.from_ms,
        until: row.until_ms,
      });
    }
    return states;
  }

  /** The journal that mirrors the log of `bucket` into storage (give it to that bucket's `SlidingLog`). */
  journal(bucket: string): SlidingLogJournal {
    let prune = this.prune.get(bucket);
    if (!prune) {
      prune = { pending: 0 };
      this.prune.set(bucket, prune);
    }
    const state = prune;
    const sql = this.sql;
    return {
      admitted(stampMs: number): void {
        sql.exec("INSERT INTO rate_limit_entries (bucket, t) VALUES (?, ?)", bucket, stampMs);
      },
      reserved(r: StoredReservation): void {
        sql.exec(
          "INSERT OR REPLACE INTO rate_limit_reservations (id, bucket, count, from_ms, until_ms) VALUES (?, ?, ?, ?, ?)",
          r.id,
          bucket,
          r.count,
          r.from,
          r.until,
        );
      },
      settled(id: string, usesMs: readonly number[]): void {
        sql.exec("DELETE FROM rate_limit_reservations WHERE id = ?", id);
        // One statement for up to LEASE_MAX uses (a statement takes at most 100 bound parameters).
        if (usesMs.length > 0) {
          sql.exec(
            "INSERT INTO rate_limit_entries (bucket, t) SELECT ?, value FROM json_each(?)",
            bucket,
            JSON.stringify(usesMs),
          );
        }
      },
      expired(cutoffMs: number, dropped: number, live: number, expiredIds: readonly string[]): void {
        for (const id of expiredIds) sql.exec("DELETE FROM rate_limit_reservations WHERE id = ?", id);
        state.pending += dropped;
        if (state.pending >= Math.max(PRUNE_MIN, live >> 1)) {
          sql.exec("DELETE FROM rate_limit_entries WHERE bucket = ? AND t <= ?", bucket, cutoffMs);
          state.pending = 0;
        }
      },
    };
  }
}
