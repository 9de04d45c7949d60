import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * Where an import is (docs/api.md §Tracking request imports): `validated` (every row checked, nothing created; waits
 * for a start), `running` (valid rows being created within the account's create bucket), `completed`.
 */
export const IMPORT_STATUSES = ["validated", "running", "completed"] as const;
/** One of {@link IMPORT_STATUSES}. */
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/**
 * What became of one row: `valid` (checked, not yet created), `invalid` (a rule failed; never created), `created`
 * (a tracking request exists), `failed` (valid when checked, refused by the create itself).
 */
export const IMPORT_ROW_OUTCOMES = ["valid", "invalid", "creating", "created", "failed"] as const;
/** One of {@link IMPORT_ROW_OUTCOMES}; `creating` is the claim a background step holds while it creates the row. */
export type ImportRowOutcome = (typeof IMPORT_ROW_OUTCOMES)[number];

/** One reason a row is invalid or failed: a stable code and a sentence for people. */
export interface ImportRowReason {
  code: string;
  detail: string;
}

/**
 * Bulk imports of tracking requests from a CSV/XLSX file or JSON rows (issue 28 §Track; src/tracking-request-imports/).
 * The counts are kept on the row so a status poll reads one row.
 */
export const trackingRequestImports = sqliteTable(
  "tracking_request_imports",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    status: text("status").$type<ImportStatus>().notNull(),
    /** `csv`, `xlsx` or `json`. */
    format: text("format").notNull(),
    fileName: text("file_name"),
    totalRows: integer("total_rows").notNull(),
    validRows: integer("valid_rows").notNull(),
    invalidRows: integer("invalid_rows").notNull(),
    createdRows: integer("created_rows").notNull().default(0),
    failedRows: integer("failed_rows").notNull().default(0),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    startedAt: text("started_at"),
    completedAt: text("completed_at"),
  },
  (t) => [index("tracking_request_imports_account_idx").on(t.accountId, t.createdAt)],
);

/** The rows of an import, in file order (`row_number` is the spreadsheet's row: the header is row 1). */
export const trackingRequestImportRows = sqliteTable(
  "tracking_request_import_rows",
  {
    importId: text("import_id")
      .notNull()
      .references(() => trackingRequestImports.id),
    rowNumber: integer("row_number").notNull(),
    accountId: text("account_id").notNull(),
    requestNumber: text("request_number").notNull(),
    requestType: text("request_type"),
    scac: text("scac"),
    /** `file` when the row named the line, `inferred` when infer_number filled it in. */
    scacSource: text("scac_source"),
    /** Infer_number's best line for a row without one that could not be filled in confidently. */
    suggestedScac: text("suggested_scac"),
    refNumbers: text("ref_numbers", { mode: "json" }).$type<string[]>().notNull().default([]),
    shipmentTags: text("shipment_tags", { mode: "json" }).$type<string[]>().notNull().default([]),
    customerId: text("customer_id"),
    outcome: text("outcome").$type<ImportRowOutcome>().notNull(),
    reasons: text("reasons", { mode: "json" }).$type<ImportRowReason[]>().notNull().default([]),
    trackingRequestId: text("tracking_request_id"),
  },
  (t) => [
    primaryKey({ columns: [t.importId, t.rowNumber] }),
    index("tracking_request_import_rows_outcome_idx").on(t.importId, t.outcome, t.rowNumber),
  ],
);
