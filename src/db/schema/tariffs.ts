import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";
import { terminals } from "./reference";

/** A rate tier as stored: chargeable days `from_day`..`to_day` (null: open-ended) at `rate_per_day` (decimal string). */
export interface StoredRateTier {
  from_day: number;
  to_day: number | null;
  rate_per_day: string;
  currency_code: string;
}

/**
 * Tariffs (issue 27 §1; docs/charges.md): an account's demurrage, detention, combined or terminal storage terms for
 * a scope (SCAC, POD UN/LOCODE, terminal, equipment length and type; null fields match every box), with free days
 * counted in calendar or business days from a clock event, and rate tiers. Read by `chargesOf` (src/charges/).
 */
export const tariffs = sqliteTable(
  "tariffs",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name"),
    /** `demurrage`, `detention`, `combined` or `terminal_storage`. */
    kind: text("kind").notNull(),
    scac: text("scac"),
    portCode: text("port_code"),
    terminalId: text("terminal_id").references(() => terminals.id),
    equipmentLength: integer("equipment_length"),
    equipmentType: text("equipment_type"),
    freeDays: integer("free_days").notNull(),
    /** `calendar` or `business`. */
    freeDaysBasis: text("free_days_basis").notNull(),
    /** `discharged`, `available` or `full_out`. */
    clockStartsAt: text("clock_starts_at").notNull(),
    tiers: text("tiers", { mode: "json" }).$type<StoredRateTier[]>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("tariffs_account_created_idx").on(t.accountId, t.createdAt, t.id)],
);
