/**
 * The built-in document extractor (docs/documents.md §Document extraction): `extractDocument(bytes, contentType)`
 * reads a PDF's text layer (or a plain-text file) and recognises container, BL and booking numbers, the carrier's
 * SCAC, vessel and voyage, POL/POD and ETD/ETA, each with a confidence. No OCR: a scanned PDF without a text layer
 * fails with `no_text_layer`. Runs in workerd and Node alike (PDF.js through `unpdf`).
 */
import { recognise } from "./recognise.ts";
import { type DocumentText, readPdfText, readPlainText, TextReadError } from "./text-layer.ts";
import {
  EXTRACTION_SCHEMA_VERSION,
  type ExtractionFailure,
  type ExtractionFailureReason,
  type ExtractionOutcome,
  MAX_BYTES,
  MAX_PAGES,
} from "./types.ts";

export { DOCUMENT_TYPES, type DocumentTypeEntry } from "./document-types.ts";
export {
  type DocumentTypeCode,
  EXTRACTION_SCHEMA_VERSION,
  type ExtractedField,
  type ExtractionFailure,
  type ExtractionFailureReason,
  type ExtractionOutcome,
  type ExtractionPayload,
  type ExtractionSuccess,
  MAX_BYTES,
  MAX_PAGES,
} from "./types.ts";

/** Content types the extractor reads (parameters such as `; charset=utf-8` are ignored). */
export const EXTRACTABLE_CONTENT_TYPES = ["application/pdf", "text/plain"] as const;

/** Fewer non-blank characters than this on every page: the PDF has no text layer (a scanned image). */
const MIN_TEXT_CHARACTERS = 1;

function failure(reason: ExtractionFailureReason, detail: string, pageCount: number | null = null): ExtractionFailure {
  return { status: "failed", reason, detail, pageCount };
}

/**
 * Extracts a document (docs/documents.md §Document extraction). Never throws for bad input: every problem is an
 * {@link ExtractionFailure} with a reason code —
 * `unsupported_content_type` (not PDF or plain text), `too_large` (over {@link MAX_BYTES}), `corrupt_file`,
 * `encrypted`, `too_many_pages` (over {@link MAX_PAGES}), `no_text_layer` (a scanned PDF: OCR is out of scope).
 * @param bytes the file's bytes (not modified).
 * @param contentType its MIME type, e.g. `application/pdf`.
 */
export async function extractDocument(bytes: Uint8Array, contentType: string): Promise<ExtractionOutcome> {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (!(EXTRACTABLE_CONTENT_TYPES as readonly string[]).includes(type)) {
    return failure(
      "unsupported_content_type",
      `Documents of type ${type || "(none)"} are not read; PDF and plain text are.`,
    );
  }
  if (bytes.byteLength > MAX_BYTES) {
    return failure("too_large", `The file has ${bytes.byteLength} bytes; at most ${MAX_BYTES} are read.`);
  }
  let text: DocumentText;
  try {
    text = type === "application/pdf" ? await readPdfText(bytes, MAX_PAGES) : readPlainText(bytes);
  } catch (error) {
    if (error instanceof TextReadError) return failure(error.reason, error.message, error.pageCount);
    throw error;
  }
  const pageCount = text.pages.length;
  const textLength = text.pages.reduce(
    (sum, page) => sum + page.reduce((n, line) => n + line.text.replace(/\s/g, "").length, 0),
    0,
  );
  if (textLength < MIN_TEXT_CHARACTERS) {
    return failure(
      "no_text_layer",
      type === "application/pdf"
        ? "The PDF has no text layer (a scanned image?); OCR is not supported."
        : "The text file is empty.",
      pageCount,
    );
  }
  const payload = recognise(text.pages);
  return {
    status: "extracted",
    documentType: payload.document_type.value,
    schemaVersion: EXTRACTION_SCHEMA_VERSION,
    payload,
    pageCount,
    textLength,
  };
}

export { extractionPayloadJsonSchema, extractionPayloadSchema } from "./payload-schema.ts";
