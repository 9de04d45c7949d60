import { and, eq } from "drizzle-orm";
import { createDatabase, type Database } from "../db/client";
import { documentRepresentations, documents } from "../db/schema";
import { dbFor } from "../db/shards";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { deterministicId } from "../lib/ids";
import type { ResourceObject } from "../lib/jsonapi/types";
import { sourcesFor } from "../tracking/sources";
import { batchWithNotifications, type WebhookDeliveryMessage } from "../webhooks/outbox";
import { type AutoTrackDeps, autoTrackDocument } from "./auto-track";
import { type ExtractionPayload, extractDocument } from "./extraction";
import { linkDocument } from "./links";
import { referenceTokens, replaceReferencesStatements } from "./references";
import { type DocumentRepresentationRow, serializeDocumentRepresentation } from "./representation-serializer";
import { type DocumentRotationMessage, isRotationMessage, runRotation } from "./rotation-job";
import {
  type DocumentRow,
  type DocumentView,
  documentLinkageQuery,
  serializeDocument,
  withDocumentLinkage,
} from "./serializer";

/**
 * Background extraction of uploaded documents (docs/api.md §Documents "Extraction"): `POST /documents` (and each
 * e-mailed attachment) puts one message on the `document-extractions` queue; its consumer reads the file from R2, runs
 * the built-in extractor (src/documents/extraction/), and in one D1 batch stores the result as the document's
 * `document_representation` (or the failure's reason code) together with the `document.extracted` /
 * `document.extraction_failed` notifications of the account's webhooks (the outbox, src/webhooks/outbox.ts).
 */

/**
 * Message on `document-extractions`: extract this document (`kind` absent or `extract`), or only link it again from
 * its stored extraction and manual data (`relink`, `POST /documents/{id}/relink`). `runId` makes a redelivered
 * message idempotent.
 */
export interface DocumentExtractionMessage {
  documentId: string;
  accountId: string;
  /** One id per requested extraction: the representation's and the notifications' ids derive from it. */
  runId: string;
  /** What to do; absent (messages queued before links existed) is `extract`. */
  kind?: "extract" | "relink";
}

/** What an extraction run needs. */
export interface ExtractionDeps {
  db: Database;
  bucket: R2Bucket;
  clock: Clock;
  /** The `webhook-deliveries` producer; without one notifications wait for the cron sweep. */
  webhookQueue?: Queue<WebhookDeliveryMessage>;
  /** What the account's `auto_track` needs (src/documents/auto-track.ts); without it no tracking request is made. */
  autoTrack?: Omit<AutoTrackDeps, "db" | "clock">;
}

/** Result of one run, for logs and tests. */
export type ExtractionRunResult = "extracted" | "failed" | "gone" | "relinked";

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
  if (message.kind === "relink") {
    await relink(deps, document);
    return "relinked";
  }
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
    const tokens = referenceTokens(outcome.payload, document.extractedDataManual);
    await batchWithNotifications(
      db,
      deps.webhookQueue,
      [
        db.insert(documentRepresentations).values(representation).onConflictDoNothing(),
        ...replaceReferencesStatements(db, document, tokens, nowIso),
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
          serializeDocument(await withLinks(db, updated)),
          serializeDocumentRepresentation(representation),
        ]),
      ],
    );
    // After the tokens are committed (docs/documents.md §Links: each side reads after its own write).
    await linkAndTrack(deps, updated, outcome.payload, nowIso);
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

/** The document with the links it has now (as the notification's `included` shows it). */
async function withLinks(db: Database, row: DocumentRow): Promise<DocumentView> {
  const [view] = withDocumentLinkage([row], await documentLinkageQuery(db, row.accountId, [row.id]));
  return view ?? row;
}

/**
 * `POST /documents/{id}/relink` (docs/documents.md §Links): the document's tokens are read again from its newest
 * extraction payload and its `extracted_data_manual`, replaced, and linking runs again (new links are announced;
 * links no token supports any more are removed).
 */
async function relink(deps: ExtractionDeps, document: DocumentRow): Promise<void> {
  const { db } = deps;
  const nowIso = toIsoSeconds(deps.clock.now());
  let payload: ExtractionPayload | null = null;
  if (document.lastDocumentRepresentationId) {
    const [representation] = await db
      .select({ payload: documentRepresentations.payload })
      .from(documentRepresentations)
      .where(
        and(
          eq(documentRepresentations.accountId, document.accountId),
          eq(documentRepresentations.id, document.lastDocumentRepresentationId),
        ),
      )
      .limit(1);
    payload = (representation?.payload as unknown as ExtractionPayload | undefined) ?? null;
  }
  const tokens = referenceTokens(payload, document.extractedDataManual);
  await db.batch(replaceReferencesStatements(db, document, tokens, nowIso));
  await linkAndTrack(deps, document, payload, nowIso);
}

/**
 * Links the document (its tokens are committed), then, when the account's `auto_track` is on, makes the tracking
 * requests of its numbers not tracked yet, with the document's SCAC (`shipping_line_scac` of the manual data, else the
 * payload's), else `infer_number`'s (docs/documents.md §Tracking from documents).
 */
async function linkAndTrack(
  deps: ExtractionDeps,
  document: DocumentRow,
  payload: ExtractionPayload | null,
  nowIso: string,
): Promise<void> {
  const { db } = deps;
  await linkDocument({ db, nowIso, webhookQueue: deps.webhookQueue }, document.accountId, document.id);
  if (!deps.autoTrack) return;
  const manualScac = document.extractedDataManual?.shipping_line_scac;
  const scac =
    (typeof manualScac === "string" && manualScac.trim() ? manualScac : null) ??
    payload?.shipping_line_scac?.value ??
    null;
  const outcome = await autoTrackDocument({ ...deps.autoTrack, db, clock: deps.clock }, document, scac);
  if (outcome.created.length > 0 || outcome.skipped.length > 0) {
    console.log("documents: auto_track", document.id, JSON.stringify(outcome));
  }
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
 * `kind` is `rotate`), on the shard of its account (`dbFor`); one that throws (D1 or R2 unavailable) is retried after 30 s, the others are acknowledged.
 */
export async function consumeDocumentExtractions(batch: MessageBatch<DocumentQueueMessage>, env: Env): Promise<void> {
  const base: ExtractionDeps = {
    db: createDatabase(env.DB),
    bucket: env.DOCUMENTS_BUCKET,
    clock: systemClock,
    webhookQueue: env.WEBHOOK_DELIVERIES_QUEUE,
    autoTrack: { trackingQueue: env.TRACKING_REQUESTS_QUEUE, supportedScacs: sourcesFor(env).supportedScacs },
  };
  for (const message of batch.messages) {
    try {
      const body = message.body;
      // The document is in its account's shard (issue 29 §3).
      const deps: ExtractionDeps = { ...base, db: await dbFor(env, body.accountId) };
      if (isRotationMessage(body)) await runRotation(deps, body);
      else await runExtraction(deps, body);
      message.ack();
    } catch (err) {
      console.error("document extraction failed; retrying", message.body.documentId, String(err));
      message.retry({ delaySeconds: 30 });
    }
  }
}
