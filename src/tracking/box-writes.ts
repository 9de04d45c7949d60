import { inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import {
  containers,
  containerUpdatedEvents,
  estimatedEvents,
  rawEvents,
  shipments,
  trackedEquipment,
  transportEvents,
} from "../db/schema";
import { deterministicId } from "../lib/ids";
import { findPortByLocode, findTerminalByCode } from "../reference/locations";
import type { ContainerState, ShipmentState } from "./derive";
import type { EngineEvent } from "./events";

/** One account's container row following a box. */
export interface Subscription {
  accountId: string;
  containerId: string;
  shipmentId: string;
}

/** What one update of a box writes. */
export interface BoxUpdate {
  trackedEquipmentId: string;
  /** Rows that get `events` (they already had the previous state). */
  subscriptions: Subscription[];
  /** Rows that join now and get `historyEvents` (everything recorded so far) instead. */
  joining: Subscription[];
  state: ContainerState;
  shipment: ShipmentState;
  events: EngineEvent[];
  historyEvents: EngineEvent[];
  nowIso: string;
  /** When the box was last asked about at the carrier / the terminal (`*_last_tracking_request_at`), or null. */
  carrierCheckedAt: string | null;
  terminalCheckedAt: string | null;
  nextPollAt: string | null;
  /** `index` given to the first raw event written now (raw events are numbered per box, in arrival order). */
  rawIndexStart: number;
}

/**
 * The D1 statements of one box update, for one batch (DESIGN.md §4 step 4): every subscribed container row
 * gets the same state in one UPDATE, every subscribed shipment row the shipment state, and each event becomes
 * a row per container. Event rows have ids derived from the container and the fact, and are inserted with
 * ON CONFLICT DO NOTHING, so replaying an update (a retried message, a Tracker that restarted between its
 * D1 write and its own bookkeeping) writes nothing twice.
 * @returns the statements, and how many raw events they number.
 */
export async function boxUpdateStatements(
  db: Database,
  update: BoxUpdate,
): Promise<{ statements: BatchItem<"sqlite">[]; rawCount: number }> {
  const statements: BatchItem<"sqlite">[] = [];
  const all = [...update.subscriptions, ...update.joining];
  const { state, shipment, nowIso } = update;
  if (all.length > 0) {
    statements.push(
      db
        .update(containers)
        .set({
          ...state,
          updatedAt: nowIso,
          shipmentLastTrackingRequestAt: update.carrierCheckedAt,
          podLastTrackingRequestAt: update.terminalCheckedAt,
        })
        .where(
          inArray(
            containers.id,
            all.map((s) => s.containerId),
          ),
        ),
    );
    const pol = findPortByLocode(shipment.portOfLadingLocode);
    const pod = findPortByLocode(shipment.portOfDischargeLocode);
    const destination = findPortByLocode(shipment.destinationLocode);
    statements.push(
      db
        .update(shipments)
        .set({
          ...shipment,
          portOfLadingId: pol?.id ?? null,
          portOfLadingName: pol?.name ?? null,
          portOfDischargeId: pod?.id ?? null,
          portOfDischargeName: pod?.name ?? null,
          destinationId: destination?.id ?? null,
          destinationName: destination?.name ?? null,
          podTerminalId: state.podTerminalId,
          updatedAt: nowIso,
          ...(update.carrierCheckedAt
            ? {
                lineTrackingLastAttemptedAt: update.carrierCheckedAt,
                lineTrackingLastSucceededAt: update.carrierCheckedAt,
              }
            : {}),
        })
        .where(inArray(shipments.id, [...new Set(all.map((s) => s.shipmentId))])),
    );
  }
  let rawIndex = update.rawIndexStart;
  const rawIndexByKey = new Map<string, number>();
  const writeEvents = async (subs: Subscription[], events: EngineEvent[]) => {
    for (const sub of subs) {
      for (const e of events) {
        if (e.kind === "transport_event") {
          const location = findPortByLocode(e.locationLocode);
          const terminal = findTerminalByCode(e.facilityCode);
          statements.push(
            db
              .insert(transportEvents)
              .values({
                id: await deterministicId(`transport_event:${sub.containerId}:${e.key}`),
                accountId: sub.accountId,
                containerId: sub.containerId,
                shipmentId: sub.shipmentId,
                event: e.event,
                voyageNumber: e.voyageNumber,
                timestamp: e.timestamp,
                timezone: location?.timeZone ?? terminal?.timeZone ?? null,
                locationLocode: e.locationLocode,
                locationId: location?.id ?? null,
                terminalId: terminal?.id ?? null,
                vesselName: e.vesselName,
                vesselImo: e.vesselImo,
                value: e.value,
                dataSource: e.dataSource,
                createdAt: nowIso,
              })
              .onConflictDoNothing(),
          );
          const m = e.milestone;
          if (m) {
            let index = rawIndexByKey.get(e.key);
            if (index === undefined) {
              index = rawIndex++;
              rawIndexByKey.set(e.key, index);
            }
            statements.push(
              db
                .insert(rawEvents)
                .values({
                  id: await deterministicId(`raw_event:${sub.containerId}:${e.key}`),
                  accountId: sub.accountId,
                  containerId: sub.containerId,
                  index,
                  event: m.event.replace("container.transport.", ""),
                  originalEvent: m.originalEvent,
                  timestamp: m.timestamp,
                  estimated: m.estimated,
                  actualOn: m.estimated ? null : m.timestamp.slice(0, 10),
                  estimatedOn: m.estimated ? m.timestamp.slice(0, 10) : null,
                  location: location?.name ?? null,
                  locationLocode: m.locationLocode,
                  vesselName: m.vesselName,
                  vesselImo: m.vesselImo,
                  voyageNumber: m.voyageNumber,
                  timezone: location?.timeZone ?? null,
                  dataSource: "shipping_line",
                  payload: m.raw ?? null,
                  createdAt: nowIso,
                })
                .onConflictDoNothing(),
            );
          }
        } else if (e.kind === "container_updated") {
          statements.push(
            db
              .insert(containerUpdatedEvents)
              .values({
                // Derived from the update (its time and changeset), so a replayed update writes it once.
                id: await deterministicId(
                  `container_updated:${sub.containerId}:${nowIso}:${JSON.stringify(e.changeset)}`,
                ),
                accountId: sub.accountId,
                containerId: sub.containerId,
                shipmentId: sub.shipmentId,
                terminalId: state.pickupFacilityId ?? state.podTerminalId,
                changeset: e.changeset,
                timestamp: e.timestamp,
                timezone: state.pickupFacilityId ? state.finalDestinationTimezone : state.podTimezone,
                dataSource: e.dataSource,
                createdAt: nowIso,
              })
              .onConflictDoNothing(),
          );
        } else if (e.kind === "shipment_estimated_arrival") {
          const location = findPortByLocode(e.locationLocode);
          statements.push(
            db
              .insert(estimatedEvents)
              .values({
                id: await deterministicId(`estimated_event:${sub.shipmentId}:${e.estimatedTimestamp}`),
                accountId: sub.accountId,
                shipmentId: sub.shipmentId,
                event: "shipment.estimated.arrival",
                estimatedTimestamp: e.estimatedTimestamp,
                locationLocode: e.locationLocode,
                locationId: location?.id ?? null,
                voyageNumber: e.voyageNumber,
                timezone: location?.timeZone ?? null,
                dataSource: "shipping_line",
                createdAt: nowIso,
              })
              .onConflictDoNothing(),
          );
        }
      }
    }
  };
  await writeEvents(update.subscriptions, update.events);
  await writeEvents(update.joining, update.historyEvents);
  statements.push(
    db
      .update(trackedEquipment)
      .set({
        lastPolledAt: nowIso,
        nextPollAt: update.nextPollAt,
        stoppedAt: update.nextPollAt ? null : nowIso,
      })
      .where(inArray(trackedEquipment.id, [update.trackedEquipmentId])),
  );
  return { statements, rawCount: rawIndex - update.rawIndexStart };
}
