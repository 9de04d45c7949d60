import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { runRotation } from "../../src/documents/rotation-job";
import { systemClock } from "../../src/lib/clock";
import { decodeTestPng, encodeTestPng, pixelAt } from "../fixtures/images";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { base64Md5, pdfBytes, putBytes, reserve, uploadDocument } from "../helpers/document-uploads";
import { until } from "../helpers/vessels";

// POST /v2/documents/{id}/rotate (docs/api.md §Documents "Rotation", REFERENCE-SERVICE-MORE.md §7.7): 202, then the
// document-extractions queue turns the image and replaces the file in R2 (size and MD5 follow, the old object goes);
// the reference's 422s for a bad angle and a missing file, ours for what is not a PNG or JPEG; another account's 404.

interface Errors {
  errors: { status: string; title: string; detail?: string }[];
}

/** Uploads `bytes` as a document of `contentType` and returns its id. */
async function uploadAs(account: TestAccount, bytes: Uint8Array, contentType: string, filename: string) {
  const reserved = await reserve(account, bytes, { content_type: contentType, filename });
  expect(reserved.res.status).toBe(200);
  expect((await putBytes(reserved.json, bytes)).status).toBe(204);
  const created = await apiJson<{ data: { id: string } }>("/documents", {
    key: account.key,
    body: { data: { type: "document", attributes: { name: filename, attached_document: reserved.json.signed_id } } },
  });
  expect(created.res.status).toBe(201);
  return created.json.data.id;
}

const rotate = (account: TestAccount | null, id: string, body?: unknown, key?: string) =>
  apiJson<Errors & { status?: string }>(`/documents/${id}/rotate`, {
    method: "POST",
    key: key ?? account?.key ?? null,
    body,
  });

async function downloaded(account: TestAccount, id: string): Promise<Uint8Array> {
  const { json } = await apiJson<{ download_url: string }>(`/documents/${id}/download_url`, { key: account.key });
  const res = await exports.default.fetch(new Request(json.download_url));
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

async function documentRow(id: string) {
  return env.DB.prepare(
    "SELECT d.storage_key, d.file_size_bytes, d.checksum, b.storage_key AS blob_key, b.byte_size, b.checksum AS blob_checksum FROM documents d JOIN document_blobs b ON b.id = d.blob_id WHERE d.id = ?1",
  )
    .bind(id)
    .first<Record<string, string | number>>();
}

const RED = [255, 0, 0];
const BLUE = [0, 0, 255];

describe("POST /documents/{id}/rotate", () => {
  it("turns a PNG 90° clockwise in the background: download_url serves the turned image, size and MD5 follow", async () => {
    const account = await createAccount();
    const png = await encodeTestPng({ width: 2, height: 1, channels: 3, data: new Uint8Array([...RED, ...BLUE]) });
    const id = await uploadAs(account, png, "image/png", "scan.png");
    const before = await documentRow(id);

    const accepted = await rotate(account, id, { degrees: 90 });
    expect(accepted.res.status).toBe(202);
    expect(accepted.json).toEqual({ status: "accepted" });

    const after = await until(
      async () => {
        const row = await documentRow(id);
        return row && row.storage_key !== before?.storage_key ? row : undefined;
      },
      20_000,
      "the rotation",
    );
    const bytes = await downloaded(account, id);
    const image = await decodeTestPng(bytes);
    expect([image.width, image.height]).toEqual([1, 2]);
    expect(pixelAt(image, 0, 0)).toEqual(RED);
    expect(pixelAt(image, 0, 1)).toEqual(BLUE);
    // The document and its blob describe the new bytes; the old object is gone, only the new one is in R2.
    expect(after).toMatchObject({
      file_size_bytes: bytes.byteLength,
      byte_size: bytes.byteLength,
      checksum: await base64Md5(bytes),
      blob_checksum: await base64Md5(bytes),
      blob_key: after.storage_key,
    });
    const listed = await env.DOCUMENTS_BUCKET.list({ prefix: `${account.accountId}/` });
    expect(listed.objects.map((o) => o.key)).toEqual([after.storage_key]);
    const got = await apiJson<{ data: { attributes: Record<string, unknown> } }>(`/documents/${id}`, {
      key: account.key,
    });
    expect(got.json.data.attributes.file_size_bytes).toBe(bytes.byteLength);
    // Deleting the rotated document removes the rotated file too.
    expect((await apiJson(`/documents/${id}`, { method: "DELETE", key: account.key })).res.status).toBe(204);
    expect((await env.DOCUMENTS_BUCKET.list({ prefix: `${account.accountId}/` })).objects).toEqual([]);
  });

  it("a missing or wrong angle is the reference's 422 Invalid rotation, and nothing changes", async () => {
    const account = await createAccount();
    const png = await encodeTestPng({ width: 2, height: 1, channels: 3, data: new Uint8Array([...RED, ...BLUE]) });
    const id = await uploadAs(account, png, "image/png", "scan.png");
    const before = await documentRow(id);
    for (const body of [{ degrees: 45 }, { degrees: "90" }, { degrees: 90.5 }, {}, undefined, [90], { degrees: -90 }]) {
      const res = await rotate(account, id, body);
      expect(res.res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.errors).toEqual([
        { status: "422", title: "Invalid rotation", detail: "degrees must be one of: 90, 180, 270" },
      ]);
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(await documentRow(id)).toEqual(before);
  });

  it("only PNG and JPEG images rotate: a PDF, a TIFF, an image too large and a missing file are 422s", async () => {
    const account = await createAccount();
    const pdf = await uploadDocument(account, pdfBytes("rotate me"), "bl.pdf");
    const notImage = await rotate(account, pdf.id, { degrees: 90 });
    expect(notImage.res.status).toBe(422);
    expect(notImage.json.errors[0]).toMatchObject({ title: "Not an image" });
    expect(notImage.json.errors[0]?.detail).toContain("application/pdf");

    const tiff = await uploadAs(account, new Uint8Array([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]), "image/tiff", "a.tif");
    const tiffRes = await rotate(account, tiff, { degrees: 180 });
    expect(tiffRes.res.status).toBe(422);
    expect(tiffRes.json.errors[0]?.detail).toBe("image/tiff images cannot be rotated here; PNG and JPEG images can.");

    const header = await encodeTestPng({ width: 1, height: 1, channels: 3, data: new Uint8Array([1, 2, 3]) });
    new DataView(header.buffer).setUint32(16, 5000);
    new DataView(header.buffer).setUint32(20, 4000);
    const huge = await uploadAs(account, header, "image/png", "huge.png");
    const hugeRes = await rotate(account, huge, { degrees: 270 });
    expect(hugeRes.res.status).toBe(422);
    expect(hugeRes.json.errors[0]).toMatchObject({ title: "Image too large" });
    expect(hugeRes.json.errors[0]?.detail).toContain("5000x4000");

    const png = await encodeTestPng({ width: 1, height: 1, channels: 3, data: new Uint8Array([9, 9, 9]) });
    const gone = await uploadAs(account, png, "image/png", "gone.png");
    const row = await documentRow(gone);
    await env.DOCUMENTS_BUCKET.delete(String(row?.storage_key));
    const goneRes = await rotate(account, gone, { degrees: 90 });
    expect(goneRes.res.status).toBe(422);
    expect(goneRes.json.errors).toEqual([{ status: "422", title: "No document attached" }]);
  });

  it("another account's document and an unknown id are 404s; no key or a bad key 401", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const png = await encodeTestPng({ width: 2, height: 1, channels: 3, data: new Uint8Array([...RED, ...BLUE]) });
    const id = await uploadAs(account, png, "image/png", "scan.png");
    const before = await documentRow(id);
    const theirs = await rotate(other, id, { degrees: 90 });
    expect(theirs.res.status).toBe(404);
    expect(theirs.json.errors[0]).toMatchObject({ detail: "Couldn't find Document" });
    expect((await rotate(account, crypto.randomUUID(), { degrees: 90 })).res.status).toBe(404);
    expect((await rotate(null, id, { degrees: 90 })).res.status).toBe(401);
    expect((await rotate(null, id, { degrees: 90 }, "test_not_a_key")).res.status).toBe(401);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await documentRow(id)).toEqual(before);
  });

  it("a redelivered message does not turn the image twice; a deleted document is left alone", async () => {
    const account = await createAccount();
    const png = await encodeTestPng({ width: 2, height: 1, channels: 3, data: new Uint8Array([...RED, ...BLUE]) });
    // Straight to the job (no route): the same message twice.
    const id = await uploadAs(account, png, "image/png", "twice.png");
    const deps = { db: createDatabase(env.DB), bucket: env.DOCUMENTS_BUCKET, clock: systemClock };
    const message = { kind: "rotate" as const, documentId: id, accountId: account.accountId, degrees: 90 as const };
    expect(await runRotation(deps, { ...message, runId: "run-1" })).toBe("rotated");
    expect(await runRotation(deps, { ...message, runId: "run-1" })).toBe("rotated");
    const image = await decodeTestPng(await downloaded(account, id));
    expect([image.width, image.height]).toEqual([1, 2]);
    expect(pixelAt(image, 0, 0)).toEqual(RED);
    expect(await runRotation(deps, { ...message, documentId: crypto.randomUUID(), runId: "run-2" })).toBe("gone");
  });
});
