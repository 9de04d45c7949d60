import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The search index's documents (docs/api.md §Search, docs/architecture.md §Search index): one row per shipment,
 * container ("cargo") and tracking request, written only by the SQL triggers of migration 0011 on those tables, never
 * by application code. `body` holds the entity's searchable terms, each normalised (spaces and dashes dropped) and
 * framed as U+0002 term U+0003, so the FTS5 trigram table `search_fts` (external content over this table, also kept by
 * triggers) answers exact (`\x02q\x03`), prefix (`\x02q`) and substring (`q`) phrases.
 *
 * `id` (the FTS5 rowid) orders the account's documents for ranking: `account seq << 39 | kind << 37 | counter`, the
 * kind 0 for shipments, 1 for containers, 2 for tracking requests, the counter falling as documents are indexed (the
 * newest has the lowest), so `rowid BETWEEN` the account's range `ORDER BY rowid` walks one account's matches,
 * shipments first, newest first, and stops at the page's end.
 */
export const searchDocs = sqliteTable(
  "search_docs",
  {
    id: integer("id").primaryKey(),
    accountId: text("account_id").notNull(),
    /** `shipment`, `cargo` or `tracking_request` (the reference's `entity_type`). */
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id").notNull(),
    body: text("body").notNull(),
  },
  (t) => [uniqueIndex("search_docs_entity_idx").on(t.entityType, t.entityId)],
);

/** The small integer of each account in `search_docs.id` (its high 24 bits), assigned on its first indexed row. */
export const searchAccounts = sqliteTable("search_accounts", {
  accountId: text("account_id").primaryKey(),
  seq: integer("seq").notNull().unique(),
});
