import { and, count, desc, eq, getTableName, type Placeholder, type SQL, type SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/client";
import { compileShape, placeholder, ShapedRead, shaped } from "../db/query-shapes";
import { readMany } from "../db/read-batch";
import { type CountedResource, countQuery } from "./counts";
import type { PageRequest } from "./jsonapi/pagination";

/** A tenant-owned table listed newest first: it has `account_id`, `created_at` and `id` columns. */
export interface ListableTable extends SQLiteTable {
  accountId: SQLiteColumn;
  createdAt: SQLiteColumn;
  id: SQLiteColumn;
}

/**
 * A list filter in query-shape form (src/db/query-shapes.ts), so the list's SQL is built once per isolate and
 * only bound per request. `name` identifies the SQL the filter adds and is part of the list's shape key: two
 * filters whose SQL differs must have different names (e.g. `tracking_stopped=true` / `tracking_stopped=false`).
 * `where` gets the placeholder of `value` (bound at request time) and must take nothing else from the request.
 */
export interface ListFilter {
  /** Names the condition's SQL; unique within a list. */
  name: string;
  /** The value bound to the filter's placeholder; leave out for a condition without one (`IS NULL`). */
  value?: unknown;
  /** The condition, given the placeholder of `value`. Called only when the shape is built. */
  where: (value: Placeholder) => SQL;
}

/**
 * Queries to run in the same D1 round trip as a page, given a subquery that selects the page's ids (for
 * `inArray(parent_id, pageIds)`): the linkage a serializer needs, for instance. In this ad-hoc form the list is
 * built anew on every request; prefer `ShapedCompanions`.
 */
export type PageCompanions = (pageIds: SQLWrapper) => BatchItem<"sqlite">[];

/**
 * Companion queries in query-shape form: `build` is called only when the list's shape is built, with the page-ids
 * subquery and the account's placeholder (it must take nothing else from the request), and `key` names everything
 * else its SQL depends on (e.g. the prefetched includes); it becomes part of the list's shape key.
 */
export interface ShapedCompanions {
  key: string;
  build: (pageIds: SQLWrapper, accountId: Placeholder) => BatchItem<"sqlite">[];
}

/**
 * A list's order other than newest first: `key` names the ORDER BY's SQL (part of the list's shape key, so two orders
 * whose SQL differs need different keys) and `by` is that ORDER BY, which must take nothing from the request but the
 * choice of order (no bound values) and should end on a unique column so pages never overlap.
 */
export interface ListOrder {
  key: string;
  by: SQL[];
}

/**
 * A `ListFilter` when the request gave the filter (`value` defined), else undefined (the filter is absent).
 * @example listFilter("scac", scac?.toUpperCase(), (v) => eq(containers.scac, v))
 */
export function listFilter(name: string, value: unknown, where: (value: Placeholder) => SQL): ListFilter | undefined {
  return value === undefined ? undefined : { name, value, where };
}

function isListFilter(f: SQL | ListFilter): f is ListFilter {
  return typeof (f as ListFilter).where === "function" && typeof (f as ListFilter).name === "string";
}

/**
 * One page of an account's rows, newest first (`created_at DESC, id DESC`, docs/decisions.md §Wire format),
 * with the total number of matching rows, and optional companion queries keyed on the page — all in one D1
 * round trip. Without filters the total comes from `account_resource_counts` (O(1)); with filters it is a
 * COUNT over the account's index range. The page reads through the `(account_id, created_at, id)` index
 * (`account_id = ?` first in the WHERE, without the unary plus of `ownedBy`).
 *
 * When every active filter is a `ListFilter` and the companions (if any) are `ShapedCompanions`, the queries are a
 * cached query shape keyed by table, resource, active filter names, whether an OFFSET is present and the
 * companions' key (about 1.9 ms of CPU saved per `GET /v2/containers?page[size]=30&include=shipment`, see
 * src/db/query-shapes.ts); with raw SQL filters or function companions they are built anew for the request. The
 * SQL sent is the same either way (and the same as before shapes existed). `order` replaces the newest-first order
 * (`GET /documents?sort=`); its key joins the shape key.
 * @returns the rows, the total, and each companion query's rows in order.
 * @throws Error when two list filters share a name (a programming error).
 */
export async function listPage<T extends ListableTable>(
  db: Database,
  table: T,
  resource: CountedResource,
  accountId: string,
  filters: (SQL | ListFilter | undefined)[],
  page: PageRequest,
  companions?: PageCompanions | ShapedCompanions,
  order?: ListOrder,
): Promise<{ rows: T["$inferSelect"][]; total: number; companions: unknown[][] }> {
  const active: (SQL | ListFilter)[] = [];
  let cacheable = companions === undefined || typeof companions !== "function";
  const values: Record<string, unknown> = { accountId, limit: page.size, offset: page.offset };
  const names: string[] = [];
  for (const f of filters) {
    if (f === undefined) continue;
    active.push(f);
    if (!isListFilter(f)) {
      cacheable = false;
      continue;
    }
    if (names.includes(f.name)) throw new Error(`listPage: two filters named "${f.name}"`);
    names.push(f.name);
    // A filter without a value binds nothing; one whose `where` uses its placeholder without a value fails loudly.
    if (f.value !== undefined) values[`filter:${f.name}`] = f.value;
  }
  const withOffset = page.offset > 0;
  const build = (): BatchItem<"sqlite">[] => {
    const account = placeholder("accountId");
    const conditions = active.map((f) => (isListFilter(f) ? f.where(placeholder(`filter:${f.name}`)) : f));
    const where = and(eq(table.accountId, account), ...conditions);
    const limit = placeholder("limit");
    const offset = placeholder("offset");
    const orderBy = order?.by ?? [desc(table.createdAt), desc(table.id)];
    const limitedPage = db
      .select()
      .from(table as SQLiteTable)
      .where(where)
      .orderBy(...orderBy)
      .limit(limit);
    const pageQuery = withOffset ? limitedPage.offset(offset) : limitedPage;
    const totalQuery =
      active.length === 0
        ? countQuery(db, account, resource)
        : db
            .select({ count: count() })
            .from(table as SQLiteTable)
            .where(where);
    const limitedIds = db
      .select({ id: table.id })
      .from(table as SQLiteTable)
      .where(where)
      .orderBy(...orderBy)
      .limit(limit);
    const pageIds = withOffset ? limitedIds.offset(offset) : limitedIds;
    const extra =
      companions === undefined
        ? []
        : typeof companions === "function"
          ? companions(pageIds)
          : companions.build(pageIds, account);
    return [pageQuery, totalQuery, ...extra];
  };
  const key = `list:${getTableName(table)}:${resource}:${names.join("&")}:${withOffset ? "offset" : ""}:${
    companions && typeof companions !== "function" ? companions.key : ""
  }${order ? `:order:${order.key}` : ""}`;
  const read = cacheable ? shaped(db, key, build, values) : new ShapedRead(compileShape(key, build()), values);
  const [rows, totals, ...rest] = await readMany(db, [read]);
  const first = (totals as { count: number }[] | undefined)?.[0];
  return { rows: (rows ?? []) as T["$inferSelect"][], total: Number(first?.count ?? 0), companions: rest };
}
