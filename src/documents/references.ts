import { and, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { documentReferences } from "../db/schema";
import type { ExtractionPayload } from "./extraction";

/**
 * Reference tokens of documents (docs/documents.md §Links): the BL, booking, container and reference / PO numbers a
 * document names, normalized so that `MSKU 123456-7`, `msku1234567` and `MSKU1234567` are one token.
 */

/** Kinds of reference token (`document_references.kind`). */
export type ReferenceKind = "bill_of_lading" | "booking" | "container" | "reference";

/** One token of a document. */
export interface ReferenceToken {
  kind: ReferenceKind;
  /** As the document or its manual data gives it (trimmed). */
  value: string;
  /** {@link normalizeReference} of `value`. */
  normalizedValue: string;
}

/** Characters {@link normalizeReference} drops: spaces, dashes, dots, slashes, underscores. */
const SEPARATORS = /[ \-./_]/g;

/** Longest token kept (longer values are not reference numbers). */
export const MAX_REFERENCE_LENGTH = 50;
/** Most tokens kept per document (a manifest of a few hundred boxes stays whole; beyond that is not a document). */
export const MAX_REFERENCES_PER_DOCUMENT = 500;

/**
 * The normal form reference tokens are compared in: upper case without spaces, dashes, dots, slashes and
 * underscores (`"msku 123456-7"` → `"MSKU1234567"`). Shipments' and containers' numbers are compared in the same form
 * ({@link normalizedSql}).
 */
export function normalizeReference(value: string): string {
  return value.toUpperCase().replace(SEPARATORS, "");
}

/** {@link normalizeReference} in SQL, for a column or expression (the same characters dropped, SQLite `upper`). */
export function normalizedSql(expression: SQLWrapper): SQL {
  return sql`replace(replace(replace(replace(replace(upper(${expression}), ' ', ''), '-', ''), '.', ''), '/', ''), '_', '')`;
}

/** The strings of a manual value: a string, an array of strings, or `{value: string}` objects (as in the payload). */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value && typeof value === "object" && typeof (value as { value?: unknown }).value === "string") {
    return [(value as { value: string }).value];
  }
  return [];
}

/**
 * Keys of `extracted_data_manual` read as tokens (docs/documents.md §Links): the payload's own keys, and reference /
 * PO numbers (which the extractor does not recognise) under any of the reference keys.
 */
const MANUAL_KEYS: readonly (readonly [string, ReferenceKind])[] = [
  ["bill_of_lading_number", "bill_of_lading"],
  ["booking_number", "booking"],
  ["container_numbers", "container"],
  ["reference_numbers", "reference"],
  ["ref_numbers", "reference"],
  ["po_numbers", "reference"],
  ["po_number", "reference"],
  ["purchase_order_number", "reference"],
];

/**
 * The reference tokens of a document: the BL number, booking number, container numbers and reference / PO numbers
 * of its extraction payload (null when it has none), then those of its `extracted_data_manual` (see {@link MANUAL_KEYS}). Each
 * (kind, normalized value) once, in that order; blank and over-long values are dropped; at most
 * {@link MAX_REFERENCES_PER_DOCUMENT}.
 */
export function referenceTokens(
  payload: ExtractionPayload | null,
  manual: Record<string, unknown> | null,
): ReferenceToken[] {
  const raw: [ReferenceKind, string][] = [];
  if (payload) {
    if (payload.bill_of_lading_number) raw.push(["bill_of_lading", payload.bill_of_lading_number.value]);
    if (payload.booking_number) raw.push(["booking", payload.booking_number.value]);
    for (const c of payload.container_numbers ?? []) raw.push(["container", c.value]);
    // Payloads of schema 2026-11-28 have no reference numbers.
    for (const r of payload.reference_numbers ?? []) raw.push(["reference", r.value]);
  }
  if (manual) {
    for (const [key, kind] of MANUAL_KEYS) for (const v of stringsOf(manual[key])) raw.push([kind, v]);
  }
  const seen = new Set<string>();
  const tokens: ReferenceToken[] = [];
  for (const [kind, v] of raw) {
    const value = v.trim();
    const normalizedValue = normalizeReference(value);
    if (normalizedValue === "" || normalizedValue.length > MAX_REFERENCE_LENGTH) continue;
    const key = `${kind}:${normalizedValue}`;
    if (seen.has(key)) continue;
    seen.add(key);
    tokens.push({ kind, value, normalizedValue });
    if (tokens.length >= MAX_REFERENCES_PER_DOCUMENT) break;
  }
  return tokens;
}

/** Rows per INSERT (D1 binds at most 100 parameters per statement; a row binds 6). */
const ROWS_PER_INSERT = 15;

/**
 * The statements that replace a document's reference tokens by `tokens` (for the batch of the extraction or relink
 * that computed them). The `auto_track` outcome of a token that stays is kept.
 */
export function replaceReferencesStatements(
  db: Database,
  document: { id: string; accountId: string },
  tokens: readonly ReferenceToken[],
  nowIso: string,
): [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] {
  const keep = JSON.stringify(tokens.map((t) => `${t.kind}:${t.normalizedValue}`));
  const statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] = [
    db
      .delete(documentReferences)
      .where(
        and(
          eq(documentReferences.accountId, document.accountId),
          eq(documentReferences.documentId, document.id),
          sql`${documentReferences.kind} || ':' || ${documentReferences.normalizedValue} NOT IN (SELECT value FROM json_each(${keep}))`,
        ),
      ),
  ];
  for (let i = 0; i < tokens.length; i += ROWS_PER_INSERT) {
    statements.push(
      db
        .insert(documentReferences)
        .values(
          tokens.slice(i, i + ROWS_PER_INSERT).map((t) => ({
            accountId: document.accountId,
            documentId: document.id,
            kind: t.kind,
            value: t.value,
            normalizedValue: t.normalizedValue,
            createdAt: nowIso,
          })),
        )
        .onConflictDoNothing(),
    );
  }
  return statements;
}
