import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Database } from "./client";
import { ShapedRead } from "./query-shapes";
import { cachedRowMapper, mapBatchResult, type PreparedRead, type RowMapper } from "./row-mapper";

/** An item of `readMany`: an ad-hoc drizzle read query, or a cached query shape with its values (`shaped`). */
export type ReadItem = BatchItem<"sqlite"> | ShapedRead;

/**
 * Runs read queries built with drizzle in one D1 batch (one round trip), like `db.batch`, and returns each query's
 * rows exactly as `db.batch` would (objects keyed by the selection's keys, values decoded by the columns: JSON,
 * booleans …).
 *
 * Why not `db.batch`: drizzle 0.45 maps a D1 batch result row by row through `Object.keys` → array →
 * `mapResultRow`, which checks every cell's field class (`is(field, Column)`) on every row; on a list page with its
 * includes that was about a tenth of the Worker's CPU per request (`npm run bench -- api`, CPU profile). Here the
 * keys and decoders of a query shape are worked out once (cached by SQL text) and each row is one loop. D1 answers a
 * batch with one object per row whose keys are in column order, which is what drizzle's own batch path relies on
 * too (so, like it, a selection must not repeat a column name).
 *
 * Only for SELECTs with a flat selection; any other query in the batch is mapped by drizzle itself. Uses drizzle's
 * internal prepared-query API (`_prepare`, `fields`, `stmt`), pinned with drizzle-orm 0.45.4 and covered by every
 * list and read test. Hot reads skip building the queries too: see `readMany` and src/db/query-shapes.ts.
 * @throws whatever D1 throws for the batch (nothing is partially applied: these are reads).
 */
export async function readBatch<U extends BatchItem<"sqlite">, T extends Readonly<[U, ...U[]]>>(
  db: Database,
  queries: T,
): Promise<BatchResponse<T>> {
  return (await readMany(db, queries)) as BatchResponse<T>;
}

/**
 * `readBatch` for a mix of ad-hoc queries and query shapes (`shaped(...)`, src/db/query-shapes.ts), in one D1
 * round trip. A shape contributes one result per query it holds, so the results are flat: one row array per
 * statement, in order. Shaped queries are neither built nor compiled here: their statements are bound to the
 * request's values and their rows mapped by the mapper worked out when the shape was compiled.
 * @throws Error when a shape's placeholder has no value (a programming error); whatever D1 throws for the batch.
 */
export async function readMany(db: Database, items: readonly ReadItem[]): Promise<unknown[][]> {
  const statements: D1PreparedStatement[] = [];
  const mapping: { prepared: PreparedRead; mapper: RowMapper | null }[] = [];
  for (const item of items) {
    if (item instanceof ShapedRead) {
      statements.push(...item.statements());
      for (const q of item.shape.queries) mapping.push(q);
      continue;
    }
    const prepared = (item as unknown as { _prepare(): PreparedRead })._prepare();
    const { sql, params } = prepared.getQuery();
    statements.push(prepared.stmt.bind(...params));
    mapping.push({ prepared, mapper: cachedRowMapper(prepared, sql) });
  }
  const d1 = (db as unknown as { $client: D1Database }).$client;
  const results = await d1.batch(statements);
  return results.map((result, i) => {
    const m = mapping[i] as { prepared: PreparedRead; mapper: RowMapper | null };
    return mapBatchResult(result, m.prepared, m.mapper);
  });
}

/**
 * Runs the statements of query shapes that write (INSERT/UPDATE/DELETE, e.g. a create and its count) in one D1
 * batch: one round trip, atomic (D1 runs a batch as one transaction, so a statement that fails undoes the others).
 * Nothing is built or compiled here, only bound (src/db/query-shapes.ts).
 * @returns per statement, in order, the rows it returned (`RETURNING`, mapped as drizzle would), else [].
 * @throws Error when a placeholder has no value (a programming error); whatever D1 throws for the batch (e.g. a
 *   UNIQUE violation).
 */
export async function runShaped(db: Database, writes: readonly ShapedRead[]): Promise<unknown[][]> {
  return readMany(db, writes);
}
