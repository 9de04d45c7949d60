import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { findTerminalByCode } from "../../src/reference/locations";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollTerminalBatch } from "../../src/tracking/poll-consumer";
import { createTokenBroker } from "../../src/tracking/sources/auth";
import { createDcsaSource, parseDcsaSources } from "../../src/tracking/sources/dcsa";
import { createConfiguredTerminalSources, parseTerminalSources } from "../../src/tracking/sources/terminal-operators";
import { memoryBackoffStore } from "../../src/tracking/sources/terminal-operators/backoff";
import { BOX_A, CALLS, equipmentEvent, JOURNEY_BL, transportEvent } from "../fixtures/dcsa-events";
import { createAccount } from "../helpers/api";
import {
  containerRow,
  containersOfShipment,
  envWithQueue,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
  transportEventsOf,
} from "../helpers/engine";
import { HOUR_MS } from "../helpers/facts";
import {
  FAKE_APMT_BASE,
  FAKE_APMT_CLIENT_ID,
  FAKE_APMT_CLIENT_SECRET,
  FAKE_APMT_TOKEN_URL,
  FakeApmt,
} from "../helpers/fake-apmt";
import { FAKE_CLIENT_SECRET, FakeDcsaCarrier, oauthSourcesJson } from "../helpers/fake-dcsa-carrier";
import { terminalPollMessage } from "../helpers/terminal-engine";

// Issue 14, an APM terminal outside the US through the whole engine: a box discharged at APM Terminals Rotterdam
// Maasvlakte II, which the carrier's DCSA 2.2 feed names the SMDG way (`UNLocationCode` NLRTM, `facilityCode` NLMVII)
// and which has neither a FIRMS nor a BIC code. APMT is configured as an operator writes it,
// `"facilities":{"NLRTM:NLMVII":"NLRTM"}`; the real DCSA source (fake carrier, OAuth), consumers, Tracker and D1, and
// the real APMT adapter asking the fake APMT (`facilityCode=NLRTM`). Availability, holds, demurrage and the last free
// day (storage paid through, a date in Europe/Amsterdam) land on the container; the discharge APMT reports is the
// carrier's, not a second event.

const SCAC = "MAEU";
const MAASVLAKTE_II = "NLRTM:NLMVII";

/** The POD call of the carrier's feed: Rotterdam, the terminal by its SMDG code. */
const ROTTERDAM_CALL = {
  ...CALLS.pod,
  transportCallID: "call-nlrtm-nlmvii-2103n",
  UNLocationCode: "NLRTM",
  facilityCode: "NLMVII",
};
/** 22:00 in Rotterdam (CET, +01:00) on 6 January 2030: 21:00 UTC. */
const DISCHARGED_LOCAL = "2030-01-06T22:00:00+01:00";
const DISCHARGED_UTC = "2030-01-06T21:00:00Z";

const CARRIER_EVENTS = [
  equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2029-12-08T22:10:00+08:00", call: CALLS.pol }),
  transportEvent({ n: 2, code: "DEPA", at: "2029-12-09T03:15:00+08:00", call: CALLS.pol }),
  transportEvent({ n: 3, code: "ARRI", at: "2030-01-06T18:30:00+01:00", call: ROTTERDAM_CALL }),
  equipmentEvent({ n: 4, box: BOX_A, code: "DISC", at: DISCHARGED_LOCAL, call: ROTTERDAM_CALL }),
];

const TERMINAL_SOURCES = JSON.stringify({
  apmt: {
    baseUrl: FAKE_APMT_BASE,
    auth: {
      type: "oauth2_client_credentials",
      tokenUrl: FAKE_APMT_TOKEN_URL,
      clientId: FAKE_APMT_CLIENT_ID,
      clientSecret: FAKE_APMT_CLIENT_SECRET,
    },
    facilities: { [MAASVLAKTE_II]: "NLRTM" },
  },
});

const logged: string[] = [];
beforeEach(() => {
  logged.length = 0;
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
  }
});
afterEach(() => {
  const text = logged.join("\n");
  expect(text).not.toContain(FAKE_APMT_CLIENT_SECRET);
  expect(text).not.toContain(FAKE_CLIENT_SECRET);
  vi.restoreAllMocks();
});

describe("APM Terminals Rotterdam Maasvlakte II through the engine", () => {
  it("matches the box the carrier discharged at NLRTM/NLMVII to APMT's NLRTM and lands its terminal data", async () => {
    const carrier = new FakeDcsaCarrier();
    carrier.events = CARRIER_EVENTS;
    const apmt = new FakeApmt();
    const fetcher: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url.startsWith(FAKE_APMT_BASE) ? apmt.fetch(input, init) : carrier.fetch(input, init);
    };
    const tokens = createTokenBroker();
    const configured = createConfiguredTerminalSources(
      parseTerminalSources(TERMINAL_SOURCES),
      { tokens },
      undefined,
      memoryBackoffStore(),
    );
    expect(configured.map((c) => [c.provider, c.config.facilities])).toEqual([["apmt", { [MAASVLAKTE_II]: "NLRTM" }]]);
    const sources = registryOf(
      [createDcsaSource(parseDcsaSources(oauthSourcesJson(SCAC)), { tokens })],
      configured.map((c) => c.source),
    );
    const clock = new FakeClock(FUTURE_T0);
    const account = await createAccount();
    const requestId = await insertRequest(account, { number: JOURNEY_BL, scac: SCAC, createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock, sources, fetch: fetcher },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    const request = await requestRow(requestId);
    expect(request.status).toBe("created");
    const [row] = await containersOfShipment(request.shipment_id ?? "");
    const containerId = row?.id ?? "";
    expect(carrier.eventRequests.length).toBeGreaterThan(0);

    // The shipment's POD terminal is Maasvlakte II, found from the carrier's SMDG code at its port.
    const shipment = await env.DB.prepare("SELECT pod_terminal_id FROM shipments WHERE id = ?1")
      .bind(request.shipment_id)
      .first<{ pod_terminal_id: string | null }>();
    expect(shipment?.pod_terminal_id).toBe(findTerminalByCode(MAASVLAKTE_II)?.id);

    apmt.put("NLRTM", {
      containerId: BOX_A,
      billOfLading: JOURNEY_BL,
      shippingLine: "MAE",
      containerState: "Yard",
      readyForDelivery: "false",
      dischargeDateTimeLocal: "2030-01-06T22:00:00+01:00",
      containerHolds: "CUSTOMS",
      storagePaidThroughDate: "2030-01-10",
      demurrageOwed: "0.00",
      yardLocation: "MV2-04-12",
    });
    const poll = async (hours: number) => {
      clock.set(FUTURE_T0 + hours * HOUR_MS);
      apmt.nowMs = clock.now();
      const { message, state } = terminalPollMessage(SCAC, BOX_A);
      await pollTerminalBatch({ env: envWithQueue(recordingQueue()), clock, sources, fetch: fetcher }, [message]);
      expect(state).toEqual({ acked: 1, retried: 0 });
    };
    await poll(1);

    expect(apmt.availabilityRequests.map((r) => r.url.searchParams.get("facilityCode"))).toEqual(["NLRTM"]);
    expect(apmt.availabilityRequests[0]?.url.searchParams.get("assetId")).toBe(BOX_A);
    const held = await containerRow(containerId);
    expect(held).toMatchObject({
      available_for_pickup: 0,
      location_at_pod_terminal: "MV2-04-12",
      // Storage paid through 10 January, a day in Rotterdam: its local midnight is 23:00 UTC the day before.
      pickup_lfd_terminal: "2030-01-09T23:00:00Z",
      pod_discharged_at: DISCHARGED_UTC,
      terminal_checked_at: new Date(FUTURE_T0 + HOUR_MS).toISOString().replace(".000Z", "Z"),
    });
    expect(JSON.parse(held.holds_at_pod_terminal)).toEqual([
      { name: "customs", status: "hold", description: "CUSTOMS" },
    ]);
    expect(JSON.parse(held.fees_at_pod_terminal)).toEqual([]);

    // Customs releases the box, the terminal moves the LFD to the 12th, and past it demurrage accrues in euros.
    apmt.update("NLRTM", BOX_A, {
      readyForDelivery: "true",
      containerHolds: "",
      storagePaidThroughDate: "2030-01-12",
      demurrageOwed: "EUR 150.00",
    });
    await poll(2);
    const released = await containerRow(containerId);
    expect(released).toMatchObject({ available_for_pickup: 1, pickup_lfd_terminal: "2030-01-11T23:00:00Z" });
    expect(JSON.parse(released.holds_at_pod_terminal)).toEqual([]);
    expect(JSON.parse(released.fees_at_pod_terminal)).toEqual([
      { type: "demurrage", amount: 150, currency_code: "EUR" },
    ]);
    const events = (await transportEventsOf(containerId)).map((e) => e.event);
    expect(events.filter((e) => e === "container.transport.vessel_discharged")).toHaveLength(1);
  }, 60_000);
});
