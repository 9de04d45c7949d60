/**
 * Reading an import file into rows (docs/api.md §Tracking request imports): CSV with papaparse, XLSX with SheetJS
 * (`@e965/xlsx`, the SheetJS Community Edition build republished on npm), or JSON rows, all into one shape. Columns are
 * found by header name, case-insensitively; nothing here touches storage.
 */

import { read, utils } from "@e965/xlsx";
import Papa from "papaparse";
import { ApiError } from "../lib/errors";

/** Largest import file accepted, in bytes (the API's body limit, docs/decisions.md §Wire format): 413 beyond. */
export const MAX_IMPORT_BYTES = 1024 * 1024;
/** Most data rows one import may hold (the header is not counted): 422 `too_many_rows` beyond. */
export const MAX_IMPORT_ROWS = 1000;

/** The fields a row can carry, by their canonical (API) names. */
export type ImportColumn = "request_number" | "request_type" | "scac" | "ref_numbers" | "shipment_tags" | "customer";

/** File formats an import reads. */
export type ImportFormat = "csv" | "xlsx" | "json";

/**
 * Header names (lower-cased, runs of other characters than letters and digits read as `_`) and the column each
 * means. The reference service's names come first (`request_number`, `request_type`, `scac`, `ref_numbers`,
 * `shipment_tags`); the others are what ops spreadsheets call them. A number column named after a number type also
 * says the row's type when the file has no type column.
 */
const HEADER_ALIASES: ReadonlyMap<string, { column: ImportColumn; impliedType?: string }> = new Map([
  ["request_number", { column: "request_number" }],
  ["number", { column: "request_number" }],
  ["tracking_number", { column: "request_number" }],
  ["container_number", { column: "request_number", impliedType: "container" }],
  ["container_no", { column: "request_number", impliedType: "container" }],
  ["container", { column: "request_number", impliedType: "container" }],
  ["bill_of_lading", { column: "request_number", impliedType: "bill_of_lading" }],
  ["bill_of_lading_number", { column: "request_number", impliedType: "bill_of_lading" }],
  ["bl_number", { column: "request_number", impliedType: "bill_of_lading" }],
  ["mbl", { column: "request_number", impliedType: "bill_of_lading" }],
  ["booking_number", { column: "request_number", impliedType: "booking" }],
  ["booking", { column: "request_number", impliedType: "booking" }],
  ["request_type", { column: "request_type" }],
  ["type", { column: "request_type" }],
  ["number_type", { column: "request_type" }],
  ["scac", { column: "scac" }],
  ["shipping_line", { column: "scac" }],
  ["shipping_line_scac", { column: "scac" }],
  ["carrier", { column: "scac" }],
  ["carrier_scac", { column: "scac" }],
  ["line", { column: "scac" }],
  ["ref_numbers", { column: "ref_numbers" }],
  ["ref_number", { column: "ref_numbers" }],
  ["reference", { column: "ref_numbers" }],
  ["references", { column: "ref_numbers" }],
  ["reference_numbers", { column: "ref_numbers" }],
  ["shipment_tags", { column: "shipment_tags" }],
  ["tags", { column: "shipment_tags" }],
  ["customer", { column: "customer" }],
  ["customer_id", { column: "customer" }],
  ["customer_name", { column: "customer" }],
]);

/** One data row as read: its row number in the file (the header is row 1) and its cells by column. */
export interface SourceRow {
  rowNumber: number;
  values: Partial<Record<ImportColumn, string>>;
  /** The request type the number column's header implies (`container_number` → `container`), if any. */
  impliedType?: string;
}

/** A read file: its rows (blank rows skipped) and the header names no column matched. */
export interface ParsedImport {
  rows: SourceRow[];
  ignoredColumns: string[];
}

/** A header cell's key in {@link HEADER_ALIASES}: trimmed, lower-cased, other characters as single `_`. */
export function headerKey(header: string): string {
  return header
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "_")
    .replace(/^_+|_+$/g, "");
}

/**
 * Rows of a table whose first non-blank row is the header. `firstRowNumber` is the file row of `table[0]`.
 * @throws ApiError 422 `missing_column` without a number column; `too_many_rows` over {@link MAX_IMPORT_ROWS}.
 */
export function rowsOfTable(table: readonly (readonly unknown[])[], firstRowNumber = 1): ParsedImport {
  const headerIndex = table.findIndex((cells) => !isBlankRow(cells));
  const header = headerIndex >= 0 ? (table[headerIndex] ?? []) : [];
  const columns: ({ column: ImportColumn; impliedType?: string } | undefined)[] = [];
  const ignoredColumns: string[] = [];
  const seen = new Set<ImportColumn>();
  header.forEach((cell, i) => {
    const name = cellText(cell);
    const alias = HEADER_ALIASES.get(headerKey(name));
    // The first column of a kind wins; a second one (two number columns) is reported as ignored.
    if (alias && !seen.has(alias.column)) {
      seen.add(alias.column);
      columns[i] = alias;
    } else if (name !== "") {
      ignoredColumns.push(name);
    }
  });
  if (!seen.has("request_number")) {
    throw new ApiError(422, [
      {
        detail:
          "The file has no number column: name one `request_number` (or `number`, `container_number`, `bill_of_lading`, `booking_number`) in the first row.",
        code: "missing_column",
        source: { pointer: "/file" },
      },
    ]);
  }
  const impliedType = columns.find((c) => c?.column === "request_number")?.impliedType;
  const rows: SourceRow[] = [];
  for (let r = headerIndex + 1; r < table.length; r++) {
    const cells = table[r] ?? [];
    if (isBlankRow(cells)) continue;
    const values: Partial<Record<ImportColumn, string>> = {};
    columns.forEach((c, i) => {
      if (c) values[c.column] = cellText(cells[i]);
    });
    rows.push({ rowNumber: firstRowNumber + r, values, ...(impliedType ? { impliedType } : {}) });
    if (rows.length > MAX_IMPORT_ROWS) {
      throw new ApiError(422, [
        {
          detail: `An import holds at most ${MAX_IMPORT_ROWS} rows; split the file.`,
          code: "too_many_rows",
          source: { pointer: "/file" },
        },
      ]);
    }
  }
  return { rows, ignoredColumns };
}

/**
 * Reads a CSV file (UTF-8, with or without a byte-order mark; the delimiter `,` `;` tab or `|` detected by
 * papaparse; quoted fields with embedded delimiters, quotes and line breaks). Row numbers count records, the header
 * being row 1, blank lines included.
 * @throws ApiError 422 when the bytes are not UTF-8 or a quote is left open; see also {@link rowsOfTable}.
 */
export function parseCsv(bytes: Uint8Array): ParsedImport {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw fileError("The CSV file is not UTF-8 text; save it as “CSV UTF-8”.", "invalid_file");
  }
  const source = text.replace(/^\uFEFF/, "");
  // The delimiter is guessed on the first lines without the blank ones (papaparse counts a blank line as a row of one
  // field, which makes a short `;` file look like a `,` file); the file is then read with blank lines kept, so that
  // row numbers stay the file's.
  const guess = Papa.parse<string[]>(source, {
    preview: 20,
    skipEmptyLines: "greedy",
    delimitersToGuess: [",", ";", "\t", "|"],
  });
  const result = Papa.parse<string[]>(source, {
    header: false,
    skipEmptyLines: false,
    delimiter: guess.meta.delimiter || ",",
  });
  const quoteError = result.errors.find((e) => e.type === "Quotes");
  if (quoteError) {
    const row = (quoteError.row ?? 0) + 1;
    throw fileError(`The CSV file has an unclosed quote near row ${row}.`, "invalid_file");
  }
  return rowsOfTable(result.data);
}

/**
 * Reads the first worksheet of an XLSX workbook (values, never formulas: a formula cell gives its cached value).
 * Row numbers are the worksheet's.
 * @throws ApiError 422 when the bytes are not a workbook or it has no sheet; see also {@link rowsOfTable}.
 */
export function parseXlsx(bytes: Uint8Array): ParsedImport {
  // A workbook is a ZIP archive (PK\x03\x04); anything else is refused before SheetJS guesses at other formats.
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
    throw fileError("The file is not an XLSX workbook.", "invalid_file");
  }
  let table: unknown[][];
  let firstRow = 1;
  try {
    const workbook = read(bytes, {
      type: "array",
      dense: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
    });
    const name = workbook.SheetNames[0];
    const sheet = name ? workbook.Sheets[name] : undefined;
    if (!sheet) throw fileError("The workbook has no worksheet.", "invalid_file");
    const ref = sheet["!ref"];
    if (ref) firstRow = utils.decode_range(ref).s.r + 1;
    table = utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true, defval: "", blankrows: true });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw fileError("The XLSX workbook could not be read.", "invalid_file");
  }
  return rowsOfTable(table, firstRow);
}

/**
 * JSON rows (the API's `rows` attribute): objects whose keys are header names as in a file, values strings (or, for
 * `ref_numbers` and `shipment_tags`, arrays of strings). Row numbers are the array index + 2, as if row 1 were a
 * header.
 */
export function parseJsonRows(rows: readonly Record<string, unknown>[]): ParsedImport {
  const headers: string[] = [];
  for (const row of rows) {
    for (const key of Object.keys(row)) if (!headers.includes(key)) headers.push(key);
  }
  const table: unknown[][] = [headers, ...rows.map((row) => headers.map((h) => row[h] ?? ""))];
  return rowsOfTable(table);
}

/** Reads `bytes` as `format`. */
export function parseImportFile(format: "csv" | "xlsx", bytes: Uint8Array): ParsedImport {
  if (bytes.byteLength > MAX_IMPORT_BYTES) {
    throw new ApiError(413, [{ detail: `An import file must be at most ${MAX_IMPORT_BYTES} bytes.` }]);
  }
  return format === "csv" ? parseCsv(bytes) : parseXlsx(bytes);
}

/**
 * The format of an uploaded file by its media type, then its name (`.csv`, `.txt`, `.xlsx`); null when neither says.
 */
export function formatOf(mediaType: string, fileName: string | null): "csv" | "xlsx" | null {
  const type = mediaType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "text/csv" || type === "application/csv") return "csv";
  if (type === "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet") return "xlsx";
  const name = (fileName ?? "").toLowerCase();
  if (name.endsWith(".csv") || name.endsWith(".txt")) return "csv";
  if (name.endsWith(".xlsx")) return "xlsx";
  // Browsers send Excel's CSVs as application/vnd.ms-excel on Windows; text/plain is CSV too.
  if (type === "application/vnd.ms-excel" || type === "text/plain") return "csv";
  return null;
}

/** A cell as trimmed text: numbers in full (`123456789012`, never `1.23E+11`), booleans as TRUE/FALSE. */
function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "string") return cell.trim();
  if (typeof cell === "number") return Number.isInteger(cell) ? cell.toFixed(0) : String(cell);
  if (typeof cell === "boolean") return cell ? "TRUE" : "FALSE";
  if (Array.isArray(cell)) return cell.map(cellText).join(";");
  return String(cell).trim();
}

function isBlankRow(cells: readonly unknown[]): boolean {
  return cells.every((c) => cellText(c) === "");
}

function fileError(detail: string, code: string): ApiError {
  return new ApiError(422, [{ detail, code, source: { pointer: "/file" } }]);
}
