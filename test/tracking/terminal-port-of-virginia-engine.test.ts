import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollTerminalBatch } from "../../src/tracking/poll-consumer";
import { createPortOfVirginiaSource } from "../../src/tracking/sources/terminal-operators/port-of-virginia";
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
} from "../helpers/engine";
import { containerFacts, HOUR_MS, iso, milestone, shipmentFacts } from "../helpers/facts";
import { FAKE_POV_API_KEY, FAKE_POV_BASE, FakePortOfVirginia, povAvailability } from "../helpers/fake-port-of-virginia";
import { terminalPollMessage } from "../helpers/terminal-engine";

// Issue 14, Port of Virginia through the engine: a BL of 101 boxes discharged at Norfolk International Terminals
// (FIRMS L005), tracked by the real consumers, Trackers and D1, with the real adapter asking the fake Port of Virginia
// API. One terminal-polls batch asks the port in ⌈101 / 100⌉ = 2 requests, and each box's availability, holds, LFD,
// yard block, gate-out and empty return land on its own container row.

const SCAC = "CMDU";
const NIT = "L005";
const nextBox = boxNumbers("PVEU", 700_000);

const message = (number: string) => terminalPollMessage(SCAC, number);

describe("Port of Virginia through the engine", () => {
  it("polls 101 boxes at NIT in 2 bulk requests and lands every field on its container", {
    timeout: 120_000,
  }, async () => {
    const port = new FakePortOfVirginia();
    const numbers = Array.from({ length: 101 }, () => nextBox());
    const bl = `PVBL${numbers[0]}`;
    const answers = new Map<string, LookupResult>();
    answers.set(bl, {
      kind: "found",
      shipment: shipmentFacts(
        numbers.map((n) =>
          containerFacts(n, [milestone("container.transport.vessel_discharged", iso(FUTURE_T0 - HOUR_MS), "USORF")]),
        ),
        { billOfLadingNumber: bl, portOfDischargeLocode: "USORF", podTerminalCode: NIT },
      ),
    });
    const carrier = new FakeCarrier(SCAC, (request) => answers.get(request.number) ?? { kind: "not_found" });
    const source = createPortOfVirginiaSource(
      {
        baseUrl: FAKE_POV_BASE,
        auth: { type: "api_key", apiKey: FAKE_POV_API_KEY, header: "X-API-KEY" },
        facilities: { [NIT]: "NIT" },
      },
      {},
    );
    const sources = registryOf([carrier], [source]);
    const clock = new FakeClock(FUTURE_T0);
    const account = await createAccount();
    const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock, sources },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    const rows = await containersOfShipment((await requestRow(requestId)).shipment_id ?? "");
    expect(rows).toHaveLength(101);
    const idOf = new Map(rows.map((r) => [r.number, r.id]));

    // The first box: available in block CA21, free time through 2030-01-10 (EST); the second: customs hold.
    const [first = "", second = ""] = numbers;
    for (const n of numbers) port.set(povAvailability(n, bl, { shipmentStatus: "Available" }));
    port.update(first, { yardBlock: "CA21", freeTimeExpiration: "2030-01-10T00:00:00" });
    port.update(second, {
      shipmentStatus: "Not Available",
      holds: [{ type: "CUSTOMS", description: "CBP exam required" }],
    });

    const deps = () => ({ env: envWithQueue(recordingQueue()), clock, sources, fetch: port.fetch });
    clock.set(FUTURE_T0 + HOUR_MS);
    const messages = numbers.map((n) => message(n));
    await pollTerminalBatch(
      deps(),
      messages.map((m) => m.message),
    );
    expect(port.bulkRequests.map((r) => (JSON.parse(r.body) as unknown[]).length)).toEqual([100, 1]);
    expect(messages.every((m) => m.state.acked === 1 && m.state.retried === 0)).toBe(true);

    const a = await containerRow(idOf.get(first) ?? "");
    expect(a).toMatchObject({
      available_for_pickup: 1,
      location_at_pod_terminal: "CA21",
      pickup_lfd_terminal: "2030-01-10T05:00:00Z",
      pickup_lfd: "2030-01-10T05:00:00Z",
      terminal_checked_at: iso(FUTURE_T0 + HOUR_MS),
    });
    expect(JSON.parse(a.holds_at_pod_terminal)).toEqual([]);
    const b = await containerRow(idOf.get(second) ?? "");
    expect(b.available_for_pickup).toBe(0);
    expect(JSON.parse(b.holds_at_pod_terminal)).toEqual([
      { name: "customs", status: "hold", description: "CBP exam required" },
    ]);

    // Picked up on a chassis at 09:30 local, then the empty comes back two days later.
    port.update(first, { outTime: "2030-01-09T09:30:00.000", chassis: "CHAZ123456", shipmentStatus: "Not Available" });
    clock.set(FUTURE_T0 + 2 * HOUR_MS);
    await pollTerminalBatch(deps(), [message(first).message]);
    const picked = await containerRow(idOf.get(first) ?? "");
    expect(picked).toMatchObject({
      pod_full_out_at: "2030-01-09T14:30:00Z",
      pod_full_out_chassis_number: "CHAZ123456",
    });

    port.update(first, { emptyReturnTime: "2030-01-11T16:00:00.000" });
    clock.set(FUTURE_T0 + 3 * HOUR_MS);
    await pollTerminalBatch(deps(), [message(first).message]);
    const returned = await containerRow(idOf.get(first) ?? "");
    expect(returned).toMatchObject({
      empty_terminated_at: "2030-01-11T21:00:00Z",
      empty_terminated_timezone: "America/New_York",
      current_status: "empty_returned",
    });
  });

  it("asks the port about a box tracked by container number with the BL its carrier reported", async () => {
    const port = new FakePortOfVirginia();
    const box = nextBox();
    const bl = `PVCBL${box}`;
    const answer: LookupResult = {
      kind: "found",
      shipment: shipmentFacts(
        [containerFacts(box, [milestone("container.transport.vessel_discharged", iso(FUTURE_T0 - HOUR_MS), "USORF")])],
        { billOfLadingNumber: bl, portOfDischargeLocode: "USORF", podTerminalCode: NIT },
      ),
    };
    const carrier = new FakeCarrier(SCAC, () => answer);
    const source = createPortOfVirginiaSource(
      {
        baseUrl: FAKE_POV_BASE,
        auth: { type: "api_key", apiKey: FAKE_POV_API_KEY, header: "X-API-KEY" },
        facilities: { [NIT]: "NIT" },
      },
      {},
    );
    const sources = registryOf([carrier], [source]);
    const clock = new FakeClock(FUTURE_T0);
    const account = await createAccount();
    const requestId = await insertRequest(account, {
      number: box,
      scac: SCAC,
      requestType: "container",
      createdAtMs: clock.now(),
    });
    await processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock, sources },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    const [row] = await containersOfShipment((await requestRow(requestId)).shipment_id ?? "");
    port.set(povAvailability(box, bl, { shipmentStatus: "Available", yardBlock: "B07" }));
    clock.set(FUTURE_T0 + HOUR_MS);
    await pollTerminalBatch({ env: envWithQueue(recordingQueue()), clock, sources, fetch: port.fetch }, [
      message(box).message,
    ]);
    expect(port.bulkRequests.map((r) => JSON.parse(r.body))).toEqual([[{ equipmentId: box, referenceId: bl }]]);
    expect(await containerRow(row?.id ?? "")).toMatchObject({
      available_for_pickup: 1,
      location_at_pod_terminal: "B07",
    });
  });
});
