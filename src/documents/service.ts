import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { documentRepresentations, documents, emailSubmissions } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { bumpCount } from "../lib/counts";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { ownedBy } from "../lib/tenant";
import { type BlobRow, discardBlob, findBlob } from "./blobs";
import type { EmailSubmissionRow } from "./email-submission-serializer";
import { DOCUMENT_TYPES } from "./extraction";
import type { DocumentExtractionMessage } from "./extraction-job";
import { deleteDocumentLinksStatements } from "./links";
import { type DocumentRow, type DocumentView, documentLinkageQuery, withDocumentLinkage } from "./serializer";
import { signToken, verifyToken } from "./signing";

/** What the document services need: D1, the clock, the bucket and the signing key. */
export interface DocumentDeps {
  db: Database;
  clock: Clock;
  bucket: R2Bucket;
  /** The Worker secret `DOCUMENT_SIGNING_KEY`. */
  signingKey: string | undefined;
}

const NOT_FOUND = "Couldn't find Document";

/** Whether `code` is a document type of `GET /documents/types` (the extractor's list, src/documents/extraction/). */
function isDocumentType(code: string): boolean {
  return DOCUMENT_TYPES.some((t) => t.code === code);
}

/**
 * Asks for the document to be extracted (or, with `kind` `relink`, only linked again) in the background (the
 * `document-extractions` queue, src/documents/extraction-job.ts). Never throws: a failed send is logged, and the document stays without a
 * representation until `POST /documents/{id}/reextract`.
 * @returns whether the message was queued.
 */
export async function requestExtraction(
  queue: Queue<DocumentExtractionMessage> | undefined,
  document: Pick<DocumentRow, "id" | "accountId">,
  kind: "extract" | "relink" = "extract",
): Promise<boolean> {
  if (!queue) return false;
  try {
    await queue.send({ documentId: document.id, accountId: document.accountId, runId: newId(), kind });
    return true;
  } catch (err) {
    console.error("document extraction: enqueue failed", document.id, String(err));
    return false;
  }
}

/**
 * One document of the account (`GET /documents/{id}`).
 * @throws ApiError 404 "Couldn't find Document" when absent or another account's.
 */
export async function getDocument(db: Database, accountId: string, id: string): Promise<DocumentRow> {
  const [row] = await db
    .select()
    .from(documents)
    .where(and(ownedBy(documents.accountId, accountId), eq(documents.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound(NOT_FOUND);
  return row;
}

/**
 * One document of the account with its links (`GET /documents/{id}`), in one D1 round trip.
 * @throws ApiError 404 "Couldn't find Document" when absent or another account's.
 */
export async function getDocumentView(db: Database, accountId: string, id: string): Promise<DocumentView> {
  const [[row], links] = await db.batch([
    db
      .select()
      .from(documents)
      .where(and(ownedBy(documents.accountId, accountId), eq(documents.id, id)))
      .limit(1),
    documentLinkageQuery(db, accountId, [id]),
  ]);
  if (!row) throw ApiError.notFound(NOT_FOUND);
  return withDocumentLinkage([row], links)[0] as DocumentView;
}

/**
 * One e-mail submission of the account (`GET /email_submissions/{id}`, docs/api.md §E-mail submissions).
 * @throws ApiError 404 "Couldn't find EmailSubmission" when absent or another account's.
 */
export async function getEmailSubmission(db: Database, accountId: string, id: string): Promise<EmailSubmissionRow> {
  const [row] = await db
    .select()
    .from(emailSubmissions)
    .where(and(ownedBy(emailSubmissions.accountId, accountId), eq(emailSubmissions.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find EmailSubmission");
  return row;
}

/** The 409 `duplicate_document` of the reference (docs/api.md §Documents), pointing at the document already there. */
function duplicate(existing: Pick<DocumentRow, "id" | "name">): ApiError {
  const err = new ApiError(409, [
    {
      code: "duplicate_document",
      detail: `This file is already uploaded as document ${existing.id} ("${existing.name}").`,
    },
  ]);
  const [first] = err.errors;
  if (first) {
    first.title = "Duplicate document";
    (first as unknown as Record<string, unknown>).meta = {
      existing_document_id: existing.id,
      existing_document_name: existing.name,
    };
  }
  return err;
}

async function documentWithChecksum(db: Database, accountId: string, checksum: string) {
  const [row] = await db
    .select({ id: documents.id, name: documents.name, blobId: documents.blobId })
    .from(documents)
    .where(and(eq(documents.accountId, accountId), eq(documents.checksum, checksum)))
    .limit(1);
  return row;
}

/**
 * Creates a document from an uploaded blob (`POST /documents`, docs/api.md §Documents, step 3). `signedId` must be a
 * `signed_id` this service minted for the same account, for a blob whose bytes are stored. The same bytes (MD5) as
 * another document of the account → 409 `duplicate_document`, and the new blob's row and file are deleted, so nothing
 * new is kept.
 * @throws ApiError 422 at `/data/attributes/attached_document` (not ours, another account's, or not uploaded yet);
 *   422 at `/data/attributes/name` for a blank name; 409 duplicate.
 */
export async function createDocument(
  deps: DocumentDeps,
  accountId: string,
  input: { name: string; signedId: string; source?: "api" | "upload" | "email" },
): Promise<DocumentRow> {
  const name = input.name.trim();
  if (name === "") throw ApiError.invalidField("/data/attributes/name", "Name can't be blank", "blank");
  const invalid = () =>
    ApiError.invalidField(
      "/data/attributes/attached_document",
      "attached_document is not a signed_id of a blob uploaded by this account.",
      "invalid",
    );
  const token = await verifyToken(deps.signingKey, "blob", input.signedId, deps.clock.now());
  if (!token || token.accountId !== accountId) throw invalid();
  const blob = await findBlob(deps.db, accountId, token.id);
  if (!blob) throw invalid();
  if (blob.uploadedAt === null) {
    throw ApiError.invalidField(
      "/data/attributes/attached_document",
      "The blob's bytes have not been uploaded yet: PUT them to direct_upload.url first.",
      "not_uploaded",
    );
  }
  return insertDocumentForBlob(deps, accountId, blob, { name, source: input.source ?? "api", emailSubmissionId: null });
}

/**
 * Makes a document of a stored blob of the account (the last step of `POST /documents` and of each e-mailed
 * attachment): the same bytes (MD5) as another document of the account → 409 `duplicate_document`, and the new blob's
 * row and file are deleted, so nothing new is kept. The account's document count is bumped in the same batch.
 * @throws ApiError 409 duplicate.
 */
export async function insertDocumentForBlob(
  deps: Pick<DocumentDeps, "db" | "clock" | "bucket">,
  accountId: string,
  blob: BlobRow,
  input: { name: string; source: "api" | "upload" | "email"; emailSubmissionId: string | null },
): Promise<DocumentRow> {
  const existing = await documentWithChecksum(deps.db, accountId, blob.checksum);
  if (existing) {
    // A signed_id used a second time names the existing document's own blob: that one stays.
    if (existing.blobId !== blob.id) await discardBlob(deps, blob);
    throw duplicate(existing);
  }
  const now = toIsoSeconds(deps.clock.now());
  const row: DocumentRow = {
    id: newId(),
    accountId,
    blobId: blob.id,
    name: input.name,
    source: input.source,
    emailSubmissionId: input.emailSubmissionId,
    documentType: null,
    documentTypeManual: null,
    classificationNotes: null,
    extractedDataManual: null,
    fileName: blob.filename,
    fileContentType: blob.contentType,
    fileSizeBytes: blob.byteSize,
    checksum: blob.checksum,
    storageKey: blob.storageKey,
    lastDocumentRepresentationId: null,
    extractionError: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await deps.db.batch([deps.db.insert(documents).values(row), bumpCount(deps.db, accountId, "document", 1)]);
  } catch (err) {
    // The unique indexes: the same bytes (or the same blob) were made a document concurrently.
    const raced = await documentWithChecksum(deps.db, accountId, blob.checksum);
    if (!raced) throw err;
    if (raced.blobId !== blob.id) await discardBlob(deps, blob);
    throw duplicate(raced);
  }
  return row;
}

/**
 * `PATCH /documents/{id}` (docs/api.md §Documents): sets `document_type_manual` (a code of `GET /documents/types`, or
 * null) and `extracted_data_manual` (an object, or null to clear); absent attributes are left as they are.
 * @throws ApiError 404 unknown or another account's; 422 at `/data/attributes/document_type_manual` for an unknown code.
 */
export async function updateDocument(
  deps: { db: Database; clock: Clock },
  accountId: string,
  id: string,
  input: { documentTypeManual?: string | null; extractedDataManual?: Record<string, unknown> | null },
): Promise<DocumentRow> {
  if (input.documentTypeManual != null && !isDocumentType(input.documentTypeManual)) {
    throw ApiError.invalidField(
      "/data/attributes/document_type_manual",
      `${input.documentTypeManual} is not a document type (GET /documents/types).`,
      "inclusion",
    );
  }
  const set: Partial<DocumentRow> = { updatedAt: toIsoSeconds(deps.clock.now()) };
  if (input.documentTypeManual !== undefined) set.documentTypeManual = input.documentTypeManual;
  if (input.extractedDataManual !== undefined) set.extractedDataManual = input.extractedDataManual;
  const [row] = await deps.db
    .update(documents)
    .set(set)
    .where(and(ownedBy(documents.accountId, accountId), eq(documents.id, id)))
    .returning();
  if (!row) throw ApiError.notFound(NOT_FOUND);
  return row;
}

/**
 * `DELETE /documents/{id}` (docs/api.md §Documents): removes the document, its representations, its reference tokens
 * and links, its blob row and its file from R2 (a
 * deleted document answers 404 afterwards and its download URLs stop working).
 * @throws ApiError 404 unknown or another account's.
 */
export async function deleteDocument(deps: DocumentDeps, accountId: string, id: string): Promise<void> {
  const [row] = await deps.db
    .delete(documents)
    .where(and(ownedBy(documents.accountId, accountId), eq(documents.id, id)))
    .returning();
  if (!row) throw ApiError.notFound(NOT_FOUND);
  await deps.db.batch([
    bumpCount(deps.db, accountId, "document", -1),
    deps.db.delete(documentRepresentations).where(eq(documentRepresentations.documentId, row.id)),
    ...deleteDocumentLinksStatements(deps.db, accountId, row.id),
  ]);
  const blob = await findBlob(deps.db, accountId, row.blobId);
  if (blob) await discardBlob(deps, blob);
  else await deps.bucket.delete(row.storageKey);
}

/**
 * A download URL for the account's document (`GET /documents/{id}/download_url`): `<origin>/files/documents/<token>`,
 * signed for this document and account, valid `ttlSeconds`.
 * @throws ApiError 404 unknown or another account's.
 */
export async function documentDownloadUrl(
  deps: DocumentDeps,
  accountId: string,
  id: string,
  origin: string,
  ttlSeconds: number,
): Promise<string> {
  const row = await getDocument(deps.db, accountId, id);
  const expiresAt = Math.floor(deps.clock.now() / 1000) + ttlSeconds;
  const token = await signToken(deps.signingKey, "download", { id: row.id, accountId, expiresAt });
  return `${origin}/files/documents/${token}`;
}
