import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { createDcsaSource, DCSA_API_VERSION, parseDcsaSources } from "../../../src/tracking/sources/dcsa";
import type { ContainerFacts, LookupRequest, LookupResult, ShipmentFacts } from "../../../src/tracking/sources/types";
import {
  BOX_A,
  BOX_B,
  CALLS,
  equipmentEvent,
  JOURNEY_BL,
  JOURNEY_BOOKING,
  JOURNEY_EVENTS,
  SPEC_CURSOR,
  SPEC_EXAMPLE_EVENTS,
  SPEC_NEXT_PAGE,
  SPEC_SHIPMENT_EVENT,
  SPEC_TRANSPORT_CALL,
  transportEvent,
} from "../../fixtures/dcsa-events";

// The DCSA source against a fake DCSA Track & Trace 2.2 server (an injected fetch) that serves the spec's own
// example events and our journey built on them (test/fixtures/dcsa-events.ts), paged with Next-Page.

const BASE = "https://dcsa.example.test/track-and-trace";
const CONSUMER_KEY = "test-consumer-key-3f9a";
const CONFIG_JSON = JSON.stringify({ maeu: { baseUrl: `${BASE}/`, headers: { "Consumer-Key": CONSUMER_KEY } } });
const NOW_MS = Date.parse("2024-03-15T00:00:00Z");
const ISO_SECONDS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

interface Recorded {
  url: URL;
  headers: Headers;
  signal: AbortSignal | null;
}

type Handler = (url: URL, pageIndex: number) => Response | Promise<Response>;

/** A fetch that records every request and answers with `handler`. */
function recordingFetch(handler: Handler): { fetch: typeof fetch; requests: Recorded[] } {
  const requests: Recorded[] = [];
  const fake: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requests.push({ url, headers: new Headers(init?.headers), signal: init?.signal ?? null });
    return handler(url, requests.length - 1);
  };
  return { fetch: fake, requests };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "API-Version": "2.2.0", ...headers },
  });

/**
 * The fake DCSA server: `GET {BASE}/v2/events` answers only the expected filter (404 otherwise) and serves `events`
 * in three pages. Page 1 links to page 2 with the spec's Next-Page example (a bare cursor), page 2 to page 3 with an
 * absolute link carrying the spec's cursor example.
 */
function fakeDcsaServer(events: readonly unknown[], filter: { name: string; value: string }, pages = 3) {
  const size = Math.ceil(events.length / pages);
  const chunks = Array.from({ length: pages }, (_, i) => events.slice(i * size, (i + 1) * size));
  const thirdPageLink = `${BASE}/v2/events?cursor=${encodeURIComponent(SPEC_CURSOR)}`;
  return recordingFetch((url) => {
    if (url.origin + url.pathname !== `${BASE}/v2/events`) return json({ statusCode: 404 }, 404);
    const cursor = url.searchParams.get("cursor");
    if (cursor === null) {
      if (url.searchParams.get(filter.name) !== filter.value) return json({ statusCode: 404 }, 404);
      return json(chunks[0], 200, pages > 1 ? { "Next-Page": SPEC_NEXT_PAGE } : {});
    }
    if (cursor === SPEC_NEXT_PAGE) return json(chunks[1], 200, pages > 2 ? { "Next-Page": thirdPageLink } : {});
    if (cursor === SPEC_CURSOR) return json(chunks[2]);
    return json({ statusCode: 400, errors: [{ reason: "invalidCursor", message: cursor }] }, 400);
  });
}

function source(options?: Parameters<typeof createDcsaSource>[1]) {
  return createDcsaSource(parseDcsaSources(CONFIG_JSON), options);
}

const request = (requestType: string, number: string): LookupRequest => ({ requestType, number, scac: "MAEU" });

async function lookup(fake: typeof fetch, req: LookupRequest, options?: Parameters<typeof createDcsaSource>[1]) {
  return source(options).lookup(req, { nowMs: NOW_MS, fetch: fake });
}

function found(result: LookupResult): ShipmentFacts {
  if (result.kind !== "found") throw new Error(`expected found, got ${JSON.stringify(result)}`);
  return result.shipment;
}

function box(shipment: ShipmentFacts, number: string): ContainerFacts {
  const c = shipment.containers.find((x) => x.number === number);
  if (!c) throw new Error(`no container ${number} in ${shipment.containers.map((x) => x.number).join(",")}`);
  return c;
}

/** The milestones of a box as comparable rows. */
const rows = (c: ContainerFacts) =>
  (c.milestones ?? []).map((m) => [
    m.timestamp,
    m.event.replace("container.transport.", ""),
    m.estimated,
    m.locationLocode,
  ]);

const eventId = (raw: unknown) => (raw as { eventID?: string }).eventID;

let globalFetch: MockInstance;
// Kept as variables: in workerd `console.warn` reads back as a bound copy of the spy, not the spy itself.
let warn: MockInstance;
let error: MockInstance;
beforeEach(() => {
  // The source must only use ctx.fetch: any use of the global fetch fails the test.
  globalFetch = vi.spyOn(globalThis, "fetch").mockImplementation(() => {
    throw new Error("global fetch used");
  });
  warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  error = vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => {
  expect(globalFetch).not.toHaveBeenCalled();
  vi.restoreAllMocks();
});

describe("parseDcsaSources", () => {
  it("reads SCAC → base URL and headers, upper-casing the SCAC and dropping the trailing slash", () => {
    const configs = parseDcsaSources(CONFIG_JSON);
    expect([...configs.keys()]).toEqual(["MAEU"]);
    expect(configs.get("MAEU")).toEqual({
      baseUrl: BASE,
      auth: { type: "headers", headers: { "Consumer-Key": CONSUMER_KEY } },
      subscriptions: false,
    });
  });

  it("allows http only on localhost and 127.0.0.1, and defaults headers to none", () => {
    const configs = parseDcsaSources(
      JSON.stringify({
        ONEY: { baseUrl: "http://127.0.0.1:8788" },
        HLCU: { baseUrl: "http://localhost:9000/dcsa" },
        CMDU: { baseUrl: "http://dcsa.example.test" },
      }),
    );
    expect(configs.get("ONEY")).toEqual({
      baseUrl: "http://127.0.0.1:8788",
      auth: { type: "headers", headers: {} },
      subscriptions: false,
    });
    expect(configs.get("HLCU")?.baseUrl).toBe("http://localhost:9000/dcsa");
    expect(configs.has("CMDU")).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("CMDU"));
  });

  it.each([
    ["not a URL", { baseUrl: "dcsa.example.test" }],
    ["credentials in the URL", { baseUrl: "https://user:pw@dcsa.example.test" }],
    ["a query string", { baseUrl: "https://dcsa.example.test/?key=1" }],
    ["no baseUrl", { headers: { "Consumer-Key": "k" } }],
    ["a header value that is not a string", { baseUrl: "https://dcsa.example.test", headers: { "Consumer-Key": 42 } }],
    ["an invalid header name", { baseUrl: "https://dcsa.example.test", headers: { "Consumer Key": "k" } }],
    ["a header value with a line break", { baseUrl: "https://dcsa.example.test", headers: { X: "a\r\nB: c" } }],
    ["headers that are a list", { baseUrl: "https://dcsa.example.test", headers: ["k"] }],
  ])("skips an entry with %s, warning with the SCAC, keeping the valid ones", (_why, entry) => {
    const configs = parseDcsaSources(JSON.stringify({ MSCU: entry, MAEU: { baseUrl: BASE } }));
    expect(configs.has("MSCU")).toBe(false);
    expect(configs.has("MAEU")).toBe(true);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("MSCU"));
  });

  it("never logs header values of a skipped entry", () => {
    parseDcsaSources(
      JSON.stringify({ MSCU: { baseUrl: "http://evil.example", headers: { "Consumer-Key": "s3cr3t" } } }),
    );
    const logged = warn.mock.calls.flat().join(" ");
    expect(logged).toContain("MSCU");
    expect(logged).not.toContain("s3cr3t");
  });

  it("skips keys that are not SCACs", () => {
    const configs = parseDcsaSources(JSON.stringify({ "MAERSK LINE": { baseUrl: BASE }, M: { baseUrl: BASE } }));
    expect(configs.size).toBe(0);
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it.each([
    ["malformed JSON", "{MAEU:"],
    ["a JSON array", "[]"],
    ["JSON null", "null"],
    ["a JSON string", '"MAEU"'],
  ])("configures nothing, without throwing, from %s", (_why, text) => {
    expect(parseDcsaSources(text).size).toBe(0);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("configures nothing, silently, when unset or blank", () => {
    expect(parseDcsaSources(undefined).size).toBe(0);
    expect(parseDcsaSources("  ").size).toBe(0);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe("supports", () => {
  it("is true exactly for the configured SCACs, in any case", () => {
    const dcsa = source();
    expect(dcsa.name).toBe("Shipping line");
    expect(dcsa.supports("MAEU")).toBe(true);
    expect(dcsa.supports("maeu")).toBe(true);
    expect(dcsa.supports("MSCU")).toBe(false);
    expect(dcsa.supports("TEST")).toBe(false);
    expect(createDcsaSource(new Map()).supports("MAEU")).toBe(false);
  });
});

describe("the spec's own example events", () => {
  it("map to a shipment: the example ARRI ACT names the POD, the EMPTY LOAD EST and DRFT stay raw", async () => {
    const server = fakeDcsaServer(SPEC_EXAMPLE_EVENTS, { name: "equipmentReference", value: BOX_A }, 1);
    const shipment = found(await lookup(server.fetch, request("container", BOX_A)));

    expect(shipment).toMatchObject({
      billOfLadingNumber: "85943567-eedb-98d3-f4ed-aed697474ed4", // the example's TRD document reference
      portOfLadingLocode: null, // an empty load is repositioning, not this shipment's POL
      portOfDischargeLocode: "FRPAR",
      podTerminalCode: "ADT",
      podVesselName: "King of the Seas",
      podVesselImo: "9321483",
      podVoyageNumber: "2103N", // the import voyage of the arrival call
      podAtaAt: "2019-11-11T23:11:00Z", // 2019-11-12T07:41:00+08:30
      podEtaAt: null,
      destinationLocode: null,
    });
    expect(shipment.containers).toHaveLength(1);
    const c = box(shipment, BOX_A);
    expect(c).toMatchObject({
      sizeTypeCode: "22GP",
      equipmentLength: 20,
      equipmentHeight: "standard",
      equipmentType: "dry",
      sealNumber: "DCSA0001",
      weightInLbs: null,
    });
    expect(c.milestones).toEqual([
      {
        event: "container.transport.vessel_arrived",
        estimated: false,
        modeOfTransport: "VESSEL",
        timestamp: "2019-11-11T23:11:00Z",
        locationLocode: "FRPAR",
        facilityCode: "ADT",
        vesselName: "King of the Seas",
        vesselImo: "9321483",
        voyageNumber: "2103N",
        originalEvent: "TRANSPORT ARRI ACT",
        sourceEventId: "3cecb101-7a1a-43a4-9d62-e88a131651e2",
        raw: SPEC_EXAMPLE_EVENTS[0],
      },
    ]);
    expect(c.unmappedEvents).toEqual([SPEC_EXAMPLE_EVENTS[1]]);
    expect(shipment.unmappedEvents).toEqual([SPEC_EXAMPLE_EVENTS[2]]);
  });
});

describe("the journey, paged over three pages", () => {
  const blServer = () => fakeDcsaServer(JOURNEY_EVENTS, { name: "transportDocumentReference", value: JOURNEY_BL });

  it("sends the filter, limit, API-Version, Accept and configured headers, then follows the cursor and the link", async () => {
    const server = blServer();
    found(await lookup(server.fetch, request("bill_of_lading", JOURNEY_BL)));

    expect(server.requests.map((r) => r.url.href)).toEqual([
      `${BASE}/v2/events?transportDocumentReference=${JOURNEY_BL}&limit=100`,
      `${BASE}/v2/events?transportDocumentReference=${JOURNEY_BL}&limit=100&cursor=${SPEC_NEXT_PAGE}`,
      `${BASE}/v2/events?cursor=${encodeURIComponent(SPEC_CURSOR)}`,
    ]);
    for (const r of server.requests) {
      expect(r.headers.get("API-Version")).toBe(DCSA_API_VERSION);
      expect(r.headers.get("Accept")).toBe("application/json");
      expect(r.headers.get("Consumer-Key")).toBe(CONSUMER_KEY);
      expect(r.signal).toBeInstanceOf(AbortSignal);
    }
    expect(DCSA_API_VERSION).toBe("2"); // TNT 2.2: "MUST only contain MAJOR version"
  });

  it.each([
    ["container", BOX_A, "equipmentReference", JOURNEY_BL],
    ["bill_of_lading", JOURNEY_BL, "transportDocumentReference", JOURNEY_BL],
    ["booking", JOURNEY_BOOKING, "carrierBookingReference", JOURNEY_BOOKING],
    ["booking_number", JOURNEY_BOOKING, "carrierBookingReference", JOURNEY_BOOKING],
  ])("a %s request filters by %s", async (requestType, number, filter, billOfLadingNumber) => {
    const server = fakeDcsaServer(JOURNEY_EVENTS, { name: filter, value: number });
    const shipment = found(await lookup(server.fetch, request(requestType, number)));
    expect(server.requests[0]?.url.searchParams.get(filter)).toBe(number);
    expect([...(server.requests[0]?.url.searchParams.keys() ?? [])]).toEqual([filter, "limit"]);
    expect(shipment.billOfLadingNumber).toBe(billOfLadingNumber);
  });

  it("finds POL, transshipment, POD, the rail leg and the inland destination", async () => {
    const shipment = found(await lookup(blServer().fetch, request("bill_of_lading", JOURNEY_BL)));
    const { containers, unmappedEvents, ...facts } = shipment;
    expect(facts).toEqual({
      billOfLadingNumber: JOURNEY_BL,
      portOfLadingLocode: "CNYTN",
      portOfDischargeLocode: "FRLEH",
      podTerminalCode: "GMP",
      destinationLocode: "FRPAR",
      destinationTerminalCode: "ADT",
      podVesselName: "King of the Seas",
      podVesselImo: "9321483",
      podVoyageNumber: "2103N",
      polEtdAt: "2024-02-05T18:00:00Z", // the newest estimate (EST over the older PLN)
      polAtdAt: "2024-02-05T19:15:00Z",
      podEtaAt: "2024-03-06T21:00:00Z", // newest report, though earlier than the estimate before it
      podAtaAt: "2024-03-06T22:30:00Z",
      destinationEtaAt: "2024-03-09T05:00:00Z",
      destinationAtaAt: "2024-03-09T04:40:00Z",
    });
    expect(containers.map((c) => c.number)).toEqual([BOX_A, BOX_B]);
    expect(unmappedEvents).toHaveLength(3);
  });

  it("maps every DCSA code, classifier and mode of box A to our events, sorted by time", async () => {
    const shipment = found(await lookup(blServer().fetch, request("bill_of_lading", JOURNEY_BL)));
    expect(rows(box(shipment, BOX_A))).toEqual([
      ["2024-02-01T01:00:00Z", "empty_out", false, "CNYTN"], // EQUIPMENT GTOT EMPTY before the first load
      ["2024-02-03T06:00:00Z", "full_in", false, "CNYTN"], // GTIN LADEN at the POL
      ["2024-02-05T14:10:00Z", "vessel_loaded", false, "CNYTN"], // first vessel LOAD
      ["2024-02-05T18:00:00Z", "vessel_departed", true, "CNYTN"], // TRANSPORT DEPA EST at the POL
      ["2024-02-05T19:15:00Z", "vessel_departed", false, "CNYTN"], // DEPA ACT at the POL
      ["2024-02-08T22:00:00Z", "transshipment_arrived", false, "MYTPP"],
      ["2024-02-09T03:00:00Z", "transshipment_discharged", false, "MYTPP"],
      ["2024-02-12T00:00:00Z", "transshipment_loaded", false, "MYTPP"],
      ["2024-02-12T12:00:00Z", "transshipment_departed", false, "MYTPP"],
      ["2024-03-06T21:00:00Z", "vessel_arrived", true, "FRLEH"], // the newest ARRI EST only
      ["2024-03-06T22:30:00Z", "vessel_arrived", false, "FRLEH"], // ARRI ACT at the POD
      ["2024-03-07T09:00:00Z", "vessel_discharged", false, "FRLEH"], // last vessel DISC
      ["2024-03-08T08:00:00Z", "rail_loaded", false, "FRLEH"], // RAIL after the POD
      ["2024-03-08T13:00:00Z", "rail_departed", false, "FRLEH"],
      ["2024-03-09T04:40:00Z", "rail_arrived", false, "FRPAR"],
      ["2024-03-09T04:40:00Z", "arrived_at_inland_destination", false, "FRPAR"], // the last rail arrival
      ["2024-03-09T05:00:00Z", "rail_arrived", true, "FRPAR"],
      ["2024-03-09T05:00:00Z", "arrived_at_inland_destination", true, "FRPAR"],
      ["2024-03-09T07:00:00Z", "rail_unloaded", false, "FRPAR"],
      ["2024-03-10T08:00:00Z", "full_out", false, "FRPAR"], // GTOT LADEN after the POD
      ["2024-03-12T15:00:00Z", "empty_in", false, "FRPAR"], // GTIN EMPTY after the full-out
    ]);
  });

  it("keeps upstream wording, event ids and vessel/voyage per leg on each milestone", async () => {
    const shipment = found(await lookup(blServer().fetch, request("bill_of_lading", JOURNEY_BL)));
    const milestones = box(shipment, BOX_A).milestones ?? [];
    const byEvent = (name: string, estimated = false) =>
      milestones.find((m) => m.event === `container.transport.${name}` && m.estimated === estimated);
    expect(byEvent("vessel_loaded")).toMatchObject({
      originalEvent: "EQUIPMENT LOAD ACT",
      sourceEventId: "00000000-0000-4000-8000-000000000103",
      facilityCode: "YICT",
      vesselName: "DCSA TRADER",
      vesselImo: "9700001",
      voyageNumber: "401W",
    });
    expect(byEvent("vessel_arrived", true)).toMatchObject({
      originalEvent: "TRANSPORT ARRI EST",
      sourceEventId: "00000000-0000-4000-8000-000000000309",
      vesselName: "King of the Seas",
      voyageNumber: "2103N",
    });
    expect(byEvent("transshipment_loaded")).toMatchObject({ vesselName: "King of the Seas", voyageNumber: "2103S" });
    expect(byEvent("rail_loaded")).toMatchObject({
      originalEvent: "EQUIPMENT LOAD ACT",
      facilityCode: "LHRMP",
      vesselName: null,
      vesselImo: null,
      voyageNumber: null,
    });
    expect(byEvent("full_out")).toMatchObject({ originalEvent: "EQUIPMENT GTOT ACT", facilityCode: "ADT" });
  });

  it("fills the box facts: size type, equipment, seal and the POL times from actual milestones", async () => {
    const shipment = found(await lookup(blServer().fetch, request("bill_of_lading", JOURNEY_BL)));
    const { milestones: _a, unmappedEvents: _ua, ...a } = box(shipment, BOX_A);
    expect(a).toEqual({
      number: BOX_A,
      sizeTypeCode: "22GP",
      sealNumber: "CN1234567",
      equipmentType: "dry",
      equipmentLength: 20,
      equipmentHeight: "standard",
      weightInLbs: null,
      emptyOutAt: "2024-02-01T01:00:00Z",
      polFullInAt: "2024-02-03T06:00:00Z",
      polVesselLoadedAt: "2024-02-05T14:10:00Z",
      polVesselDepartedAt: "2024-02-05T19:15:00Z",
    });
    const b = box(shipment, BOX_B);
    expect(b).toMatchObject({
      sizeTypeCode: "45G1",
      equipmentLength: 40,
      equipmentHeight: "high_cube",
      sealNumber: null,
      emptyOutAt: "2024-02-01T02:30:00Z",
      polVesselLoadedAt: "2024-02-05T14:40:00Z",
      polVesselDepartedAt: "2024-02-05T19:15:00Z", // the vessel's DEPA, fanned out to both boxes
    });
    // Box B's empty return is a DROP at a depot (the CSV's alternative to GTIN EMPTY).
    expect(b.milestones?.at(-1)).toMatchObject({
      event: "container.transport.empty_in",
      originalEvent: "EQUIPMENT DROP ACT",
      timestamp: "2024-03-13T09:00:00Z",
    });
  });

  it("keeps every event received as a raw event: in a milestone or in an unmapped list", async () => {
    const shipment = found(await lookup(blServer().fetch, request("bill_of_lading", JOURNEY_BL)));
    const kept = new Map<string, unknown>();
    for (const c of shipment.containers) {
      for (const m of c.milestones ?? []) kept.set(eventId(m.raw) ?? "", m.raw);
      for (const raw of c.unmappedEvents ?? []) kept.set(eventId(raw) ?? "", raw);
    }
    for (const raw of shipment.unmappedEvents ?? []) kept.set(eventId(raw) ?? "", raw);
    expect([...kept.keys()].sort()).toEqual(JOURNEY_EVENTS.map((e) => e.eventID).sort());
    for (const e of JOURNEY_EVENTS) expect(kept.get(e.eventID)).toEqual(JSON.parse(JSON.stringify(e)));
  });

  it("puts what has no mapping where it belongs: DROP at the customer, STRP, superseded estimates, POL arrival, documents", async () => {
    const shipment = found(await lookup(blServer().fetch, request("bill_of_lading", JOURNEY_BL)));
    const ids = (list: unknown[] | undefined) => (list ?? []).map(eventId).map((x) => x?.slice(-3));
    // 110 DROP at CLOC (delivered is manual only), 111 STRP, 302 DEPA PLN and 307/308 ARRI PLN/EST superseded.
    expect(ids(box(shipment, BOX_A).unmappedEvents).sort()).toEqual(["110", "111", "302", "307", "308"]);
    expect(ids(box(shipment, BOX_B).unmappedEvents).sort()).toEqual(["302", "307", "308"]);
    // 301 is the vessel's arrival at the POL (no event of ours), then the two SHIPMENT events.
    expect(ids(shipment.unmappedEvents).sort()).toEqual(["003", "301", "401"]);
    const delivered = shipment.containers
      .flatMap((c) => c.milestones ?? [])
      .filter((m) => m.event.endsWith("delivered"));
    expect(delivered).toEqual([]);
  });

  it("normalises every timestamp to UTC, second precision, Z", async () => {
    const shipment = found(await lookup(blServer().fetch, request("bill_of_lading", JOURNEY_BL)));
    const all = shipment.containers.flatMap((c) => c.milestones ?? []);
    expect(all.length).toBeGreaterThan(30);
    for (const m of all) expect(m.timestamp).toMatch(ISO_SECONDS_Z);
    // 2024-03-07T10:00:00.750+01:00: the offset applied, the fraction dropped.
    expect(all.find((m) => m.sourceEventId?.endsWith("106"))?.timestamp).toBe("2024-03-07T09:00:00Z");
  });
});

/** A one-page server for hand-made events; any filter. */
const serve = (events: unknown[]) => recordingFetch(() => json(events)).fetch;

describe("mapping rules", () => {
  const pol = CALLS.pol;
  const ts = CALLS.transshipmentIn;
  const pod = CALLS.pod;

  it.each([
    ["ACT", false],
    ["EST", true],
    ["PLN", true],
  ] as const)("eventClassifierCode %s → estimated %s", async (classifier, estimated) => {
    const events = [
      equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", classifier, at: "2024-02-05T22:10:00+08:00", call: pol }),
    ];
    const m = box(found(await lookup(serve(events), request("container", BOX_A))), BOX_A).milestones ?? [];
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({
      event: "container.transport.vessel_loaded",
      estimated,
      originalEvent: `EQUIPMENT LOAD ${classifier}`,
    });
  });

  it("a planned POD arrival names the POD while the box is still at the transshipment port", async () => {
    const events = [
      equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: pol }),
      transportEvent({ n: 2, code: "DEPA", at: "2024-02-06T03:15:00+08:00", call: pol }),
      transportEvent({ n: 3, code: "ARRI", at: "2024-02-09T06:00:00+08:00", call: ts }),
      equipmentEvent({ n: 4, box: BOX_A, code: "DISC", at: "2024-02-09T11:00:00+08:00", call: ts }),
      transportEvent({
        n: 5,
        code: "ARRI",
        classifier: "PLN",
        at: "2024-03-05T06:00:00+01:00",
        created: "2024-01-20T00:00:00Z",
        call: pod,
      }),
    ];
    const shipment = found(await lookup(serve(events), request("bill_of_lading", JOURNEY_BL)));
    expect(shipment).toMatchObject({
      portOfLadingLocode: "CNYTN",
      portOfDischargeLocode: "FRLEH",
      podEtaAt: "2024-03-05T05:00:00Z",
      podAtaAt: null,
    });
    expect(rows(box(shipment, BOX_A)).map((r) => r[1])).toEqual([
      "vessel_loaded",
      "vessel_departed",
      "transshipment_arrived",
      "transshipment_discharged",
      "vessel_arrived",
    ]);
    expect(box(shipment, BOX_A).milestones?.at(-1)?.estimated).toBe(true);
  });

  it("without word of a later call, the last vessel discharge is the POD", async () => {
    const events = [
      equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: pol }),
      equipmentEvent({ n: 2, box: BOX_A, code: "DISC", at: "2024-02-09T11:00:00+08:00", call: ts }),
    ];
    const shipment = found(await lookup(serve(events), request("container", BOX_A)));
    expect(shipment.portOfDischargeLocode).toBe("MYTPP");
    expect(rows(box(shipment, BOX_A)).map((r) => r[1])).toEqual(["vessel_loaded", "vessel_discharged"]);
  });

  it("a POD terminal named the SMDG way (USLAX, APMT) resolves to the terminal's FIRMS code W185", async () => {
    const laxApm = { ...pod, transportCallID: "call-uslax-apmt-2103n", UNLocationCode: "USLAX", facilityCode: "APMT" };
    const events = [
      equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: pol }),
      equipmentEvent({ n: 2, box: BOX_A, code: "DISC", at: "2024-02-20T11:00:00-08:00", call: laxApm }),
    ];
    const shipment = found(await lookup(serve(events), request("container", BOX_A)));
    expect(shipment.portOfDischargeLocode).toBe("USLAX");
    expect(shipment.podTerminalCode).toBe("W185");
  });

  it("an unknown facility keeps its code as given, on the shipment and on the milestone", async () => {
    const unknown = { ...pod, transportCallID: "call-uslax-zz-2103n", UNLocationCode: "USLAX", facilityCode: "ZZQX" };
    const events = [
      equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: pol }),
      equipmentEvent({ n: 2, box: BOX_A, code: "DISC", at: "2024-02-20T11:00:00-08:00", call: unknown }),
    ];
    const shipment = found(await lookup(serve(events), request("container", BOX_A)));
    expect(shipment.podTerminalCode).toBe("ZZQX");
    const discharge = (box(shipment, BOX_A).milestones ?? []).find((m) => m.event.endsWith("vessel_discharged"));
    expect(discharge).toMatchObject({ locationLocode: "USLAX", facilityCode: "ZZQX" });
  });

  it("keeps the carrier's name of the place (locationName) on the milestone, only when it gives one", async () => {
    const gate = equipmentEvent({
      n: 1,
      box: BOX_A,
      code: "GTOT",
      empty: "EMPTY",
      at: "2024-02-01T09:00:00Z",
      locode: "XXZZQ",
    });
    const named = { ...gate, eventLocation: { ...gate.eventLocation, locationName: "Nowhere Creek" } };
    const [withName] = box(found(await lookup(serve([named]), request("container", BOX_A))), BOX_A).milestones ?? [];
    expect(withName).toMatchObject({ locationLocode: "XXZZQ", locationName: "Nowhere Creek" });
    const [without] = box(found(await lookup(serve([gate]), request("container", BOX_A))), BOX_A).milestones ?? [];
    expect(without).not.toHaveProperty("locationName");
  });

  it("BARGE moves are feeder_*; the ocean POL is the first vessel load after the barge", async () => {
    const barge = {
      ...CALLS.railOut,
      transportCallID: "barge-1",
      modeOfTransport: "BARGE",
      UNLocationCode: "DEDUI",
      facilityCode: "DUI",
    };
    const bargeIn = { ...barge, transportCallID: "barge-2", UNLocationCode: "NLRTM", facilityCode: "ECT" };
    const ocean = { ...SPEC_TRANSPORT_CALL, transportCallID: "ocean-1", UNLocationCode: "NLRTM", facilityCode: "ECT" };
    const oceanIn = {
      ...SPEC_TRANSPORT_CALL,
      transportCallID: "ocean-2",
      UNLocationCode: "USNYC",
      facilityCode: "APM",
    };
    const events = [
      equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-01-01T08:00:00Z", call: barge }),
      transportEvent({ n: 2, code: "DEPA", at: "2024-01-01T10:00:00Z", call: barge }),
      transportEvent({ n: 3, code: "ARRI", at: "2024-01-03T10:00:00Z", call: bargeIn }),
      equipmentEvent({ n: 4, box: BOX_A, code: "DISC", at: "2024-01-03T12:00:00Z", call: bargeIn }),
      equipmentEvent({ n: 5, box: BOX_A, code: "LOAD", at: "2024-01-05T12:00:00Z", call: ocean }),
      transportEvent({ n: 6, code: "DEPA", at: "2024-01-05T20:00:00Z", call: ocean }),
      transportEvent({ n: 7, code: "ARRI", at: "2024-01-15T20:00:00Z", call: oceanIn }),
      equipmentEvent({ n: 8, box: BOX_A, code: "DISC", at: "2024-01-16T08:00:00Z", call: oceanIn }),
    ];
    const shipment = found(await lookup(serve(events), request("container", BOX_A)));
    expect([shipment.portOfLadingLocode, shipment.portOfDischargeLocode, shipment.podTerminalCode]).toEqual([
      "NLRTM",
      "USNYC",
      "APM",
    ]);
    expect(rows(box(shipment, BOX_A)).map((r) => r[1])).toEqual([
      "feeder_loaded",
      "feeder_departed",
      "feeder_arrived",
      "feeder_discharged",
      "vessel_loaded",
      "vessel_departed",
      "vessel_arrived",
      "vessel_discharged",
    ]);
  });

  it("has no event of ours for TRUCK loads, EMPTY vessel moves, export rail and out-of-place gates", async () => {
    const truck = CALLS.truckOut;
    const exportRail = { ...CALLS.railOut, transportCallID: "rail-export", UNLocationCode: "CNSZX" };
    const events = [
      equipmentEvent({
        n: 1,
        box: BOX_A,
        code: "GTIN",
        empty: "EMPTY",
        at: "2024-01-30T08:00:00+08:00",
        locode: "CNYTN",
      }), // no full-out yet
      equipmentEvent({
        n: 2,
        box: BOX_A,
        code: "LOAD",
        empty: "EMPTY",
        at: "2024-01-31T08:00:00+08:00",
        call: CALLS.transshipmentIn,
      }), // repositioning
      equipmentEvent({ n: 3, box: BOX_A, code: "LOAD", at: "2024-02-02T08:00:00+08:00", call: exportRail }), // rail before the POD
      equipmentEvent({ n: 4, box: BOX_A, code: "GTIN", at: "2024-02-03T14:00:00+08:00", locode: "CNSHK" }), // full-in away from the POL
      equipmentEvent({ n: 5, box: BOX_A, code: "GTOT", at: "2024-02-04T14:00:00+08:00", locode: "CNYTN" }), // full-out before the POD
      equipmentEvent({ n: 6, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: pol }),
      equipmentEvent({ n: 7, box: BOX_A, code: "INSP", at: "2024-02-20T10:00:00+01:00", locode: "FRLEH" }),
      equipmentEvent({ n: 8, box: BOX_A, code: "DISC", at: "2024-03-07T10:00:00+01:00", call: pod }),
      equipmentEvent({ n: 9, box: BOX_A, code: "LOAD", at: "2024-03-08T10:00:00+01:00", call: truck }), // truck load
      equipmentEvent({
        n: 10,
        box: BOX_A,
        code: "DROP",
        empty: "EMPTY",
        at: "2024-03-12T10:00:00+01:00",
        call: CALLS.truckToCustomer,
      }), // an empty drop at the customer is no empty return
      equipmentEvent({
        n: 11,
        box: BOX_A,
        code: "GTOT",
        empty: "EMPTY",
        at: "2024-03-14T10:00:00+01:00",
        locode: "FRPAR",
      }), // empty out after the journey
    ];
    const shipment = found(await lookup(serve(events), request("container", BOX_A)));
    const c = box(shipment, BOX_A);
    expect(rows(c).map((r) => r[1])).toEqual(["vessel_loaded", "vessel_discharged"]);
    expect(
      (c.unmappedEvents ?? [])
        .map(eventId)
        .map((x) => Number(x?.slice(-2)))
        .sort((x, y) => x - y),
    ).toEqual([1, 2, 3, 4, 5, 7, 9, 10, 11]);
  });

  it("a box rolled to a later vessel has its own POL call; a transport event goes only to the boxes on its call", async () => {
    const rolled = { ...CALLS.pol, transportCallID: "call-cnytn-next-week" };
    const events = [
      equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: pol }),
      equipmentEvent({ n: 2, box: BOX_B, code: "LOAD", at: "2024-02-12T22:10:00+08:00", call: rolled }),
      transportEvent({ n: 3, code: "DEPA", at: "2024-02-06T03:15:00+08:00", call: pol }),
      transportEvent({ n: 4, code: "ARRI", classifier: "EST", at: "2024-03-06T22:00:00+01:00", call: pod }),
    ];
    const shipment = found(await lookup(serve(events), request("bill_of_lading", JOURNEY_BL)));
    expect(rows(box(shipment, BOX_A)).map((r) => r[1])).toEqual(["vessel_loaded", "vessel_departed", "vessel_arrived"]);
    // B was not on the first vessel: no DEPA of it; the POD arrival (a call no box is seen at yet) goes to both.
    expect(rows(box(shipment, BOX_B)).map((r) => r[1])).toEqual(["vessel_loaded", "vessel_arrived"]);
    expect(box(shipment, BOX_B).polVesselLoadedAt).toBe("2024-02-12T14:10:00Z");
    expect(shipment.portOfLadingLocode).toBe("CNYTN");
  });

  it("normalises offsets, fractions, Z and offset-less local times (the port's zone when known, else UTC)", async () => {
    const cases: [string, string | undefined, string][] = [
      ["2019-11-12T07:41:00+08:30", "FRPAR", "2019-11-11T23:11:00Z"], // the spec's eventDateTime example
      ["2024-02-01T09:00:00.999+08:00", "CNYTN", "2024-02-01T01:00:00Z"],
      ["2024-02-01T09:00:00-05:00", "USNYC", "2024-02-01T14:00:00Z"],
      ["2024-02-01T09:00:00+0530", "INNSA", "2024-02-01T03:30:00Z"],
      ["2024-02-01T09:00:00.5Z", "NLRTM", "2024-02-01T09:00:00Z"],
      ["2024-07-01T10:00:00", "USLAX", "2024-07-01T17:00:00Z"], // America/Los_Angeles, PDT
      ["2024-01-15T10:00:00", "USLAX", "2024-01-15T18:00:00Z"], // PST
      ["2024-07-01T10:00:00", "MYTPP", "2024-07-01T02:00:00Z"], // Asia/Kuala_Lumpur (a zone since issue 12)
      ["2024-07-01T10:00:00", "XXZZQ", "2024-07-01T10:00:00Z"], // no such port, zone unknown: read as UTC
    ];
    const events = cases.map(([at, locode], i) =>
      equipmentEvent({ n: i + 1, box: `TSTU${String(i).padStart(7, "0")}`, code: "GTOT", empty: "EMPTY", at, locode }),
    );
    const shipment = found(await lookup(serve(events), request("bill_of_lading", JOURNEY_BL)));
    expect(shipment.containers.map((c) => c.milestones?.[0]?.timestamp)).toEqual(cases.map((c) => c[2]));
  });

  it("drops a repeated eventID when pages overlap", async () => {
    const load = equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: pol });
    const server = recordingFetch((_url, page) =>
      page === 0 ? json([load], 200, { "Next-Page": "/track-and-trace/v2/events?cursor=p2" }) : json([load]),
    );
    const shipment = found(await lookup(server.fetch, request("container", BOX_A)));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.url.href).toBe(`${BASE}/v2/events?cursor=p2`);
    expect(box(shipment, BOX_A).milestones).toHaveLength(1);
  });
});

describe("paging limits", () => {
  const event = equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: CALLS.pol });

  it("stops a server that never stops paging at 50 pages and reports an unrecognized response", async () => {
    const server = recordingFetch((_url, page) => json([event], 200, { "Next-Page": `cursor-${page + 1}` }));
    expect(await lookup(server.fetch, request("container", BOX_A))).toEqual({
      kind: "temporary_failure",
      reason: "unrecognized_response",
    });
    expect(server.requests).toHaveLength(50);
    expect(server.requests[49]?.url.searchParams.get("cursor")).toBe("cursor-49");
  });

  it("honours a smaller page cap", async () => {
    const server = recordingFetch((_url, page) => json([event], 200, { "Next-Page": `cursor-${page + 1}` }));
    const result = await lookup(server.fetch, request("container", BOX_A), { maxPages: 3 });
    expect(result).toMatchObject({ kind: "temporary_failure", reason: "unrecognized_response" });
    expect(server.requests).toHaveLength(3);
  });

  it("stops at once when Next-Page repeats itself", async () => {
    const server = recordingFetch(() => json([event], 200, { "Next-Page": "same-cursor" }));
    const result = await lookup(server.fetch, request("container", BOX_A));
    expect(result).toMatchObject({ kind: "temporary_failure", reason: "unrecognized_response" });
    expect(server.requests).toHaveLength(2);
  });

  it("does not follow a Next-Page link to another origin (the headers carry credentials)", async () => {
    const server = recordingFetch(() =>
      json([event], 200, { "Next-Page": "https://elsewhere.example/v2/events?cursor=x" }),
    );
    const result = await lookup(server.fetch, request("container", BOX_A));
    expect(result).toMatchObject({ kind: "temporary_failure", reason: "unrecognized_response" });
    expect(server.requests).toHaveLength(1);
    expect(error).toHaveBeenCalled();
  });
});

describe("not found", () => {
  const onlyDocuments = [SPEC_SHIPMENT_EVENT];
  it.each([
    ["container", BOX_A, 404, null, "not_found"],
    ["bill_of_lading", JOURNEY_BL, 404, null, "awaiting_manifest"],
    ["booking", JOURNEY_BOOKING, 404, null, "awaiting_manifest"],
    ["container", BOX_A, 200, [], "not_found"],
    ["bill_of_lading", JOURNEY_BL, 200, [], "awaiting_manifest"],
    ["booking_number", JOURNEY_BOOKING, 200, [], "awaiting_manifest"],
    ["container", BOX_A, 200, onlyDocuments, "not_found"],
    ["bill_of_lading", JOURNEY_BL, 200, onlyDocuments, "awaiting_manifest"],
  ])("%s %s answered %d %j → %s", async (requestType, number, status, body, kind) => {
    const server = recordingFetch(() => json(body ?? { statusCode: 404 }, status));
    expect(await lookup(server.fetch, request(requestType, number))).toEqual({ kind });
    expect(server.requests).toHaveLength(1);
  });
});

describe("temporary failures", () => {
  const unreachable = { kind: "temporary_failure", reason: "shipping_line_unreachable" };
  const unrecognized = { kind: "temporary_failure", reason: "unrecognized_response" };
  const good = equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: CALLS.pol });

  it.each([500, 502, 503, 504, 429, 408])("HTTP %d → shipping_line_unreachable", async (status) => {
    const server = recordingFetch(() => json({ statusCode: status }, status));
    expect(await lookup(server.fetch, request("container", BOX_A))).toEqual(unreachable);
  });

  // Not logged per request: the engine logs the line's outage once (test/tracking/source-health.test.ts, issue 13).
  it.each([401, 403])("HTTP %d → shipping_line_credentials_rejected, not logged per request", async (status) => {
    const server = recordingFetch(() => json({ statusCode: status }, status));
    expect(await lookup(server.fetch, request("container", BOX_A))).toEqual({
      kind: "temporary_failure",
      reason: "shipping_line_credentials_rejected",
    });
    expect(error).not.toHaveBeenCalled();
  });

  it("HTTP 400 → unrecognized_response", async () => {
    const server = recordingFetch(() => json({ statusCode: 400 }, 400));
    expect(await lookup(server.fetch, request("container", BOX_A))).toEqual(unrecognized);
  });

  it("a network error → shipping_line_unreachable", async () => {
    const failing: typeof fetch = async () => {
      throw new TypeError("Network connection lost.");
    };
    expect(await lookup(failing, request("container", BOX_A))).toEqual(unreachable);
  });

  it("a server that never answers → shipping_line_unreachable after the per-request timeout", async () => {
    let signal: AbortSignal | undefined;
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        signal = init?.signal ?? undefined;
        signal?.addEventListener("abort", () => reject(signal?.reason));
      });
    expect(await lookup(hanging, request("container", BOX_A), { timeoutMs: 20 })).toEqual(unreachable);
    expect(signal?.aborted).toBe(true);
  });

  it.each([
    ["not JSON", () => new Response("<html>Gateway</html>", { status: 200 })],
    ["JSON that is not a list", () => json({ events: [good] })],
    ["a list of non-objects", () => json([1, 2])],
    [
      "an event without its transport call",
      () =>
        json([
          {
            ...transportEvent({ n: 9, code: "ARRI", at: "2024-01-01T00:00:00Z", call: CALLS.pod }),
            transportCall: undefined,
          },
        ]),
    ],
    ["an unknown eventClassifierCode", () => json([{ ...good, eventClassifierCode: "REQ" }])],
    ["an eventDateTime that is not a date-time", () => json([{ ...good, eventDateTime: "yesterday" }])],
    ["an impossible date", () => json([{ ...good, eventDateTime: "2024-02-30T10:00:00Z" }])],
    ["an emptyIndicatorCode outside the enum", () => json([{ ...good, emptyIndicatorCode: "FULL" }])],
  ])("a body with %s → unrecognized_response", async (_why, answer) => {
    const server = recordingFetch(() => answer());
    expect(await lookup(server.fetch, request("container", BOX_A))).toEqual(unrecognized);
  });

  it("tolerates fields and event types it does not know, keeping them as raw", async () => {
    const future = { eventType: "OPERATIONS", eventID: "op-1", eventDateTime: "2024-01-01T00:00:00Z" };
    const server = recordingFetch(() => json([{ ...good, carrierExtension: { x: 1 } }, future]));
    const shipment = found(await lookup(server.fetch, request("container", BOX_A)));
    expect(box(shipment, BOX_A).milestones?.[0]?.raw).toMatchObject({ carrierExtension: { x: 1 } });
    expect(shipment.unmappedEvents).toEqual([future]);
  });

  it.each([
    [500, unreachable],
    [404, unrecognized], // a cursor the server no longer knows
  ])("a later page answering %d fails the whole lookup", async (status, expected) => {
    const server = recordingFetch((_url, page) =>
      page === 0 ? json([good], 200, { "Next-Page": "cursor-2" }) : json({ statusCode: status }, status),
    );
    expect(await lookup(server.fetch, request("container", BOX_A))).toEqual(expected);
    expect(server.requests).toHaveLength(2);
  });

  it("an unconfigured SCAC → shipping_line_unreachable, without any request", async () => {
    const server = recordingFetch(() => json([good]));
    const result = await source().lookup(
      { requestType: "container", number: BOX_A, scac: "MSCU" },
      { nowMs: NOW_MS, fetch: server.fetch },
    );
    expect(result).toEqual(unreachable);
    expect(server.requests).toHaveLength(0);
  });
});
