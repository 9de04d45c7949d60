import { env } from "cloudflare:test";
import { getIssues } from "@placemarkio/check-geojson";
import { beforeAll, describe, expect, it } from "vitest";
import { distanceNm, type LonLat } from "../../src/geo/geodesy";
import { toIsoSeconds } from "../../src/lib/clock";
import { vesselIdForImo } from "../../src/vessels/identity";
import { api, apiJson } from "../helpers/api";
import { seedTransshipmentJourney, type TrackedAccount, trackedAccounts } from "../mcp/fixtures";

// GET /v2/containers/{id}/map_geojson (docs/api.md §Container map): the reference's FeatureCollection for a finished
// transshipment journey (CNYTN → SGSIN → USLAX, test/mcp/fixtures.ts), one under way (a vessel fix mid-Pacific) and
// one not started; valid RFC 7946 (@placemarkio/check-geojson), entitlement, tenant isolation.

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const ALPHA = vesselIdForImo("9000001") as string;
const BETA = vesselIdForImo("9000002") as string;
const FORBIDDEN = {
  errors: [
    { status: "403", title: "Forbidden", detail: "Routing data feature is not enabled for this account", source: null },
  ],
};

interface Feature {
  type: "Feature";
  geometry: { type: string; coordinates: unknown };
  properties: Record<string, unknown> & { feature_type: string };
}
interface Collection {
  type: string;
  features: Feature[];
}

let done: TrackedAccount;
let underWay: TrackedAccount;
let plain: TrackedAccount;
let now: number;

/** Inserts container events (offsets from `now`) the way test/mcp/fixtures.ts does. */
async function seedEvents(
  t: TrackedAccount,
  containerId: string,
  events: { event: string; offsetMs: number; locode: string; imo: string; name: string }[],
): Promise<void> {
  await env.DB.batch(
    events.map((e, i) =>
      env.DB.prepare(
        `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, voyage_number, timestamp,
           location_locode, vessel_name, vessel_imo, data_source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'V1', ?6, ?7, ?8, ?9, 'shipping_line', ?10)`,
      ).bind(
        `map-${crypto.randomUUID().slice(0, 8)}-${i}`,
        t.account.accountId,
        containerId,
        t.shipmentId,
        e.event,
        toIsoSeconds(now + e.offsetMs),
        e.locode,
        e.name,
        e.imo,
        toIsoSeconds(now),
      ),
    ),
  );
}

beforeAll(async () => {
  [done, underWay, plain] = (await trackedAccounts([["routing"], ["routing"], []])) as [
    TrackedAccount,
    TrackedAccount,
    TrackedAccount,
  ];
  now = done.factsAt ?? Date.now();
  await seedTransshipmentJourney(done, done.containers[0]?.id ?? "");
  // The other boxes have not arrived, and nothing says the shipment left its POL: only their own events do.
  await env.DB.prepare("UPDATE shipments SET pol_atd_at = NULL, pod_ata_at = NULL").run();
  await env.DB.prepare(
    "UPDATE containers SET pod_arrived_at = NULL, pod_discharged_at = NULL, pol_vessel_departed_at = NULL WHERE id IN (?1, ?2)",
  )
    .bind(underWay.containers[0]?.id, done.containers[1]?.id)
    .run();
  // Under way: left Yantian on EVER ALPHA, transshipped at Singapore onto MSC BETA, now mid-Pacific.
  await seedEvents(underWay, underWay.containers[0]?.id ?? "", [
    {
      event: "container.transport.vessel_departed",
      offsetMs: -11 * DAY_MS,
      locode: "CNYTN",
      imo: "9000001",
      name: "EVER ALPHA",
    },
    {
      event: "container.transport.transshipment_arrived",
      offsetMs: -6 * DAY_MS,
      locode: "SGSIN",
      imo: "9000001",
      name: "EVER ALPHA",
    },
    {
      event: "container.transport.transshipment_departed",
      offsetMs: -5 * DAY_MS,
      locode: "SGSIN",
      imo: "9000002",
      name: "MSC BETA",
    },
    {
      event: "container.transport.estimated.vessel_arrived",
      offsetMs: 6 * DAY_MS,
      locode: "USLAX",
      imo: "9000002",
      name: "MSC BETA",
    },
  ]);
  const at = (ms: number) => toIsoSeconds(now + ms);
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO vessels (id, imo, mmsi, name, latitude, longitude, nautical_speed_knots, navigational_heading_degrees,
         position_timestamp, updated_at) VALUES (?1, '9000002', '636000002', 'MSC BETA', 40, 170, 18.5, 75, ?2, ?2)`,
    ).bind(BETA, at(-HOUR_MS)),
    env.DB.prepare(
      `INSERT INTO vessels (id, imo, name, latitude, longitude, position_timestamp, updated_at)
       VALUES (?1, '9000001', 'EVER ALPHA', 1.2, 103.8, ?2, ?2)`,
    ).bind(ALPHA, at(-6 * DAY_MS)),
    // EVER ALPHA's recorded track Yantian → Singapore (the finished journey's first leg: -11 d → -6 d).
    ...[
      [-11 * DAY_MS + HOUR_MS, 114.4, 22.4],
      [-10 * DAY_MS, 113.5, 18],
      [-8 * DAY_MS, 109.5, 10],
      [-6 * DAY_MS - HOUR_MS, 104.2, 1.3],
    ].map(([offset, lon, lat]) =>
      env.DB.prepare(
        `INSERT INTO vessel_positions (vessel_id, timestamp, latitude, longitude, speed_knots, heading_degrees, source)
         VALUES (?1, ?2, ?3, ?4, 17, 200, 'simulator')`,
      ).bind(ALPHA, at(offset as number), lat, lon),
    ),
    // MSC BETA's recorded track since Singapore.
    ...[
      [-5 * DAY_MS + HOUR_MS, 104, 1.3],
      [-3 * DAY_MS, 125, 25],
      [-HOUR_MS, 170, 40],
    ].map(([offset, lon, lat]) =>
      env.DB.prepare(
        `INSERT INTO vessel_positions (vessel_id, timestamp, latitude, longitude, speed_knots, heading_degrees, source)
         VALUES (?1, ?2, ?3, ?4, 18.5, 60, 'simulator')`,
      ).bind(BETA, at(offset as number), lat, lon),
    ),
  ]);
});

async function map(t: TrackedAccount, containerId: string, headers: Record<string, string> = {}) {
  return apiJson<Collection>(`/containers/${containerId}/map_geojson`, { key: t.account.key, headers });
}

/** Every position of a Point, LineString or MultiLineString geometry. */
function positionsOf(f: Feature): LonLat[] {
  const g = f.geometry;
  if (g.type === "Point") return [g.coordinates as LonLat];
  if (g.type === "LineString") return g.coordinates as LonLat[];
  return (g.coordinates as LonLat[][]).flat();
}

function expectValidGeoJson(body: unknown): void {
  expect(getIssues(JSON.stringify(body))).toEqual([]);
}

describe("GET /containers/{id}/map_geojson without the routing feature", () => {
  it("answers the reference's 403 for its own container, another account's and an unknown id", async () => {
    for (const id of [plain.containers[0]?.id, done.containers[0]?.id, "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60"]) {
      const { res, json } = await map(plain, id ?? "");
      expect(res.status, id).toBe(403);
      expect(json).toEqual(FORBIDDEN);
    }
  });
});

describe("GET /containers/{id}/map_geojson tenant isolation", () => {
  it("another account's container and an unknown id are 404, never its map", async () => {
    for (const id of [done.containers[0]?.id, "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60", "not-a-uuid"]) {
      const { res, json } = await apiJson(`/containers/${id}/map_geojson`, { key: underWay.account.key });
      expect(res.status, id).toBe(404);
      expect(JSON.stringify(json)).not.toContain("FeatureCollection");
    }
    const { res } = await map(done, underWay.containers[0]?.id ?? "");
    expect(res.status).toBe(404);
  });
});

describe("GET /containers/{id}/map_geojson: a finished transshipment journey", () => {
  it("has POL, TS1, POD with their times and two sailed legs, valid RFC 7946, as application/json", async () => {
    const { res, json } = await map(done, done.containers[0]?.id ?? "");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expectValidGeoJson(json);
    expect(json.type).toBe("FeatureCollection");
    expect(json.features.map((f) => [f.properties.feature_type, f.properties.ports_sequence])).toEqual([
      ["port", 1],
      ["past_vessel_locations", 1],
      ["port", 2],
      ["past_vessel_locations", 2],
      ["port", 3],
    ]);
    const ports = json.features.filter((f) => f.properties.feature_type === "port");
    expect(ports.map((p) => [p.properties.label, p.properties.name, p.properties.country])).toEqual([
      ["POL", expect.any(String), "China"],
      ["TS1", expect.any(String), "Singapore"],
      ["POD", "Los Angeles", "United States"],
    ]);
    const [pol, ts1, pod] = ports as [Feature, Feature, Feature];
    expect(pol.properties).toMatchObject({
      ports_total: 3,
      location_type: "Port",
      country_code: "CN",
      time_zone: "Asia/Shanghai",
      outbound_atd_at: toIsoSeconds(now - 11 * DAY_MS),
    });
    expect(ts1.properties).toMatchObject({
      inbound_ata_at: toIsoSeconds(now - 6 * DAY_MS),
      outbound_atd_at: toIsoSeconds(now - 5 * DAY_MS + HOUR_MS),
    });
    expect(pod.properties.inbound_ata_at).toBe(toIsoSeconds(now - 2 * DAY_MS));
    const portId = await env.DB.prepare("SELECT id FROM ports WHERE code = 'USLAX'").first<{ id: string }>();
    expect(pod.properties.location_id).toBe(portId?.id);

    const [first, second] = json.features.filter((f) => f.properties.feature_type === "past_vessel_locations") as [
      Feature,
      Feature,
    ];
    // Leg 1 follows EVER ALPHA's recorded track, joined to the port of lading along the sea route (the reference data
    // places CNYTN at 26.85° N 119.87° E, more than 25 nm from the track's first fix).
    const line = positionsOf(first);
    expect(first.geometry.type).toBe("LineString");
    expect(line[0]).toEqual(pol.geometry.coordinates);
    const recorded: LonLat[] = [
      [114.4, 22.4],
      [113.5, 18],
      [109.5, 10],
      [104.2, 1.3],
    ];
    const at = recorded.map((p) => line.findIndex((c) => c[0] === p[0] && c[1] === p[1]));
    expect(at.every((i) => i > 0)).toBe(true);
    expect(at).toEqual([...at].sort((x, y) => x - y));
    expect(line.at(-1)).toEqual([104.2, 1.3]);
    expect(first.properties.point_count).toBe(line.length);
    // Times of the leg (as the reference's example): its departure and arrival.
    expect(first.properties).toMatchObject({
      vessel_id: ALPHA,
      start_time: toIsoSeconds(now - 11 * DAY_MS),
      end_time: toIsoSeconds(now - 6 * DAY_MS),
      inbound_ata_at: toIsoSeconds(now - 6 * DAY_MS),
    });
    // Leg 2: MSC BETA's positions recorded between its departure from Singapore and its arrival (shared vessel data),
    // (its fix mid-Pacific an hour ago is after that arrival): joined to Los Angeles along the sea route, cut at the
    // antimeridian.
    expect(second.properties).toMatchObject({ vessel_id: BETA, ports_sequence: 2 });
    expect(second.geometry.type).toBe("MultiLineString");
    const positions = positionsOf(second);
    expect(positions.slice(0, 2)).toEqual([
      [104, 1.3],
      [125, 25],
    ]);
    expect(positions).not.toContainEqual([170, 40]);
    expect(distanceNm(positions.at(-1) as LonLat, [-118.27, 33.74])).toBeLessThan(30);
    expect(second.properties.point_count).toBe(positions.length);
  });

  it("serves application/geo+json to a client that asks for it", async () => {
    const res = await api(`/containers/${done.containers[0]?.id}/map_geojson`, {
      key: done.account.key,
      headers: { Accept: "application/geo+json" },
    });
    expect(res.headers.get("content-type")).toBe("application/geo+json");
    expectValidGeoJson(await res.json());
  });
});

describe("GET /containers/{id}/map_geojson: a journey under way", () => {
  it("has the vessel now, its sailed track and the estimate to the next port, starting at the vessel", async () => {
    const { res, json } = await map(underWay, underWay.containers[0]?.id ?? "");
    expect(res.status).toBe(200);
    expectValidGeoJson(json);
    expect(json.features.map((f) => [f.properties.feature_type, f.properties.ports_sequence])).toEqual([
      ["port", 1],
      ["past_vessel_locations", 1],
      ["port", 2],
      ["current_vessel", 2],
      ["past_vessel_locations", 2],
      ["estimated_partial_leg", 2],
      ["port", 3],
    ]);
    const current = json.features[3] as Feature;
    expect(current.geometry).toEqual({ type: "Point", coordinates: [170, 40] });
    expect(current.properties).toMatchObject({
      vessel_id: BETA,
      vessel_name: "MSC BETA",
      vessel_imo: "9000002",
      voyage_number: "V1",
      vessel_location_timestamp: toIsoSeconds(now - HOUR_MS),
      vessel_location_heading: 75,
      vessel_location_speed: 18.5,
      departure_port_label: "TS1",
      departure_port_country: "Singapore",
      departure_port_atd: toIsoSeconds(now - 5 * DAY_MS),
      arrival_port_label: "POD",
      arrival_port_name: "Los Angeles",
      arrival_port_eta: toIsoSeconds(now + 6 * DAY_MS),
      arrival_port_time_zone: "America/Los_Angeles",
    });
    const sailed = json.features[4] as Feature;
    expect(sailed.geometry).toEqual({
      type: "LineString",
      coordinates: [
        [104, 1.3],
        [125, 25],
        [170, 40],
      ],
    });
    expect(sailed.properties).toMatchObject({
      start_time: toIsoSeconds(now - 5 * DAY_MS),
      end_time: toIsoSeconds(now - HOUR_MS),
      inbound_ata_at: null,
      inbound_eta_at: toIsoSeconds(now + 6 * DAY_MS),
    });
    const partial = json.features[5] as Feature;
    expect(partial.properties).toMatchObject({ next_port_id: expect.any(String), current_port_id: expect.any(String) });
    // From the vessel to Los Angeles, across the antimeridian: two parts, the first starting at the vessel.
    expect(partial.geometry.type).toBe("MultiLineString");
    const parts = partial.geometry.coordinates as LonLat[][];
    expect(parts[0]?.[0]).toEqual([170, 40]);
    const last = parts[parts.length - 1]?.at(-1) as LonLat;
    expect(distanceNm(last, [-118.27, 33.74])).toBeLessThan(30);
    for (const part of parts) {
      for (let i = 1; i < part.length; i++) {
        expect(Math.abs((part[i] as LonLat)[0] - (part[i - 1] as LonLat)[0])).toBeLessThan(180);
      }
    }
  });
});

describe("GET /containers/{id}/map_geojson: a journey not started", () => {
  it("draws the leg along the sea route as estimated_full_legs", async () => {
    const { res, json } = await map(done, done.containers[1]?.id ?? "");
    expect(res.status).toBe(200);
    expectValidGeoJson(json);
    expect(json.features.map((f) => f.properties.feature_type)).toEqual(["port", "estimated_full_legs", "port"]);
    const leg = json.features[1] as Feature;
    expect(leg.properties).toMatchObject({
      ports_sequence: 1,
      previous_port_id: json.features[0]?.properties.location_id,
      next_port_id: json.features[2]?.properties.location_id,
    });
    expect(leg.properties.point_count).toBe(positionsOf(leg).length);
    // Yantian → Los Angeles crosses the Pacific: cut at the antimeridian, never drawn across the world.
    expect(leg.geometry.type).toBe("MultiLineString");
    const parts = leg.geometry.coordinates as LonLat[][];
    expect(parts).toHaveLength(2);
    expect(parts[0]?.at(-1)?.[0]).toBe(180);
    expect(parts[1]?.[0]?.[0]).toBe(-180);
  });

  it("is the empty FeatureCollection for a container without route data", async () => {
    // A shipment whose ports are not known yet (nothing to place on a map).
    await env.DB.prepare(
      "UPDATE shipments SET port_of_lading_locode = NULL, port_of_discharge_locode = NULL, destination_locode = NULL WHERE id = ?1",
    )
      .bind(underWay.shipmentId)
      .run();
    await env.DB.prepare("DELETE FROM transport_events WHERE container_id = ?1").bind(underWay.containers[1]?.id).run();
    const { res, json } = await map(underWay, underWay.containers[1]?.id ?? "");
    expect(res.status).toBe(200);
    expect(json).toEqual({ type: "FeatureCollection", features: [] });
  });
});
