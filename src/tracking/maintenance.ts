import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { containers, shipments, trackedEquipment, trackingRequests } from "../db/schema";
import { sweptShards } from "../db/shard-sweeps";
import { primaryDb } from "../db/shards";
import { type OrphanSweepReport, sweepOrphanDocumentFiles } from "../documents/orphans";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { ownedBy } from "../lib/tenant";
import { loadShipmentViews } from "../shipments/serializer";
import type { TrackingRequestRow } from "../tracking-requests/serializer";
import {
  batchWithNotifications,
  enqueueNotifications,
  loadActiveWebhooks,
  notificationInserts,
} from "../webhooks/outbox";
import { dropExpiredWebhookSecrets, sweepWebhookOutbox } from "../webhooks/outbox-sweep";
import { AWAITING_MANIFEST_TTL_MS } from "./consumers";
import { trackingRequestDraft } from "./persist";
import { trackerName } from "./tracker-state";

/** Rows each maintenance step handles per run, so one cron invocation stays short. */
const BATCH = 100;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/**
 * A tracking request this long past its `next_attempt_at` (or, never tried, past its `updated_at`) has lost its
 * message, or the consumer holding it died (seconds; issue 23 §3). Its message is sent again and `next_attempt_at`
 * set to now, so the next run re-queues it only if that message is lost too. A message that was only slow is harmless:
 * the consumer's hold (`claimLookups`, src/tracking/persist.ts) lets one lookup run at a time and drops the other
 * message. With the 60 s hold (`LOOKUP_HOLD_S`) and the every-minute cron, a request a crash interrupted resumes at
 * most 60 + 30 + 60 s after its lookup started; one whose message was lost, at most 90 s after it was sent.
 */
export const LOST_LOOKUP_GRACE_S = 30;
/** Tracking stops this long after arrival without a pickup, or without any update (docs/decisions.md). */
export const STOP_AFTER_MS = 56 * DAY_MS;

/** Reasons a shipment stops being tracked (docs/api.md §Shipment resource `line_tracking_stopped_reason`). */
export type StopReason =
  | "all_containers_terminated"
  | "past_arrival_window"
  | "no_updates_at_line"
  | "cancelled_by_user";

/** What one maintenance run did (counts), for logs and tests. */
export interface MaintenanceReport {
  alarmsRearmed: number;
  requestsRequeued: number;
  requestsExpired: number;
  shipmentsStopped: number;
  /** Webhook notifications whose message was lost, put back on `webhook-deliveries`. */
  notificationsRequeued: number;
  /** Document blobs never made a document, and R2 objects without a row, deleted (src/documents/orphans.ts). */
  orphanDocumentFiles?: OrphanSweepReport;
}

/**
 * Stops tracking a shipment of an account (docs/decisions.md §Tracking requests): sets
 * `line_tracking_stopped_at/_reason`, moves its `created` tracking requests to `tracking_stopped` (announcing
 * `tracking_request.tracking_stopped` for each in the same D1 batch, docs/decisions.md §Webhooks), and detaches its
 * containers from their Trackers (a box nobody follows any more stops polling). Idempotent.
 * @param env `WEBHOOK_DELIVERIES_QUEUE` is optional: without it the notifications wait for the cron sweep.
 * @param db the account's shard (src/db/shards.ts); `shard` its number, carried in the queue messages (omitted: the
 *   delivery consumer looks the notifications up).
 */
export async function stopShipmentTracking(
  env: Pick<Env, "DB" | "TRACKER"> & Partial<Pick<Env, "WEBHOOK_DELIVERIES_QUEUE">>,
  db: Database,
  accountId: string,
  shipmentId: string,
  reason: StopReason,
  nowMs: number,
  shard?: number,
): Promise<void> {
  const now = toIsoSeconds(nowMs);
  const boxes = await db
    .select({ id: containers.id, scac: containers.scac, number: containers.number })
    .from(containers)
    .where(and(ownedBy(containers.accountId, accountId), eq(containers.shipmentId, shipmentId)));
  await batchWithNotifications(
    db,
    env.WEBHOOK_DELIVERIES_QUEUE,
    [
      db
        .update(shipments)
        .set({ lineTrackingStoppedAt: now, lineTrackingStoppedReason: reason, updatedAt: now })
        .where(
          and(
            ownedBy(shipments.accountId, accountId),
            eq(shipments.id, shipmentId),
            isNull(shipments.lineTrackingStoppedAt),
          ),
        ),
      db
        .update(trackingRequests)
        .set({ status: "tracking_stopped", updatedAt: now })
        .where(
          and(
            ownedBy(trackingRequests.accountId, accountId),
            eq(trackingRequests.shipmentId, shipmentId),
            eq(trackingRequests.status, "created"),
          ),
        ),
    ],
    { accountId, events: ["tracking_request.tracking_stopped"], nowIso: now },
    async () => {
      const [[view], stopping] = await Promise.all([
        loadShipmentViews(db, accountId, [shipmentId]),
        db
          .select()
          .from(trackingRequests)
          .where(
            and(
              ownedBy(trackingRequests.accountId, accountId),
              eq(trackingRequests.shipmentId, shipmentId),
              eq(trackingRequests.status, "created"),
            ),
          ),
      ]);
      const shipment = view
        ? {
            ...view,
            lineTrackingStoppedAt: view.lineTrackingStoppedAt ?? now,
            lineTrackingStoppedReason: view.lineTrackingStoppedReason ?? reason,
            updatedAt: now,
          }
        : null;
      return stopping.map((r) =>
        trackingRequestDraft(
          "tracking_request.tracking_stopped",
          { ...r, status: "tracking_stopped", updatedAt: now },
          { shipment },
          now,
          now,
        ),
      );
    },
    shard,
  );
  for (const box of boxes) {
    if (!box.scac) continue;
    await env.TRACKER.get(env.TRACKER.idFromName(trackerName(box.scac, box.number))).unsubscribe(box.id);
  }
}

/**
 * The every-minute repair job (docs/architecture.md §Cron): re-arms Trackers whose poll is overdue (a lost alarm),
 * re-queues tracking requests whose next lookup is {@link LOST_LOOKUP_GRACE_S} overdue (a lost message, or a consumer
 * that died holding it), expires requests awaiting their
 * manifest for more than 7 days, and stops tracking shipments whose containers were all returned empty, that
 * arrived 56 days ago with a container never picked up, or that had no update for 56 days, and re-queues webhook
 * notifications whose queue message was lost (`sweepWebhookOutbox`), and clears rotated-away webhook secrets whose
 * grace period ended (`dropExpiredWebhookSecrets`), and deletes document files nobody can reach after 24 hours
 * (`sweepOrphanDocumentFiles`, src/documents/orphans.ts). The overdue boxes are read from the primary (tracked
 * equipment); every step over account rows walks every shard (issue 29 §3), bounded per shard.
 */
export async function runMaintenance(env: Env, clock: Clock = systemClock): Promise<MaintenanceReport> {
  const db = primaryDb(env);
  const nowMs = clock.now();
  const report: MaintenanceReport = {
    alarmsRearmed: 0,
    requestsRequeued: 0,
    requestsExpired: 0,
    shipmentsStopped: 0,
    notificationsRequeued: 0,
  };

  const overdueBoxes = await db
    .select({ scac: trackedEquipment.scac, number: trackedEquipment.number })
    .from(trackedEquipment)
    .where(
      and(isNull(trackedEquipment.stoppedAt), lt(trackedEquipment.nextPollAt, toIsoSeconds(nowMs - 2 * MINUTE_MS))),
    )
    .orderBy(trackedEquipment.nextPollAt)
    .limit(BATCH);
  for (const box of overdueBoxes) {
    const rearmed = await env.TRACKER.get(env.TRACKER.idFromName(trackerName(box.scac, box.number))).ensureAlarm(nowMs);
    if (rearmed) report.alarmsRearmed++;
  }

  const shards = await sweptShards(env);
  for (const { shard, db: shardDb } of shards) {
    report.requestsExpired += await expireAwaitingManifest(env, shardDb, nowMs, shard);
    await requeueAndStop(env, shardDb, shard, nowMs, report);
  }

  report.notificationsRequeued = await sweepWebhookOutbox(env, nowMs);
  await dropExpiredWebhookSecrets(env, nowMs);
  if (env.DOCUMENTS_BUCKET) {
    report.orphanDocumentFiles = await sweepOrphanDocumentFiles(
      { db, bucket: env.DOCUMENTS_BUCKET, otherShards: shards.slice(1).map((s) => s.db) },
      nowMs,
    );
  }
  return report;
}

/**
 * One shard's part of {@link runMaintenance}: re-queues its lost tracking requests and stops tracking its shipments
 * past their window, {@link BATCH} of each per run; adds the counts to `report`.
 */
async function requeueAndStop(
  env: Env,
  db: Database,
  shard: number,
  nowMs: number,
  report: MaintenanceReport,
): Promise<void> {
  const stale = toIsoSeconds(nowMs - LOST_LOOKUP_GRACE_S * 1000);
  const lost = await db
    .select({ id: trackingRequests.id, accountId: trackingRequests.accountId })
    .from(trackingRequests)
    .where(
      and(
        inArray(trackingRequests.status, ["pending", "awaiting_manifest"]),
        or(
          lt(trackingRequests.nextAttemptAt, stale),
          and(isNull(trackingRequests.nextAttemptAt), lt(trackingRequests.updatedAt, stale)),
        ),
      ),
    )
    .limit(BATCH);
  for (const r of lost) {
    await env.TRACKING_REQUESTS_QUEUE.send({ trackingRequestId: r.id, accountId: r.accountId });
    report.requestsRequeued++;
  }
  if (lost.length > 0) {
    await db
      .update(trackingRequests)
      .set({ nextAttemptAt: toIsoSeconds(nowMs) })
      .where(
        inArray(
          trackingRequests.id,
          lost.map((r) => r.id),
        ),
      );
  }

  const cutoff = toIsoSeconds(nowMs - STOP_AFTER_MS);
  // Columns of the outer row are written qualified: in a select list drizzle renders `${shipments.id}` as a bare
  // "id", which inside the subqueries would mean the container's own id.
  const allReturned = sql<number>`(NOT EXISTS (SELECT 1 FROM containers c WHERE c.shipment_id = "shipments"."id" AND c.empty_terminated_at IS NULL) AND EXISTS (SELECT 1 FROM containers c WHERE c.shipment_id = "shipments"."id"))`;
  const pastArrival = sql<number>`("shipments"."pod_ata_at" IS NOT NULL AND "shipments"."pod_ata_at" < ${cutoff} AND EXISTS (SELECT 1 FROM containers c WHERE c.shipment_id = "shipments"."id" AND c.pod_full_out_at IS NULL AND c.final_destination_full_out_at IS NULL))`;
  const noUpdates = sql<number>`("shipments"."updated_at" < ${cutoff})`;
  const toStop = await db
    .select({ id: shipments.id, accountId: shipments.accountId, allReturned, pastArrival, noUpdates })
    .from(shipments)
    .where(and(isNull(shipments.lineTrackingStoppedAt), or(allReturned, pastArrival, noUpdates)))
    .limit(BATCH);
  for (const s of toStop) {
    const reason: StopReason | null = s.allReturned
      ? "all_containers_terminated"
      : s.pastArrival
        ? "past_arrival_window"
        : s.noUpdates
          ? "no_updates_at_line"
          : null;
    if (!reason) continue;
    await stopShipmentTracking(env, db, s.accountId, s.id, reason, nowMs, shard);
    report.shipmentsStopped++;
  }
}

/**
 * Fails (`expired`) the requests awaiting their manifest for more than 7 days (docs/decisions.md §Tracking requests),
 * at most `BATCH` per run and shard, announcing `tracking_request.failed` for each in the same D1 batch.
 * @returns how many requests expired.
 */
async function expireAwaitingManifest(env: Env, db: Database, nowMs: number, shard: number): Promise<number> {
  const now = toIsoSeconds(nowMs);
  const cutoff = toIsoSeconds(nowMs - AWAITING_MANIFEST_TTL_MS);
  const expiring: TrackingRequestRow[] = await db
    .select()
    .from(trackingRequests)
    .where(and(eq(trackingRequests.status, "awaiting_manifest"), lt(trackingRequests.createdAt, cutoff)))
    .limit(BATCH);
  if (expiring.length === 0) return 0;
  const targets = await loadActiveWebhooks(
    db,
    expiring.map((r) => r.accountId),
  );
  const drafts = expiring.map((r) =>
    trackingRequestDraft(
      "tracking_request.failed",
      { ...r, status: "failed", failedReason: "expired", isRetrying: false, updatedAt: now },
      {},
      now,
    ),
  );
  const outbox = await notificationInserts(db, targets, drafts, now);
  const ids = expiring.map((r) => r.id);
  await db.batch([
    db
      .update(trackingRequests)
      .set({ status: "failed", failedReason: "expired", isRetrying: false, updatedAt: now })
      .where(
        and(
          inArray(trackingRequests.id, ids),
          eq(trackingRequests.status, "awaiting_manifest"),
          lt(trackingRequests.createdAt, cutoff),
        ),
      ),
    ...outbox.statements,
  ]);
  await enqueueNotifications(env.WEBHOOK_DELIVERIES_QUEUE, outbox.ids, undefined, shard);
  return expiring.length;
}
