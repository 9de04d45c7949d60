import type { documents } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";

/** A `documents` row as drizzle returns it. */
export type DocumentRow = typeof documents.$inferSelect;

/**
 * Serialises a document (docs/api.md §Documents "Document resource"): the reference's attributes, its relationships'
 * linkage (`shipments` and `cargos` are empty: linking is not done yet; `last_document_representation` is null until an
 * extraction succeeds) and `links.self` / `links.download` relative and without `/v2`, as the reference's guide shows them.
 */
export function serializeDocument(row: DocumentRow): ResourceObject {
  return {
    id: row.id,
    type: "document",
    attributes: {
      id: row.id,
      name: row.name,
      document_type: row.documentType,
      document_type_manual: row.documentTypeManual,
      classification_notes: row.classificationNotes,
      source: row.source,
      file_name: row.fileName,
      file_content_type: row.fileContentType,
      file_size_bytes: row.fileSizeBytes,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    relationships: {
      account: { data: { type: "account", id: row.accountId } },
      user: { data: null },
      email_submission: {
        data: row.emailSubmissionId ? { type: "email_submission", id: row.emailSubmissionId } : null,
      },
      last_document_representation: {
        data: row.lastDocumentRepresentationId
          ? { type: "document_representation", id: row.lastDocumentRepresentationId }
          : null,
      },
      shipments: { data: [] },
      cargos: { data: [] },
    },
    links: { self: `/documents/${row.id}`, download: `/documents/${row.id}/download_url` },
  };
}

/** JSON:API type `document`; `email_submission` includes the submission in its compact form. */
export const documentResource = registerResourceType<DocumentRow>({
  type: "document",
  serializerName: "V2::DocumentSerializer",
  serialize: serializeDocument,
  // `current_extraction` is the reference's alias of `last_document_representation` in `include`.
  relationships: {
    last_document_representation: {
      target: "document_representation",
      idOf: (row) => row.lastDocumentRepresentationId,
    },
    current_extraction: { target: "document_representation", idOf: (row) => row.lastDocumentRepresentationId },
    // The submission in its compact form (`body_preview`, no relationships), src/documents/compact-serializers.ts.
    email_submission: { target: "document_email_submission", idOf: (row) => row.emailSubmissionId },
  },
});
