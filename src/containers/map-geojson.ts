/**
 * The container's map (`GET /v2/containers/{id}/map_geojson`, MCP `get_container_map`; docs/api.md §Container map): an
 * RFC 7946 FeatureCollection in the reference's shape — the route's ports as points (`port`, labels POL, TS1…, POD,
 * with their times), the vessel now (`current_vessel`), and the legs between the ports as lines: sailed
 * (`past_vessel_locations`: the vessel's recorded track where we have it, joined to its ports along the sea route, else
 * the sea route; `start_time`/`end_time` are the leg's departure and arrival, or the fix time under way), the rest of the leg
 * under way (`estimated_partial_leg`, from the vessel to the next port) and legs not started (`estimated_full_legs`),
 * along the sea route (src/geo/sea-route.ts). A line that crosses the antimeridian is a MultiLineString cut there
 * (RFC 7946 §3.1.9), where the reference draws it across the world.
 *
 * This module is pure: {@link planContainerMap} reads the route (src/containers/shipping-route.ts, as loaded by
 * shipping-route-service.ts) into ports and legs; the service reads the vessels and tracks the plan asks for; then
 * {@link containerMapGeoJson} draws. No I/O.
 */

import { type LineGeometry, lineGeometry } from "../geo/antimeridian";
import { distanceNm, type LonLat } from "../geo/geodesy";
import { seaRoute } from "../geo/sea-route";
import { vesselIdForImo } from "../vessels/identity";
import type { VesselPositionRow, VesselRow } from "../vessels/position-store";
import type { ContainerRoute, RouteLeg, RouteStop, VesselRef } from "./shipping-route";
import type { LoadedRoute } from "./shipping-route-serializer";

type PortRow = LoadedRoute["ports"][number];

/** A port of the map: a stop of the route at a port with coordinates. */
export interface MapPort {
  /** 1-based position among the map's ports (the reference's `ports_sequence`). */
  sequence: number;
  /** `POL`, `TS1`, `TS2`…, `POD`. */
  label: string;
  stop: RouteStop;
  port: PortRow;
  position: LonLat;
}

/**
 * A leg between two consecutive map ports. `state`: `done` (left and arrived: ATD and ATA), `under_way` (left, not
 * arrived), `planned` (not left).
 */
export interface MapLeg {
  from: MapPort;
  to: MapPort;
  vessel: VesselRef | null;
  /** The vessel's id (from its IMO number), or null when the route names none with an IMO number. */
  vesselId: string | null;
  state: "done" | "under_way" | "planned";
}

/** The ports and legs of a container's map, before any vessel fact is read. */
export interface ContainerMapPlan {
  ports: MapPort[];
  legs: MapLeg[];
  /** `updated_at` of every port feature: when the route's data last changed. */
  updatedAt: string;
}

/** What the service read for the plan: vessel rows by id, and each leg's recorded track (index of `plan.legs`). */
export interface ContainerMapFacts {
  vessels: ReadonlyMap<string, VesselRow>;
  tracks: ReadonlyMap<number, readonly VesselPositionRow[]>;
}

/** The map's `feature_type`s (docs/api.md §Container map), in the reference's spelling (plural/singular as is). */
export const MAP_FEATURE_TYPES = [
  "port",
  "current_vessel",
  "past_vessel_locations",
  "estimated_partial_leg",
  "estimated_full_legs",
] as const;

/** One of {@link MAP_FEATURE_TYPES}. */
export type MapFeatureType = (typeof MAP_FEATURE_TYPES)[number];

/** A GeoJSON Feature of the map (RFC 7946 §3.2): no `id`, properties discriminated by `feature_type`. */
export interface MapFeature {
  type: "Feature";
  geometry: { type: "Point"; coordinates: LonLat } | LineGeometry;
  properties: { feature_type: MapFeatureType } & Record<string, unknown>;
}

/** The map document (RFC 7946 §3.3). */
export interface ContainerMap {
  type: "FeatureCollection";
  features: MapFeature[];
}

/** The empty map: the answer for a container with no route data yet (the reference's rule). */
export const EMPTY_MAP: ContainerMap = { type: "FeatureCollection", features: [] };

const ROLE_ORDER: Record<RouteStop["role"], string | null> = {
  port_of_lading: "POL",
  transshipment: "TS",
  port_of_discharge: "POD",
  inland_destination: null,
};

/** `[lon, lat]` of a port row, or null without coordinates. */
function positionOf(port: PortRow): LonLat | null {
  const lat = port.latitude === null ? Number.NaN : Number(port.latitude);
  const lon = port.longitude === null ? Number.NaN : Number(port.longitude);
  return Number.isFinite(lat) && Number.isFinite(lon) ? [lon, lat] : null;
}

/**
 * The map's ports and legs from a loaded route: each port stop (POL, transshipments, POD; not the inland destination)
 * whose port has coordinates, labelled POL / TSn / POD, and a leg between each two consecutive such ports carried by
 * the vessel of the route's leg leaving the first (stops without a known port are passed over). A leg under way whose
 * vessel has no position since it left is drawn as not started (`estimated_full_legs`): without a fix there is no
 * `current_vessel`, and the reference draws a partial leg only with one.
 * @param current the UN/LOCODE under which the ports table holds a stop's port (it may have been renamed).
 */
export function planContainerMap(loaded: LoadedRoute, current: (locode: string) => string): ContainerMapPlan {
  const byCode = new Map(loaded.ports.map((p) => [p.code, p]));
  const ports: MapPort[] = [];
  const legVessel: (VesselRef | null)[] = [];
  let transshipments = 0;
  loaded.route.stops.forEach((stop, index) => {
    const role = ROLE_ORDER[stop.role];
    if (!role || !stop.locode) return;
    const port = byCode.get(current(stop.locode));
    const position = port ? positionOf(port) : null;
    if (!port || !position) return;
    const label = role === "TS" ? `TS${++transshipments}` : role;
    ports.push({ sequence: ports.length + 1, label, stop, port, position });
    legVessel.push(loaded.route.legs[index]?.vessel ?? null);
  });
  const legs: MapLeg[] = [];
  for (let i = 0; i + 1 < ports.length; i++) {
    const from = ports[i] as MapPort;
    const to = ports[i + 1] as MapPort;
    const vessel = legVessel[i] ?? null;
    const state = from.stop.departed_at ? (to.stop.arrived_at ? "done" : "under_way") : "planned";
    legs.push({ from, to, vessel, vesselId: vesselIdForImo(vessel?.imo), state });
  }
  return { ports, legs, updatedAt: loaded.updatedAt };
}

/** The country name of an ISO 3166-1 alpha-2 code in English (CLDR via Intl), the code itself if unknown. */
function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}

function portFeature(p: MapPort, total: number, updatedAt: string): MapFeature {
  return {
    type: "Feature",
    geometry: { type: "Point", coordinates: p.position },
    properties: {
      feature_type: "port",
      ports_sequence: p.sequence,
      ports_total: total,
      location_id: p.port.id,
      location_type: "Port",
      name: p.port.name,
      state_abbr: p.port.stateAbbr,
      state: null,
      country_code: p.port.countryCode,
      country: countryName(p.port.countryCode),
      time_zone: p.port.timeZone,
      label: p.label,
      inbound_eta_at: p.stop.estimated_arrival_at,
      inbound_ata_at: p.stop.arrived_at,
      outbound_etd_at: p.stop.estimated_departure_at,
      outbound_atd_at: p.stop.departed_at,
      updated_at: updatedAt,
    },
  };
}

/** A line feature; `point_count` counts the positions of every part. */
function lineFeature(coordinates: LonLat[], properties: MapFeature["properties"]): MapFeature {
  const geometry = lineGeometry(coordinates);
  const pointCount =
    geometry.type === "LineString"
      ? geometry.coordinates.length
      : geometry.coordinates.reduce((n, part) => n + part.length, 0);
  return { type: "Feature", geometry, properties: { ...properties, point_count: pointCount } };
}

/** The sea route's positions between two points; a two-point line when the network joins none (never thrown). */
function seaLine(from: LonLat, to: LonLat): LonLat[] {
  return seaRoute(from, to)?.coordinates ?? [from, to];
}

/** Whether a recorded latitude/longitude is a WGS84 position (AIS sends 91/181 for "not available"). */
function isPosition(latitude: number | null, longitude: number | null): boolean {
  return (
    latitude !== null &&
    longitude !== null &&
    Number.isFinite(latitude) &&
    Number.isFinite(longitude) &&
    Math.abs(latitude) <= 90 &&
    Math.abs(longitude) <= 180
  );
}

/** Positions of a recorded track (oldest first), without any that is not a WGS84 position. */
function usableTrack(track: readonly VesselPositionRow[]): VesselPositionRow[] {
  return track.filter((p) => isPosition(p.latitude, p.longitude));
}

const trackLine = (track: readonly VesselPositionRow[]): LonLat[] => track.map((p) => [p.longitude, p.latitude]);

/**
 * How far (nautical miles) a recorded track may start from its departure port, or end from its arrival port, before
 * the gap is drawn along the sea route: positions are kept 7 days, so a longer leg's track starts at sea.
 */
const TRACK_GAP_NM = 25;

/**
 * A recorded track joined to its ports: the sea route from `start` to its first position and from its last position to
 * `end` (when given) wherever the gap is over {@link TRACK_GAP_NM}, so a sailed leg is one line from port to port.
 */
function bridged(start: LonLat, line: LonLat[], end: LonLat | null): LonLat[] {
  let out = line;
  const first = out[0];
  if (first && distanceNm(start, first) > TRACK_GAP_NM) out = [...seaLine(start, first).slice(0, -1), ...out];
  const last = out[out.length - 1];
  if (end && last && distanceNm(last, end) > TRACK_GAP_NM) out = [...out, ...seaLine(last, end).slice(1)];
  return out;
}

/** A line ending at `end` (appended unless it already ends there). */
function withEnd(line: LonLat[], end: LonLat): LonLat[] {
  const last = line[line.length - 1];
  return last && last[0] === end[0] && last[1] === end[1] ? line : [...line, end];
}

/**
 * The ocean leg carrying the box now: the first vessel (or feeder) leg that has departed and not arrived, with a
 * vessel we can name by IMO number; null when the box is in port, on rail, or the vessel has no IMO number.
 */
export function legUnderWay(route: ContainerRoute): (RouteLeg & { departed_at: string; vesselId: string }) | null {
  for (const leg of route.legs) {
    if (leg.mode === "rail" || !leg.departed_at || leg.arrived_at) continue;
    const vesselId = vesselIdForImo(leg.vessel?.imo);
    return vesselId ? { ...leg, departed_at: leg.departed_at, vesselId } : null;
  }
  return null;
}

/**
 * The vessel's position as a valid fix for a leg that departed at `departedAt`: its latest position, if taken since
 * the departure (an older one is from before the leg: the map's rule, docs/api.md §Container map, `current_vessel`).
 */
export function fixOf(vessel: VesselRow | undefined, departedAt: string): LonLat | null {
  if (!vessel?.positionTimestamp || !isPosition(vessel.latitude, vessel.longitude)) return null;
  if (vessel.positionTimestamp < departedAt) return null;
  return [vessel.longitude as number, vessel.latitude as number];
}

function currentVesselFeature(leg: MapLeg, vessel: VesselRow, at: LonLat): MapFeature {
  const { from, to } = leg;
  return {
    type: "Feature",
    geometry: { type: "Point", coordinates: at },
    properties: {
      feature_type: "current_vessel",
      ports_sequence: from.sequence,
      vessel_id: vessel.id,
      vessel_name: vessel.name ?? leg.vessel?.name ?? null,
      vessel_imo: vessel.imo,
      voyage_number: leg.vessel?.voyage_number ?? null,
      vessel_location_timestamp: vessel.positionTimestamp,
      vessel_location_heading: vessel.navigationalHeadingDegrees,
      vessel_location_speed: vessel.nauticalSpeedKnots,
      departure_port_id: from.port.id,
      departure_port_name: from.port.name,
      departure_port_state_abbr: from.port.stateAbbr,
      departure_port_state: null,
      departure_port_country_code: from.port.countryCode,
      departure_port_country: countryName(from.port.countryCode),
      departure_port_label: from.label,
      departure_port_atd: from.stop.departed_at,
      departure_port_time_zone: from.port.timeZone,
      arrival_port_id: to.port.id,
      arrival_port_name: to.port.name,
      arrival_port_state_abbr: to.port.stateAbbr,
      arrival_port_state: null,
      arrival_port_country_code: to.port.countryCode,
      arrival_port_country: countryName(to.port.countryCode),
      arrival_port_label: to.label,
      arrival_port_eta: to.stop.estimated_arrival_at,
      arrival_port_time_zone: to.port.timeZone,
    },
  };
}

/** The features of one leg, in the reference's order: current vessel, sailed track, estimate. */
function legFeatures(leg: MapLeg, index: number, facts: ContainerMapFacts): MapFeature[] {
  const { from, to } = leg;
  const planned = (): MapFeature =>
    lineFeature(seaLine(from.position, to.position), {
      feature_type: "estimated_full_legs",
      ports_sequence: from.sequence,
      previous_port_id: from.port.id,
      next_port_id: to.port.id,
    });
  if (leg.state === "planned") return [planned()];
  const departedAt = from.stop.departed_at as string;
  const track = usableTrack(facts.tracks.get(index) ?? []);
  const vessel = leg.vesselId ? facts.vessels.get(leg.vesselId) : undefined;
  const past = (coordinates: LonLat[], start: string, end: string | null): MapFeature =>
    lineFeature(coordinates, {
      feature_type: "past_vessel_locations",
      ports_sequence: from.sequence,
      vessel_id: leg.vesselId,
      start_time: start,
      end_time: end,
      outbound_atd_at: departedAt,
      inbound_ata_at: to.stop.arrived_at,
      inbound_eta_at: to.stop.estimated_arrival_at,
    });
  const recorded = track.length >= 2;
  if (leg.state === "done") {
    const line = recorded ? bridged(from.position, trackLine(track), to.position) : seaLine(from.position, to.position);
    return [past(line, departedAt, to.stop.arrived_at)];
  }
  // Under way: the vessel's fix splits the leg into what was sailed and what is left.
  const at = fixOf(vessel, departedAt);
  if (!vessel || !at) return [planned()];
  const sailed = recorded ? bridged(from.position, withEnd(trackLine(track), at), null) : seaLine(from.position, at);
  return [
    currentVesselFeature(leg, vessel, at),
    past(sailed, departedAt, vessel.positionTimestamp),
    lineFeature(seaLine(at, to.position), {
      feature_type: "estimated_partial_leg",
      ports_sequence: from.sequence,
      current_port_id: from.port.id,
      next_port_id: to.port.id,
    }),
  ];
}

/**
 * The map of a planned route: by `ports_sequence`, each port then the features of the leg leaving it. Empty (the
 * reference's empty collection) when no port of the route has coordinates.
 */
export function containerMapGeoJson(plan: ContainerMapPlan, facts: ContainerMapFacts): ContainerMap {
  const features: MapFeature[] = [];
  plan.ports.forEach((port, i) => {
    features.push(portFeature(port, plan.ports.length, plan.updatedAt));
    const leg = plan.legs[i];
    if (leg) features.push(...legFeatures(leg, i, facts));
  });
  return { type: "FeatureCollection", features };
}
