import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The retention archive's manifest (src/archive/, docs/SCALING.md §Retention and archive): one row per R2 object of
 * ARCHIVE_BUCKET, written after the object was put and read back, before any of its rows is deleted from D1.
 * - `kind`: the table whose rows the object holds (`raw_events`, `webhook_notifications`, `webhook_deliveries`).
 * - `month`: `YYYY-MM` of the rows' `created_at` (a notification's delivery attempts go with their notification's
 *   month); `key`: `archive/<account>/<YYYY-MM>/<kind>/<part>.ndjson.gz` (R2 cannot append, so a month has parts).
 * - `rows`, `bytes` (compressed size), `sha256` (hex of the compressed bytes, checked on every read).
 * - `purgedAt`: when the object's rows were deleted from D1 (null until then: a run that stopped between the R2 write
 *   and the delete left both copies, and the next run finishes the delete).
 */
export const archiveObjects = sqliteTable(
  "archive_objects",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: text("account_id").notNull(),
    kind: text("kind").notNull(),
    month: text("month").notNull(),
    key: text("key").notNull().unique(),
    rows: integer("rows").notNull(),
    bytes: integer("bytes").notNull(),
    sha256: text("sha256").notNull(),
    createdAt: text("created_at").notNull(),
    purgedAt: text("purged_at"),
  },
  (t) => [
    index("archive_objects_account_kind_month_idx").on(t.accountId, t.kind, t.month),
    // The cron's "finish the deletes" step: objects whose rows may still be in D1.
    index("archive_objects_unpurged_idx").on(t.purgedAt).where(sql`purged_at IS NULL`),
  ],
);

/**
 * Where an archived notification is, without listing R2: one row per archived notification (its delivery attempts
 * are found through the notification's object: the `webhook_deliveries` object of the same key part).
 */
export const archivedRows = sqliteTable(
  "archived_rows",
  {
    id: text("id").primaryKey(),
    objectId: integer("object_id").notNull(),
  },
  (t) => [index("archived_rows_object_idx").on(t.objectId)],
);

/**
 * Where a container's archived raw events are, compactly: one row per container per object, `events` the JSON array
 * `[[id, index], …]` of its rows in that object. A container's archived rows (and its `raw_events` linkage) are one
 * index probe away; about 45 bytes per archived raw event instead of a row and two index entries each
 * (docs/SCALING.md §Retention and archive).
 */
export const archivedRawEvents = sqliteTable(
  "archived_raw_events",
  {
    objectId: integer("object_id").notNull(),
    containerId: text("container_id").notNull(),
    events: text("events").notNull(),
  },
  (t) => [
    index("archived_raw_events_container_idx").on(t.containerId),
    index("archived_raw_events_object_idx").on(t.objectId),
  ],
);
