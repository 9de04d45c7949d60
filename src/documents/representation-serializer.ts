import { and, eq, inArray } from "drizzle-orm";
import { documentRepresentations as table } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";

/** A `document_representations` row as drizzle returns it. */
export type DocumentRepresentationRow = typeof table.$inferSelect;

/**
 * Serialises an extraction result as the reference's `document_representation` (docs/api.md §Documents
 * "Extraction"): `schema_version`, `payload` (the extractor's fields, each `{value, confidence, source_text}`),
 * `created_at`, `updated_at`; no relationships and no endpoint of its own.
 */
export function serializeDocumentRepresentation(row: DocumentRepresentationRow): ResourceObject {
  return {
    id: row.id,
    type: "document_representation",
    attributes: {
      schema_version: row.schemaVersion,
      payload: row.payload,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
  };
}

/** JSON:API type `document_representation`, read by id for a document's `last_document_representation`. */
export const documentRepresentationResource = registerResourceType<DocumentRepresentationRow>({
  type: "document_representation",
  serializerName: "V2::DocumentRepresentationSerializer",
  serialize: serializeDocumentRepresentation,
  relationships: {},
  loadByIds: async (ctx, ids) => {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    if (wanted.length === 0) return [];
    return ctx.db
      .select()
      .from(table)
      .where(and(inArray(table.id, wanted), eq(table.accountId, ctx.accountId)));
  },
});
