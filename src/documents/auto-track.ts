import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { documentLinks, documentReferences, trackingRequests } from "../db/schema";
import { inferNumber } from "../infer/service";
import type { Clock } from "../lib/clock";
import { ApiError } from "../lib/errors";
import type { TrackingRequestMessage } from "../tracking-requests/queue-message";
import { createTrackingRequest } from "../tracking-requests/service";
import type { ReferenceKind } from "./references";
import { autoTrackEnabled } from "./settings";

/**
 * Tracking started from the paperwork (docs/documents.md §Tracking from documents): when the account's `auto_track`
 * setting is on, an extracted (or relinked) document's BL, booking and container numbers that are not tracked yet
 * become tracking requests, made by the service `POST /tracking_requests` uses (same validation, same queue). The
 * lookup then creates the shipment, and the document is linked to it (src/documents/links.ts). What happened to each
 * number is kept on its `document_references` row: the tracking request made, or why none was.
 */

/** What auto-tracking needs: the tracking-request service's dependencies. */
export interface AutoTrackDeps {
  db: Database;
  clock: Clock;
  /** The `tracking-requests` producer. */
  trackingQueue: Pick<Queue<TrackingRequestMessage>, "send">;
  /** SCACs with a configured source (`sourcesFor(env).supportedScacs`). */
  supportedScacs: Set<string>;
}

/** Reasons a number was not tracked (`document_references.auto_track_skipped_reason`). */
export type AutoTrackSkipReason =
  /** Neither the document nor `infer_number` (at `auto_select`) names the number's shipping line. */
  | "shipping_line_undetermined"
  /** Another number of the document (a BL before a booking, either before the boxes) is tracked: it covers this one. */
  | "covered_by_other_number"
  /** `POST /tracking_requests` refused it: its error code follows (`not_supported`, `duplicate`, `invalid` …). */
  | `tracking_request_refused:${string}`;

/** Request types by token kind, in the order numbers are tried (one shipment per BL; boxes only without one). */
const REQUEST_TYPE: readonly (readonly [ReferenceKind, "bill_of_lading" | "booking" | "container"])[] = [
  ["bill_of_lading", "bill_of_lading"],
  ["booking", "booking"],
  ["container", "container"],
];

/** Statuses of a tracking request that is live for a number: it is (or will be) tracked. */
const LIVE = ["pending", "awaiting_manifest", "created"];

/** What one run did, for logs and tests. */
export interface AutoTrackOutcome {
  /** Tracking request ids created. */
  created: string[];
  /** Numbers skipped, with why. */
  skipped: { value: string; reason: AutoTrackSkipReason }[];
}

/** The SCAC `infer_number` selects for `number` (decision `auto_select`), or null. */
async function inferredScac(db: Database, number: string): Promise<string | null> {
  try {
    const { prediction } = await inferNumber(db, number);
    return prediction.decision === "auto_select" ? (prediction.selected?.scac ?? null) : null;
  } catch {
    return null; // Not a number infer_number can classify.
  }
}

/**
 * Creates the tracking requests of a document's untracked numbers when the account's `auto_track` is on (see the
 * module comment). A number is tracked already when the document is linked through it (a shipment or container has
 * it) or a live tracking request of the account has it. Numbers are tried by kind, BLs first: once one number of a
 * kind is tracked, the numbers of the later kinds are skipped as covered. The SCAC is the document's
 * (`documentScac`), else `infer_number`'s. Never throws for a refused number; a D1 failure propagates (the queue
 * message is retried, and numbers already handled are not tried again).
 */
export async function autoTrackDocument(
  deps: AutoTrackDeps,
  document: { id: string; accountId: string },
  documentScac: string | null,
): Promise<AutoTrackOutcome> {
  const outcome: AutoTrackOutcome = { created: [], skipped: [] };
  const { db } = deps;
  if (!(await autoTrackEnabled(db, document.accountId))) return outcome;
  const [refs, links] = await db.batch([
    db
      .select()
      .from(documentReferences)
      .where(and(eq(documentReferences.accountId, document.accountId), eq(documentReferences.documentId, document.id))),
    db
      .select({ matchedValue: documentLinks.matchedValue })
      .from(documentLinks)
      .where(and(eq(documentLinks.accountId, document.accountId), eq(documentLinks.documentId, document.id))),
  ]);
  const candidates = refs.filter((r) => REQUEST_TYPE.some(([kind]) => kind === r.kind));
  if (candidates.length === 0) return outcome;
  const live = await db
    .select({ compact: trackingRequests.compactNumber })
    .from(trackingRequests)
    .where(
      and(
        // One bound JSON array (D1 binds at most 100 parameters; a manifest may name hundreds of boxes).
        sql`${trackingRequests.compactNumber} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(candidates.map((r) => r.normalizedValue))])}))`,
        inArray(trackingRequests.status, LIVE),
        eq(trackingRequests.accountId, document.accountId),
      ),
    );
  const tracked = new Set([...links.map((l) => l.matchedValue), ...live.map((r) => r.compact)]);

  let covered = false;
  for (const [kind, requestType] of REQUEST_TYPE) {
    const mine = candidates.filter((r) => r.kind === kind);
    if (mine.length === 0) continue;
    let anyTracked = false;
    for (const ref of mine) {
      const where = and(
        eq(documentReferences.documentId, ref.documentId),
        eq(documentReferences.kind, ref.kind),
        eq(documentReferences.normalizedValue, ref.normalizedValue),
      );
      if (tracked.has(ref.normalizedValue) || ref.trackingRequestId) {
        anyTracked = true;
        continue;
      }
      const skip = async (reason: AutoTrackSkipReason) => {
        outcome.skipped.push({ value: ref.value, reason });
        await db.update(documentReferences).set({ autoTrackSkippedReason: reason }).where(where);
      };
      if (covered) {
        await skip("covered_by_other_number");
        continue;
      }
      const scac = documentScac ?? (await inferredScac(db, ref.normalizedValue));
      if (!scac) {
        await skip("shipping_line_undetermined");
        continue;
      }
      try {
        const request = await createTrackingRequest(
          { db, clock: deps.clock, queue: deps.trackingQueue, supportedScacs: deps.supportedScacs },
          document.accountId,
          { requestType, requestNumber: ref.normalizedValue, scac },
        );
        outcome.created.push(request.id);
        anyTracked = true;
        tracked.add(ref.normalizedValue);
        await db
          .update(documentReferences)
          .set({ trackingRequestId: request.id, autoTrackSkippedReason: null })
          .where(and(where, isNull(documentReferences.trackingRequestId)));
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        await skip(`tracking_request_refused:${err.errors[0]?.code ?? "invalid"}`);
      }
    }
    if (anyTracked) covered = true;
  }
  return outcome;
}
