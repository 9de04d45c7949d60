import { getIssues } from "@placemarkio/check-geojson";
import { describe, expect, it } from "vitest";
import { containerMapGeoJson, legUnderWay, planContainerMap } from "../../src/containers/map-geojson";
import type { RouteLeg, RouteStop } from "../../src/containers/shipping-route";
import type { LoadedRoute } from "../../src/containers/shipping-route-serializer";
import { vesselIdForImo } from "../../src/vessels/identity";
import type { VesselPositionRow, VesselRow } from "../../src/vessels/position-store";

// The pure part of the container map (src/containers/map-geojson.ts): ports and labels from a route, legs by state,
// and what an unusable vessel position does.

const port = (code: string, name: string, country: string, lat: string | null, lon: string | null) => ({
  id: `port-${code}`,
  code,
  name,
  city: name,
  stateAbbr: null,
  countryCode: country,
  latitude: lat,
  longitude: lon,
  timeZone: "UTC",
});

const stop = (role: RouteStop["role"], locode: string | null, times: Partial<RouteStop> = {}): RouteStop => ({
  role,
  locode,
  name: locode,
  timezone: null,
  arrived_at: null,
  estimated_arrival_at: null,
  departed_at: null,
  estimated_departure_at: null,
  ...times,
});

const leg = (from: RouteStop, to: RouteStop, imo: string | null): RouteLeg => ({
  mode: to.role === "inland_destination" ? "rail" : "vessel",
  from_locode: from.locode,
  to_locode: to.locode,
  vessel: imo ? { name: `SHIP ${imo}`, imo, voyage_number: "1" } : null,
  carrier_scac: null,
  departed_at: from.departed_at,
  estimated_departure_at: from.estimated_departure_at,
  arrived_at: to.arrived_at,
  estimated_arrival_at: to.estimated_arrival_at,
});

/** POL Shanghai → TS Singapore → (unknown TS) → TS Colombo → POD Rotterdam → inland Duisburg. */
function route(): LoadedRoute {
  const stops = [
    stop("port_of_lading", "CNSHA", { departed_at: "2026-01-01T00:00:00Z" }),
    stop("transshipment", "SGSIN", { arrived_at: "2026-01-06T00:00:00Z", departed_at: "2026-01-07T00:00:00Z" }),
    stop("transshipment", null),
    stop("transshipment", "LKCMB", { estimated_arrival_at: "2026-01-12T00:00:00Z" }),
    stop("port_of_discharge", "NLRTM", { estimated_arrival_at: "2026-02-01T00:00:00Z" }),
    stop("inland_destination", "DEDUI"),
  ];
  const imos = ["9000001", "9000002", "9000002", "9000003", null];
  return {
    route: {
      container_id: "c1",
      container_number: "MSKU1234565",
      stops,
      legs: stops.slice(1).map((to, i) => leg(stops[i] as RouteStop, to, imos[i] ?? null)),
    },
    ports: [
      port("CNSHA", "Shanghai", "CN", "31.23", "121.5"),
      port("SGSIN", "Singapore", "SG", "1.26", "103.83"),
      port("LKCMB", "Colombo", "LK", "6.92", "79.85"),
      port("NLRTM", "Rotterdam", "NL", "51.95", "4.0"),
      port("DEDUI", "Duisburg", "DE", "51.43", "6.76"),
    ],
    vessels: [],
    createdAt: "2025-12-30T00:00:00Z",
    updatedAt: "2026-01-08T00:00:00Z",
  };
}

const vessel = (imo: string, lat: number | null, lon: number | null, at: string | null): VesselRow => ({
  id: vesselIdForImo(imo) as string,
  imo,
  mmsi: null,
  name: `SHIP ${imo}`,
  latitude: lat,
  longitude: lon,
  nauticalSpeedKnots: 18,
  navigationalHeadingDegrees: 270,
  positionTimestamp: at,
  updatedAt: at ?? "2026-01-01T00:00:00Z",
});

describe("planContainerMap", () => {
  it("maps the port stops with coordinates (not the inland destination, not a stop without a port) as POL, TSn, POD", () => {
    const plan = planContainerMap(route(), (c) => c);
    expect(plan.ports.map((p) => [p.sequence, p.label, p.port.code])).toEqual([
      [1, "POL", "CNSHA"],
      [2, "TS1", "SGSIN"],
      [3, "TS2", "LKCMB"],
      [4, "POD", "NLRTM"],
    ]);
    expect(plan.legs.map((l) => [l.from.label, l.to.label, l.state, l.vessel?.imo])).toEqual([
      ["POL", "TS1", "done", "9000001"],
      ["TS1", "TS2", "under_way", "9000002"],
      ["TS2", "POD", "planned", "9000003"],
    ]);
  });

  it("passes over a port without coordinates", () => {
    const loaded = route();
    loaded.ports = loaded.ports.map((p) => (p.code === "LKCMB" ? { ...p, latitude: null, longitude: null } : p));
    expect(planContainerMap(loaded, (c) => c).ports.map((p) => p.label)).toEqual(["POL", "TS1", "POD"]);
  });
});

describe("containerMapGeoJson", () => {
  const plan = planContainerMap(route(), (c) => c);
  const id = vesselIdForImo("9000002") as string;

  it("draws the vessel under way from a valid fix since its departure", () => {
    const map = containerMapGeoJson(plan, {
      vessels: new Map([[id, vessel("9000002", 5.5, 95, "2026-01-09T00:00:00Z")]]),
      tracks: new Map(),
    });
    expect(getIssues(JSON.stringify(map))).toEqual([]);
    expect(map.features.map((f) => f.properties.feature_type)).toEqual([
      "port",
      "past_vessel_locations",
      "port",
      "current_vessel",
      "past_vessel_locations",
      "estimated_partial_leg",
      "port",
      "estimated_full_legs",
      "port",
    ]);
  });

  it("ignores a fix from before the departure, or one AIS marks as not available (91/181)", () => {
    for (const v of [
      vessel("9000002", 5.5, 95, "2026-01-06T12:00:00Z"),
      vessel("9000002", 91, 181, "2026-01-09T00:00:00Z"),
      vessel("9000002", null, null, null),
    ]) {
      const map = containerMapGeoJson(plan, { vessels: new Map([[id, v]]), tracks: new Map() });
      const types = map.features.map((f) => f.properties.feature_type);
      expect(types).not.toContain("current_vessel");
      expect(types.filter((t) => t === "estimated_full_legs")).toHaveLength(2);
      expect(getIssues(JSON.stringify(map))).toEqual([]);
    }
  });

  it("joins a track that starts or ends away from its ports to them along the sea route", () => {
    const track: VesselPositionRow[] = [
      [113, 18],
      [109.5, 10],
    ].map(([lon, lat], i) => ({
      vesselId: vesselIdForImo("9000001") as string,
      timestamp: `2026-01-0${i + 2}T12:00:00Z`,
      latitude: lat as number,
      longitude: lon as number,
      speedKnots: null,
      headingDegrees: null,
      source: "ais",
    }));
    const map = containerMapGeoJson(plan, { vessels: new Map(), tracks: new Map([[0, track]]) });
    const sailed = map.features.find((f) => f.properties.feature_type === "past_vessel_locations");
    const line = sailed?.geometry.coordinates as [number, number][];
    expect(line[0]).toEqual([121.5, 31.23]);
    expect(line.at(-1)).toEqual([103.83, 1.26]);
    expect(line).toContainEqual([113, 18]);
    expect(line).toContainEqual([109.5, 10]);
    expect(line.length).toBeGreaterThan(4);
  });

  it("drops recorded positions that are not WGS84 from a sailed track", () => {
    const track: VesselPositionRow[] = [
      [121.6, 31.1],
      [181, 91],
      [110, 10],
      [103.9, 1.3],
    ].map(([lon, lat], i) => ({
      vesselId: vesselIdForImo("9000001") as string,
      timestamp: `2026-01-0${i + 1}T12:00:00Z`,
      latitude: lat as number,
      longitude: lon as number,
      speedKnots: null,
      headingDegrees: null,
      source: "ais",
    }));
    const map = containerMapGeoJson(plan, { vessels: new Map(), tracks: new Map([[0, track]]) });
    const sailed = map.features.find((f) => f.properties.feature_type === "past_vessel_locations");
    expect(sailed?.geometry.coordinates).toEqual([
      [121.6, 31.1],
      [110, 10],
      [103.9, 1.3],
    ]);
    expect(sailed?.properties.point_count).toBe(3);
    expect(getIssues(JSON.stringify(map))).toEqual([]);
  });
});

describe("legUnderWay", () => {
  it("is the first departed, not arrived, vessel leg with an IMO number", () => {
    expect(legUnderWay(route().route)).toMatchObject({ from_locode: "SGSIN", vesselId: vesselIdForImo("9000002") });
    const arrived = route().route;
    arrived.legs = arrived.legs.map((l) => ({ ...l, arrived_at: l.departed_at ? "2026-01-10T00:00:00Z" : null }));
    expect(legUnderWay(arrived)).toBeNull();
  });
});
