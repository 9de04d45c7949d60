import type { rawEvents } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import { findPortByLocode } from "../reference/locations";
import { findShippingLine } from "../reference/shipping-lines";
import { vesselLinkage, vesselsOfEvents } from "../vessels/identity";

/** A `raw_events` row as drizzle returns it. */
export type RawEventRow = typeof rawEvents.$inferSelect;

/**
 * A raw event with the SCAC of the line whose feed it is (the container's shipment), when the reader looked it up
 * (`listContainerRawEvents`); absent or null leaves `data_provider_*` null.
 */
export type RawEventView = RawEventRow & { providerScac?: string | null };

/**
 * The reference's 28 normalised raw event names (docs/api.md §Raw event names). Our feed rows also carry milestone
 * names outside it (`vessel_berthed`); those are served as `event: null` ("not normalised", which the reference's enum
 * allows) with the carrier's wording kept in `original_event`, so clients validating the enum keep working (issue 15
 * item 4).
 */
export const RAW_EVENT_NAMES: ReadonlySet<string> = new Set([
  "empty_out",
  "full_in",
  "positioned_in",
  "positioned_out",
  "vessel_loaded",
  "vessel_departed",
  "transshipment_arrived",
  "transshipment_discharged",
  "transshipment_loaded",
  "transshipment_departed",
  "feeder_arrived",
  "feeder_discharged",
  "feeder_loaded",
  "feeder_departed",
  "rail_loaded",
  "rail_departed",
  "rail_arrived",
  "rail_unloaded",
  "vessel_arrived",
  "vessel_discharged",
  "arrived_at_destination",
  "delivered",
  "full_out",
  "empty_in",
  "vgm_received",
  "carrier_release",
  "customs_release",
  "available",
]);

/**
 * The reference's name of one of our raw event names: the same name when it is one of docs/api.md §Raw event names's
 * 28, `arrived_at_destination` for our `arrived_at_inland_destination`, otherwise null (not normalised).
 */
export function referenceRawEventName(event: string | null): string | null {
  if (event === null) return null;
  if (event === "arrived_at_inland_destination") return "arrived_at_destination";
  return RAW_EVENT_NAMES.has(event) ? event : null;
}

/**
 * Who reported a raw event (docs/api.md §Raw event resource `data_provider_name`/`data_provider_code`): for
 * shipping-line rows the line of the container's shipment (its SCAC and name; the sandbox line for `TEST`), null when
 * unknown.
 */
function dataProvider(row: RawEventView): { name: string | null; code: string | null } {
  const scac = row.dataSource === "shipping_line" ? (row.providerScac ?? null) : null;
  if (!scac) return { name: null, code: null };
  return { name: findShippingLine(scac)?.name ?? null, code: scac };
}

/** Id of the reference port a raw event happened at, found by its UN/LOCODE (null when unknown). */
function locationId(row: RawEventRow): string | null {
  return findPortByLocode(row.locationLocode)?.id ?? null;
}

/**
 * Serialises a carrier feed row (docs/api.md §Raw event resource, sample A.4): `event` is the normalised name without
 * the `container.transport.` prefix, `original_event` the carrier's own words, `actual_on`/`estimated_on` the
 * (deprecated) date-only forms of `timestamp`. `location` links the reference port of `location_locode`;
 * `vessel` links the vessel of `vessel_imo` (none without a valid IMO number); `terminal` is not resolved for raw rows
 * (always null). `estimated_at`/`will_occur_at` carry `timestamp` of an estimated row, `actual_at` that of an actual
 * one (sample A.4); `event` outside docs/api.md §Raw event names is null (`referenceRawEventName`).
 */
export function serializeRawEvent(row: RawEventView): ResourceObject {
  const location = locationId(row);
  const provider = dataProvider(row);
  return {
    id: row.id,
    type: "raw_event",
    attributes: {
      event: referenceRawEventName(row.event),
      original_event: row.originalEvent,
      timestamp: row.timestamp,
      estimated: row.estimated,
      actual_on: row.actualOn,
      estimated_on: row.estimatedOn,
      actual_at: row.estimated ? null : row.timestamp,
      estimated_at: row.estimated ? row.timestamp : null,
      will_occur_at: row.estimated ? row.timestamp : null,
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
      data_provider_name: provider.name,
      data_provider_code: provider.code,
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
export const rawEventResource = registerResourceType<RawEventView>({
  type: "raw_event",
  serializerName: "V2::RawEventSerializer",
  serialize: serializeRawEvent,
  relationships: {
    vessel: {
      target: "vessel",
      load: async (_ctx, parents) => vesselsOfEvents(parents),
    },
    location: { target: "port", idOf: locationId },
    container: { target: "container", idOf: (e) => e.containerId },
  },
});
