import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Where a sweep of the every-minute cron that walks a large keyspace a slice per run stopped (docs/architecture.md
 * §Cron), one row per sweep: `name` says which (`document_objects`: the R2 objects of src/documents/orphans.ts) and
 * `cursor` is the last key it looked at ("" to start again from the beginning).
 */
export const maintenanceCursors = sqliteTable("maintenance_cursors", {
  name: text("name").primaryKey(),
  cursor: text("cursor").notNull(),
  updatedAt: text("updated_at").notNull(),
});
