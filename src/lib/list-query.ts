import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { type CountedResource, countQuery } from "./counts";
import type { PageRequest } from "./jsonapi/pagination";

/** A tenant-owned table listed newest first: it has `account_id`, `created_at` and `id` columns. */
export interface ListableTable extends SQLiteTable {
  accountId: SQLiteColumn;
  createdAt: SQLiteColumn;
  id: SQLiteColumn;
}

/**
 * One page of an account's rows, newest first (`created_at DESC, id DESC`, DECISIONS.md §Wire format),
 * with the total number of matching rows. The page and the total are read in one D1 round trip. Without
 * filters the total comes from `account_resource_counts` (O(1)); with filters it is a COUNT over the
 * account's index range. The query reads through the `(account_id, created_at, id)` index.
 */
export async function listPage<T extends ListableTable>(
  db: Database,
  table: T,
  resource: CountedResource,
  accountId: string,
  filters: (SQL | undefined)[],
  page: PageRequest,
): Promise<{ rows: T["$inferSelect"][]; total: number }> {
  const active = filters.filter((f): f is SQL => f !== undefined);
  const where = and(eq(table.accountId, accountId), ...active);
  const pageQuery = db
    .select()
    .from(table as SQLiteTable)
    .where(where)
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(page.size)
    .offset(page.offset);
  const totalQuery =
    active.length === 0
      ? countQuery(db, accountId, resource)
      : db
          .select({ count: count() })
          .from(table as SQLiteTable)
          .where(where);
  const [rows, totals] = await db.batch([pageQuery, totalQuery]);
  return { rows: rows as T["$inferSelect"][], total: Number(totals[0]?.count ?? 0) };
}
