import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { MAX_CALLBACK_BODY_BYTES } from "../../src/callbacks/lifecycle";
import { sweepPortOfVirginiaSubscriptions } from "../../src/callbacks/port-of-virginia";
import { decryptSecret, subscriptionKeyFrom } from "../../src/callbacks/secrets";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import { createPortOfVirginiaSource } from "../../src/tracking/sources/terminal-operators/port-of-virginia";
import type { LookupResult } from "../../src/tracking/sources/types";
import type { TerminalPollMessage } from "../../src/tracking/terminal-poll-message";
import { createAccount } from "../helpers/api";
import {
  boxNumbers,
  containerRow,
  containersOfShipment,
  FakeCarrier,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
} from "../helpers/engine";
import { containerFacts, HOUR_MS, iso, milestone, shipmentFacts } from "../helpers/facts";
import { FAKE_POV_API_KEY, FAKE_POV_BASE, FakePortOfVirginia, povAvailability } from "../helpers/fake-port-of-virginia";
import { streamedBody } from "../helpers/streamed-body";

// Issue 14: Port of Virginia subscriptions end to end. Tracking a BL whose boxes are discharged at NIT (FIRMS L005)
// subscribes each box at the (fake) port with our callback URL; a push of an availability change triggers an
// immediate poll through the same consumer → Tracker path, so the change lands without waiting for the schedule; a
// forged or replayed push is refused with nothing written; stopping tracking deletes the subscriptions at the port.

const PUBLIC_BASE_URL = "https://tracking.example.test";
/** A fixed AES key for the tests (base64 of 32 bytes). */
const KEY = btoa(String.fromCharCode(...Array.from({ length: 32 }, (_, i) => i + 7)));
const SCAC = "CMDU";
const NIT = "L005";
const nextBox = boxNumbers("PVSU", 800_000);

const povSources = (subscriptions: boolean) =>
  JSON.stringify({
    port_of_virginia: {
      baseUrl: FAKE_POV_BASE,
      auth: { type: "api_key", apiKey: FAKE_POV_API_KEY },
      facilities: { [NIT]: "NIT" },
      subscriptions,
    },
  });

interface SubscriptionRow {
  id: string;
  provider: string;
  scac: string;
  reference_type: string;
  reference_number: string;
  upstream_id: string | null;
  callback_url: string;
  secret_ciphertext: string;
  status: string;
  callback_count: number;
}

async function subscriptionRow(number: string): Promise<SubscriptionRow | null> {
  return env.DB.prepare("SELECT * FROM upstream_subscriptions WHERE provider = ?1")
    .bind(`port_of_virginia:${number}`)
    .first<SubscriptionRow>();
}

/** Tracks a BL of two boxes discharged at NIT, the port holding both (not yet available). */
async function track(
  subscriptions = true,
  heldAtStart = 2,
  by: "bill_of_lading" | "container" | "booking_number" = "bill_of_lading",
) {
  const port = new FakePortOfVirginia();
  const numbers = by === "bill_of_lading" ? [nextBox(), nextBox()] : [nextBox()];
  // A carrier asked by container number without a BL to give reports the container number in its place (DCSA).
  const bl = by === "container" ? (numbers[0] ?? "") : `PVSBL${numbers[0]}`;
  for (const n of numbers.slice(0, heldAtStart)) port.set(povAvailability(n, bl));
  const answer: LookupResult = {
    kind: "found",
    shipment: shipmentFacts(
      numbers.map((n) =>
        containerFacts(n, [milestone("container.transport.vessel_discharged", iso(FUTURE_T0 - HOUR_MS), "USORF")]),
      ),
      { billOfLadingNumber: bl, portOfDischargeLocode: "USORF", podTerminalCode: NIT },
    ),
  };
  const carrier = new FakeCarrier(SCAC, () => answer);
  const clock = new FakeClock(FUTURE_T0);
  const polls = recordingQueue<TerminalPollMessage>();
  const testEnv: Env = {
    ...env,
    TERMINAL_SOURCES: povSources(subscriptions),
    PUBLIC_BASE_URL,
    UPSTREAM_SUBSCRIPTION_KEY: KEY,
    TERMINAL_POLLS_QUEUE: polls,
    TRACKING_REQUESTS_QUEUE: recordingQueue(),
  };
  const source = createPortOfVirginiaSource(
    {
      baseUrl: FAKE_POV_BASE,
      auth: { type: "api_key", apiKey: FAKE_POV_API_KEY, header: "X-API-KEY" },
      facilities: { [NIT]: "NIT" },
    },
    {},
  );
  const sources = registryOf([carrier], [source]);
  const app = createApp();
  const fetchApp: typeof fetch = async (input, init) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(input, init), testEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
  const deps = () => ({ env: testEnv, clock, sources, fetch: port.fetch });
  const account = await createAccount();
  const requestId = await insertRequest(account, {
    number: by === "container" ? (numbers[0] ?? "") : bl,
    scac: SCAC,
    requestType: by,
    createdAtMs: clock.now(),
  });
  await processTrackingRequest(deps(), { trackingRequestId: requestId, accountId: account.accountId });
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const rows = await containersOfShipment(request.shipment_id ?? "");
  const idOf = new Map(rows.map((r) => [r.number, r.id]));
  const runQueuedPolls = async () => {
    const queued = polls.sent.splice(0);
    for (const m of queued) await pollBox(deps(), m.body);
    return queued.map((m) => m.body.number);
  };
  return {
    port,
    numbers,
    bl,
    clock,
    testEnv,
    polls,
    fetchApp,
    deps,
    idOf,
    runQueuedPolls,
    shipmentId: request.shipment_id,
  };
}

beforeEach(() => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "info").mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("Port of Virginia subscriptions", () => {
  it("subscribes each box at the port with our callback URL and a token kept encrypted", async () => {
    const h = await track();
    expect(h.port.subscriptions.size).toBe(2);
    const key = await subscriptionKeyFrom(KEY);
    if (!key) throw new Error("no key");
    for (const number of h.numbers) {
      const row = await subscriptionRow(number);
      if (!row) throw new Error(`no subscription row of ${number}`);
      const held = h.port.subscriptions.get(row.upstream_id ?? "");
      expect(held).toMatchObject({ equipmentId: number, referenceId: h.bl });
      expect(row).toMatchObject({
        status: "active",
        scac: SCAC,
        reference_type: "bill_of_lading",
        reference_number: h.bl,
        callback_url: held?.callbackUrl,
      });
      const token = await decryptSecret(key, row.id, row.secret_ciphertext);
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(row.callback_url).toBe(`${PUBLIC_BASE_URL}/callbacks/port-of-virginia/${row.id}/${token}`);
      expect(row.secret_ciphertext).not.toContain(token ?? "-");
    }
  });

  it("a push of an availability change polls the box at once, and the change lands through the Tracker", async () => {
    const h = await track();
    const [box = ""] = h.numbers;
    h.clock.set(FUTURE_T0 + HOUR_MS);
    await pollBox(h.deps(), { scac: SCAC, number: box });
    expect((await containerRow(h.idOf.get(box) ?? "")).available_for_pickup).toBe(0);

    h.port.update(box, { shipmentStatus: "Available", yardBlock: "CA21" });
    h.clock.set(FUTURE_T0 + HOUR_MS + 60_000);
    expect(await h.port.push(box, h.fetchApp)).toEqual([204]);
    expect(await h.runQueuedPolls()).toEqual([box]);
    expect(await containerRow(h.idOf.get(box) ?? "")).toMatchObject({
      available_for_pickup: 1,
      location_at_pod_terminal: "CA21",
      terminal_checked_at: iso(FUTURE_T0 + HOUR_MS + 60_000),
    });
    expect((await subscriptionRow(box))?.callback_count).toBe(1);

    // The same body again is a replay: 409, nothing queued.
    expect(await h.port.push(box, h.fetchApp)).toEqual([409]);
    expect(h.polls.sent).toHaveLength(0);
  });

  it("refuses a push to a forged URL or an unknown subscription with 404, writing and queuing nothing", async () => {
    const h = await track();
    const [box = ""] = h.numbers;
    const row = await subscriptionRow(box);
    if (!row) throw new Error("no row");
    const body = JSON.stringify(povAvailability(box, h.bl, { shipmentStatus: "Available" }));
    const post = (url: string) =>
      h.fetchApp(url, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const forged = `${PUBLIC_BASE_URL}/callbacks/port-of-virginia/${row.id}/${"0".repeat(64)}`;
    expect((await post(forged)).status).toBe(404);
    expect((await post(`${PUBLIC_BASE_URL}/callbacks/port-of-virginia/${row.id}/not-hex`)).status).toBe(404);
    const unknown = `${PUBLIC_BASE_URL}/callbacks/port-of-virginia/00000000-0000-4000-8000-00000000dead/${"a".repeat(64)}`;
    expect((await post(unknown)).status).toBe(404);
    expect((await post(row.callback_url.replace(/\/[0-9a-f]+$/, ""))).status).toBe(404);
    const bad = await h.fetchApp(row.callback_url, { method: "POST", body: "not json" });
    expect(bad.status).toBe(400);
    expect(h.polls.sent).toHaveLength(0);
    expect((await subscriptionRow(box))?.callback_count).toBe(0);
  });

  it("reads no body for a forged or unknown URL, and stops at the limit for its own, whatever the framing", async () => {
    const h = await track();
    const [box = ""] = h.numbers;
    const row = await subscriptionRow(box);
    if (!row) throw new Error("no row");
    const post = (url: string, body: ReadableStream<Uint8Array>) =>
      h.fetchApp(url, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const forged = streamedBody(8 * MAX_CALLBACK_BODY_BYTES);
    const forgedUrl = `${PUBLIC_BASE_URL}/callbacks/port-of-virginia/${row.id}/${"0".repeat(64)}`;
    expect((await post(forgedUrl, forged.body)).status).toBe(404);
    expect(forged.pulled()).toBe(0);
    const unknown = streamedBody(8 * MAX_CALLBACK_BODY_BYTES);
    const unknownUrl = `${PUBLIC_BASE_URL}/callbacks/port-of-virginia/00000000-0000-4000-8000-00000000dead/${"a".repeat(64)}`;
    expect((await post(unknownUrl, unknown.body)).status).toBe(404);
    expect(unknown.pulled()).toBe(0);
    const own = streamedBody(8 * MAX_CALLBACK_BODY_BYTES);
    expect((await post(row.callback_url, own.body)).status).toBe(413);
    expect(own.pulled()).toBeGreaterThan(0);
    expect(own.pulled()).toBeLessThanOrEqual(MAX_CALLBACK_BODY_BYTES + 64 * 1024);
    expect(h.polls.sent).toHaveLength(0);
    expect((await subscriptionRow(box))?.callback_count).toBe(0);
  });

  it("stopping tracking deletes the subscriptions at the port; a late push is 410", async () => {
    const h = await track();
    const rows = await Promise.all(h.numbers.map((n) => subscriptionRow(n)));
    await env.DB.prepare("UPDATE tracked_equipment SET stopped_at = ?1 WHERE scac = ?2 AND number IN (?3, ?4)")
      .bind(iso(FUTURE_T0 + HOUR_MS), SCAC, h.numbers[0], h.numbers[1])
      .run();
    const report = await sweepPortOfVirginiaSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.port.fetch });
    expect(report).toEqual({ deleted: 2, deleteFailures: 0, retried: 0 });
    expect(h.port.subscriptions.size).toBe(0);
    for (const number of h.numbers) expect((await subscriptionRow(number))?.status).toBe("deleted");
    const late = await h.fetchApp(rows[0]?.callback_url ?? "", { method: "POST", body: "{}" });
    expect(late.status).toBe(410);
    // Nothing left to delete on the next run.
    expect(await sweepPortOfVirginiaSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.port.fetch })).toEqual({
      deleted: 0,
      deleteFailures: 0,
      retried: 0,
    });
  });

  it("keeps a subscription the port fails to delete, and deletes it on a later run", async () => {
    const h = await track();
    await env.DB.prepare("UPDATE tracked_equipment SET stopped_at = ?1 WHERE scac = ?2 AND number = ?3")
      .bind(iso(FUTURE_T0 + HOUR_MS), SCAC, h.numbers[0])
      .run();
    h.port.mode = "error_500";
    expect(await sweepPortOfVirginiaSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.port.fetch })).toEqual({
      deleted: 0,
      deleteFailures: 1,
      retried: 0,
    });
    expect((await subscriptionRow(h.numbers[0] ?? ""))?.status).toBe("active");
    h.port.mode = "ok";
    expect(await sweepPortOfVirginiaSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.port.fetch })).toEqual({
      deleted: 1,
      deleteFailures: 0,
      retried: 0,
    });
    // The other box is still tracked: its subscription stays.
    expect((await subscriptionRow(h.numbers[1] ?? ""))?.status).toBe("active");
    expect(h.port.subscriptions.size).toBe(1);
  });

  it("a box the port did not know yet is subscribed once a poll finds it there (retried after an hour)", async () => {
    const h = await track(true, 1);
    const late = h.numbers[1] ?? "";
    expect((await subscriptionRow(late))?.status).toBe("failed");
    expect(h.port.subscriptions.size).toBe(1);
    // An hour on, but the port has not reported the box yet: not asked again.
    h.clock.set(FUTURE_T0 + 2 * HOUR_MS);
    expect(
      (await sweepPortOfVirginiaSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.port.fetch })).retried,
    ).toBe(0);
    // The manifest reaches the terminal; the next poll finds the box, the next sweep subscribes it.
    h.port.set(povAvailability(late, h.bl));
    await pollBox(h.deps(), { scac: SCAC, number: late });
    expect((await containerRow(h.idOf.get(late) ?? "")).availability_known).toBe(1);
    expect(
      (await sweepPortOfVirginiaSubscriptions({ env: h.testEnv, clock: h.clock, fetch: h.port.fetch })).retried,
    ).toBe(1);
    expect((await subscriptionRow(late))?.status).toBe("active");
    expect([...h.port.subscriptions.values()].map((s) => s.equipmentId).sort()).toEqual([...h.numbers].sort());
  });

  it.each(["container", "booking_number"] as const)(
    "a box tracked by %s with no BL to pair it with is not subscribed (the port would refuse)",
    async (by) => {
      const h = await track(true, 1, by);
      expect(h.port.requests.filter((r) => r.url.pathname.includes("subscriptions"))).toHaveLength(0);
      expect(await subscriptionRow(h.numbers[0] ?? "")).toBeNull();
    },
  );

  it("without subscriptions: true, nothing is subscribed and polling works as before", async () => {
    const h = await track(false);
    expect(h.port.subscriptions.size).toBe(0);
    expect(await subscriptionRow(h.numbers[0] ?? "")).toBeNull();
    expect(h.port.requests.filter((r) => r.url.pathname.includes("subscriptions"))).toHaveLength(0);
  });
});
