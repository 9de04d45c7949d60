import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import type { SourceRegistry } from "../../src/tracking/sources";
import { createDcsaSource, parseDcsaSources } from "../../src/tracking/sources/dcsa";
import type { LookupRequest } from "../../src/tracking/sources/types";
import { WEBHOOK_EVENTS } from "../../src/webhooks/catalog";
import { BOX_A, CALLS, equipmentEvent, JOURNEY_BL, transportEvent } from "../fixtures/dcsa-events";
import { createAccount } from "../helpers/api";
import {
  containerRow,
  containersOfShipment,
  envWithQueue,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  requestRow,
} from "../helpers/engine";
import { HOUR_MS } from "../helpers/facts";
import { insertWebhook, notificationsOf } from "../helpers/receiver";

// Event identity beyond the carrier's id (issue 13 item 2), end to end: a fake DCSA Track & Trace 2.2 carrier
// speaking HTTP (GET /v2/events with its filter, `limit`, Next-Page cursor paging; 404 for anything else) behind
// the injected fetch, the real lookup and poll consumers, the Tracker, D1 and the webhook outbox.

const BASE = "https://dcsa-identity.example.test/tnt";
const PAGE_SIZE = 3;

/** Deterministic uuid-shaped ids of one "generation" of the carrier's system (a reload issues new ones). */
const uuid = (generation: number, n: number) =>
  `00000000-0000-4000-${(0x8000 + generation).toString(16)}-${n.toString().padStart(12, "0")}`;

/**
 * A DCSA 2.2 carrier: serves `events` for one transport document, `PAGE_SIZE` per page, each page linking the next
 * with a bare cursor in `Next-Page`. `restart()` reloads its system: every event comes back under a new `eventID`
 * (the same move, place and time) and in another order, as carriers do after a re-load.
 */
class FakeDcsaCarrier {
  private events: Record<string, unknown>[] = [];
  private generation = 0;
  requests = 0;

  constructor(private readonly bl: string) {}

  /** Adds events (as the carrier learns of moves). */
  publish(...events: Record<string, unknown>[]): void {
    this.events.push(...events.map((e, i) => ({ ...e, eventID: uuid(this.generation, this.events.length + i) })));
  }

  restart(): void {
    this.generation++;
    this.events = [...this.events].reverse().map((e, i) => ({ ...e, eventID: uuid(this.generation, i) }));
  }

  readonly fetch: typeof fetch = async (input) => {
    this.requests++;
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin + url.pathname !== `${BASE}/v2/events`) return Response.json({ statusCode: 404 }, { status: 404 });
    if (url.searchParams.get("transportDocumentReference") !== this.bl) {
      return Response.json({ statusCode: 404 }, { status: 404 });
    }
    const offset = Number(url.searchParams.get("cursor") ?? "0");
    const page = this.events.slice(offset, offset + PAGE_SIZE);
    const next = offset + PAGE_SIZE < this.events.length ? { "Next-Page": String(offset + PAGE_SIZE) } : undefined;
    return Response.json(page, { headers: { "API-Version": "2.2.0", ...next } });
  };
}

/** A truck move that reuses the id of a vessel call (and copies its vessel), as some carriers send gate moves. */
const truckOn = (vesselCall: typeof CALLS.pol, facilityCode: string, facilityTypeCode: string) => ({
  transportCallID: vesselCall.transportCallID,
  modeOfTransport: "TRUCK",
  UNLocationCode: vesselCall.UNLocationCode,
  facilityCode,
  facilityCodeListProvider: "SMDG",
  facilityTypeCode,
  carrierVoyageNumber: vesselCall.carrierVoyageNumber,
  vessel: vesselCall.vessel,
});

/** Box A from Yantian to Le Havre: until departure (at the lookup), then the arrival, discharge and gate-out. */
const ON_THE_WATER = [
  // Gate moves first in the feed: merged into the vessel call by its id, they used to lend it the mode TRUCK.
  equipmentEvent({
    n: 1,
    box: BOX_A,
    code: "GTOT",
    empty: "EMPTY",
    at: "2024-02-01T09:00:00+08:00",
    call: truckOn(CALLS.pol, "YTDEP", "DEPO"),
  }),
  equipmentEvent({
    n: 2,
    box: BOX_A,
    code: "GTIN",
    at: "2024-02-03T14:00:00+08:00",
    call: truckOn(CALLS.pol, "YICT", "POTE"),
  }),
  equipmentEvent({ n: 3, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: CALLS.pol }),
  transportEvent({ n: 4, code: "DEPA", at: "2024-02-06T03:15:00+08:00", call: CALLS.pol }),
  transportEvent({
    n: 5,
    code: "ARRI",
    classifier: "EST",
    at: "2024-03-07T08:00:00+01:00",
    created: "2024-02-20T09:00:00+01:00",
    call: CALLS.pod,
  }),
];
const DISCHARGE_AT = "2024-03-07T10:00:00+01:00";
const AT_POD = [
  transportEvent({ n: 6, code: "ARRI", at: "2024-03-06T23:30:00+01:00", call: CALLS.pod }),
  equipmentEvent({ n: 7, box: BOX_A, code: "DISC", at: DISCHARGE_AT, call: CALLS.pod }),
  equipmentEvent({
    n: 8,
    box: BOX_A,
    code: "GTOT",
    at: "2024-03-08T09:00:00+01:00",
    call: truckOn(CALLS.pod, "GMP", "POTE"),
  }),
];

interface EventRow {
  id: string;
  event: string;
  timestamp: string | null;
  vessel_name: string | null;
  vessel_imo: string | null;
  voyage_number: string | null;
  location_locode: string | null;
}

async function eventRows(containerId: string): Promise<EventRow[]> {
  const { results } = await env.DB.prepare(
    `SELECT id, event, timestamp, vessel_name, vessel_imo, voyage_number, location_locode FROM transport_events
     WHERE container_id = ?1 ORDER BY timestamp, event`,
  )
    .bind(containerId)
    .all<EventRow>();
  return results;
}

async function rawCount(containerId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1")
    .bind(containerId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Tracks JOURNEY_BL of SCAC `scac` served by `carrier` (real lookup consumer); a webhook takes every transport event. */
async function trackAt(scac: string, carrier: FakeDcsaCarrier, clock: FakeClock) {
  const configs = parseDcsaSources(JSON.stringify({ [scac]: { baseUrl: BASE, headers: { "Consumer-Key": "k" } } }));
  const sources: SourceRegistry = {
    carriers: [createDcsaSource(configs, { pageSize: PAGE_SIZE })],
    terminals: [],
    supportedScacs: new Set([scac]),
    speedUpFor: () => 1,
    lookupSpeedUpFor: () => 1,
    lineSourceKind: () => null,
  };
  const account = await createAccount();
  const webhook = await insertWebhook(account, {
    events: WEBHOOK_EVENTS.filter((e) => e.startsWith("container.transport.")),
  });
  const requestId = await insertRequest(account, { number: JOURNEY_BL, scac, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources, fetch: carrier.fetch },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const [container] = await containersOfShipment(request.shipment_id ?? "");
  if (!container) throw new Error("no container row");
  const poll = async () => {
    clock.advance(HOUR_MS);
    const results = await pollBox({ env, clock, sources, fetch: carrier.fetch }, { scac, number: BOX_A });
    expect(results?.carrier?.kind).toBe("found");
  };
  return { containerId: container.id, webhook, poll };
}

beforeEach(() => {
  // The source reports what it keeps as raw only; the webhook deliveries the outbox enqueues are not under test.
  vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("a carrier re-issuing its events under new ids", () => {
  it("after a restart of the carrier: zero new transport events, raw events or notifications", async () => {
    const carrier = new FakeDcsaCarrier(JOURNEY_BL);
    carrier.publish(...ON_THE_WATER);
    const clock = new FakeClock(FUTURE_T0);
    const { containerId, webhook, poll } = await trackAt("DCSI", carrier, clock);
    carrier.publish(...AT_POD);
    await poll();
    const rows = await eventRows(containerId);
    const raw = await rawCount(containerId);
    const notifications = await notificationsOf(webhook.id);
    // The poll path does record news: the three moves at the POD, each announced.
    expect(rows.map((r) => r.event.replace("container.transport.", ""))).toEqual([
      "empty_out",
      "full_in",
      "vessel_loaded",
      "vessel_departed",
      "vessel_arrived",
      "vessel_discharged",
      "full_out",
    ]);
    expect(notifications.map((n) => n.event).sort()).toEqual([
      "container.transport.full_out",
      "container.transport.vessel_arrived",
      "container.transport.vessel_discharged",
    ]);

    carrier.restart();
    await poll();
    await poll();
    expect(await eventRows(containerId)).toEqual(rows);
    expect(await rawCount(containerId)).toBe(raw);
    expect(await notificationsOf(webhook.id)).toEqual(notifications);
  });
});

describe("a corrected actual", () => {
  it("updates the event in place and notifies once", async () => {
    const carrier = new FakeDcsaCarrier(JOURNEY_BL);
    carrier.publish(...ON_THE_WATER, ...AT_POD);
    const clock = new FakeClock(FUTURE_T0);
    const { containerId, webhook, poll } = await trackAt("DCSJ", carrier, clock);
    const before = await eventRows(containerId);
    const discharged = before.find((r) => r.event === "container.transport.vessel_discharged");
    expect(discharged?.timestamp).toBe("2024-03-07T09:00:00Z");
    expect(await notificationsOf(webhook.id)).toEqual([]);

    // The carrier corrects the discharge time: a new report of the same move (new id, newer creation time).
    carrier.publish(
      equipmentEvent({
        n: 9,
        box: BOX_A,
        code: "DISC",
        at: "2024-03-07T12:30:00+01:00",
        created: "2024-03-07T15:00:00+01:00",
        call: CALLS.pod,
      }),
    );
    await poll();
    const after = await eventRows(containerId);
    expect(after).toHaveLength(before.length);
    expect(after.find((r) => r.id === discharged?.id)?.timestamp).toBe("2024-03-07T11:30:00Z");
    expect(after.filter((r) => r.id !== discharged?.id)).toEqual(before.filter((r) => r.id !== discharged?.id));
    expect((await containerRow(containerId)).pod_discharged_at).toBe("2024-03-07T11:30:00Z");
    const notifications = await notificationsOf(webhook.id);
    expect(notifications.map((n) => [n.event, n.reference_object_id])).toEqual([
      ["container.transport.vessel_discharged", discharged?.id],
    ]);
    expect(JSON.stringify(JSON.parse(notifications[0]?.payload ?? "{}").included)).toContain("2024-03-07T11:30:00Z");

    await poll();
    carrier.restart();
    await poll();
    expect(await eventRows(containerId)).toEqual(after);
    expect(await notificationsOf(webhook.id)).toHaveLength(1);
  });
});

describe("truck gate moves", () => {
  it("carry the mode TRUCK and no vessel, even on a transport call id the vessel call also uses", async () => {
    const carrier = new FakeDcsaCarrier(JOURNEY_BL);
    carrier.publish(...ON_THE_WATER, ...AT_POD);
    const configs = parseDcsaSources(JSON.stringify({ DCSK: { baseUrl: BASE } }));
    const request: LookupRequest = { requestType: "bill_of_lading", number: JOURNEY_BL, scac: "DCSK" };
    const result = await createDcsaSource(configs).lookup(request, { nowMs: FUTURE_T0, fetch: carrier.fetch });
    if (result.kind !== "found") throw new Error(`expected found, got ${result.kind}`);
    expect(result.shipment.portOfLadingLocode).toBe("CNYTN");
    const milestones = result.shipment.containers[0]?.milestones ?? [];
    const byEvent = (name: string) => milestones.filter((m) => m.event === `container.transport.${name}`);
    for (const name of ["empty_out", "full_in", "full_out"]) {
      expect(byEvent(name).map((m) => [m.modeOfTransport, m.vesselName, m.vesselImo, m.voyageNumber])).toEqual([
        ["TRUCK", null, null, null],
      ]);
    }
    expect(byEvent("vessel_loaded").map((m) => [m.modeOfTransport, m.vesselName, m.voyageNumber])).toEqual([
      ["VESSEL", "DCSA TRADER", "401W"],
    ]);
    expect(byEvent("vessel_discharged").map((m) => [m.modeOfTransport, m.vesselName, m.voyageNumber])).toEqual([
      ["VESSEL", "King of the Seas", "2103N"],
    ]);

    const clock = new FakeClock(FUTURE_T0);
    const { containerId } = await trackAt("DCSL", carrier, clock);
    const rows = await eventRows(containerId);
    const gates = rows.filter((r) => /(empty_out|full_in|full_out)$/.test(r.event));
    expect(gates.map((r) => [r.event, r.vessel_name, r.vessel_imo, r.voyage_number])).toEqual([
      ["container.transport.empty_out", null, null, null],
      ["container.transport.full_in", null, null, null],
      ["container.transport.full_out", null, null, null],
    ]);
  });
});
