import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollTerminalBatch } from "../../src/tracking/poll-consumer";
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
import { FakeLbct, lbctImportUnit, lbctSourcesJson } from "../helpers/fake-lbct";
import { terminalPollMessage } from "../helpers/terminal-engine";

// Issue 14, LBCT through the engine: a BL of 45 boxes discharged at LBCT Pier E (FIRMS WAC8), configured through
// TERMINAL_SOURCES exactly as an operator writes it (`{"type":"api_key","apiKey"}`), tracked by the real consumers,
// Trackers and D1 with the real adapter asking the fake LBCT Cargo Search. One terminal-polls batch asks LBCT in
// ⌈45 / 20⌉ = 3 requests; availability, holds, LFD, yard location, the full out and the empty return land on each
// box's row, and the discharge LBCT reports is the carrier's discharge, not a second one.

const SCAC = "OOLU";
const PIER_E = "WAC8";
const nextBox = boxNumbers("LBEU", 300_000);

const message = (number: string) => terminalPollMessage(SCAC, number);

describe("LBCT through the engine", () => {
  it("polls 45 boxes at Pier E in 3 requests and lands every field on its container", async () => {
    const lbct = new FakeLbct();
    const numbers = Array.from({ length: 45 }, () => nextBox());
    const bl = `OOLBL${numbers[0]?.slice(4)}`;
    // The carrier's discharge at 2030-01-07T05:00Z is 21:00 Pacific on the 6th: LBCT reports the same minute.
    const dischargedAtMs = FUTURE_T0 - HOUR_MS;
    const answers = new Map<string, LookupResult>();
    answers.set(bl, {
      kind: "found",
      shipment: shipmentFacts(
        numbers.map((n) =>
          containerFacts(n, [milestone("container.transport.vessel_discharged", iso(dischargedAtMs), "USLGB")]),
        ),
        { billOfLadingNumber: bl, portOfDischargeLocode: "USLGB", podTerminalCode: PIER_E },
      ),
    });
    const carrier = new FakeCarrier(SCAC, (request) => answers.get(request.number) ?? { kind: "not_found" });
    const configured = createConfiguredTerminalSources(
      parseTerminalSources(lbctSourcesJson()),
      {},
      undefined,
      memoryBackoffStore(),
    );
    expect(configured.map((c) => c.provider)).toEqual(["lbct"]);
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
    expect(rows).toHaveLength(45);
    const idOf = new Map(rows.map((r) => [r.number, r.id]));

    const inYard = {
      "visit-state": "Active",
      "transit-state": "Yard",
      "is-in-yard": true,
      "bill-of-lading-number": bl,
      "time-in": "2030-01-06T21:00:41.120-08:00",
      discharged: "01/06/2030 21:00 (A)",
    };
    for (const n of numbers) {
      lbct.put(
        lbctImportUnit(n, { ...inYard, "list-of-flag": [{ "hold-name": "CUSTOMS_DEFAULT_HOLD", type: "Inactive" }] }),
      );
    }
    const [first = "", second = ""] = numbers;
    lbct.update(first, { location: "E12-03-4", "free-time-expiration": "01/10/2030" });
    lbct.update(second, { "list-of-flag": [{ "hold-name": "CUSTOMS_DEFAULT_HOLD", type: "Active" }] });

    const deps = () => ({ env: envWithQueue(recordingQueue()), clock, sources, fetch: lbct.fetch });
    clock.set(FUTURE_T0 + HOUR_MS);
    const messages = numbers.map((n) => message(n));
    await pollTerminalBatch(
      deps(),
      messages.map((m) => m.message),
    );
    expect(lbct.searches.map((r) => r.numbers.length)).toEqual([20, 20, 5]);
    expect(messages.every((m) => m.state.acked === 1 && m.state.retried === 0)).toBe(true);

    const a = await containerRow(idOf.get(first) ?? "");
    expect(a).toMatchObject({
      available_for_pickup: 1,
      location_at_pod_terminal: "E12-03-4",
      pickup_lfd_terminal: "2030-01-10T08:00:00Z",
      pod_discharged_at: iso(dischargedAtMs),
      terminal_checked_at: iso(FUTURE_T0 + HOUR_MS),
    });
    expect(JSON.parse(a.holds_at_pod_terminal)).toEqual([]);
    const b = await containerRow(idOf.get(second) ?? "");
    expect(b.available_for_pickup).toBe(0);
    expect(JSON.parse(b.holds_at_pod_terminal)).toEqual([
      { name: "customs", status: "hold", description: "CUSTOMS_DEFAULT_HOLD" },
    ]);

    // Picked up at 09:30 Pacific on the 9th, polled twice: the full out lands, the discharge is still the carrier's one.
    lbct.update(first, {
      "visit-state": "Departed",
      "transit-state": "Departed",
      "is-in-yard": false,
      "time-out": "2030-01-09T09:30:12.400-08:00",
    });
    for (const hours of [2, 3]) {
      clock.set(FUTURE_T0 + hours * HOUR_MS);
      await pollTerminalBatch(deps(), [message(first).message]);
    }
    const picked = await containerRow(idOf.get(first) ?? "");
    expect(picked).toMatchObject({ pod_full_out_at: "2030-01-09T17:30:12Z", available_for_pickup: 0 });
    const events = (await transportEventsOf(idOf.get(first) ?? "")).map((e) => e.event);
    expect(events.filter((e) => e === "container.transport.vessel_discharged")).toHaveLength(1);

    // The empty comes back to LBCT two days later: a storage visit of the number, its time-in the empty return.
    lbct.units.get(first)?.push(
      lbctImportUnit(first, {
        category: "STRGE",
        "freight-kind": "MTY",
        "visit-state": "Active",
        "transit-state": "Yard",
        "is-in-yard": true,
        "time-in": "2030-01-11T08:00:00.000-08:00",
      }),
    );
    clock.set(FUTURE_T0 + 4 * HOUR_MS);
    await pollTerminalBatch(deps(), [message(first).message]);
    const returned = await containerRow(idOf.get(first) ?? "");
    expect(returned.empty_terminated_at).toBe("2030-01-11T16:00:00Z");
    expect(returned.pod_full_out_at).toBe("2030-01-09T17:30:12Z");
  });
});
