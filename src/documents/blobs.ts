import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/client";
import { documentBlobs } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { BODY_TOO_LARGE, declaredLength, readBodyUpTo } from "../lib/request-body";
import { ownedBy } from "../lib/tenant";
import { isAcceptedContentType, MAX_DOCUMENT_BYTES, mediaTypeOf } from "./limits";

/** A `document_blobs` row as drizzle returns it. */
export type BlobRow = typeof documentBlobs.$inferSelect;

/** What a client declares when reserving a blob (`POST /rails/active_storage/direct_uploads`, docs/api.md §Documents). */
export interface BlobDeclaration {
  filename: string;
  contentType: string;
  /** Exact size of the file, bytes. */
  byteSize: number;
  /** Base64 of the binary MD5 digest of the file (24 characters). */
  checksum: string;
}

const BASE64_MD5 = /^[A-Za-z0-9+/]{22}==$/;

/**
 * Checks a declaration against the limits (docs/api.md §Documents "Limits"), every failing field at once.
 * @throws ApiError 422 pointing at `/blob/<field>` for a blank name, a type not accepted, a size outside
 *   1 … {@link MAX_DOCUMENT_BYTES} or a checksum that is not base64 of 16 bytes; 413 for a declared size over the limit.
 */
export function checkDeclaration(input: BlobDeclaration): void {
  if (Number.isInteger(input.byteSize) && input.byteSize > MAX_DOCUMENT_BYTES) {
    throw new ApiError(413, [
      {
        detail: `byte_size ${input.byteSize} is over the limit of ${MAX_DOCUMENT_BYTES} bytes.`,
        source: { pointer: "/blob/byte_size" },
      },
    ]);
  }
  const errors: { detail: string; source: { pointer: string } }[] = [];
  if (input.filename.trim() === "" || input.filename.length > 255) {
    errors.push({ detail: "filename must be 1 to 255 characters.", source: { pointer: "/blob/filename" } });
  }
  if (!isAcceptedContentType(input.contentType)) {
    errors.push({
      detail: "content_type must be a PDF, PNG, JPEG, TIFF or Excel spreadsheet (docs/api.md §Documents).",
      source: { pointer: "/blob/content_type" },
    });
  }
  if (!Number.isInteger(input.byteSize) || input.byteSize < 1) {
    errors.push({ detail: "byte_size must be a positive integer.", source: { pointer: "/blob/byte_size" } });
  }
  if (!BASE64_MD5.test(input.checksum)) {
    errors.push({
      detail: "checksum must be the base64 of the file's MD5 digest.",
      source: { pointer: "/blob/checksum" },
    });
  }
  if (errors.length > 0) throw new ApiError(422, errors);
}

/**
 * Reserves a blob for the account: a row only, no bytes yet (they arrive through the signed upload URL).
 * @throws ApiError as {@link checkDeclaration}.
 */
export async function reserveBlob(
  deps: { db: Database; clock: Clock },
  accountId: string,
  input: BlobDeclaration,
): Promise<BlobRow> {
  checkDeclaration(input);
  const id = newId();
  const row: BlobRow = {
    id,
    accountId,
    storageKey: `${accountId}/${id}`,
    filename: input.filename.trim(),
    contentType: mediaTypeOf(input.contentType),
    byteSize: input.byteSize,
    checksum: input.checksum,
    createdAt: toIsoSeconds(deps.clock.now()),
    uploadedAt: null,
  };
  await deps.db.insert(documentBlobs).values(row);
  return row;
}

/** The account's blob `id`, or undefined. */
export async function findBlob(db: Database, accountId: string, id: string): Promise<BlobRow | undefined> {
  const [row] = await db
    .select()
    .from(documentBlobs)
    .where(and(ownedBy(documentBlobs.accountId, accountId), eq(documentBlobs.id, id)))
    .limit(1);
  return row;
}

/** Hex of the bytes a base64 string holds. */
function base64ToHex(base64: string): string {
  let out = "";
  for (const ch of atob(base64)) out += ch.charCodeAt(0).toString(16).padStart(2, "0");
  return out;
}

/**
 * Stores the body of a signed upload in R2 (docs/api.md §Documents, step 2): the bytes must be exactly the reserved
 * `byte_size` and their MD5 the reserved checksum (R2 verifies it on `put` and we compare its digest again). A declared
 * `Content-Length` other than `byte_size` is refused before R2 is asked for anything; a body of exactly that declared
 * length is streamed through a `FixedLengthStream` of that length (which fails should the declaration lie); a body
 * without `Content-Length` is read into memory up to `byte_size` and checked first. On any failure the object is
 * deleted and the blob stays unuploaded. A blob is uploaded once.
 * @throws ApiError 409 already uploaded; 413 a declared length over the reserved size; 422 the bytes do not match the
 *   size or checksum; 415 a `Content-Type` other than the reserved one.
 */
export async function storeBlobBytes(
  deps: { db: Database; clock: Clock; bucket: R2Bucket },
  blob: BlobRow,
  request: Request,
): Promise<void> {
  if (blob.uploadedAt !== null) throw new ApiError(409, "This blob has already been uploaded; reserve a new one.");
  const contentType = mediaTypeOf(request.headers.get("content-type"));
  if (contentType !== blob.contentType) {
    await request.body?.cancel().catch(() => undefined);
    throw new ApiError(415, `Content-Type must be ${blob.contentType}, as reserved.`);
  }
  const mismatch = () =>
    new ApiError(422, [
      { detail: "The uploaded bytes do not match the reserved byte_size and checksum; nothing was stored." },
    ]);
  const declared = declaredLength(request.headers) ?? null;
  if (declared !== null && declared > blob.byteSize) {
    await request.body?.cancel().catch(() => undefined);
    throw new ApiError(413, `The body is larger than the reserved byte_size of ${blob.byteSize} bytes.`);
  }
  // A declared length short of the reservation cannot match: refused before R2 is asked to store anything (a put fed a
  // stream that ends early fails mid-transfer, which the local R2 reports as uncaught "Network connection lost").
  if (declared !== null && declared < blob.byteSize) {
    await request.body?.cancel().catch(() => undefined);
    throw mismatch();
  }

  const body = request.body;
  if (!body) throw mismatch();
  const md5 = base64ToHex(blob.checksum);
  let source: ReadableStream | Uint8Array;
  let piping: Promise<unknown> = Promise.resolve();
  if (declared === null) {
    // No Content-Length (chunked): read into memory, at most byte_size (≤ 25 MiB), and check the length before R2 sees
    // a byte, so no put is ever cut off mid-transfer.
    const bytes = await readBodyUpTo(request, blob.byteSize).catch(() => null);
    if (bytes === null) throw mismatch();
    if (bytes === BODY_TOO_LARGE) {
      throw new ApiError(413, `The body is larger than the reserved byte_size of ${blob.byteSize} bytes.`);
    }
    if (bytes.byteLength !== blob.byteSize) throw mismatch();
    source = bytes;
  } else {
    // Declared exactly byte_size: streamed, through a stream of that length in case the declaration lies.
    const { readable, writable } = new FixedLengthStream(blob.byteSize);
    piping = body.pipeTo(writable).catch(() => undefined);
    source = readable;
  }
  let stored: R2Object | null = null;
  try {
    stored = await deps.bucket.put(blob.storageKey, source, {
      md5,
      httpMetadata: { contentType: blob.contentType },
    });
  } catch {
    stored = null;
  }
  await piping;
  const digest = stored?.checksums.md5 ? [...new Uint8Array(stored.checksums.md5)] : [];
  const storedHex = digest.map((b) => b.toString(16).padStart(2, "0")).join("");
  if (!stored || stored.size !== blob.byteSize || storedHex !== md5) {
    await deps.bucket.delete(blob.storageKey);
    throw mismatch();
  }
  const [marked] = await deps.db
    .update(documentBlobs)
    .set({ uploadedAt: toIsoSeconds(deps.clock.now()) })
    .where(and(eq(documentBlobs.id, blob.id), isNull(documentBlobs.uploadedAt)))
    .returning({ id: documentBlobs.id });
  if (!marked) throw new ApiError(409, "This blob has already been uploaded; reserve a new one.");
}

/** Deletes a blob's row and its R2 object (a duplicate upload, a deleted document). */
export async function discardBlob(deps: { db: Database; bucket: R2Bucket }, blob: BlobRow): Promise<void> {
  await deps.bucket.delete(blob.storageKey);
  await deps.db.delete(documentBlobs).where(eq(documentBlobs.id, blob.id));
}

/**
 * Stores bytes already in hand (an e-mailed attachment) as an uploaded blob of the account: the same checks as a
 * reservation ({@link checkDeclaration}), then the bytes into R2 with their MD5, then the row, already uploaded.
 * @throws ApiError as {@link checkDeclaration} (nothing stored then).
 */
export async function storeBlobFromBytes(
  deps: { db: Database; clock: Clock; bucket: R2Bucket },
  accountId: string,
  file: { filename: string; contentType: string; bytes: Uint8Array },
): Promise<BlobRow> {
  const digest = new Uint8Array(await crypto.subtle.digest("MD5", file.bytes));
  const checksum = btoa(String.fromCharCode(...digest));
  checkDeclaration({
    filename: file.filename,
    contentType: file.contentType,
    byteSize: file.bytes.byteLength,
    checksum,
  });
  const id = newId();
  const now = toIsoSeconds(deps.clock.now());
  const row: BlobRow = {
    id,
    accountId,
    storageKey: `${accountId}/${id}`,
    filename: file.filename.trim(),
    contentType: mediaTypeOf(file.contentType),
    byteSize: file.bytes.byteLength,
    checksum,
    createdAt: now,
    uploadedAt: now,
  };
  await deps.bucket.put(row.storageKey, file.bytes, { md5: digest, httpMetadata: { contentType: row.contentType } });
  await deps.db.insert(documentBlobs).values(row);
  return row;
}
