import { describe, expect, it } from "vitest";
import { predictedTrack, RouteWalker } from "../../src/geo/along-route";
import { distanceNm, type LonLat } from "../../src/geo/geodesy";

// Positions along a route (src/geo/along-route.ts): distance walking, headings, the minute-by-minute track.

const EQUATOR: LonLat[] = [
  [0, 0],
  [1, 0],
  [1, 1],
];

describe("RouteWalker", () => {
  it("finds the point at a distance along the route and the heading of its segment", () => {
    const walker = new RouteWalker(EQUATOR);
    const oneDegree = distanceNm([0, 0], [1, 0]);
    expect(walker.lengthNm).toBeCloseTo(oneDegree * 2, 6);
    const a = walker.at(oneDegree / 2);
    expect(a.position[0]).toBeCloseTo(0.5, 9);
    expect(a.position[1]).toBeCloseTo(0, 9);
    expect(a.headingDegrees).toBe(90);
    const b = walker.at(oneDegree * 1.5);
    expect(b.position[0]).toBeCloseTo(1, 9);
    expect(b.position[1]).toBeCloseTo(0.5, 6);
    expect(b.headingDegrees).toBe(0);
    // Backwards restarts the walk; beyond the end clamps to the destination.
    expect(walker.at(0).position).toEqual([0, 0]);
    expect(walker.at(1e9).position).toEqual([1, 1]);
  });

  it("crosses the antimeridian the short way", () => {
    const walker = new RouteWalker([
      [179, 0],
      [-179, 0],
    ]);
    expect(walker.lengthNm).toBeCloseTo(distanceNm([0, 0], [2, 0]), 6);
    const mid = walker.at(walker.lengthNm / 2).position;
    expect(Math.abs(mid[0])).toBeCloseTo(180, 6);
  });
});

describe("predictedTrack", () => {
  it("puts points one step apart in time and speed × step apart along the route, ending at the destination", () => {
    const { points, complete } = predictedTrack(EQUATOR, 1_000_000, 60, { stepMs: 60_000, maxPoints: 1_000 });
    expect(complete).toBe(true);
    // 120 nm at 60 kn = 120 minutes: 121 points (the first at the start, the last on arrival).
    expect(points).toHaveLength(Math.ceil(distanceNm([0, 0], [1, 0]) * 2) + 1);
    points.forEach((p, i) => {
      expect(p.timestampMs).toBe(1_000_000 + i * 60_000);
    });
    expect(points.at(-1)?.position).toEqual([1, 1]);
  });

  it("stops at maxPoints short of the destination, and says so", () => {
    const { points, complete } = predictedTrack(EQUATOR, 0, 1, { stepMs: 60_000, maxPoints: 10 });
    expect(points).toHaveLength(10);
    expect(complete).toBe(false);
  });

  it("rejects a speed that is not positive", () => {
    for (const speed of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => predictedTrack(EQUATOR, 0, speed, { stepMs: 60_000, maxPoints: 10 })).toThrow(RangeError);
    }
  });
});
