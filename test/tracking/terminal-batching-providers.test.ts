import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollTerminalBatch } from "../../src/tracking/poll-consumer";
import { type SourceRegistry, sourcesFor } from "../../src/tracking/sources";
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
import { FAKE_LBCT_KEY, FakeLbct, lbctImportUnit, lbctSourcesJson } from "../helpers/fake-lbct";

// Issue 14 end to end: TERMINAL_SOURCES configures the real LBCT adapter (through the registry, with its facility
// mapping and the provider's backoff), a batch of the terminal-polls consumer asks the fake LBCT once per 20 boxes (its
// documented bulk limit), each answer lands on its box through the real Tracker and D1, and a 429 keeps the provider
// alone for its Retry-After, with the API key (in LBCT's URL path) never logged.

const SCAC = "FAKE";
const FACILITY = "WAC8";
const nextBox = boxNumbers("TBPU", 600_000);

afterEach(() => {
  vi.restoreAllMocks();
});

/** A registry of the environment's own terminal sources (TERMINAL_SOURCES = the fake LBCT) and a fake carrier. */
function registryWith(carrier: FakeCarrier): SourceRegistry {
  const configured = sourcesFor({
    DCSA_SOURCES: "",
    SIMULATOR_ENABLED: "false",
    SIMULATION_SPEED: "",
    TERMINAL_SOURCES: lbctSourcesJson(),
  });
  return { ...configured, ...registryOf([carrier], configured.terminals) };
}

async function trackedAtLbct(count: number) {
  const lbct = new FakeLbct();
  const numbers = Array.from({ length: count }, () => nextBox());
  const bl = `TBPBL${numbers[0]}`;
  const shipment = shipmentFacts(
    numbers.map((n) =>
      containerFacts(n, [milestone("container.transport.vessel_discharged", iso(FUTURE_T0 - HOUR_MS), "USLGB")]),
    ),
    { billOfLadingNumber: bl, portOfDischargeLocode: "USLGB", podTerminalCode: FACILITY },
  );
  const carrier = new FakeCarrier(
    SCAC,
    (r): LookupResult => (r.number === bl ? { kind: "found", shipment } : { kind: "not_found" }),
  );
  const sources = registryWith(carrier);
  const clock = new FakeClock(FUTURE_T0);
  const account = await createAccount();
  const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const rows = await containersOfShipment((await requestRow(requestId)).shipment_id ?? "");
  for (const n of numbers)
    lbct.put(
      lbctImportUnit(n, {
        "visit-state": "Active",
        "transit-state": "Yard",
        "is-in-yard": true,
        "bill-of-lading-number": bl,
      }),
    );
  const messages = () =>
    numbers.map(
      (number) =>
        ({
          id: number,
          timestamp: new Date(clock.now()),
          body: { scac: SCAC, number },
          attempts: 1,
          ack: () => undefined,
          retry: () => undefined,
        }) as unknown as Message<{ scac: string; number: string }>,
    );
  const poll = (atMs: number) => {
    clock.set(atMs);
    return pollTerminalBatch({ env: envWithQueue(recordingQueue()), clock, sources, fetch: lbct.fetch }, messages());
  };
  return { lbct, numbers, rows, poll, carrier };
}

describe("TERMINAL_SOURCES → LBCT adapter → terminal-polls batch → Trackers", () => {
  it("45 boxes at LBCT Pier E: 3 requests of at most 20, every box's answer on its own row", async () => {
    const box = await trackedAtLbct(45);
    await box.poll(FUTURE_T0 + HOUR_MS);
    expect(box.lbct.searches.map((r) => r.numbers.length)).toEqual([20, 20, 5]);
    expect(new Set(box.lbct.searches.flatMap((r) => r.numbers))).toEqual(new Set(box.numbers));
    for (const row of box.rows) {
      const after = await containerRow(row.id);
      expect(after.terminal_checked_at, row.number).toBe(iso(FUTURE_T0 + HOUR_MS));
      expect(after.pod_last_tracking_request_at, row.number).toBe(iso(FUTURE_T0 + HOUR_MS));
    }
    expect(box.carrier.polls).toHaveLength(45);
  });

  it("a 429 keeps LBCT alone for its Retry-After: the next batch sends nothing, the key is never logged", async () => {
    const lines: string[] = [];
    for (const level of ["log", "warn", "error"] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => lines.push(args.map(String).join(" ")));
    const box = await trackedAtLbct(25);
    box.lbct.mode = "throttled";
    box.lbct.retryAfterS = 30;
    // Later than the other test's polls: the backoff is per provider, per isolate.
    const t = FUTURE_T0 + 10 * HOUR_MS;
    await box.poll(t);
    // The first chunk's 429 starts the backoff: the second chunk of the batch is not sent.
    const throttled = box.lbct.searches.length;
    expect(throttled).toBe(1);
    box.lbct.mode = "ok";
    await box.poll(t + 10_000);
    expect(box.lbct.searches.length).toBe(throttled);
    for (const row of box.rows) expect((await containerRow(row.id)).terminal_checked_at).toBeNull();
    await box.poll(t + 30_000);
    expect(box.lbct.searches.map((r) => r.numbers.length).slice(throttled)).toEqual([20, 5]);
    for (const row of box.rows) expect((await containerRow(row.id)).terminal_checked_at).toBe(iso(t + 30_000));
    expect(lines.join("\n")).not.toContain(FAKE_LBCT_KEY);
  });
});
