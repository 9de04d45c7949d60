import { and, inArray, type Placeholder, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { idList, inIdChunks, MAX_IDS_PER_STATEMENT, MAX_SHAPED_IDS, shaped } from "../db/query-shapes";
import { type ReadItem, readMany } from "../db/read-batch";
import { containers, transportEvents } from "../db/schema";
import { type PrefetchContext, registerResourceType } from "../lib/jsonapi/include-registry";
import type { Resource } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import type { ContainerAttributes } from "./schemas";

/** A `containers` row as drizzle returns it. */
export type ContainerRow = typeof containers.$inferSelect;

/** A container with the ids its to-many linkage needs (filled by `hydrate`). */
export type ContainerView = ContainerRow & { transportEventIds?: string[]; rawEventIds?: string[] };

/**
 * Serialises a container with every attribute of docs/api.md §Container resource plus the reference service's extra
 * timestamps (docs/decisions.md §Wire format), in the reference's attribute order (docs/api.md §Container resource).
 * `ind_facility_lfd_on` mirrors `import_deadlines.pickup_lfd_rail` (docs/decisions.md §Containers); the legacy
 * `ssl_lfd` (the shipping line's last free day) mirrors `import_deadlines.pickup_lfd_line`;
 * `ind_facility_holds`/`ind_facility_fees` are always null (no inland facility reports them to us), as in every capture
 * of the reference (issue 15). After them come our extensions `terminal_tracking_last_attempted_at`/`_failed_reason`
 * and `rail_tracking_*` (issue 13 §1).
 */
export function serializeContainer(row: ContainerView): Resource<ContainerAttributes> {
  return {
    id: row.id,
    type: "container",
    attributes: {
      number: row.number,
      seal_number: row.sealNumber,
      created_at: row.createdAt,
      ref_numbers: row.refNumbers,
      pod_arrived_at: row.podArrivedAt,
      pod_discharged_at: row.podDischargedAt,
      final_destination_full_out_at: row.finalDestinationFullOutAt,
      holds_at_pod_terminal: row.holdsAtPodTerminal,
      available_for_pickup: row.availableForPickup,
      delivered_at: row.deliveredAt,
      // The enum columns are text in D1 typed `string`; only the schema's values are ever written to them.
      current_status: row.currentStatus as ContainerAttributes["current_status"],
      empty_out_at: row.emptyOutAt,
      pol_full_in_at: row.polFullInAt,
      pol_vessel_loaded_at: row.polVesselLoadedAt,
      pol_vessel_departed_at: row.polVesselDepartedAt,
      equipment_type: row.equipmentType as ContainerAttributes["equipment_type"],
      equipment_length: row.equipmentLength,
      equipment_height: row.equipmentHeight as ContainerAttributes["equipment_height"],
      pod_full_out_at: row.podFullOutAt,
      empty_terminated_at: row.emptyTerminatedAt,
      terminal_checked_at: row.terminalCheckedAt,
      fees_at_pod_terminal: row.feesAtPodTerminal,
      pickup_lfd: row.pickupLfd,
      pickup_appointment_at: row.pickupAppointmentAt,
      pod_full_out_chassis_number: row.podFullOutChassisNumber,
      location_at_pod_terminal: row.locationAtPodTerminal,
      pod_last_tracking_request_at: row.podLastTrackingRequestAt,
      shipment_last_tracking_request_at: row.shipmentLastTrackingRequestAt,
      rail_last_tracking_request_at: row.railLastTrackingRequestAt,
      availability_known: row.availabilityKnown,
      pod_timezone: row.podTimezone,
      final_destination_timezone: row.finalDestinationTimezone,
      weight_in_lbs: row.weightInLbs,
      empty_terminated_timezone: row.emptyTerminatedTimezone,
      pod_rail_carrier_scac: row.podRailCarrierScac,
      ind_rail_carrier_scac: row.indRailCarrierScac,
      pod_rail_loaded_at: row.podRailLoadedAt,
      pod_rail_departed_at: row.podRailDepartedAt,
      ind_eta_at: row.indEtaAt,
      ind_ata_at: row.indAtaAt,
      ind_rail_unloaded_at: row.indRailUnloadedAt,
      // No inland facility reports holds or fees to us (docs/api.md §Container resource: always null in the reference's
      // captures too).
      ind_facility_holds: null,
      ind_facility_fees: null,
      ind_facility_lfd_on: row.pickupLfdRail,
      import_deadlines: {
        pickup_lfd_terminal: row.pickupLfdTerminal,
        pickup_lfd_rail: row.pickupLfdRail,
        pickup_lfd_line: row.pickupLfdLine,
      },
      ssl_lfd: row.pickupLfdLine,
      // Extensions (issue 13 §1): every facility attempt and why it failed, after the reference's attributes.
      terminal_tracking_last_attempted_at: row.terminalTrackingLastAttemptedAt,
      terminal_tracking_failed_reason: row.terminalTrackingFailedReason,
      rail_tracking_last_attempted_at: row.railTrackingLastAttemptedAt,
      rail_tracking_failed_reason: row.railTrackingFailedReason,
    },
    relationships: {
      shipment: { data: { id: row.shipmentId, type: "shipment" } },
      pickup_facility: { data: row.pickupFacilityId ? { id: row.pickupFacilityId, type: "terminal" } : null },
      pod_terminal: { data: row.podTerminalId ? { id: row.podTerminalId, type: "terminal" } : null },
      transport_events: { data: (row.transportEventIds ?? []).map((id) => ({ id, type: "transport_event" })) },
      raw_events: { data: (row.rawEventIds ?? []).map((id) => ({ id, type: "raw_event" })) },
    },
  };
}

/** Containers of the account by id (the `container` includes of events). */
export async function loadContainersByIds(db: Database, accountId: string, ids: string[]): Promise<ContainerRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return inIdChunks(unique, (chunk) =>
    db
      .select()
      .from(containers)
      .where(and(ownedBy(containers.accountId, accountId), inArray(containers.id, chunk))),
  );
}

/**
 * The two queries that give containers their to-many linkage (transport event ids in time order, raw event
 * ids in feed order), for containers given by id (or id placeholders, in a query shape) or by a subquery
 * selecting ids, so they can share a D1 round trip with the query that finds the containers.
 */
export function containerLinkageQueries(db: Database, containerIds: (string | Placeholder)[] | SQLWrapper) {
  return [
    db
      .select({ id: transportEvents.id, containerId: transportEvents.containerId })
      .from(transportEvents)
      .where(inArray(transportEvents.containerId, containerIds))
      .orderBy(transportEvents.containerId, transportEvents.timestamp, transportEvents.id),
    // Raw event ids in feed order, the archived ones too (`archived_raw_events`, src/archive/): UNION drops a row
    // present in both (a retention run stopped before its delete), so the linkage is the same before and after
    // archiving (docs/SCALING.md §Retention and archive). The ids are bound once, in `wanted` (D1 binds at most 100
    // parameters), and each arm probes its container index.
    db
      .select({ id: sql<string>`id`, containerId: sql<string>`container_id` })
      .from(
        sql`(WITH wanted AS (SELECT ${containers.id} AS cid FROM ${containers} WHERE ${inArray(containers.id, containerIds)})
             SELECT id, container_id, "index" AS ord FROM raw_events WHERE container_id IN (SELECT cid FROM wanted)
             UNION SELECT e.value ->> 0, a.container_id, e.value ->> 1 FROM archived_raw_events a, json_each(a.events) e
               WHERE a.container_id IN (SELECT cid FROM wanted))`,
      )
      .orderBy(sql`container_id`, sql`ord`),
  ] as const;
}

/**
 * Attaches the results of `containerLinkageQueries` to their rows, in place, and returns them as views. The rows are
 * fresh from their read and owned by the caller, so each of a page's 58-column rows is no longer copied only to gain
 * two fields (bench/README.md §Session 6).
 */
export function withContainerLinkage(rows: ContainerRow[], events: unknown[], raws: unknown[]): ContainerView[] {
  const byContainer = (list: unknown[]) => {
    const map = new Map<string, string[]>();
    for (const e of list as { id: string; containerId: string }[]) {
      const arr = map.get(e.containerId);
      if (arr) arr.push(e.id);
      else map.set(e.containerId, [e.id]);
    }
    return map;
  };
  const ev = byContainer(events);
  const rw = byContainer(raws);
  const views = rows as ContainerView[];
  for (const view of views) {
    view.transportEventIds = ev.get(view.id) ?? [];
    view.rawEventIds = rw.get(view.id) ?? [];
  }
  return views;
}

/**
 * The ids a container → terminal relationship (`pod_terminal`, `pickup_facility`) names in `column`, for containers
 * given by a subquery, so the terminals are read in the containers' own D1 round trip. Terminals are reference data
 * shared by every account, so only the containers (already scoped to the account by the parent query) are filtered.
 */
function terminalIdsIn(column: typeof containers.podTerminalId | typeof containers.pickupFacilityId) {
  return (ctx: PrefetchContext, containerIds: SQLWrapper) =>
    ctx.db.select({ id: column }).from(containers).where(inArray(containers.id, containerIds));
}

/**
 * JSON:API type `container`; includable: `shipment`, `pod_terminal`, `pickup_facility`, `transport_events`
 * (docs/api.md §Includes). `hydrate` loads the linkage of rows that do not have it yet (one D1 batch for all of them, a
 * cached query shape keyed by the number of ids up to `MAX_SHAPED_IDS`); rows read together with their linkage
 * (`listContainers`, `getContainerView`) pass through untouched. Read by id (`loadContainersByIds`) for the
 * `container` of events.
 */
export const containerResource = registerResourceType<ContainerView>({
  type: "container",
  serializerName: "V2::ContainerSerializer",
  hydrate: async (ctx, rows) => {
    if (rows.length === 0 || rows.every((r) => r.transportEventIds && r.rawEventIds)) return rows;
    const ids = rows.map((r) => r.id);
    if (ids.length > MAX_SHAPED_IDS) {
      // Chunks of MAX_IDS_PER_STATEMENT ids, each chunk's two queries in the same round trip.
      const read: ReadItem[] = [];
      for (let i = 0; i < ids.length; i += MAX_IDS_PER_STATEMENT) {
        read.push(...containerLinkageQueries(ctx.db, ids.slice(i, i + MAX_IDS_PER_STATEMENT)));
      }
      const results = await readMany(ctx.db, read);
      const events = results.filter((_, i) => i % 2 === 0).flat();
      const raws = results.filter((_, i) => i % 2 === 1).flat();
      return withContainerLinkage(rows, events, raws);
    }
    const list = idList("id", ids);
    const read: ReadItem[] = [
      shaped(
        ctx.db,
        `container.linkage:${list.key}`,
        () => containerLinkageQueries(ctx.db, list.placeholders),
        list.values,
      ),
    ];
    const [events = [], raws = []] = await readMany(ctx.db, read);
    return withContainerLinkage(rows, events, raws);
  },
  serialize: serializeContainer,
  relationships: {
    shipment: {
      target: "shipment",
      idOf: (c) => c.shipmentId,
      prefetchIds: (ctx, containerIds) =>
        ctx.db.select({ id: containers.shipmentId }).from(containers).where(inArray(containers.id, containerIds)),
    },
    pod_terminal: {
      target: "terminal",
      idOf: (c) => c.podTerminalId,
      prefetchIds: terminalIdsIn(containers.podTerminalId),
    },
    pickup_facility: {
      target: "terminal",
      idOf: (c) => c.pickupFacilityId,
      prefetchIds: terminalIdsIn(containers.pickupFacilityId),
    },
    transport_events: {
      target: "transport_event",
      load: async (ctx, parents) => {
        if (parents.length === 0) return [];
        return ctx.db
          .select()
          .from(transportEvents)
          .where(
            and(
              ownedBy(transportEvents.accountId, ctx.accountId),
              inArray(
                transportEvents.containerId,
                parents.map((c) => c.id),
              ),
            ),
          )
          .orderBy(transportEvents.timestamp, transportEvents.id);
      },
    },
  },
  loadByIds: (ctx, ids) =>
    loadContainersByIds(
      ctx.db,
      ctx.accountId,
      ids.filter((id): id is string => !!id),
    ),
});
