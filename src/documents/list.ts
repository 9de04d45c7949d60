import { asc, desc, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { placeholder } from "../db/query-shapes";
import { containers, documentLinks, documentReferences, documents, shipments } from "../db/schema";
import { ApiError } from "../lib/errors";
import { type FilterValues, parseStringFilter } from "../lib/jsonapi/filters";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { type ListFilter, type ListOrder, listFilter, listPage } from "../lib/list-query";
import { DOCUMENT_TYPES } from "./extraction";
import { MAX_REFERENCE_LENGTH, normalizedSql, normalizeReference } from "./references";
import {
  type DocumentLinkageRow,
  type DocumentRow,
  type DocumentView,
  documentLinkageQuery,
  withDocumentLinkage,
} from "./serializer";

/**
 * The list of `GET /v2/documents` (docs/api.md §Documents "Listing"), shared by the REST route and the MCP
 * `list_documents` tool (src/mcp/documents-api.ts): the reference's `filter[filename]`, `filter[document_types]`,
 * `filter[reference]` and `sort` (REFERENCE-SERVICE-MORE.md §7.7), parsed once here.
 */

/** Parameters of the documents list's filters. */
export type DocumentFilterParameter = "filter[filename]" | "filter[document_types]" | "filter[reference]";

/** The parsed filters of the documents list; an absent key is not filtered on. */
export interface DocumentFilters {
  /** Case-insensitive substring of `file_name` (LIKE wildcards in it match themselves). */
  fileName?: string;
  /** Codes of `GET /documents/types`, matched against the effective type (the manual override, else the extractor's). */
  documentTypes?: string[];
  /**
   * A reference token, normalized (src/documents/references.ts): documents with a token starting with it, or linked
   * to a shipment or container whose normalized number starts with it (docs/documents.md §Links).
   */
  reference?: string;
}

/** Fewest characters of a normalized `filter[reference]` token (a shorter prefix would match nearly everything). */
export const MIN_REFERENCE_FILTER_LENGTH = 3;

/** Longest `filter[filename]` accepted (a direct upload takes file names of up to 1000, src/documents/upload-routes.ts). */
const MAX_FILENAME_FILTER = 1000;

/**
 * Reads the documents list's filters from their raw values.
 * @throws ApiError 400 with `source.parameter`: a file name longer than 1000 characters; a document type that is not
 *   a code of `GET /documents/types` (named in the detail); a reference that normalizes to fewer than 3 or more than
 *   50 characters.
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
  const rawReference = parseStringFilter(values["filter[reference]"], "filter[reference]", 200);
  if (rawReference !== undefined) {
    const reference = normalizeReference(rawReference);
    if (reference.length < MIN_REFERENCE_FILTER_LENGTH || reference.length > MAX_REFERENCE_LENGTH) {
      throw ApiError.badParameter(
        "filter[reference]",
        `filter[reference] must have ${MIN_REFERENCE_FILTER_LENGTH} to ${MAX_REFERENCE_LENGTH} characters besides spaces, dashes, dots, slashes and underscores.`,
      );
    }
    filters.reference = reference;
  }
  return filters;
}

/** The type a document counts as: its manual override (`PATCH`) when set, else the extractor's guess, else null. */
export function effectiveDocumentType(row: Pick<DocumentRow, "documentType" | "documentTypeManual">): string | null {
  return row.documentTypeManual ?? row.documentType;
}

/**
 * The `filter[reference]` condition: documents with a reference token starting with `v` (an `(account_id,
 * normalized_value)` index range), or linked to a shipment (`normalized_number`, `bill_of_lading_number`) or
 * container (`number`) whose normalized number starts with it (the account's links, joined to their targets by id).
 * The account is listPage's own `accountId` placeholder, so each subquery runs once, not once per document.
 */
function referenceCondition(v: SQLWrapper): SQL {
  const account = placeholder("accountId");
  const upper = sql`${v} || char(1114111)`;
  const range = (column: SQLWrapper) => sql`(${column} >= ${v} AND ${column} < ${upper})`;
  const linked = (type: "shipment" | "container", target: typeof shipments | typeof containers, match: SQL) =>
    sql`${documents.id} IN (SELECT ${documentLinks.documentId} FROM ${documentLinks} JOIN ${target} ON ${target.id} = ${documentLinks.targetId} WHERE ${documentLinks.accountId} = ${account} AND ${documentLinks.targetType} = ${type} AND ${target.accountId} = ${account} AND ${match})`;
  return sql`(${documents.id} IN (SELECT ${documentReferences.documentId} FROM ${documentReferences} WHERE ${documentReferences.accountId} = ${account} AND ${range(documentReferences.normalizedValue)})
    OR ${linked("shipment", shipments, sql`(${range(normalizedSql(shipments.normalizedNumber))} OR ${range(normalizedSql(shipments.billOfLadingNumber))})`)}
    OR ${linked("container", containers, range(normalizedSql(containers.number)))})`;
}

/** The effective document type in SQL: the manual override if set, else the extractor's (also the index expression). */
export const effectiveDocumentTypeSql: SQL = sql`coalesce(${documents.documentTypeManual}, ${documents.documentType})`;

/** The sort keys of `GET /documents` (REFERENCE-SERVICE-MORE.md §7.7). */
export const DOCUMENT_SORT_KEYS = ["document_type", "added_by", "created_at"] as const;

/**
 * The order of the list's `sort`, or undefined for the default newest first: comma-separated keys `document_type`
 * (the effective type, no type first when ascending), `added_by` (the document's `source`: no users are served, and
 * the source is who added it: `api`, `email`, `upload`) and `created_at`, each with `-` for descending; ties go by
 * `created_at` then `id` in the first key's direction, so pages never overlap and one index serves each key.
 * @throws ApiError 400 at `sort` for an unknown key or a key given twice.
 */
export function parseDocumentSort(raw: string | null | undefined): ListOrder | undefined {
  if (raw === null || raw === undefined || raw.trim() === "") return undefined;
  const keys = raw.split(",").map((k) => k.trim());
  const by: SQL[] = [];
  const seen = new Set<string>();
  let descending: boolean | undefined;
  for (const key of keys) {
    const isDescending = key.startsWith("-");
    const name = isDescending ? key.slice(1) : key;
    if (!(DOCUMENT_SORT_KEYS as readonly string[]).includes(name)) {
      throw ApiError.badParameter(
        "sort",
        `${name === "" ? "(empty)" : name.slice(0, 40)} is not a sort key of documents: ${DOCUMENT_SORT_KEYS.join(", ")}, each with - for descending.`,
      );
    }
    if (seen.has(name)) throw ApiError.badParameter("sort", `${name} is given twice in sort.`);
    seen.add(name);
    descending ??= isDescending;
    const direction = isDescending ? desc : asc;
    if (name === "document_type") by.push(direction(effectiveDocumentTypeSql));
    else if (name === "added_by") by.push(direction(documents.source));
    else by.push(direction(documents.createdAt));
  }
  const tie = descending ? desc : asc;
  if (!seen.has("created_at")) by.push(tie(documents.createdAt));
  by.push(tie(documents.id));
  return { key: keys.join(","), by };
}

/** The list conditions of `filters` (absent filters undefined), as `listPage` takes them. */
export function documentListConditions(filters: DocumentFilters): (ListFilter | undefined)[] {
  const escaped = filters.fileName?.replace(/[\\%_]/g, (ch) => `\\${ch}`);
  return [
    listFilter(
      "filename",
      escaped === undefined ? undefined : `%${escaped}%`,
      (v) => sql`${documents.fileName} LIKE ${v} ESCAPE '\\'`,
    ),
    listFilter(
      "document_types",
      filters.documentTypes ? JSON.stringify(filters.documentTypes) : undefined,
      (v) => sql`${effectiveDocumentTypeSql} IN (SELECT value FROM json_each(${v}))`,
    ),
    listFilter("reference", filters.reference, referenceCondition),
  ];
}

/**
 * One page of the account's documents matching `filters`, in `order` ({@link parseDocumentSort}; newest first when
 * undefined), with the number matching and each document's links (`shipments`, `cargos`): `listPage`, the page, its
 * count and the links in one D1 round trip over the account's indexes.
 */
export async function listDocuments(
  db: Database,
  accountId: string,
  filters: DocumentFilters,
  page: PageRequest,
  order?: ListOrder,
): Promise<{ rows: DocumentView[]; total: number }> {
  const { rows, total, companions } = await listPage(
    db,
    documents,
    "document",
    accountId,
    documentListConditions(filters),
    page,
    { key: "linkage", build: (pageIds, account) => [documentLinkageQuery(db, account, pageIds)] },
    order,
  );
  return { rows: withDocumentLinkage(rows, (companions[0] ?? []) as DocumentLinkageRow[]), total };
}
