import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { FakeClock } from "../../src/lib/clock";
import { generateApiKey, sha256Hex } from "../../src/lib/crypto";
import { countingD1, type D1Counter } from "../../src/tracking/bench-trace";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import type { Milestone, ShipmentFacts, TerminalObservation } from "../../src/tracking/sources/types";
import { BASE, type TestAccount } from "../helpers/api";
import {
  boxNumbers,
  containersOfShipment,
  envWithQueue,
  FakeCarrier,
  FakeTerminal,
  FUTURE_T0,
  recordingQueue,
  registryOf,
  requestRow,
} from "../helpers/engine";
import { containerFacts, DAY_MS, HOUR_MS, iso, milestone, observation, shipmentFacts } from "../helpers/facts";

// A transport event's `source_event` (docs/api.md §Transport event resource) is the raw event it was recorded from. The
// documents of a box the engine tracked through a whole journey (actuals, a corrected actual, estimate changes,
// terminal availability and LFD changes, a second account joining with the history) are pinned in
// test/fixtures/transport-events-source-link/, captured before the link was stored on the row (when every document read
// all the containers' raw events to find it), so storing it changes no byte of any response's transport events. The
// fixtures hold the documents' `transport_event` resources, one a line, exactly as the response wrote them (the other
// resources belong to other parts of the API and change with them).

const SCAC = "FAKE";
const POL = "CNYTN";
const POD = "USLAX";
const FIXTURES = "../fixtures/transport-events-source-link";

/** An account with a fixed id (the documents are compared byte for byte, so every id in them must be stable). */
async function fixedAccount(accountId: string): Promise<TestAccount> {
  const apiKeyId = `${accountId}-key`;
  const key = generateApiKey("test");
  const now = iso(FUTURE_T0);
  await env.DB.batch([
    env.DB.prepare("INSERT INTO accounts (id, name, entitlements, created_at) VALUES (?1, ?1, '[]', ?2)").bind(
      accountId,
      now,
    ),
    env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?1, ?2, 'test', ?3, ?4, ?5)",
    ).bind(apiKeyId, accountId, await sha256Hex(key), key.slice(0, 13), now),
  ]);
  return { accountId, apiKeyId, key };
}

/** Inserts a BL tracking request with a fixed id and runs the real lookup consumer on it; returns its container. */
async function track(
  account: TestAccount,
  requestId: string,
  bl: string,
  sources: ReturnType<typeof registryOf>,
  clock: FakeClock,
): Promise<{ shipmentId: string; containerId: string }> {
  const created = iso(clock.now());
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac, line_scac,
         status, created_at, updated_at) VALUES (?1, ?2, 'bill_of_lading', ?3, ?3, ?4, ?4, 'pending', ?5, ?5)`,
    ).bind(requestId, account.accountId, bl, SCAC, created),
    env.DB.prepare(
      `INSERT INTO account_resource_counts (account_id, resource, count) VALUES (?1, 'tracking_request', 1)
       ON CONFLICT (account_id, resource) DO UPDATE SET count = count + 1`,
    ).bind(account.accountId),
  ]);
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const shipmentId = request.shipment_id ?? "";
  const [container] = await containersOfShipment(shipmentId);
  if (!container) throw new Error("no container row");
  return { shipmentId, containerId: container.id };
}

/** Sends `path` to the Worker with `workerEnv` (the test env unless given) and returns the status and body text. */
async function get(path: string, key: string, workerEnv: Env = env): Promise<{ status: number; text: string }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, { headers: { Authorization: `Token ${key}` } }),
    workerEnv,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, text };
}

/**
 * The `transport_event` resources of a document (`data`, then `included`), one a line, as the response wrote them:
 * the API writes `JSON.stringify` output and `JSON.parse` keeps key order, so re-stringifying one gives its bytes.
 */
function transportEventBytes(text: string): string {
  const doc = JSON.parse(text) as { data: unknown; included?: unknown[] };
  const resources = [...(Array.isArray(doc.data) ? doc.data : [doc.data]), ...(doc.included ?? [])];
  const events = resources.filter((r) => (r as { type?: unknown }).type === "transport_event");
  expect(events.length).toBeGreaterThan(0);
  return events.map((r) => `${JSON.stringify(r)}\n`).join("");
}

/** D1 round trips `path` makes (a batch, or a statement run alone, is one). */
async function roundTrips(path: string, key: string): Promise<{ status: number; counter: D1Counter }> {
  const counter: D1Counter = { batches: 0, statements: 0 };
  const { status } = await get(path, key, { ...env, DB: countingD1(env.DB, counter) });
  // Round trips and statements only (the counter also sums D1's meters, src/tracking/bench-d1.ts).
  return { status, counter: { batches: counter.batches, statements: counter.statements } };
}

interface Journey {
  a: TestAccount;
  b: TestAccount;
  boxA: { shipmentId: string; containerId: string };
  boxB: { shipmentId: string; containerId: string };
}

/**
 * One box (FAKE, Yantian → Los Angeles, Fenix Y257) tracked by account A from departure to delivery, with account B
 * joining after the discharge (it gets the history): estimates that move, an actual the carrier corrects, the terminal
 * making it available and setting and moving the LFD.
 */
async function journey(): Promise<Journey> {
  const number = boxNumbers("LNKU", 0)();
  const bl = `FAKEBL-${number}`;
  const at = (days: number) => iso(FUTURE_T0 + days * DAY_MS);
  const loaded = milestone("container.transport.vessel_loaded", at(-3), POL, { id: "loaded" });
  const departed = milestone("container.transport.vessel_departed", at(-2), POL, { id: "departed" });
  const eta = (days: number) => milestone("container.transport.vessel_arrived", at(days), POD, { estimated: true });
  const arrived = milestone("container.transport.vessel_arrived", at(1), POD, { id: "arrived" });
  const discharged = milestone("container.transport.vessel_discharged", at(1.2), POD, { id: "discharged" });
  // The carrier corrects the discharge time (same move: same identity, a new time, a re-issued upstream id).
  const dischargedCorrected = milestone("container.transport.vessel_discharged", at(1.25), POD, { id: "disc-2" });
  const fullOut = milestone("container.transport.full_out", at(3), POD, { id: "full_out" });

  let milestones: Milestone[] = [loaded, departed, eta(1)];
  let terminalView: TerminalObservation | null = null;
  const facts = (): ShipmentFacts =>
    shipmentFacts([containerFacts(number, milestones)], { billOfLadingNumber: bl, podEtaAt: null });
  const carrier = new FakeCarrier(SCAC, () => ({ kind: "found", shipment: facts() }));
  const terminal = new FakeTerminal("Y257", () =>
    terminalView ? { kind: "found", observation: terminalView } : { kind: "not_found" },
  );
  const sources = registryOf([carrier], [terminal]);
  const clock = new FakeClock(FUTURE_T0 - 2 * DAY_MS);
  const poll = async (ms: number) => {
    clock.set(ms);
    await pollBox({ env, clock, sources }, { scac: SCAC, number });
  };

  const a = await fixedAccount("link-account-a");
  const boxA = await track(a, "link-request-a", bl, sources, clock);
  milestones = [loaded, departed, eta(1.3)];
  await poll(FUTURE_T0 - 1 * DAY_MS);
  milestones = [loaded, departed, eta(1), arrived, discharged];
  terminalView = observation(at(1.5), { availabilityKnown: true, availableForPickup: false, pickupLfd: at(4) });
  await poll(FUTURE_T0 + 1.5 * DAY_MS);
  milestones = [loaded, departed, eta(1), arrived, dischargedCorrected];
  terminalView = observation(at(2), { availabilityKnown: true, availableForPickup: true, pickupLfd: at(5) });
  await poll(FUTURE_T0 + 2 * DAY_MS);
  const b = await fixedAccount("link-account-b");
  const boxB = await track(b, "link-request-b", bl, sources, clock);
  milestones = [loaded, departed, eta(1), arrived, dischargedCorrected, fullOut];
  terminalView = observation(at(3), { availabilityKnown: true, availableForPickup: false, pickupLfd: at(5) });
  await poll(FUTURE_T0 + 3 * DAY_MS + 2 * HOUR_MS);
  return { a, b, boxA, boxB };
}

let once: Promise<Journey> | undefined;

/** The journey, run once per file (its ids are fixed, and the Tracker of its box keeps its state). */
function trackedJourney(): Promise<Journey> {
  once ??= journey();
  return once;
}

/** The documents whose transport events carry `source_event`, by fixture name. */
function documents(j: Journey): [string, TestAccount, string][] {
  const all = "include=location,terminal,vessel,shipment,container";
  return [
    ["a-transport-events.txt", j.a, `/containers/${j.boxA.containerId}/transport_events?${all}`],
    ["a-container.txt", j.a, `/containers/${j.boxA.containerId}?include=transport_events`],
    ["a-containers-list.txt", j.a, "/containers?include=transport_events"],
    ["b-transport-events.txt", j.b, `/containers/${j.boxB.containerId}/transport_events?${all}`],
    ["b-container.txt", j.b, `/containers/${j.boxB.containerId}?include=transport_events`],
  ];
}

describe("transport_event source_event (the raw event it was recorded from)", () => {
  it("the documents of an engine-tracked box are byte-identical to those captured before the link was stored", async () => {
    const j = await trackedJourney();
    for (const [name, account, path] of documents(j)) {
      const { status, text } = await get(path, account.key);
      expect(status, path).toBe(200);
      await expect(transportEventBytes(text)).toMatchFileSnapshot(`${FIXTURES}/${name}`);
    }
    // The fixture is not vacuous: actuals and estimates link their raw events, terminal-made events link none.
    const { text } = await get(documents(j)[1]?.[2] ?? "", j.a.key);
    const included = (JSON.parse(text) as { included: { relationships: { source_event: { data: unknown } } }[] })
      .included;
    const links = included.map((e) => e.relationships.source_event.data);
    expect(links.filter((l) => l !== null).length).toBeGreaterThanOrEqual(6);
    expect(links.filter((l) => l === null).length).toBeGreaterThanOrEqual(3);
  });
});

/** The `raw_event_id` of each transport event of a container, by id. */
async function storedLinks(containerId: string): Promise<Record<string, string | null>> {
  const { results } = await env.DB.prepare("SELECT id, raw_event_id FROM transport_events WHERE container_id = ?1")
    .bind(containerId)
    .all<{ id: string; raw_event_id: string | null }>();
  return Object.fromEntries(results.map((r) => [r.id, r.raw_event_id]));
}

/** The statements of migration 0008 after its ALTER: the backfill of `raw_event_id`. */
function backfillStatements(): string[] {
  const migrations = (env as unknown as { TEST_MIGRATIONS: { name: string; queries: string[] }[] }).TEST_MIGRATIONS;
  const migration = migrations.find((m) => m.name.startsWith("0008_"));
  const queries = (migration?.queries ?? []).filter((q) => /^\s*(--[^\n]*\n\s*)*UPDATE\b/i.test(q));
  expect(queries).toHaveLength(1);
  return queries;
}

describe("source_event is stored with the event", () => {
  it("every carrier event the engine wrote links its raw event on the row; terminal-made ones link none", async () => {
    const j = await trackedJourney();
    for (const box of [j.boxA, j.boxB]) {
      const { results } = await env.DB.prepare(
        `SELECT t.event, t.data_source, t.raw_event_id, r.id AS raw_id, r.event AS raw_event, r.timestamp AS raw_at,
           t.timestamp AS at FROM transport_events t LEFT JOIN raw_events r ON r.id = t.raw_event_id
         WHERE t.container_id = ?1`,
      )
        .bind(box.containerId)
        .all<Record<string, string | null>>();
      expect(results.length).toBeGreaterThan(0);
      for (const row of results) {
        if (row.data_source === "shipping_line") {
          // The raw row exists, and it is the report of this milestone at this time.
          expect(row.raw_id, String(row.event)).toBe(row.raw_event_id);
          expect(String(row.event).endsWith(`.${row.raw_event}`)).toBe(true);
          expect(row.raw_at).toBe(row.at);
        } else {
          expect(row.raw_event_id, String(row.event)).toBeNull();
        }
      }
    }
  });

  it("serialising source_event reads no raw events: one D1 round trip fewer per document (list 3 → 2, one 4 → 3)", async () => {
    const j = await trackedJourney();
    // A first request writes the key's `last_used_at` (off the request path, once a minute): not counted below.
    await get(`/containers/${j.boxA.containerId}`, j.a.key);
    const list = await roundTrips(`/containers/${j.boxA.containerId}/transport_events`, j.a.key);
    const single = await roundTrips(`/containers/${j.boxA.containerId}?include=transport_events`, j.a.key);
    expect(list).toEqual({ status: 200, counter: { batches: 2, statements: 4 } });
    expect(single).toEqual({ status: 200, counter: { batches: 3, statements: 5 } });
  });

  it("rows without the link (written before it existed) are still linked by milestone, and migration 0008 backfills them as read", async () => {
    const j = await trackedJourney();
    await get(`/containers/${j.boxA.containerId}`, j.a.key);
    const written = await storedLinks(j.boxA.containerId);
    await env.DB.prepare("UPDATE transport_events SET raw_event_id = NULL WHERE container_id = ?1")
      .bind(j.boxA.containerId)
      .run();
    for (const [name, account, path] of documents(j).slice(0, 2)) {
      const { text } = await get(path, account.key);
      await expect(transportEventBytes(text)).toMatchFileSnapshot(`${FIXTURES}/${name}`);
    }
    // Without the link the raw events are read again (the cost before the column).
    const fallback = await roundTrips(`/containers/${j.boxA.containerId}/transport_events`, j.a.key);
    expect(fallback.counter.batches).toBe(3);

    await env.DB.batch(backfillStatements().map((q) => env.DB.prepare(q)));
    expect(await storedLinks(j.boxA.containerId)).toEqual(written);
    const after = await roundTrips(`/containers/${j.boxA.containerId}/transport_events`, j.a.key);
    expect(after.counter.batches).toBe(2);
    for (const [name, account, path] of documents(j)) {
      const { text } = await get(path, account.key);
      await expect(transportEventBytes(text)).toMatchFileSnapshot(`${FIXTURES}/${name}`);
    }
  });
});
