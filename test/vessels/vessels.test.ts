import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { toIsoSeconds } from "../../src/lib/clock";
import { vesselIdForImo } from "../../src/vessels/identity";
import { recordPositions } from "../../src/vessels/position-store";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import { seedBoxOnVessel } from "../helpers/vessels";

// GET /v2/vessels/{id} (docs/api.md §Vessel resource): by IMO number or id, the reference's eight attributes from the
// vessels table, a vessel only events know, `show_positions` behind the routing entitlement, bad input, and the
// `vessel` included from transport events completed from the table.

const IMO = "9301809";
const MMSI = "563281100";
const EVENTS_ONLY_IMO = "9811000";
const POD_ONLY_IMO = "9691187";
const NAMELESS_IMO = "9565194";
const db = createDatabase(env.DB);
const now = Date.now();
const at = (minutesAgo: number) => toIsoSeconds(now - minutesAgo * 60_000);

let plain: TestAccount;
let routed: TestAccount;
let boxId: string;

const FORBIDDEN = {
  errors: [
    { status: "403", title: "Forbidden", detail: "Routing data feature is not enabled for this account", source: null },
  ],
};

type VesselDoc = {
  data: { id: string; type: string; attributes: Record<string, unknown> };
  links: { self: string };
  included?: { id: string; type: string; attributes: Record<string, unknown> }[];
};

beforeAll(async () => {
  plain = await createAccount("Plain");
  routed = await createAccount("Routed");
  await env.DB.prepare("UPDATE accounts SET entitlements = ?1 WHERE id = ?2")
    .bind(JSON.stringify(["routing"]), routed.accountId)
    .run();
  await recordPositions(
    db,
    {
      identities: [{ imo: IMO, mmsi: MMSI, name: "SEASPAN SAIGON" }],
      positions: [
        // 8 days ago is past the retention: dropped. Then a track over the last 3 days.
        ...[8 * 24 * 60, 3 * 24 * 60, 2 * 24 * 60, 60, 10].map((m, i) => ({
          imo: IMO,
          mmsi: MMSI,
          latitude: 36 + i / 10,
          longitude: -75 - i / 10,
          speedKnots: 13,
          headingDegrees: i === 3 ? null : 270,
          timestamp: at(m),
          source: "ais" as const,
        })),
      ],
    },
    now,
  );
  // Another account's event is the only trace of EVENTS_ONLY_IMO; the plain account's box is on IMO.
  const other = await createAccount("Other");
  await seedBoxOnVessel(other.accountId, { eventImo: EVENTS_ONLY_IMO, eventVesselName: "EVER GIVEN" });
  // A shipment's POD vessel no event names yet (the leg after a transshipment), and a vessel the position store knows
  // only by IMO number (the simulator records positions without names) that events name.
  await seedBoxOnVessel(other.accountId, { podImo: POD_ONLY_IMO, podName: "MAERSK ALTAIR" });
  await seedBoxOnVessel(other.accountId, { eventImo: NAMELESS_IMO, eventVesselName: "MAERSK CELESTE" });
  await recordPositions(
    db,
    {
      positions: [
        {
          imo: NAMELESS_IMO,
          mmsi: null,
          latitude: 27.1,
          longitude: -50.5,
          speedKnots: 18,
          headingDegrees: 250,
          timestamp: at(5),
          source: "simulator",
        },
      ],
    },
    now,
  );
  ({ containerId: boxId } = await seedBoxOnVessel(plain.accountId, {
    eventImo: IMO,
    eventVesselName: "SEASPAN SAIGON",
  }));
});

describe("GET /vessels/{id}", () => {
  it("answers a vessel by IMO number with the reference's eight attributes and links.self as asked", async () => {
    const { res, json } = await apiJson<VesselDoc>(`/vessels/${IMO}`, { key: plain.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.api+json");
    expect(json).toEqual({
      data: {
        id: vesselIdForImo(IMO),
        type: "vessel",
        attributes: {
          name: "SEASPAN SAIGON",
          imo: IMO,
          mmsi: MMSI,
          latitude: 36.4,
          longitude: -75.4,
          nautical_speed_knots: 13,
          navigational_heading_degrees: 270,
          position_timestamp: at(10),
        },
      },
      links: { self: `https://api.test/v2/vessels/${IMO}` },
    });
  });

  it("answers the same vessel by its id (any case), without a positions key", async () => {
    const id = vesselIdForImo(IMO) as string;
    const { res, json } = await apiJson<VesselDoc>(`/vessels/${id.toUpperCase()}`, { key: plain.key });
    expect(res.status).toBe(200);
    expect(json.data.id).toBe(id);
    expect(json.data.attributes.mmsi).toBe(MMSI);
    expect("positions" in json.data.attributes).toBe(false);
    expect(json.links.self).toBe(`https://api.test/v2/vessels/${id.toUpperCase()}`);
  });

  it("answers a vessel only events know (any account's) with its name and IMO number, nulls elsewhere", async () => {
    const { res, json } = await apiJson<VesselDoc>(`/vessels/${EVENTS_ONLY_IMO}`, { key: plain.key });
    expect(res.status).toBe(200);
    expect(json.data).toEqual({
      id: vesselIdForImo(EVENTS_ONLY_IMO),
      type: "vessel",
      attributes: {
        name: "EVER GIVEN",
        imo: EVENTS_ONLY_IMO,
        mmsi: null,
        latitude: null,
        longitude: null,
        nautical_speed_knots: null,
        navigational_heading_degrees: null,
        position_timestamp: null,
      },
    });
  });

  it("answers a vessel only a shipment names as its POD vessel, with that name", async () => {
    const { res, json } = await apiJson<VesselDoc>(`/vessels/${POD_ONLY_IMO}`, { key: plain.key });
    expect(res.status).toBe(200);
    expect(json.data.attributes).toMatchObject({ name: "MAERSK ALTAIR", imo: POD_ONLY_IMO, latitude: null });
  });

  it("names a vessel whose row has no name from the events that name it, keeping the row's position", async () => {
    const { res, json } = await apiJson<VesselDoc>(`/vessels/${NAMELESS_IMO}`, { key: plain.key });
    expect(res.status).toBe(200);
    expect(json.data.attributes).toMatchObject({ name: "MAERSK CELESTE", latitude: 27.1, longitude: -50.5 });
  });

  it("answers 404 for an unknown IMO number or id, and for a key that is neither", async () => {
    const hostile = ["' OR 1=1 --", "9301809%00", "9".repeat(500), "\u0000", "7e55e100-0000-8000-8000-0000093018o9"];
    for (const key of [
      "9999998",
      "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60",
      "not-a-vessel",
      "12345678",
      "93018O9",
      ...hostile.map(encodeURIComponent),
    ]) {
      const { res, json } = await apiJson<{ errors: { status: string; detail: string }[] }>(`/vessels/${key}`, {
        key: plain.key,
      });
      expect(res.status, key).toBe(404);
      expect(json.errors[0]).toMatchObject({ status: "404", detail: "Couldn't find Vessel" });
    }
  });

  it("needs an API key", async () => {
    expect((await api(`/vessels/${IMO}`)).status).toBe(401);
  });
});

describe("GET /vessels/{id} with show_positions", () => {
  it("answers the routing 403 without the entitlement, whichever form asks, while the plain read works", async () => {
    for (const q of [
      "show_positions=true",
      "show_positions[from_timestamp]=2026-01-01T00:00:00Z",
      "show_positions[to_timestamp]=2026-01-01T00:00:00Z",
    ]) {
      const { res, json } = await apiJson(`/vessels/${IMO}?${q}`, { key: plain.key });
      expect(res.status, q).toBe(403);
      expect(json).toEqual(FORBIDDEN);
    }
    // Checked before the vessel is looked up: an unknown one gives no hint either.
    expect((await api("/vessels/9999998?show_positions=true", { key: plain.key })).status).toBe(403);
    expect((await api(`/vessels/${IMO}?show_positions=false`, { key: plain.key })).status).toBe(200);
  });

  it("adds the last 7 days of positions by default, oldest first, as {latitude, longitude, heading, timestamp, estimated}", async () => {
    const { res, json } = await apiJson<VesselDoc>(`/vessels/${IMO}?show_positions=true`, { key: routed.key });
    expect(res.status).toBe(200);
    expect(json.data.attributes.positions).toEqual([
      { latitude: 36.1, longitude: -75.1, heading: 270, timestamp: at(3 * 24 * 60), estimated: false },
      { latitude: 36.2, longitude: -75.2, heading: 270, timestamp: at(2 * 24 * 60), estimated: false },
      { latitude: 36.3, longitude: -75.3, heading: null, timestamp: at(60), estimated: false },
      { latitude: 36.4, longitude: -75.4, heading: 270, timestamp: at(10), estimated: false },
    ]);
  });

  it("keeps to the window given by the bracketed bounds, either alone", async () => {
    const from = encodeURIComponent(at(2 * 24 * 60 + 1));
    const to = encodeURIComponent(at(30));
    const both = await apiJson<VesselDoc>(
      `/vessels/${IMO}?show_positions[from_timestamp]=${from}&show_positions[to_timestamp]=${to}`,
      { key: routed.key },
    );
    expect((both.json.data.attributes.positions as { timestamp: string }[]).map((p) => p.timestamp)).toEqual([
      at(2 * 24 * 60),
      at(60),
    ]);
    const fromOnly = await apiJson<VesselDoc>(
      `/vessels/${IMO}?show_positions[from_timestamp]=${encodeURIComponent(at(61))}`,
      {
        key: routed.key,
      },
    );
    expect((fromOnly.json.data.attributes.positions as unknown[]).length).toBe(2);
    // A vessel known only from events has no track: an empty list.
    const eventsOnly = await apiJson<VesselDoc>(`/vessels/${EVENTS_ONLY_IMO}?show_positions=true`, { key: routed.key });
    expect(eventsOnly.json.data.attributes.positions).toEqual([]);
  });

  it("refuses malformed bounds, a non-boolean show_positions, a reversed window and unknown parameters with 400", async () => {
    const cases: [string, string][] = [
      ["show_positions[from_timestamp]=yesterday", "show_positions[from_timestamp]"],
      ["show_positions[to_timestamp]=2026-02-30T00:00:00Z", "show_positions[to_timestamp]"],
      ["show_positions=maybe", "show_positions"],
      [
        "show_positions[from_timestamp]=2026-02-01T00:00:00Z&show_positions[to_timestamp]=2026-01-01T00:00:00Z",
        "show_positions[from_timestamp]",
      ],
      ["show_positions[since]=2026-01-01", "show_positions[since]"],
    ];
    for (const [q, parameter] of cases) {
      const { res, json } = await apiJson<{ errors: { status: string; source: unknown }[] }>(`/vessels/${IMO}?${q}`, {
        key: routed.key,
      });
      expect(res.status, q).toBe(400);
      expect(json.errors[0]?.source, q).toEqual({ parameter });
    }
  });
});

describe("the vessel included from transport events", () => {
  it("carries the MMSI and latest position from the vessels table", async () => {
    const { res, json } = await apiJson<{ included: { type: string; attributes: Record<string, unknown> }[] }>(
      `/containers/${boxId}/transport_events?include=vessel`,
      { key: plain.key },
    );
    expect(res.status).toBe(200);
    const vessel = json.included.find((r) => r.type === "vessel");
    expect(vessel?.attributes).toEqual({
      name: "SEASPAN SAIGON",
      imo: IMO,
      mmsi: MMSI,
      latitude: 36.4,
      longitude: -75.4,
      nautical_speed_knots: 13,
      navigational_heading_degrees: 270,
      position_timestamp: at(10),
    });
  });
});
