/**
 * Loading a container's map (`GET /v2/containers/{id}/map_geojson` and MCP `get_container_map`; docs/api.md
 * §Container map): the route as `/route` loads it (src/containers/shipping-route-service.ts, same entitlement and
 * tenant checks), then the vessels and recorded tracks of the legs that have started (src/vessels/position-store.ts,
 * shared reference data), drawn by src/containers/map-geojson.ts.
 */

import type { Database } from "../db/client";
import { toIsoSeconds } from "../lib/clock";
import { findPortByLocode } from "../reference/locations";
import { findVessel, positionTrack, type VesselPositionRow, type VesselRow } from "../vessels/position-store";
import { type ContainerMap, containerMapGeoJson, EMPTY_MAP, fixOf, legUnderWay, planContainerMap } from "./map-geojson";
import type { ContainerRoute } from "./shipping-route";
import { findContainerRoute } from "./shipping-route-service";

/**
 * The map of one of the account's containers. A container without a shipment, or whose route has no port with
 * coordinates, has the empty FeatureCollection (200), as the reference answers "no route data yet".
 * Reads: the route (2 D1 round trips, `db` the account's shard and `primary`), then, in the primary (vessels and
 * positions live only there), one per started leg's vessel and one per started leg's track.
 * @param nowMs the end of the track of a leg under way.
 * @throws ApiError 403 without the `routing` entitlement (for every id); 404 for an unknown container or another
 *   account's.
 */
export async function getContainerMap(
  db: Database,
  primary: Database,
  accountId: string,
  containerId: string,
  nowMs: number,
): Promise<ContainerMap> {
  const loaded = await findContainerRoute(db, primary, accountId, containerId);
  if (!loaded) return EMPTY_MAP;
  const plan = planContainerMap(loaded, (code) => findPortByLocode(code)?.code ?? code);
  if (plan.ports.length === 0) return EMPTY_MAP;
  const nowIso = toIsoSeconds(nowMs);
  const started = plan.legs.map((leg, index) => ({ leg, index })).filter(({ leg }) => leg.state !== "planned");
  const ids = [...new Set(started.map(({ leg }) => leg.vesselId).filter((id): id is string => id !== null))];
  const [vesselRows, trackRows] = await Promise.all([
    Promise.all(ids.map((id) => findVessel(primary, id))),
    Promise.all(
      started.map(({ leg }) =>
        leg.vesselId
          ? positionTrack(primary, leg.vesselId, leg.from.stop.departed_at as string, leg.to.stop.arrived_at ?? nowIso)
          : Promise.resolve([] as VesselPositionRow[]),
      ),
    ),
  ]);
  const vessels = new Map<string, VesselRow>();
  for (const row of vesselRows) if (row) vessels.set(row.id, row);
  const tracks = new Map(started.map(({ index }, i) => [index, trackRows[i] ?? []]));
  return containerMapGeoJson(plan, { vessels, tracks });
}

/**
 * Where the vessel carrying a container is now (MCP `get_container_route`'s `current_vessel`; docs/mcp.md): the vessel
 * of the leg under way and its latest position from the vessels table (shared reference data), when that position was
 * taken since the leg's departure; `primary` is the primary database (vessels live only there). Null when the box is not at sea on a vessel we can name, or its position is unknown.
 * Speed in knots, heading in degrees from true north, timestamp UTC ISO 8601.
 */
export async function currentVesselPosition(
  primary: Database,
  route: ContainerRoute,
): Promise<CurrentVesselPosition | null> {
  const leg = legUnderWay(route);
  if (!leg) return null;
  const vessel = await findVessel(primary, leg.vesselId);
  const at = fixOf(vessel, leg.departed_at);
  if (!vessel || !at) return null;
  return {
    vessel_name: vessel.name ?? leg.vessel?.name ?? null,
    imo: vessel.imo,
    voyage_number: leg.vessel?.voyage_number ?? null,
    from_locode: leg.from_locode,
    to_locode: leg.to_locode,
    latitude: at[1],
    longitude: at[0],
    speed_knots: vessel.nauticalSpeedKnots,
    heading_degrees: vessel.navigationalHeadingDegrees,
    timestamp: vessel.positionTimestamp as string,
  };
}

/** The vessel carrying a container now and its latest position (see {@link currentVesselPosition}). */
export interface CurrentVesselPosition {
  vessel_name: string | null;
  imo: string;
  voyage_number: string | null;
  /** UN/LOCODEs of the leg's ends. */
  from_locode: string | null;
  to_locode: string | null;
  latitude: number;
  longitude: number;
  speed_knots: number | null;
  heading_degrees: number | null;
  timestamp: string;
}
