import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollTerminalBatch } from "../../src/tracking/poll-consumer";
import { createTokenBroker } from "../../src/tracking/sources/auth";
import { createConfiguredTerminalSources, parseTerminalSources } from "../../src/tracking/sources/terminal-operators";
import { memoryBackoffStore } from "../../src/tracking/sources/terminal-operators/backoff";
import type { LookupResult } from "../../src/tracking/sources/types";
import { createAccount } from "../helpers/api";
import {
  boxNumbers,
  containerRow,
  containersOfShipment,
  envWithQueue,
  FakeCarrier,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
  transportEventsOf,
} from "../helpers/engine";
import { containerFacts, HOUR_MS, iso, milestone, shipmentFacts } from "../helpers/facts";
import {
  FAKE_APMT_BASE,
  FAKE_APMT_CLIENT_ID,
  FAKE_APMT_CLIENT_SECRET,
  FAKE_APMT_TOKEN_URL,
  FakeApmt,
} from "../helpers/fake-apmt";
import { terminalPollMessage } from "../helpers/terminal-engine";

// Issue 14, APM Terminals through the engine: a BL of 60 boxes discharged at Pier 400 (FIRMS W185), APMT configured
// through TERMINAL_SOURCES as an operator writes it (OAuth client credentials, `"facilities":{"W185":"USLAX"}`),
// tracked by the real consumers, Trackers and D1 with the real adapter asking the fake APMT. One terminal-polls batch
// asks APMT in ⌈60 / 50⌉ = 2 requests (per-box polling: 60); availability, holds, LFD, demurrage, yard location,
// appointment, the full out and the empty return land on each box's row, and the discharge APMT reports is the
// carrier's discharge, not a second one.

const SCAC = "MAEU";
const PIER_400 = "W185";
const nextBox = boxNumbers("MRKU", 400_000);

const TERMINAL_SOURCES = JSON.stringify({
  apmt: {
    baseUrl: FAKE_APMT_BASE,
    auth: {
      type: "oauth2_client_credentials",
      tokenUrl: FAKE_APMT_TOKEN_URL,
      clientId: FAKE_APMT_CLIENT_ID,
      clientSecret: FAKE_APMT_CLIENT_SECRET,
    },
    facilities: { [PIER_400]: "USLAX" },
  },
});

const message = (number: string) => terminalPollMessage(SCAC, number);

describe("APM Terminals through the engine", () => {
  it("polls 60 boxes at Pier 400 in 2 requests and lands every field on its container", async () => {
    const apmt = new FakeApmt();
    const numbers = Array.from({ length: 60 }, () => nextBox());
    const bl = `MAEU${numbers[0]?.slice(4, 10)}`;
    // The carrier's discharge at 2030-01-07T05:00Z is 21:00 Pacific (-08:00) on the 6th: APMT reports the same minute.
    const dischargedAtMs = FUTURE_T0 - HOUR_MS;
    const answers = new Map<string, LookupResult>();
    answers.set(bl, {
      kind: "found",
      shipment: shipmentFacts(
        numbers.map((n) =>
          containerFacts(n, [milestone("container.transport.vessel_discharged", iso(dischargedAtMs), "USLAX")]),
        ),
        { billOfLadingNumber: bl, portOfDischargeLocode: "USLAX", podTerminalCode: PIER_400 },
      ),
    });
    const carrier = new FakeCarrier(SCAC, (request) => answers.get(request.number) ?? { kind: "not_found" });
    const configured = createConfiguredTerminalSources(
      parseTerminalSources(TERMINAL_SOURCES),
      { tokens: createTokenBroker() },
      undefined,
      memoryBackoffStore(),
    );
    expect(configured.map((c) => c.provider)).toEqual(["apmt"]);
    const sources = registryOf(
      [carrier],
      configured.map((c) => c.source),
    );
    const clock = new FakeClock(FUTURE_T0);
    const account = await createAccount();
    const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock, sources },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    const rows = await containersOfShipment((await requestRow(requestId)).shipment_id ?? "");
    expect(rows).toHaveLength(60);
    const idOf = new Map(rows.map((r) => [r.number, r.id]));

    for (const n of numbers) {
      apmt.put("USLAX", {
        containerId: n,
        billOfLading: bl,
        shippingLine: "MAE",
        containerState: "Yard",
        readyForDelivery: "false",
        dischargeDateTimeLocal: "2030-01-06T21:00:00-08:00",
        containerHolds: "FREIGHT",
        appointment: "false",
      });
    }
    const [first = "", second = ""] = numbers;
    apmt.update("USLAX", first, {
      readyForDelivery: "true",
      containerHolds: "",
      yardLocation: "Y0709A",
      storagePaidThroughDate: "2030-01-10",
      demurrageOwed: "0.00",
      appointment: "true",
      appointmentDateTimeLocal: "2030-01-09T08:30:00-08:00",
    });
    apmt.update("USLAX", second, { containerHolds: "CUSTOMS,USDA" });

    const deps = () => {
      apmt.nowMs = clock.now();
      return { env: envWithQueue(recordingQueue()), clock, sources, fetch: apmt.fetch };
    };
    clock.set(FUTURE_T0 + HOUR_MS);
    const messages = numbers.map((n) => message(n));
    await pollTerminalBatch(
      deps(),
      messages.map((m) => m.message),
    );
    expect(apmt.availabilityRequests.map((r) => (r.url.searchParams.get("assetId") ?? "").split(",").length)).toEqual([
      50, 10,
    ]);
    expect(apmt.tokenRequests).toHaveLength(1);
    expect(messages.every((m) => m.state.acked === 1 && m.state.retried === 0)).toBe(true);

    const a = await containerRow(idOf.get(first) ?? "");
    expect(a).toMatchObject({
      available_for_pickup: 1,
      location_at_pod_terminal: "Y0709A",
      pickup_lfd_terminal: "2030-01-10T08:00:00Z",
      pickup_appointment_at: "2030-01-09T16:30:00Z",
      pod_discharged_at: iso(dischargedAtMs),
      terminal_checked_at: iso(FUTURE_T0 + HOUR_MS),
    });
    expect(JSON.parse(a.holds_at_pod_terminal)).toEqual([]);
    expect(JSON.parse(a.fees_at_pod_terminal)).toEqual([]);
    const b = await containerRow(idOf.get(second) ?? "");
    expect(b.available_for_pickup).toBe(0);
    expect(JSON.parse(b.holds_at_pod_terminal)).toEqual([
      { name: "customs", status: "hold", description: "CUSTOMS" },
      { name: "USDA", status: "hold", description: "USDA" },
    ]);

    // Past the LFD: demurrage accrues; then picked up at 09:30 Pacific on the 12th, polled twice.
    apmt.update("USLAX", first, { demurrageOwed: "425.00" });
    clock.set(FUTURE_T0 + 2 * HOUR_MS);
    await pollTerminalBatch(deps(), [message(first).message]);
    expect(JSON.parse((await containerRow(idOf.get(first) ?? "")).fees_at_pod_terminal)).toEqual([
      { type: "demurrage", amount: 425, currency_code: "USD" },
    ]);
    apmt.update("USLAX", first, {
      containerState: "Departed",
      readyForDelivery: "false",
      facilityOutDateTimeLocal: "2030-01-12T09:30:12-08:00",
    });
    for (const hours of [3, 4]) {
      clock.set(FUTURE_T0 + hours * HOUR_MS);
      await pollTerminalBatch(deps(), [message(first).message]);
    }
    const picked = await containerRow(idOf.get(first) ?? "");
    expect(picked).toMatchObject({ pod_full_out_at: "2030-01-12T17:30:12Z", available_for_pickup: 0 });
    const events = (await transportEventsOf(idOf.get(first) ?? "")).map((e) => e.event);
    expect(events.filter((e) => e === "container.transport.vessel_discharged")).toHaveLength(1);

    // The empty comes back to Pier 400 two days later (Empty Container Returns).
    apmt.putReturn("USLAX", {
      containerId: first,
      isContainerReturned: "true",
      gateInDateTimeLocal: "2030-01-14T08:00:00-08:00",
    });
    clock.set(FUTURE_T0 + 5 * HOUR_MS);
    await pollTerminalBatch(deps(), [message(first).message]);
    const returned = await containerRow(idOf.get(first) ?? "");
    expect(returned.empty_terminated_at).toBe("2030-01-14T16:00:00Z");
    expect(returned.pod_full_out_at).toBe("2030-01-12T17:30:12Z");
  }, 60_000);
});
