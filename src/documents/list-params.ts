import { asc, desc, type SQL, sql } from "drizzle-orm";
import { documents } from "../db/schema";
import { ApiError } from "../lib/errors";
import { parseStringFilter } from "../lib/jsonapi/filters";
import { type ListFilter, type ListOrder, listFilter } from "../lib/list-query";
import { DOCUMENT_TYPES } from "./extraction";

/**
 * The filters and sort of `GET /documents` (REFERENCE-SERVICE-MORE.md §7.7, docs/api.md §Documents "List"):
 * - `filter[filename]`: the file name contains the text, case-insensitively (ASCII letters, SQLite's `LIKE`); `%`, `_`
 *   and `\` are matched as themselves;
 * - `filter[document_types]`: comma-separated codes of `GET /documents/types`, matched against the effective type
 *   (`document_type_manual` when set, else the extractor's `document_type`);
 * - `sort`: comma-separated keys `document_type` (the effective type, nulls first ascending), `added_by` (the
 *   document's `source`: we have no users, and the source is who added it: `api`, `email`, `upload`) and
 *   `created_at`, each with `-` for descending; ties go by `created_at` then `id` in the first key's direction, so
 *   pages never overlap. No sort: newest first.
 */

/** The effective document type: the manual override if set, else the extractor's. Also the index expression. */
export const effectiveDocumentType: SQL = sql`coalesce(${documents.documentTypeManual}, ${documents.documentType})`;

/** The sort keys of `GET /documents`. */
export const DOCUMENT_SORT_KEYS = ["document_type", "added_by", "created_at"] as const;

/** Longest `filter[filename]`, characters. */
const MAX_FILENAME_FILTER = 255;

/** `text` as a LIKE pattern matching it anywhere, its wildcards and the escape character escaped (`ESCAPE '\'`). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * The list filters of the request's `filter[filename]` and `filter[document_types]` (see the module comment).
 * @throws ApiError 400 at the parameter for a filename over 255 characters or an unknown type code.
 */
export function documentListFilters(params: URLSearchParams): (ListFilter | undefined)[] {
  const filename = parseStringFilter(params.get("filter[filename]"), "filter[filename]", MAX_FILENAME_FILTER);
  const rawTypes = parseStringFilter(params.get("filter[document_types]"), "filter[document_types]", 500);
  let types: string[] | undefined;
  if (rawTypes !== undefined) {
    types = [...new Set(rawTypes.split(",").map((t) => t.trim()))].filter((t) => t !== "");
    const unknown = types.find((t) => !DOCUMENT_TYPES.some((d) => d.code === t));
    if (unknown !== undefined) {
      throw ApiError.badParameter(
        "filter[document_types]",
        `${unknown} is not a document type (GET /documents/types): ${DOCUMENT_TYPES.map((d) => d.code).join(", ")}.`,
      );
    }
    if (types.length === 0) types = undefined;
  }
  return [
    listFilter(
      "filename",
      filename === undefined ? undefined : containsPattern(filename),
      (v) => sql`${documents.fileName} LIKE ${v} ESCAPE '\\'`,
    ),
    listFilter(
      "document_types",
      types === undefined ? undefined : JSON.stringify(types),
      (v) => sql`${effectiveDocumentType} IN (SELECT value FROM json_each(${v}))`,
    ),
  ];
}

/**
 * The order of the request's `sort` (see the module comment), or undefined for the default newest first.
 * @throws ApiError 400 at `sort` for an unknown key or a key given twice.
 */
export function documentListOrder(params: URLSearchParams): ListOrder | undefined {
  const raw = params.get("sort");
  if (raw === null || raw.trim() === "") return undefined;
  const keys = raw.split(",").map((k) => k.trim());
  const by: SQL[] = [];
  const seen = new Set<string>();
  let descending: boolean | undefined;
  for (const key of keys) {
    const desc_ = key.startsWith("-");
    const name = desc_ ? key.slice(1) : key;
    if (!(DOCUMENT_SORT_KEYS as readonly string[]).includes(name)) {
      throw ApiError.badParameter(
        "sort",
        `${name === "" ? "(empty)" : name.slice(0, 40)} is not a sort key of documents: ${DOCUMENT_SORT_KEYS.join(", ")}, each with - for descending.`,
      );
    }
    if (seen.has(name)) throw ApiError.badParameter("sort", `${name} is given twice in sort.`);
    seen.add(name);
    descending ??= desc_;
    const dir = desc_ ? desc : asc;
    if (name === "document_type") by.push(dir(effectiveDocumentType));
    else if (name === "added_by") by.push(dir(documents.source));
    else by.push(dir(documents.createdAt));
  }
  const tie = descending ? desc : asc;
  if (!seen.has("created_at")) by.push(tie(documents.createdAt));
  by.push(tie(documents.id));
  return { key: keys.join(","), by };
}
