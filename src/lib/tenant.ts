import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * The tenant condition `account_id = ?` for queries that find rows by a selective key (an id, a list of ids,
 * a parent id): written `+account_id = ?` so SQLite does not use an index for it. D1 keeps no ANALYZE
 * statistics, so without the unary plus the planner assumes `account_id = ?` matches a handful of rows and may
 * scan the account's whole `(account_id, created_at, id)` index instead of looking the ids up — a cost that
 * grows with the account (measured by bench/api: 1 s per query at 1 000 000 containers, 0.2 ms with this).
 * The scoping itself is unchanged: the row must still belong to the account.
 * @param accountId the account's id, or a placeholder for it in a query shape (src/db/query-shapes.ts): the SQL
 *   text is the same either way.
 */
export function ownedBy(column: SQLiteColumn, accountId: string | Placeholder): SQL {
  return sql`+${column} = ${accountId}`;
}

/**
 * `column = value` as a filter only, never an index term (`+column = ?`, the reason `ownedBy` gives): for conditions
 * beside a selective key (ids) on a column that leads an index, such as `delivery_status = 'pending'` beside
 * `id IN (…)`. Without it SQLite, lacking D1 statistics, takes the status index from about 10 ids and reads every
 * row of that status (bench/capacity, issue 29: 11 563 rows per delivery claim at 10 000 boxes).
 */
export function filterOnly(column: SQLiteColumn, value: string | number | Placeholder): SQL {
  return sql`+${column} = ${value}`;
}
