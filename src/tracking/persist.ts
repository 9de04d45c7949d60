import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { containers, shipments, trackingRequests } from "../db/schema";
import { bumpCount } from "../lib/counts";
import { deterministicId, newId } from "../lib/ids";
import { findPortByLocode, findTerminalByCode } from "../reference/locations";
import type { TrackingRequestRow } from "../tracking-requests/serializer";
import type { ShipmentFacts } from "./sources/types";
import { deriveCurrentStatus } from "./status";

/**
 * Writes what a successful lookup found (DESIGN.md §4 step 2): the shipment, its containers (with derived
 * `current_status`), the tracking request moved to `created` with its `tracked_object`, and the account's
 * counts, in one D1 batch, so a crash leaves either all of it or none. The shipment id is derived from the
 * request id, so a second delivery of the same message fails on the primary key and writes nothing.
 * @returns the shipment id, or null when this request's shipment already exists.
 */
export async function recordLookupSuccess(
  db: Database,
  request: TrackingRequestRow,
  facts: ShipmentFacts,
  now: string,
): Promise<string | null> {
  const shipmentId = await deterministicId(`shipment:${request.id}`);
  const pol = findPortByLocode(facts.portOfLadingLocode);
  const pod = findPortByLocode(facts.portOfDischargeLocode);
  const destination = findPortByLocode(facts.destinationLocode);
  const podTerminal = findTerminalByCode(facts.podTerminalCode);
  const scac = request.lineScac ?? request.scac ?? "";
  const shipmentRow: typeof shipments.$inferInsert = {
    id: shipmentId,
    accountId: request.accountId,
    billOfLadingNumber: facts.billOfLadingNumber,
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
    podVesselName: facts.podVesselName,
    podVesselImo: facts.podVesselImo,
    podVoyageNumber: facts.podVoyageNumber,
    polEtdAt: facts.polEtdAt,
    polAtdAt: facts.polAtdAt,
    polOriginalEtdAt: facts.polEtdAt,
    podEtaAt: facts.podEtaAt,
    podOriginalEtaAt: facts.podEtaAt,
    podAtaAt: facts.podAtaAt,
    polTimezone: pol?.timeZone ?? null,
    podTimezone: pod?.timeZone ?? podTerminal?.timeZone ?? null,
    destinationTimezone: destination?.timeZone ?? null,
    lineTrackingLastAttemptedAt: now,
    lineTrackingLastSucceededAt: now,
    createdAt: now,
    updatedAt: now,
  };
  const containerRows = facts.containers.map((c): typeof containers.$inferInsert => ({
    id: newId(),
    accountId: request.accountId,
    shipmentId,
    number: c.number,
    refNumbers: [],
    sealNumber: c.sealNumber,
    equipmentType: c.equipmentType,
    equipmentLength: c.equipmentLength,
    equipmentHeight: c.equipmentHeight,
    weightInLbs: c.weightInLbs,
    currentStatus: deriveCurrentStatus({
      deliveredAt: null,
      emptyTerminatedAt: null,
      podFullOutAt: null,
      finalDestinationFullOutAt: null,
      hasInlandLeg: Boolean(facts.destinationLocode),
      offDock: false,
      podDischargedAt: null,
      indRailUnloadedAt: null,
      indAtaAt: null,
      podRailLoadedAt: null,
      podRailDepartedAt: null,
      polVesselLoadedAt: c.polVesselLoadedAt,
      polVesselDepartedAt: c.polVesselDepartedAt,
      availabilityKnown: false,
      availableForPickup: null,
    }),
    emptyOutAt: c.emptyOutAt,
    polFullInAt: c.polFullInAt,
    polVesselLoadedAt: c.polVesselLoadedAt,
    polVesselDepartedAt: c.polVesselDepartedAt,
    podTimezone: shipmentRow.podTimezone ?? null,
    finalDestinationTimezone: destination?.timeZone ?? null,
    podTerminalId: podTerminal?.id ?? null,
    shipmentLastTrackingRequestAt: now,
    podLocode: facts.portOfDischargeLocode,
    scac,
    createdAt: now,
    updatedAt: now,
  }));
  const statements = [
    db.insert(shipments).values(shipmentRow),
    ...containerRows.map((row) => db.insert(containers).values(row)),
    db
      .update(trackingRequests)
      .set({ status: "created", failedReason: null, isRetrying: false, shipmentId, updatedAt: now })
      .where(and(eq(trackingRequests.id, request.id), eq(trackingRequests.accountId, request.accountId))),
    bumpCount(db, request.accountId, "shipment", 1),
    bumpCount(db, request.accountId, "container", containerRows.length),
  ] as const;
  try {
    await db.batch(statements as unknown as Parameters<typeof db.batch>[0]);
  } catch (err) {
    if (/UNIQUE constraint failed: shipments\.id/i.test(String(err))) return null;
    throw err;
  }
  return shipmentId;
}

/** Marks a tracking request failed for good with `failed_reason` (R §2.2). */
export async function recordLookupFailure(
  db: Database,
  request: TrackingRequestRow,
  reason: string,
  now: string,
): Promise<void> {
  await db
    .update(trackingRequests)
    .set({ status: "failed", failedReason: reason, isRetrying: false, updatedAt: now })
    .where(and(eq(trackingRequests.id, request.id), eq(trackingRequests.accountId, request.accountId)));
}
