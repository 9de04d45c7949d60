/**
 * Predicted positions of a vessel (docs/api.md §Future positions; the reference's `future_positions` and
 * `future_positions_with_coordinates`): the shortest sea route (src/geo/sea-route.ts) from the previous port, or from
 * a given position, to the next port, sailed at the vessel's speed from now, one point a minute, each `estimated`.
 * Behind the `routing` entitlement, checked first (403 for every vessel and port without it); then the vessel (404), the
 * parameters (400, checked by the routes), the ports (404).
 */

import { assertRoutingEnabled } from "../containers/shipping-route-service";
import type { Database } from "../db/client";
import { predictedTrack, type TrackPoint } from "../geo/along-route";
import type { LonLat } from "../geo/geodesy";
import { seaRoute } from "../geo/sea-route";
import { ApiError } from "../lib/errors";
import type { PortRow } from "../ports/serializer";
import { findPort } from "../ports/service";
import { findVessel, type VesselRow } from "./position-store";

/** Speed assumed when the vessel's last reported speed is unknown or below {@link MIN_UNDERWAY_KNOTS}, knots. */
export const DEFAULT_SPEED_KNOTS = 16;

/**
 * Below this speed over ground (knots) a vessel is taken as not under way (at berth, at anchor, manoeuvring): its speed
 * says nothing of the passage ahead, so {@link DEFAULT_SPEED_KNOTS} is used instead.
 */
export const MIN_UNDERWAY_KNOTS = 5;

/** Time between predicted positions: exactly one minute (the reference's rule). */
export const FUTURE_POSITION_STEP_MS = 60_000;

/**
 * Most predicted positions in one answer: 30 days of minutes (43 200). A longer passage (over ~11 500 nm at 16 kn)
 * stops there, short of the port; sizes measured in docs/api.md §Future positions.
 */
export const MAX_FUTURE_POSITIONS = 43_200;

/** A predicted position as the wire has it (docs/api.md §Future positions, the reference's position object). */
export interface FuturePosition {
  latitude: number;
  longitude: number;
  /** Degrees from true north along the track, [0, 360). */
  heading: number;
  /** UTC ISO 8601, seconds. */
  timestamp: string;
  estimated: true;
}

/** What `future_positions` (no `from`) and `future_positions_with_coordinates` (with `from`) ask of a vessel. */
export interface FuturePositionsQuery {
  /** Destination port: its id (UUID) or UN/LOCODE. */
  portId: string;
  /** The port the leg starts from: its id (UUID) or UN/LOCODE. */
  previousPortId: string;
  /** Where the vessel is now (with_coordinates); absent: the leg starts at the previous port. */
  from?: { latitude: number; longitude: number };
}

/** The answer: the vessel row, the speed used, and the predicted track (first point now). */
export interface FuturePositions {
  vessel: VesselRow;
  speedKnots: number;
  positions: FuturePosition[];
  /** False when {@link MAX_FUTURE_POSITIONS} cut the track short of the port. */
  complete: boolean;
}

/** The `[lon, lat]` of a port row (its coordinates are decimal strings), or null when it has none. */
export function portPosition(row: Pick<PortRow, "latitude" | "longitude">): LonLat | null {
  const lat = row.latitude === null ? Number.NaN : Number(row.latitude);
  const lon = row.longitude === null ? Number.NaN : Number(row.longitude);
  return Number.isFinite(lat) && Number.isFinite(lon) ? [lon, lat] : null;
}

/** The speed a prediction sails at: the vessel's last speed over ground when under way, else the default. */
export function predictionSpeedKnots(lastSpeedKnots: number | null | undefined): number {
  return lastSpeedKnots !== null && lastSpeedKnots !== undefined && lastSpeedKnots >= MIN_UNDERWAY_KNOTS
    ? lastSpeedKnots
    : DEFAULT_SPEED_KNOTS;
}

/** Track points on the wire: coordinates rounded to 6 decimals (~0.1 m), timestamps in ISO seconds. */
export function futurePositionsOf(points: readonly TrackPoint[]): FuturePosition[] {
  return points.map((p) => ({
    latitude: Math.round(p.position[1] * 1e6) / 1e6,
    longitude: Math.round(p.position[0] * 1e6) / 1e6,
    heading: p.headingDegrees,
    timestamp: new Date(p.timestampMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
    estimated: true,
  }));
}

/**
 * The vessel a prediction is asked for (docs/api.md §Future positions): the `routing` entitlement first (403 before
 * anything is read), then the vessel by id or IMO number; both from `primary`, the primary database (entitlements and
 * vessels live there, docs/SCALING.md §Shards).
 * @throws ApiError 403 without the entitlement; 404 for an unknown vessel.
 */
export async function vesselForPrediction(primary: Database, accountId: string, vesselKey: string): Promise<VesselRow> {
  await assertRoutingEnabled(primary, accountId);
  const vessel = await findVessel(primary, vesselKey);
  if (!vessel) throw ApiError.notFound("Couldn't find Vessel");
  return vessel;
}

/**
 * The predicted track of `vessel` to `query.portId` (docs/api.md §Future positions), for a vessel from
 * {@link vesselForPrediction}.
 * @param nowMs the first point's time (ms since the epoch; the route's start is "now").
 * @throws ApiError 404 for an unknown `port_id` or `previous_port_id` (`source.parameter` names it); 422
 *   (`source.parameter`) when a port has no coordinates or the maritime network joins no route between the two ends.
 */
export async function predictFuturePositions(
  db: Database,
  vessel: VesselRow,
  query: FuturePositionsQuery,
  nowMs: number,
): Promise<FuturePositions> {
  const [port, previousPort] = await Promise.all([findPort(db, query.portId), findPort(db, query.previousPortId)]);
  if (!port) throw new ApiError(404, [{ detail: "Couldn't find Port", source: { parameter: "port_id" } }]);
  if (!previousPort) {
    throw new ApiError(404, [{ detail: "Couldn't find Port", source: { parameter: "previous_port_id" } }]);
  }
  const to = portPosition(port);
  const previous = portPosition(previousPort);
  if (!to || !previous) {
    const parameter = to ? "previous_port_id" : "port_id";
    throw new ApiError(422, [{ detail: "This port has no coordinates to route from.", source: { parameter } }]);
  }
  const from: LonLat = query.from ? [query.from.longitude, query.from.latitude] : previous;
  const route = seaRoute(from, to);
  if (!route) {
    throw new ApiError(422, [{ detail: "No sea route joins these positions.", source: { parameter: "port_id" } }]);
  }
  const speedKnots = predictionSpeedKnots(vessel.nauticalSpeedKnots);
  const startMs = Math.floor(nowMs / 1000) * 1000;
  const { points, complete } = predictedTrack(route.coordinates, startMs, speedKnots, {
    stepMs: FUTURE_POSITION_STEP_MS,
    maxPoints: MAX_FUTURE_POSITIONS,
  });
  return { vessel, speedKnots, positions: futurePositionsOf(points), complete };
}
