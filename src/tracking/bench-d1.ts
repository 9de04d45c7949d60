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
}

function meter(counter: D1Counter, meta: Partial<D1Meta> | undefined): void {
  counter.rowsRead = (counter.rowsRead ?? 0) + (meta?.rows_read ?? 0);
  counter.rowsWritten = (counter.rowsWritten ?? 0) + (meta?.rows_written ?? 0);
}

const RAW = Symbol("bench-trace.raw");
type Wrapped = D1PreparedStatement & { [RAW]: D1PreparedStatement };

function wrapStatement(stmt: D1PreparedStatement, counter: D1Counter): Wrapped {
  const once = () => {
    counter.batches += 1;
    counter.statements += 1;
  };
  return {
    [RAW]: stmt,
    bind: (...values: unknown[]) => wrapStatement(stmt.bind(...values), counter),
    // `first()` answers without meta, so it is run as `all()` (same statement, same rows read) and its first row taken.
    first: (async (column?: string) => {
      once();
      const result = await stmt.all<Record<string, unknown>>();
      meter(counter, result.meta);
      const row = result.results[0];
      if (row === undefined) return null;
      return column === undefined ? row : (row[column] ?? null);
    }) as D1PreparedStatement["first"],
    run: (async () => {
      once();
      const result = await stmt.run();
      meter(counter, result.meta);
      return result;
    }) as D1PreparedStatement["run"],
    all: (async () => {
      once();
      const result = await stmt.all();
      meter(counter, result.meta);
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
 * run on its own is one of one). Used only under `BENCH_ENGINE=trace`.
 */
export function countingD1(db: D1Database, counter: D1Counter): D1Database {
  return {
    prepare: (query: string) => wrapStatement(db.prepare(query), counter),
    batch: async (statements: D1PreparedStatement[]) => {
      counter.batches += 1;
      counter.statements += statements.length;
      const results = await db.batch(statements.map((s) => (s as Partial<Wrapped>)[RAW] ?? s));
      for (const r of results) meter(counter, r.meta);
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
