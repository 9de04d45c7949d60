import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import type { TestAccount } from "./api";

// E-mail submissions for tests: a mailbox row, a multipart MIME message with attachments, and delivery through the
// Worker's email() handler as Email Routing hands a message to it.

/** The inbound domain of the test mailboxes. */
export const EMAIL_DOMAIN = "inbound.example.com";

/** Creates a document mailbox for `account` accepting `allowed` senders; returns its address. */
export async function createMailbox(account: TestAccount, allowed: string[]): Promise<string> {
  const token = crypto.randomUUID().replaceAll("-", "");
  await env.DB.prepare(
    "INSERT INTO document_mailboxes (account_id, token, allowed_senders, created_at) VALUES (?1, ?2, ?3, '2026-11-28T00:00:00Z')",
  )
    .bind(account.accountId, token, JSON.stringify(allowed))
    .run();
  return `documents+${token}@${EMAIL_DOMAIN}`;
}

function base64Lines(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return (btoa(binary).match(/.{1,76}/g) ?? []).join("\r\n");
}

/** An attachment of {@link mimeMessage}. */
export interface Attachment {
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

/**
 * A multipart/mixed message from `from` to `to` with a short text part (`text`) and `attachments`; `cc` and
 * `messageId` set those headers (a random Message-ID when absent).
 */
export function mimeMessage(options: {
  from: string;
  to: string;
  subject: string;
  attachments: Attachment[];
  cc?: string;
  messageId?: string;
  text?: string;
}) {
  const boundary = "=_boundary_test";
  const parts = [
    `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${options.text ?? "Please find the documents attached."}\r\n`,
    ...options.attachments.map(
      (a) =>
        `--${boundary}\r\nContent-Type: ${a.contentType}; name="${a.filename}"\r\nContent-Disposition: attachment; filename="${a.filename}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Lines(a.bytes)}\r\n`,
    ),
  ];
  return new TextEncoder().encode(
    [
      `From: Shipping Desk <${options.from}>`,
      `To: ${options.to}`,
      ...(options.cc ? [`Cc: ${options.cc}`] : []),
      `Subject: ${options.subject}`,
      "Date: Sat, 28 Nov 2026 08:14:11 +0000",
      `Message-ID: <${options.messageId ?? `${crypto.randomUUID()}@carrier.example`}>`,
      "MIME-Version: 1.0",
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      "",
      `${parts.join("")}--${boundary}--\r\n`,
    ].join("\r\n"),
  );
}

/** Hands a message to the Worker's email() handler as Email Routing would; returns the reasons it was refused for. */
export async function deliverEmail(from: string, to: string, raw: Uint8Array): Promise<string[]> {
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
  const ctx = createExecutionContext();
  await worker.email?.(msg as unknown as ForwardableEmailMessage, env, ctx);
  await waitOnExecutionContext(ctx);
  return rejected;
}
