import { and, count, desc, eq, type SQL, type SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { readBatch } from "../db/read-batch";
import { type CountedResource, countQuery } from "./counts";
import type { PageRequest } from "./jsonapi/pagination";

/** A tenant-owned table listed newest first: it has `account_id`, `created_at` and `id` columns. */
export interface ListableTable extends SQLiteTable {
  accountId: SQLiteColumn;
  createdAt: SQLiteColumn;
  id: SQLiteColumn;
}

/**
 * Queries to run in the same D1 round trip as a page, given a subquery that selects the page's ids (for
 * `inArray(parent_id, pageIds)`): the linkage a serializer needs, for instance.
 */
export type PageCompanions = (pageIds: SQLWrapper) => BatchItem<"sqlite">[];

/**
 * One page of an account's rows, newest first (`created_at DESC, id DESC`, DECISIONS.md §Wire format),
 * with the total number of matching rows, and optional companion queries keyed on the page — all in one D1
 * round trip. Without filters the total comes from `account_resource_counts` (O(1)); with filters it is a
 * COUNT over the account's index range. The page reads through the `(account_id, created_at, id)` index.
 * @returns the rows, the total, and each companion query's rows in order.
 */
export async function listPage<T extends ListableTable>(
  db: Database,
  table: T,
  resource: CountedResource,
  accountId: string,
  filters: (SQL | undefined)[],
  page: PageRequest,
  companions?: PageCompanions,
): Promise<{ rows: T["$inferSelect"][]; total: number; companions: unknown[][] }> {
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
  const pageIds = db
    .select({ id: table.id })
    .from(table as SQLiteTable)
    .where(where)
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(page.size)
    .offset(page.offset);
  const extra = companions ? companions(pageIds) : [];
  const [rows, totals, ...rest] = (await readBatch(db, [pageQuery, totalQuery, ...extra] as [
    BatchItem<"sqlite">,
    ...BatchItem<"sqlite">[],
  ])) as unknown[][];
  const first = (totals as { count: number }[] | undefined)?.[0];
  return { rows: (rows ?? []) as T["$inferSelect"][], total: Number(first?.count ?? 0), companions: rest };
}
