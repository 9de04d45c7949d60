import { and, eq } from "drizzle-orm";
import { createDatabase, type Database } from "../db/client";
import { documentRepresentations, documents } from "../db/schema";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { deterministicId } from "../lib/ids";
import type { ResourceObject } from "../lib/jsonapi/types";
import { batchWithNotifications, type WebhookDeliveryMessage } from "../webhooks/outbox";
import { extractDocument } from "./extraction";
import { type DocumentRepresentationRow, serializeDocumentRepresentation } from "./representation-serializer";
import { type DocumentRotationMessage, isRotationMessage, runRotation } from "./rotation-job";
import { type DocumentRow, serializeDocument } from "./serializer";

/**
 * Background extraction of uploaded documents (docs/api.md §Documents "Extraction"): `POST /documents` (and each
 * e-mailed attachment) puts one message on the `document-extractions` queue; its consumer reads the file from R2, runs
 * the built-in extractor (src/documents/extraction/), and in one D1 batch stores the result as the document's
 * `document_representation` (or the failure's reason code) together with the `document.extracted` /
 * `document.extraction_failed` notifications of the account's webhooks (the outbox, src/webhooks/outbox.ts).
 */

/** Message on `document-extractions`: extract this document. `runId` makes a redelivered message idempotent. */
export interface DocumentExtractionMessage {
  documentId: string;
  accountId: string;
  /** One id per requested extraction: the representation's and the notifications' ids derive from it. */
  runId: string;
}

/** What an extraction run needs. */
export interface ExtractionDeps {
  db: Database;
  bucket: R2Bucket;
  clock: Clock;
  /** The `webhook-deliveries` producer; without one notifications wait for the cron sweep. */
  webhookQueue?: Queue<WebhookDeliveryMessage>;
}

/** Result of one run, for logs and tests. */
export type ExtractionRunResult = "extracted" | "failed" | "gone";

/**
 * Extracts one document and records the outcome (see the module comment). A document deleted meanwhile (or its file
 * gone) is skipped (`gone`). Idempotent per `runId`: the representation id and notification ids derive from it.
 */
export async function runExtraction(
  deps: ExtractionDeps,
  message: DocumentExtractionMessage,
): Promise<ExtractionRunResult> {
  const { db } = deps;
  const [document] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.accountId, message.accountId), eq(documents.id, message.documentId)))
    .limit(1);
  if (!document) return "gone";
  const object = await deps.bucket.get(document.storageKey);
  if (!object) return "gone";
  const bytes = new Uint8Array(await object.arrayBuffer());
  const outcome = await extractDocument(bytes, document.fileContentType);
  const nowIso = toIsoSeconds(deps.clock.now());
  const where = and(eq(documents.accountId, document.accountId), eq(documents.id, document.id));
  if (outcome.status === "extracted") {
    const representation: DocumentRepresentationRow = {
      id: await deterministicId(`document_representation:${message.runId}`),
      accountId: document.accountId,
      documentId: document.id,
      schemaVersion: outcome.schemaVersion,
      payload: outcome.payload as unknown as Record<string, unknown>,
      createdAt: nowIso,
      updatedAt: nowIso,
    };
    const updated: DocumentRow = {
      ...document,
      documentType: outcome.documentType,
      lastDocumentRepresentationId: representation.id,
      extractionError: null,
      updatedAt: nowIso,
    };
    await batchWithNotifications(
      db,
      deps.webhookQueue,
      [
        db.insert(documentRepresentations).values(representation).onConflictDoNothing(),
        db
          .update(documents)
          .set({
            documentType: updated.documentType,
            lastDocumentRepresentationId: representation.id,
            extractionError: null,
            updatedAt: nowIso,
          })
          .where(where),
      ],
      { accountId: document.accountId, events: ["document.extracted"], nowIso },
      async () => [
        draft(updated, "document.extracted", message.runId, nowIso, [
          serializeDocument(updated),
          serializeDocumentRepresentation(representation),
        ]),
      ],
    );
    return "extracted";
  }
  const updated: DocumentRow = { ...document, extractionError: outcome.reason, updatedAt: nowIso };
  await batchWithNotifications(
    db,
    deps.webhookQueue,
    [db.update(documents).set({ extractionError: outcome.reason, updatedAt: nowIso }).where(where)],
    { accountId: document.accountId, events: ["document.extraction_failed"], nowIso },
    async () => [draft(updated, "document.extraction_failed", message.runId, nowIso, [serializeDocument(updated)])],
  );
  return "failed";
}

function draft(document: DocumentRow, event: string, runId: string, nowIso: string, included: ResourceObject[]) {
  return {
    accountId: document.accountId,
    event,
    reference: { type: "document", id: document.id },
    dedupKey: `${event}:${runId}`,
    createdAt: nowIso,
    included: () => included,
  };
}

/** What the `document-extractions` queue carries: extractions and rotations (src/documents/rotation-job.ts). */
export type DocumentQueueMessage = DocumentExtractionMessage | DocumentRotationMessage;

/**
 * The `document-extractions` consumer: each message is run on its own (an extraction, or a rotation when
 * `kind` is `rotate`); one that throws (D1 or R2 unavailable) is retried after 30 s, the others are acknowledged.
 */
export async function consumeDocumentExtractions(batch: MessageBatch<DocumentQueueMessage>, env: Env): Promise<void> {
  const deps: ExtractionDeps = {
    db: createDatabase(env.DB),
    bucket: env.DOCUMENTS_BUCKET,
    clock: systemClock,
    webhookQueue: env.WEBHOOK_DELIVERIES_QUEUE,
  };
  for (const message of batch.messages) {
    try {
      const body = message.body;
      if (isRotationMessage(body)) await runRotation(deps, body);
      else await runExtraction(deps, body);
      message.ack();
    } catch (err) {
      console.error("document extraction failed; retrying", message.body.documentId, String(err));
      message.retry({ delaySeconds: 30 });
    }
  }
}
