import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TrackingClient, type TrackingClientError } from "../../src/client";
import { createDatabase } from "../../src/db/client";
import { systemClock } from "../../src/lib/clock";
import { type TrackingApi, TrackingApiError } from "../../src/mcp/api";
import { HttpTrackingApi } from "../../src/mcp/http-api";
import { WorkerTrackingApi } from "../../src/mcp/worker-api";
import { BASE, createAccount, type TestAccount } from "../helpers/api";
import { insertTrackingRequests, trackSandboxShipment } from "../helpers/tracking";
import { seedTransshipmentJourney } from "./fixtures";

// HttpTrackingApi (the stdio server's TrackingApi: REST through src/client) against the real Worker, compared call
// by call with WorkerTrackingApi (the /mcp agent's: services over D1) for the same account. The two must hand the
// MCP tools the same records and the same error kinds (src/mcp/api.ts).

const USLAX_ID = "7f489361-09f1-5853-a300-c72f23604b40";

function httpApi(key: string, onError?: (error: TrackingClientError) => void): HttpTrackingApi {
  const client = new TrackingClient({ apiKey: key, baseUrl: BASE, fetch: (r) => exports.default.fetch(r) });
  return new HttpTrackingApi(client, onError ? { onError } : {});
}

function workerApi(account: TestAccount): WorkerTrackingApi {
  return new WorkerTrackingApi({ db: createDatabase(env.DB), clock: systemClock, env, accountId: account.accountId });
}

/** Both implementations for one account with the sandbox shipment and three transport events on its first box. */
async function both() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  const containerId = sandbox.containerIds[0] ?? "";
  const prefix = crypto.randomUUID().slice(0, 8);
  await env.DB.batch(
    [
      ["container.transport.vessel_loaded", "2025-05-01T10:00:00Z", null],
      ["container.transport.vessel_departed", "2025-05-02T10:00:00Z", null],
      ["container.transport.vessel_arrived", "2025-05-20T10:00:00Z", USLAX_ID],
    ].map(([event, at, locationId], i) =>
      env.DB.prepare(
        `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, voyage_number, timestamp,
           timezone, location_locode, location_id, data_source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, '001E', ?6, 'America/Los_Angeles', ?7, ?8, 'shipping_line', '2025-06-01T00:00:00Z')`,
      ).bind(
        `${prefix}-${i}`,
        account.accountId,
        containerId,
        sandbox.shipment.id,
        event,
        at,
        locationId ? "USLAX" : null,
        locationId,
      ),
    ),
  );
  const apis: [TrackingApi, TrackingApi] = [httpApi(account.key), workerApi(account)];
  return { account, ...sandbox, containerId, apis };
}

/** Runs `call` on both implementations and expects equal results; returns the HTTP one's. */
async function same<T>(apis: [TrackingApi, TrackingApi], call: (api: TrackingApi) => Promise<T>): Promise<T> {
  const [viaHttp, viaWorker] = await Promise.all([call(apis[0]), call(apis[1])]);
  expect(viaHttp).toEqual(viaWorker);
  return viaHttp;
}

/** The TrackingApiError `call` rejects with (fails the test when it resolves or throws anything else). */
async function apiError(call: Promise<unknown>): Promise<TrackingApiError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof TrackingApiError) return err;
    throw err;
  }
  throw new Error("expected a TrackingApiError");
}

describe("HttpTrackingApi returns what WorkerTrackingApi returns", () => {
  it("containers: get with every include, list with filters and pages", async () => {
    const { apis, containerId, shipment, containerIds } = await both();
    const details = await same(apis, (api) =>
      api.getContainer(containerId, ["shipment", "pod_terminal", "transport_events"]),
    );
    expect(details.container.id).toBe(containerId);
    expect(details.shipment?.id).toBe(shipment.id);
    expect(details.transport_events?.map((e) => e.event)).toEqual([
      "container.transport.vessel_loaded",
      "container.transport.vessel_departed",
      "container.transport.vessel_arrived",
    ]);
    expect(details.transport_events?.[2]?.location?.code).toBe("USLAX");
    await same(apis, (api) => api.getContainer(containerId));

    const page = await same(apis, (api) => api.listContainers({ shipmentId: shipment.id }, { pageSize: 1 }));
    expect(page).toMatchObject({ page: 1, page_size: 1, total: 2, has_more: true });
    const last = await same(apis, (api) => api.listContainers({}, { page: 2, pageSize: 1 }));
    expect(last.has_more).toBe(false);
    expect([...page.items, ...last.items].map((c) => c.id).sort()).toEqual([...containerIds].sort());
    const clamped = await same(apis, (api) => api.listContainers({ scac: "TEST" }, { pageSize: 500 }));
    expect(clamped.page_size).toBe(100);
    await same(apis, (api) => api.listContainers({ status: "new", updatedAfter: "2020-01-01" }));
  });

  it("shipments and tracking requests: get, list, filters", async () => {
    const { apis, shipment, request } = await both();
    const withBoxes = await same(apis, (api) => api.getShipment(shipment.id));
    expect(withBoxes.containers).toHaveLength(2);
    const bare = await same(apis, (api) => api.getShipment(shipment.id, { includeContainers: false }));
    expect(bare.containers).toBeUndefined();
    await same(apis, (api) => api.listShipments({ number: "TEST-TR-SUCCEEDED", trackingStopped: false }));
    await same(apis, (api) => api.listShipments({}, { page: 2, pageSize: 1 }));

    const tr = await same(apis, (api) => api.getTrackingRequest(request.id));
    expect(tr.tracked_object_id).toBe(shipment.id);
    const listed = await same(apis, (api) =>
      api.listTrackingRequests({ status: "created", requestType: "bill_of_lading", scac: "TEST" }),
    );
    expect(listed.items.map((r) => r.id)).toEqual([request.id]);
  });

  it("search finds by container number, BL number and request number; nothing found is empty", async () => {
    const { apis, containerId, shipment, request } = await both();
    const number = (await apis[1].getContainer(containerId)).container.number;
    const byBox = await same(apis, (api) => api.searchContainers(` ${number.slice(0, 4)}-${number.slice(4)} `));
    expect(byBox.containers.map((c) => c.id)).toEqual([containerId]);
    const byBl = await same(apis, (api) => api.searchContainers("TEST-TR-SUCCEEDED"));
    expect(byBl.shipments.map((s) => s.id)).toEqual([shipment.id]);
    expect(byBl.tracking_requests.map((r) => r.id)).toEqual([request.id]);
    const none = await same(apis, (api) => api.searchContainers("NOPE0000000"));
    expect(none).toEqual({ containers: [], shipments: [], tracking_requests: [] });
    const tooLong = await same(apis, (api) => api.searchContainers("X".repeat(80)));
    expect(tooLong).toEqual({ containers: [], shipments: [], tracking_requests: [] });
  });

  it("shipping lines (with search) and infer number", async () => {
    const { apis } = await both();
    const all = await same(apis, (api) => api.listShippingLines());
    expect(all.length).toBeGreaterThan(30);
    expect(all.map((l) => l.scac)).toContain("TEST");
    const maersk = await same(apis, (api) => api.listShippingLines("maeu"));
    expect(maersk.map((l) => l.scac)).toContain("MAEU");
    const inferred = await same(apis, (api) => api.inferNumber("MSCU1234566"));
    expect(inferred.number_type).toBe("container");
    expect(inferred.validation).not.toHaveProperty("parsed_number");
  });

  it("the route of a transshipment journey (REST route document read back = the services' route)", async () => {
    const account = await createAccount();
    await env.DB.prepare("UPDATE accounts SET entitlements = '[\"routing\"]' WHERE id = ?1")
      .bind(account.accountId)
      .run();
    const sandbox = await trackSandboxShipment(account);
    const [first = "", second = ""] = sandbox.containerIds;
    const tracked = { account, shipmentId: sandbox.shipment.id, billOfLading: "TEST-TR-SUCCEEDED", containers: [] };
    const { eta } = await seedTransshipmentJourney(tracked, first);
    const apis: [TrackingApi, TrackingApi] = [httpApi(account.key), workerApi(account)];
    const route = await same(apis, (api) => api.getContainerRoute(first));
    expect(route.container_id).toBe(first);
    expect(route.stops.map((s) => [s.role, s.locode])).toEqual([
      ["port_of_lading", "CNYTN"],
      ["transshipment", "SGSIN"],
      ["port_of_discharge", "USLAX"],
    ]);
    expect(route.legs.map((l) => [l.mode, l.vessel?.name, l.vessel?.voyage_number])).toEqual([
      ["vessel", "EVER ALPHA", "001E"],
      ["vessel", "MSC BETA", "002E"],
    ]);
    expect(route.legs[1]?.estimated_arrival_at).toBe(eta);
    const direct = await same(apis, (api) => api.getContainerRoute(second));
    expect(direct.legs).toHaveLength(1);
  });

  it("creates a tracking request whose record equals the one read back", async () => {
    const account = await createAccount();
    const created = await httpApi(account.key).createTrackingRequest({
      requestType: "bill_of_lading",
      requestNumber: "TEST-TR-FAILED",
      scac: "TEST",
      refNumbers: ["PO-9"],
    });
    expect(created).toMatchObject({ status: "pending", request_number: "TEST-TR-FAILED", ref_numbers: ["PO-9"] });
    expect(await workerApi(account).getTrackingRequest(created.id)).toEqual(created);
  });
});

describe("HttpTrackingApi errors carry the same kinds, and nothing secret", () => {
  it("not_found for another account's ids; invalid_argument naming the parameter or field", async () => {
    const { apis, containerId, shipment } = await both();
    const stranger = await createAccount();
    const [http, worker] = [httpApi(stranger.key), workerApi(stranger)];
    for (const api of [http, worker]) {
      expect((await apiError(api.getContainer(containerId))).kind).toBe("not_found");
      expect((await apiError(api.getShipment(shipment.id))).kind).toBe("not_found");
      expect((await apiError(api.getTransportEvents(containerId))).kind).toBe("not_found");
    }
    for (const api of apis) {
      const bad = await apiError(api.listContainers({ updatedAfter: "yesterday" }));
      expect(bad).toMatchObject({ kind: "invalid_argument", field: "filter[updated_at][start]" });
      const blank = await apiError(
        api.createTrackingRequest({ requestType: "container", requestNumber: "X", scac: "" }),
      );
      expect(blank).toMatchObject({ kind: "invalid_argument", field: "scac", code: "blank" });
      const garbage = await apiError(api.inferNumber("!!!"));
      expect(garbage).toMatchObject({ kind: "invalid_argument", field: "number" });
      expect((await apiError(api.searchContainers("  "))).kind).toBe("invalid_argument");
    }
  });

  it("the route: forbidden_feature without `routing` (same message and feature), not_found for another account's box", async () => {
    const { apis, containerId } = await both();
    const [viaHttp, viaWorker] = [
      await apiError(apis[0].getContainerRoute(containerId)),
      await apiError(apis[1].getContainerRoute(containerId)),
    ];
    expect(viaHttp).toMatchObject({ kind: "forbidden_feature", feature: "routing" });
    expect(viaWorker).toMatchObject({ kind: "forbidden_feature", feature: "routing" });
    expect(viaHttp.message).toBe(viaWorker.message);
    expect(viaHttp.message).toMatch(/^Routing data feature is not enabled for this account\. /);
    expect(viaHttp.message).toContain("get_container_transport_events");

    const stranger = await createAccount();
    await env.DB.prepare("UPDATE accounts SET entitlements = '[\"routing\"]' WHERE id = ?1")
      .bind(stranger.accountId)
      .run();
    for (const api of [httpApi(stranger.key), workerApi(stranger)]) {
      expect((await apiError(api.getContainerRoute(containerId))).kind).toBe("not_found");
    }
  });

  it("a rejected key is unauthorized; the error and the logged client error never hold the key", async () => {
    const account = await createAccount();
    const wrong = `${account.key.slice(0, -4)}zzzz`;
    const logged: TrackingClientError[] = [];
    const err = await apiError(httpApi(wrong, (e) => logged.push(e)).listContainers());
    expect(err.kind).toBe("unauthorized");
    expect(logged.map((e) => e.status)).toEqual([401]);
    expect(`${err.message} ${JSON.stringify(err)} ${logged[0]?.message} ${JSON.stringify(logged[0])}`).not.toContain(
      wrong,
    );
  });

  it("a full default bucket is rate_limited with the seconds to wait (REST and MCP share it)", async () => {
    const account = await createAccount();
    await insertTrackingRequests(account, 1);
    const api = httpApi(account.key);
    await Promise.all(Array.from({ length: 100 }, () => api.listTrackingRequests({}, { pageSize: 1 })));
    const err = await apiError(api.listTrackingRequests());
    expect(err.kind).toBe("rate_limited");
    expect(err.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(err.message).toBe(`Rate limit exceeded; retry after ${err.retryAfterSeconds} s.`);
  });

  it("no answer from the API is upstream, with a generic message", async () => {
    const client = new TrackingClient({
      apiKey: "svc_test_x",
      baseUrl: "http://127.0.0.1:9/v2",
      fetch: async () => {
        throw new TypeError("connect ECONNREFUSED 127.0.0.1:9");
      },
    });
    const err = await apiError(new HttpTrackingApi(client).getContainer("0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60"));
    expect(err.kind).toBe("upstream");
    expect(err.message).not.toContain("127.0.0.1");
  });
});
