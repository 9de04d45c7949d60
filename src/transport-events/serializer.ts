import { containerResource, loadContainersByIds } from "../containers/serializer";
import type { transportEvents } from "../db/schema";
import type { ResourceType } from "../lib/jsonapi/include";
import type { ResourceObject } from "../lib/jsonapi/types";
import { loadPortsByIds, portResource } from "../ports/serializer";
import { loadShipmentViews, shipmentResource } from "../shipments/serializer";
import { loadTerminalsByIds, terminalResource } from "../terminals/serializer";
import { vesselLinkage, vesselsOfEvents, vesselType } from "../vessels/serializer";

/** A `transport_events` row as drizzle returns it. */
export type TransportEventRow = typeof transportEvents.$inferSelect;

/** Serialises a transport event (R §1.9, sample A.3): `value` carries the new value of a `*.changed` event. */
export function serializeTransportEvent(row: TransportEventRow): ResourceObject {
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
      data_source: row.dataSource,
      invalidated_at: row.invalidatedAt,
      value: row.value,
    },
    relationships: {
      shipment: { data: { id: row.shipmentId, type: "shipment" } },
      container: { data: { id: row.containerId, type: "container" } },
      vessel: { data: vesselLinkage(row) },
      location: { data: row.locationId ? { id: row.locationId, type: "port" } : null },
      terminal: { data: row.terminalId ? { id: row.terminalId, type: "terminal" } : null },
    },
  };
}

/** JSON:API type `transport_event` (targets are late-bound: the resource types refer to each other); includable: `location`, `terminal`, `shipment`, `container`, `vessel` (built from the events' vessel name and IMO). */
export const transportEventResource: ResourceType<TransportEventRow> = {
  type: "transport_event",
  serializerName: "V2::TransportEventSerializer",
  serialize: serializeTransportEvent,
  relationships: {
    vessel: {
      target: () => vesselType,
      load: async (_ctx, parents) => vesselsOfEvents(parents),
    },
    location: {
      target: () => portResource,
      load: (ctx, parents) =>
        loadPortsByIds(
          ctx.db,
          parents.map((e) => e.locationId),
        ),
    },
    terminal: {
      target: () => terminalResource,
      load: (ctx, parents) =>
        loadTerminalsByIds(
          ctx.db,
          parents.map((e) => e.terminalId),
        ),
    },
    shipment: {
      target: () => shipmentResource,
      load: (ctx, parents) =>
        loadShipmentViews(
          ctx.db,
          ctx.accountId,
          parents.map((e) => e.shipmentId),
        ),
    },
    container: {
      target: () => containerResource,
      load: (ctx, parents) =>
        loadContainersByIds(
          ctx.db,
          ctx.accountId,
          parents.map((e) => e.containerId),
        ),
    },
  },
};
