import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * D1's limit on bound parameters per statement ("Maximum number of bound parameters per query: 100",
 * https://developers.cloudflare.com/d1/platform/limits/). A multi-row INSERT binds one parameter per column value, so
 * its rows are chunked by {@link insertChunks} to stay within it.
 */
export const D1_MAX_BOUND_PARAMETERS = 100;

/**
 * How many parameters drizzle binds for `row` in an INSERT into `table`: one per column the row gives a value
 * (null included) or that has a default (`.default()`, `$defaultFn`, `$onUpdateFn`: drizzle binds it when the row
 * leaves the column out); a column left out without a default is written as a literal `null`.
 */
export function boundParameters(table: SQLiteTable, row: Record<string, unknown>): number {
  let n = 0;
  for (const [field, column] of Object.entries(getTableColumns(table))) {
    const c = column as SQLiteColumn & { defaultFn?: unknown; onUpdateFn?: unknown };
    if (
      row[field] !== undefined ||
      c.default !== undefined ||
      c.defaultFn !== undefined ||
      c.onUpdateFn !== undefined
    ) {
      n += 1;
    }
  }
  return n;
}

/**
 * `rows` cut, in order, into runs for one multi-row `INSERT … VALUES (…), (…)` each into `table`: as many rows as
 * bind at most {@link D1_MAX_BOUND_PARAMETERS} together ({@link boundParameters}), and a new run wherever
 * `group(row)` changes (rows written with different ON CONFLICT clauses, e.g.), so the statements, run one after the
 * other in a batch, write exactly what one INSERT per row would, in the same order.
 * @param rowOf the row to insert of an item (the item itself by default).
 * @returns the runs with their group key; none for no rows.
 * @throws RangeError when one row alone binds more than the limit.
 */
export function insertChunks<T, G = null>(
  table: SQLiteTable,
  items: readonly T[],
  group: (item: T) => G = () => null as G,
  rowOf: (item: T) => Record<string, unknown> = (item) => item as Record<string, unknown>,
): { group: G; rows: T[] }[] {
  const runs: { group: G; rows: T[]; params: number }[] = [];
  for (const item of items) {
    const g = group(item);
    const params = boundParameters(table, rowOf(item));
    if (params > D1_MAX_BOUND_PARAMETERS) throw new RangeError(`a row binds ${params} parameters (D1 allows 100)`);
    const last = runs[runs.length - 1];
    if (last && last.group === g && last.params + params <= D1_MAX_BOUND_PARAMETERS) {
      last.rows.push(item);
      last.params += params;
    } else {
      runs.push({ group: g, rows: [item], params });
    }
  }
  return runs.map(({ group: g, rows }) => ({ group: g, rows }));
}

/**
 * `excluded.<column>` (SQLite's name for the row an INSERT proposed) for an `ON CONFLICT DO UPDATE SET` of a
 * multi-row INSERT: each conflicting row is updated with its own values, as one INSERT per row would be.
 */
export function excluded(column: SQLiteColumn): SQL {
  return sql.raw(`excluded."${column.name}"`);
}
