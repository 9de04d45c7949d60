import { beforeAll, describe, expect, it } from "vitest";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { pdfBytes, uploadDocument } from "../helpers/document-uploads";

// GET /v2/documents filters (src/documents/list.ts, shared with the MCP list_documents tool): filter[filename]
// (case-insensitive substring, LIKE wildcards literal) and filter[document_types] (the effective type: the manual
// override, else the extractor's), with meta.total counting the matches; bad values are 400 naming the parameter.

interface Listed {
  data: { id: string; attributes: Record<string, unknown> }[];
  meta: { total: number };
  errors?: { detail: string; source?: { parameter?: string } }[];
}

let account: TestAccount;
let other: TestAccount;
let invoiceId: string;
let packingId: string;
let plainId: string;

async function setType(id: string, code: string | null) {
  const { res } = await apiJson(`/documents/${id}`, {
    method: "PATCH",
    key: account.key,
    body: { data: { type: "document", attributes: { document_type_manual: code } } },
  });
  expect(res.status).toBe(200);
}

async function list(query: string, key = account.key) {
  return apiJson<Listed>(`/documents${query}`, { key });
}

beforeAll(async () => {
  account = await createAccount();
  other = await createAccount("Other");
  invoiceId = (await uploadDocument(account, pdfBytes("a"), "Invoice", "INV_2026-11.pdf")).id;
  packingId = (await uploadDocument(account, pdfBytes("b"), "Packing", "packing list.pdf")).id;
  plainId = (await uploadDocument(account, pdfBytes("c"), "Other", "INV2026.pdf")).id;
  await setType(invoiceId, "commercial_invoice");
  await setType(packingId, "packing_list");
});

describe("GET /documents filters", () => {
  it("filter[filename] matches a substring in any case, with _ and % taken literally", async () => {
    const inv = await list("?filter[filename]=inv");
    expect(inv.res.status).toBe(200);
    expect(inv.json.data.map((d) => d.id)).toEqual([plainId, invoiceId]);
    expect(inv.json.meta.total).toBe(2);
    const underscore = await list("?filter[filename]=INV_");
    expect(underscore.json.data.map((d) => d.id)).toEqual([invoiceId]);
    expect((await list("?filter[filename]=%25")).json.data).toEqual([]);
  });

  it("filter[document_types] takes comma-separated codes against the effective type", async () => {
    const both = await list("?filter[document_types]=commercial_invoice, packing_list");
    expect(both.json.data.map((d) => d.id)).toEqual([packingId, invoiceId]);
    expect(both.json.meta.total).toBe(2);
    await setType(invoiceId, null);
    const after = await list("?filter[document_types]=commercial_invoice");
    expect(after.json.data).toEqual([]);
    expect(after.json.meta.total).toBe(0);
    await setType(invoiceId, "commercial_invoice");
    const combined = await list("?filter[document_types]=commercial_invoice&filter[filename]=inv&page[size]=1");
    expect(combined.json.data.map((d) => d.id)).toEqual([invoiceId]);
    expect(combined.json.meta.total).toBe(1);
  });

  it("an unknown type or an over-long name is a 400 naming the parameter, and changes nothing", async () => {
    const unknown = await list("?filter[document_types]=bill_of_lading,passport");
    expect(unknown.res.status).toBe(400);
    expect(unknown.json.errors?.[0]?.source?.parameter).toBe("filter[document_types]");
    expect(unknown.json.errors?.[0]?.detail).toContain("passport is not a document type");
    const long = await list(`?filter[filename]=${"x".repeat(1001)}`);
    expect(long.res.status).toBe(400);
    expect(long.json.errors?.[0]?.source?.parameter).toBe("filter[filename]");
    expect((await list("")).json.meta.total).toBe(3);
  });

  it("needs a key, and another account's documents never match", async () => {
    const { res } = await apiJson("/documents?filter[filename]=inv", { key: null });
    expect(res.status).toBe(401);
    const theirs = await list("?filter[filename]=inv", other.key);
    expect(theirs.res.status).toBe(200);
    expect(theirs.json.data).toEqual([]);
    expect(theirs.json.meta.total).toBe(0);
  });
});
