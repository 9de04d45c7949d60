import { and, inArray, type Placeholder, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../db/client";
import { MAX_IDS_PER_STATEMENT } from "../db/query-shapes";
import { documentLinks, type documents } from "../db/schema";
import { type LoadContext, registerResourceType, resourceTypeNamed } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";

/** A `documents` row as drizzle returns it. */
export type DocumentRow = typeof documents.$inferSelect;

/** A document with the ids of its links (`shipments`, `cargos`), filled by `hydrate`; absent means not loaded. */
export type DocumentView = DocumentRow & { shipmentIds?: string[]; containerIds?: string[] };

/**
 * The query reading the links of documents given by id or by a subquery selecting ids (for the `shipments` and
 * `cargos` relationships, docs/documents.md §Links), oldest link first, scoped by account: to run alone or in the
 * D1 round trip of the read that finds the documents (a list page's companions, `getDocumentView`).
 */
export function documentLinkageQuery(
  db: Database,
  accountId: string | Placeholder,
  documentIds: readonly string[] | SQLWrapper,
) {
  return db
    .select({ documentId: documentLinks.documentId, type: documentLinks.targetType, id: documentLinks.targetId })
    .from(documentLinks)
    .where(
      and(
        ownedBy(documentLinks.accountId, accountId),
        inArray(documentLinks.documentId, Array.isArray(documentIds) ? [...documentIds] : (documentIds as SQLWrapper)),
      ),
    )
    .orderBy(documentLinks.createdAt, documentLinks.id);
}

/** Rows of {@link documentLinkageQuery}. */
export type DocumentLinkageRow = { documentId: string; type: string; id: string };

/** Documents with the linkage `links` (rows of {@link documentLinkageQuery}) gives them. */
export function withDocumentLinkage<T extends DocumentRow>(
  rows: T[],
  links: readonly DocumentLinkageRow[],
): (T & { shipmentIds: string[]; containerIds: string[] })[] {
  const byDocument = new Map<string, DocumentLinkageRow[]>();
  for (const l of links) byDocument.set(l.documentId, [...(byDocument.get(l.documentId) ?? []), l]);
  return rows.map((r) => {
    const mine = byDocument.get(r.id) ?? [];
    return {
      ...r,
      shipmentIds: mine.filter((l) => l.type === "shipment").map((l) => l.id),
      containerIds: mine.filter((l) => l.type === "container").map((l) => l.id),
    };
  });
}

/** Documents completed with their linkage (rows that have it pass through). */
async function withLinkage(ctx: LoadContext, rows: DocumentView[]): Promise<DocumentView[]> {
  if (rows.length === 0 || rows.every((r) => r.shipmentIds && r.containerIds)) return rows;
  const links = await documentLinkageQuery(
    ctx.db,
    ctx.accountId,
    rows.map((r) => r.id),
  );
  return withDocumentLinkage(rows, links);
}

/** The linked rows of `type` of `parents` (read by the target type, scoped by account), in link order. */
async function linkedRows(ctx: LoadContext, parents: DocumentView[], type: "shipment" | "container") {
  const hydrated = await withLinkage(ctx, parents);
  const ids = [...new Set(hydrated.flatMap((d) => (type === "shipment" ? d.shipmentIds : d.containerIds) ?? []))];
  return loadByIdsChunked(ctx, type, ids);
}

/**
 * Rows of the registered type `type` with `ids` in the account (its `loadByIds`, in chunks of {@link MAX_IDS_PER_STATEMENT}),
 * in no particular order; none when the type reads no rows by id.
 */
export async function loadByIdsChunked(ctx: LoadContext, type: string, ids: readonly string[]): Promise<unknown[]> {
  const target = resourceTypeNamed(type);
  const load = target.loadByIds;
  if (ids.length === 0 || !load) return [];
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += MAX_IDS_PER_STATEMENT) chunks.push(ids.slice(i, i + MAX_IDS_PER_STATEMENT));
  return (await Promise.all(chunks.map((chunk) => load(ctx, chunk)))).flat();
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
 * shipments and containers, read by their own types), and `email_submission` (the submission in its compact form).
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
    // The submission in its compact form (`body_preview`, no relationships), src/documents/compact-serializers.ts.
    email_submission: { target: "document_email_submission", idOf: (row) => row.emailSubmissionId },
  },
});
