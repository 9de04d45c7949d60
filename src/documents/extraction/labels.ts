/**
 * The field labels carriers print on bills of lading, arrival notices and booking confirmations, and how a value is
 * read after its label (docs/documents.md §What is recognised). One table, so a value on a line holding several
 * label/value pairs (`POL: SHANGHAI POD: ROTTERDAM`) stops where the next label starts.
 */

import type { TextCell, TextLine } from "./text-layer.ts";

/** Field keys that have labels. */
export type LabelKey =
  | "bill_of_lading"
  | "booking"
  | "scac"
  | "carrier"
  | "vessel_voyage"
  | "vessel"
  | "voyage"
  | "port_of_loading"
  | "port_of_discharge"
  | "eta"
  | "etd"
  | "container"
  | "reference";

/**
 * Label patterns by field, most specific first (`vessel_voyage` before `vessel`). Case-insensitive; matched at a word
 * boundary. A number label may end in `No`, `No.`, `Number`, `Nr`, `#`.
 */
const NO = String.raw`(?:\s*(?:no\.?|number|nr\.?|#))?`;
const LABELS: readonly (readonly [LabelKey, RegExp])[] = [
  [
    "bill_of_lading",
    new RegExp(String.raw`\b(?:bill\s+of\s+lading|sea\s*way\s*bill|waybill|m?b\/l|m?bl|mbol|bol)${NO}`, "i"),
  ],
  ["booking", new RegExp(String.raw`\b(?:booking|bkg)(?:\s+ref(?:erence)?)?${NO}`, "i")],
  ["scac", /\bscac(?:\s+code)?/i],
  ["carrier", /\b(?:ocean\s+)?carrier(?:\s+name)?/i],
  ["vessel_voyage", /\b(?:ocean\s+)?vessel\s*(?:\/|&|and)\s*voy(?:age)?(?:\s*no\.?)?/i],
  ["vessel", /\b(?:ocean\s+|mother\s+)?vessel(?:\s+name)?/i],
  ["voyage", new RegExp(String.raw`\bvoy(?:age)?${NO}`, "i")],
  ["port_of_loading", /\b(?:port\s+of\s+loading|load(?:ing)?\s+port|pol)\b/i],
  ["port_of_discharge", /\b(?:port\s+of\s+discharge|discharg(?:e|ing)\s+port|pod)\b/i],
  ["eta", /\b(?:eta|estimated\s+(?:time\s+of\s+)?arrival(?:\s+date)?)\b/i],
  ["etd", /\b(?:etd|estimated\s+(?:time\s+of\s+)?departure(?:\s+date)?)\b/i],
  ["container", new RegExp(String.raw`\bcontainer(?:s)?${NO}`, "i")],
  // Purchase order and customer / shipper / consignee references; never a bare `Order` (`TO ORDER` on BLs) or `Ref`
  // (`Booking Ref` is the booking's), and `PO` only as a word (not `POL`, `POD`, `Port`).
  [
    "reference",
    new RegExp(
      String.raw`\b(?:purchase\s+order|p\.?\s?o\.?(?![a-z0-9-])|(?:customer|shipper'?s?|consignee'?s?)\s+ref(?:erence)?|order\s*(?:no\.?|number|#))${NO}`,
      "i",
    ),
  ],
];

/** Any label, to cut a value where the next label begins. */
const ANY_LABEL = new RegExp(LABELS.map(([, re]) => re.source).join("|"), "i");

/** A value found after a label. */
export interface LabelledValue {
  /** The value's text (separators `:`, `-`, `#` after the label dropped), cut where the next label starts. */
  value: string;
  /** True when the value is on the label's own line (in its cell or the next cell). */
  sameLine: boolean;
  /** The label's cell and the value, for `source_text`. */
  sourceText: string;
}

/** Tolerance when lining a value up under its label's column (PDF points, or characters in plain text). */
const COLUMN_TOLERANCE = 1;

/**
 * Every value labelled `key` in `lines`, in order. The label must be the most specific one at its place (a
 * `Vessel/Voyage` label is not also a `Vessel` label). Where the value is, in order:
 * 1. after the label in the label's own cell (`B/L No.: MAEU241234567`);
 * 2. in the next cell of the line when that cell is not a label itself (a two-column `label | value` row);
 * 3. on the next line: under the label's column when the label's line has several cells (a form's row of box
 *    headings with the values beneath), else the whole next line.
 */
export function labelledValues(lines: readonly TextLine[], key: LabelKey): LabelledValue[] {
  const found: LabelledValue[] = [];
  const pattern = LABELS.find(([k]) => k === key)?.[1];
  if (!pattern) return found;
  const global = new RegExp(pattern.source, "gi");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as TextLine;
    for (const match of line.text.matchAll(global)) {
      const at = match.index ?? 0;
      if (shadowedBySpecificLabel(line.text, at, key)) continue;
      const { index, end } = cellAt(line, at);
      const cell = line.cells[index] as TextCell;
      const inCell = cutAtNextLabel(line.text.slice(at + match[0].length, end).replace(/^[\s:#.\-–]+/, ""));
      if (inCell !== "") {
        found.push({ value: inCell, sameLine: true, sourceText: cell.text });
        continue;
      }
      const nextCell = line.cells[index + 1];
      if (nextCell && !startsWithLabel(nextCell.text)) {
        const value = cutAtNextLabel(nextCell.text.replace(/^[\s:#.\-–]+/, ""));
        if (value !== "") found.push({ value, sameLine: true, sourceText: `${cell.text} ${nextCell.text}` });
        continue;
      }
      const below = lines[i + 1];
      if (!below) continue;
      const value = cutAtNextLabel(line.cells.length === 1 ? below.text : inColumn(below, cell.x, nextCell?.x));
      if (value !== "") found.push({ value, sameLine: false, sourceText: `${cell.text}\n${value}` });
    }
  }
  return found;
}

/** The cell of `line` that the character at `offset` of `line.text` is in, and where that cell's text ends. */
function cellAt(line: TextLine, offset: number): { index: number; end: number } {
  let start = 0;
  for (let index = 0; index < line.cells.length; index++) {
    const end = start + (line.cells[index] as TextCell).text.length;
    if (offset < end || index === line.cells.length - 1) return { index, end };
    start = end + 1; // the tab
  }
  return { index: 0, end: line.text.length };
}

/** The texts of the cells of `line` starting in the column from `left` to `right` (exclusive), joined by spaces. */
function inColumn(line: TextLine, left: number, right: number | undefined): string {
  return line.cells
    .filter((c) => c.x >= left - COLUMN_TOLERANCE && (right === undefined || c.x < right - COLUMN_TOLERANCE))
    .map((c) => c.text)
    .join(" ");
}

/** Whether `text` starts with a label. */
function startsWithLabel(text: string): boolean {
  return ANY_LABEL.exec(text)?.index === 0;
}

/** Whether a more specific label than `key` starts at `at` (`Vessel/Voyage` shadows `Vessel` and `Voyage`). */
function shadowedBySpecificLabel(line: string, at: number, key: LabelKey): boolean {
  if (key !== "vessel" && key !== "voyage") return false;
  const combined = LABELS.find(([k]) => k === "vessel_voyage")?.[1];
  if (!combined) return false;
  const global = new RegExp(combined.source, "gi");
  for (const match of line.matchAll(global)) {
    const start = match.index ?? 0;
    if (at >= start && at < start + match[0].length) return true;
  }
  return false;
}

/** `text` up to the first label in it (trimmed). */
function cutAtNextLabel(text: string): string {
  const match = ANY_LABEL.exec(text);
  return (match ? text.slice(0, match.index) : text).trim();
}
