import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TerminalProviderConfig } from "../../../../src/tracking/sources/terminal-operators/config";
import {
  createLbctSource,
  LBCT_MAX_BATCH,
  LBCT_PROVIDED_DATA,
  LBCT_PROVIDED_DATA_NOTES,
  mapLbctContainer,
} from "../../../../src/tracking/sources/terminal-operators/lbct";
import type { SourceContext, TerminalPollResult, TerminalQuery } from "../../../../src/tracking/sources/types";
import { FAKE_LBCT_BASE, FAKE_LBCT_KEY, FAKE_LBCT_LIMIT, FakeLbct, lbctImportUnit } from "../../../helpers/fake-lbct";

// Issue 14 adapter 2: LBCT's Cargo Search web service (docs/terminals.md §LBCT) behind TerminalSource,
// against a local fake that speaks its documented envelope (test/helpers/fake-lbct.ts), through an injected fetch.

const NOW_MS = Date.parse("2026-11-25T15:00:00Z");
const BOX = "CSLU6264322";
const PIER_E = "WAC8";

const config = (apiKey: string = FAKE_LBCT_KEY): TerminalProviderConfig => ({
  baseUrl: FAKE_LBCT_BASE,
  auth: { type: "api_key", apiKey, header: "X-API-KEY" },
  facilities: { [PIER_E]: "LBCT", W183: "LBCT" },
});
const query = (containerNumber: string, extra: Partial<TerminalQuery> = {}): TerminalQuery => ({
  containerNumber,
  facilityCode: PIER_E,
  scac: "OOLU",
  ...extra,
});

let lbct: FakeLbct;
let ctx: SourceContext;
const logged: string[] = [];
beforeEach(() => {
  lbct = new FakeLbct();
  ctx = { nowMs: NOW_MS, fetch: lbct.fetch };
  logged.length = 0;
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

const found = (result: TerminalPollResult | undefined) => {
  if (result?.kind !== "found") throw new Error(`expected found, got ${JSON.stringify(result)}`);
  return result.observation;
};

describe("LBCT source: supports and configuration", () => {
  it("serves exactly the configured facilities", () => {
    const source = createLbctSource(config(), {});
    expect(source.name).toBe("Terminal");
    expect(source.supports("WAC8", "OOLU")).toBe(true);
    expect(source.supports("w183", "MAEU")).toBe(true);
    expect(source.supports("W185", "OOLU")).toBe(false);
    expect(source.maxBatchSize).toBe(20);
  });

  it("puts the API key in the URL path as the first segment, never in a header", async () => {
    lbct.put(lbctImportUnit(BOX));
    await createLbctSource(config(), {}).poll(query(BOX), ctx);
    expect(lbct.requests).toHaveLength(1);
    const [request] = lbct.requests;
    expect(request?.url.pathname).toBe(`/${FAKE_LBCT_KEY}/API/LBCTCargoSearchWebService/cargo-numbers/${BOX}`);
    expect(request?.key).toBe(FAKE_LBCT_KEY);
  });

  it("refuses an auth form other than api_key without asking LBCT", async () => {
    const source = createLbctSource({ ...config(), auth: { type: "headers", headers: { "X-Key": "k" } } }, {});
    expect(await source.poll(query(BOX), ctx)).toEqual({
      kind: "temporary_failure",
      reason: "terminal_credentials_rejected",
    });
    expect(lbct.requests).toHaveLength(0);
  });

  it("provided_data claims only what the documented payload carries, each flag with a note", () => {
    expect(LBCT_PROVIDED_DATA).toEqual({
      pickup_lfd: false,
      pod_full_out_at: true,
      available_for_pickup: true,
      fees_at_pod_terminal: false,
      holds_at_pod_terminal: false,
      pickup_appointment_at: false,
      location_at_pod_terminal: false,
      pod_full_out_chassis_number: false,
    });
    expect(Object.keys(LBCT_PROVIDED_DATA_NOTES).sort()).toEqual(Object.keys(LBCT_PROVIDED_DATA).sort());
  });
});

describe("LBCT source: the documented sample (docs/terminals.md §LBCT response)", () => {
  it("maps the first container of the sample: discharged (A) in Pacific time, time-out of the departed visit", () => {
    const unit = lbctImportUnit(BOX, {
      "visit-state": "Departed",
      "transit-state": "Departed",
      "time-in": "2021-12-04T19:05:25.497-08:00",
      "time-out": "2021-12-19T09:41:30.871-08:00",
      discharged: "12/04/2021 19:05 (A)",
    });
    expect(mapLbctContainer(unit, "America/Los_Angeles", NOW_MS)).toEqual({
      checkedAt: "2026-11-25T15:00:00Z",
      availabilityKnown: true,
      availableForPickup: false,
      holds: [],
      fees: [],
      pickupLfd: null,
      pickupAppointmentAt: null,
      locationAtTerminal: null,
      dischargedAt: "2021-12-05T03:05:00Z",
      fullOutAt: "2021-12-19T17:41:30Z",
      fullOutChassisNumber: null,
      offDock: false,
      emptyReturnedAt: null,
    });
  });

  it("an estimated discharge (E) is no discharge; a box still inbound is known not available", () => {
    const unit = lbctImportUnit(BOX, { discharged: "12/04/2021 19:05 (E)", "time-in": null, location: "VESSEL" });
    const observation = mapLbctContainer(unit, "America/Los_Angeles", NOW_MS);
    expect(observation.dischargedAt).toBeNull();
    expect(observation.locationAtTerminal).toBeNull();
    expect(observation.availabilityKnown).toBe(true);
    expect(observation.availableForPickup).toBe(false);
  });

  it("in the yard without a hold list or `available`, availability is unknown (nothing invented)", () => {
    const unit = lbctImportUnit(BOX, {
      "visit-state": "Active",
      "transit-state": "Yard",
      "is-in-yard": true,
      "time-in": "2026-11-20T06:12:40.000-08:00",
    });
    const observation = mapLbctContainer(unit, "America/Los_Angeles", NOW_MS);
    expect(observation.availabilityKnown).toBe(false);
    expect(observation.availableForPickup).toBeNull();
    expect(observation.holds).toEqual([]);
    expect(observation.pickupLfd).toBeNull();
    expect(observation.fees).toEqual([]);
    expect(observation.locationAtTerminal).toBeNull();
    for (const [available, expected] of [
      ["true", true],
      [false, false],
      ["No", false],
    ] as const) {
      expect(mapLbctContainer({ ...unit, available }, "America/Los_Angeles", NOW_MS)).toMatchObject({
        availabilityKnown: true,
        availableForPickup: expected,
      });
    }
    // No `discharged` value: the import visit's start stands in (the sample's time-in equals its discharge).
    expect(observation.dischargedAt).toBe("2026-11-20T14:12:40Z");
  });
});

describe("LBCT source: an import journey against the fake", () => {
  it("discharge → holds → holds released, LFD set and moved, amount owed accruing, pickup, empty return", async () => {
    const source = createLbctSource(config(), {});
    const poll = async () => found(await source.poll(query(BOX, { billOfLadingNumber: "2127609670" }), ctx));

    // On the vessel: LBCT knows the unit visit as advised.
    lbct.put(lbctImportUnit(BOX));
    let seen = await poll();
    expect(seen).toMatchObject({ availabilityKnown: true, availableForPickup: false, dischargedAt: null });

    // Discharged into the yard with customs and freight holds (and a TMF hold LBCT reports released).
    lbct.update(BOX, {
      "visit-state": "Active",
      "transit-state": "Yard",
      "is-in-yard": true,
      "time-in": "2026-11-20T06:12:40.000-08:00",
      discharged: "11/20/2026 06:12 (A)",
      location: "E12-03-4",
      "list-of-flag": [
        { "hold-name": "CUSTOMS_DEFAULT_HOLD", type: "Active" },
        { "hold-name": "FREIGHT_BL_HOLD", type: "Active" },
        { "hold-name": "TMF_CONTAINER_HOLD", type: "Inactive" },
      ],
    });
    seen = await poll();
    expect(seen.dischargedAt).toBe("2026-11-20T14:12:00Z");
    expect(seen.locationAtTerminal).toBe("E12-03-4");
    expect(seen.holds).toEqual([
      { name: "customs", status: "hold", description: "CUSTOMS_DEFAULT_HOLD" },
      { name: "freight", status: "hold", description: "FREIGHT_BL_HOLD" },
    ]);
    expect(seen).toMatchObject({ availabilityKnown: true, availableForPickup: false });

    // Customs releases; the LFD is set (a local date: midnight Pacific, UTC−8 in November).
    lbct.update(BOX, {
      "list-of-flag": [
        { "hold-name": "CUSTOMS_DEFAULT_HOLD", type: "Inactive" },
        { "hold-name": "FREIGHT_BL_HOLD", type: "Active" },
      ],
      "free-time-expiration": "11/25/2026",
    });
    seen = await poll();
    expect(seen.holds).toEqual([{ name: "freight", status: "hold", description: "FREIGHT_BL_HOLD" }]);
    expect(seen.pickupLfd).toBe("2026-11-25T08:00:00Z");

    // Freight released: no active hold left, so the box in the yard is available; the LFD moves.
    lbct.update(BOX, {
      "list-of-flag": [
        { "hold-name": "CUSTOMS_DEFAULT_HOLD", type: "Inactive" },
        { "hold-name": "FREIGHT_BL_HOLD", type: "Inactive" },
      ],
      "free-time-expiration": "2026-11-27",
    });
    seen = await poll();
    expect(seen.holds).toEqual([]);
    expect(seen).toMatchObject({ availabilityKnown: true, availableForPickup: true });
    expect(seen.pickupLfd).toBe("2026-11-27T08:00:00Z");

    // Past the LFD: the amount owed accrues; LBCT's own `available` wins over the derived value.
    lbct.update(BOX, { owed: "$150.00", available: "Yes" });
    expect((await poll()).fees).toEqual([{ type: "total", amount: 150, currency_code: "USD" }]);
    lbct.update(BOX, { owed: 300.5 });
    expect((await poll()).fees).toEqual([{ type: "total", amount: 300.5, currency_code: "USD" }]);

    // Picked up: the visit departs; time-out (with its offset) is the full-out time, the yard slot is gone.
    lbct.update(BOX, {
      "visit-state": "Departed",
      "transit-state": "Departed",
      "is-in-yard": false,
      "time-out": "2026-11-28T09:41:30.871-08:00",
      available: "No",
    });
    seen = await poll();
    expect(seen.fullOutAt).toBe("2026-11-28T17:41:30Z");
    expect(seen.locationAtTerminal).toBeNull();
    expect(seen).toMatchObject({ availabilityKnown: true, availableForPickup: false });
    expect(seen.dischargedAt).toBe("2026-11-20T14:12:00Z");

    // Empty returned: a new storage visit of the same number after the full out; the import visit still answers for
    // the box, the storage visit's time-in is the empty return.
    expect(seen.emptyReturnedAt).toBeNull();
    lbct.units.get(BOX)?.push(
      lbctImportUnit(BOX, {
        category: "STRGE",
        "freight-kind": "MTY",
        "visit-state": "Active",
        "transit-state": "Yard",
        "is-in-yard": true,
        "time-in": "2026-12-02T10:00:00.000-08:00",
        "bill-of-lading-number": null,
      }),
    );
    const after = await poll();
    expect(after.fullOutAt).toBe("2026-11-28T17:41:30Z");
    expect(after.dischargedAt).toBe("2026-11-20T14:12:00Z");
    expect(after.emptyReturnedAt).toBe("2026-12-02T18:00:00Z");
    expect(lbct.searches).toHaveLength(8);
  });

  it("an LFD in summer is midnight Pacific daylight time (UTC−7); one with an offset keeps its local date", async () => {
    lbct.put(lbctImportUnit(BOX, { "free-time-expiration": "07/07/2026" }));
    lbct.put(lbctImportUnit("FSCU5014182", { "free-time-expiration": "2026-07-07T23:59:00-07:00" }));
    const source = createLbctSource(config(), {});
    const results = await source.pollBatch?.([query(BOX), query("FSCU5014182")], ctx);
    expect(found(results?.get(BOX)).pickupLfd).toBe("2026-07-07T07:00:00Z");
    expect(found(results?.get("FSCU5014182")).pickupLfd).toBe("2026-07-07T07:00:00Z");
  });

  it("of two import visits, the one with the booked BL answers (else the latest time-in)", async () => {
    const inYard = { "visit-state": "Active", "transit-state": "Yard", "is-in-yard": true };
    lbct.units.set(BOX, [
      lbctImportUnit(BOX, { ...inYard, "bill-of-lading-number": "OLD1", "time-in": "2026-11-20T06:00:00-08:00" }),
      lbctImportUnit(BOX, { ...inYard, "bill-of-lading-number": "NEW2", "time-in": "2025-01-01T06:00:00-08:00" }),
    ]);
    const source = createLbctSource(config(), {});
    expect(found(await source.poll(query(BOX, { billOfLadingNumber: "NEW2" }), ctx)).dischargedAt).toBe(
      "2025-01-01T14:00:00Z",
    );
    expect(found(await source.poll(query(BOX), ctx)).dischargedAt).toBe("2026-11-20T14:00:00Z");
  });

  it("an empty visit older than the full out, or one while the box is still in, is no empty return", () => {
    const departed = lbctImportUnit(BOX, {
      "visit-state": "Departed",
      "transit-state": "Departed",
      "time-in": "2026-11-20T06:12:40-08:00",
      "time-out": "2026-11-28T09:41:30-08:00",
    });
    const olderEmpty = lbctImportUnit(BOX, {
      category: "STRGE",
      "freight-kind": "MTY",
      "time-in": "2026-10-01T10:00:00-07:00",
    });
    const laterFull = lbctImportUnit(BOX, { "time-in": "2026-12-20T10:00:00-08:00" });
    const visits = [departed, olderEmpty, laterFull];
    expect(mapLbctContainer(departed, "America/Los_Angeles", NOW_MS, visits).emptyReturnedAt).toBeNull();
    const inYard = { ...departed, "visit-state": "Active", "transit-state": "Yard" };
    const laterEmpty = { ...olderEmpty, "time-in": "2026-12-02T10:00:00-08:00" };
    expect(mapLbctContainer(inYard, "America/Los_Angeles", NOW_MS, [inYard, laterEmpty]).emptyReturnedAt).toBeNull();
    expect(mapLbctContainer(departed, "America/Los_Angeles", NOW_MS, [departed, laterEmpty]).emptyReturnedAt).toBe(
      "2026-12-02T18:00:00Z",
    );
  });

  it("maps hold names: USDA, VACIS, TMF and terminal blocks as other, an unknown status as active", () => {
    const unit = lbctImportUnit(BOX, {
      "list-of-flag": [
        { "hold-name": "USDA_HOLD", type: "Active" },
        { "hold-name": "VACIS_EXAM", type: "Active" },
        { "hold-name": "TMF_CONTAINER_HOLD", type: "Active" },
        { "hold-name": "BLOCK_DOWN", type: "Pending review" },
        { "hold-name": "CTF_CONTAINER_HOLD", type: "Released" },
      ],
    });
    expect(mapLbctContainer(unit, "America/Los_Angeles", NOW_MS).holds).toEqual([
      { name: "USDA", status: "hold", description: "USDA_HOLD" },
      { name: "VACIS", status: "hold", description: "VACIS_EXAM" },
      { name: "TMF", status: "hold", description: "TMF_CONTAINER_HOLD" },
      { name: "other", status: "hold", description: "BLOCK_DOWN" },
    ]);
  });
});

describe("LBCT source: batching and unknown containers", () => {
  const numbers = (n: number) => Array.from({ length: n }, (_, i) => `TCLU${String(1000000 + i)}`);

  it(`asks for at most ${LBCT_MAX_BATCH} numbers per request: 45 boxes → 3 requests, every box answered`, async () => {
    const boxes = numbers(45);
    for (const n of boxes) lbct.put(lbctImportUnit(n));
    const results = await createLbctSource(config(), {}).pollBatch?.(
      boxes.map((n) => query(n)),
      ctx,
    );
    expect(lbct.searches.map((r) => r.numbers.length)).toEqual([20, 20, 5]);
    expect(new Set(lbct.searches.flatMap((r) => r.numbers))).toEqual(new Set(boxes));
    expect(results?.size).toBe(45);
    for (const n of boxes) expect(results?.get(n)?.kind).toBe("found");
  });

  it("1 000 boxes at one terminal: 50 requests instead of 1 000 (20× fewer than polling per box)", async () => {
    const boxes = numbers(1000);
    for (const n of boxes) lbct.put(lbctImportUnit(n));
    const results = await createLbctSource(config(), {}).pollBatch?.(
      boxes.map((n) => query(n)),
      ctx,
    );
    expect(lbct.searches).toHaveLength(50);
    expect([...(results?.values() ?? [])].filter((r) => r.kind === "found")).toHaveLength(1000);
  });

  it("the fake enforces LBCT's limit: 21 numbers in one request answer 400", async () => {
    const url = `${FAKE_LBCT_BASE}/${FAKE_LBCT_KEY}/API/LBCTCargoSearchWebService/cargo-numbers/${numbers(FAKE_LBCT_LIMIT + 1).join(",")}`;
    expect((await lbct.fetch(url)).status).toBe(400);
  });

  it("a number LBCT lists as not found is not_found; one in neither list is an unrecognized response", async () => {
    lbct.put(lbctImportUnit(BOX));
    const silent: typeof fetch = async (input, init) => {
      const response = await lbct.fetch(input, init);
      const body = (await response.json()) as { payload: { "search-results": { "not-found-numbers": string[] } } };
      body.payload["search-results"]["not-found-numbers"] = body.payload["search-results"]["not-found-numbers"].filter(
        (n) => n !== "GHOST000001",
      );
      return new Response(JSON.stringify(body), { status: 200 });
    };
    const source = createLbctSource(config(), {});
    const results = await source.pollBatch?.([query(BOX), query("MSCU0000001"), query("GHOST000001")], {
      ...ctx,
      fetch: silent,
    });
    expect(results?.get(BOX)?.kind).toBe("found");
    expect(results?.get("MSCU0000001")).toEqual({ kind: "not_found" });
    expect(results?.get("GHOST000001")).toEqual({ kind: "temporary_failure", reason: "unrecognized_response" });
  });

  it("a number whose only visit is not an import (an export, an empty in storage) is not_found", async () => {
    lbct.put(lbctImportUnit(BOX, { category: "EXPRT" }));
    lbct.put(lbctImportUnit("FSCU5014182", { category: "STRGE", "freight-kind": "MTY" }));
    const results = await createLbctSource(config(), {}).pollBatch?.([query(BOX), query("FSCU5014182")], ctx);
    expect(results?.get(BOX)).toEqual({ kind: "not_found" });
    expect(results?.get("FSCU5014182")).toEqual({ kind: "not_found" });
  });

  it("answers under the number as queried (lower case, spaces) and asks LBCT once for duplicates", async () => {
    lbct.put(lbctImportUnit(BOX));
    const results = await createLbctSource(config(), {}).pollBatch?.([query(" cslu6264322 "), query(BOX)], ctx);
    expect(lbct.searches.map((r) => r.numbers)).toEqual([[BOX]]);
    expect(results?.get(" cslu6264322 ")?.kind).toBe("found");
    expect(results?.get(BOX)?.kind).toBe("found");
  });
});

describe("LBCT source: errors", () => {
  const unreachable = { kind: "temporary_failure", reason: "terminal_unreachable" };
  const unrecognized = { kind: "temporary_failure", reason: "unrecognized_response" };
  const rejected = { kind: "temporary_failure", reason: "terminal_credentials_rejected" };
  const boxes = Array.from({ length: 45 }, (_, i) => `TCLU${String(2000000 + i)}`);

  it.each([
    ["error_500", unreachable],
    ["throttled", unreachable],
    ["malformed_json", unrecognized],
    ["html", unrecognized],
    ["no_payload", unrecognized],
  ] as const)("%s → %o for the box", async (mode, expected) => {
    lbct.put(lbctImportUnit(BOX));
    lbct.mode = mode;
    expect(await createLbctSource(config(), {}).poll(query(BOX), ctx)).toEqual(expected);
  });

  it("a timeout is unreachable", async () => {
    lbct.mode = "timeout";
    const source = createLbctSource(config(), {}, { timeoutMs: 20 });
    expect(await source.poll(query(BOX), ctx)).toEqual(unreachable);
  });

  it("a network error is unreachable", async () => {
    const failing: typeof fetch = async () => {
      throw new TypeError(`connect failed to ${FAKE_LBCT_BASE}/${FAKE_LBCT_KEY}/API`);
    };
    expect(await createLbctSource(config(), {}).poll(query(BOX), { ...ctx, fetch: failing })).toEqual(unreachable);
  });

  it("a key that cannot be written into a URL is reported, not thrown, and nothing is sent", async () => {
    const result = await createLbctSource(config("bad\ud800key"), {}).poll(query(BOX), ctx);
    expect(result).toEqual(unrecognized);
    expect(lbct.requests).toHaveLength(0);
  });

  it("a revoked key is terminal_credentials_rejected, and the rest of the batch is not sent", async () => {
    lbct.revokeKey();
    const results = await createLbctSource(config(), {}).pollBatch?.(
      boxes.map((n) => query(n)),
      ctx,
    );
    expect(lbct.requests).toHaveLength(1);
    expect(results?.size).toBe(45);
    for (const n of boxes) expect(results?.get(n)).toEqual(rejected);
    expect(logged.some((l) => l.includes("401") && l.includes("apiKey"))).toBe(true);
  });

  it("a throttled or failing terminal is asked once per poll, not once per batch", async () => {
    lbct.mode = "throttled";
    const results = await createLbctSource(config(), {}).pollBatch?.(
      boxes.map((n) => query(n)),
      ctx,
    );
    expect(lbct.requests).toHaveLength(1);
    for (const n of boxes) expect(results?.get(n)).toEqual(unreachable);
  });

  it("a rotated key works at once with the configuration that carries it", async () => {
    lbct.put(lbctImportUnit(BOX));
    lbct.revokeKey();
    expect(await createLbctSource(config(), {}).poll(query(BOX), ctx)).toEqual(rejected);
    lbct.issueKey("lbct-key-rotated-77");
    expect((await createLbctSource(config("lbct-key-rotated-77"), {}).poll(query(BOX), ctx)).kind).toBe("found");
    expect(lbct.requests.map((r) => r.key)).toEqual([FAKE_LBCT_KEY, "lbct-key-rotated-77"]);
  });

  it("never logs the API key (it is in the URL path), whatever goes wrong", async () => {
    lbct.put(lbctImportUnit(BOX));
    const source = createLbctSource(config(), {}, { timeoutMs: 20 });
    for (const mode of ["ok", "error_500", "throttled", "timeout", "malformed_json", "html", "no_payload"] as const) {
      lbct.mode = mode;
      await source.poll(query(BOX), ctx);
    }
    await source.poll(query(BOX), {
      ...ctx,
      fetch: async () => {
        throw new TypeError(`connect failed to ${FAKE_LBCT_BASE}/${FAKE_LBCT_KEY}/API`);
      },
    });
    lbct.mode = "ok";
    lbct.revokeKey();
    await source.poll(query(BOX), ctx);
    await createLbctSource({ ...config(), baseUrl: `${FAKE_LBCT_BASE}/wrong` }, {}).poll(query(BOX), ctx);
    expect(logged.length).toBeGreaterThan(5);
    for (const line of logged) expect(line).not.toContain(FAKE_LBCT_KEY);
  });
});
