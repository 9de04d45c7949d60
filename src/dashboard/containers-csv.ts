import Papa from "papaparse";
import type { ContainerTableRow } from "./containers-view";

/**
 * The columns of the containers export (`GET /app/containers.csv`), named after the API attributes they carry so a
 * script can compare them with `GET /v2/containers` plainly: `id`, `number`, `scac`, `pod_locode`, `current_status`,
 * `available_for_pickup` (`true`/`false`/empty), `pickup_lfd` and `updated_at` as the container's attributes,
 * `pod_eta_at` and `customer_name` as its shipment's; then what the page adds: the line's and the POD's names, the
 * LFD's local date at the POD, the holds in force (`name` or `name (pending)`, `; `-separated), today's charges and
 * the zone of the local values.
 */
export const CSV_COLUMNS = [
  "id",
  "number",
  "scac",
  "shipping_line_name",
  "pod_locode",
  "pod_name",
  "current_status",
  "available_for_pickup",
  "holds",
  "pickup_lfd",
  "pickup_lfd_local_date",
  "charges_to_date",
  "pod_eta_at",
  "pod_timezone",
  "customer_name",
  "updated_at",
] as const;

/**
 * A cell as a spreadsheet may open it safely (OWASP "CSV Injection"): text starting with `=`, `+`, `-`, `@`, a tab or
 * a carriage return gets a leading `'`, so it is never read as a formula. Numbers and ISO dates do not start so.
 */
export function neutralizeFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function cellsOf(row: ContainerTableRow): string[] {
  const values: Record<(typeof CSV_COLUMNS)[number], string | null> = {
    id: row.id,
    number: row.number,
    scac: row.scac,
    shipping_line_name: row.lineName,
    pod_locode: row.podLocode,
    pod_name: row.podName,
    current_status: row.currentStatus,
    available_for_pickup: row.availableForPickup === null ? null : String(row.availableForPickup),
    holds: row.holds.map((h) => (h.status === "hold" ? h.name : `${h.name} (${h.status})`)).join("; "),
    pickup_lfd: row.pickupLfd,
    pickup_lfd_local_date: row.pickupLfdLocalDate,
    charges_to_date: row.charges.join("; "),
    pod_eta_at: row.podEtaAt,
    pod_timezone: row.podTimezone,
    customer_name: row.customerName,
    updated_at: row.updatedAt,
  };
  return CSV_COLUMNS.map((c) => neutralizeFormula(values[c] ?? ""));
}

/**
 * The rows as CSV (RFC 4180: CRLF line ends, fields quoted by papaparse where they hold a comma, quote or line break),
 * with a header line of {@link CSV_COLUMNS}. No byte-order mark: the response says `charset=utf-8`, and scripts
 * comparing it with the API read it as is.
 */
export function containersCsv(rows: readonly ContainerTableRow[]): string {
  return `${Papa.unparse(
    { fields: [...CSV_COLUMNS], data: rows.map(cellsOf) },
    { newline: "\r\n", quotes: false, escapeFormulae: false },
  )}\r\n`;
}
