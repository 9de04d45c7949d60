import { env } from "cloudflare:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { getIssues } from "@placemarkio/check-geojson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toIsoSeconds } from "../../src/lib/clock";
import { vesselIdForImo } from "../../src/vessels/identity";
import { apiJson } from "../helpers/api";
import { expectMatchesOutputSchema, seedTransshipmentJourney, type TrackedAccount, trackedAccounts } from "./fixtures";
import { connectMcp } from "./helpers";

// MCP: get_container_route's current_vessel (the vessel carrying the box now and its position) and get_container_map
// (the map GeoJSON of GET /v2/containers/{id}/map_geojson, same service, same `routing` feature).

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

let routed: TrackedAccount;
let other: TrackedAccount;
let plain: TrackedAccount;
let client: Client;
let outputSchemas: Map<string, unknown>;
let now: number;

beforeAll(async () => {
  [routed, other, plain] = (await trackedAccounts([["routing"], ["routing"], []])) as [
    TrackedAccount,
    TrackedAccount,
    TrackedAccount,
  ];
  now = routed.factsAt ?? Date.now();
  // Box 0: the finished transshipment journey; box 1: at sea on MSC BETA (left Singapore 2 days ago).
  await seedTransshipmentJourney(routed, routed.containers[0]?.id ?? "");
  await env.DB.prepare("UPDATE shipments SET pod_ata_at = NULL WHERE id = ?1").bind(routed.shipmentId).run();
  await env.DB.prepare("UPDATE containers SET pod_arrived_at = NULL, pod_discharged_at = NULL WHERE id = ?1")
    .bind(routed.containers[1]?.id)
    .run();
  const event = (name: string, offsetMs: number, locode: string, imo: string, vessel: string, i: number) =>
    env.DB.prepare(
      `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, voyage_number, timestamp,
         location_locode, vessel_name, vessel_imo, data_source, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, '7W', ?6, ?7, ?8, ?9, 'shipping_line', ?10)`,
    ).bind(
      `mcpmap-${i}-${crypto.randomUUID().slice(0, 6)}`,
      routed.account.accountId,
      routed.containers[1]?.id,
      routed.shipmentId,
      name,
      toIsoSeconds(now + offsetMs),
      locode,
      vessel,
      imo,
      toIsoSeconds(now),
    );
  await env.DB.batch([
    event("container.transport.vessel_departed", -6 * DAY_MS, "CNYTN", "9000001", "EVER ALPHA", 1),
    event("container.transport.transshipment_arrived", -3 * DAY_MS, "SGSIN", "9000001", "EVER ALPHA", 2),
    event("container.transport.transshipment_departed", -2 * DAY_MS, "SGSIN", "9000003", "MSC GAMMA", 3),
    event("container.transport.estimated.vessel_arrived", 9 * DAY_MS, "USLAX", "9000003", "MSC GAMMA", 4),
    env.DB.prepare(
      `INSERT INTO vessels (id, imo, name, latitude, longitude, nautical_speed_knots, navigational_heading_degrees,
         position_timestamp, updated_at) VALUES (?1, '9000003', 'MSC GAMMA', 21.5, 118.25, 17.2, 48, ?2, ?2)`,
    ).bind(vesselIdForImo("9000003"), toIsoSeconds(now - HOUR_MS)),
  ]);
  ({ client } = await connectMcp(routed.account.key));
  outputSchemas = new Map((await client.listTools()).tools.map((t) => [t.name, t.outputSchema]));
});

afterAll(async () => {
  await client?.close();
});

async function call(c: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === "text" ? first.text : "";
}

describe("get_container_route: the vessel now", () => {
  it("gives the vessel carrying the box and its latest position", async () => {
    const result = await call(client, "get_container_route", { id: routed.containers[1]?.id });
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expectMatchesOutputSchema(outputSchemas.get("get_container_route"), result.structuredContent);
    expect((result.structuredContent as { current_vessel: unknown }).current_vessel).toEqual({
      vessel_name: "MSC GAMMA",
      imo: "9000003",
      voyage_number: "7W",
      from_locode: "SGSIN",
      to_locode: "USLAX",
      latitude: 21.5,
      longitude: 118.25,
      speed_knots: 17.2,
      heading_degrees: 48,
      timestamp: toIsoSeconds(now - HOUR_MS),
    });
    expect(textOf(result)).toContain("Now: MSC GAMMA at 21.500, 118.250, 17.2 kn, heading 48°");
  });

  it("is null when the box is not at sea", async () => {
    const result = await call(client, "get_container_route", { id: routed.containers[0]?.id });
    expect((result.structuredContent as { current_vessel: unknown }).current_vessel).toBeNull();
  });
});

describe("get_container_map", () => {
  it("is the REST map, valid GeoJSON, with the vessel now", async () => {
    for (const box of routed.containers) {
      const result = await call(client, "get_container_map", { id: box.number });
      expect(result.isError ?? false, textOf(result)).toBe(false);
      expectMatchesOutputSchema(outputSchemas.get("get_container_map"), result.structuredContent);
      const { json } = await apiJson(`/containers/${box.id}/map_geojson`, { key: routed.account.key });
      expect(result.structuredContent).toEqual(json);
      expect(getIssues(JSON.stringify(result.structuredContent))).toEqual([]);
    }
    const atSea = await call(client, "get_container_map", { id: routed.containers[1]?.id });
    const features = (atSea.structuredContent as { features: { properties: { feature_type: string } }[] }).features;
    expect(features.map((f) => f.properties.feature_type)).toContain("current_vessel");
    expect(textOf(atSea)).toContain("vessel MSC GAMMA at 21.500, 118.250");
    expect(textOf(atSea)).toContain("- POL ");
  });

  it("without the routing feature: the same error as get_container_route", async () => {
    const { client: denied } = await connectMcp(plain.account.key);
    try {
      const result = await call(denied, "get_container_map", { id: plain.containers[0]?.id });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Feature not enabled: Routing data feature is not enabled for this account\./);
    } finally {
      await denied.close();
    }
  });

  it("another account's container is not found, and nothing of its map is given", async () => {
    const { client: stranger } = await connectMcp(other.account.key);
    try {
      const result = await call(stranger, "get_container_map", { id: routed.containers[1]?.id });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/not found|No container/i);
      expect(JSON.stringify(result)).not.toContain("MSC GAMMA");
      const route = await call(stranger, "get_container_route", { id: routed.containers[1]?.id });
      expect(route.isError).toBe(true);
      expect(JSON.stringify(route)).not.toContain("21.5");
    } finally {
      await stranger.close();
    }
  });
});
