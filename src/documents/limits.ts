/**
 * What the document upload flow accepts (docs/api.md §Documents "Limits"). The reference documents no size limit;
 * ours keeps one file within what a Worker reads and extracts comfortably.
 */

/** Largest document accepted, in bytes (25 MiB); a larger declared or sent file is refused and nothing is stored. */
export const MAX_DOCUMENT_BYTES = 25 * 1024 * 1024;

/**
 * MIME types a document may have: PDF, the common image types and spreadsheets, as the reference's changelog names
 * them (docs/api.md §Documents). Compared without parameters, case-insensitively.
 */
export const ACCEPTED_CONTENT_TYPES: readonly string[] = [
  "application/pdf",
  "image/png",
  "image/jpeg",
  "image/tiff",
  "application/vnd.ms-excel",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.ms-excel.sheet.macroenabled.12",
];

/** The bare, lower-case media type of a `Content-Type` value (`application/pdf; x=y` → `application/pdf`). */
export function mediaTypeOf(value: string | null | undefined): string {
  return (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Whether a document may have this MIME type ({@link ACCEPTED_CONTENT_TYPES}). */
export function isAcceptedContentType(value: string): boolean {
  return ACCEPTED_CONTENT_TYPES.includes(mediaTypeOf(value));
}

/** Lifetime of a signed upload URL (`direct_upload.url`), seconds. */
export const UPLOAD_URL_TTL_SECONDS = 10 * 60;
/** Lifetime of a signed download URL (`GET /documents/{id}/download_url`), seconds. */
export const DOWNLOAD_URL_TTL_SECONDS = 5 * 60;
