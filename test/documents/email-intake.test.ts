import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { billOfLadingPdf } from "../fixtures/documents";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { pdfBytes } from "../helpers/document-uploads";
import { until } from "../helpers/vessels";

// E-mail submissions through the Worker's email() handler (docs/api.md §E-mail submissions): real MIME messages built
// here, sent to documents+<token>@inbound.example.com; the mailbox's allowed senders only; anything else is refused
// with setReject and stores nothing.

const DOMAIN = "inbound.example.com";

async function mailbox(account: TestAccount, allowed: string[]): Promise<string> {
  const token = crypto.randomUUID().replaceAll("-", "");
  await env.DB.prepare(
    "INSERT INTO document_mailboxes (account_id, token, allowed_senders, created_at) VALUES (?1, ?2, ?3, '2026-11-28T00:00:00Z')",
  )
    .bind(account.accountId, token, JSON.stringify(allowed))
    .run();
  return `documents+${token}@${DOMAIN}`;
}

function base64Lines(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return (btoa(binary).match(/.{1,76}/g) ?? []).join("\r\n");
}

/** A multipart/mixed message with a text part and the given attachments. */
function mime(options: {
  from: string;
  to: string;
  subject: string;
  attachments: { filename: string; contentType: string; bytes: Uint8Array }[];
}): Uint8Array {
  const boundary = "=_boundary_42";
  const parts = [
    `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPlease find the BL attached.\r\n`,
    ...options.attachments.map(
      (a) =>
        `--${boundary}\r\nContent-Type: ${a.contentType}; name="${a.filename}"\r\nContent-Disposition: attachment; filename="${a.filename}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Lines(a.bytes)}\r\n`,
    ),
  ];
  const text = [
    `From: Shipping Desk <${options.from}>`,
    `To: ${options.to}`,
    "Cc: ops@acme-imports.com",
    `Subject: ${options.subject}`,
    "Date: Sat, 28 Nov 2026 08:14:11 +0000",
    "Message-ID: <abc123@carrier.example>",
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    "",
    `${parts.join("")}--${boundary}--\r\n`,
  ].join("\r\n");
  return new TextEncoder().encode(text);
}

/** A ForwardableEmailMessage as Email Routing hands it to the Worker, recording setReject. */
function message(from: string, to: string, raw: Uint8Array) {
  const rejected: string[] = [];
  const msg = {
    from,
    to,
    headers: new Headers(),
    raw: new Blob([raw]).stream(),
    rawSize: raw.byteLength,
    setReject: (reason: string) => {
      rejected.push(reason);
    },
    forward: async () => ({}) as never,
    reply: async () => ({}) as never,
  };
  return { msg: msg as unknown as ForwardableEmailMessage, rejected };
}

async function deliver(from: string, to: string, raw: Uint8Array): Promise<string[]> {
  const { msg, rejected } = message(from, to, raw);
  const ctx = createExecutionContext();
  await worker.email?.(msg, env, ctx);
  await waitOnExecutionContext(ctx);
  return rejected;
}

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
