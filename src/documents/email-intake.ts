import { eq } from "drizzle-orm";
import PostalMime, { type Address, type Attachment } from "postal-mime";
import { createDatabase, type Database } from "../db/client";
import { documentMailboxes, emailSubmissions } from "../db/schema";
import { sweptShards } from "../db/shard-sweeps";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { bumpCount } from "../lib/counts";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { discardBlob, storeBlobFromBytes } from "./blobs";
import type { DocumentExtractionMessage } from "./extraction-job";
import { isAcceptedContentType, MAX_DOCUMENT_BYTES, mediaTypeOf } from "./limits";
import { insertDocumentForBlob, requestExtraction } from "./service";

/**
 * E-mail submissions (docs/api.md §E-mail submissions; docs/configuration.md §E-mail submissions): the Worker's
 * `email()` handler receives what Cloudflare Email Routing delivers to `documents+<token>@<EMAIL_SUBMISSION_DOMAIN>`.
 * The recipient's token names the account's mailbox, and the envelope sender must be one of its allowed senders;
 * otherwise the message is refused (`setReject`) before anything is stored. An accepted message is parsed with
 * postal-mime; it becomes an `email_submission`, and each attachment of an accepted type and size a document
 * (`source: "email"`) stored in R2 and queued for extraction. Attachments already present in the account (same bytes)
 * are skipped; a message without any acceptable attachment is refused.
 */

/** Largest message accepted, bytes: the document limit plus room for MIME encoding (base64 adds a third). */
export const MAX_MESSAGE_BYTES = Math.ceil(MAX_DOCUMENT_BYTES * 1.4);

/** `documents+<token>@<domain>`: the token (lower-case letters and digits) and the domain. */
const SUBMISSION_ADDRESS = /^documents\+([a-z0-9]{16,64})@([a-z0-9.-]+)$/;

/** What the intake needs. */
export interface IntakeDeps {
  /** The primary (src/db/shards.ts), where the mailbox token is looked up first. */
  db: Database;
  /**
   * The other shards holding accounts (issue 29 §3): a token not in `db` is looked up in each; the submission is then
   * written to the shard holding the mailbox (its account's). None: a single database.
   */
  otherShards?: Database[];
  clock: Clock;
  bucket: R2Bucket;
  extractionQueue?: Queue<DocumentExtractionMessage>;
  /** `EMAIL_SUBMISSION_DOMAIN`: the only domain a submission address may have (empty: refuse every message). */
  domain: string;
}

/** The outcome of one message: accepted with the submission and document ids, or refused with the reason sent back. */
export type IntakeResult =
  | { accepted: true; submissionId: string; documentIds: string[]; skippedDuplicates: number }
  | { accepted: false; reason: string };

/** Whether `sender` (lower case) is allowed by a mailbox's list (an exact address, or `@domain`). */
export function senderAllowed(allowed: readonly string[], sender: string): boolean {
  const at = sender.lastIndexOf("@");
  const domain = at >= 0 ? sender.slice(at) : "";
  return allowed.some((entry) => entry === sender || (entry.startsWith("@") && entry === domain));
}

function addresses(list: Address[] | Address | undefined): string[] {
  const out: string[] = [];
  for (const a of list === undefined ? [] : Array.isArray(list) ? list : [list]) {
    if (a.address) out.push(a.address.toLowerCase());
    for (const m of a.group ?? []) out.push(m.address.toLowerCase());
  }
  return out;
}

function attachmentBytes(attachment: Attachment): Uint8Array {
  const content = attachment.content;
  if (typeof content === "string") return new TextEncoder().encode(content);
  return content instanceof Uint8Array ? content : new Uint8Array(content);
}

function isoOrNull(date: string | undefined): string | null {
  if (!date) return null;
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? null : toIsoSeconds(ms);
}

/**
 * Handles one received message (see the module comment). `rawSize` and `raw` are the message's; `envelopeFrom` and
 * `envelopeTo` are the SMTP envelope's (Email Routing's `message.from` / `message.to`).
 */
export async function receiveSubmission(
  intake: IntakeDeps,
  message: { envelopeFrom: string; envelopeTo: string; rawSize: number; raw: ReadableStream<Uint8Array> },
): Promise<IntakeResult> {
  let deps = intake;
  const recipient = message.envelopeTo.trim().toLowerCase();
  const match = SUBMISSION_ADDRESS.exec(recipient);
  if (!match || !deps.domain || match[2] !== deps.domain.toLowerCase()) {
    return { accepted: false, reason: "Unknown recipient." };
  }
  // The mailbox is in its account's shard: the primary first, then each other shard (one indexed read each).
  let mailbox: typeof documentMailboxes.$inferSelect | undefined;
  for (const db of [intake.db, ...(intake.otherShards ?? [])]) {
    [mailbox] = await db
      .select()
      .from(documentMailboxes)
      .where(eq(documentMailboxes.token, match[1] ?? ""))
      .limit(1);
    if (mailbox) {
      deps = { ...intake, db };
      break;
    }
  }
  if (!mailbox) return { accepted: false, reason: "Unknown recipient." };
  const sender = message.envelopeFrom.trim().toLowerCase();
  if (!senderAllowed(mailbox.allowedSenders, sender)) {
    return { accepted: false, reason: "This sender may not submit documents to this address." };
  }
  if (message.rawSize > MAX_MESSAGE_BYTES) {
    return { accepted: false, reason: `The message is larger than ${MAX_MESSAGE_BYTES} bytes.` };
  }
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(message.raw, { attachmentEncoding: "arraybuffer" });
  } catch {
    return { accepted: false, reason: "The message could not be read as MIME." };
  }
  const files = email.attachments
    .map((a) => ({
      filename: (a.filename ?? "").trim() || "attachment",
      contentType: mediaTypeOf(a.mimeType),
      bytes: attachmentBytes(a),
    }))
    .filter((f) => isAcceptedContentType(f.contentType) && f.bytes.byteLength > 0)
    .filter((f) => f.bytes.byteLength <= MAX_DOCUMENT_BYTES);
  if (files.length === 0) {
    return { accepted: false, reason: "No PDF, image or spreadsheet attachment within the size limit." };
  }
  const accountId = mailbox.accountId;
  const now = toIsoSeconds(deps.clock.now());
  const submissionId = newId();
  const contentType = email.headers.find((h) => h.key === "content-type")?.value ?? null;
  await deps.db.batch([
    deps.db.insert(emailSubmissions).values({
      id: submissionId,
      accountId,
      subject: email.subject ?? "",
      body: email.text ?? null,
      from: addresses(email.from),
      to: addresses(email.to),
      cc: addresses(email.cc),
      sentAt: isoOrNull(email.date),
      messageId: email.messageId ?? null,
      inReplyTo: email.inReplyTo ?? null,
      references: (email.references ?? "").split(/\s+/).filter((r) => r !== ""),
      contentType: contentType ? mediaTypeOf(contentType) : null,
      createdAt: now,
      updatedAt: now,
    }),
    bumpCount(deps.db, accountId, "email_submission", 1),
  ]);
  const documentIds: string[] = [];
  let skippedDuplicates = 0;
  for (const file of files) {
    const blob = await storeBlobFromBytes(deps, accountId, file);
    try {
      const document = await insertDocumentForBlob(deps, accountId, blob, {
        name: file.filename,
        source: "email",
        emailSubmissionId: submissionId,
      });
      documentIds.push(document.id);
      await requestExtraction(deps.extractionQueue, document);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) {
        await discardBlob(deps, blob);
        throw err;
      }
      skippedDuplicates++;
    }
  }
  return { accepted: true, submissionId, documentIds, skippedDuplicates };
}

/**
 * The Worker's `email()` handler (src/index.ts): {@link receiveSubmission}, refusing with `setReject(reason)`.
 */
export async function handleEmail(message: ForwardableEmailMessage, env: Env): Promise<IntakeResult> {
  const shards = await sweptShards(env);
  const result = await receiveSubmission(
    {
      db: createDatabase(env.DB),
      otherShards: shards.slice(1).map((s) => s.db),
      clock: systemClock,
      bucket: env.DOCUMENTS_BUCKET,
      extractionQueue: env.DOCUMENT_EXTRACTIONS_QUEUE,
      domain: env.EMAIL_SUBMISSION_DOMAIN ?? "",
    },
    { envelopeFrom: message.from, envelopeTo: message.to, rawSize: message.rawSize, raw: message.raw },
  );
  if (!result.accepted) message.setReject(result.reason);
  return result;
}
