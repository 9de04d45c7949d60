/**
 * Where the simulator's vessels are (docs/architecture.md §Vessel positions, "simulator"): a journey's vessel sails
 * its ocean leg along the sea route between the real coordinates of its ports (src/geo/sea-route.ts, ports from the
 * reference data), at the even pace that gets it from its departure to its arrival on the journey's schedule. So the
 * position of a simulated vessel is a pure function of the journey and the time — the same at every call — and
 * `npm start` shows vessels moving without an AIS key.
 *
 * {@link simulatedVesselPositions} is that function; {@link recordSimulatedPositions} writes its answer to the
 * position store the AIS feed also writes to.
 */

import { createDatabase } from "../../db/client";
import { RouteWalker } from "../../geo/along-route";
import type { LonLat } from "../../geo/geodesy";
import { type SeaRoute, seaRoute } from "../../geo/sea-route";
import { toIsoSeconds } from "../../lib/clock";
import { findPortByLocode } from "../../reference/locations";
import { recordPositions } from "../../vessels/position-store";
import type { VesselPositionReport } from "../../vessels/positions/source";
import { realMsOf } from "./simulated-time";
import { oceanLegsOf } from "./state";
import type { Journey, JourneyLeg } from "./types";

/** An ocean leg placed in real time: departure and arrival, ms since the epoch. */
interface TimedLeg {
  leg: JourneyLeg;
  departsMs: number;
  arrivesMs: number;
}

/** The ocean legs of a journey with their real departure and arrival times. */
function timedLegs(journey: Journey): TimedLeg[] {
  const legs = oceanLegsOf(journey);
  const ts = journey.transshipment;
  if (!ts) {
    return [
      {
        leg: legs[0],
        departsMs: realMsOf(journey, journey.vesselDepartedDay),
        arrivesMs: realMsOf(journey, journey.vesselArrivedDay),
      },
    ];
  }
  return [
    {
      leg: legs[0],
      departsMs: realMsOf(journey, journey.vesselDepartedDay),
      arrivesMs: realMsOf(journey, ts.arrivedDay),
    },
    {
      leg: legs[1] ?? legs[0],
      departsMs: realMsOf(journey, ts.departedDay),
      arrivesMs: realMsOf(journey, journey.vesselArrivedDay),
    },
  ];
}

/** Sea routes between port pairs, kept per isolate (a journey asks for the same legs on every poll). */
const routes = new Map<string, SeaRoute | null>();
const MAX_CACHED_ROUTES = 500;

/** The sea route between two ports by UN/LOCODE, or null when either has no coordinates or no route joins them. */
function routeBetween(fromLocode: string, toLocode: string): SeaRoute | null {
  const key = `${fromLocode}>${toLocode}`;
  const cached = routes.get(key);
  if (cached !== undefined) return cached;
  const at = (locode: string): LonLat | null => {
    const port = findPortByLocode(locode);
    const lat = Number(port?.latitude ?? Number.NaN);
    const lon = Number(port?.longitude ?? Number.NaN);
    return port?.latitude && port.longitude && Number.isFinite(lat) && Number.isFinite(lon) ? [lon, lat] : null;
  };
  const from = at(fromLocode);
  const to = at(toLocode);
  const route = from && to ? seaRoute(from, to) : null;
  if (routes.size >= MAX_CACHED_ROUTES) routes.clear();
  routes.set(key, route);
  return route;
}

/**
 * The positions of a journey's vessels at `nowMs`: one report for each ocean leg under way then (departed, not yet
 * arrived), on the sea route between its ports at the fraction of the leg's time elapsed. `speedKnots` is the leg's
 * length over its duration on the simulated calendar (what the ship would do at real-time speed); `headingDegrees`
 * is along the route; `timestamp` is `nowMs`. Vessels in port, legs whose ports have no coordinates, and vessels
 * without a 7-digit IMO number report nothing.
 */
export function simulatedVesselPositions(journey: Journey, nowMs: number): VesselPositionReport[] {
  const reports: VesselPositionReport[] = [];
  for (const { leg, departsMs, arrivesMs } of timedLegs(journey)) {
    if (nowMs < departsMs || nowMs >= arrivesMs || !/^\d{7}$/.test(leg.vessel.imo)) continue;
    const route = routeBetween(leg.from.locode, leg.to.locode);
    if (!route) continue;
    const fraction = (nowMs - departsMs) / (arrivesMs - departsMs);
    const point = new RouteWalker(route.coordinates).at(fraction * route.lengthNm);
    // Simulated hours of the leg: real duration × simulated days per real minute × 24 h per simulated day.
    const simulatedHours = ((arrivesMs - departsMs) / 60_000) * journey.speed * 24;
    reports.push({
      imo: leg.vessel.imo,
      mmsi: null,
      latitude: Math.round(point.position[1] * 1e6) / 1e6,
      longitude: Math.round(point.position[0] * 1e6) / 1e6,
      speedKnots: Math.round((route.lengthNm / simulatedHours) * 10) / 10,
      headingDegrees: point.headingDegrees,
      timestamp: toIsoSeconds(nowMs),
      source: "simulator",
    });
  }
  return reports;
}

/**
 * Records where `journey`'s vessels are at `nowMs` ({@link simulatedVesselPositions}) in the shared position store
 * (`recordPositions`, src/vessels/position-store.ts: thinned, bounded, creating the vessel row from its IMO number).
 * The simulator's carrier calls it on every lookup of a simulated box (`onJourney`, src/tracking/sources/index.ts), so
 * the vessels of tracked simulated boxes move locally without an AIS feed. Nothing is written while the journey's
 * vessels are in port.
 * @returns how many positions were handed to the store.
 */
export async function recordSimulatedPositions(d1: D1Database, journey: Journey, nowMs: number): Promise<number> {
  const positions = simulatedVesselPositions(journey, nowMs);
  if (positions.length === 0) return 0;
  await recordPositions(createDatabase(d1), { positions }, nowMs);
  return positions.length;
}
