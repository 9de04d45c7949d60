import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount } from "../helpers/api";
import { base64Md5, pdfBytes, putBytes, reserve, uploadDocument } from "../helpers/document-uploads";

// The document upload flow (docs/api.md §Documents "Upload flow"): reserve a blob (base64 MD5 checksum), PUT the bytes
// to the signed direct_upload.url (streamed into R2, checked), POST /v2/documents with the signed_id. Files live in R2
// only; bad input is a clear 4xx that stores nothing.

async function r2Keys(prefix: string): Promise<string[]> {
  const listed = await env.DOCUMENTS_BUCKET.list({ prefix });
  return listed.objects.map((o) => o.key);
}

async function countRows(table: "documents" | "document_blobs", accountId: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?1`)
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("upload flow", () => {
  it("reserves a blob, stores the exact bytes in R2 and creates the document", async () => {
    const account = await createAccount();
    const bytes = pdfBytes("MAEU123456789");
    const reserved = await reserve(account, bytes);
    expect(reserved.res.status).toBe(200);
    expect(reserved.json).toMatchObject({
      filename: "bill of lading.pdf",
      content_type: "application/pdf",
      byte_size: bytes.byteLength,
      checksum: await base64Md5(bytes),
      metadata: {},
      direct_upload: { headers: { "Content-Type": "application/pdf", "Content-MD5": await base64Md5(bytes) } },
    });
    expect(reserved.json.direct_upload.url).toMatch(/^https:\/\/api\.test\/files\/uploads\/[^/]+--[0-9a-f]{64}$/);
    expect(reserved.json.signed_id).toMatch(/^[A-Za-z0-9_-]+--[0-9a-f]{64}$/);

    expect((await putBytes(reserved.json, bytes)).status).toBe(204);
    const created = await apiJson<{ data: { id: string; type: string; attributes: Record<string, unknown> } }>(
      "/documents",
      {
        key: account.key,
        body: {
          data: { type: "document", attributes: { name: "MAEU BL", attached_document: reserved.json.signed_id } },
        },
      },
    );
    expect(created.res.status).toBe(201);
    expect(created.json.data).toMatchObject({
      type: "document",
      attributes: {
        name: "MAEU BL",
        document_type: null,
        source: "api",
        file_name: "bill of lading.pdf",
        file_content_type: "application/pdf",
        file_size_bytes: bytes.byteLength,
      },
    });
    const stored = await env.DOCUMENTS_BUCKET.get(`${account.accountId}/${reserved.json.id}`);
    expect(stored).not.toBeNull();
    expect(new Uint8Array((await stored?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(bytes);
    // Nothing of the file in D1: only its facts.
    const row = await env.DB.prepare("SELECT * FROM documents WHERE id = ?1").bind(created.json.data.id).first();
    expect(JSON.stringify(row)).not.toContain("MAEU123456789");
  });

  it("the same bytes twice in one account: 409 duplicate_document, and the second copy is not kept", async () => {
    const account = await createAccount();
    const bytes = pdfBytes("same");
    const firstReserved = await reserve(account, bytes);
    const firstSignedId = firstReserved.json.signed_id;
    expect((await putBytes(firstReserved.json, bytes)).status).toBe(204);
    const created = await apiJson<{ data: { id: string } }>("/documents", {
      key: account.key,
      body: { data: { type: "document", attributes: { name: "first.pdf", attached_document: firstSignedId } } },
    });
    expect(created.res.status).toBe(201);
    const first = created.json.data;
    const again = await reserve(account, bytes);
    expect((await putBytes(again.json, bytes)).status).toBe(204);
    const { res, json } = await apiJson<{ errors: Record<string, unknown>[] }>("/documents", {
      key: account.key,
      body: { data: { type: "document", attributes: { name: "again.pdf", attached_document: again.json.signed_id } } },
    });
    expect(res.status).toBe(409);
    expect(json.errors).toEqual([
      expect.objectContaining({
        status: "409",
        code: "duplicate_document",
        title: "Duplicate document",
        meta: { existing_document_id: first.id, existing_document_name: "first.pdf" },
      }),
    ]);
    expect(await countRows("documents", account.accountId)).toBe(1);
    expect(await r2Keys(`${account.accountId}/`)).toEqual([`${account.accountId}/${await firstBlob(first.id)}`]);
    // The first signed_id used again: the same 409, and the first document keeps its file.
    const reused = await apiJson<{ errors: Record<string, unknown>[] }>("/documents", {
      key: account.key,
      body: { data: { type: "document", attributes: { name: "reused", attached_document: firstSignedId } } },
    });
    expect(reused.res.status).toBe(409);
    expect(reused.json.errors[0]?.code).toBe("duplicate_document");
    expect(await r2Keys(`${account.accountId}/`)).toEqual([`${account.accountId}/${await firstBlob(first.id)}`]);
    // Another account may upload the same bytes.
    const other = await createAccount();
    await uploadDocument(other, bytes);
  });

  it("bytes that do not match the checksum or the size are refused and nothing is stored", async () => {
    const account = await createAccount();
    const bytes = pdfBytes("declared");
    const reserved = await reserve(account, bytes);
    const tampered = bytes.slice();
    tampered[tampered.length - 2] = 0x41;
    const wrongMd5 = await putBytes(reserved.json, tampered);
    expect(wrongMd5.status).toBe(422);
    expect(await r2Keys(`${account.accountId}/`)).toEqual([]);
    const longer = new Uint8Array(bytes.byteLength + 10);
    longer.set(bytes);
    const tooLong = await putBytes(reserved.json, longer);
    expect(tooLong.status).toBe(413);
    const shorter = await putBytes(reserved.json, bytes.slice(0, 10));
    expect([400, 422]).toContain(shorter.status);
    expect(await r2Keys(`${account.accountId}/`)).toEqual([]);
    const notUploaded = await apiJson<{ errors: { source: unknown }[] }>("/documents", {
      key: account.key,
      body: { data: { type: "document", attributes: { name: "x", attached_document: reserved.json.signed_id } } },
    });
    expect(notUploaded.res.status).toBe(422);
    expect(notUploaded.json.errors[0]?.source).toEqual({ pointer: "/data/attributes/attached_document" });
    // The right bytes still work afterwards.
    expect((await putBytes(reserved.json, bytes)).status).toBe(204);
  });

  it("a 30 MB file is refused at reservation (413) and at upload, nothing stored", async () => {
    const account = await createAccount();
    const big = new Uint8Array(30 * 1024 * 1024);
    big.set(pdfBytes("big"));
    const declared = await reserve(account, big);
    expect(declared.res.status).toBe(413);
    expect(declared.json.errors?.[0]?.detail).toContain("over the limit");
    expect(await countRows("document_blobs", account.accountId)).toBe(0);
    // A small reservation whose PUT streams 30 MB: refused before R2 keeps anything.
    const small = pdfBytes("small");
    const reserved = await reserve(account, small);
    const res = await exports.default.fetch(
      new Request(reserved.json.direct_upload.url, {
        method: "PUT",
        headers: { "Content-Type": "application/pdf" },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < 30; i++) controller.enqueue(new Uint8Array(1024 * 1024));
            controller.close();
          },
        }),
      }),
    );
    expect([413, 422]).toContain(res.status);
    expect(await r2Keys(`${account.accountId}/`)).toEqual([]);
  });

  it("a body without Content-Length (chunked) is stored when it is exactly byte_size, refused when short", async () => {
    const account = await createAccount();
    const bytes = pdfBytes("chunked upload");
    const reserved = await reserve(account, bytes);
    const chunked = (parts: Uint8Array[]) =>
      exports.default.fetch(
        new Request(reserved.json.direct_upload.url, {
          method: "PUT",
          headers: { "Content-Type": "application/pdf" },
          body: new ReadableStream({
            start(controller) {
              for (const part of parts) controller.enqueue(part);
              controller.close();
            },
          }),
        }),
      );
    expect((await chunked([bytes.slice(0, 10)])).status).toBe(422);
    expect(await r2Keys(`${account.accountId}/`)).toEqual([]);
    expect((await chunked([bytes.slice(0, 10), bytes.slice(10)])).status).toBe(204);
    const stored = await env.DOCUMENTS_BUCKET.get(`${account.accountId}/${reserved.json.id}`);
    expect(new Uint8Array((await stored?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(bytes);
  });

  it("bad declarations are 422s pointing at the field, nothing reserved", async () => {
    const account = await createAccount();
    const bytes = pdfBytes("bad");
    const cases: [Record<string, unknown>, string][] = [
      [{ content_type: "application/x-msdownload" }, "/blob/content_type"],
      [{ checksum: "not-md5" }, "/blob/checksum"],
      [{ byte_size: 0 }, "/blob/byte_size"],
      [{ filename: "   " }, "/blob/filename"],
    ];
    for (const [overrides, pointer] of cases) {
      const { res, json } = await reserve(account, bytes, overrides);
      expect(res.status).toBe(422);
      expect(json.errors?.map((e) => e.source)).toContainEqual({ pointer });
    }
    const noKey = await api("https://api.test/rails/active_storage/direct_uploads", { body: { blob: {} } });
    expect(noKey.status).toBe(401);
    expect(await countRows("document_blobs", account.accountId)).toBe(0);
  });

  it("a wrong Content-Type, a forged or another account's token are refused", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const bytes = pdfBytes("tokens");
    const reserved = await reserve(account, bytes);
    const wrongType = await putBytes(reserved.json, bytes, { "Content-Type": "image/png" });
    expect(wrongType.status).toBe(415);
    const forged = { ...reserved.json, direct_upload: { ...reserved.json.direct_upload } };
    forged.direct_upload.url = reserved.json.direct_upload.url.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
    expect((await putBytes(forged, bytes)).status).toBe(403);
    expect((await putBytes(reserved.json, bytes)).status).toBe(204);
    // Another account cannot make a document of this blob.
    const stolen = await apiJson<{ errors: unknown[] }>("/documents", {
      key: other.key,
      body: { data: { type: "document", attributes: { name: "x", attached_document: reserved.json.signed_id } } },
    });
    expect(stolen.res.status).toBe(422);
    expect(await countRows("documents", other.accountId)).toBe(0);
    // A download token is not an upload token (the purpose is signed).
    const doc = await uploadDocument(account, pdfBytes("other file"));
    const { json } = await apiJson<{ download_url: string }>(`/documents/${doc.id}/download_url`, { key: account.key });
    const token = json.download_url.split("/").pop();
    const asUpload = { ...reserved.json, direct_upload: { ...reserved.json.direct_upload } };
    asUpload.direct_upload.url = `https://api.test/files/uploads/${token}`;
    expect((await putBytes(asUpload, bytes)).status).toBe(403);
  });
});

async function firstBlob(documentId: string): Promise<string> {
  const row = await env.DB.prepare("SELECT blob_id FROM documents WHERE id = ?1").bind(documentId).first<{
    blob_id: string;
  }>();
  return row?.blob_id ?? "";
}
