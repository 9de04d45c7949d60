import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { documentBlobs, documents } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import {
  imageSize,
  MAX_ROTATION_PIXELS,
  ROTATABLE_CONTENT_TYPES,
  ROTATION_DEGREES,
  type RotationDegrees,
  RotationError,
  rotateImage,
} from "./rotation";
import type { DocumentRow } from "./serializer";

/**
 * The background half of `POST /documents/{id}/rotate` (docs/api.md §Documents "Rotation"): a message on the
 * `document-extractions` queue (the documents' job queue) turns the stored image and replaces it in R2. The rotated
 * bytes go to a new object, `<account id>/<blob id>.r<run id>`; one D1 batch then points the document and its blob at
 * it with the new size and MD5, and only then is the old object deleted, so `download_url` serves either the old file
 * or the new one, never none. Idempotent per `runId`: a redelivered message whose object the document already points
 * at does nothing.
 */

/** Message on `document-extractions`: turn this document's image clockwise by `degrees`. */
export interface DocumentRotationMessage {
  kind: "rotate";
  documentId: string;
  accountId: string;
  degrees: RotationDegrees;
  /** One id per requested rotation: names the rotated object. */
  runId: string;
}

/** What a rotation run needs. */
export interface RotationDeps {
  db: Database;
  bucket: R2Bucket;
  clock: Clock;
}

/**
 * Outcome of one run: `rotated`; `gone` (the document or its file was deleted, or it changed meanwhile); `failed`
 * (the image does not decode or is too large, or the account already has a document with the rotated bytes: the
 * document keeps its file).
 */
export type RotationRunResult = "rotated" | "gone" | "failed";

/** A 422 with the reference's own `title` (REFERENCE-SERVICE-MORE.md §7.1), and a `detail` when given. */
function unprocessable(title: string, detail?: string): ApiError {
  const err = new ApiError(422, [detail === undefined ? {} : { detail }]);
  const [first] = err.errors;
  if (first) first.title = title;
  return err;
}

/** How much of the file the request reads to learn an image's size (a JPEG's SOF follows its APPn segments). */
const HEAD_BYTES = 256 * 1024;

/**
 * Checks and queues a rotation (`POST /documents/{id}/rotate`; the document is already the account's): the angle,
 * that the document is a PNG or JPEG whose file is stored, and that the image is within {@link MAX_ROTATION_PIXELS}.
 * Nothing changes before the job runs.
 * @throws ApiError 422 `Invalid rotation` (`degrees must be one of: 90, 180, 270`) for a missing or other angle; 422 for
 *   a document that is not an image, a TIFF, or an image too large; 422 `No document attached` when its file is not in
 *   R2; 503 when the queue refuses the message.
 */
export async function requestRotation(
  deps: { bucket: R2Bucket; queue: Queue<DocumentRotationMessage> | undefined },
  document: DocumentRow,
  degrees: unknown,
): Promise<void> {
  if (!(ROTATION_DEGREES as readonly unknown[]).includes(degrees)) {
    throw unprocessable("Invalid rotation", `degrees must be one of: ${ROTATION_DEGREES.join(", ")}`);
  }
  const type = document.fileContentType;
  if (!type.startsWith("image/")) {
    throw unprocessable("Not an image", `Only image documents can be rotated; this document is ${type}.`);
  }
  if (!(ROTATABLE_CONTENT_TYPES as readonly string[]).includes(type)) {
    throw unprocessable("Not rotatable", `${type} images cannot be rotated here; PNG and JPEG images can.`);
  }
  const head = await deps.bucket.get(document.storageKey, { range: { offset: 0, length: HEAD_BYTES } });
  if (!head) throw unprocessable("No document attached");
  const size = imageSize(new Uint8Array(await head.arrayBuffer()), type);
  if (!size) throw unprocessable("Not an image", `The file is not a readable ${type} image.`);
  if (size.width * size.height > MAX_ROTATION_PIXELS) {
    throw unprocessable(
      "Image too large",
      `Images of at most ${MAX_ROTATION_PIXELS} pixels can be rotated; this one is ${size.width}x${size.height}.`,
    );
  }
  const message: DocumentRotationMessage = {
    kind: "rotate",
    documentId: document.id,
    accountId: document.accountId,
    degrees: degrees as RotationDegrees,
    runId: newId(),
  };
  try {
    if (!deps.queue) throw new Error("no DOCUMENT_EXTRACTIONS_QUEUE binding");
    await deps.queue.send(message);
  } catch (err) {
    console.error("document rotation: enqueue failed", document.id, String(err));
    throw new ApiError(503, "The rotation could not be queued; try again.");
  }
}

/** Whether a queue message is a rotation (the others on the queue are extractions). */
export function isRotationMessage(body: unknown): body is DocumentRotationMessage {
  return typeof body === "object" && body !== null && (body as { kind?: unknown }).kind === "rotate";
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * Rotates one document's image (see the module comment).
 * @throws Error when D1 or R2 fail (the consumer retries the message).
 */
export async function runRotation(deps: RotationDeps, message: DocumentRotationMessage): Promise<RotationRunResult> {
  const { db, bucket } = deps;
  const [document] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.accountId, message.accountId), eq(documents.id, message.documentId)))
    .limit(1);
  if (!document) return "gone";
  const key = `${document.accountId}/${document.blobId}.r${message.runId}`;
  if (document.storageKey === key) return "rotated";
  const object = await bucket.get(document.storageKey);
  if (!object) return "gone";
  let rotated: Uint8Array;
  try {
    rotated = await rotateImage(new Uint8Array(await object.arrayBuffer()), document.fileContentType, message.degrees);
  } catch (err) {
    if (!(err instanceof RotationError)) throw err;
    console.error("document rotation failed", document.id, err.message);
    return "failed";
  }
  const md5 = new Uint8Array(await crypto.subtle.digest("MD5", rotated));
  await bucket.put(key, rotated, { md5, httpMetadata: { contentType: document.fileContentType } });
  const checksum = base64(md5);
  const now = toIsoSeconds(deps.clock.now());
  let moved: { id: string }[];
  try {
    const [updated] = await db.batch([
      db
        .update(documents)
        .set({ storageKey: key, fileSizeBytes: rotated.byteLength, checksum, updatedAt: now })
        .where(and(eq(documents.id, document.id), eq(documents.storageKey, document.storageKey)))
        .returning({ id: documents.id }),
      db
        .update(documentBlobs)
        .set({ storageKey: key, byteSize: rotated.byteLength, checksum })
        .where(and(eq(documentBlobs.id, document.blobId), eq(documentBlobs.storageKey, document.storageKey))),
    ]);
    moved = updated;
  } catch (err) {
    // The unique (account, checksum) index: another document of the account already has the rotated bytes.
    await bucket.delete(key);
    const [twin] = await db
      .select({ id: documents.id })
      .from(documents)
      .where(and(eq(documents.accountId, document.accountId), eq(documents.checksum, checksum)))
      .limit(1);
    if (!twin) throw err;
    console.error("document rotation: the account already has these bytes as document", twin.id, document.id);
    return "failed";
  }
  if (moved.length === 0) {
    // Deleted or rotated by another message meanwhile: that one's file stands.
    await bucket.delete(key);
    return "gone";
  }
  await bucket.delete(document.storageKey);
  return "rotated";
}
