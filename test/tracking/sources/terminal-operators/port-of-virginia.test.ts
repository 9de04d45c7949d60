import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import type { TerminalProviderConfig } from "../../../../src/tracking/sources/terminal-operators/config";
import {
  createPortOfVirginiaSource,
  createPortOfVirginiaSubscription,
  deletePortOfVirginiaSubscription,
  mapPortOfVirginiaHold,
  PORT_OF_VIRGINIA_BULK_LIMIT,
  PORT_OF_VIRGINIA_PROVIDED_DATA,
  parsePortOfVirginiaTime,
} from "../../../../src/tracking/sources/terminal-operators/port-of-virginia";
import { localMidnightIso } from "../../../../src/tracking/sources/timestamps";
import type { SourceContext, TerminalObservation, TerminalQuery } from "../../../../src/tracking/sources/types";
import {
  FAKE_POV_API_KEY,
  FAKE_POV_BASE,
  FAKE_POV_BULK_LIMIT,
  FakePortOfVirginia,
  povAvailability,
} from "../../../helpers/fake-port-of-virginia";

// Issue 14 adapter 3: Port of Virginia Import Availability (docs/terminals.md §Port of Virginia) against a local
// fake of the API (test/helpers/fake-port-of-virginia.ts) through an injected fetch: the import journey field by
// field, bulk batching within the documented limit of 100, unknown containers, errors, and no key in any log line.

const NIT = "L005"; // Norfolk International Terminals (CBP FIRMS), America/New_York in the reference data
const BOX = "GLDU1234567";
const BL = "AAA123999";

const CONFIG: TerminalProviderConfig = {
  baseUrl: FAKE_POV_BASE,
  auth: { type: "api_key", apiKey: FAKE_POV_API_KEY, header: "X-API-KEY" },
  facilities: { [NIT]: "NIT", N195: "VIG" },
};

const query = (containerNumber: string, billOfLadingNumber: string | null = BL): TerminalQuery => ({
  containerNumber,
  facilityCode: NIT,
  scac: "CMDU",
  billOfLadingNumber,
});

let fake: FakePortOfVirginia;
let nowMs: number;
const ctx = (): SourceContext => ({ nowMs, fetch: fake.fetch });
const logged: unknown[][] = [];
let globalFetch: MockInstance;

beforeEach(() => {
  fake = new FakePortOfVirginia();
  nowMs = Date.parse("2026-03-02T15:00:00Z");
  logged.length = 0;
  globalFetch = vi.spyOn(globalThis, "fetch").mockImplementation(() => {
    throw new Error("global fetch used");
  });
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
  }
});
afterEach(() => {
  expect(globalFetch).not.toHaveBeenCalled();
  expect(JSON.stringify(logged)).not.toContain(FAKE_POV_API_KEY);
  vi.restoreAllMocks();
});

/** Polls BOX and returns its observation (fails the test when it is not found). */
async function observe(): Promise<TerminalObservation> {
  const result = await createPortOfVirginiaSource(CONFIG, {}).poll(query(BOX), ctx());
  if (result.kind !== "found") throw new Error(`expected found, got ${JSON.stringify(result)}`);
  return result.observation;
}

describe("Port of Virginia: an import journey, field by field", () => {
  it("maps discharge, holds placed and released, LFD set and moved across DST, no fees, pickup and empty return", async () => {
    // Discharged (UV), not available, a customs exam hold and a line hold.
    fake.set(
      povAvailability(BOX, BL, {
        holds: [
          { type: "CUSTOMS", description: "CBP exam required", status: "ACTIVE" },
          { type: "FREIGHT", description: "Line hold: freight not paid" },
        ],
      }),
    );
    let seen = await observe();
    expect(seen).toEqual({
      checkedAt: "2026-03-02T15:00:00Z",
      availabilityKnown: true,
      availableForPickup: false,
      holds: [
        { name: "customs", status: "hold", description: "CBP exam required" },
        { name: "freight", status: "hold", description: "Line hold: freight not paid" },
      ],
      fees: [],
      pickupLfd: null,
      pickupAppointmentAt: null,
      locationAtTerminal: null,
      dischargedAt: null,
      fullOutAt: null,
      fullOutChassisNumber: null,
      offDock: false,
      emptyReturnedAt: null,
    } satisfies TerminalObservation);
    const [request] = fake.bulkRequests;
    expect(request?.headers.get("X-API-KEY")).toBe(FAKE_POV_API_KEY);
    expect(JSON.parse(request?.body ?? "")).toEqual([{ equipmentId: BOX, referenceId: BL }]);

    // Customs released (still listed, status RELEASED): only the line hold stays.
    nowMs += 3_600_000;
    fake.update(BOX, {
      holds: [
        { type: "CUSTOMS", description: "CBP exam required", status: "RELEASED" },
        { type: "FREIGHT", description: "Line hold: freight not paid" },
      ],
    });
    seen = await observe();
    expect(seen.holds).toEqual([{ name: "freight", status: "hold", description: "Line hold: freight not paid" }]);
    expect(seen.checkedAt).toBe("2026-03-02T16:00:00Z");

    // All released, available in block CA21, free time through Friday 6 March (EST: UTC−5).
    fake.update(BOX, {
      holds: [],
      shipmentStatus: "Available",
      yardBlock: "CA21",
      freeTimeExpiration: "2026-03-06T00:00:00.000",
    });
    seen = await observe();
    expect(seen).toMatchObject({
      availabilityKnown: true,
      availableForPickup: true,
      holds: [],
      locationAtTerminal: "CA21",
      pickupLfd: "2026-03-06T05:00:00Z",
    });

    // LFD moved to Tuesday 10 March, after the switch to EDT on 8 March (UTC−4): midnight local moves with it.
    fake.update(BOX, { freeTimeExpiration: "2026-03-10T00:00:00.000" });
    seen = await observe();
    expect(seen.pickupLfd).toBe("2026-03-10T04:00:00Z");

    // Past the LFD demurrage accrues at the terminal, but this API carries no fee: fees stay empty, nothing invented.
    nowMs = Date.parse("2026-03-11T12:00:00Z");
    seen = await observe();
    expect(seen.fees).toEqual([]);
    expect(PORT_OF_VIRGINIA_PROVIDED_DATA.fees_at_pod_terminal).toBe(false);

    // Picked up: gate-out 08:05:09.123 local (EDT) on a chassis.
    fake.update(BOX, { outTime: "2026-03-11T08:05:09.123", chassis: "CHAZ123456", shipmentStatus: "Not Available" });
    seen = await observe();
    expect(seen).toMatchObject({
      fullOutAt: "2026-03-11T12:05:09Z",
      fullOutChassisNumber: "CHAZ123456",
      availableForPickup: false,
      pickupLfd: "2026-03-10T04:00:00Z",
      emptyReturnedAt: null,
      dischargedAt: null,
    });

    // Empty returned two days later.
    fake.update(BOX, { emptyReturnTime: "2026-03-13T17:46:38.769" });
    seen = await observe();
    expect(seen.emptyReturnedAt).toBe("2026-03-13T21:46:38Z");
    expect(seen.fullOutAt).toBe("2026-03-11T12:05:09Z");
  });

  it("keeps the documented example's values where they belong (no availability without a status, no chassis without a gate-out)", async () => {
    fake.set(povAvailability(BOX, BL, { shipmentStatus: null, chassis: "CHAZ999999", yardBlock: "  " }));
    const seen = await observe();
    expect(seen.availabilityKnown).toBe(false);
    expect(seen.availableForPickup).toBeNull();
    expect(seen.fullOutChassisNumber).toBeNull();
    expect(seen.locationAtTerminal).toBeNull();
  });
});

describe("Port of Virginia: mapping rules", () => {
  it("reads hold items of any shape, keeps pending ones, drops released ones, names them by docs/api.md §Holds", () => {
    expect(mapPortOfVirginiaHold("USDA HOLD")).toEqual({ name: "USDA", status: "hold", description: "USDA HOLD" });
    expect(mapPortOfVirginiaHold({ code: "VACIS", description: "X-ray exam" })).toEqual({
      name: "VACIS",
      status: "hold",
      description: "X-ray exam",
    });
    expect(mapPortOfVirginiaHold({ holdType: "CUSTOMS", status: "Pending" })).toEqual({
      name: "customs",
      status: "pending",
      description: "CUSTOMS",
    });
    expect(mapPortOfVirginiaHold({ type: "TERMINAL", description: "Damaged unit" })).toEqual({
      name: "other",
      status: "hold",
      description: "Damaged unit",
    });
    expect(mapPortOfVirginiaHold({ type: "FREIGHT", status: "Released" })).toBeNull();
    expect(mapPortOfVirginiaHold({ type: "CUSTOMS", active: false })).toBeNull();
    expect(mapPortOfVirginiaHold({})).toBeNull();
    expect(mapPortOfVirginiaHold(42)).toBeNull();
  });

  it("reads times without an offset as Eastern wall clock (to the second, as served) and with one as that instant", () => {
    const tz = "America/New_York";
    expect(parsePortOfVirginiaTime("2022-02-15T18:16:13.973", tz)?.ms).toBe(Date.parse("2022-02-15T23:16:13Z"));
    expect(parsePortOfVirginiaTime("2022-07-15T18:16:13", tz)?.ms).toBe(Date.parse("2022-07-15T22:16:13Z"));
    // 22:30 EST on 5 March: its local date is the 5th, whatever the UTC date says.
    const late = parsePortOfVirginiaTime("2026-03-06T03:30:00Z", tz);
    expect(late?.localDate).toEqual([2026, 3, 5]);
    expect(localMidnightIso([2026, 3, 5], tz)).toBe("2026-03-05T05:00:00Z");
    expect(parsePortOfVirginiaTime("2026-02-30T00:00:00", tz)).toBeNull();
    expect(parsePortOfVirginiaTime("15/02/2022 18:16", tz)).toBeNull();
    expect(parsePortOfVirginiaTime(null, tz)).toBeNull();
  });
});

describe("Port of Virginia: batching and lookups", () => {
  const boxes = (n: number) => Array.from({ length: n }, (_, i) => `PVTU${String(1_000_000 + i).slice(1)}0`);

  it(`asks ${2.5 * PORT_OF_VIRGINIA_BULK_LIMIT} boxes in ⌈n / 100⌉ = 3 requests, none above the documented limit`, async () => {
    const numbers = boxes(250);
    for (const n of numbers) fake.set(povAvailability(n, BL, { shipmentStatus: "Available" }));
    const source = createPortOfVirginiaSource(CONFIG, {});
    expect(source.maxBatchSize).toBe(100);
    const results = await source.pollBatch?.(
      numbers.map((n) => query(n)),
      ctx(),
    );
    expect(fake.bulkRequests.map((r) => (JSON.parse(r.body) as unknown[]).length)).toEqual([100, 100, 50]);
    expect(fake.requests).toHaveLength(3);
    expect(results?.size).toBe(250);
    expect([...(results?.values() ?? [])].every((r) => r.kind === "found" && r.observation.availableForPickup)).toBe(
      true,
    );
  });

  it("figure: 1 000 boxes at one terminal are 10 requests to the port instead of 1 000 (100× fewer)", async () => {
    const numbers = boxes(1000);
    for (const n of numbers) fake.set(povAvailability(n, BL));
    const results = await createPortOfVirginiaSource(CONFIG, {}).pollBatch?.(
      numbers.map((n) => query(n)),
      ctx(),
    );
    expect(fake.requests).toHaveLength(10);
    expect([...(results?.values() ?? [])].filter((r) => r.kind === "found")).toHaveLength(1000);
  });

  it("the fake refuses a request above 100 objects, as the API documents", async () => {
    const body = JSON.stringify(boxes(FAKE_POV_BULK_LIMIT + 1).map((n) => ({ equipmentId: n, referenceId: BL })));
    const response = await fake.fetch(`${FAKE_POV_BASE}/import-availability`, {
      method: "POST",
      headers: { "X-API-KEY": FAKE_POV_API_KEY, "Content-Type": "application/json" },
      body,
    });
    expect(response.status).toBe(400);
  });

  it("answers unknown containers and a BL the terminal does not associate with the box as not_found, the rest found", async () => {
    fake.set(povAvailability(BOX, BL));
    fake.set(povAvailability("TCNU1111110", "OTHERBL"));
    const results = await createPortOfVirginiaSource(CONFIG, {}).pollBatch?.(
      [query(BOX), query("TCNU0000000"), query("TCNU1111110", "BADBL")],
      ctx(),
    );
    expect(fake.requests).toHaveLength(1);
    expect(results?.get(BOX)?.kind).toBe("found");
    expect(results?.get("TCNU0000000")).toEqual({ kind: "not_found" });
    expect(results?.get("TCNU1111110")).toEqual({ kind: "not_found" });
  });

  it("does not ask about a box without a bill of lading (the API needs both) and asks each box once", async () => {
    fake.set(povAvailability(BOX, BL));
    const results = await createPortOfVirginiaSource(CONFIG, {}).pollBatch?.(
      [query(BOX), query(BOX.toLowerCase()), query("TCNU2222220", null), query("TCNU3333330", " ")],
      ctx(),
    );
    expect(fake.bulkRequests.map((r) => JSON.parse(r.body))).toEqual([[{ equipmentId: BOX, referenceId: BL }]]);
    expect(results?.get(BOX)?.kind).toBe("found");
    expect(results?.get("TCNU2222220")).toEqual({
      kind: "temporary_failure",
      reason: "terminal_bill_of_lading_required",
    });
    expect(results?.get("TCNU3333330")?.kind).toBe("temporary_failure");
  });

  it("serves only the configured facilities", () => {
    const source = createPortOfVirginiaSource(CONFIG, {});
    expect(source.name).toBe("Terminal");
    expect(source.supports(NIT, "CMDU")).toBe(true);
    expect(source.supports(" n195 ", "MAEU")).toBe(true);
    expect(source.supports("W185", "CMDU")).toBe(false);
  });
});

describe("Port of Virginia: failures", () => {
  const unreachable = { kind: "temporary_failure", reason: "terminal_unreachable" };
  const unrecognized = { kind: "temporary_failure", reason: "unrecognized_response" };

  it.each([
    ["error_500", unreachable],
    ["timeout", unreachable],
    ["malformed_json", unrecognized],
    ["not_a_list", unrecognized],
  ] as const)("%s → %o", async (mode, expected) => {
    fake.set(povAvailability(BOX, BL));
    fake.mode = mode;
    expect(await createPortOfVirginiaSource(CONFIG, {}).poll(query(BOX), ctx())).toEqual(expected);
  });

  it("a 429 stops the batch (one request, not three), every box unreachable, Retry-After logged", async () => {
    fake.mode = "rate_limited";
    const numbers = Array.from({ length: 250 }, (_, i) => `RLTU${String(1_000_000 + i).slice(1)}0`);
    const results = await createPortOfVirginiaSource(CONFIG, {}).pollBatch?.(
      numbers.map((n) => query(n)),
      ctx(),
    );
    expect(fake.requests).toHaveLength(1);
    expect(results?.size).toBe(250);
    expect(
      [...(results?.values() ?? [])].every(
        (r) => r.kind === "temporary_failure" && r.reason === "terminal_unreachable",
      ),
    ).toBe(true);
    expect(JSON.stringify(logged)).toContain("Retry-After 30 s");
  });

  it("a revoked key is terminal_credentials_rejected, logged without the key", async () => {
    fake.set(povAvailability(BOX, BL));
    fake.apiKey = "a-new-key-issued-by-the-port";
    expect(await createPortOfVirginiaSource(CONFIG, {}).poll(query(BOX), ctx())).toEqual({
      kind: "temporary_failure",
      reason: "terminal_credentials_rejected",
    });
    expect(JSON.stringify(logged)).toContain("answered 401");
  });

  it("an object that is not the documented one, or one about another box, is unrecognized for that box only", async () => {
    fake.set(povAvailability(BOX, BL));
    const bad = { ...povAvailability("TCNU4444440", BL), container: 7 } as unknown as ReturnType<
      typeof povAvailability
    >;
    fake.containers.set("TCNU4444440", bad);
    fake.containers.set("TCNU5555550", povAvailability("OTHR0000000", BL));
    const results = await createPortOfVirginiaSource(CONFIG, {}).pollBatch?.(
      [query(BOX), query("TCNU4444440"), query("TCNU5555550")],
      ctx(),
    );
    expect(results?.get(BOX)?.kind).toBe("found");
    expect(results?.get("TCNU4444440")).toEqual(unrecognized);
    expect(results?.get("TCNU5555550")).toEqual(unrecognized);
  });
});

describe("Port of Virginia: subscription calls", () => {
  const CALLBACK = "https://tracker.example.test/callbacks/port-of-virginia/sub-1/token-abc";

  it("creates a subscription for a container + BL with our callback URL, and deletes it (twice is fine)", async () => {
    fake.set(povAvailability(BOX, BL));
    const created = await createPortOfVirginiaSubscription(
      CONFIG,
      { containerNumber: BOX, billOfLadingNumber: BL, callbackUrl: CALLBACK },
      ctx(),
    );
    if (created.kind !== "created") throw new Error(`expected created, got ${JSON.stringify(created)}`);
    const held = fake.subscriptions.get(created.subscriptionId);
    expect(held).toEqual({
      subscriptionID: created.subscriptionId,
      equipmentId: BOX,
      referenceId: BL,
      callbackUrl: CALLBACK,
    });
    expect(fake.requests[0]?.headers.get("X-API-KEY")).toBe(FAKE_POV_API_KEY);

    expect(await deletePortOfVirginiaSubscription(CONFIG, created.subscriptionId, ctx())).toEqual({ kind: "deleted" });
    expect(fake.subscriptions.size).toBe(0);
    expect(await deletePortOfVirginiaSubscription(CONFIG, created.subscriptionId, ctx())).toEqual({ kind: "deleted" });
  });

  it("reports a refused pair, a refused key and an outage as failed, without the key", async () => {
    const request = { containerNumber: BOX, billOfLadingNumber: BL, callbackUrl: CALLBACK };
    expect(await createPortOfVirginiaSubscription(CONFIG, request, ctx())).toEqual({
      kind: "failed",
      error: "answered 400",
    });
    fake.set(povAvailability(BOX, BL));
    fake.apiKey = "another-key";
    expect(await createPortOfVirginiaSubscription(CONFIG, request, ctx())).toEqual({
      kind: "failed",
      error: "answered 401",
    });
    fake.mode = "timeout";
    expect(await deletePortOfVirginiaSubscription(CONFIG, "x", ctx())).toEqual({ kind: "failed", error: "timed out" });
    expect(fake.subscriptions.size).toBe(0);
  });
});
