/**
 * The field labels carriers print on bills of lading, arrival notices and booking confirmations, and how a value is
 * read after its label (docs/documents.md §What is recognised). One table, so a value on a line holding several
 * label/value pairs (`POL: SHANGHAI POD: ROTTERDAM`) stops where the next label starts.
 */

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
  | "container";

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
];

/** Any label, to cut a value where the next label begins. */
const ANY_LABEL = new RegExp(LABELS.map(([, re]) => re.source).join("|"), "i");

/** A value found after a label. */
export interface LabelledValue {
  /** The text after the label on its line (separators `:`, `-`, `#` dropped), cut at the next label; else the next line's. */
  value: string;
  /** True when the value came from the label's own line. */
  sameLine: boolean;
  /** The line of the label (and the next line when the value is there), for `source_text`. */
  sourceText: string;
}

/**
 * Every value labelled `key` in `lines`, in order. The label must be the most specific one at its place (a
 * `Vessel/Voyage` label is not also a `Vessel` label).
 */
export function labelledValues(lines: readonly string[], key: LabelKey): LabelledValue[] {
  const found: LabelledValue[] = [];
  const pattern = LABELS.find(([k]) => k === key)?.[1];
  if (!pattern) return found;
  const global = new RegExp(pattern.source, "gi");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    for (const match of line.matchAll(global)) {
      const at = match.index ?? 0;
      if (shadowedBySpecificLabel(line, at, key)) continue;
      const rest = cutAtNextLabel(line.slice(at + match[0].length).replace(/^[\s:#.\-–]+/, ""));
      if (rest !== "") {
        found.push({ value: rest, sameLine: true, sourceText: line });
      } else {
        const next = lines[i + 1] ?? "";
        const value = cutAtNextLabel(next);
        if (value !== "") found.push({ value, sameLine: false, sourceText: `${line}\n${next}` });
      }
    }
  }
  return found;
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
