import Papa from "papaparse";
import type { Resource } from "../lib/jsonapi/types";
import type { ImportRowAttributes, TrackingRequestImportAttributes } from "./schemas";
import type { ImportRow, ImportRowRecord } from "./service";

/** The counts of an import: rows in the file, valid/invalid at validation, created/failed so far, still to create. */
export function importCounts(row: ImportRow): TrackingRequestImportAttributes["counts"] {
  return {
    total: row.totalRows,
    valid: row.validRows,
    invalid: row.invalidRows,
    created: row.createdRows,
    failed: row.failedRows,
    pending: Math.max(0, row.validRows - row.createdRows - row.failedRows),
  };
}

/**
 * The import's progress in [0, 1] (2 decimals): valid rows done (created or failed) over valid rows; 0 before the
 * start, 1 once completed.
 */
export function importProgress(row: ImportRow): number {
  if (row.status === "completed") return 1;
  if (row.status === "validated" || row.validRows === 0) return 0;
  return Math.floor(((row.createdRows + row.failedRows) / row.validRows) * 100) / 100;
}

/** Serialises an import (docs/api.md §Tracking request imports) with links to its rows and results CSV. */
export function serializeImport(row: ImportRow): Resource<TrackingRequestImportAttributes> {
  const self = `/v2/tracking_request_imports/${row.id}`;
  return {
    id: row.id,
    type: "tracking_request_import",
    attributes: {
      status: row.status,
      format: row.format as TrackingRequestImportAttributes["format"],
      file_name: row.fileName,
      counts: importCounts(row),
      progress: importProgress(row),
      created_at: row.createdAt,
      updated_at: row.updatedAt,
      started_at: row.startedAt,
      completed_at: row.completedAt,
    },
    links: { self, rows: `${self}/rows`, results: `${self}/results.csv` },
  };
}

/** Serialises one row of an import: what it asks for, its outcome and reasons, and the tracking request created. */
export function serializeImportRow(row: ImportRowRecord): Resource<ImportRowAttributes> {
  return {
    id: `${row.importId}:${row.rowNumber}`,
    type: "tracking_request_import_row",
    attributes: {
      row_number: row.rowNumber,
      request_number: row.requestNumber,
      request_type: row.requestType,
      scac: row.scac,
      scac_source: row.scacSource as ImportRowAttributes["scac_source"],
      suggested_scac: row.suggestedScac,
      ref_numbers: row.refNumbers,
      shipment_tags: row.shipmentTags,
      outcome: row.outcome,
      reasons: row.reasons,
    },
    relationships: {
      tracking_request: {
        data: row.trackingRequestId ? { id: row.trackingRequestId, type: "tracking_request" } : null,
      },
      customer: { data: row.customerId ? { id: row.customerId, type: "party" } : null },
    },
  };
}

/** Columns of the results CSV, in order. */
export const RESULTS_CSV_COLUMNS = [
  "row",
  "request_number",
  "request_type",
  "scac",
  "scac_source",
  "suggested_scac",
  "ref_numbers",
  "shipment_tags",
  "customer_id",
  "outcome",
  "tracking_request_id",
  "reasons",
] as const;

/**
 * Cells that a spreadsheet would run as a formula (OWASP "CSV Injection": starting with `=`, `+`, `-`, `@`, tab or
 * carriage return) are written with a leading `'` by papaparse's `escapeFormulae`, so opening the results never runs
 * what a file's cells said. (Papaparse's own default pattern misses a formula followed by a line break.)
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The results of an import as CSV (RFC 4180, CRLF, a header row): one line per row of the file with its outcome,
 * the tracking request created and the reasons (`code: detail`, separated by ` | `); lists joined by `;`.
 */
export function resultsCsv(rows: readonly ImportRowRecord[]): string {
  const data = rows.map((r) => [
    String(r.rowNumber),
    r.requestNumber,
    r.requestType ?? "",
    r.scac ?? "",
    r.scacSource ?? "",
    r.suggestedScac ?? "",
    r.refNumbers.join(";"),
    r.shipmentTags.join(";"),
    r.customerId ?? "",
    r.outcome === "creating" ? "valid" : r.outcome,
    r.trackingRequestId ?? "",
    r.reasons.map((x) => `${x.code}: ${x.detail}`).join(" | "),
  ]);
  return `${Papa.unparse({ fields: [...RESULTS_CSV_COLUMNS], data }, { escapeFormulae: FORMULA_START, newline: "\r\n" })}\r\n`;
}
