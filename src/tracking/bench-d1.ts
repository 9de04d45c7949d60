// The counting D1 binding of the benches (bench/engine, bench/capacity): src/tracking/bench-trace.ts and
// src/tracking/bench-capacity.ts use it; nothing else does.

/**
 * D1 round trips counted by {@link countingD1}: `batches` (a `batch()` or one statement run alone), `statements`,
 * and D1's billing meters as each answer's `meta` reports them: `rowsRead` (`rows_read`), `rowsWritten`
 * (`rows_written`); `unmetered` counts statements run with `raw()`, whose answer has no meta.
 */
export interface D1Counter {
  batches: number;
  statements: number;
  rowsRead?: number;
  rowsWritten?: number;
  unmetered?: number;
  /** Time D1 spent executing the statements (`meta.duration`, ms). */
  sqlMs?: number;
  /**
   * Per kind of write (`insert transport_events`, `update containers`, `delete …`; reads are not listed): how many
   * statements of a `batch()` were of that kind and the rows they changed (D1's `meta.changes`: rows inserted,
   * updated or deleted by the statement itself, not by its triggers). Filled only when present.
   */
  writes?: Record<string, { statements: number; changes: number }>;
}

/** `insert <table>`, `update <table>` or `delete <table>` for a write statement drizzle built; null for a read. */
export function writeKind(query: string): string | null {
  const m = /^\s*(insert|update|delete)\s+(?:into\s+|from\s+)?"?(\w+)"?/is.exec(query);
  return m ? `${m[1]?.toLowerCase()} ${m[2]}` : null;
}

/** Called with each metered statement's SQL and its answer's meta (bench/capacity's heavy-statement tally). */
export type D1MetaObserver = (sql: string, meta: Partial<D1Meta>) => void;

function meter(counter: D1Counter, meta: Partial<D1Meta> | undefined, sql = "", observe?: D1MetaObserver): void {
  if (observe && meta) observe(sql, meta);
  counter.rowsRead = (counter.rowsRead ?? 0) + (meta?.rows_read ?? 0);
  counter.rowsWritten = (counter.rowsWritten ?? 0) + (meta?.rows_written ?? 0);
  counter.sqlMs = (counter.sqlMs ?? 0) + (meta?.duration ?? 0);
}

const RAW = Symbol("bench-trace.raw");
const SQL = Symbol("bench-trace.sql");
type Wrapped = D1PreparedStatement & { [RAW]: D1PreparedStatement; [SQL]: string };

function wrapStatement(stmt: D1PreparedStatement, counter: D1Counter, sql: string, observe?: D1MetaObserver): Wrapped {
  const once = () => {
    counter.batches += 1;
    counter.statements += 1;
  };
  return {
    [RAW]: stmt,
    [SQL]: sql,
    bind: (...values: unknown[]) => wrapStatement(stmt.bind(...values), counter, sql, observe),
    // `first()` answers without meta, so it is run as `all()` (same statement, same rows read) and its first row taken.
    first: (async (column?: string) => {
      once();
      const result = await stmt.all<Record<string, unknown>>();
      meter(counter, result.meta, sql, observe);
      const row = result.results[0];
      if (row === undefined) return null;
      return column === undefined ? row : (row[column] ?? null);
    }) as D1PreparedStatement["first"],
    run: (async () => {
      once();
      const result = await stmt.run();
      meter(counter, result.meta, sql, observe);
      return result;
    }) as D1PreparedStatement["run"],
    all: (async () => {
      once();
      const result = await stmt.all();
      meter(counter, result.meta, sql, observe);
      return result;
    }) as D1PreparedStatement["all"],
    raw: ((options?: { columnNames?: boolean }) => {
      once();
      counter.unmetered = (counter.unmetered ?? 0) + 1;
      return stmt.raw(options as { columnNames: true });
    }) as D1PreparedStatement["raw"],
  } as Wrapped;
}

/**
 * `db` with every round trip counted into `counter` (a `batch()` is one round trip of its statements; a statement
 * run on its own is one of one), and `observe` (if given) called with each metered statement's SQL and meta. Used
 * only under `BENCH_ENGINE=trace` and `BENCH_CAPACITY=1`.
 */
export function countingD1(db: D1Database, counter: D1Counter, observe?: D1MetaObserver): D1Database {
  return {
    prepare: (query: string) => wrapStatement(db.prepare(query), counter, query, observe),
    batch: async (statements: D1PreparedStatement[]) => {
      counter.batches += 1;
      counter.statements += statements.length;
      const results = await db.batch(statements.map((s) => (s as Partial<Wrapped>)[RAW] ?? s));
      const writes = counter.writes;
      for (const [i, r] of results.entries()) {
        const query = (statements[i] as Partial<Wrapped>)[SQL];
        meter(counter, r.meta, query ?? "", observe);
        const kind = writes && query !== undefined ? writeKind(query) : null;
        if (writes && kind !== null) {
          const w = writes[kind] ?? { statements: 0, changes: 0 };
          w.statements += 1;
          w.changes += r.meta?.changes ?? 0;
          writes[kind] = w;
        }
      }
      return results;
    },
    exec: (query: string) => {
      counter.batches += 1;
      counter.statements += 1;
      return db.exec(query);
    },
    dump: () => db.dump(),
    withSession: (constraint?: string) => db.withSession(constraint),
  } as D1Database;
}
