import { and, eq, inArray } from "drizzle-orm";
import { documents, type emailSubmissions } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";

/** An `email_submissions` row with the ids of its documents (`hydrate`). */
export type EmailSubmissionRow = typeof emailSubmissions.$inferSelect & { documentIds?: string[] };

/**
 * Serialises an e-mail submission (docs/api.md §E-mail submissions): the message's headers and body,
 * `documents_count` (its documents that still exist) and the `documents` linkage.
 */
export function serializeEmailSubmission(row: EmailSubmissionRow): ResourceObject {
  const ids = row.documentIds ?? [];
  return {
    id: row.id,
    type: "email_submission",
    attributes: {
      subject: row.subject,
      body: row.body,
      from: row.from,
      to: row.to,
      cc: row.cc,
      sent_at: row.sentAt,
      message_id: row.messageId,
      in_reply_to: row.inReplyTo,
      references: row.references,
      content_type: row.contentType,
      documents_count: ids.length,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    relationships: {
      account: { data: { type: "account", id: row.accountId } },
      user: { data: null },
      documents: { data: ids.map((id) => ({ type: "document", id })) },
    },
    links: { self: `/v2/email_submissions/${row.id}` },
  };
}

/**
 * JSON:API type `email_submission`; `documents` reads the account's documents of the submissions, included in the
 * reference's compact document form (`email_submission_document`, src/documents/compact-serializers.ts).
 */
export const emailSubmissionResource = registerResourceType<EmailSubmissionRow>({
  type: "email_submission",
  serializerName: "V2::EmailSubmissionSerializer",
  serialize: serializeEmailSubmission,
  hydrate: async (ctx, rows) => {
    const ids = rows.map((r) => r.id);
    if (ids.length === 0) return rows;
    const linked = await ctx.db
      .select({ id: documents.id, submission: documents.emailSubmissionId })
      .from(documents)
      .where(and(eq(documents.accountId, ctx.accountId), inArray(documents.emailSubmissionId, ids)))
      .orderBy(documents.createdAt, documents.id);
    return rows.map((r) => ({ ...r, documentIds: linked.filter((d) => d.submission === r.id).map((d) => d.id) }));
  },
  relationships: {
    documents: {
      target: "email_submission_document",
      load: async (ctx, parents) => {
        const ids = parents.map((p) => p.id);
        if (ids.length === 0) return [];
        return ctx.db
          .select()
          .from(documents)
          .where(and(eq(documents.accountId, ctx.accountId), inArray(documents.emailSubmissionId, ids)))
          .orderBy(documents.createdAt, documents.id);
      },
    },
  },
});
