import { describe, expect, it } from "vitest";
import type { ContainerMap } from "../../src/containers/map-geojson";
import { jsonForScript, mapDescription } from "../../src/dashboard/container-map";

// The container page's map island (src/dashboard/container-map.tsx): JSON that cannot end its <script> element, and
// the map's text alternative.

describe("jsonForScript", () => {
  it("writes no <, > or & and reads back unchanged, so a value cannot close the script element", () => {
    const value = {
      name: "</script><script>alert(1)</script>",
      comment: "<!-- <script>",
      amp: "R&D",
      separators: "a\u2028b\u2029c",
    };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(text).toContain("\\u003c/script\\u003e");
    expect(JSON.parse(text)).toEqual(value);
  });
});

const port = (sequence: number, name: string, label: string, lon: number, lat: number) => ({
  type: "Feature" as const,
  geometry: { type: "Point", coordinates: [lon, lat] },
  properties: { feature_type: "port" as const, ports_sequence: sequence, name, label },
});

describe("mapDescription", () => {
  it("names the ports in route order with their roles, and the vessel's position and report time", () => {
    const map = {
      type: "FeatureCollection",
      features: [
        port(2, "Los Angeles", "POD", -118.27, 33.74),
        port(1, "Yantian", "POL", 114.27, 22.57),
        {
          type: "Feature",
          geometry: { type: "Point", coordinates: [-150.5, 30.25] },
          properties: {
            feature_type: "current_vessel",
            vessel_name: "MSC BETA",
            voyage_number: "002E",
            vessel_location_timestamp: "2026-11-30T12:00:00Z",
            departure_port_name: "Yantian",
            arrival_port_name: "Los Angeles",
          },
        },
      ],
    } as unknown as ContainerMap;
    expect(mapDescription(map)).toBe(
      "Route: Yantian (POL) → Los Angeles (POD). MSC BETA (voyage 002E) is at 30.25° N, 150.50° W, reported " +
        "2026-11-30 12:00 UTC, sailing from Yantian to Los Angeles.",
    );
  });

  it("says when there is no route or no vessel position", () => {
    expect(mapDescription({ type: "FeatureCollection", features: [] })).toBe("No route data yet.");
    const map = {
      type: "FeatureCollection",
      features: [port(1, "Yantian", "POL", 114.27, 22.57)],
    } as unknown as ContainerMap;
    expect(mapDescription(map)).toBe("Route: Yantian (POL). No vessel position for the leg under way.");
  });
});
