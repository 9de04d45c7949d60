import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Database } from "../db/client";
import { accountShard, shardDb } from "../db/shards";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { validationError } from "../lib/validation";
import { requireApiKey } from "../middleware/auth";
import { jsonBody } from "../middleware/body";
import { rateLimit } from "../middleware/rate-limit";
import { findBlob, reserveBlob, storeBlobBytes } from "./blobs";
import { UPLOAD_URL_TTL_SECONDS } from "./limits";
import { getDocument } from "./service";
import { signToken, verifyToken } from "./signing";

/**
 * The routes of the document upload flow outside `/v2` (docs/api.md §Documents "Upload flow"):
 * - `POST /rails/active_storage/direct_uploads` (API key): reserves a blob and answers the reference's blob JSON with
 *   a `signed_id` and a `direct_upload` URL;
 * - `PUT /files/uploads/{token}` (no key: the signed token is the credential, valid {@link UPLOAD_URL_TTL_SECONDS}):
 *   streams the bytes into R2, checked against the reserved size and MD5;
 * - `GET /files/documents/{token}` (no key: the token of `GET /v2/documents/{id}/download_url`): the file from R2.
 * Without the `DOCUMENT_SIGNING_KEY` secret every one answers 503 and stores nothing.
 */

const ReserveBody = z
  .strictObject({
    blob: z.strictObject({
      filename: z.string().max(1000),
      content_type: z.string().max(255),
      byte_size: z.number(),
      checksum: z.string().max(64),
      metadata: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi("DirectUploadRequest");

/**
 * The database of the account a signed token names (its shard, src/db/shards.ts): these URLs carry no API key, so the
 * request's `db` is still the primary. Null when the primary has no such account (a token outliving its account):
 * the caller answers as for any invalid token.
 */
async function tokenAccountDb(c: Context<AppEnv>, accountId: string): Promise<Database | null> {
  const shard = await accountShard(c.env, accountId);
  return shard === null ? null : shardDb(c.env, shard);
}

function signingKeyOf(c: Context<AppEnv>): string {
  const key = c.env.DOCUMENT_SIGNING_KEY;
  if (!key || key.length < 32) {
    throw new ApiError(503, "Document uploads are not configured: set the DOCUMENT_SIGNING_KEY secret.");
  }
  return key;
}

const reserveRoute = createRoute({
  method: "post",
  path: "/rails/active_storage/direct_uploads",
  tags: ["Documents"],
  summary: "Reserve a blob for a document upload",
  request: { body: { content: { "application/json": { schema: ReserveBody } }, required: true } },
  responses: {
    200: { description: "The reserved blob, its signed_id and the signed upload URL." },
    413: { description: "byte_size over the limit." },
    422: { description: "A field is invalid (type not accepted, checksum not base64 MD5 …)." },
  },
});

/** Direct-upload routes; mounted at the root by src/app.ts. */
export const uploadRoutes = new OpenAPIHono<AppEnv>({
  defaultHook: (result) => {
    if (!result.success) throw validationError(result.error, result.target);
  },
});
uploadRoutes.use("/rails/active_storage/*", requireApiKey, rateLimit, jsonBody);
uploadRoutes
  .openapi(reserveRoute, async (c) => {
    const signingKey = signingKeyOf(c);
    const { accountId } = c.get("principal");
    const input = c.req.valid("json").blob;
    const clock = c.get("clock");
    const blob = await reserveBlob({ db: c.get("db"), clock }, accountId, {
      filename: input.filename,
      contentType: input.content_type,
      byteSize: input.byte_size,
      checksum: input.checksum,
    });
    const signedId = await signToken(signingKey, "blob", { id: blob.id, accountId });
    const expiresAt = Math.floor(clock.now() / 1000) + UPLOAD_URL_TTL_SECONDS;
    const uploadToken = await signToken(signingKey, "upload", { id: blob.id, accountId, expiresAt });
    const origin = new URL(c.req.url).origin;
    const asciiName = blob.filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
    return c.json(
      {
        id: blob.id,
        key: blob.storageKey,
        filename: blob.filename,
        content_type: blob.contentType,
        metadata: {},
        service_name: "r2",
        byte_size: blob.byteSize,
        checksum: blob.checksum,
        created_at: blob.createdAt,
        signed_id: signedId,
        direct_upload: {
          url: `${origin}/files/uploads/${uploadToken}`,
          headers: {
            "Content-Type": blob.contentType,
            "Content-MD5": blob.checksum,
            "Content-Disposition": `inline; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(blob.filename)}`,
          },
        },
      },
      200,
    );
  })
  .put("/files/uploads/:token", async (c) => {
    const signingKey = signingKeyOf(c);
    const clock = c.get("clock");
    const token = await verifyToken(signingKey, "upload", c.req.param("token"), clock.now());
    const db = token ? await tokenAccountDb(c, token.accountId) : null;
    const blob = token && db ? await findBlob(db, token.accountId, token.id) : undefined;
    if (!token || !db || !blob) {
      await c.req.raw.body?.cancel().catch(() => undefined);
      throw new ApiError(403, "This upload URL is invalid or has expired; reserve the blob again.");
    }
    const md5 = c.req.header("content-md5");
    if (md5 !== undefined && md5 !== blob.checksum) {
      await c.req.raw.body?.cancel().catch(() => undefined);
      throw new ApiError(422, "Content-MD5 is not the checksum the blob was reserved with.");
    }
    await storeBlobBytes({ db, clock, bucket: c.env.DOCUMENTS_BUCKET }, blob, c.req.raw);
    return c.body(null, 204);
  })
  .get("/files/documents/:token", async (c) => {
    const signingKey = signingKeyOf(c);
    const token = await verifyToken(signingKey, "download", c.req.param("token"), c.get("clock").now());
    const db = token ? await tokenAccountDb(c, token.accountId) : null;
    if (!token || !db) throw new ApiError(403, "This download URL is invalid or has expired; ask for a new one.");
    const document = await getDocument(db, token.accountId, token.id);
    const object = await c.env.DOCUMENTS_BUCKET.get(document.storageKey);
    if (!object) throw ApiError.notFound("Couldn't find Document");
    const asciiName = document.fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
    return new Response(object.body, {
      headers: {
        "Content-Type": document.fileContentType,
        "Content-Length": String(object.size),
        "Content-Disposition": `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(document.fileName)}`,
        "Cache-Control": "private, no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  });
