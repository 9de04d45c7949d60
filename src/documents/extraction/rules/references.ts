/**
 * Bill of lading and booking numbers (docs/documents.md §What is recognised). A BL number is read after a BL label
 * (`B/L No.`, `Bill of Lading Number`, `Sea Waybill No`, `MBL`); it is surer when it starts with a carrier's BL prefix
 * or SCAC (the table infer_number uses: src/infer/classify.ts `matchBlPrefix`). Without a label, a token starting with
 * a known BL prefix and holding digits is a weak guess. A booking number is read only after a booking label. A
 * container number (valid ISO 6346 check digit) is never taken for either; a container-shaped number with a wrong
 * check digit may be a BL (`MEDU1234567`).
 */

import { matchBlPrefix } from "../../../infer/classify.ts";
import { hasValidCheckDigit } from "../../../infer/iso6346.ts";
import { labelledValues } from "../labels.ts";
import type { TextLine } from "../text-layer.ts";
import type { ExtractedField } from "../types.ts";
import { best, field } from "./field.ts";

/** A reference number token: 6–25 letters and digits with at least 4 digits, dashes allowed inside. */
const REFERENCE_TOKEN = /^([A-Z0-9][A-Z0-9-]{4,28}[A-Z0-9])\b/;
const ANY_REFERENCE_TOKEN = /\b[A-Z0-9]{8,25}\b/g;

/** The reference number at the start of a labelled value, normalised (upper case, dashes removed), or null. */
function referenceToken(value: string): { number: string; raw: string } | null {
  const match = REFERENCE_TOKEN.exec(value.toUpperCase());
  if (!match?.[1]) return null;
  const number = match[1].replace(/-/g, "");
  if (number.length < 6 || number.length > 25 || (number.match(/\d/g)?.length ?? 0) < 4) return null;
  return { number, raw: match[1] };
}

/** Confidences of the BL rules. */
export const BL_CONFIDENCE = { labelledWithPrefix: 0.95, labelled: 0.8, prefixOnly: 0.5 } as const;
/** Confidence of a labelled booking number (there is no check for bookings). */
export const BOOKING_CONFIDENCE = { sameLine: 0.85, nextLine: 0.75 } as const;

/** The BL number: the surest labelled one, else the first unlabelled token with a known BL prefix. */
export function recogniseBillOfLading(lines: readonly TextLine[]): ExtractedField | null {
  const labelled: ExtractedField[] = [];
  for (const { value, sameLine, sourceText } of labelledValues(lines, "bill_of_lading")) {
    const token = referenceToken(value);
    if (!token || hasValidCheckDigit(token.number)) continue;
    const base = matchBlPrefix(token.number) ? BL_CONFIDENCE.labelledWithPrefix : BL_CONFIDENCE.labelled;
    labelled.push(field(token.number, sameLine ? base : base - 0.05, sourceText));
  }
  const top = best(labelled);
  if (top) return top;
  for (const { text: line } of lines) {
    for (const match of line.toUpperCase().matchAll(ANY_REFERENCE_TOKEN)) {
      const number = match[0];
      if (hasValidCheckDigit(number) || !/\d{4}/.test(number)) continue;
      if (matchBlPrefix(number)) return field(number, BL_CONFIDENCE.prefixOnly, line);
    }
  }
  return null;
}

/** The booking number after a booking label, or null. */
export function recogniseBookingNumber(lines: readonly TextLine[]): ExtractedField | null {
  for (const { value, sameLine, sourceText } of labelledValues(lines, "booking")) {
    const token = referenceToken(value);
    if (!token || hasValidCheckDigit(token.number)) continue;
    return field(token.number, sameLine ? BOOKING_CONFIDENCE.sameLine : BOOKING_CONFIDENCE.nextLine, sourceText);
  }
  return null;
}

/** Confidence of a labelled reference / PO number (there is no check for them). */
export const REFERENCE_CONFIDENCE = { sameLine: 0.8, nextLine: 0.75 } as const;

/**
 * Reference / PO numbers: each value after a purchase-order or customer / shipper / consignee reference label
 * (`PO No.`, `Purchase Order`, `Customer Ref`, `Shipper's Reference`, `Order No.`), same token shape as a BL
 * number, each once in order of appearance. A container number, and the document's BL and booking numbers, are not
 * taken for one. What links a document to a shipment's or container's `ref_numbers` (docs/documents.md §Links).
 */
export function recogniseReferenceNumbers(
  lines: readonly TextLine[],
  exclude: readonly (string | null | undefined)[] = [],
): ExtractedField[] {
  const found: ExtractedField[] = [];
  const seen = new Set(exclude.filter((v): v is string => !!v));
  for (const { value, sameLine, sourceText } of labelledValues(lines, "reference")) {
    const token = referenceToken(value);
    if (!token || hasValidCheckDigit(token.number) || seen.has(token.number)) continue;
    seen.add(token.number);
    found.push(
      field(token.number, sameLine ? REFERENCE_CONFIDENCE.sameLine : REFERENCE_CONFIDENCE.nextLine, sourceText),
    );
  }
  return found;
}
