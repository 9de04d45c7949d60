import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount } from "../helpers/api";
import { pdfBytes, uploadDocument } from "../helpers/document-uploads";

// /v2/documents list, types, get, update, delete and download_url (docs/api.md §Documents): another account's id is a
// 404 on every route, and another account's file is never downloadable.

interface Doc {
  data: { id: string; type: string; attributes: Record<string, unknown>; links?: Record<string, string> };
  links?: { self: string };
  errors?: { status: string; detail?: string; source?: unknown }[];
}

const download = (url: string) => exports.default.fetch(new Request(url));

describe("documents routes", () => {
  it("lists the account's documents newest first with meta.total, and gets one", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const a = await uploadDocument(account, pdfBytes("a"), "a.pdf");
    const b = await uploadDocument(account, pdfBytes("b"), "b.pdf");
    await uploadDocument(other, pdfBytes("c"), "c.pdf");
    const list = await apiJson<{ data: Doc["data"][]; meta: { total: number } }>("/documents", { key: account.key });
    expect(list.res.status).toBe(200);
    expect(list.json.data.map((d) => d.id)).toEqual([b.id, a.id]);
    expect(list.json.meta.total).toBe(2);
    const one = await apiJson<Doc>(`/documents/${a.id}?include=shipments,last_document_representation`, {
      key: account.key,
    });
    expect(one.res.status).toBe(200);
    expect(one.json.data.attributes).toMatchObject({ name: "a.pdf", source: "api" });
    expect(one.json.data.links).toEqual({ self: `/documents/${a.id}`, download: `/documents/${a.id}/download_url` });
    const badInclude = await apiJson<Doc>(`/documents/${a.id}?include=invalid_relation`, { key: account.key });
    expect(badInclude.res.status).toBe(400);
    expect(badInclude.json.errors?.[0]).toMatchObject({
      detail: "invalid_relation is not specified as a relationship on V2::DocumentSerializer",
      source: { parameter: "include" },
    });
  });

  it("types lists code and label", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<{ document_types: { code: string; label: string }[] }>("/documents/types", {
      key: account.key,
    });
    expect(res.status).toBe(200);
    expect(json.document_types).toContainEqual({ code: "commercial_invoice", label: "Commercial invoice" });
    expect(json.document_types).toContainEqual({ code: "bill_of_lading", label: "Bill of lading" });
  });

  it("PATCH sets document_type_manual and extracted_data_manual; an unknown type is a 422 that changes nothing", async () => {
    const account = await createAccount();
    const doc = await uploadDocument(account, pdfBytes("patch"));
    const body = (attributes: Record<string, unknown>) => ({ data: { type: "document", attributes } });
    const ok = await apiJson<Doc>(`/documents/${doc.id}`, {
      method: "PATCH",
      key: account.key,
      body: body({ document_type_manual: "arrival_notice", extracted_data_manual: { bl_number: "MAEU123456789" } }),
    });
    expect(ok.res.status).toBe(200);
    expect(ok.json.data.attributes.document_type_manual).toBe("arrival_notice");
    const row = await env.DB.prepare("SELECT extracted_data_manual FROM documents WHERE id = ?1")
      .bind(doc.id)
      .first<{ extracted_data_manual: string }>();
    expect(JSON.parse(row?.extracted_data_manual ?? "null")).toEqual({ bl_number: "MAEU123456789" });
    const bad = await apiJson<Doc>(`/documents/${doc.id}`, {
      method: "PATCH",
      key: account.key,
      body: body({ document_type_manual: "love_letter" }),
    });
    expect(bad.res.status).toBe(422);
    expect(bad.json.errors?.[0]?.source).toEqual({ pointer: "/data/attributes/document_type_manual" });
    const after = await apiJson<Doc>(`/documents/${doc.id}`, { key: account.key });
    expect(after.json.data.attributes.document_type_manual).toBe("arrival_notice");
  });

  it("download_url serves the file for its account until it expires; deleting removes the file", async () => {
    const account = await createAccount();
    const bytes = pdfBytes("download me");
    const doc = await uploadDocument(account, bytes, "download.pdf");
    const { res, json } = await apiJson<{ download_url: string }>(`/documents/${doc.id}/download_url`, {
      key: account.key,
    });
    expect(res.status).toBe(200);
    expect(json.download_url).toMatch(/^https:\/\/api\.test\/files\/documents\/[^/]+--[0-9a-f]{64}$/);
    const file = await download(json.download_url);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/pdf");
    expect(file.headers.get("Content-Disposition")).toContain('filename="bill of lading.pdf"');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    // A tampered URL is refused.
    const tampered = json.download_url.replace(/.$/, (c) => (c === "0" ? "1" : "0"));
    expect((await download(tampered)).status).toBe(403);

    const deleted = await api(`/documents/${doc.id}`, { method: "DELETE", key: account.key });
    expect(deleted.status).toBe(204);
    expect((await api(`/documents/${doc.id}`, { key: account.key })).status).toBe(404);
    expect((await download(json.download_url)).status).toBe(404);
    expect((await env.DOCUMENTS_BUCKET.list({ prefix: `${account.accountId}/` })).objects).toEqual([]);
    const list = await apiJson<{ meta: { total: number } }>("/documents", { key: account.key });
    expect(list.json.meta.total).toBe(0);
    // The same bytes may be uploaded again once the document is gone.
    await uploadDocument(account, bytes);
  });

  it("an expired download URL is refused", async () => {
    const account = await createAccount();
    const doc = await uploadDocument(account, pdfBytes("expiring"));
    const { signToken } = await import("../../src/documents/signing");
    const past = Math.floor(Date.now() / 1000) - 1;
    const token = await signToken(env.DOCUMENT_SIGNING_KEY, "download", {
      id: doc.id,
      accountId: account.accountId,
      expiresAt: past,
    });
    expect((await download(`https://api.test/files/documents/${token}`)).status).toBe(403);
    const fresh = await signToken(env.DOCUMENT_SIGNING_KEY, "download", {
      id: doc.id,
      accountId: account.accountId,
      expiresAt: past + 60,
    });
    expect((await download(`https://api.test/files/documents/${fresh}`)).status).toBe(200);
  });

  it("another account's document is a 404 on every route and its file is never served", async () => {
    const owner = await createAccount();
    const intruder = await createAccount();
    const doc = await uploadDocument(owner, pdfBytes("private"));
    const notFound = { status: "404", title: "Not Found", detail: "Couldn't find Document" };
    for (const [method, path, body] of [
      ["GET", `/documents/${doc.id}`, undefined],
      ["GET", `/documents/${doc.id}/download_url`, undefined],
      ["PATCH", `/documents/${doc.id}`, { data: { type: "document", attributes: { document_type_manual: null } } }],
      ["DELETE", `/documents/${doc.id}`, undefined],
    ] as const) {
      const { res, json } = await apiJson<Doc>(path, { method, key: intruder.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(json.errors).toEqual([expect.objectContaining(notFound)]);
    }
    const list = await apiJson<{ data: unknown[] }>("/documents", { key: intruder.key });
    expect(list.json.data).toEqual([]);
    // A download token signed for the intruder's account naming the owner's document finds nothing.
    const { signToken } = await import("../../src/documents/signing");
    const token = await signToken(env.DOCUMENT_SIGNING_KEY, "download", {
      id: doc.id,
      accountId: intruder.accountId,
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    });
    expect((await download(`https://api.test/files/documents/${token}`)).status).toBe(404);
    // The owner still has it.
    expect((await api(`/documents/${doc.id}`, { key: owner.key })).status).toBe(200);
  });

  it("GET /document_schemas/{id}: the JSON Schema of the extraction payload; an unknown id is a 404", async () => {
    const account = await createAccount();
    const types = await apiJson<{ document_types: { code: string }[] }>("/documents/types", { key: account.key });
    expect(types.json.document_types.map((t) => t.code)).toContain("arrival_notice");
    const { EXTRACTION_SCHEMA_VERSION } = await import("../../src/documents/extraction");
    const id = `arrival_notice@${EXTRACTION_SCHEMA_VERSION}`;
    const { res, json } = await apiJson<Doc>(`/document_schemas/${id}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data).toMatchObject({
      id,
      type: "document_schema",
      attributes: {
        document_type: "arrival_notice",
        label: "Arrival notice",
        schema_version: EXTRACTION_SCHEMA_VERSION,
        full_version: id,
        current: true,
        draft: false,
        schema_format: "json_schema",
      },
    });
    const schema = json.data.attributes.schema_payload as { required: string[] };
    expect(schema.required).toContain("container_numbers");
    const unknown = await apiJson<Doc>("/document_schemas/unknown@2026-03-23", { key: account.key });
    expect(unknown.res.status).toBe(404);
    expect(unknown.json.errors?.[0]?.detail).toBe("Couldn't find DocumentSchema");
  });
});
