import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  collect,
  findIncluded,
  normaliseBaseUrl,
  relationshipMany,
  relationshipOne,
  TrackingClient,
  type TrackingClientError,
} from "../../src/client";
import { BASE, createAccount, type TestAccount } from "../helpers/api";
import { insertTrackingRequests, trackSandboxShipment } from "../helpers/tracking";

// The typed REST client (src/client) against the real Worker: every request goes through the Worker's own fetch
// handler (exports.default.fetch, injected as the client's fetch), with real D1, Durable Objects and rate limits.

/** The port USLAX (reference data id). */
const USLAX_ID = "7f489361-09f1-5853-a300-c72f23604b40";

/** The Worker's fetch handler as the client's transport. */
const workerFetch = (request: Request) => exports.default.fetch(request);

function clientFor(account: TestAccount, options: Partial<ConstructorParameters<typeof TrackingClient>[0]> = {}) {
  return new TrackingClient({ apiKey: account.key, baseUrl: BASE, fetch: workerFetch, ...options });
}

/**
 * Writes three transport events and two raw events (one an estimate) for one of `account`'s containers straight
 * into D1: trackSandboxShipment leaves none.
 */
async function seedEvents(account: TestAccount, containerId: string, shipmentId: string): Promise<void> {
  const prefix = crypto.randomUUID().slice(0, 8);
  const transport = [
    ["container.transport.vessel_loaded", "2025-05-01T10:00:00Z", "CNYTN", "Asia/Shanghai"],
    ["container.transport.vessel_departed", "2025-05-02T10:00:00Z", "CNYTN", "Asia/Shanghai"],
    ["container.transport.vessel_arrived", "2025-05-20T10:00:00Z", "USLAX", "America/Los_Angeles"],
  ];
  await env.DB.batch([
    ...transport.map(([event, at, locode, zone], i) =>
      env.DB.prepare(
        `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, voyage_number, timestamp,
           timezone, location_locode, data_source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, '001E', ?6, ?7, ?8, 'shipping_line', '2025-06-01T00:00:00Z')`,
      ).bind(`${prefix}-t${i}`, account.accountId, containerId, shipmentId, event, at, zone, locode),
    ),
    ...[
      ["vessel_departed", "Vessel departed", "2025-05-02T10:00:00Z", 0],
      ["vessel_arrived", "Vessel arrival (estimated)", "2025-05-20T10:00:00Z", 1],
    ].map(([event, original, at, estimated], i) =>
      env.DB.prepare(
        `INSERT INTO raw_events (id, account_id, container_id, "index", event, original_event, timestamp, estimated,
           location, location_locode, timezone, data_source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'USLAX', 'America/Los_Angeles', 'shipping_line',
           '2025-06-01T00:00:00Z')`,
      ).bind(`${prefix}-r${i}`, account.accountId, containerId, i, event, original, at, estimated, USLAX_ID),
    ),
  ]);
}

/** Runs `call` and returns the TrackingClientError it rejects with (fails the test when it resolves). */
async function failure(call: Promise<unknown>): Promise<TrackingClientError> {
  try {
    await call;
  } catch (err) {
    if ((err as Error).name === "TrackingClientError") return err as TrackingClientError;
    throw err;
  }
  throw new Error("expected the call to fail");
}

describe("TrackingClient: reads", () => {
  it("gets a sandbox shipment's containers, with the shipment included and typed attributes", async () => {
    const account = await createAccount();
    const { shipment, containerIds } = await trackSandboxShipment(account);
    const client = clientFor(account);

    const list = await client.containers.list({ include: ["shipment"], filter: { shipment_id: shipment.id } });
    expect(list.data.map((c) => c.id).sort()).toEqual([...containerIds].sort());
    expect(list.meta.total).toBe(2);
    const first = list.data[0];
    if (!first) throw new Error("no container");
    expect(first.type).toBe("container");
    expect(first.attributes.number).toMatch(/^[A-Z]{4}\d{7}$/);
    const linkage = relationshipOne(first, "shipment");
    expect(linkage).toEqual({ id: shipment.id, type: "shipment" });
    expect(findIncluded(list.included, linkage)?.attributes.bill_of_lading_number).toBe("TEST-TR-SUCCEEDED");

    const one = await client.containers.get(first.id, { include: ["shipment", "pod_terminal"] });
    expect(one.data.id).toBe(first.id);
    expect(one.data.attributes.current_status).toBe(first.attributes.current_status);
    expect(one.links?.self).toBe(`${BASE}/containers/${first.id}?include=shipment%2Cpod_terminal`);

    const ship = await client.shipments.get(shipment.id, { include: ["containers"] });
    expect(
      relationshipMany(ship.data, "containers")
        .map((l) => l.id)
        .sort(),
    ).toEqual([...containerIds].sort());
    expect(ship.included?.filter((r) => r.type === "container")).toHaveLength(2);
    const byNumber = await client.shipments.list({ filter: { number: "TEST-TR-SUCCEEDED" } });
    expect(byNumber.data.map((s) => s.id)).toEqual([shipment.id]);
  });

  it("reads a container's transport events (oldest first, page by page) and raw events", async () => {
    const account = await createAccount();
    const { shipment, containerIds } = await trackSandboxShipment(account);
    const client = clientFor(account);
    const containerId = containerIds[0] ?? "";
    await seedEvents(account, containerId, shipment.id);

    const events = await client.containers.transportEvents(containerId, { include: ["location"] });
    expect(events.data.map((e) => e.attributes.event)).toEqual([
      "container.transport.vessel_loaded",
      "container.transport.vessel_departed",
      "container.transport.vessel_arrived",
    ]);
    expect(events.meta.total).toBe(3);
    expect(events.data[2]?.attributes).toMatchObject({ location_locode: "USLAX", timezone: "America/Los_Angeles" });

    const walked = await collect(client.containers.iterateTransportEvents(containerId, { page: { size: 2 } }));
    expect(walked.map((e) => e.id)).toEqual(events.data.map((e) => e.id));

    const raw = await client.containers.rawEvents(containerId);
    expect(raw.data.map((r) => [r.attributes.index, r.attributes.event, r.attributes.estimated])).toEqual([
      [0, "vessel_departed", false],
      [1, "vessel_arrived", true],
    ]);
    expect(raw.included?.map((r) => [r.type, r.attributes.code])).toEqual([["port", "USLAX"]]);
    const rawBare = await client.containers.rawEvents(containerId, { include: [] });
    expect(rawBare.included ?? []).toEqual([]);
  });

  it("reads a container's route as the reference SDK asks for it; 403 without the routing feature", async () => {
    const account = await createAccount();
    const { containerIds } = await trackSandboxShipment(account);
    const containerId = containerIds[0] ?? "";
    const seen: string[] = [];
    const client = clientFor(account, {
      fetch: (request) => {
        seen.push(request.url);
        return workerFetch(request);
      },
    });
    const denied = await failure(client.getContainerRoute(containerId));
    expect(denied.status).toBe(403);
    expect(denied.detail).toBe("Routing data feature is not enabled for this account");
    // The reference SDK's request (docs/api.md §What a client can expect).
    expect(seen[0]).toBe(`${BASE}/containers/${containerId}/route?include=port%2Cvessel%2Croute_location`);

    await env.DB.prepare("UPDATE accounts SET entitlements = '[\"routing\"]' WHERE id = ?1")
      .bind(account.accountId)
      .run();
    const doc = await client.getContainerRoute(containerId);
    expect(doc.data.type).toBe("route");
    expect(doc.data.attributes.total_legs).toBe(1);
    const locations = relationshipMany(doc.data, "route_locations").map((ref) => findIncluded(doc.included, ref));
    expect(locations.map((l) => l?.type)).toEqual(["route_location", "route_location"]);
    expect(locations.map((l) => l?.attributes.location_locode)).toEqual(["CNYTN", "USLAX"]);
    const pod = locations[1];
    if (!pod) throw new Error("no POD location");
    expect(findIncluded(doc.included, relationshipOne(pod, "port"))?.attributes.code).toBe("USLAX");
    expect(findIncluded(doc.included, relationshipOne(pod, "inbound_vessel"))?.attributes.name).toBe("SANDBOX EXPRESS");
    // include: [] asks for the route alone.
    const bare = await client.containers.route(containerId, { include: [] });
    expect(bare.included).toBeUndefined();
    expect(seen.at(-1)).toBe(`${BASE}/containers/${containerId}/route?include=`);
  });

  it("lists shipping lines with search and gets one by SCAC", async () => {
    const client = clientFor(await createAccount());
    const found = await client.shippingLines.list({ search: "MAEU" });
    expect(found.data.map((l) => l.attributes.scac)).toContain("MAEU");
    const test = await client.shippingLines.get("TEST");
    expect(test.data.attributes).toMatchObject({ scac: "TEST", name: "Test Carrier", supported: true });
  });

  it("infers a container number's type and validates its ISO 6346 check digit", async () => {
    const client = clientFor(await createAccount());
    const doc = await client.trackingRequests.inferNumber("MSCU1234566");
    expect(doc.data.type).toBe("infer_number_results");
    expect(doc.data.attributes.number_type).toBe("container");
    expect(doc.data.attributes.validation.type).toBe("container");
    expect(typeof doc.data.attributes.validation.check_digit_passed).toBe("boolean");
    expect(["auto_select", "needs_confirmation", "no_prediction"]).toContain(
      doc.data.attributes.shipping_line.decision,
    );
  });

  it("health answers without touching the account", async () => {
    const client = clientFor(await createAccount());
    expect(await client.health()).toEqual({ status: "ok" });
  });
});

describe("TrackingClient: pagination", () => {
  it("walks every page lazily, newest first, and stops at the last page", async () => {
    const account = await createAccount();
    const ids = await insertTrackingRequests(account, 7, { prefix: "PAGE" });
    const client = clientFor(account);

    const pagesFetched: number[] = [];
    const counting = new TrackingClient({
      apiKey: account.key,
      baseUrl: BASE,
      fetch: (request) => {
        pagesFetched.push(Number(new URL(request.url).searchParams.get("page[number]")));
        return workerFetch(request);
      },
    });
    const all = await collect(counting.trackingRequests.iterate({ page: { size: 3 }, include: [] }));
    expect(all.map((r) => r.id)).toEqual([...ids].reverse());
    expect(pagesFetched).toEqual([1, 2, 3]);

    pagesFetched.length = 0;
    const firstFour = await collect(counting.trackingRequests.iterate({ page: { size: 3 }, include: [] }), 4);
    expect(firstFour.map((r) => r.id)).toEqual([...ids].reverse().slice(0, 4));
    expect(pagesFetched).toEqual([1, 2]);

    const page3 = await client.trackingRequests.list({ page: { number: 3, size: 3 } });
    expect(page3.data).toHaveLength(1);
    expect(page3.meta.pagination).toEqual({ current: 3, last: 3, records: 7 });
    expect(page3.links.next).toBeUndefined();
  });

  it("sends typed filters as filter[...] parameters, time ranges as [start]/[end]", async () => {
    const account = await createAccount();
    const ids = await insertTrackingRequests(account, 5, { start: "2025-03-01T00:00:00Z", prefix: "RANGE" });
    const client = clientFor(account);
    const doc = await client.trackingRequests.list({
      filter: {
        status: "failed",
        created_at: { start: "2025-03-01T00:00:01Z", end: new Date("2025-03-01T00:00:03Z") },
      },
      include: [],
    });
    expect(doc.data.map((r) => r.id)).toEqual(ids.slice(1, 4).reverse());
    const sent = new URL(doc.links.self).searchParams;
    expect(sent.get("filter[created_at][start]")).toBe("2025-03-01T00:00:01Z");
    expect(sent.get("filter[created_at][end]")).toBe("2025-03-01T00:00:03Z");
    const none = await client.trackingRequests.list({ filter: { status: "created" } });
    expect(none.data).toEqual([]);
    expect(none.meta.total).toBe(0);
  });
});

describe("TrackingClient: writes", () => {
  it("creates a tracking request for a customer, updates it, and reads it back", async () => {
    const account = await createAccount();
    const client = clientFor(account);
    const party = await client.parties.create({ company_name: "Globex" });
    expect(party.data.attributes.company_name).toBe("Globex");
    expect((await client.parties.get(party.data.id)).data.id).toBe(party.data.id);
    expect((await client.parties.list()).data.map((p) => p.id)).toEqual([party.data.id]);

    const created = await client.trackingRequests.create(
      { request_type: "bill_of_lading", request_number: "TEST-TR-FAILED", scac: "TEST", ref_numbers: ["PO-1"] },
      { customerId: party.data.id },
    );
    expect(created.data.attributes.status).toBe("pending");
    expect(relationshipOne(created.data, "customer")).toEqual({ id: party.data.id, type: "party" });

    const updated = await client.trackingRequests.update(created.data.id, { ref_numbers: ["PO-2", "PO-3"] });
    expect(updated.data.attributes.ref_numbers).toEqual(["PO-2", "PO-3"]);
    const read = await client.trackingRequests.get(created.data.id, { include: ["customer"] });
    expect(read.data.attributes.ref_numbers).toEqual(["PO-2", "PO-3"]);
    expect(read.included?.map((r) => r.id)).toEqual([party.data.id]);
  });

  it("stops and resumes a shipment's tracking and updates its tags", async () => {
    const account = await createAccount();
    const { shipment } = await trackSandboxShipment(account);
    const client = clientFor(account);
    const stopped = await client.shipments.stopTracking(shipment.id);
    expect(stopped.data.attributes.line_tracking_stopped_at).not.toBeNull();
    expect(stopped.data.attributes.line_tracking_stopped_reason).toBe("cancelled_by_user");
    const resumed = await client.shipments.resumeTracking(shipment.id);
    expect(resumed.data.attributes.line_tracking_stopped_at).toBeNull();
    const tagged = await client.shipments.update(shipment.id, { tags: ["priority"] });
    expect(tagged.data.attributes.tags).toEqual(["priority"]);
  });

  it("refreshes a container and names the sources queued", async () => {
    const account = await createAccount();
    const { containerIds } = await trackSandboxShipment(account);
    const result = await clientFor(account).containers.refresh(containerIds[0] ?? "");
    expect(result).toEqual({ message: "Started refresh for Shipping line, Terminal" });
  });

  it("authenticates with the Bearer scheme too", async () => {
    const account = await createAccount();
    const client = clientFor(account, { authScheme: "Bearer" });
    expect((await client.containers.list()).meta.total).toBe(0);
  });
});

describe("TrackingClient: errors", () => {
  it("a 422 carries every failing field with its pointer and code", async () => {
    const client = clientFor(await createAccount());
    const err = await failure(
      client.trackingRequests.create({ request_type: "bill_of_lading", request_number: " ", scac: "" }),
    );
    expect(err.status).toBe(422);
    expect(err.isInvalidRequest).toBe(true);
    expect(err.code).toBe("blank");
    const pointers = err.errors.map((e) => e.source?.pointer).sort();
    expect(pointers).toEqual(["/data/attributes/request_number", "/data/attributes/scac"]);
    expect(err.method).toBe("POST");
    expect(err.path).toBe("/tracking_requests");
    expect(err.requestId).toBeTruthy();
  });

  it("a bad key is a 401 whose error never contains the key", async () => {
    const account = await createAccount();
    const wrongKey = `${account.key.slice(0, -4)}abcd`;
    const client = new TrackingClient({ apiKey: wrongKey, baseUrl: BASE, fetch: workerFetch });
    const err = await failure(client.containers.list());
    expect(err.status).toBe(401);
    expect(err.isUnauthorized).toBe(true);
    expect(err.detail).toBe("Invalid or missing API key.");
    expect(`${err.message} ${JSON.stringify(err)}`).not.toContain(wrongKey);
  });

  it("another account's container is a 404, like an unknown id", async () => {
    const owner = await createAccount();
    const { containerIds } = await trackSandboxShipment(owner);
    const other = clientFor(await createAccount());
    const err = await failure(other.containers.get(containerIds[0] ?? ""));
    expect(err.status).toBe(404);
    expect(err.isNotFound).toBe(true);
    expect((await failure(other.containers.get("not-an-id"))).status).toBe(404);
  });

  it("a bad query parameter is a 400 naming the parameter", async () => {
    const client = clientFor(await createAccount());
    const err = await failure(client.containers.list({ include: ["cargo"] }));
    expect(err.status).toBe(400);
    expect(err.errors[0]?.source?.parameter).toBe("include");
  });

  it("a full refresh bucket is a 429 with Retry-After; with retries on, the client waits it out (then gives up)", async () => {
    const account = await createAccount();
    const { containerIds } = await trackSandboxShipment(account);
    const containerId = containerIds[0] ?? "";
    const client = clientFor(account);
    for (let i = 0; i < 10; i++) await client.containers.refresh(containerId);

    const err = await failure(client.containers.refresh(containerId));
    expect(err.status).toBe(429);
    expect(err.isRateLimited).toBe(true);
    expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(err.retryAfterSeconds).toBeLessThanOrEqual(60);

    const waits: number[] = [];
    const retrying = clientFor(account, {
      maxRetries: 2,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const again = await failure(retrying.containers.refresh(containerId));
    expect(again.status).toBe(429);
    // Two waits of Retry-After seconds each, then the third 429 is thrown (the window has not moved on).
    expect(waits).toHaveLength(2);
    for (const ms of waits) expect(ms).toBeGreaterThanOrEqual(1000);

    const impatient = clientFor(account, { maxRetries: 5, maxRetryWaitSeconds: 0, sleep: async () => undefined });
    expect((await failure(impatient.containers.refresh(containerId))).status).toBe(429);
  });

  it("no answer is a status-0 error: network_error, timeout; a caller's abort is rethrown as is", async () => {
    const account = await createAccount();
    const refused = clientFor(account, {
      fetch: async () => {
        throw new TypeError("connection refused");
      },
    });
    const down = await failure(refused.containers.list());
    expect(down).toMatchObject({ status: 0, code: "network_error" });
    expect(down.detail).toBe("Could not reach https://api.test.");

    const hanging = clientFor(account, {
      timeoutMs: 20,
      fetch: (request) =>
        new Promise((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason))),
    });
    const slow = await failure(hanging.containers.list());
    expect(slow).toMatchObject({ status: 0, code: "timeout" });

    const controller = new AbortController();
    controller.abort(new Error("caller gave up"));
    await expect(clientFor(account).containers.list({ signal: controller.signal })).rejects.toThrow("caller gave up");
  });

  it("an error answer that is not JSON:API (a proxy's HTML page) still gives a TrackingClientError", async () => {
    const client = clientFor(await createAccount(), {
      fetch: async () => new Response("<html>Bad gateway</html>", { status: 502, statusText: "Bad Gateway" }),
    });
    const err = await failure(client.containers.list());
    expect(err.status).toBe(502);
    expect(err.errors).toEqual([
      {
        status: "502",
        title: "Bad Gateway",
        detail: "The API answered HTTP 502 without a JSON:API error document.",
      },
    ]);
  });
});

describe("TrackingClient: configuration", () => {
  it("normalises the base URL: trailing slashes dropped, /v2 added to a bare origin", () => {
    expect(normaliseBaseUrl("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787/v2");
    expect(normaliseBaseUrl("http://127.0.0.1:8787/")).toBe("http://127.0.0.1:8787/v2");
    expect(normaliseBaseUrl("https://api.example.com/v2/")).toBe("https://api.example.com/v2");
    expect(normaliseBaseUrl("https://example.com/tracking/v2")).toBe("https://example.com/tracking/v2");
  });

  it("refuses a missing key and base URLs that are not plain http(s)", () => {
    expect(() => new TrackingClient({ apiKey: "", baseUrl: BASE })).toThrow(TypeError);
    expect(() => new TrackingClient({ apiKey: "a b", baseUrl: BASE })).toThrow(/without spaces/);
    expect(() => new TrackingClient({ apiKey: "k", baseUrl: "api.example.com" })).toThrow(/not a URL/);
    expect(() => new TrackingClient({ apiKey: "k", baseUrl: "ftp://example.com/v2" })).toThrow(/http\(s\)/);
    expect(() => new TrackingClient({ apiKey: "k", baseUrl: "https://u:p@example.com/v2" })).toThrow(/credentials/);
  });

  it("sends the key, JSON:API Accept and a User-Agent on every request", async () => {
    const account = await createAccount();
    const seen: Request[] = [];
    const client = clientFor(account, {
      userAgent: "test-agent/1",
      fetch: (request) => {
        seen.push(request.clone());
        return workerFetch(request);
      },
    });
    await client.containers.list();
    await client.parties.create({ company_name: "Initech" });
    expect(seen.map((r) => r.headers.get("Authorization"))).toEqual([`Token ${account.key}`, `Token ${account.key}`]);
    expect(seen[0]?.headers.get("Accept")).toContain("application/vnd.api+json");
    expect(seen[0]?.headers.get("User-Agent")).toBe("test-agent/1");
    expect(seen[1]?.headers.get("Content-Type")).toBe("application/json");
    expect(await seen[1]?.json()).toEqual({ data: { type: "party", attributes: { company_name: "Initech" } } });
  });
});
