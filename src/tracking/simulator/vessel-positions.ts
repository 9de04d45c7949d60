/**
 * Where the simulator's vessels are (docs/architecture.md §Vessel positions, "simulator"): a journey's vessel sails
 * its ocean leg along the sea route between the real coordinates of its ports (src/geo/sea-route.ts, ports from the
 * reference data), at the even pace that gets it from its departure to its arrival on the journey's schedule. So the
 * position of a simulated vessel is a pure function of the journey and the time — the same at every call — and
 * `npm start` shows vessels moving without an AIS key.
 *
 * {@link simulatedVesselPositions} is that function; {@link SimulatorPositionSource} is the simulator's
 * `VesselPositionSource` (src/vessels/positions/source.ts): it reports, for the vessels it follows, their positions
 * in the journeys it is shown.
 */

import { RouteWalker } from "../../geo/along-route";
import type { LonLat } from "../../geo/geodesy";
import { type SeaRoute, seaRoute } from "../../geo/sea-route";
import { toIsoSeconds } from "../../lib/clock";
import { findPortByLocode } from "../../reference/locations";
import type {
  TrackedVessel,
  VesselPositionReport,
  VesselPositionSink,
  VesselPositionSource,
} from "../../vessels/positions/source";
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
 * The simulator's position source: it follows a set of vessels (by IMO number) and, each time it is shown journeys
 * ({@link SimulatorPositionSource.observe}, e.g. from the simulator's carrier lookup, which knows each box's journey
 * and when its tracking started), hands the positions of the followed vessels among them to the sink, one per vessel.
 * It never reports a vessel it does not follow.
 */
export class SimulatorPositionSource implements VesselPositionSource {
  readonly kind = "simulator" as const;
  private followed = new Set<string>();
  private closed = false;

  constructor(private readonly sink: VesselPositionSink) {}

  /** Replaces the followed set (by IMO number). */
  async follow(vessels: readonly TrackedVessel[]): Promise<void> {
    this.followed = new Set(vessels.map((v) => v.imo));
  }

  /**
   * Reports the followed vessels' positions in `journeys` at `nowMs` and flushes the sink.
   * @returns how many reports were handed over (0 once closed).
   */
  async observe(journeys: readonly Journey[], nowMs: number): Promise<number> {
    if (this.closed) return 0;
    // One report per vessel: two simulated journeys may name one vessel (their schedules differ); the first wins.
    const reported = new Set<string>();
    for (const journey of journeys) {
      for (const report of simulatedVesselPositions(journey, nowMs)) {
        if (!report.imo || !this.followed.has(report.imo) || reported.has(report.imo)) continue;
        reported.add(report.imo);
        this.sink.position(report);
      }
    }
    const count = reported.size;
    if (count > 0) await this.sink.flush();
    return count;
  }

  /** Stops reporting (idempotent). */
  async close(): Promise<void> {
    this.closed = true;
    this.followed = new Set();
  }
}
