import { and, eq, inArray } from "drizzle-orm";
import { emailSubmissions } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import type { EmailSubmissionRow } from "./email-submission-serializer";
import type { DocumentRow } from "./serializer";

/**
 * The compact forms the reference uses when documents and e-mail submissions include each other
 * (REFERENCE-SERVICE-MORE.md §7.5, docs/api.md §Documents "Includes"):
 * - an e-mail submission in a document's `included` (schema `document_email_submission`): `type` `email_submission`,
 *   attributes `subject`, `body_preview`, `from`, `to`, `cc`, `message_id`, `sent_at`, `created_at`, `updated_at`, no
 *   relationships;
 * - a document in an e-mail submission's `included` (schema `email_submission_document`): `type` `document`,
 *   attributes `name`, `source`, `document_type`, `created_at`, `updated_at`, relationship
 *   `last_document_representation` only.
 * Each is registered in the include registry under its schema's name, which is what relationships target; the JSON:API
 * `type` they emit is the full resource's.
 */

/** Longest `body_preview`, characters (the reference's length is undocumented; its example is one short sentence). */
export const BODY_PREVIEW_LENGTH = 200;

/**
 * The `body_preview` of a message body: runs of white space made one space, trimmed, cut to
 * {@link BODY_PREVIEW_LENGTH} characters (whole code points) with `…` when cut; null for no or a blank body.
 */
export function bodyPreview(body: string | null): string | null {
  const text = (body ?? "").replace(/\s+/g, " ").trim();
  if (text === "") return null;
  const chars = [...text];
  if (chars.length <= BODY_PREVIEW_LENGTH) return text;
  return `${chars
    .slice(0, BODY_PREVIEW_LENGTH - 1)
    .join("")
    .trimEnd()}…`;
}

/** Serialises an e-mail submission in its compact form (see the module comment). */
export function serializeDocumentEmailSubmission(row: EmailSubmissionRow): ResourceObject {
  return {
    id: row.id,
    type: "email_submission",
    attributes: {
      subject: row.subject,
      body_preview: bodyPreview(row.body),
      from: row.from,
      to: row.to,
      cc: row.cc,
      message_id: row.messageId,
      sent_at: row.sentAt,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
  };
}

/** Serialises a document in its compact form (see the module comment). */
export function serializeEmailSubmissionDocument(row: DocumentRow): ResourceObject {
  return {
    id: row.id,
    type: "document",
    attributes: {
      name: row.name,
      source: row.source,
      document_type: row.documentType,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    relationships: {
      last_document_representation: {
        data: row.lastDocumentRepresentationId
          ? { type: "document_representation", id: row.lastDocumentRepresentationId }
          : null,
      },
    },
  };
}

/** The compact e-mail submission, target of a document's `email_submission`; read by id within the account. */
export const documentEmailSubmissionResource = registerResourceType<EmailSubmissionRow>({
  type: "document_email_submission",
  serializerName: "V2::DocumentEmailSubmissionSerializer",
  serialize: serializeDocumentEmailSubmission,
  relationships: {},
  loadByIds: async (ctx, ids) => {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    if (wanted.length === 0) return [];
    return ctx.db
      .select()
      .from(emailSubmissions)
      .where(and(eq(emailSubmissions.accountId, ctx.accountId), inArray(emailSubmissions.id, wanted)));
  },
});

/** The compact document, target of an e-mail submission's `documents`. */
export const emailSubmissionDocumentResource = registerResourceType<DocumentRow>({
  type: "email_submission_document",
  serializerName: "V2::EmailSubmissionDocumentSerializer",
  serialize: serializeEmailSubmissionDocument,
  relationships: {
    last_document_representation: {
      target: "document_representation",
      idOf: (row) => row.lastDocumentRepresentationId,
    },
  },
});
