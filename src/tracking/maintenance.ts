import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { createDatabase, type Database } from "../db/client";
import { containers, shipments, trackedEquipment, trackingRequests } from "../db/schema";
import type { Env } from "../env";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { ownedBy } from "../lib/tenant";
import { AWAITING_MANIFEST_TTL_MS } from "./consumers";
import { trackerName } from "./tracker";

/** Rows each maintenance step handles per run, so one cron invocation stays short. */
const BATCH = 100;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Tracking stops this long after arrival without a pickup, or without any update (DECISIONS.md). */
export const STOP_AFTER_MS = 56 * DAY_MS;

/** Reasons a shipment stops being tracked (R §1.2 `line_tracking_stopped_reason`). */
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
}

/**
 * Stops tracking a shipment of an account (DECISIONS.md §Tracking requests): sets
 * `line_tracking_stopped_at/_reason`, moves its `created` tracking requests to `tracking_stopped`, and detaches
 * its containers from their Trackers (a box nobody follows any more stops polling). Idempotent.
 */
export async function stopShipmentTracking(
  env: Pick<Env, "DB" | "TRACKER">,
  db: Database,
  accountId: string,
  shipmentId: string,
  reason: StopReason,
  nowMs: number,
): Promise<void> {
  const now = toIsoSeconds(nowMs);
  const boxes = await db
    .select({ id: containers.id, scac: containers.scac, number: containers.number })
    .from(containers)
    .where(and(ownedBy(containers.accountId, accountId), eq(containers.shipmentId, shipmentId)));
  await db.batch([
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
  ]);
  for (const box of boxes) {
    if (!box.scac) continue;
    await env.TRACKER.get(env.TRACKER.idFromName(trackerName(box.scac, box.number))).unsubscribe(box.id);
  }
}

/**
 * The every-minute repair job (DESIGN.md §1 cron): re-arms Trackers whose poll is overdue (a lost alarm),
 * re-queues tracking requests whose next lookup is overdue (a lost message), expires requests awaiting their
 * manifest for more than 7 days, and stops tracking shipments whose containers were all returned empty, that
 * arrived 56 days ago with a container never picked up, or that had no update for 56 days.
 */
export async function runMaintenance(env: Env, clock: Clock = systemClock): Promise<MaintenanceReport> {
  const db = createDatabase(env.DB);
  const nowMs = clock.now();
  const now = toIsoSeconds(nowMs);
  const report: MaintenanceReport = { alarmsRearmed: 0, requestsRequeued: 0, requestsExpired: 0, shipmentsStopped: 0 };

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

  const expired = await db
    .update(trackingRequests)
    .set({ status: "failed", failedReason: "expired", isRetrying: false, updatedAt: now })
    .where(
      and(
        eq(trackingRequests.status, "awaiting_manifest"),
        lt(trackingRequests.createdAt, toIsoSeconds(nowMs - AWAITING_MANIFEST_TTL_MS)),
      ),
    )
    .returning({ id: trackingRequests.id });
  report.requestsExpired = expired.length;

  const stale = toIsoSeconds(nowMs - 10 * MINUTE_MS);
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
      .set({ nextAttemptAt: toIsoSeconds(nowMs + 10 * MINUTE_MS) })
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
    await stopShipmentTracking(env, db, s.accountId, s.id, reason, nowMs);
    report.shipmentsStopped++;
  }
  return report;
}
