import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { billOfLadingPdf } from "../fixtures/documents";
import { apiJson, createAccount } from "../helpers/api";
import { pdfBytes } from "../helpers/document-uploads";
import {
  EMAIL_DOMAIN as DOMAIN,
  deliverEmail as deliver,
  createMailbox as mailbox,
  mimeMessage,
} from "../helpers/email-submissions";
import { until } from "../helpers/vessels";

// E-mail submissions through the Worker's email() handler (docs/api.md §E-mail submissions): real MIME messages built
// here, sent to documents+<token>@inbound.example.com; the mailbox's allowed senders only; anything else is refused
// with setReject and stores nothing.

/** The messages of these tests: a Cc, a fixed Message-ID and a text part the submission's assertions name. */
const mime = (options: Parameters<typeof mimeMessage>[0]) =>
  mimeMessage({
    cc: "ops@acme-imports.com",
    messageId: "abc123@carrier.example",
    text: "Please find the BL attached.",
    ...options,
  });

async function stored(accountId: string) {
  const count = async (table: string) =>
    (
      await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?1`)
        .bind(accountId)
        .first<{ n: number }>()
    )?.n ?? 0;
  const objects = (await env.DOCUMENTS_BUCKET.list({ prefix: `${accountId}/` })).objects.length;
  return {
    submissions: await count("email_submissions"),
    documents: await count("documents"),
    blobs: await count("document_blobs"),
    objects,
  };
}

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: unknown }>;
}

describe("email() handler", () => {
  it("an allowed sender's message becomes an email_submission with one document per attachment, extracted", async () => {
    const account = await createAccount();
    const address = await mailbox(account, ["desk@carrier.example"]);
    const bl = await billOfLadingPdf();
    const raw = mime({
      from: "desk@carrier.example",
      to: address,
      subject: "BL MAEU241234567",
      attachments: [
        { filename: "bl.pdf", contentType: "application/pdf", bytes: bl },
        { filename: "notes.txt", contentType: "text/plain", bytes: new TextEncoder().encode("not a document") },
      ],
    });
    // Recipient lookups are case-insensitive (the reference's changelog).
    expect(await deliver("Desk@Carrier.example", address.toUpperCase(), raw)).toEqual([]);

    const list = await apiJson<{ data: Resource[]; included: Resource[] }>("/email_submissions", { key: account.key });
    expect(list.res.status).toBe(200);
    const [submission] = list.json.data;
    expect(submission?.attributes).toMatchObject({
      subject: "BL MAEU241234567",
      from: ["desk@carrier.example"],
      to: [address],
      cc: ["ops@acme-imports.com"],
      message_id: "<abc123@carrier.example>",
      sent_at: "2026-11-28T08:14:11Z",
      content_type: "multipart/mixed",
      documents_count: 1,
    });
    expect(String(submission?.attributes.body)).toContain("Please find the BL attached.");
    // Included documents are in the reference's compact form (schema email_submission_document, §7.5).
    const documents = list.json.included.filter((r) => r.type === "document");
    expect(documents.map((d) => d.attributes)).toEqual([
      {
        name: "bl.pdf",
        source: "email",
        document_type: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    expect(Object.keys(documents[0]?.relationships ?? {})).toEqual(["last_document_representation"]);
    // The document's own GET links back to the submission, and include=email_submission gives its compact form.
    const full = await apiJson<{ data: Resource; included: Resource[] }>(
      `/documents/${documents[0]?.id}?include=email_submission,account,user`,
      { key: account.key },
    );
    expect(full.res.status).toBe(200);
    expect(full.json.data.relationships?.email_submission?.data).toEqual({
      type: "email_submission",
      id: submission?.id,
    });
    expect(full.json.included).toEqual([
      {
        id: submission?.id,
        type: "email_submission",
        attributes: {
          subject: "BL MAEU241234567",
          body_preview: "Please find the BL attached.",
          from: ["desk@carrier.example"],
          to: [address],
          cc: ["ops@acme-imports.com"],
          message_id: "<abc123@carrier.example>",
          sent_at: "2026-11-28T08:14:11Z",
          created_at: submission?.attributes.created_at,
          updated_at: submission?.attributes.updated_at,
        },
      },
    ]);
    // The same in the list, and account / user (no such resources) add nothing, on submissions too.
    const listed = await apiJson<{ included: Resource[] }>("/documents?include=email_submission", { key: account.key });
    expect(listed.json.included.map((r) => [r.type, r.id])).toEqual([["email_submission", submission?.id]]);
    const accountOnly = await apiJson<{ included?: Resource[] }>("/email_submissions?include=account,user", {
      key: account.key,
    });
    expect(accountOnly.res.status).toBe(200);
    expect(accountOnly.json.included ?? []).toEqual([]);
    // Another account cannot include this submission through a document it cannot see either.
    const other = await createAccount();
    const theirs = await apiJson(`/documents/${documents[0]?.id}?include=email_submission`, { key: other.key });
    expect(theirs.res.status).toBe(404);
    // The attachment's bytes are in R2, and it gets extracted like an upload.
    const documentId = documents[0]?.id ?? "";
    const representation = await until(
      async () => {
        const { json } = await apiJson<{ included?: Resource[] }>(`/email_submissions/${submission?.id}`, {
          key: account.key,
        });
        return json.included?.find((r) => r.type === "document_representation");
      },
      20_000,
      "the extraction",
    );
    expect((representation.attributes.payload as Record<string, { value: string }>).bill_of_lading_number?.value).toBe(
      "MAEU241234567",
    );
    const row = await env.DB.prepare("SELECT storage_key FROM documents WHERE id = ?1")
      .bind(documentId)
      .first<{ storage_key: string }>();
    const object = await env.DOCUMENTS_BUCKET.get(row?.storage_key ?? "");
    expect(new Uint8Array((await object?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(bl);
  });

  it("a whole sender domain may be allowed; a duplicate attachment is skipped", async () => {
    const account = await createAccount();
    const address = await mailbox(account, ["@carrier.example"]);
    const file = { filename: "an.pdf", contentType: "application/pdf", bytes: pdfBytes("arrival notice") };
    const raw = mime({ from: "any@carrier.example", to: address, subject: "AN", attachments: [file, file] });
    expect(await deliver("any@carrier.example", address, raw)).toEqual([]);
    expect(await stored(account.accountId)).toEqual({ submissions: 1, documents: 1, blobs: 1, objects: 1 });
  });

  it("unknown senders, unknown addresses and messages without a document are refused, nothing stored", async () => {
    const account = await createAccount();
    const address = await mailbox(account, ["desk@carrier.example"]);
    const attachments = [{ filename: "bl.pdf", contentType: "application/pdf", bytes: pdfBytes("refused") }];
    const raw = (to: string) => mime({ from: "desk@carrier.example", to, subject: "x", attachments });
    const cases: [string, string, Uint8Array, string][] = [
      ["intruder@evil.example", address, raw(address), "sender"],
      ["desk@carrier.example", `documents+${"0".repeat(32)}@${DOMAIN}`, raw(address), "Unknown recipient"],
      ["desk@carrier.example", address.replace(DOMAIN, "other.example"), raw(address), "Unknown recipient"],
      ["desk@carrier.example", `someone@${DOMAIN}`, raw(address), "Unknown recipient"],
      [
        "desk@carrier.example",
        address,
        mime({ from: "desk@carrier.example", to: address, subject: "no files", attachments: [] }),
        "attachment",
      ],
    ];
    for (const [from, to, message, reason] of cases) {
      const rejected = await deliver(from, to, message);
      expect(rejected, `${from} → ${to}`).toHaveLength(1);
      expect(rejected[0]).toContain(reason);
    }
    expect(await stored(account.accountId)).toEqual({ submissions: 0, documents: 0, blobs: 0, objects: 0 });
  });

  it("another account's submission is a 404", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const address = await mailbox(account, ["desk@carrier.example"]);
    const raw = mime({
      from: "desk@carrier.example",
      to: address,
      subject: "private",
      attachments: [{ filename: "p.pdf", contentType: "application/pdf", bytes: pdfBytes("private mail") }],
    });
    expect(await deliver("desk@carrier.example", address, raw)).toEqual([]);
    const { json } = await apiJson<{ data: Resource[] }>("/email_submissions", { key: account.key });
    const id = json.data[0]?.id;
    const mine = await apiJson(`/email_submissions/${id}`, { key: account.key });
    expect(mine.res.status).toBe(200);
    const theirs = await apiJson<{ errors: unknown[] }>(`/email_submissions/${id}`, { key: other.key });
    expect(theirs.res.status).toBe(404);
    expect(theirs.json.errors).toEqual([expect.objectContaining({ detail: "Couldn't find EmailSubmission" })]);
    const otherList = await apiJson<{ data: unknown[] }>("/email_submissions", { key: other.key });
    expect(otherList.json.data).toEqual([]);
  });
});
