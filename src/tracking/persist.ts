import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { ContainerRow } from "../containers/serializer";
import { carriedCustomFieldStatements } from "../custom-fields/initial";
import type { Database } from "../db/client";
import { placeholder, shaped } from "../db/query-shapes";
import { runShaped } from "../db/read-batch";
import { containers, shipments, subscriptions, trackedEquipment, trackingRequests } from "../db/schema";
import { toIsoSeconds } from "../lib/clock";
import { bumpCount } from "../lib/counts";
import { deterministicId } from "../lib/ids";
import { ownedBy } from "../lib/tenant";
import { equipmentFromSizeType } from "../reference/equipment";
import { findPortByLocode, resolveTerminal } from "../reference/locations";
import { loadShipmentViews, type ShipmentView } from "../shipments/serializer";
import type { TrackingRequestRow } from "../tracking-requests/serializer";
import {
  batchWithNotifications,
  batchWithNotificationsOfAccounts,
  type NotificationDraft,
  type WebhookDeliveryMessage,
} from "../webhooks/outbox";
import { type TrackingRequestEvent, trackingRequestIncluded } from "../webhooks/payloads";
import type { ShipmentFacts } from "./sources/types";

/**
 * How long a consumer holds a tracking request while it looks it up (seconds): the carrier lookup's own timeouts
 * (30 s, `SOURCE_TIMEOUT_MS`) plus the writes and Tracker calls after it, with room to spare. While held, another
 * message for the request is dropped (the holder schedules what comes next); when the holder dies, the request is due
 * again at the end of the hold and the every-minute repair re-queues it (src/tracking/maintenance.ts).
 */
export const LOOKUP_HOLD_S = 60;

/** A delayed message may arrive this early (seconds) and still find its request due. */
const DUE_TOLERANCE_S = 5;

/** What {@link claimLookups} took: the request as the claim left it, and the hold to give back on failure. */
export interface LookupHold {
  request: TrackingRequestRow;
  /** `next_attempt_at` while held (UTC ISO seconds): the hold's end. */
  heldUntil: string;
  /** When the hold was taken (UTC ISO seconds): where {@link releaseLookup} puts `next_attempt_at` back. */
  takenAt: string;
}

/** A tracking request a queue message names: its id and the account the message says it belongs to. */
export interface LookupTarget {
  trackingRequestId: string;
  accountId: string;
}

/**
 * Reads the tracking requests `targets` names and takes them for one lookup each at `nowMs` (issue 23 §3), in one
 * `UPDATE … RETURNING` for all of them (issue 29 §4: a consumer batch holds up to 10 messages): a request of the
 * message's own account, still pending or awaiting its manifest, whose `next_attempt_at` is unset or due (within
 * {@link DUE_TOLERANCE_S}) gets `next_attempt_at` = now + `holdS`. `updated_at` is left alone: holding is not a change
 * the API shows. A target named twice is claimed once. All targets must be in `db` (their accounts' shard).
 * @param holdS how long the hold lasts (seconds): {@link LOOKUP_HOLD_S} per lookup that may run before the last of
 *   the batch's ends (the caller's concurrency).
 * @returns one hold per request taken, in no particular order; a target missing from it is no such request (or not
 *   of that account), held by another consumer, not due yet (a duplicate message: the due one comes later) or no
 *   longer waiting for a lookup.
 */
export async function claimLookups(
  db: Database,
  targets: readonly LookupTarget[],
  nowMs: number,
  holdS: number = LOOKUP_HOLD_S,
): Promise<LookupHold[]> {
  const distinct = [...new Map(targets.map((t) => [`${t.trackingRequestId}\u0000${t.accountId}`, t])).values()];
  if (distinct.length === 0) return [];
  const heldUntil = toIsoSeconds(nowMs + holdS * 1000);
  const due = toIsoSeconds(nowMs + DUE_TOLERANCE_S * 1000);
  const values: Record<string, string> = { heldUntil, due };
  distinct.forEach((t, i) => {
    values[`id${i}`] = t.trackingRequestId;
    values[`accountId${i}`] = t.accountId;
  });
  // A query shape per number of requests (src/db/query-shapes.ts): every message of the consumer runs one, so it is
  // built once. Only the ids are index terms: SQLite (no ANALYZE in D1) would otherwise take the account's or the
  // status index and read every request of the account, or every pending one (test/tracking/lookup-batch.test.ts).
  // With `+account_id` and `+status` it runs the OR as one primary-key lookup per request.
  const claim = shaped(
    db,
    `tracking_request.claim_lookups:${distinct.length}`,
    () => [
      db
        .update(trackingRequests)
        .set({ nextAttemptAt: placeholder("heldUntil") as unknown as string })
        .where(
          and(
            or(
              ...distinct.map((_, i) =>
                and(
                  eq(trackingRequests.id, placeholder(`id${i}`)),
                  ownedBy(trackingRequests.accountId, placeholder(`accountId${i}`)),
                ),
              ),
            ),
            sql`+${trackingRequests.status} IN ('pending', 'awaiting_manifest')`,
            or(isNull(trackingRequests.nextAttemptAt), lte(trackingRequests.nextAttemptAt, placeholder("due"))),
          ),
        )
        .returning(),
    ],
    values,
  );
  const [rows] = await runShaped(db, [claim]);
  const takenAt = toIsoSeconds(nowMs);
  return ((rows ?? []) as TrackingRequestRow[]).map((request) => ({ request, heldUntil, takenAt }));
}

/**
 * Gives back a hold taken by {@link claimLookups} whose lookup threw, so the message's retry (in 30 s and more) finds
 * the request due: `next_attempt_at` becomes the moment the hold was taken, if the hold is still this one. Never
 * throws (the lookup's own error is what the caller reports; an expired hold is due anyway).
 */
export async function releaseLookup(db: Database, hold: LookupHold): Promise<void> {
  try {
    await db
      .update(trackingRequests)
      .set({ nextAttemptAt: hold.takenAt })
      .where(and(eq(trackingRequests.id, hold.request.id), eq(trackingRequests.nextAttemptAt, hold.heldUntil)));
  } catch (err) {
    console.error("tracking-requests: could not release a lookup hold", hold.request.id, String(err));
  }
}

/** A container row created for a lookup, with what its Tracker needs. */
export interface CreatedContainer {
  containerId: string;
  number: string;
  trackedEquipmentId: string;
}

/** The rows a successful lookup produced. */
export interface LookupRows {
  shipmentId: string;
  containers: CreatedContainer[];
  /** False when a previous delivery of the same message had already written them. */
  created: boolean;
}

/**
 * Writes the rows a successful lookup needs before its Trackers take over (docs/architecture.md §Tracking pipeline step
 * 2): the shipment, one container row per box (the Tracker fills in its state), the shared `tracked_equipment` row
 * of each box, the account's subscriptions and counts, and the request's custom field values carried to the new
 * shipment and containers, in one D1 batch. Ids are derived from the tracking
 * request (and the container number), so a redelivered message finds the rows instead of writing them twice.
 * `db` is the account's shard (issue 29 §3). With `primary` (an account on another shard than the primary), the
 * `tracked_equipment` rows are first written to the primary, the one the Trackers and the cron use, and the batch
 * writes a copy of them to the shard, where they only anchor the `subscriptions` rows' foreign key.
 */
export async function writeLookupRows(
  db: Database,
  request: TrackingRequestRow,
  facts: ShipmentFacts,
  now: string,
  primary: Database | null = null,
): Promise<LookupRows> {
  const shipmentId = await deterministicId(`shipment:${request.id}`);
  const scac = request.lineScac ?? request.scac ?? "";
  const boxes = await Promise.all(
    facts.containers.map(async (c) => ({
      facts: c,
      containerId: await deterministicId(`container:${request.id}:${c.number}`),
      trackedEquipmentId: await deterministicId(`tracked_equipment:${scac}:${c.number}`),
      subscriptionId: await deterministicId(`subscription:${request.id}:${c.number}`),
    })),
  );
  const result: LookupRows = {
    shipmentId,
    containers: boxes.map((b) => ({
      containerId: b.containerId,
      number: b.facts.number,
      trackedEquipmentId: b.trackedEquipmentId,
    })),
    created: false,
  };
  const [existing] = await db.select({ id: shipments.id }).from(shipments).where(eq(shipments.id, shipmentId)).limit(1);
  if (existing) return result;

  const pol = findPortByLocode(facts.portOfLadingLocode);
  const pod = findPortByLocode(facts.portOfDischargeLocode);
  const destination = findPortByLocode(facts.destinationLocode);
  const podTerminal = resolveTerminal(facts.podTerminalCode, facts.portOfDischargeLocode);
  const destinationTerminal = resolveTerminal(facts.destinationTerminalCode, facts.destinationLocode);
  const shipmentRow: typeof shipments.$inferInsert = {
    id: shipmentId,
    accountId: request.accountId,
    billOfLadingNumber: request.requestType === "container" ? facts.billOfLadingNumber : request.requestNumber,
    normalizedNumber: request.normalizedNumber,
    refNumbers: request.refNumbers,
    tags: request.shipmentTags,
    shippingLineScac: scac,
    customerId: request.customerId,
    portOfLadingId: pol?.id ?? null,
    portOfLadingLocode: facts.portOfLadingLocode,
    portOfLadingName: pol?.name ?? null,
    portOfDischargeId: pod?.id ?? null,
    portOfDischargeLocode: facts.portOfDischargeLocode,
    portOfDischargeName: pod?.name ?? null,
    podTerminalId: podTerminal?.id ?? null,
    destinationId: destination?.id ?? null,
    destinationLocode: facts.destinationLocode,
    destinationName: destination?.name ?? null,
    destinationTerminalId: destinationTerminal?.id ?? null,
    podVesselName: facts.podVesselName,
    podVesselImo: facts.podVesselImo,
    podVoyageNumber: facts.podVoyageNumber,
    polEtdAt: facts.polEtdAt,
    polAtdAt: facts.polAtdAt,
    polOriginalEtdAt: facts.polEtdAt,
    podEtaAt: facts.podEtaAt,
    podOriginalEtaAt: facts.podEtaAt,
    podAtaAt: facts.podAtaAt,
    destinationEtaAt: facts.destinationEtaAt ?? null,
    destinationOriginalEtaAt: facts.destinationEtaAt ?? null,
    destinationAtaAt: facts.destinationAtaAt ?? null,
    polTimezone: pol?.timeZone ?? null,
    podTimezone: pod?.timeZone ?? podTerminal?.timeZone ?? null,
    destinationTimezone: destination?.timeZone ?? null,
    lineTrackingLastAttemptedAt: now,
    lineTrackingLastSucceededAt: now,
    createdAt: now,
    updatedAt: now,
  };
  const equipmentRows = (into: Database) =>
    boxes.map((b) =>
      into
        .insert(trackedEquipment)
        .values({
          id: b.trackedEquipmentId,
          scac,
          number: b.facts.number,
          shipmentNumber: request.requestType === "container" ? b.facts.number : request.normalizedNumber,
          requestType: request.requestType,
          createdAt: now,
        })
        .onConflictDoNothing(),
    );
  if (primary) {
    const [first, ...rest] = equipmentRows(primary);
    if (first) await primary.batch([first, ...rest]);
  }
  const statements = [
    db.insert(shipments).values(shipmentRow),
    ...boxes.map((b) => {
      const equipment = equipmentFromSizeType(b.facts.sizeTypeCode ?? null);
      return db.insert(containers).values({
        id: b.containerId,
        accountId: request.accountId,
        shipmentId,
        trackedEquipmentId: b.trackedEquipmentId,
        number: b.facts.number,
        sealNumber: b.facts.sealNumber,
        equipmentType: equipment?.equipmentType ?? b.facts.equipmentType,
        equipmentLength: equipment?.equipmentLength ?? b.facts.equipmentLength,
        equipmentHeight: equipment?.equipmentHeight ?? b.facts.equipmentHeight,
        weightInLbs: b.facts.weightInLbs,
        currentStatus: "new",
        podTerminalId: podTerminal?.id ?? null,
        podLocode: facts.portOfDischargeLocode,
        podTimezone: shipmentRow.podTimezone ?? null,
        scac,
        createdAt: now,
        updatedAt: now,
      });
    }),
    ...equipmentRows(db),
    ...boxes.map((b) =>
      db.insert(subscriptions).values({
        id: b.subscriptionId,
        accountId: request.accountId,
        trackedEquipmentId: b.trackedEquipmentId,
        containerId: b.containerId,
        createdAt: now,
      }),
    ),
    bumpCount(db, request.accountId, "shipment", 1),
    bumpCount(db, request.accountId, "container", boxes.length),
    // The request's custom field values and `initial_custom_fields`, onto the new rows (docs/api.md §Custom fields).
    ...(await carriedCustomFieldStatements(db, request, shipmentId, result.containers, now)),
  ];
  await db.batch(statements as unknown as Parameters<typeof db.batch>[0]);
  return { ...result, created: true };
}

/**
 * The notification draft of a `tracking_request.*` event (docs/webhooks.md §Payloads): reference object the request,
 * `included` per `trackingRequestIncluded`. `request` is the row after the change. One per request and event;
 * `occurrence` distinguishes events that can happen more than once to a request (`tracking_stopped` after a resume).
 */
export function trackingRequestDraft(
  event: TrackingRequestEvent,
  request: TrackingRequestRow,
  related: { shipment?: ShipmentView | null; containers?: ContainerRow[] },
  nowIso: string,
  occurrence = "",
): NotificationDraft {
  return {
    accountId: request.accountId,
    event,
    reference: { id: request.id, type: "tracking_request" },
    dedupKey: `${event}:${request.id}${occurrence ? `:${occurrence}` : ""}`,
    createdAt: nowIso,
    included: () => trackingRequestIncluded(event, request, related.shipment ?? null, related.containers ?? []),
  };
}

/**
 * Marks the request `created` with its `tracked_object`, unless it already left `pending`/`awaiting_manifest`, and
 * announces `tracking_request.succeeded` (with the shipment and its containers as the Trackers left them) in the same
 * D1 batch (docs/decisions.md §Webhooks). `db` is the account's shard; `shard` its number, carried in the queue
 * messages (omitted: the delivery consumer looks the notification up).
 */
export async function markRequestCreated(
  db: Database,
  queue: Queue<WebhookDeliveryMessage>,
  request: TrackingRequestRow,
  shipmentId: string,
  now: string,
  shard?: number,
): Promise<void> {
  const after: TrackingRequestRow = {
    ...request,
    status: "created",
    failedReason: null,
    isRetrying: false,
    shipmentId,
    updatedAt: now,
  };
  await batchWithNotifications(
    db,
    queue,
    [
      db
        .update(trackingRequests)
        .set({ status: "created", failedReason: null, isRetrying: false, shipmentId, updatedAt: now })
        .where(
          and(
            eq(trackingRequests.id, request.id),
            eq(trackingRequests.accountId, request.accountId),
            inArray(trackingRequests.status, ["pending", "awaiting_manifest"]),
          ),
        ),
    ],
    { accountId: request.accountId, events: ["tracking_request.succeeded"], nowIso: now },
    async () => {
      const [[shipment], boxes] = await Promise.all([
        loadShipmentViews(db, request.accountId, [shipmentId]),
        db
          .select()
          .from(containers)
          .where(and(ownedBy(containers.accountId, request.accountId), eq(containers.shipmentId, shipmentId)))
          .orderBy(asc(containers.createdAt), asc(containers.id)),
      ]);
      return [trackingRequestDraft("tracking_request.succeeded", after, { shipment, containers: boxes }, now)];
    },
    shard,
  );
}

/** A request whose lookup ended in failure for good, and its `failed_reason` (docs/api.md §Tracking request status). */
export interface LookupFailure {
  request: TrackingRequestRow;
  reason: string;
}

/**
 * Marks tracking requests of one shard failed for good, each with its `failed_reason` (docs/api.md §Tracking request
 * status), and announces each `tracking_request.failed` in the same D1 batch (docs/decisions.md §Webhooks; a
 * consumer batch's failures at once, issue 29 §4, or one): every request marked failed, and every announcement, in one
 * D1 batch
 * (`batchWithNotificationsOfAccounts`: one round trip when no account of the batch has a subscribed webhook, else
 * the webhooks read first; a notification per request and subscribed webhook, written once however often the batch is
 * replayed). Atomic: when it throws nothing of it is written, and the caller may record each failure on its own.
 * @throws whatever D1 throws for the batch.
 */
export async function recordLookupFailures(
  db: Database,
  queue: Queue<WebhookDeliveryMessage>,
  failures: readonly LookupFailure[],
  now: string,
  shard?: number,
): Promise<void> {
  // `db` is the accounts' shard; `shard` its number, carried in the queue messages (omitted: the delivery consumer
  // looks the notification up).
  const [first, ...rest] = failures.map((f) => failureUpdate(db, f.request, f.reason, now));
  if (!first) return;
  await batchWithNotificationsOfAccounts(
    db,
    queue,
    [first, ...rest],
    { accountIds: failures.map((f) => f.request.accountId), events: ["tracking_request.failed"], nowIso: now },
    async (subscribed) =>
      failures
        .filter((f) => subscribed.has(f.request.accountId))
        .map((f) =>
          trackingRequestDraft(
            "tracking_request.failed",
            { ...f.request, status: "failed", failedReason: f.reason, isRetrying: false, updatedAt: now },
            {},
            now,
          ),
        ),
    shard,
  );
}

/** The UPDATE marking `request` failed with `reason` at `now` (a query shape: every failed lookup runs it). */
function failureUpdate(db: Database, request: TrackingRequestRow, reason: string, now: string) {
  return shaped(
    db,
    "tracking_request.record_failure",
    () => [
      db
        .update(trackingRequests)
        .set({
          status: "failed",
          failedReason: placeholder("reason") as unknown as string,
          isRetrying: false,
          updatedAt: placeholder("now") as unknown as string,
        })
        .where(
          and(eq(trackingRequests.id, placeholder("id")), eq(trackingRequests.accountId, placeholder("accountId"))),
        ),
    ],
    { reason, now, id: request.id, accountId: request.accountId },
  );
}
