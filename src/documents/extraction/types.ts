/**
 * Shapes of the built-in document extractor (docs/documents.md §Document extraction). The extractor reads a
 * document's text (a PDF's text layer, or a plain-text file) and recognises shipping references in it; the result is
 * the `payload` of the reference's `document_representation` (docs/documents.md §Payload), plus the document type
 * guess and page count the caller stores on the `document`.
 */

/**
 * Document type codes the extractor can guess (docs/documents.md §Document types). The reference service documents
 * only `commercial_invoice` as a code and names the others in prose (arrival notices, carrier delivery orders, sea
 * waybills, house bills of lading); these snake_case codes follow that one's form.
 */
export type DocumentTypeCode =
  | "bill_of_lading"
  | "sea_waybill"
  | "house_bill_of_lading"
  | "arrival_notice"
  | "booking_confirmation"
  | "delivery_order"
  | "commercial_invoice"
  | "packing_list"
  | "other";

/**
 * One recognised value. `confidence` is in 0..1 (docs/documents.md §Confidence): how sure the rule that found the
 * value is that it means this field — 0.95 and up for a value checked against a rule or the reference data and
 * found next to its label (a container number with a valid ISO 6346 check digit), about 0.7–0.9 for a labelled value
 * with no check, about 0.4–0.6 for an unlabelled guess. Values are strings, as in the reference's payload example.
 */
export interface ExtractedField {
  /** The normalised value: upper-case number, SCAC, UN/LOCODE, vessel name as written, ISO 8601 date `YYYY-MM-DD`. */
  value: string;
  /** 0..1, rounded to two decimals. */
  confidence: number;
  /** The text the value was read from, as it appears in the document (e.g. `Shanghai, China` for `CNSHA`). */
  source_text: string;
}

/**
 * `document_representation.payload` of an extracted document (docs/documents.md §Payload; the reference's
 * document_representation, docs/documents.md §Document extraction). Every key is always present: a field not found is
 * `null`, a list not found is `[]`. Snake_case keys, as the reference's payloads.
 */
export interface ExtractionPayload {
  /** The document type guess, with its confidence. */
  document_type: { value: DocumentTypeCode; confidence: number };
  /** Master bill of lading number (also a sea waybill number). */
  bill_of_lading_number: ExtractedField | null;
  /** Carrier booking number. */
  booking_number: ExtractedField | null;
  /** Container numbers with a valid ISO 6346 check digit, each once, in order of first appearance. */
  container_numbers: ExtractedField[];
  /** SCAC of the ocean carrier (from a SCAC label, a carrier name, or a BL prefix). */
  shipping_line_scac: ExtractedField | null;
  /** Vessel name, upper case as carriers write it. */
  vessel_name: ExtractedField | null;
  /** Voyage number as written (upper case). */
  voyage_number: ExtractedField | null;
  /** Port of loading as a UN/LOCODE of our ports reference data. */
  port_of_loading: ExtractedField | null;
  /** Port of discharge as a UN/LOCODE of our ports reference data. */
  port_of_discharge: ExtractedField | null;
  /** Estimated time of departure, `YYYY-MM-DD`. */
  estimated_departure_date: ExtractedField | null;
  /** Estimated time of arrival, `YYYY-MM-DD`. */
  estimated_arrival_date: ExtractedField | null;
  /** Reference / PO numbers (purchase order, customer, shipper or consignee references), each once, in order. */
  reference_numbers: ExtractedField[];
}

/** A successful extraction (docs/documents.md §Document extraction). */
export interface ExtractionSuccess {
  status: "extracted";
  /** The document type guess (same as `payload.document_type.value`). */
  documentType: DocumentTypeCode;
  /** Version of the payload shape, `document_representation.schema_version` ({@link EXTRACTION_SCHEMA_VERSION}). */
  schemaVersion: string;
  /** `document_representation.payload`. */
  payload: ExtractionPayload;
  /** Pages read (1 for a plain-text document). */
  pageCount: number;
  /** Characters of text read (after whitespace normalisation), for logs and the bench. */
  textLength: number;
}

/**
 * Why a document could not be extracted (docs/documents.md §Failures):
 * - `no_text_layer`: a PDF whose pages carry no text (a scanned image): OCR is out of scope;
 * - `corrupt_file`: the bytes are not a readable PDF (or not valid UTF-8 text for `text/plain`);
 * - `encrypted`: a password-protected PDF;
 * - `unsupported_content_type`: neither `application/pdf` nor `text/plain`;
 * - `too_many_pages`: more than {@link MAX_PAGES} pages;
 * - `too_large`: more than {@link MAX_BYTES} bytes.
 */
export type ExtractionFailureReason =
  | "no_text_layer"
  | "corrupt_file"
  | "encrypted"
  | "unsupported_content_type"
  | "too_many_pages"
  | "too_large";

/** A failed extraction: nothing recognised, a reason code and a sentence for people. */
export interface ExtractionFailure {
  status: "failed";
  reason: ExtractionFailureReason;
  /** A sentence saying what was wrong, e.g. `The PDF has no text layer (a scanned image?); OCR is not supported.` */
  detail: string;
  /** Pages when the file could be opened, else null. */
  pageCount: number | null;
}

/** What {@link extractDocument} answers: never throws for bad input. */
export type ExtractionOutcome = ExtractionSuccess | ExtractionFailure;

/** `document_representation.schema_version` of payloads this extractor writes (docs/documents.md §Payload). */
export const EXTRACTION_SCHEMA_VERSION = "2026-12-01";

/** Largest document read, in bytes (25 MiB); larger → `too_large`. */
export const MAX_BYTES = 25 * 1024 * 1024;

/** Most pages read; more → `too_many_pages`. */
export const MAX_PAGES = 50;
