import { describe, expect, it } from "vitest";
import { lineGeometry, splitAtAntimeridian } from "../../src/geo/antimeridian";
import { distanceNm, type LonLat } from "../../src/geo/geodesy";
import { seaRoute } from "../../src/geo/sea-route";
import { PORTS } from "../../src/reference/generated/ports";

// Port positions (ports table / UN/LOCODE list, rounded).
const SHANGHAI: LonLat = [121.5, 31.23];
const ROTTERDAM: LonLat = [4.0, 51.95];
const LOS_ANGELES: LonLat = [-118.26, 33.73];
const NEW_YORK: LonLat = [-74.04, 40.67];
const YOKOHAMA: LonLat = [139.64, 35.44];

/** Whether the line passes within `nm` nautical miles of `p` (through one of its vertices). */
function passesNear(coords: LonLat[], p: LonLat, nm: number): boolean {
  return coords.some((c) => distanceNm(c, p) <= nm);
}

describe("seaRoute", () => {
  it("Shanghai → Rotterdam goes through Malacca and Suez, not over Asia", () => {
    const route = seaRoute(SHANGHAI, ROTTERDAM);
    expect(route).not.toBeNull();
    const c = route?.coordinates ?? [];
    expect(c[0]).toEqual(SHANGHAI);
    expect(c[c.length - 1]).toEqual(ROTTERDAM);
    expect(passesNear(c, [103.8, 1.25], 150)).toBe(true); // Singapore Strait
    expect(passesNear(c, [32.55, 30.0], 100)).toBe(true); // Suez Canal
    expect(passesNear(c, [-5.6, 35.95], 100)).toBe(true); // Strait of Gibraltar
    // Never far inland over Asia: no vertex near Central Asia (e.g. Almaty), none north of 56° before Europe.
    expect(passesNear(c, [76.9, 43.2], 1500)).toBe(false);
    // ~10 500 nm by Suez (the Cape route is ~14 000 nm).
    expect(route?.lengthNm).toBeGreaterThan(9_500);
    expect(route?.lengthNm).toBeLessThan(11_500);
  });

  it("Los Angeles → New York goes through the Panama Canal", () => {
    const route = seaRoute(LOS_ANGELES, NEW_YORK);
    const c = route?.coordinates ?? [];
    expect(passesNear(c, [-79.7, 9.1], 100)).toBe(true);
    // Never over the continental US: no vertex between 30°N and 40°N west of −80° after leaving the Pacific coast.
    expect(c.some(([lon, lat]) => lon > -115 && lon < -82 && lat > 31)).toBe(false);
    expect(route?.lengthNm).toBeGreaterThan(4_500);
    expect(route?.lengthNm).toBeLessThan(5_600);
  });

  it("a Pacific crossing takes the short way over the antimeridian", () => {
    const route = seaRoute(SHANGHAI, LOS_ANGELES);
    const c = route?.coordinates ?? [];
    // ~5 700 nm across the Pacific; the long way (Suez, Atlantic, Panama) is ~16 000 nm.
    expect(route?.lengthNm).toBeLessThan(6_500);
    expect(passesNear(c, [32.55, 30.0], 1000)).toBe(false);
    // It does cross the antimeridian: some consecutive longitudes jump by more than 180°.
    const jumps = c.filter((p, i) => i > 0 && Math.abs(p[0] - (c[i - 1] as LonLat)[0]) > 180);
    expect(jumps.length).toBe(1);
    for (const [lon, lat] of c) {
      expect(Math.abs(lon)).toBeLessThanOrEqual(180);
      expect(Math.abs(lat)).toBeLessThanOrEqual(90);
    }
  });

  it("is the same route both ways (same length) and has no duplicate consecutive positions", () => {
    const there = seaRoute(YOKOHAMA, LOS_ANGELES);
    const back = seaRoute(LOS_ANGELES, YOKOHAMA);
    expect(there?.lengthNm).toBeCloseTo(back?.lengthNm ?? 0, 0);
    const c = there?.coordinates ?? [];
    for (let i = 1; i < c.length; i++) expect(c[i]).not.toEqual(c[i - 1]);
  });

  it("two positions joining the same fairway vertex go through it", () => {
    const a: LonLat = [4.0, 51.95];
    const b: LonLat = [4.001, 51.951];
    const c = seaRoute(a, b)?.coordinates ?? [];
    expect(c).toHaveLength(3);
    expect(c[0]).toEqual(a);
    expect(c[2]).toEqual(b);
    expect(distanceNm(c[1] as LonLat, a)).toBeLessThan(20);
  });

  it("routes from a port next to a stray fragment of the network (Colombo) and from a sample of every port", () => {
    expect(seaRoute([79.85, 6.92], [-9.13, 38.72])?.lengthNm).toBeGreaterThan(5_000);
    const ports = PORTS.filter((p) => p.latitude && p.longitude).filter((_, i) => i % 25 === 0);
    expect(ports.length).toBeGreaterThan(60);
    for (const p of ports) {
      expect(seaRoute([Number(p.longitude), Number(p.latitude)], SHANGHAI), p.code).not.toBeNull();
    }
  });

  it("rejects positions that are not WGS84", () => {
    expect(() => seaRoute([181, 0], ROTTERDAM)).toThrow(RangeError);
    expect(() => seaRoute([0, Number.NaN], ROTTERDAM)).toThrow(RangeError);
  });
});

describe("splitAtAntimeridian / lineGeometry", () => {
  it("cuts a crossing eastwards at 180 / −180 with the interpolated latitude", () => {
    const parts = splitAtAntimeridian([
      [170, 10],
      [178, 20],
      [-178, 30],
      [-170, 40],
    ]);
    expect(parts).toEqual([
      [
        [170, 10],
        [178, 20],
        [180, 25],
      ],
      [
        [-180, 25],
        [-178, 30],
        [-170, 40],
      ],
    ]);
  });

  it("cuts a crossing westwards and keeps a vertex lying on the meridian", () => {
    expect(
      splitAtAntimeridian([
        [-170, 0],
        [-180, 5],
        [175, 10],
      ]),
    ).toEqual([
      [
        [-170, 0],
        [-180, 5],
      ],
      [
        [180, 5],
        [175, 10],
      ],
    ]);
  });

  it("leaves a line that does not cross as one LineString", () => {
    const line: LonLat[] = [
      [0, 0],
      [10, 10],
    ];
    expect(lineGeometry(line)).toEqual({ type: "LineString", coordinates: line });
  });

  it("makes the Pacific sea route a MultiLineString no part of which spans more than 180°", () => {
    const geometry = lineGeometry(seaRoute(SHANGHAI, LOS_ANGELES)?.coordinates ?? []);
    expect(geometry.type).toBe("MultiLineString");
    const parts = geometry.coordinates as LonLat[][];
    expect(parts).toHaveLength(2);
    for (const part of parts) {
      for (let i = 1; i < part.length; i++) {
        expect(Math.abs((part[i] as LonLat)[0] - (part[i - 1] as LonLat)[0])).toBeLessThan(180);
      }
    }
  });
});
