import { containerResource, loadContainersByIds } from "../containers/serializer";
import type { rawEvents } from "../db/schema";
import type { ResourceType } from "../lib/jsonapi/include";
import type { ResourceObject } from "../lib/jsonapi/types";
import { loadPortsByIds, portResource } from "../ports/serializer";
import { findPortByLocode } from "../reference/locations";
import { vesselLinkage, vesselsOfEvents, vesselType } from "../vessels/serializer";

/** A `raw_events` row as drizzle returns it. */
export type RawEventRow = typeof rawEvents.$inferSelect;

/** Id of the reference port a raw event happened at, found by its UN/LOCODE (null when unknown). */
function locationId(row: RawEventRow): string | null {
  return findPortByLocode(row.locationLocode)?.id ?? null;
}

/**
 * Serialises a carrier feed row (R §1.10, sample A.4): `event` is the normalised name without the
 * `container.transport.` prefix, `original_event` the carrier's own words, `actual_on`/`estimated_on` the
 * (deprecated) date-only forms of `timestamp`. `location` links the reference port of `location_locode`;
 * `vessel` links the vessel of `vessel_imo` (none without a valid IMO number); `terminal` is not resolved for raw rows
 * (always null).
 */
export function serializeRawEvent(row: RawEventRow): ResourceObject {
  const location = locationId(row);
  return {
    id: row.id,
    type: "raw_event",
    attributes: {
      event: row.event,
      original_event: row.originalEvent,
      timestamp: row.timestamp,
      estimated: row.estimated,
      actual_on: row.actualOn,
      estimated_on: row.estimatedOn,
      timezone: row.timezone,
      created_at: row.createdAt,
      location_name: row.location,
      location_locode: row.locationLocode,
      vessel_name: row.vesselName,
      vessel_imo: row.vesselImo,
      voyage_number: row.voyageNumber,
      index: row.index,
      invalidated_at: row.invalidatedAt,
      data_source: row.dataSource,
    },
    relationships: {
      location: { data: location ? { id: location, type: "port" } : null },
      vessel: { data: vesselLinkage(row) },
      container: { data: { id: row.containerId, type: "container" } },
      terminal: { data: null },
    },
  };
}

/** JSON:API type `raw_event`; includable: `location` (port), `vessel` and `container`. */
export const rawEventResource: ResourceType<RawEventRow> = {
  type: "raw_event",
  serializerName: "V2::RawEventSerializer",
  serialize: serializeRawEvent,
  relationships: {
    vessel: {
      target: () => vesselType,
      load: async (_ctx, parents) => vesselsOfEvents(parents),
    },
    location: {
      target: () => portResource,
      load: (ctx, parents) => loadPortsByIds(ctx.db, parents.map(locationId)),
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
