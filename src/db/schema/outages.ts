import { sql } from "drizzle-orm";
import { primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * Outages of a tracking source that an account is told about once (issue 13 §1, "the account gets it once per
 * outage, not once per poll"): today a source refusing our credentials (`shipping_line_credentials_rejected`,
 * `terminal_credentials_rejected`), a configuration error of the operator that no retry fixes.
 *
 * - `source_type` / `source_code`: `shipping_line` + the line's SCAC (DCSA_SOURCES), or `terminal` + the facility
 *   code of the POD terminal or rail ramp (TERMINAL_SOURCES).
 * - An outage is open while `resolved_at` is null; at most one per source is open (a partial unique index), so the
 *   first box to find the source refusing opens it and every other box joins it. The first answer of the source
 *   after it closes it; a later refusal opens a new one.
 * Times are UTC ISO seconds. Written only when a box's own view of the source changes (src/tracking/source-outages.ts),
 * never on a poll that changes nothing.
 */
export const sourceOutages = sqliteTable(
  "source_outages",
  {
    id: text("id").primaryKey(),
    sourceType: text("source_type").notNull(),
    sourceCode: text("source_code").notNull(),
    reason: text("reason").notNull(),
    startedAt: text("started_at").notNull(),
    resolvedAt: text("resolved_at"),
  },
  (t) => [uniqueIndex("source_outages_open_idx").on(t.sourceType, t.sourceCode).where(sql`resolved_at IS NULL`)],
);

/**
 * The accounts an outage concerns: one row per account whose tracked boxes found the source refusing during the
 * outage (so each is told once when it starts, and once when it is resolved).
 */
export const sourceOutageAccounts = sqliteTable(
  "source_outage_accounts",
  {
    outageId: text("outage_id")
      .notNull()
      .references(() => sourceOutages.id),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.outageId, t.accountId] })],
);
