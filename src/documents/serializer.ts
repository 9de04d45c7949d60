import { and, inArray } from "drizzle-orm";
import type { Database } from "../db/client";
import { documentLinks, type documents } from "../db/schema";
import { type LoadContext, registerResourceType, resourceTypeNamed } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";

/** A `documents` row as drizzle returns it. */
export type DocumentRow = typeof documents.$inferSelect;

/** A document with the ids of its links (`shipments`, `cargos`), filled by `hydrate`; absent means not loaded. */
export type DocumentView = DocumentRow & { shipmentIds?: string[]; containerIds?: string[] };

/**
 * The linkage of documents: their linked shipment and container ids, oldest link first (for the `shipments` and
 * `cargos` relationships, docs/documents.md §Links). One query for all of them, scoped by account.
 */
export async function loadDocumentLinkage(
  db: Database,
  accountId: string,
  documentIds: readonly string[],
): Promise<Map<string, { shipmentIds: string[]; containerIds: string[] }>> {
  const out = new Map<string, { shipmentIds: string[]; containerIds: string[] }>();
  for (const id of documentIds) out.set(id, { shipmentIds: [], containerIds: [] });
  if (documentIds.length === 0) return out;
  const rows = await db
    .select({ documentId: documentLinks.documentId, type: documentLinks.targetType, id: documentLinks.targetId })
    .from(documentLinks)
    .where(and(ownedBy(documentLinks.accountId, accountId), inArray(documentLinks.documentId, [...documentIds])))
    .orderBy(documentLinks.createdAt, documentLinks.id);
  for (const r of rows) {
    const entry = out.get(r.documentId);
    if (!entry) continue;
    (r.type === "shipment" ? entry.shipmentIds : entry.containerIds).push(r.id);
  }
  return out;
}

/** Documents completed with their linkage (rows that have it pass through). */
async function withLinkage(ctx: LoadContext, rows: DocumentView[]): Promise<DocumentView[]> {
  if (rows.length === 0 || rows.every((r) => r.shipmentIds && r.containerIds)) return rows;
  const linkage = await loadDocumentLinkage(
    ctx.db,
    ctx.accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, ...linkage.get(r.id) }));
}

/** The linked rows of `type` of `parents` (read by the target type, scoped by account), in link order. */
async function linkedRows(ctx: LoadContext, parents: DocumentView[], type: "shipment" | "container") {
  const hydrated = await withLinkage(ctx, parents);
  const ids = [...new Set(hydrated.flatMap((d) => (type === "shipment" ? d.shipmentIds : d.containerIds) ?? []))];
  const target = resourceTypeNamed(type);
  if (ids.length === 0 || !target.loadByIds) return [];
  return target.loadByIds(ctx, ids);
}

/**
 * Serialises a document (docs/api.md §Documents "Document resource"): the reference's attributes, its relationships'
 * linkage (`shipments` and `cargos` are its links, docs/documents.md §Links, empty until hydrated or when it has none;
 * `last_document_representation` is null until an extraction succeeds) and `links.self` / `links.download` relative
 * and without `/v2`, as the reference's guide shows them.
 */
export function serializeDocument(row: DocumentView): ResourceObject {
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
      shipments: { data: (row.shipmentIds ?? []).map((id) => ({ type: "shipment", id })) },
      cargos: { data: (row.containerIds ?? []).map((id) => ({ type: "container", id })) },
    },
    links: { self: `/documents/${row.id}`, download: `/documents/${row.id}/download_url` },
  };
}

/**
 * JSON:API type `document`. `hydrate` reads the links of rows that lack them (one query). Includable:
 * `last_document_representation` (and its alias `current_extraction`), `shipments` and `cargos` (the linked
 * shipments and containers, read by their own types).
 */
export const documentResource = registerResourceType<DocumentView>({
  type: "document",
  serializerName: "V2::DocumentSerializer",
  hydrate: withLinkage,
  serialize: serializeDocument,
  // `current_extraction` is the reference's alias of `last_document_representation` in `include`.
  relationships: {
    last_document_representation: {
      target: "document_representation",
      idOf: (row) => row.lastDocumentRepresentationId,
    },
    current_extraction: { target: "document_representation", idOf: (row) => row.lastDocumentRepresentationId },
    shipments: { target: "shipment", load: (ctx, parents) => linkedRows(ctx, parents, "shipment") },
    cargos: { target: "container", load: (ctx, parents) => linkedRows(ctx, parents, "container") },
  },
});
