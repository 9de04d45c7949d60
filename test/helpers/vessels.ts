import { env } from "cloudflare:test";
import { inject } from "vitest";
import { newId } from "../../src/lib/ids";

// Vessel test helpers: boxes on vessels written straight into D1 (the least a tracked box needs), and the control
// channel of the fake aisstream.io server (test/fixtures/fake-ais-server.ts) that the globalSetup started in Node.

/** A box on a vessel, for one account: a shipment (POD vessel optional) and one container with one vessel event. */
export async function seedBoxOnVessel(
  accountId: string,
  vessel: {
    eventImo?: string | null;
    eventVesselName?: string | null;
    podImo?: string | null;
    podName?: string | null;
  },
  nowIso = new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
): Promise<{ shipmentId: string; containerId: string }> {
  const shipmentId = newId();
  const containerId = newId();
  const number = `MSCU${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
  const statements = [
    env.DB.prepare(
      `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac,
         pod_vessel_imo, pod_vessel_name, created_at, updated_at) VALUES (?1, ?2, ?3, ?3, 'MSCU', ?4, ?5, ?6, ?6)`,
    ).bind(shipmentId, accountId, `BL${shipmentId.slice(0, 8)}`, vessel.podImo ?? null, vessel.podName ?? null, nowIso),
    env.DB.prepare(
      `INSERT INTO containers (id, account_id, shipment_id, number, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?5)`,
    ).bind(containerId, accountId, shipmentId, number, nowIso),
  ];
  if (vessel.eventImo !== undefined) {
    statements.push(
      env.DB.prepare(
        `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, timestamp, vessel_name,
           vessel_imo, data_source, created_at) VALUES (?1, ?2, ?3, ?4, 'container.transport.vessel_departed', ?5, ?6, ?7,
           'shipping_line', ?5)`,
      ).bind(newId(), accountId, containerId, shipmentId, nowIso, vessel.eventVesselName ?? null, vessel.eventImo),
    );
  }
  await env.DB.batch(statements);
  return { shipmentId, containerId };
}

/** The fake AIS server's `ws://` URL. */
export function fakeAisUrl(): string {
  return `ws://127.0.0.1:${inject("fakeAisPort")}/v0/stream`;
}

/** Calls the fake AIS server's control channel (GET without a body, else POST). */
export async function fakeAis<T = Record<string, unknown>>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${inject("fakeAisPort")}/control/${path}`, {
    method: body === undefined ? "GET" : "POST",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`fake AIS control ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** What the fake AIS server saw. */
export interface FakeAisState {
  connections: number;
  connects: number;
  subscriptions: { APIKey?: string; FiltersShipMMSI?: string[]; FilterMessageTypes?: string[] }[];
}

/** Polls `check` every 50 ms until it returns a value other than undefined/false, or fails after `ms`. */
export async function until<T>(
  check: () => Promise<T | undefined | false>,
  ms = 10_000,
  what = "condition",
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
