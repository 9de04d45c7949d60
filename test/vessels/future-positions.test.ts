import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { distanceNm, type LonLat } from "../../src/geo/geodesy";
import { DEFAULT_SPEED_KNOTS, MAX_FUTURE_POSITIONS } from "../../src/vessels/future-positions";
import { vesselIdForImo } from "../../src/vessels/identity";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";

// GET /v2/vessels/{id}/future_positions and /future_positions_with_coordinates (docs/api.md §Future positions):
// entitlement, validation, 404s, and the predicted track: one minute apart, estimated, along the sea route at the
// vessel's speed.

const IMO = "9301809";
const VESSEL_ID = vesselIdForImo(IMO) as string;
const SLOW_IMO = "9811000";
const FORBIDDEN = {
  errors: [
    { status: "403", title: "Forbidden", detail: "Routing data feature is not enabled for this account", source: null },
  ],
};

interface Position {
  latitude: number;
  longitude: number;
  heading: number | null;
  timestamp: string;
  estimated: boolean;
}
interface Doc {
  data: { id: string; type: string; attributes: Record<string, unknown> & { positions: Position[] } };
  links: { self: string };
  errors?: { status: string; detail: string; source?: { parameter?: string } | null }[];
}

let routed: TestAccount;
let plain: TestAccount;
let ports: Record<string, { id: string; position: LonLat }>;

beforeAll(async () => {
  routed = await createAccount("Routed");
  plain = await createAccount("Plain");
  await env.DB.prepare("UPDATE accounts SET entitlements = '[\"routing\"]' WHERE id = ?1").bind(routed.accountId).run();
  const now = "2026-01-01T00:00:00Z";
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO vessels (id, imo, mmsi, name, latitude, longitude, nautical_speed_knots, navigational_heading_degrees,
         position_timestamp, updated_at) VALUES (?1, ?2, '563281100', 'SEASPAN SAIGON', 31.0, 122.5, 20, 90, ?3, ?3)`,
    ).bind(VESSEL_ID, IMO, now),
    env.DB.prepare(
      `INSERT INTO vessels (id, imo, name, nautical_speed_knots, updated_at) VALUES (?1, ?2, 'EVER GIVEN', 0.2, ?3)`,
    ).bind(vesselIdForImo(SLOW_IMO), SLOW_IMO, now),
  ]);
  const rows = await env.DB.prepare(
    "SELECT id, code, latitude, longitude FROM ports WHERE code IN ('CNSHA', 'USLAX', 'NLRTM', 'SGSIN')",
  ).all<{ id: string; code: string; latitude: string; longitude: string }>();
  ports = Object.fromEntries(
    rows.results.map((r) => [r.code, { id: r.id, position: [Number(r.longitude), Number(r.latitude)] as LonLat }]),
  );
  expect(Object.keys(ports).sort()).toEqual(["CNSHA", "NLRTM", "SGSIN", "USLAX"]);
});

const path = (query: string, id = VESSEL_ID) => `/vessels/${id}/future_positions?${query}`;
const pathWith = (query: string, id = VESSEL_ID) => `/vessels/${id}/future_positions_with_coordinates?${query}`;

describe("future positions without the routing feature", () => {
  it("answer the reference's 403 for a known vessel, an unknown one and both paths", async () => {
    const q = `port_id=${ports.USLAX?.id}&previous_port_id=${ports.CNSHA?.id}`;
    for (const p of [
      path(q),
      path(q, "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60"),
      pathWith(`${q}&latitude=30&longitude=140`),
    ]) {
      const { res, json } = await apiJson(p, { key: plain.key });
      expect(res.status, p).toBe(403);
      expect(json).toEqual(FORBIDDEN);
    }
  });
});

describe("GET /vessels/{id}/future_positions", () => {
  it("predicts the leg from the previous port: one minute apart, estimated, at the vessel's speed, to the port", async () => {
    const before = Date.now();
    const { res, json } = await apiJson<Doc>(path(`port_id=${ports.SGSIN?.id}&previous_port_id=${ports.CNSHA?.id}`), {
      key: routed.key,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.api+json");
    expect(json.links.self).toContain(`/v2/vessels/${VESSEL_ID}/future_positions?port_id=`);
    expect(json.data).toMatchObject({
      id: VESSEL_ID,
      type: "vessel",
      attributes: {
        name: "SEASPAN SAIGON",
        imo: IMO,
        mmsi: "563281100",
        latitude: 31,
        longitude: 122.5,
        nautical_speed_knots: 20,
        navigational_heading_degrees: 90,
        position_timestamp: "2026-01-01T00:00:00Z",
      },
    });
    const positions = json.data.attributes.positions;
    expect(positions.length).toBeGreaterThan(100);
    const first = positions[0] as Position;
    const last = positions[positions.length - 1] as Position;
    // Starts now, at the previous port; ends at the port.
    expect(Date.parse(first.timestamp)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(first.timestamp)).toBeLessThanOrEqual(Date.now());
    expect(distanceNm([first.longitude, first.latitude], ports.CNSHA?.position as LonLat)).toBeLessThan(0.01);
    expect(distanceNm([last.longitude, last.latitude], ports.SGSIN?.position as LonLat)).toBeLessThan(0.01);
    let sailed = 0;
    for (let i = 1; i < positions.length; i++) {
      const a = positions[i - 1] as Position;
      const b = positions[i] as Position;
      expect(Date.parse(b.timestamp) - Date.parse(a.timestamp)).toBe(60_000);
      const step = distanceNm([a.longitude, a.latitude], [b.longitude, b.latitude]);
      // 20 kn = 1/3 nm a minute (a chord of the route is never longer; 0.1 % for rounding).
      expect(step).toBeLessThanOrEqual((20 / 60) * 1.001);
      sailed += step;
    }
    for (const p of positions) {
      expect(p.estimated).toBe(true);
      expect(p.heading).toBeGreaterThanOrEqual(0);
      expect(p.heading).toBeLessThan(360);
    }
    // Shanghai → Singapore is ~2 200 nm by sea: the points cover it at 20 kn (~110 h ≈ 6 600 points).
    expect(sailed).toBeGreaterThan(2_000);
    expect(sailed).toBeLessThan(2_500);
    expect(Math.abs(positions.length - (sailed / 20) * 60)).toBeLessThan(30);
    // Heading along the track: halfway down the South China Sea the ship heads roughly south-west.
    const mid = positions[Math.floor(positions.length / 2)] as Position;
    expect(mid.heading).toBeGreaterThan(150);
    expect(mid.heading).toBeLessThan(260);
  });

  it("uses the default speed for a vessel that is not under way, and accepts the IMO number and UN/LOCODEs", async () => {
    const { res, json } = await apiJson<Doc>(path("port_id=SGSIN&previous_port_id=CNSHA", SLOW_IMO), {
      key: routed.key,
    });
    expect(res.status).toBe(200);
    const positions = json.data.attributes.positions;
    const a = positions[100] as Position;
    const b = positions[101] as Position;
    expect(distanceNm([a.longitude, a.latitude], [b.longitude, b.latitude])).toBeCloseTo(DEFAULT_SPEED_KNOTS / 60, 2);
  });

  it("answers 400 naming a missing parameter (for a known vessel; an unknown one is 404)", async () => {
    for (const [q, parameter] of [
      [`previous_port_id=${ports.CNSHA?.id}`, "port_id"],
      [`port_id=${ports.CNSHA?.id}`, "previous_port_id"],
      [`port_id=&previous_port_id=${ports.CNSHA?.id}`, "port_id"],
    ] as const) {
      const { res, json } = await apiJson<Doc>(path(q), { key: routed.key });
      expect(res.status, q).toBe(400);
      expect(json.errors?.[0]?.source).toEqual({ parameter });
      const unknown = await apiJson<Doc>(path(q, "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60"), { key: routed.key });
      expect(unknown.res.status, q).toBe(404);
      // Without the entitlement, whatever the parameters: the 403.
      expect((await apiJson<Doc>(path(q), { key: plain.key })).res.status, q).toBe(403);
    }
  });

  it("answers 404 for an unknown vessel or port", async () => {
    const ok = `port_id=${ports.USLAX?.id}&previous_port_id=${ports.CNSHA?.id}`;
    const unknown = "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60";
    for (const [p, parameter] of [
      [path(ok, unknown), undefined],
      [path(ok, "1234567"), undefined],
      [path(`port_id=${unknown}&previous_port_id=${ports.CNSHA?.id}`), "port_id"],
      [path(`port_id=${ports.USLAX?.id}&previous_port_id=XXNOP`), "previous_port_id"],
    ] as const) {
      const { res, json } = await apiJson<Doc>(p, { key: routed.key });
      expect(res.status, p).toBe(404);
      if (parameter) expect(json.errors?.[0]?.source).toEqual({ parameter });
    }
  });
});

describe("GET /vessels/{id}/future_positions_with_coordinates", () => {
  it("starts at the given position and crosses the Pacific the short way", async () => {
    const { res, json } = await apiJson<Doc>(
      pathWith(`port_id=${ports.USLAX?.id}&previous_port_id=${ports.CNSHA?.id}&latitude=40&longitude=170`),
      { key: routed.key },
    );
    expect(res.status).toBe(200);
    const positions = json.data.attributes.positions;
    const first = positions[0] as Position;
    expect([first.longitude, first.latitude]).toEqual([170, 40]);
    const last = positions[positions.length - 1] as Position;
    expect(distanceNm([last.longitude, last.latitude], ports.USLAX?.position as LonLat)).toBeLessThan(0.01);
    // ~3 400 nm east to Los Angeles at 20 kn ≈ 170 h ≈ 10 200 points; the long way round (20 000+ nm) is 60 000+.
    expect(positions.length).toBeGreaterThan(9_000);
    expect(positions.length).toBeLessThan(12_000);
    for (const p of positions) expect(Math.abs(p.longitude)).toBeLessThanOrEqual(180);
  });

  it("accepts current_latitude / current_longitude", async () => {
    const { res, json } = await apiJson<Doc>(
      pathWith("port_id=SGSIN&previous_port_id=CNSHA&current_latitude=25.5&current_longitude=121"),
      { key: routed.key },
    );
    expect(res.status).toBe(200);
    expect(json.data.attributes.positions[0]).toMatchObject({ latitude: 25.5, longitude: 121 });
  });

  it("answers 400 for missing or bad coordinates", async () => {
    for (const [q, parameter] of [
      ["port_id=SGSIN&previous_port_id=CNSHA&longitude=121", "latitude"],
      ["port_id=SGSIN&previous_port_id=CNSHA&latitude=91&longitude=121", "latitude"],
      ["port_id=SGSIN&previous_port_id=CNSHA&latitude=25&longitude=abc", "longitude"],
      ["port_id=SGSIN&previous_port_id=CNSHA&latitude=25&current_longitude=-181", "current_longitude"],
      ["port_id=SGSIN&previous_port_id=CNSHA&latitude=Infinity&longitude=1", "latitude"],
    ] as const) {
      const { res, json } = await apiJson<Doc>(pathWith(q), { key: routed.key });
      expect(res.status, q).toBe(400);
      expect(json.errors?.[0]?.source).toEqual({ parameter });
    }
  });

  it("stays within 30 days of minutes on a long passage at the default speed", async () => {
    // Rotterdam → Los Angeles by Panama at 16 kn is ~7 700 nm ≈ 20 days ≈ 29 000 points: under the bound.
    const { json } = await apiJson<Doc>(
      pathWith("port_id=USLAX&previous_port_id=NLRTM&latitude=51.95&longitude=4", SLOW_IMO),
      { key: routed.key },
    );
    const positions = json.data.attributes.positions;
    expect(positions.length).toBeLessThanOrEqual(MAX_FUTURE_POSITIONS);
    expect(positions.length).toBeGreaterThan(20_000);
  });
});
