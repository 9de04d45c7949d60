import { env } from "cloudflare:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrivalNoticePdf, billOfLadingPdf, FIXTURE_CONTAINERS } from "../fixtures/documents";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { pdfBytes, uploadDocument } from "../helpers/document-uploads";
import { createMailbox, deliverEmail, mimeMessage } from "../helpers/email-submissions";
import { until } from "../helpers/vessels";
import { expectMatchesOutputSchema } from "./fixtures";
import { connectMcp } from "./helpers";

// list_documents and get_document (docs/mcp.md §Tools) through a real MCP client, over the services of
// GET /v2/documents and GET /v2/documents/{id}: an uploaded BL (extracted), a file the extractor cannot read (failed)
// and an arrival notice that came in by e-mail; another account sees none of them.

let account: TestAccount;
let other: TestAccount;
let client: Client;
let otherClient: Client;
let tools: Map<string, Tool>;
let blId: string;
let brokenId: string;
let emailedId: string;

type Structured = Record<string, unknown> & { items?: Record<string, unknown>[] };

async function waitForExtraction(id: string, key: string): Promise<void> {
  await until(
    async () => {
      const { json } = await apiJson<{ data: { relationships: { last_document_representation: { data: unknown } } } }>(
        `/documents/${id}`,
        { key },
      );
      return json.data.relationships.last_document_representation.data !== null;
    },
    10_000,
    `extraction of ${id}`,
  );
}

beforeAll(async () => {
  account = await createAccount();
  other = await createAccount("Other");
  blId = (await uploadDocument(account, await billOfLadingPdf(), "Maersk BL", "MAEU241234567 bill of lading.pdf")).id;
  brokenId = (await uploadDocument(account, pdfBytes("unreadable"), "Scan", "scan_100%.pdf")).id;
  const address = await createMailbox(account, ["desk@carrier.example"]);
  const rejected = await deliverEmail(
    "desk@carrier.example",
    address,
    mimeMessage({
      from: "desk@carrier.example",
      to: address,
      subject: "Arrival notice HLCU",
      attachments: [
        { filename: "arrival notice.pdf", contentType: "application/pdf", bytes: await arrivalNoticePdf() },
      ],
    }),
  );
  expect(rejected).toEqual([]);
  const { json } = await apiJson<{ data: { id: string; attributes: { source: string } }[] }>("/documents", {
    key: account.key,
  });
  emailedId = json.data.find((d) => d.attributes.source === "email")?.id ?? "";
  expect(emailedId).not.toBe("");
  await waitForExtraction(blId, account.key);
  await waitForExtraction(emailedId, account.key);
  // A failed extraction is not served over REST; its reason code is on the row.
  await until(async () => {
    const row = await env.DB.prepare("SELECT extraction_error FROM documents WHERE id = ?1")
      .bind(brokenId)
      .first<{ extraction_error: string | null }>();
    return row?.extraction_error != null;
  });
  ({ client } = await connectMcp(account.key));
  ({ client: otherClient } = await connectMcp(other.key));
  tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
});

afterAll(async () => {
  await client?.close();
  await otherClient?.close();
});

async function callOn(on: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await on.callTool({ name, arguments: args })) as CallToolResult;
}

/** A successful call: not an error, structuredContent valid for the tool's advertised schema, and its text. */
async function ok(name: string, args: Record<string, unknown>) {
  const result = await callOn(client, name, args);
  const first = result.content[0];
  const text = first?.type === "text" ? first.text : "";
  expect(result.isError ?? false, text).toBe(false);
  expectMatchesOutputSchema(tools.get(name)?.outputSchema, result.structuredContent);
  return { structured: result.structuredContent as Structured, text };
}

function errorText(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe("list_documents", () => {
  it("lists the account's documents newest first, each with its type, extraction status and the numbers read", async () => {
    const { structured, text } = await ok("list_documents", {});
    expect(structured).toMatchObject({ page: 1, page_size: 25, total: 3, has_more: false, next_page: null });
    expect(structured.items?.map((d) => d.id)).toEqual([emailedId, brokenId, blId]);
    const bl = structured.items?.find((d) => d.id === blId);
    expect(bl).toMatchObject({
      name: "Maersk BL",
      file_name: "MAEU241234567 bill of lading.pdf",
      document_type: "bill_of_lading",
      source: "api",
      extraction_status: "extracted",
      failure_reason: null,
      references: {
        bill_of_lading_number: "MAEU241234567",
        booking_number: "241234567",
        container_numbers: [FIXTURE_CONTAINERS.maersk1, FIXTURE_CONTAINERS.maersk2],
      },
    });
    const broken = structured.items?.find((d) => d.id === brokenId);
    expect(broken?.extraction_status).toBe("failed");
    expect(broken?.failure_reason).toEqual(expect.any(String));
    expect(broken?.references).toEqual({ bill_of_lading_number: null, booking_number: null, container_numbers: [] });
    expect(text).toContain("3 documents match");
    expect(text).toContain(`BL MAEU241234567, containers ${FIXTURE_CONTAINERS.maersk1}`);
  });

  it("filters by document type (the manual type wins over the extractor's) and by file name", async () => {
    const bls = await ok("list_documents", { document_types: ["bill_of_lading"] });
    expect(bls.structured.items?.map((d) => d.id)).toEqual([blId]);
    const notices = await ok("list_documents", { document_types: ["arrival_notice", "delivery_order"] });
    expect(notices.structured.items?.map((d) => d.id)).toEqual([emailedId]);
    // The reference's filter name, as a comma-separated string.
    const aliased = await ok("list_documents", { "filter[document_types]": "arrival_notice,bill_of_lading" });
    expect(aliased.structured.items?.map((d) => d.id)).toEqual([emailedId, blId]);

    const { res } = await apiJson(`/documents/${blId}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "document", attributes: { document_type_manual: "sea_waybill" } } },
    });
    expect(res.status).toBe(200);
    expect((await ok("list_documents", { document_types: ["bill_of_lading"] })).structured.total).toBe(0);
    const waybills = await ok("list_documents", { document_types: ["sea_waybill"] });
    expect(waybills.structured.items?.map((d) => [d.id, d.document_type])).toEqual([[blId, "sea_waybill"]]);

    const byName = await ok("list_documents", { file_name: "maeu2412" });
    expect(byName.structured.items?.map((d) => d.id)).toEqual([blId]);
    // LIKE wildcards match themselves: `%` only finds the name that has one.
    expect((await ok("list_documents", { file_name: "100%" })).structured.items?.map((d) => d.id)).toEqual([brokenId]);
    expect((await ok("list_documents", { file_name: "_" })).structured.items?.map((d) => d.id)).toEqual([brokenId]);
    expect((await ok("list_documents", { file_name: "nothing like it" })).text).toBe("No documents match.");
  });

  it("finds documents by a number they name (BL, container), normalized and by prefix", async () => {
    const byBl = await ok("list_documents", { reference: "maeu 2412-34567" });
    expect(byBl.structured.items?.map((d) => d.id)).toEqual([blId]);
    const byBox = await ok("list_documents", { reference: FIXTURE_CONTAINERS.maersk2.slice(0, 7) });
    expect(byBox.structured.items?.map((d) => d.id)).toEqual([blId]);
    const aliased = await ok("list_documents", { "filter[reference]": "MAEU241234567" });
    expect(aliased.structured.items?.map((d) => d.id)).toEqual([blId]);
    expect((await ok("list_documents", { reference: "ZZZU0000000" })).text).toBe("No documents match.");
    // Another account names the same number: not found there.
    const other = (await callOn(otherClient, "list_documents", { reference: "MAEU241234567" })).structuredContent;
    expect((other as Structured).total).toBe(0);
  });

  it("pages with page / next_page", async () => {
    const first = await ok("list_documents", { page_size: 2 });
    expect(first.structured).toMatchObject({ page: 1, page_size: 2, total: 3, has_more: true, next_page: 2 });
    const second = await ok("list_documents", { page: 2, page_size: 2 });
    expect(second.structured.items?.map((d) => d.id)).toEqual([blId]);
    expect(second.structured.next_page).toBeNull();
  });

  it("refuses an unknown document type, naming the argument", async () => {
    expect(errorText(await callOn(client, "list_documents", { document_types: ["passport"] }))).toMatch(
      /^Invalid argument `document_types/,
    );
    expect(errorText(await callOn(client, "list_documents", { "filter[document_types]": "passport" }))).toMatch(
      /^Invalid argument `filter\[document_types\]/,
    );
  });

  it("shows another account nothing", async () => {
    const result = await callOn(otherClient, "list_documents", {});
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ items: [], total: 0 });
  });
});

describe("get_document", () => {
  it("gives the classification and every extracted field with its confidence and source text", async () => {
    const { structured, text } = await ok("get_document", { id: blId });
    expect(structured).toMatchObject({
      id: blId,
      file_name: "MAEU241234567 bill of lading.pdf",
      content_type: "application/pdf",
      source: "api",
      extraction_status: "extracted",
      failure_reason: null,
      extracted_at: expect.any(String),
      // The list test set the manual type; the extractor's guess stays beside it.
      document_type: "sea_waybill",
      manual_type: "sea_waybill",
      extracted_type: "bill_of_lading",
      email_submission: null,
      linked_shipments: [],
      linked_containers: [],
    });
    expect(structured.extracted_type_confidence).toBeGreaterThan(0.5);
    const fields = structured.fields as { field: string; value: string; confidence: number }[];
    expect(fields.find((f) => f.field === "bill_of_lading_number")).toMatchObject({
      value: "MAEU241234567",
      source_text: expect.stringContaining("MAEU241234567"),
    });
    expect(fields.filter((f) => f.field === "container_number").map((f) => f.value)).toEqual([
      FIXTURE_CONTAINERS.maersk1,
      FIXTURE_CONTAINERS.maersk2,
    ]);
    for (const f of fields) {
      expect(f.confidence, f.field).toBeGreaterThan(0);
      expect(f.confidence, f.field).toBeLessThanOrEqual(1);
    }
    expect(fields.map((f) => f.field)).toEqual(
      expect.arrayContaining(["shipping_line_scac", "vessel_name", "port_of_loading", "port_of_discharge"]),
    );
    expect(structured.missing_fields).not.toContain("bill_of_lading_number");
    expect(text).toContain("bill_of_lading_number: MAEU241234567 (confidence");
    expect(text).toContain("- Type: sea_waybill (set manually)");
  });

  it("shows the e-mail a document came in", async () => {
    const { structured, text } = await ok("get_document", { id: emailedId });
    expect(structured.source).toBe("email");
    expect(structured.email_submission).toMatchObject({
      subject: "Arrival notice HLCU",
      from: ["desk@carrier.example"],
      sent_at: "2026-11-28T08:14:11Z",
    });
    expect(text).toContain('E-mailed: "Arrival notice HLCU" from desk@carrier.example');
  });

  it("says why a document could not be extracted, and has no fields", async () => {
    const { structured } = await ok("get_document", { id: brokenId });
    expect(structured).toMatchObject({
      extraction_status: "failed",
      extracted_at: null,
      fields: [],
      missing_fields: [],
    });
    expect(structured.failure_reason).toEqual(expect.any(String));
  });

  it("answers not found for an unknown id and for another account's document", async () => {
    const unknown = crypto.randomUUID();
    expect(errorText(await callOn(client, "get_document", { id: unknown }))).toBe(
      `Not found: No document with id ${unknown} in this account. Use list_documents to find it.`,
    );
    expect(errorText(await callOn(otherClient, "get_document", { id: blId }))).toBe(
      `Not found: No document with id ${blId} in this account. Use list_documents to find it.`,
    );
    expect(errorText(await callOn(client, "get_document", { id: "" }))).toMatch(/^Invalid argument `id`/);
  });
});
