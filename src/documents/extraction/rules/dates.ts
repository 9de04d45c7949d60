/**
 * ETD and ETA dates (docs/documents.md §What is recognised): the first date after an `ETD` / `ETA` label
 * (`Estimated Time of Arrival`…), written `2026-12-05`, `05 Dec 2026`, `05-DEC-2026`, `Dec 5, 2026`, or numerically
 * `05/12/2026` / `12/05/2026` when the day is over 12 (so day and month cannot be swapped). A numeric date whose day
 * and month could be either is not read.
 */
import { labelledValues } from "../labels.ts";
import type { TextLine } from "../text-layer.ts";
import type { ExtractedField } from "../types.ts";
import { field } from "./field.ts";

/** Confidences of the date rules. */
export const DATE_CONFIDENCE = { written: 0.9, numeric: 0.75, nextLine: -0.05 } as const;

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

const pad = (n: number) => String(n).padStart(2, "0");

/** `YYYY-MM-DD` when the parts form a real calendar date, else null. */
function isoDate(year: number, month: number, day: number): string | null {
  if (year < 1990 || year > 2100 || month < 1 || month > 12 || day < 1) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return null;
  return `${year}-${pad(month)}-${pad(day)}`;
}

const monthOf = (name: string) => MONTHS.indexOf(name.slice(0, 3).toUpperCase()) + 1;

/** The first date in `text` as `YYYY-MM-DD`, with whether it was written unambiguously, or null. */
export function parseDate(text: string): { date: string; written: boolean } | null {
  const t = text.toUpperCase();
  let m = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(t);
  if (m) {
    const date = isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
    return date ? { date, written: true } : null;
  }
  m = /\b(\d{1,2})[\s-]+([A-Z]{3})[A-Z]*\.?[\s-]+(\d{4})\b/.exec(t);
  if (m && monthOf(m[2] ?? "") > 0) {
    const date = isoDate(Number(m[3]), monthOf(m[2] ?? ""), Number(m[1]));
    return date ? { date, written: true } : null;
  }
  m = /\b([A-Z]{3})[A-Z]*\.?\s+(\d{1,2}),?\s+(\d{4})\b/.exec(t);
  if (m && monthOf(m[1] ?? "") > 0) {
    const date = isoDate(Number(m[3]), monthOf(m[1] ?? ""), Number(m[2]));
    return date ? { date, written: true } : null;
  }
  m = /\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b/.exec(t);
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    const year = Number(m[3]);
    if (a > 12 && b <= 12) {
      const date = isoDate(year, b, a);
      return date ? { date, written: false } : null;
    }
    if (b > 12 && a <= 12) {
      const date = isoDate(year, a, b);
      return date ? { date, written: false } : null;
    }
  }
  return null;
}

function recogniseDate(lines: readonly TextLine[], key: "eta" | "etd"): ExtractedField | null {
  for (const { value, sameLine, sourceText } of labelledValues(lines, key)) {
    const parsed = parseDate(value);
    if (!parsed) continue;
    const confidence =
      (parsed.written ? DATE_CONFIDENCE.written : DATE_CONFIDENCE.numeric) + (sameLine ? 0 : DATE_CONFIDENCE.nextLine);
    return field(parsed.date, confidence, sourceText);
  }
  return null;
}

/** ETD and ETA, each or both null. */
export function recogniseDates(lines: readonly TextLine[]): {
  estimatedDeparture: ExtractedField | null;
  estimatedArrival: ExtractedField | null;
} {
  return { estimatedDeparture: recogniseDate(lines, "etd"), estimatedArrival: recogniseDate(lines, "eta") };
}
