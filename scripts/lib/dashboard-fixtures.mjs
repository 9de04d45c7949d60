// Test data and small readers for `npm run check:dashboard` (scripts/check-dashboard.mjs).
import { parse } from "csv-parse/sync";

/**
 * Ten container numbers (ISO 6346, valid check digits) with the SCAC of the line that owns their prefix, for the Track
 * upload. Chosen with the simulator's planner (src/tracking/simulator/plan.ts, deterministic from SCAC and number): no
 * rail leg, "available" by simulated day 10.5 and at least five simulated days from then to pickup, so at
 * SIMULATION_SPEED 10 (a simulated day every 6 s) each box shows "available" with its LFD about a minute after it is
 * tracked and stays so for half a minute — longer than the containers page's live refresh interval. Any of the ten
 * reaching "available" satisfies the check, so a change of the planner's draws delays it rather than breaking it.
 */
export const TRACKED_BOXES = [
  { number: "ONEU6044996", scac: "ONEY" },
  { number: "HLXU6057366", scac: "HLCU" },
  { number: "MSKU6304768", scac: "MAEU" },
  { number: "HLXU2878276", scac: "HLCU" },
  { number: "HLXU4783251", scac: "HLCU" },
  { number: "MSKU2494802", scac: "MAEU" },
  { number: "CMAU2667980", scac: "CMDU" },
  { number: "ONEU4276082", scac: "ONEY" },
  { number: "CMAU6242916", scac: "CMDU" },
  { number: "MSCU6329509", scac: "MSCU" },
];

/** A reference number holding markup (it would call alert() if a page rendered it as HTML). */
export const XSS_REF_NUMBER = "PO-<script>alert(4)</script>";

/** A number whose ISO 6346 check digit is wrong (MSCU551308 has check digit 6). */
export const BAD_CHECK_DIGIT = { number: "MSCU5513087", scac: "MSCU" };

/**
 * The Track upload: 12 rows, the ten boxes above plus one bad check digit (row 5) and one duplicate of row 2 (row 10),
 * under the API's attribute names (the import takes them as headers), with a reference number each. Row numbers count
 * data rows from 1.
 * @returns {{ csv: string, rows: number, valid: number, badRows: { row: number, number: string, reason: RegExp }[] }}
 */
export function trackUploadCsv() {
  const rows = TRACKED_BOXES.map((box) => ({ ...box }));
  rows.splice(4, 0, BAD_CHECK_DIGIT);
  rows.splice(9, 0, { ...TRACKED_BOXES[1] });
  // The first row's reference number is markup: wherever a page shows it, it must stay text (a dialog or a CSP
  // violation from it fails the page).
  const lines = [
    "request_number,request_type,scac,ref_numbers",
    ...rows.map((r, i) => `${r.number},container,${r.scac},${i === 0 ? XSS_REF_NUMBER : `PO-${1001 + i}`}`),
  ];
  return {
    csv: `${lines.join("\r\n")}\r\n`,
    rows: rows.length,
    valid: TRACKED_BOXES.length,
    badRows: [
      { row: 5, number: BAD_CHECK_DIGIT.number, reason: /check digit/i },
      { row: 10, number: TRACKED_BOXES[1].number, reason: /duplicate|same number/i },
    ],
  };
}

/**
 * Parses CSV text (a header row, then records) into objects keyed by the header, with a UTF-8 BOM tolerated.
 * @param {string} text
 * @returns {Record<string, string>[]}
 */
export function parseCsv(text) {
  return parse(text, { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true });
}

/**
 * The first key of `record` whose name matches `pattern` (CSV columns and table headers are found by meaning, e.g.
 * /status/i, so a renamed column shows up as a clear "no column" failure).
 * @param {string[]} keys
 * @param {RegExp} pattern
 */
export function findKey(keys, pattern) {
  return keys.find((key) => pattern.test(key));
}

/**
 * Reads the page's first data table (or the one labelled by `label`): its column headers' text and each body row as
 * `{ cells: { <header>: text }, links: { <header>: href } }`.
 * @param {import("playwright-core").Page} page
 * @param {RegExp} [label] matched against the table's caption or aria-label
 * @returns {Promise<{ headers: string[], rows: { cells: Record<string, string>, links: Record<string, string> }[] } | null>}
 */
export async function readTable(page, label) {
  return page.evaluate(
    ({ source, flags }) => {
      const pattern = source ? new RegExp(source, flags) : null;
      const tables = [...document.querySelectorAll("table")];
      const table = tables.find((t) => {
        if (!pattern) return true;
        const name = `${t.getAttribute("aria-label") ?? ""} ${t.caption?.textContent ?? ""}`;
        return pattern.test(name);
      });
      if (!table) return null;
      const text = (el) => (el?.textContent ?? "").replace(/\s+/g, " ").trim();
      const headerCells = [...(table.tHead?.rows[0]?.cells ?? [])];
      const headers = headerCells.map((cell) => text(cell));
      const body = table.tBodies[0] ? [...table.tBodies[0].rows] : [];
      return {
        headers,
        rows: body.map((row) => {
          const cells = {};
          const links = {};
          [...row.cells].forEach((cell, i) => {
            const key = headers[i] ?? String(i);
            cells[key] = text(cell);
            const a = cell.querySelector("a[href]");
            if (a) links[key] = a.getAttribute("href");
          });
          return { cells, links };
        }),
      };
    },
    { source: label?.source ?? null, flags: label?.flags ?? "" },
  );
}
