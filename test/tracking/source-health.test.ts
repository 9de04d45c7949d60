import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import { pollRetryDelayMs } from "../../src/tracking/schedule";
import type { SourceRegistry } from "../../src/tracking/sources";
import { createDcsaSource, parseDcsaSources } from "../../src/tracking/sources/dcsa";
import { queuedSourceNames } from "../../src/tracking/tracker-state";
import { BOX_A, BOX_B, JOURNEY_BL, JOURNEY_EVENTS } from "../fixtures/dcsa-events";
import { apiJson, createAccount } from "../helpers/api";
import {
  containerRow,
  containersOfShipment,
  countRows,
  envWithQueue,
  FakeCarrier,
  FakeTerminal,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
  trackerStub,
} from "../helpers/engine";
import { type CarrierMode, FAKE_CLIENT_SECRET, FakeDcsaCarrier, oauthSourcesJson } from "../helpers/fake-dcsa-carrier";

// Issue 13 §1: source health, visible. Against a fake DCSA 2.2 carrier with an OAuth token endpoint (injected fetch),
// real Tracker DO and D1: every carrier attempt advances `line_tracking_last_attempted_at`, only a success advances
// `line_tracking_last_succeeded_at` (and the box's `shipment_last_tracking_request_at`); why the last attempt failed
// is on the shipment (`line_tracking_failed_reason`, an extension); a carrier refusing our credentials changes the
// shipment once per outage, not once per poll, and polling backs off; nothing is lost or duplicated; the next good
// answer recovers. The client secret never reaches a log line or a response.

const MINUTE = 60_000;
const at = (minutes: number) => toIsoSeconds(FUTURE_T0 + minutes * MINUTE);

const logged: unknown[][] = [];
beforeEach(() => {
  logged.length = 0;
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
  }
});
afterEach(() => {
  const text = logged.map((args) => args.map(String).join(" ")).join("\n");
  expect(text).not.toContain(FAKE_CLIENT_SECRET);
  vi.restoreAllMocks();
});

interface ShipmentHealth {
  line_tracking_last_attempted_at: string | null;
  line_tracking_last_succeeded_at: string | null;
  line_tracking_failed_reason: string | null;
  updated_at: string;
}

/** A BL tracked at a DCSA carrier (OAuth) under `scac`, found at minute 0; `poll(m)` polls box A at minute m. */
async function trackedAtDcsaCarrier(scac: string) {
  const carrier = new FakeDcsaCarrier();
  carrier.events = JOURNEY_EVENTS;
  const sources = registryOf([createDcsaSource(parseDcsaSources(oauthSourcesJson(scac)), { timeoutMs: 20 })]);
  const clock = new FakeClock(FUTURE_T0);
  const account = await createAccount();
  const requestId = await insertRequest(account, { number: JOURNEY_BL, scac, createdAtMs: clock.now() });
  const deps = () => ({ env: envWithQueue(recordingQueue()), clock, sources, fetch: carrier.fetch });
  await processTrackingRequest(deps(), { trackingRequestId: requestId, accountId: account.accountId });
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const shipmentId = request.shipment_id ?? "";
  const box = (await containersOfShipment(shipmentId)).find((c) => c.number === BOX_A);
  if (!box) throw new Error("box A not found");
  return {
    carrier,
    account,
    shipmentId,
    containerId: box.id,
    poll(minutes: number) {
      clock.set(FUTURE_T0 + minutes * MINUTE);
      return pollBox(deps(), { scac, number: BOX_A });
    },
    async health(): Promise<ShipmentHealth> {
      const row = await env.DB.prepare(
        `SELECT line_tracking_last_attempted_at, line_tracking_last_succeeded_at, line_tracking_failed_reason, updated_at
         FROM shipments WHERE id = ?1`,
      )
        .bind(shipmentId)
        .first<ShipmentHealth>();
      if (!row) throw new Error("no shipment");
      return row;
    },
    async data() {
      const row = await containerRow(box.id);
      return {
        transportEvents: await countRows("transport_events", box.id),
        rawEvents: await countRows("raw_events", box.id),
        shipmentLastTrackingRequestAt: row.shipment_last_tracking_request_at,
        currentStatus: row.current_status,
      };
    },
  };
}

describe("every carrier attempt is recorded; only a success counts as one", () => {
  it.each<[CarrierMode, string]>([
    ["timeout", "shipping_line_unreachable"],
    ["error_500", "shipping_line_unreachable"],
    ["unauthorized", "shipping_line_credentials_rejected"],
    ["malformed_json", "unrecognized_response"],
    ["page_loop", "unrecognized_response"],
  ])(
    "carrier %s: attempted-at advances, succeeded-at does not, nothing lost or duplicated, then recovery",
    async (mode, reason) => {
      const scac = `H${mode.slice(0, 3).toUpperCase()}`;
      const box = await trackedAtDcsaCarrier(scac);
      await box.poll(1);
      expect(await box.health()).toMatchObject({
        line_tracking_last_attempted_at: at(1),
        line_tracking_last_succeeded_at: at(1),
        line_tracking_failed_reason: null,
      });
      const before = await box.data();
      expect(before.transportEvents).toBeGreaterThan(0);

      box.carrier.mode = mode;
      for (const minute of [2, 5]) {
        const results = await box.poll(minute);
        expect(results?.carrier).toEqual({ kind: "temporary_failure", reason });
        expect(await box.health()).toMatchObject({
          line_tracking_last_attempted_at: at(minute),
          line_tracking_last_succeeded_at: at(1),
          line_tracking_failed_reason: reason,
        });
        expect(await box.data()).toEqual(before);
      }

      box.carrier.mode = "ok";
      await box.poll(20);
      expect(await box.health()).toMatchObject({
        line_tracking_last_attempted_at: at(20),
        line_tracking_last_succeeded_at: at(20),
        line_tracking_failed_reason: null,
      });
      expect(await box.data()).toEqual({ ...before, shipmentLastTrackingRequestAt: at(20) });
    },
  );
});

describe("a carrier refusing our credentials", () => {
  it("shows on the shipment once per outage, backs off, never shows the secret, and recovers", async () => {
    const box = await trackedAtDcsaCarrier("HCRD");
    await box.poll(1);
    // The carrier rotates the secret on its side: the cached token is refused, and so is our client.
    box.carrier.clientSecret = "rotated-at-the-carrier";
    box.carrier.forgetTokens();

    const delays: number[] = [];
    const updatedAts: string[] = [];
    for (const minute of [2, 10, 30]) {
      const results = await box.poll(minute);
      expect(results?.carrier).toEqual({ kind: "temporary_failure", reason: "shipping_line_credentials_rejected" });
      const health = await box.health();
      expect(health).toMatchObject({
        line_tracking_last_attempted_at: at(minute),
        line_tracking_last_succeeded_at: at(1),
        line_tracking_failed_reason: "shipping_line_credentials_rejected",
      });
      updatedAts.push(health.updated_at);
      const next = (await trackerStub("HCRD", BOX_A).currentState())?.nextPollAt;
      delays.push(Date.parse(next ?? "") - (FUTURE_T0 + minute * MINUTE));
    }
    // The shipment changed once, at the start of the outage; later failed polls only advance attempted-at.
    expect(updatedAts).toEqual([at(2), at(2), at(2)]);
    expect(delays).toEqual([pollRetryDelayMs(1), pollRetryDelayMs(2), pollRetryDelayMs(3)]);
    // Operators get one log line per outage from the engine naming the shipment, however many polls fail.
    const outageLines = logged.filter((args) => String(args[0]).includes("refused our credentials"));
    expect(outageLines).toHaveLength(1);
    expect(String(outageLines[0]?.[0])).toContain(box.shipmentId);

    const { res, json } = await apiJson<{ data: { attributes: Record<string, unknown> } }>(
      `/shipments/${box.shipmentId}`,
      { key: box.account.key },
    );
    expect(res.status).toBe(200);
    expect(json.data.attributes).toMatchObject({
      line_tracking_last_attempted_at: at(30),
      line_tracking_last_succeeded_at: at(1),
      line_tracking_failed_reason: "shipping_line_credentials_rejected",
    });
    expect(JSON.stringify(json)).not.toContain(FAKE_CLIENT_SECRET);

    box.carrier.clientSecret = FAKE_CLIENT_SECRET;
    await box.poll(40);
    expect(await box.health()).toMatchObject({
      line_tracking_last_attempted_at: at(40),
      line_tracking_last_succeeded_at: at(40),
      line_tracking_failed_reason: null,
    });
  });

  it("N boxes of the line refused at every poll: one log line for the outage, not one per box or poll", async () => {
    const scac = "HCRN";
    const box = await trackedAtDcsaCarrier(scac);
    const boxes = [BOX_A, BOX_B];
    const clock = new FakeClock(FUTURE_T0);
    const sources = registryOf([createDcsaSource(parseDcsaSources(oauthSourcesJson(scac)), { timeoutMs: 20 })]);
    const pollAll = async (minutes: number) => {
      clock.set(FUTURE_T0 + minutes * MINUTE);
      for (const number of boxes) {
        await pollBox(
          { env: envWithQueue(recordingQueue()), clock, sources, fetch: box.carrier.fetch },
          { scac, number },
        );
      }
    };
    await pollAll(1);
    logged.length = 0;
    // Our client still gets tokens, but the events API answers 401 to every request (after one retry with a new token).
    box.carrier.mode = "unauthorized";
    for (const minute of [2, 10, 30]) await pollAll(minute);
    expect((await box.health()).line_tracking_failed_reason).toBe("shipping_line_credentials_rejected");
    const credentialLines = logged.map((args) => args.map(String).join(" ")).filter((l) => /credential/i.test(l));
    expect(credentialLines).toHaveLength(1);
    expect(credentialLines[0]).toContain(`tracking: ${scac} refused our credentials`);
    expect(credentialLines[0]).toContain(box.shipmentId);

    // The line answers again, then refuses again: a new outage, logged once more.
    box.carrier.mode = "ok";
    await pollAll(40);
    box.carrier.mode = "unauthorized";
    for (const minute of [50, 60]) await pollAll(minute);
    expect(logged.map((args) => args.map(String).join(" ")).filter((l) => /credential/i.test(l))).toHaveLength(2);
  });

  it("a tracking request whose lookup is refused keeps the reference's failed_reason and retries", async () => {
    const carrier = new FakeDcsaCarrier("not-what-we-have");
    carrier.events = JOURNEY_EVENTS;
    const sources = registryOf([createDcsaSource(parseDcsaSources(oauthSourcesJson("HCRR")))]);
    const clock = new FakeClock(FUTURE_T0);
    const account = await createAccount();
    const requestId = await insertRequest(account, { number: JOURNEY_BL, scac: "HCRR", createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock, sources, fetch: carrier.fetch },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    expect(await requestRow(requestId)).toMatchObject({
      status: "pending",
      is_retrying: 1,
      retry_count: 1,
      failed_reason: "shipping_line_unreachable",
    });
    expect(carrier.eventRequests).toHaveLength(0);
    // No box yet, so no outage: the lookup attempt is logged itself.
    const lines = logged.map((args) => args.map(String).join(" "));
    expect(lines.filter((l) => l.includes("tracking: HCRR refused our credentials looking up"))).toHaveLength(1);
  });
});

describe("refresh names only the sources actually queued", () => {
  const carrier = new FakeCarrier("RFSH", () => ({ kind: "not_found" }));
  const y257 = new FakeTerminal("Y257", () => ({ kind: "not_found" }));
  const registry: SourceRegistry = registryOf([carrier], [y257]);
  const plan = (facilityCode: string | null, railFacilityCode: string | null = null) => ({
    scac: "RFSH",
    facilityCode,
    railFacilityCode,
  });

  it.each([
    ["a POD terminal a source serves", plan("Y257"), ["Shipping line", "Terminal"]],
    ["a POD terminal no source serves", plan("W185"), ["Shipping line"]],
    ["no POD terminal yet", plan(null), ["Shipping line"]],
    ["an inland ramp no source serves", plan(null, "USCHIBNSF"), ["Shipping line"]],
    ["a line no carrier source serves, no facility", { ...plan(null), scac: "NONE" }, []],
  ])("%s", (_why, p, expected) => {
    expect(queuedSourceNames(p, registry)).toEqual(expected);
  });
});
