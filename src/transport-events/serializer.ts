import { and, inArray } from "drizzle-orm";
import { rawEvents, type transportEvents } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { Resource } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import { vesselLinkage, vesselsOfEvents } from "../vessels/identity";
import type { TransportEventAttributes } from "./schemas";

/** A `transport_events` row as drizzle returns it. */
export type TransportEventRow = typeof transportEvents.$inferSelect;

/**
 * A transport event with the id of the raw (carrier feed) event it came from, as `transportEventResource.hydrate`
 * resolved it (the row's `rawEventId`, or for an older row without one the lookup by milestone); absent or null
 * serialises `source_event` as null (so bodies built from the bare row, the webhook payloads, carry null as before).
 */
export type TransportEventView = TransportEventRow & { sourceEventId?: string | null };

const PREFIX = "container.transport.";

/**
 * The key a transport event and the raw event it came from share: container, the milestone's name (without the
 * `container.transport.` prefix and the `estimated.` infix, as raw rows name it), estimated or not, and the time.
 * Null for events no feed row stands behind (`container.pickup_lfd.changed` and the like).
 */
function milestoneKey(containerId: string, event: string, estimated: boolean, timestamp: string | null): string | null {
  if (timestamp === null) return null;
  return `${containerId}|${event}|${estimated ? "E" : "A"}|${timestamp}`;
}

function keyOfTransportEvent(row: TransportEventRow): string | null {
  if (!row.event.startsWith(PREFIX)) return null;
  // Raw rows are the carrier's feed: a terminal-made event has none (its rows since migration 0008 say so with a
  // null `rawEventId`; older ones were linked by the migration if any raw row matched).
  if (row.dataSource !== "shipping_line") return null;
  const name = row.event.slice(PREFIX.length);
  const estimated = name.startsWith("estimated.");
  return milestoneKey(row.containerId, estimated ? name.slice("estimated.".length) : name, estimated, row.timestamp);
}

/**
 * Serialises a transport event (docs/api.md §Transport event resource, sample A.3): `value` carries the new value of a
 * `*.changed` event. `source_event` links the raw event the milestone was recorded from (when hydrated);
 * `previous_version` is always null: a corrected actual updates its event in place (same id) instead of invalidating it
 * for a new one.
 */
export function serializeTransportEvent(row: TransportEventView): Resource<TransportEventAttributes> {
  return {
    id: row.id,
    type: "transport_event",
    attributes: {
      event: row.event,
      created_at: row.createdAt,
      voyage_number: row.voyageNumber,
      timestamp: row.timestamp,
      timezone: row.timezone,
      location_locode: row.locationLocode,
      // A text column typed `string`; only the schema's sources are ever written to it.
      data_source: row.dataSource as TransportEventAttributes["data_source"],
      invalidated_at: row.invalidatedAt,
      value: row.value,
    },
    relationships: {
      shipment: { data: { id: row.shipmentId, type: "shipment" } },
      container: { data: { id: row.containerId, type: "container" } },
      vessel: { data: vesselLinkage(row) },
      source_event: { data: row.sourceEventId ? { id: row.sourceEventId, type: "raw_event" } : null },
      previous_version: { data: null },
      location: { data: row.locationId ? { id: row.locationId, type: "port" } : null },
      terminal: { data: row.terminalId ? { id: row.terminalId, type: "terminal" } : null },
    },
  };
}

/**
 * JSON:API type `transport_event`; includable: `location`, `terminal`, `shipment`, `container`, `vessel` (built from
 * the events' vessel name and IMO).
 */
export const transportEventResource = registerResourceType<TransportEventView>({
  type: "transport_event",
  serializerName: "V2::TransportEventSerializer",
  // The link is on the row (`raw_event_id`, written with the raw event): no read. Only a carrier event left without
  // one (written before migration 0008, which found no raw row for it then) is looked up as before: one query for
  // all such rows, the raw events of their containers matched by milestone key (the latest report wins).
  hydrate: async (ctx, rows) => {
    const linked = rows.map((row) => {
      if (row.sourceEventId !== undefined) return row;
      const needsLookup = row.rawEventId === null && keyOfTransportEvent(row) !== null;
      return needsLookup ? row : { ...row, sourceEventId: row.rawEventId };
    });
    const containerIds = [...new Set(linked.filter((r) => r.sourceEventId === undefined).map((r) => r.containerId))];
    if (containerIds.length === 0) return linked;
    const byKey = new Map<string, string>();
    // D1 binds at most 100 parameters per statement: the account plus up to 90 container ids each.
    const chunks: string[][] = [];
    for (let i = 0; i < containerIds.length; i += 90) chunks.push(containerIds.slice(i, i + 90));
    const reads = chunks.map((ids) =>
      ctx.db
        .select({
          id: rawEvents.id,
          containerId: rawEvents.containerId,
          event: rawEvents.event,
          estimated: rawEvents.estimated,
          timestamp: rawEvents.timestamp,
        })
        .from(rawEvents)
        .where(and(ownedBy(rawEvents.accountId, ctx.accountId), inArray(rawEvents.containerId, ids)))
        .orderBy(rawEvents.index),
    );
    const raws = (await Promise.all(reads)).flat();
    for (const r of raws) {
      const key = milestoneKey(r.containerId, r.event, r.estimated, r.timestamp);
      if (key) byKey.set(key, r.id);
    }
    return linked.map((row) => {
      if (row.sourceEventId !== undefined) return row;
      const key = keyOfTransportEvent(row);
      return { ...row, sourceEventId: key ? (byKey.get(key) ?? null) : null };
    });
  },
  serialize: serializeTransportEvent,
  relationships: {
    vessel: {
      target: "vessel",
      load: async (_ctx, parents) => vesselsOfEvents(parents),
    },
    location: { target: "port", idOf: (e) => e.locationId },
    terminal: { target: "terminal", idOf: (e) => e.terminalId },
    shipment: { target: "shipment", idOf: (e) => e.shipmentId },
    container: { target: "container", idOf: (e) => e.containerId },
  },
});
