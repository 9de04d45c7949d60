import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { createTokenBroker, type TokenBroker } from "../../../../src/tracking/sources/auth";
import {
  APMT_MAX_ASSETS_PER_REQUEST,
  apmtDemurrage,
  apmtHoldName,
  apmtLastFreeDay,
  apmtObservation,
  createApmtSource,
} from "../../../../src/tracking/sources/terminal-operators/apmt";
import {
  APMT_PROVIDED_DATA,
  apmtProvidedData,
  apmtProvidedDataNotes,
} from "../../../../src/tracking/sources/terminal-operators/apmt-provided-data";
import type { TerminalObservation, TerminalPollResult, TerminalQuery } from "../../../../src/tracking/sources/types";
import {
  type ApmtAvailabilityEntry,
  FAKE_APMT_BASE,
  FAKE_APMT_CLIENT_ID,
  FAKE_APMT_CLIENT_SECRET,
  FakeApmt,
  fakeApmtConfig,
} from "../../../helpers/fake-apmt";

// Issue 14 adapter 1: APM Terminals Import Availability (docs/terminals.md §APM Terminals) against a local fake that
// speaks the documented API (test/helpers/fake-apmt.ts): Apigee OAuth client credentials, `assetId` lists, one
// `facilityCode`, a bulk limit, unknown assets left out. Pier 400 (FIRMS W185) is APMT facility USLAX,
// America/Los_Angeles; South Florida Container Terminal (N775) is USMIA, America/New_York.

const T0 = Date.parse("2024-06-01T00:00:00Z");
const MINUTE = 60_000;
const BOX = "WFHU5080179";
const OTHER = "EGHU9044403";

const logged: unknown[][] = [];
let globalFetch: MockInstance;
beforeEach(() => {
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
  // Whatever a test did, the client secret and the issued tokens never reached a log line.
  const text = logged.map((args) => args.map(String).join(" ")).join("\n");
  expect(text).not.toContain(FAKE_APMT_CLIENT_SECRET);
  expect(text).not.toMatch(/apmt-token-\d/);
  vi.restoreAllMocks();
});

const logText = () => logged.map((args) => args.map(String).join(" ")).join("\n");

function setup(
  options: { maxBatchSize?: number; timeoutMs?: number; secret?: string; tokens?: TokenBroker; baseUrl?: string } = {},
) {
  const apmt = new FakeApmt();
  apmt.nowMs = T0;
  const config = {
    ...fakeApmtConfig({ W185: "USLAX", N775: "USMIA", NLMVII: "NLRTM", R103: "usmob" }, options.secret),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
  };
  const source = createApmtSource(
    config,
    { tokens: options.tokens ?? createTokenBroker() },
    {
      timeoutMs: options.timeoutMs ?? 20,
      ...(options.maxBatchSize ? { maxBatchSize: options.maxBatchSize } : {}),
    },
  );
  const ctx = () => ({ nowMs: apmt.nowMs, fetch: apmt.fetch });
  const poll = async (containerNumber = BOX, facilityCode = "W185") =>
    source.poll({ containerNumber, facilityCode, scac: "MAEU" }, ctx());
  const pollBatch = (queries: TerminalQuery[]) => source.pollBatch?.(queries, ctx()) ?? Promise.resolve(new Map());
  return { apmt, source, poll, pollBatch };
}

function observation(result: TerminalPollResult | undefined): TerminalObservation {
  if (result?.kind !== "found") throw new Error(`expected found, got ${JSON.stringify(result)}`);
  return result.observation;
}

/** A box number with a valid-looking shape for batch tests (the fake does not check digits, APMT does not either). */
const box = (i: number) => `MRKU${String(i).padStart(7, "0")}`;

describe("APMT source: an import journey at Pier 400 (W185 → USLAX)", () => {
  it("maps each stage's fields to the observation: discharge, holds placed and released, LFD set and moved, demurrage, appointment, full out", async () => {
    const { apmt, poll } = setup();
    const quiet: Omit<TerminalObservation, "checkedAt"> = {
      availabilityKnown: true,
      availableForPickup: false,
      holds: [],
      fees: [],
      pickupLfd: null,
      pickupAppointmentAt: null,
      locationAtTerminal: null,
      dischargedAt: null,
      fullOutAt: null,
      fullOutChassisNumber: null,
      offDock: false,
    };
    const entry: ApmtAvailabilityEntry = {
      containerId: BOX,
      shippingLine: "MAE",
      containerIsoCode: "45G1",
      sizeTypeHeight: "40/GP/96",
      billOfLading: "255738119",
      readyForDelivery: "false",
      containerState: "Inbound",
      containerHolds: "",
      vesselName: "MAERSK NORTHAMPTON",
      vesselEtaDateTimeLocal: "2024-06-04T06:00:00-07:00",
      appointment: "false",
      appointmentDateTimeLocal: null,
      facilityOutDateTimeLocal: null,
    };
    apmt.put("USLAX", entry);

    // Inbound: the terminal knows the box; nothing else yet (vessel ETA is not part of an observation).
    expect(await poll()).toEqual({ kind: "found", observation: { ...quiet, checkedAt: "2024-06-01T00:00:00Z" } });

    // Discharged (local time with its offset → UTC), in the yard, customs and freight holds.
    apmt.nowMs = Date.parse("2024-06-05T22:00:00Z");
    apmt.update("USLAX", BOX, {
      containerState: "Yard",
      dischargeDateTimeLocal: "2024-06-05T14:10:00-07:00",
      yardLocation: "Y0709A",
      containerHolds: "CUSTOMS, FREIGHT",
    });
    const discharged = {
      ...quiet,
      dischargedAt: "2024-06-05T21:10:00Z",
      locationAtTerminal: "Y0709A",
    };
    expect(observation(await poll())).toEqual({
      ...discharged,
      checkedAt: "2024-06-05T22:00:00Z",
      holds: [
        { name: "customs", status: "hold", description: "CUSTOMS" },
        { name: "freight", status: "hold", description: "FREIGHT" },
      ],
    });

    // Customs released: only the freight hold is left (cleared holds are absent, docs/api.md §Holds).
    apmt.update("USLAX", BOX, { containerHolds: "FREIGHT" });
    expect(observation(await poll()).holds).toEqual([{ name: "freight", status: "hold", description: "FREIGHT" }]);

    // All released, available, storage paid through 9 June → LFD = local midnight of 9 June in Los Angeles.
    apmt.update("USLAX", BOX, { containerHolds: "", readyForDelivery: "true", storagePaidThroughDate: "2024-06-09" });
    const available = { ...discharged, availableForPickup: true, pickupLfd: "2024-06-09T07:00:00Z" };
    expect(observation(await poll())).toEqual({ ...available, checkedAt: "2024-06-05T22:00:00Z" });

    // LFD moved (a date-time with offset: its date in the terminal's zone).
    apmt.update("USLAX", BOX, { storagePaidThroughDate: "2024-06-11T23:59:00-07:00" });
    expect(observation(await poll()).pickupLfd).toBe("2024-06-11T07:00:00Z");

    // Demurrage accrues (USD at a US terminal), then grows.
    apmt.update("USLAX", BOX, { demurrageOwed: "150.00" });
    expect(observation(await poll()).fees).toEqual([{ type: "demurrage", amount: 150, currency_code: "USD" }]);
    apmt.update("USLAX", BOX, { demurrageOwed: "$1,275.50" });
    expect(observation(await poll()).fees).toEqual([{ type: "demurrage", amount: 1275.5, currency_code: "USD" }]);

    // Appointment booked.
    apmt.update("USLAX", BOX, { appointment: "true", appointmentDateTimeLocal: "2024-06-13T08:30:00-07:00" });
    expect(observation(await poll()).pickupAppointmentAt).toBe("2024-06-13T15:30:00Z");

    // Picked up (full out); no longer ready for delivery.
    apmt.nowMs = Date.parse("2024-06-13T17:00:00Z");
    apmt.update("USLAX", BOX, {
      containerState: "Departed",
      readyForDelivery: "false",
      facilityOutDateTimeLocal: "2024-06-13T09:02:11-07:00",
      yardLocation: "",
    });
    expect(observation(await poll())).toEqual({
      ...quiet,
      checkedAt: "2024-06-13T17:00:00Z",
      dischargedAt: "2024-06-05T21:10:00Z",
      pickupLfd: "2024-06-11T07:00:00Z",
      fees: [{ type: "demurrage", amount: 1275.5, currency_code: "USD" }],
      pickupAppointmentAt: "2024-06-13T15:30:00Z",
      fullOutAt: "2024-06-13T16:02:11Z",
      emptyReturnedAt: null,
    });

    // Empty returned (Empty Container Returns, asked only once the box is out).
    apmt.putReturn("USLAX", { containerId: BOX, isContainerReturned: "false", gateInDateTimeLocal: null });
    expect(observation(await poll()).emptyReturnedAt).toBeNull();
    apmt.putReturn("USLAX", {
      containerId: BOX,
      shippingLine: "MAE",
      containerIsoCode: "45G1",
      sizeTypeHeight: "40/GP/96",
      isContainerReturned: "true",
      gateInDateTimeLocal: "2024-06-15T11:20:05-07:00",
    });
    expect(observation(await poll()).emptyReturnedAt).toBe("2024-06-15T18:20:05Z");
    expect(apmt.emptyReturnRequests.map((r) => r.url.search)).toEqual(
      Array(3).fill(`?assetId=${BOX}&facilityCode=USLAX`),
    );

    // Every call asked for the one box at USLAX; a token per clock jump past its 30 minutes (T0, 5 June, 13 June).
    expect(apmt.availabilityRequests.map((r) => r.url.search)).toEqual(
      Array(apmt.availabilityRequests.length).fill(`?assetId=${BOX}&facilityCode=USLAX`),
    );
    expect(apmt.tokenRequests).toHaveLength(3);
  });

  it("reads local times without an offset in the terminal's zone, across DST (Miami, N775 → USMIA)", async () => {
    const { apmt, poll } = setup();
    apmt.put("USMIA", {
      containerId: BOX,
      readyForDelivery: "Y",
      dischargeDateTimeLocal: "2024-01-09T10:00:00",
      storagePaidThroughDate: "2024-01-12",
      appointmentDateTimeLocal: "2024-07-01T07:15:00",
    });
    expect(observation(await poll(BOX, "N775"))).toMatchObject({
      availableForPickup: true,
      dischargedAt: "2024-01-09T15:00:00Z",
      pickupLfd: "2024-01-12T05:00:00Z",
      pickupAppointmentAt: "2024-07-01T11:15:00Z",
    });
    expect(apmt.availabilityRequests[0]?.url.searchParams.get("facilityCode")).toBe("USMIA");
  });

  it("leaves what the terminal does not send null, and an unreadable flag as availability unknown", async () => {
    const { apmt, poll } = setup();
    apmt.put("USLAX", { containerId: BOX, readyForDelivery: "maybe", dischargeDateTimeLocal: "05/06/2024 14:10" });
    expect(observation(await poll())).toEqual({
      checkedAt: "2024-06-01T00:00:00Z",
      availabilityKnown: false,
      availableForPickup: null,
      holds: [],
      fees: [],
      pickupLfd: null,
      pickupAppointmentAt: null,
      locationAtTerminal: null,
      dischargedAt: null,
      fullOutAt: null,
      fullOutChassisNumber: null,
      offDock: false,
    });
    // The unreadable value is reported by field name, not by value.
    expect(logText()).toContain("dischargeDateTimeLocal");
    expect(logText()).not.toContain("05/06/2024");
  });

  it("an appointment flag of false drops a stale appointment date", async () => {
    const { apmt, poll } = setup();
    apmt.put("USLAX", {
      containerId: BOX,
      appointment: "false",
      appointmentDateTimeLocal: "2024-06-13T08:30:00-07:00",
    });
    expect(observation(await poll()).pickupAppointmentAt).toBeNull();
  });

  it("reads a single-object answer as a list of one", async () => {
    const { apmt, poll } = setup();
    apmt.mode = "single_object";
    apmt.put("USLAX", { containerId: BOX, readyForDelivery: "true" });
    expect(observation(await poll()).availableForPickup).toBe(true);
  });

  it("a container the terminal does not know is not_found; a facility not configured is not supported", async () => {
    const { apmt, poll, source } = setup();
    apmt.put("USLAX", { containerId: OTHER, readyForDelivery: "true" });
    expect(await poll(BOX)).toEqual({ kind: "not_found" });
    expect(source.supports("W185", "MAEU")).toBe(true);
    expect(source.supports("Y258", "MAEU")).toBe(false);
    expect(await poll(BOX, "Y258")).toEqual({ kind: "temporary_failure", reason: "terminal_unreachable" });
    expect(apmt.availabilityRequests).toHaveLength(1);
  });
});

describe("APMT source: batching", () => {
  it(`asks about N boxes at one terminal in ceil(N / ${APMT_MAX_ASSETS_PER_REQUEST}) requests, each box answered`, async () => {
    const { apmt, pollBatch, source } = setup();
    expect(source.maxBatchSize).toBe(APMT_MAX_ASSETS_PER_REQUEST);
    const n = 120;
    for (let i = 0; i < n; i += 2) apmt.put("USLAX", { containerId: box(i), readyForDelivery: "true" });
    const queries = Array.from({ length: n }, (_, i) => ({
      containerNumber: box(i),
      facilityCode: "W185",
      scac: "MAEU",
    }));
    const results = await pollBatch(queries);
    expect(apmt.availabilityRequests).toHaveLength(Math.ceil(n / APMT_MAX_ASSETS_PER_REQUEST));
    const sizes = apmt.availabilityRequests.map((r) => (r.url.searchParams.get("assetId") ?? "").split(",").length);
    expect(sizes).toEqual([50, 50, 20]);
    expect(results.size).toBe(n);
    for (let i = 0; i < n; i++) {
      const result = results.get(box(i));
      if (i % 2 === 0) expect(observation(result).availableForPickup).toBe(true);
      else expect(result).toEqual({ kind: "not_found" });
    }
    expect(apmt.tokenRequests).toHaveLength(1);
  });

  it("1 000 boxes at one terminal: 20 requests batched against 1 000 polled one by one (50× fewer)", async () => {
    const batched = setup();
    const perBox = setup();
    const queries = Array.from({ length: 1000 }, (_, i) => ({
      containerNumber: box(i),
      facilityCode: "W185",
      scac: "X",
    }));
    for (const q of queries) {
      batched.apmt.put("USLAX", { containerId: q.containerNumber, readyForDelivery: "true" });
      perBox.apmt.put("USLAX", { containerId: q.containerNumber, readyForDelivery: "true" });
    }
    const results = await batched.pollBatch(queries);
    for (const q of queries) await perBox.poll(q.containerNumber);
    expect([...results.values()].every((r) => r.kind === "found")).toBe(true);
    expect(batched.apmt.availabilityRequests).toHaveLength(20);
    expect(perBox.apmt.availabilityRequests).toHaveLength(1000);
  });

  it("sends one facilityCode per request: boxes of two terminals go in separate requests", async () => {
    const { apmt, pollBatch } = setup();
    apmt.put("USLAX", { containerId: BOX, readyForDelivery: "true" });
    apmt.put("USMIA", { containerId: OTHER, readyForDelivery: "false" });
    const results = await pollBatch([
      { containerNumber: BOX, facilityCode: "W185", scac: "MAEU" },
      { containerNumber: OTHER, facilityCode: "N775", scac: "MAEU" },
      { containerNumber: BOX, facilityCode: "W185", scac: "MAEU" },
    ]);
    expect(apmt.availabilityRequests.map((r) => r.url.search)).toEqual([
      `?assetId=${BOX}&facilityCode=USLAX`,
      `?assetId=${OTHER}&facilityCode=USMIA`,
    ]);
    expect(observation(results.get(BOX)).availableForPickup).toBe(true);
    expect(observation(results.get(OTHER)).availableForPickup).toBe(false);
  });

  it("a configured facility code is sent upper-cased", async () => {
    const { apmt, poll } = setup();
    apmt.put("USMOB", { containerId: BOX, readyForDelivery: "true" });
    expect(observation(await poll(BOX, "R103")).availableForPickup).toBe(true);
    expect(apmt.availabilityRequests[0]?.url.searchParams.get("facilityCode")).toBe("USMOB");
  });

  it("the fake enforces its bulk limit: more assets than it takes is a 400, unrecognized_response for every box", async () => {
    const { apmt, pollBatch } = setup({ maxBatchSize: 60 });
    const queries = Array.from({ length: 60 }, (_, i) => ({
      containerNumber: box(i),
      facilityCode: "W185",
      scac: "X",
    }));
    const results = await pollBatch(queries);
    expect(apmt.availabilityRequests).toHaveLength(1);
    expect([...new Set([...results.values()].map((r) => JSON.stringify(r)))]).toEqual([
      JSON.stringify({ kind: "temporary_failure", reason: "unrecognized_response" }),
    ]);
  });

  it("after a 429 the rest of the batch is not sent: every box is terminal_unreachable", async () => {
    const { apmt, pollBatch } = setup();
    apmt.mode = "rate_limited";
    const queries = Array.from({ length: 120 }, (_, i) => ({
      containerNumber: box(i),
      facilityCode: "W185",
      scac: "X",
    }));
    const results = await pollBatch(queries);
    expect(apmt.availabilityRequests).toHaveLength(1);
    expect(results.size).toBe(120);
    for (const result of results.values()) {
      expect(result).toEqual({ kind: "temporary_failure", reason: "terminal_unreachable" });
    }
  });
});

describe("APMT source: empty returns (sibling Empty Container Returns API)", () => {
  it("asks only about the boxes that left full, in one request per batch", async () => {
    const { apmt, pollBatch } = setup();
    for (let i = 0; i < 5; i++) {
      apmt.put("USLAX", {
        containerId: box(i),
        containerState: i < 3 ? "Departed" : "Yard",
        facilityOutDateTimeLocal: i < 2 ? "2024-06-13T09:00:00-07:00" : null,
      });
    }
    apmt.putReturn("USLAX", {
      containerId: box(0),
      isContainerReturned: "true",
      gateInDateTimeLocal: "2024-06-14T10:00:00-07:00",
    });
    const results = await pollBatch(
      Array.from({ length: 5 }, (_, i) => ({ containerNumber: box(i), facilityCode: "W185", scac: "MAEU" })),
    );
    expect(apmt.emptyReturnRequests.map((r) => r.url.searchParams.get("assetId"))).toEqual([
      [box(0), box(1), box(2)].join(","),
    ]);
    expect([0, 1, 2, 3, 4].map((i) => observation(results.get(box(i))).emptyReturnedAt)).toEqual([
      "2024-06-14T17:00:00Z",
      null,
      null,
      undefined,
      undefined,
    ]);
  });

  it("an app without the Empty Container Returns product (403 there) still gets availability, the field left out", async () => {
    const { apmt, poll } = setup();
    apmt.emptyReturnsProduct = false;
    apmt.put("USLAX", {
      containerId: BOX,
      containerState: "Departed",
      facilityOutDateTimeLocal: "2024-06-13T09:00:00-07:00",
    });
    const obs = observation(await poll());
    expect(obs.fullOutAt).toBe("2024-06-13T16:00:00Z");
    expect(obs.emptyReturnedAt).toBeUndefined();
    expect(logText()).toContain("/empty-container-returns");
  });

  it("Empty Container Returns unreachable: the boxes out fail as terminal_unreachable (a recorded return is not dropped)", async () => {
    const apmt = new FakeApmt();
    apmt.put("USLAX", { containerId: BOX, containerState: "Departed" });
    apmt.put("USLAX", { containerId: OTHER, containerState: "Yard", readyForDelivery: "true" });
    const fetcher: typeof fetch = async (input, init) =>
      String(input).includes("/empty-container-returns")
        ? new Response("busy", { status: 503 })
        : apmt.fetch(input, init);
    const source = createApmtSource(fakeApmtConfig({ W185: "USLAX" }), {});
    const results = await source.pollBatch?.(
      [BOX, OTHER].map((containerNumber) => ({ containerNumber, facilityCode: "W185", scac: "MAEU" })),
      { nowMs: 0, fetch: fetcher },
    );
    expect(results?.get(BOX)).toEqual({ kind: "temporary_failure", reason: "terminal_unreachable" });
    expect(observation(results?.get(OTHER)).availableForPickup).toBe(true);
  });
});

describe("APMT source: errors", () => {
  const cases: [string, FakeApmt["mode"], TerminalPollResult][] = [
    ["a 500", "error_500", { kind: "temporary_failure", reason: "terminal_unreachable" }],
    ["a 429", "rate_limited", { kind: "temporary_failure", reason: "terminal_unreachable" }],
    ["a timeout", "timeout", { kind: "temporary_failure", reason: "terminal_unreachable" }],
    ["truncated JSON", "malformed_json", { kind: "temporary_failure", reason: "unrecognized_response" }],
    ["an HTML page with 200", "html_gateway", { kind: "temporary_failure", reason: "unrecognized_response" }],
    ["a 403", "forbidden", { kind: "temporary_failure", reason: "terminal_credentials_rejected" }],
  ];
  for (const [what, mode, expected] of cases) {
    it(`${what} → ${expected.kind === "temporary_failure" ? expected.reason : expected.kind}`, async () => {
      const { apmt, poll } = setup();
      apmt.put("USLAX", { containerId: BOX, readyForDelivery: "true" });
      apmt.mode = mode;
      expect(await poll()).toEqual(expected);
    });
  }

  it("a 404 (the spec's Bad URL: a misconfigured base URL) is unrecognized_response, not an unknown box", async () => {
    const { apmt, poll } = setup({ baseUrl: `${FAKE_APMT_BASE}/v1` });
    apmt.put("USLAX", { containerId: BOX, readyForDelivery: "true" });
    expect(await poll()).toEqual({ kind: "temporary_failure", reason: "unrecognized_response" });
    expect(logText()).toContain("404");
  });

  it("a base URL that is not a URL (the factory called without the engine's validation) answers, never throws", async () => {
    const source = createApmtSource({ ...fakeApmtConfig({ W185: "USLAX" }), baseUrl: "not a url" }, {});
    const query = { containerNumber: BOX, facilityCode: "W185", scac: "MAEU" };
    expect(await source.poll(query, { nowMs: 0, fetch: new FakeApmt().fetch })).toEqual({
      kind: "temporary_failure",
      reason: "unrecognized_response",
    });
  });

  it("a list entry without a container id is unrecognized_response", async () => {
    const apmt = new FakeApmt();
    const source = createApmtSource(fakeApmtConfig({ W185: "USLAX" }), {});
    const fetcher: typeof fetch = async (input, init) =>
      String(input).includes("/import-availability")
        ? new Response(JSON.stringify([{ readyForDelivery: "true" }]), { status: 200 })
        : apmt.fetch(input, init);
    const query = { containerNumber: BOX, facilityCode: "W185", scac: "MAEU" };
    expect(await source.poll(query, { nowMs: 0, fetch: fetcher })).toEqual({
      kind: "temporary_failure",
      reason: "unrecognized_response",
    });
  });
});

describe("APMT source: OAuth (one token cache with the carriers)", () => {
  it("gets an Apigee token (token_type BearerToken, string expires_in) and sends it as a bearer", async () => {
    const { apmt, poll } = setup();
    apmt.put("USLAX", { containerId: BOX, readyForDelivery: "true" });
    expect(observation(await poll()).availableForPickup).toBe(true);
    const [tokenRequest] = apmt.tokenRequests;
    expect(tokenRequest?.method).toBe("POST");
    const form = new URLSearchParams(tokenRequest?.body);
    expect(form.get("grant_type")).toBe("client_credentials");
    expect(form.get("client_id")).toBe(FAKE_APMT_CLIENT_ID);
    expect(apmt.availabilityRequests[0]?.headers.get("Authorization")).toBe("Bearer apmt-token-1");
  });

  it("renews the token when its 30 minutes are up, and once on a 401 (revoked token)", async () => {
    const { apmt, poll } = setup();
    apmt.put("USLAX", { containerId: BOX, readyForDelivery: "true" });
    expect(await poll()).toMatchObject({ kind: "found" });
    apmt.nowMs = T0 + 20 * MINUTE;
    expect(await poll()).toMatchObject({ kind: "found" });
    expect(apmt.tokenRequests).toHaveLength(1);
    apmt.nowMs = T0 + 31 * MINUTE;
    expect(await poll()).toMatchObject({ kind: "found" });
    expect(apmt.tokenRequests).toHaveLength(2);
    apmt.forgetTokens();
    expect(await poll()).toMatchObject({ kind: "found" });
    expect(apmt.tokenRequests).toHaveLength(3);
    expect(apmt.availabilityRequests.map((r) => r.headers.get("Authorization"))).toEqual([
      "Bearer apmt-token-1",
      "Bearer apmt-token-1",
      "Bearer apmt-token-2",
      "Bearer apmt-token-2",
      "Bearer apmt-token-3",
    ]);
  });

  it("refused credentials → terminal_credentials_rejected, the token endpoint not asked again at once, no secret logged", async () => {
    const { apmt, poll } = setup({ secret: "a-wrong-secret" });
    apmt.put("USLAX", { containerId: BOX, readyForDelivery: "true" });
    const rejected = { kind: "temporary_failure", reason: "terminal_credentials_rejected" };
    expect(await poll()).toEqual(rejected);
    expect(await poll()).toEqual(rejected);
    expect(apmt.tokenRequests).toHaveLength(1);
    expect(apmt.availabilityRequests).toHaveLength(0);
    expect(logText()).toMatch(/refused the client credentials/);
    expect(logText()).not.toContain("a-wrong-secret");
  });

  it("uses the token broker it is given (the Worker's one cache for carriers and terminals)", async () => {
    const tokens = createTokenBroker();
    const { apmt, poll } = setup({ tokens });
    apmt.put("USLAX", { containerId: BOX, readyForDelivery: "true" });
    await poll();
    const cached = await tokens.token(fakeApmtConfig({}).auth, { fetch: apmt.fetch, nowMs: apmt.nowMs }, "test");
    expect(cached).toMatchObject({ kind: "token", token: { value: "apmt-token-1" } });
    expect(apmt.tokenRequests).toHaveLength(1);
  });
});

describe("APMT mapping rules", () => {
  it("classifies hold texts into docs/api.md §Holds names, keeping the text as description", () => {
    expect(
      ["CUSTOMS", "CBP EXAM", "FREIGHT", "LINE HOLD", "USDA", "VACIS", "TMF", "PIERPASS", "LANDING$", "NO GENSET"].map(
        apmtHoldName,
      ),
    ).toEqual(["customs", "customs", "freight", "freight", "USDA", "VACIS", "TMF", "TMF", "other", "other"]);
  });

  it("reads the older PascalCase variant: Holds list, Freight/Customs statuses, dates", () => {
    const obs = apmtObservation(
      {
        ContainerId: BOX,
        ReadyForDelivery: "No",
        Holds: ["NO GENSET"],
        Freight: "HOLD",
        Customs: "RELEASED",
        DischargedDate: "2024-06-05T14:10:00-07:00",
        StoragePaidThroughDate: "2024-06-09",
        GateOutDate: "",
        Demurrage: "0.00",
        YardLocation: "Y0709A",
      },
      { timeZone: "America/Los_Angeles", countryCode: "US", nowMs: T0, label: "test" },
    );
    expect(obs).toMatchObject({
      availabilityKnown: true,
      availableForPickup: false,
      holds: [
        { name: "other", status: "hold", description: "NO GENSET" },
        { name: "freight", status: "hold", description: "Freight: HOLD" },
      ],
      fees: [],
      dischargedAt: "2024-06-05T21:10:00Z",
      pickupLfd: "2024-06-09T07:00:00Z",
      fullOutAt: null,
      locationAtTerminal: "Y0709A",
    });
  });

  it("keeps a demurrage fee only with a known currency: USD in the US, the named code elsewhere", () => {
    expect(apmtDemurrage("0.00", "US")).toEqual([]);
    expect(apmtDemurrage(null, "NL")).toEqual([]);
    expect(apmtDemurrage("120.5", "US")).toEqual([{ type: "demurrage", amount: 120.5, currency_code: "USD" }]);
    expect(apmtDemurrage("EUR 120.00", "NL")).toEqual([{ type: "demurrage", amount: 120, currency_code: "EUR" }]);
    expect(apmtDemurrage("120.00", "NL")).toBeNull();
    expect(apmtDemurrage("n/a", "US")).toBeNull();
  });

  it("an LFD without a known zone is midnight at its stated offset, else midnight as if UTC", () => {
    expect(apmtLastFreeDay("2024-06-09T23:59:00+02:00", null)).toBe("2024-06-08T22:00:00Z");
    expect(apmtLastFreeDay("2024-06-09", null)).toBe("2024-06-09T00:00:00Z");
    expect(apmtLastFreeDay("2024-06-09", "Europe/Amsterdam")).toBe("2024-06-08T22:00:00Z");
    expect(apmtLastFreeDay("2024-02-30", "Europe/Amsterdam")).toBeNull();
  });

  it("a non-US terminal: zone from its port (Rotterdam), fee left out without a currency and reported", async () => {
    const { apmt, poll } = setup();
    apmt.put("NLRTM", {
      containerId: BOX,
      readyForDelivery: "true",
      storagePaidThroughDate: "2024-06-09",
      demurrageOwed: "310.00",
    });
    const obs = observation(await poll(BOX, "NLMVII"));
    expect(obs.pickupLfd).toBe("2024-06-08T22:00:00Z");
    expect(obs.fees).toEqual([]);
    expect(logText()).toContain("demurrageOwed");
  });

  it("provided_data: everything but the chassis number; Aarhus publishes no LFD, fees or yard location", () => {
    expect(APMT_PROVIDED_DATA).toEqual({
      pickup_lfd: true,
      pod_full_out_at: true,
      available_for_pickup: true,
      fees_at_pod_terminal: true,
      holds_at_pod_terminal: true,
      pickup_appointment_at: true,
      location_at_pod_terminal: true,
      pod_full_out_chassis_number: false,
    });
    expect(apmtProvidedData("dkaar")).toMatchObject({
      pickup_lfd: false,
      fees_at_pod_terminal: false,
      location_at_pod_terminal: false,
      available_for_pickup: true,
    });
    expect(apmtProvidedData("USLAX")).toEqual(APMT_PROVIDED_DATA);
    expect(apmtProvidedDataNotes("DKAAR").pickup_lfd).toMatch(/Aarhus/);
    expect(apmtProvidedDataNotes("USLAX").pickup_lfd).toMatch(/storage paid through/);
  });
});
