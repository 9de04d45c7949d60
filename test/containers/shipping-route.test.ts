import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { recordPositions } from "../../src/vessels/position-store";
import { api, apiJson, createAccount } from "../helpers/api";
import type { One, Resource } from "../helpers/tracking";
import { seedTransshipmentJourney, type TrackedAccount, trackedAccounts } from "../mcp/fixtures";

// GET /v2/containers/{id}/route (paid feature `routing`, docs/api.md §What a client can expect,
// §Accounts and entitlements): the 403 of an account without the entitlement, tenant isolation, the
// route/route_location/port/vessel document of a transshipment journey (CNYTN → SGSIN → USLAX, seeded by
// test/mcp/fixtures.ts), and bad input.

/** The reference's routing 403, verbatim (docs/api.md §Errors). */
const FORBIDDEN = {
  errors: [
    {
      status: "403",
      title: "Forbidden",
      detail: "Routing data feature is not enabled for this account",
      source: null,
    },
  ],
};

let routed: TrackedAccount;
/** Another account with the feature (for tenant isolation). */
let otherRouted: TrackedAccount;
/** An account with the same data but without the feature. */
let plain: TrackedAccount;
let eta: string;

beforeAll(async () => {
  // Every account that tracks the sandbox shipment is made here, before the terminal facts are written (fixtures.ts).
  [routed, otherRouted, plain] = (await trackedAccounts([["routing"], ["routing"], []])) as [
    TrackedAccount,
    TrackedAccount,
    TrackedAccount,
  ];
  ({ eta } = await seedTransshipmentJourney(routed, routed.containers[0]?.id ?? ""));
});

const boxOf = (t: TrackedAccount, i: number) => t.containers[i]?.id ?? "";

/** The included resource a linkage points at. */
function resolve(doc: One, link: { id: string; type: string } | null | undefined): Resource | undefined {
  return link ? doc.included?.find((r) => r.type === link.type && r.id === link.id) : undefined;
}

function toOne(r: Resource | undefined, name: string): { id: string; type: string } | null {
  const data = r?.relationships?.[name]?.data;
  return data && !Array.isArray(data) ? data : null;
}

describe("GET /containers/{id}/route without the routing feature", () => {
  it("answers the reference's 403 for its own container, an unknown id and another account's container", async () => {
    for (const id of [boxOf(plain, 0), "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60", boxOf(routed, 0)]) {
      const { res, json } = await apiJson(`/containers/${id}/route`, { key: plain.account.key });
      expect(res.status, id).toBe(403);
      expect(res.headers.get("content-type")).toBe("application/vnd.api+json");
      expect(json).toEqual(FORBIDDEN);
    }
  });

  it("a fresh account (no entitlements at all) gets the same 403", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson(`/containers/${boxOf(plain, 0)}/route?include=port,vessel,route_location`, {
      key: account.key,
    });
    expect(res.status).toBe(403);
    expect(json).toEqual(FORBIDDEN);
  });
});

describe("GET /containers/{id}/route with the routing feature", () => {
  it("another account's container and an unknown id are 404", async () => {
    for (const id of [boxOf(routed, 0), "0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60", "not-a-uuid"]) {
      const { res, json } = await apiJson<One>(`/containers/${id}/route`, { key: otherRouted.account.key });
      expect(res.status, id).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    }
  });

  it("a transshipment journey: POL → transshipment → POD with each leg's vessel, voyage and ETA vs. actual", async () => {
    const id = boxOf(routed, 0);
    const { res, json } = await apiJson<One>(`/containers/${id}/route?include=port,vessel,route_location`, {
      key: routed.account.key,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.api+json");
    expect(json.links?.self).toBe(`https://api.test/v2/containers/${id}/route?include=port,vessel,route_location`);
    expect(json.data.type).toBe("route");
    const row = await env.DB.prepare(
      `SELECT c.created_at, s.shipping_line_scac AS scac FROM containers c JOIN shipments s ON s.id = c.shipment_id
       WHERE c.id = ?1`,
    )
      .bind(id)
      .first<{ created_at: string; scac: string }>();
    expect(json.data.attributes).toEqual({
      container_number: routed.containers[0]?.number,
      total_legs: 2,
      created_at: row?.created_at,
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    });
    expect(toOne(json.data, "container")).toEqual({ id, type: "container" });

    const refs = json.data.relationships?.route_locations?.data;
    if (!Array.isArray(refs)) throw new Error("route_locations linkage is not a list");
    const locations = refs.map((ref) => resolve(json, ref));
    expect(locations.every((l) => l?.type === "route_location")).toBe(true);
    const [pol, ts, pod] = locations as [Resource, Resource, Resource];
    expect(locations.map((l) => [l?.attributes.role, l?.attributes.location_locode])).toEqual([
      ["port_of_lading", "CNYTN"],
      ["transshipment", "SGSIN"],
      ["port_of_discharge", "USLAX"],
    ]);

    // Leg 1: CNYTN → SGSIN on EVER ALPHA voyage 001E; leg 2: SGSIN → USLAX on MSC BETA voyage 002E.
    expect(pol.attributes).toMatchObject({
      inbound_mode: null,
      inbound_voyage_number: null,
      outbound_mode: "vessel",
      // Vessel legs name the shipping line (issue 15 item 3).
      outbound_scac: row?.scac,
      outbound_voyage_number: "001E",
    });
    expect(pol.attributes.outbound_atd_at).toEqual(expect.stringMatching(/Z$/));
    expect(ts.attributes).toMatchObject({
      location_name: "Singapore",
      timezone: "Asia/Singapore",
      inbound_mode: "vessel",
      inbound_voyage_number: "001E",
      outbound_mode: "vessel",
      outbound_voyage_number: "002E",
    });
    expect(String(ts.attributes.inbound_ata_at) < String(ts.attributes.outbound_atd_at)).toBe(true);
    expect(String(pol.attributes.outbound_atd_at) < String(ts.attributes.inbound_ata_at)).toBe(true);
    expect(pod.attributes).toMatchObject({
      inbound_mode: "vessel",
      inbound_voyage_number: "002E",
      inbound_eta_at: eta,
      outbound_mode: null,
      outbound_etd_at: null,
      outbound_atd_at: null,
    });
    // The POD's actual arrival is the container's own milestone (src/containers/shipping-route.ts), six hours after the
    // estimate (the fixtures stamp both from one clock read).
    const podArrivedAt = await env.DB.prepare("SELECT pod_arrived_at FROM containers WHERE id = ?1")
      .bind(id)
      .first<string>("pod_arrived_at");
    expect(pod.attributes.inbound_ata_at).toBe(podArrivedAt);
    expect(Date.parse(String(pod.attributes.inbound_ata_at)) - Date.parse(eta)).toBe(6 * 3_600_000);

    // Name and IMO number of the included vessel (its AIS attributes: the test below).
    const vessel = (l: Resource, rel: string) => {
      const attributes = resolve(json, toOne(l, rel))?.attributes;
      return attributes && { name: attributes.name, imo: attributes.imo };
    };
    expect(vessel(pol, "inbound_vessel")).toBeUndefined();
    expect(vessel(pol, "outbound_vessel")).toEqual({ name: "EVER ALPHA", imo: "9000001" });
    expect(vessel(ts, "inbound_vessel")).toEqual({ name: "EVER ALPHA", imo: "9000001" });
    expect(vessel(ts, "outbound_vessel")).toEqual({ name: "MSC BETA", imo: "9000002" });
    expect(vessel(pod, "inbound_vessel")).toEqual({ name: "MSC BETA", imo: "9000002" });
    expect(toOne(pol, "outbound_vessel")).toEqual(toOne(ts, "inbound_vessel"));

    for (const l of locations as Resource[]) {
      const port = resolve(json, toOne(l, "port"));
      expect(port?.attributes.code).toBe(l.attributes.location_locode);
      expect(toOne(l, "location")).toEqual(toOne(l, "port"));
    }
    // Each port and vessel once; nothing else included.
    const included = json.included ?? [];
    expect(included.map((r) => r.type).sort()).toEqual([
      "port",
      "port",
      "port",
      "route_location",
      "route_location",
      "route_location",
      "vessel",
      "vessel",
    ]);
    expect(new Set(included.map((r) => `${r.type}:${r.id}`)).size).toBe(included.length);
  });

  it("is the same document on every read (name-based ids), and includes only what is asked", async () => {
    const url = `/containers/${boxOf(routed, 0)}/route`;
    const [a, b] = await Promise.all([
      apiJson<One>(`${url}?include=route_locations`, { key: routed.account.key }),
      apiJson<One>(`${url}?include=route_locations`, { key: routed.account.key }),
    ]);
    expect(a.json).toEqual(b.json);
    expect(new Set(a.json.included?.map((r) => r.type))).toEqual(new Set(["route_location"]));

    const bare = await apiJson<One>(url, { key: routed.account.key });
    expect(bare.res.status).toBe(200);
    expect(bare.json.included).toBeUndefined();
    expect(bare.json.data).toEqual(a.json.data);

    const vesselsOnly = await apiJson<One>(`${url}?include=route_locations.outbound_vessel`, {
      key: routed.account.key,
    });
    expect(new Set(vesselsOnly.json.included?.map((r) => r.type))).toEqual(new Set(["route_location", "vessel"]));
  });

  it("without transshipment events: POL → POD on the shipment's POD vessel", async () => {
    const { res, json } = await apiJson<One>(`/containers/${boxOf(routed, 1)}/route?include=vessel`, {
      key: routed.account.key,
    });
    expect(res.status).toBe(200);
    const refs = json.data.relationships?.route_locations?.data;
    if (!Array.isArray(refs)) throw new Error("route_locations linkage is not a list");
    const [pol, pod] = refs.map((r) => resolve(json, r)) as [Resource, Resource];
    expect(refs).toHaveLength(2);
    expect([pol.attributes.location_locode, pod.attributes.location_locode]).toEqual(["CNYTN", "USLAX"]);
    expect(resolve(json, toOne(pod, "inbound_vessel"))?.attributes.name).toBe("SANDBOX EXPRESS");
    expect(json.data.attributes.total_legs).toBe(1);
  });

  it("the included vessel is the vessel resource: MMSI and latest position from the vessels table", async () => {
    const path = `/containers/${boxOf(routed, 1)}/route?include=vessel`;
    const before = await apiJson<One>(path, { key: routed.account.key });
    const vessel = before.json.included?.find((r) => r.type === "vessel");
    const imo = String(vessel?.attributes.imo);
    expect(vessel?.attributes).toMatchObject({ mmsi: null, latitude: null, position_timestamp: null });
    await recordPositions(
      createDatabase(env.DB),
      {
        identities: [{ imo, mmsi: "563281100", name: "SANDBOX EXPRESS" }],
        positions: [
          {
            imo,
            mmsi: "563281100",
            latitude: 21.5,
            longitude: -140.25,
            speedKnots: 17,
            headingDegrees: 80,
            timestamp: "2026-11-28T20:00:00Z",
            source: "ais",
          },
        ],
      },
      Date.parse("2026-11-28T20:05:00Z"),
    );
    const after = await apiJson<One>(path, { key: routed.account.key });
    expect(after.json.included?.find((r) => r.type === "vessel")?.attributes).toEqual({
      name: "SANDBOX EXPRESS",
      imo,
      mmsi: "563281100",
      latitude: 21.5,
      longitude: -140.25,
      nautical_speed_knots: 17,
      navigational_heading_degrees: 80,
      position_timestamp: "2026-11-28T20:00:00Z",
    });
  });
});

describe("GET /containers/{id}/route with a retired UN/LOCODE", () => {
  it("a POL reported as CNSGH is Shanghai: named, zoned and its port (code CNSHA) included (issue 12)", async () => {
    const [shanghai] = (await trackedAccounts([["routing"]])) as [TrackedAccount];
    const box = boxOf(shanghai, 0);
    await seedTransshipmentJourney(shanghai, box);
    // The carrier names the POL by its retired code, on the shipment and on the events; the name comes from the lookup.
    await env.DB.batch([
      env.DB.prepare(
        "UPDATE transport_events SET location_locode = 'CNSGH', location_id = NULL WHERE container_id = ?1 AND location_locode = 'CNYTN'",
      ).bind(box),
      env.DB.prepare(
        "UPDATE shipments SET port_of_lading_locode = 'CNSGH', port_of_lading_id = NULL, port_of_lading_name = NULL WHERE id = ?1",
      ).bind(shanghai.shipmentId),
    ]);
    const { res, json } = await apiJson<One>(`/containers/${box}/route?include=port,route_location`, {
      key: shanghai.account.key,
    });
    expect(res.status).toBe(200);
    const refs = json.data.relationships?.route_locations?.data;
    if (!Array.isArray(refs)) throw new Error("route_locations linkage is not a list");
    const pol = resolve(json, refs[0]);
    expect(pol?.attributes).toMatchObject({
      role: "port_of_lading",
      location_locode: "CNSGH",
      location_name: "Shanghai",
    });
    expect(resolve(json, toOne(pol, "port"))?.attributes).toMatchObject({ code: "CNSHA", time_zone: "Asia/Shanghai" });
  });
});

describe("GET /containers/{id}/route bad input", () => {
  it("an unknown include is a 400 naming it, for any account, before any lookup", async () => {
    const cases: [string, string][] = [
      ["bogus", "bogus is not specified as a relationship on V2::RouteSerializer"],
      ["port,shipment", "shipment is not specified as a relationship on V2::RouteSerializer"],
      ["route_locations.nope", "nope is not specified as a relationship on V2::RouteLocationSerializer"],
      ["port.terminals", "port.terminals is nested too deeply."],
      ["route_locations.port.terminals", "route_locations.port.terminals is nested too deeply."],
    ];
    for (const key of [routed.account.key, plain.account.key]) {
      for (const [include, detail] of cases) {
        const { res, json } = await apiJson<One>(
          `/containers/${boxOf(routed, 0)}/route?include=${encodeURIComponent(include)}`,
          { key },
        );
        expect(res.status, include).toBe(400);
        expect(json.errors).toEqual([
          { status: "400", title: "Bad Request", detail, source: { parameter: "include" } },
        ]);
      }
    }
    const long = await apiJson<One>(`/containers/${boxOf(routed, 0)}/route?include=${"port,".repeat(200)}`, {
      key: routed.account.key,
    });
    expect(long.res.status).toBe(400);
  });

  it("an over-long id is a 404 (no such id can exist, as on every {id} path); no key is a 401; no POST", async () => {
    const tooLong = await apiJson<One>(`/containers/${"x".repeat(65)}/route`, { key: routed.account.key });
    expect(tooLong.res.status).toBe(404);
    expect(tooLong.json.errors?.[0]?.status).toBe("404");
    const anonymous = await api(`/containers/${boxOf(routed, 0)}/route`);
    expect(anonymous.status).toBe(401);
    const post = await api(`/containers/${boxOf(routed, 0)}/route`, { method: "POST", key: routed.account.key });
    expect(post.status).toBeGreaterThanOrEqual(400);
    expect(post.status).toBeLessThan(500);
  });
});

describe("OpenAPI", () => {
  it("documents GET /containers/{id}/route with its 200, 403 and 404", async () => {
    const { json } = await apiJson<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      "/openapi.json",
    );
    const op = json.paths["/containers/{id}/route"]?.get;
    expect(Object.keys(op?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "404", "429"]),
    );
  });
});
