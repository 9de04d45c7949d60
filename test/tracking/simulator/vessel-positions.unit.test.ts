import { describe, expect, it } from "vitest";
import { between, distanceNm, type LonLat } from "../../../src/geo/geodesy";
import { seaRoute } from "../../../src/geo/sea-route";
import { findPortByLocode } from "../../../src/reference/locations";
import { planJourney } from "../../../src/tracking/simulator/plan";
import { realMsOf } from "../../../src/tracking/simulator/simulated-time";
import { oceanLegsOf } from "../../../src/tracking/simulator/state";
import type { Journey } from "../../../src/tracking/simulator/types";
import { simulatedVesselPositions } from "../../../src/tracking/simulator/vessel-positions";
import { createSimulatorSource } from "../../../src/tracking/sources/simulator";
import type { VesselPositionReport } from "../../../src/vessels/positions/source";

// The simulator's vessels move along the sea route between their ports' real coordinates, on the journey's schedule,
// deterministically (src/tracking/simulator/vessel-positions.ts).

const ANCHOR = Date.UTC(2026, 0, 10);

/** Journeys for several numbers of one line: some with a transshipment, some without. */
function journeys(): Journey[] {
  return ["MAEU100000001", "MAEU100000002", "MAEU100000003", "MAEU100000004", "MAEU100000005", "MAEU100000006"].map(
    (number) => planJourney({ scac: "MAEU", number, requestType: "bill_of_lading", anchorMs: ANCHOR, speed: 1 }),
  );
}

const portAt = (locode: string): LonLat => {
  const p = findPortByLocode(locode);
  return [Number(p?.longitude), Number(p?.latitude)];
};

/** Distance from `p` to the nearest point of the line (sampled every ~1 nm along its great-circle segments). */
function distanceToLine(p: LonLat, line: LonLat[]): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1] as LonLat;
    const b = line[i] as LonLat;
    const steps = Math.max(1, Math.ceil(distanceNm(a, b)));
    for (let k = 0; k <= steps; k++) {
      const q = between(a, b, k / steps);
      best = Math.min(best, distanceNm(p, q));
    }
  }
  return best;
}

describe("simulatedVesselPositions", () => {
  it("puts the vessel of the leg under way on the sea route between its ports, at the elapsed fraction", () => {
    for (const journey of journeys()) {
      const [first] = oceanLegsOf(journey);
      const departs = realMsOf(journey, journey.vesselDepartedDay);
      const arrives = realMsOf(journey, journey.transshipment?.arrivedDay ?? journey.vesselArrivedDay);
      const mid = departs + (arrives - departs) / 2;
      const reports = simulatedVesselPositions(journey, mid);
      expect(reports).toHaveLength(1);
      const report = reports[0] as VesselPositionReport;
      expect(report).toMatchObject({ imo: first.vessel.imo, source: "simulator", mmsi: null });
      expect(report.timestamp).toBe(new Date(Math.floor(mid / 1000) * 1000).toISOString().replace(".000Z", "Z"));
      const from = portAt(first.from.locode);
      const to = portAt(first.to.locode);
      const route = seaRoute(from, to);
      const here: LonLat = [report.longitude, report.latitude];
      // On the route (within the 1 nm sampling of the check) …
      expect(distanceToLine(here, route?.coordinates ?? [])).toBeLessThan(1);
      // … about halfway: neither port is more than half the route away (great circle ≤ distance along the route).
      const length = route?.lengthNm ?? 0;
      expect(distanceNm(from, here)).toBeLessThanOrEqual(length / 2 + 1);
      expect(distanceNm(to, here)).toBeLessThanOrEqual(length / 2 + 1);
      expect(report.headingDegrees).toBeGreaterThanOrEqual(0);
      expect(report.headingDegrees).toBeLessThan(360);
      // The pace that sails the route in the leg's simulated time: one simulated day per real minute at speed 1.
      const simulatedHours = ((arrives - departs) / 60_000) * 24;
      expect(report.speedKnots).toBeCloseTo((route?.lengthNm ?? 0) / simulatedHours, 0);
    }
  });

  it("is deterministic: the same journey and time give the same positions", () => {
    const [a] = journeys();
    const [b] = journeys();
    const t = realMsOf(a as Journey, (a as Journey).vesselDepartedDay + 1);
    expect(simulatedVesselPositions(a as Journey, t)).toEqual(simulatedVesselPositions(b as Journey, t));
  });

  it("reports nothing before the departure, in the transshipment port, or after the arrival", () => {
    for (const journey of journeys()) {
      expect(simulatedVesselPositions(journey, realMsOf(journey, journey.vesselDepartedDay) - 1)).toEqual([]);
      expect(simulatedVesselPositions(journey, realMsOf(journey, journey.vesselArrivedDay) + 1)).toEqual([]);
      const ts = journey.transshipment;
      if (ts) {
        expect(simulatedVesselPositions(journey, realMsOf(journey, (ts.arrivedDay + ts.departedDay) / 2))).toEqual([]);
        const second = simulatedVesselPositions(
          journey,
          realMsOf(journey, (ts.departedDay + journey.vesselArrivedDay) / 2),
        );
        expect(second.map((r) => r.imo)).toEqual([ts.vessel.imo]);
      }
    }
    expect(journeys().some((j) => j.transshipment)).toBe(true);
    expect(journeys().some((j) => !j.transshipment)).toBe(true);
  });

  it("moves forward along the route as time passes", () => {
    const [journey] = journeys() as [Journey];
    const departs = realMsOf(journey, journey.vesselDepartedDay);
    const [first] = oceanLegsOf(journey);
    const from = portAt(first.from.locode);
    const t1 = simulatedVesselPositions(journey, departs + 60_000)[0] as VesselPositionReport;
    const t2 = simulatedVesselPositions(journey, departs + 120_000)[0] as VesselPositionReport;
    const d1 = distanceNm(from, [t1.longitude, t1.latitude]);
    const d2 = distanceNm(from, [t2.longitude, t2.latitude]);
    expect(d2).toBeGreaterThan(d1);
  });
});

describe("createSimulatorSource onJourney", () => {
  it("hands each lookup's journey and time to the hook: its vessel's position then", async () => {
    const positions: VesselPositionReport[] = [];
    const { carrier } = createSimulatorSource({
      speed: 1,
      onJourney: async (journey, nowMs) => positions.push(...simulatedVesselPositions(journey, nowMs)),
    });
    const journey = planJourney({
      scac: "MAEU",
      number: "MAEU100000001",
      requestType: "bill_of_lading",
      anchorMs: ANCHOR,
      speed: 1,
    });
    const now = realMsOf(journey, journey.vesselDepartedDay + 1);
    const found = await carrier.lookup(
      { requestType: "bill_of_lading", number: "MAEU100000001", scac: "MAEU" },
      { nowMs: now, trackingStartedAtMs: ANCHOR, fetch: () => Promise.reject(new Error("no network")) },
    );
    expect(found.kind).toBe("found");
    expect(positions).toEqual(simulatedVesselPositions(journey, now));
    expect(positions).toHaveLength(1);
  });

  it("a failing hook does not fail the lookup", async () => {
    const { carrier } = createSimulatorSource({ speed: 1, onJourney: () => Promise.reject(new Error("sink down")) });
    const found = await carrier.lookup(
      { requestType: "bill_of_lading", number: "MAEU100000001", scac: "MAEU" },
      { nowMs: ANCHOR, trackingStartedAtMs: ANCHOR, fetch: () => Promise.reject(new Error("no network")) },
    );
    expect(found.kind).toBe("found");
  });
});
