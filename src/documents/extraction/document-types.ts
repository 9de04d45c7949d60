/**
 * Document types and the type guess (docs/documents.md §Document types): a document's title, i.e. a type phrase
 * (`ARRIVAL NOTICE`, `BILL OF LADING`…) that is not the label of a number (`Bill of Lading No.`), near the top of
 * its first page.
 */
import type { DocumentTypeCode } from "./types.ts";

/** A document type: its code and its label (the `GET /documents/types` items, `{code, label}`). */
export interface DocumentTypeEntry {
  code: DocumentTypeCode;
  label: string;
}

/** Every document type the extractor knows, for `GET /documents/types` (docs/documents.md §Document types). */
export const DOCUMENT_TYPES: readonly DocumentTypeEntry[] = [
  { code: "bill_of_lading", label: "Bill of lading" },
  { code: "sea_waybill", label: "Sea waybill" },
  { code: "house_bill_of_lading", label: "House bill of lading" },
  { code: "arrival_notice", label: "Arrival notice" },
  { code: "booking_confirmation", label: "Booking confirmation" },
  { code: "delivery_order", label: "Delivery order" },
  { code: "commercial_invoice", label: "Commercial invoice" },
  { code: "packing_list", label: "Packing list" },
  { code: "other", label: "Other" },
];

/** Title phrases, most specific first (`HOUSE BILL OF LADING` before `BILL OF LADING`). */
const TITLES: readonly (readonly [DocumentTypeCode, RegExp])[] = [
  ["house_bill_of_lading", /\b(?:house\s+bill\s+of\s+lading|hbl)\b/i],
  ["sea_waybill", /\b(?:sea\s*way\s*bill|non-negotiable\s+waybill)\b/i],
  ["arrival_notice", /\b(?:arrival\s+notice|notice\s+of\s+arrival)\b/i],
  ["booking_confirmation", /\bbooking\s+confirmation\b/i],
  ["delivery_order", /\bdelivery\s+order\b/i],
  ["commercial_invoice", /\bcommercial\s+invoice\b/i],
  ["packing_list", /\bpacking\s+list\b/i],
  ["bill_of_lading", /\bbill\s+of\s+lading\b/i],
];

/** A phrase followed by one of these is a number's label, not a title. */
const NUMBER_LABEL_AFTER = /^\s*(?:no\.?|number|nr\.?|#|:)/i;

/** Lines counted as "the top" of the first page. */
const TOP_LINES = 6;

/** Confidences of the type guess. */
export const DOCUMENT_TYPE_CONFIDENCE = { titleAtTop: 0.9, titleBelow: 0.6, none: 0.3 } as const;

/** The type a title phrase in `line` names, or null. */
function titleIn(line: string): DocumentTypeCode | null {
  for (const [code, pattern] of TITLES) {
    const match = new RegExp(pattern.source, "gi");
    for (const m of line.matchAll(match)) {
      const after = line.slice((m.index ?? 0) + m[0].length);
      if (!NUMBER_LABEL_AFTER.test(after)) return code;
    }
  }
  return null;
}

/** The document type guess from the first page's lines: `other` (0.3) when no title is found. */
export function guessDocumentType(firstPageLines: readonly string[]): { value: DocumentTypeCode; confidence: number } {
  for (let i = 0; i < firstPageLines.length; i++) {
    const code = titleIn(firstPageLines[i] ?? "");
    if (code) {
      return {
        value: code,
        confidence: i < TOP_LINES ? DOCUMENT_TYPE_CONFIDENCE.titleAtTop : DOCUMENT_TYPE_CONFIDENCE.titleBelow,
      };
    }
  }
  return { value: "other", confidence: DOCUMENT_TYPE_CONFIDENCE.none };
}
