import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { documents } from "../db/schema";
import { ApiError } from "../lib/errors";
import { type FilterValues, parseStringFilter } from "../lib/jsonapi/filters";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { listFilter, listPage } from "../lib/list-query";
import { DOCUMENT_TYPES } from "./extraction";
import type { DocumentRow } from "./serializer";

/**
 * The list of `GET /v2/documents` (docs/api.md §Documents "Listing"), shared by the REST route and the MCP
 * `list_documents` tool (src/mcp/documents-api.ts): the reference's `filter[filename]` and `filter[document_types]`
 * (REFERENCE-SERVICE-MORE.md §7.7), parsed once here.
 */

/** Parameters of the documents list's filters. */
export type DocumentFilterParameter = "filter[filename]" | "filter[document_types]";

/** The parsed filters of the documents list; an absent key is not filtered on. */
export interface DocumentFilters {
  /** Case-insensitive substring of `file_name` (LIKE wildcards in it match themselves). */
  fileName?: string;
  /** Codes of `GET /documents/types`, matched against the effective type (the manual override, else the extractor's). */
  documentTypes?: string[];
}

/** Longest `filter[filename]` accepted (a direct upload takes file names of up to 1000, src/documents/upload-routes.ts). */
const MAX_FILENAME_FILTER = 1000;

/**
 * Reads the documents list's filters from their raw values.
 * @throws ApiError 400 with `source.parameter`: a file name longer than 1000 characters; a document type that is not
 *   a code of `GET /documents/types` (named in the detail).
 */
export function parseDocumentFilters(values: FilterValues<DocumentFilterParameter>): DocumentFilters {
  const filters: DocumentFilters = {};
  const fileName = parseStringFilter(values["filter[filename]"], "filter[filename]", MAX_FILENAME_FILTER);
  if (fileName !== undefined) filters.fileName = fileName;
  const rawTypes = parseStringFilter(values["filter[document_types]"], "filter[document_types]", 1000);
  if (rawTypes !== undefined) {
    const codes = [...new Set(rawTypes.split(",").map((t) => t.trim().toLowerCase()))].filter((t) => t !== "");
    const unknown = codes.filter((code) => !DOCUMENT_TYPES.some((t) => t.code === code));
    if (unknown.length > 0) {
      throw ApiError.badParameter(
        "filter[document_types]",
        `${unknown.join(", ")} ${unknown.length === 1 ? "is not a document type" : "are not document types"} (GET /documents/types: ${DOCUMENT_TYPES.map((t) => t.code).join(", ")}).`,
      );
    }
    if (codes.length > 0) filters.documentTypes = codes;
  }
  return filters;
}

/** The type a document counts as: its manual override (`PATCH`) when set, else the extractor's guess, else null. */
export function effectiveDocumentType(row: Pick<DocumentRow, "documentType" | "documentTypeManual">): string | null {
  return row.documentTypeManual ?? row.documentType;
}

/**
 * One page of the account's documents matching `filters`, newest first, with the number matching (`listPage`: the
 * page and its count in one D1 round trip over the `(account_id, created_at, id)` index).
 */
export async function listDocuments(
  db: Database,
  accountId: string,
  filters: DocumentFilters,
  page: PageRequest,
): Promise<{ rows: DocumentRow[]; total: number }> {
  const escaped = filters.fileName?.replace(/[\\%_]/g, (ch) => `\\${ch}`);
  const { rows, total } = await listPage(
    db,
    documents,
    "document",
    accountId,
    [
      listFilter(
        "filename",
        escaped === undefined ? undefined : `%${escaped}%`,
        (v) => sql`${documents.fileName} LIKE ${v} ESCAPE '\\'`,
      ),
      listFilter(
        "document_types",
        filters.documentTypes ? JSON.stringify(filters.documentTypes) : undefined,
        (v) =>
          sql`coalesce(${documents.documentTypeManual}, ${documents.documentType}) IN (SELECT value FROM json_each(${v}))`,
      ),
    ],
    page,
  );
  return { rows, total };
}
