import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * Blobs reserved by `POST /rails/active_storage/direct_uploads` (docs/api.md §Documents, upload flow). The row holds
 * what the client declared (file name, MIME type, exact size, base64 MD5); `uploaded_at` is set once the signed `PUT`
 * has stored exactly those bytes in R2 under `storage_key`. The bytes themselves are only ever in R2.
 */
export const documentBlobs = sqliteTable(
  "document_blobs",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** R2 object key: `<account id>/<blob id>`. */
    storageKey: text("storage_key").notNull(),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    byteSize: integer("byte_size").notNull(),
    /** Base64 of the MD5 digest of the bytes, as the client declared it and R2 verified it. */
    checksum: text("checksum").notNull(),
    createdAt: text("created_at").notNull(),
    uploadedAt: text("uploaded_at"),
  },
  (t) => [
    index("document_blobs_account_idx").on(t.accountId, t.createdAt, t.id),
    // The cron's sweep of blobs never made a document (src/documents/orphans.ts): oldest first, across accounts.
    index("document_blobs_created_idx").on(t.createdAt, t.id),
    // The same sweep's check of R2 objects against their rows.
    index("document_blobs_storage_key_idx").on(t.storageKey),
  ],
);

/**
 * Documents of an account (docs/api.md §Documents): one stored blob each (`blob_id`, unique), the file facts copied
 * from it, classification fields and the manual overrides of `PATCH /documents/{id}`. Deleting a document deletes the
 * row and its R2 object. One document per checksum and account: the unique index is what makes a second upload of
 * the same bytes a 409 `duplicate_document` even when two arrive at once.
 */
export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    blobId: text("blob_id")
      .notNull()
      .references(() => documentBlobs.id),
    name: text("name").notNull(),
    /** `upload`, `api`, `email` or `split_document`. */
    source: text("source").notNull(),
    /** The e-mail submission the document came in with (`source` `email`), else null. */
    emailSubmissionId: text("email_submission_id"),
    documentType: text("document_type"),
    documentTypeManual: text("document_type_manual"),
    classificationNotes: text("classification_notes"),
    extractedDataManual: text("extracted_data_manual", { mode: "json" }).$type<Record<string, unknown>>(),
    fileName: text("file_name").notNull(),
    fileContentType: text("file_content_type").notNull(),
    fileSizeBytes: integer("file_size_bytes").notNull(),
    checksum: text("checksum").notNull(),
    storageKey: text("storage_key").notNull(),
    /** The newest `document_representations` row (the extraction result), null until one succeeds. */
    lastDocumentRepresentationId: text("last_document_representation_id"),
    /** Reason code of the last failed extraction (src/documents/extraction/types.ts), null otherwise. Not serialised. */
    extractionError: text("extraction_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("documents_account_created_idx").on(t.accountId, t.createdAt, t.id),
    uniqueIndex("documents_account_checksum_idx").on(t.accountId, t.checksum),
    uniqueIndex("documents_blob_idx").on(t.blobId),
    index("documents_email_submission_idx").on(t.emailSubmissionId),
    // `GET /documents?filter[document_types]=…` and `sort=document_type` (src/documents/list.ts): the effective
    // type, the manual override if set, else the extractor's, in the list's own (account, type, created_at, id) order.
    index("documents_account_effective_type_idx").on(
      t.accountId,
      sql`coalesce(${t.documentTypeManual}, ${t.documentType})`,
      t.createdAt,
      t.id,
    ),
    // `sort=added_by` (the source).
    index("documents_account_source_idx").on(t.accountId, t.source, t.createdAt, t.id),
    // The orphan sweep's check of R2 objects against their rows (src/documents/orphans.ts).
    index("documents_storage_key_idx").on(t.storageKey),
  ],
);

/**
 * Extraction results (`document_representation`, docs/api.md §Documents "Extraction"): the extractor's payload and its
 * schema version, one row per successful extraction of a document (a re-extraction adds one; the document points at
 * the newest). Deleted with their document.
 */
export const documentRepresentations = sqliteTable(
  "document_representations",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    documentId: text("document_id").notNull(),
    schemaVersion: text("schema_version").notNull(),
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("document_representations_document_idx").on(t.documentId)],
);

/**
 * Document mailboxes (docs/configuration.md §E-mail submissions): an account's submission address is
 * `documents+<token>@<EMAIL_SUBMISSION_DOMAIN>`; only the senders listed (`allowed_senders`: addresses, or `@domain`
 * for a whole domain, lower case) may submit to it. One mailbox per account.
 */
export const documentMailboxes = sqliteTable(
  "document_mailboxes",
  {
    accountId: text("account_id")
      .primaryKey()
      .references(() => accounts.id),
    /** The `+` part of the address: lower-case letters and digits, unguessable. */
    token: text("token").notNull(),
    allowedSenders: text("allowed_senders", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("document_mailboxes_token_idx").on(t.token)],
);

/**
 * E-mails accepted at a document mailbox (`email_submission`, docs/api.md §E-mail submissions): the message's headers
 * and text body; each accepted attachment became a document pointing here (`documents.email_submission_id`).
 */
export const emailSubmissions = sqliteTable(
  "email_submissions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    subject: text("subject").notNull(),
    body: text("body"),
    from: text("from", { mode: "json" }).$type<string[]>().notNull(),
    to: text("to", { mode: "json" }).$type<string[]>().notNull(),
    cc: text("cc", { mode: "json" }).$type<string[]>().notNull(),
    sentAt: text("sent_at"),
    messageId: text("message_id"),
    inReplyTo: text("in_reply_to"),
    references: text("references", { mode: "json" }).$type<string[]>().notNull(),
    contentType: text("content_type"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("email_submissions_account_created_idx").on(t.accountId, t.createdAt, t.id)],
);

/**
 * Reference tokens a document mentions (docs/documents.md §Links): each BL, booking and container number its
 * extraction found, and the reference / PO numbers of its `extracted_data_manual`, once per (document, kind,
 * normalized value). `normalized_value` is the token upper-cased without spaces, dashes, dots, slashes and
 * underscores (src/documents/references.ts `normalizeReference`). Kept so that linking works both ways in time: a
 * document is linked at extraction to the shipments and containers that exist, and a lookup that creates a shipment
 * later finds the documents naming it through `(account_id, normalized_value)`. Replaced at each extraction and
 * relink; deleted with the document. `tracking_request_id` / `auto_track_skipped_reason` record what the account's
 * `auto_track` setting did with the number (null when it did nothing).
 */
export const documentReferences = sqliteTable(
  "document_references",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    documentId: text("document_id").notNull(),
    /** `bill_of_lading`, `booking`, `container` or `reference` (a PO / customer reference number). */
    kind: text("kind").notNull(),
    /** The token as the document (or the manual data) gives it. */
    value: text("value").notNull(),
    normalizedValue: text("normalized_value").notNull(),
    /** The tracking request `auto_track` created for this number, else null. */
    trackingRequestId: text("tracking_request_id"),
    /** Why `auto_track` did not track this number (e.g. `shipping_line_undetermined`), else null. */
    autoTrackSkippedReason: text("auto_track_skipped_reason"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("document_references_document_kind_value_idx").on(t.documentId, t.kind, t.normalizedValue),
    index("document_references_account_value_idx").on(t.accountId, t.normalizedValue),
  ],
);

/**
 * Links between a document and the account's shipments and containers (the document's `shipments` and `cargos`
 * relationships, docs/documents.md §Links). `target_type` is `shipment` or `container`; `matched_value` the
 * normalized reference token that made the link. One row per (document, target); always within one account. Deleted
 * with the document; a relink deletes the links no token supports any more.
 */
export const documentLinks = sqliteTable(
  "document_links",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    documentId: text("document_id").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    matchedValue: text("matched_value").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("document_links_document_target_idx").on(t.documentId, t.targetType, t.targetId),
    index("document_links_account_target_idx").on(t.accountId, t.targetType, t.targetId),
  ],
);

/**
 * Document settings of an account (`GET`/`PATCH /v2/document_settings`, an extension): `auto_track` makes an
 * extracted document whose BL / booking / container numbers are not tracked yet create their tracking requests
 * (docs/documents.md §Tracking from documents). No row: the defaults (`auto_track` off).
 */
export const documentSettings = sqliteTable("document_settings", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  autoTrack: integer("auto_track", { mode: "boolean" }).notNull().default(false),
  updatedAt: text("updated_at").notNull(),
});
