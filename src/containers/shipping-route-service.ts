/**
 * Loading a container's route (`GET /v2/containers/{id}/route` and the MCP tool `get_container_route`): the
 * `routing` entitlement check, then the container, its shipment and its transport events (estimates included)
 * from D1, built into a {@link ContainerRoute} by `buildContainerRoute` (src/containers/shipping-route.ts).
 */

import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Database } from "../db/client";
import { accounts, containers, ports, shipments, transportEvents, vessels } from "../db/schema";
import { ApiError } from "../lib/errors";
import { ownedBy } from "../lib/tenant";
import { findPortByLocode } from "../reference/locations";
import { vesselIdForImo } from "../vessels/identity";
import type { ContainerRow } from "./serializer";
import {
  buildContainerRoute,
  ROUTING_ENTITLEMENT,
  ROUTING_NOT_ENABLED_DETAIL,
  type RouteContainer,
  type RouteEvent,
  type RouteShipment,
} from "./shipping-route";
import type { LoadedRoute } from "./shipping-route-serializer";

/** Most transport events read for one route (a container has a few dozen; this only bounds a pathological one). */
const MAX_EVENTS = 1_000;

/**
 * The 403 of the route for an account without the `routing` entitlement, exactly as the reference answers it
 * (docs/api.md §Errors): `{"status":"403","title":"Forbidden","detail":"Routing data feature is not enabled
 * for this account","source":null}`.
 */
export function routingNotEnabled(): ApiError {
  return new ApiError(403, [{ detail: ROUTING_NOT_ENABLED_DETAIL, source: null }]);
}

/**
 * The account's entitlements (docs/api.md §Accounts and entitlements), from the primary database: `accounts` there is
 * the record (an operator sets entitlements there); the copy of the row in the account's shard only anchors foreign keys
 * (docs/SCALING.md §Shards). Empty for an unknown account.
 */
export async function accountEntitlements(primary: Database, accountId: string): Promise<string[]> {
  const [row] = await primary
    .select({ entitlements: accounts.entitlements })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .limit(1);
  return row?.entitlements ?? [];
}

/**
 * Checks that the account has the `routing` entitlement (docs/api.md §Accounts and entitlements), for the routing
 * reads that do not load a route first (future positions, docs/api.md §Future positions). One read of the primary.
 * @throws ApiError 403 {@link routingNotEnabled} without it.
 */
export async function assertRoutingEnabled(primary: Database, accountId: string): Promise<void> {
  if (!(await accountEntitlements(primary, accountId)).includes(ROUTING_ENTITLEMENT)) throw routingNotEnabled();
}

/** The container facts the route builder reads, from a `containers` row. */
function routeContainerOf(row: ContainerRow): RouteContainer {
  return {
    id: row.id,
    number: row.number,
    pol_vessel_departed_at: row.polVesselDepartedAt,
    pod_arrived_at: row.podArrivedAt,
    pod_discharged_at: row.podDischargedAt,
    pod_rail_loaded_at: row.podRailLoadedAt,
    pod_rail_departed_at: row.podRailDepartedAt,
    pod_rail_carrier_scac: row.podRailCarrierScac,
    ind_rail_carrier_scac: row.indRailCarrierScac,
    ind_eta_at: row.indEtaAt,
    ind_ata_at: row.indAtaAt,
    pod_timezone: row.podTimezone,
    final_destination_timezone: row.finalDestinationTimezone,
  };
}

/** The shipment facts the route builder reads, from a `shipments` row. */
function routeShipmentOf(row: typeof shipments.$inferSelect): RouteShipment {
  return {
    shipping_line_scac: row.shippingLineScac,
    port_of_lading_locode: row.portOfLadingLocode,
    port_of_lading_name: row.portOfLadingName,
    port_of_discharge_locode: row.portOfDischargeLocode,
    port_of_discharge_name: row.portOfDischargeName,
    destination_locode: row.destinationLocode,
    destination_name: row.destinationName,
    destination_timezone: row.destinationTimezone,
    pol_timezone: row.polTimezone,
    pod_timezone: row.podTimezone,
    pol_etd_at: row.polEtdAt,
    pol_atd_at: row.polAtdAt,
    pod_eta_at: row.podEtaAt,
    pod_ata_at: row.podAtaAt,
    destination_eta_at: row.destinationEtaAt,
    destination_ata_at: row.destinationAtaAt,
    pod_vessel_name: row.podVesselName,
    pod_vessel_imo: row.podVesselImo,
    pod_voyage_number: row.podVoyageNumber,
  };
}

/**
 * The route of one of the account's containers, with the ports of its stops (for `include=port`).
 *
 * Order of checks (docs/api.md §Accounts and entitlements, docs/decisions.md §Wire format): the entitlement first, so
 * an account without it learns nothing about any id (403 for every id); then the container, scoped to the account
 * (another account's id is 404, never 403). Reads, two D1 round trips in time: the entitlement from the primary
 * (`primary`) while the account's shard (`db`) reads the container, its shipment and its vetted (not invalidated)
 * transport events, estimates included, in one batch; then the ports of those events and stops (reference data, in
 * the shard) while the primary reads the legs' vessels (vessels live only in the primary).
 * @throws ApiError 403 {@link routingNotEnabled} without the `routing` entitlement; 404 when the container is
 *   unknown or another account's, or has no shipment to route.
 */
export async function getContainerRoute(
  db: Database,
  primary: Database,
  accountId: string,
  containerId: string,
): Promise<LoadedRoute> {
  const loaded = await findContainerRoute(db, primary, accountId, containerId);
  if (!loaded) throw ApiError.notFound("This container has no shipment to route.");
  return loaded;
}

/**
 * {@link getContainerRoute}, but null for one of the account's containers that has no shipment yet (nothing to route):
 * the map answers that with an empty FeatureCollection (docs/api.md §Container map), the route with a 404.
 * @throws ApiError 403 without the `routing` entitlement; 404 when the container is unknown or another account's.
 */
export async function findContainerRoute(
  db: Database,
  primary: Database,
  accountId: string,
  containerId: string,
): Promise<LoadedRoute | null> {
  const [entitlements, [containerRows, shipmentRows, eventRows]] = await Promise.all([
    accountEntitlements(primary, accountId),
    db.batch([
      db
        .select()
        .from(containers)
        .where(and(ownedBy(containers.accountId, accountId), eq(containers.id, containerId)))
        .limit(1),
      db
        .select({ shipment: shipments })
        .from(containers)
        .innerJoin(shipments, and(eq(shipments.id, containers.shipmentId), ownedBy(shipments.accountId, accountId)))
        .where(and(ownedBy(containers.accountId, accountId), eq(containers.id, containerId)))
        .limit(1),
      db
        .select({
          event: transportEvents.event,
          timestamp: transportEvents.timestamp,
          timezone: transportEvents.timezone,
          locode: transportEvents.locationLocode,
          vesselName: transportEvents.vesselName,
          vesselImo: transportEvents.vesselImo,
          voyageNumber: transportEvents.voyageNumber,
        })
        .from(transportEvents)
        .where(
          and(
            ownedBy(transportEvents.accountId, accountId),
            eq(transportEvents.containerId, containerId),
            isNull(transportEvents.invalidatedAt),
          ),
        )
        .orderBy(transportEvents.timestamp, transportEvents.id)
        .limit(MAX_EVENTS),
    ]),
  ]);
  if (!entitlements.includes(ROUTING_ENTITLEMENT)) throw routingNotEnabled();
  const container = containerRows[0];
  if (!container) throw ApiError.notFound("Couldn't find Container");
  const shipment = shipmentRows[0]?.shipment;
  if (!shipment) return null;

  const codes = new Set<string>();
  for (const e of eventRows) if (e.locode) codes.add(e.locode);
  for (const c of [shipment.portOfLadingLocode, shipment.portOfDischargeLocode, shipment.destinationLocode]) {
    if (c) codes.add(c);
  }
  // Events keep the UN/LOCODE as the carrier gave it; the reference table holds each port under its current code.
  const current = (code: string) => findPortByLocode(code)?.code ?? code;
  // The legs' vessels by IMO number: from the events and the shipment's POD vessel (the route's sources).
  const vesselIds = new Set<string>();
  for (const imo of [...eventRows.map((e) => e.vesselImo), shipment.podVesselImo]) {
    const id = vesselIdForImo(imo);
    if (id) vesselIds.add(id);
  }
  const [portRows, vesselRows] = await Promise.all([
    db
      .select()
      .from(ports)
      .where(inArray(ports.code, [...new Set([...codes].map(current))])),
    primary
      .select()
      .from(vessels)
      .where(inArray(vessels.id, [...vesselIds])),
  ]);
  const byCode = new Map(portRows.map((p) => [p.code, p]));
  const events: RouteEvent[] = eventRows.map((r) => ({
    event: r.event,
    timestamp: r.timestamp,
    timezone: r.timezone,
    locode: r.locode,
    location_name: r.locode ? (byCode.get(current(r.locode))?.name ?? null) : null,
    vessel_name: r.vesselName,
    vessel_imo: r.vesselImo,
    voyage_number: r.voyageNumber,
  }));
  const route = buildContainerRoute(routeContainerOf(container), routeShipmentOf(shipment), events);
  const stopCodes = new Set(route.stops.map((s) => (s.locode ? current(s.locode) : null)));
  // The route is derived from the container and its shipment: it exists since the container does and changes with
  // either of them.
  const updatedAt = [container.updatedAt, shipment.updatedAt].sort()[1] ?? container.updatedAt;
  return {
    route,
    ports: portRows.filter((p) => stopCodes.has(p.code)),
    vessels: vesselRows,
    createdAt: container.createdAt,
    updatedAt,
  };
}
