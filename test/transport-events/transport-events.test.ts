import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { vesselIdForImo } from "../../src/vessels/serializer";
import { api, apiJson, BASE, createAccount, type TestAccount } from "../helpers/api";
import { type Doc, type Many, type Resource, toOne, trackAndProcess, trackSandboxShipment } from "../helpers/tracking";

// GET /containers/{id}/transport_events (docs/api.md §Container endpoints, sample A.3; docs/decisions.md §Wire format
// pagination): the container's past milestones, oldest first, estimates left out, scoped by account.

const FENIX_ID = "406235e7-48cd-50e5-a48b-e17961617dcf";
const USLAX_ID = "7f489361-09f1-5853-a300-c72f23604b40";
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

interface EventSeed {
  id: string;
  event: string;
  timestamp: string | null;
  locode?: string | null;
  locationId?: string | null;
  terminalId?: string | null;
  value?: string | null;
}

/**
 * Writes transport events for one of `account`'s containers straight into D1 (trackSandboxShipment
 * leaves none), so order, estimates and pagination are exact. Ids sort in the given order.
 */
async function seedEvents(account: TestAccount, containerId: string, shipmentId: string, events: EventSeed[]) {
  await env.DB.batch(
    events.map((e) =>
      env.DB.prepare(
        `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, voyage_number, timestamp, timezone,
           location_locode, location_id, terminal_id, value, data_source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, '001E', ?6, 'America/Los_Angeles', ?7, ?8, ?9, ?10, 'shipping_line', '2025-06-01T00:00:00Z')`,
      ).bind(
        e.id,
        account.accountId,
        containerId,
        shipmentId,
        e.event,
        e.timestamp,
        e.locode ?? null,
        e.locationId ?? null,
        e.terminalId ?? null,
        e.value ?? null,
      ),
    ),
  );
}

/** An account with the sandbox shipment and five events on its first container (one an estimate). */
async function withEvents() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  const containerId = sandbox.containerIds[0] ?? "";
  const prefix = crypto.randomUUID().slice(0, 8);
  const ids = {
    departed: `${prefix}-a`,
    arrived: `${prefix}-b`,
    estimate: `${prefix}-c`,
    berthedSameTime: `${prefix}-d`,
    loaded: `${prefix}-e`,
    lfd: `${prefix}-f`,
  };
  await seedEvents(account, containerId, sandbox.shipment.id, [
    // Inserted out of chronological order on purpose.
    {
      id: ids.arrived,
      event: "container.transport.vessel_arrived",
      timestamp: "2025-05-10T08:00:00Z",
      locode: "USLAX",
      locationId: USLAX_ID,
      terminalId: FENIX_ID,
    },
    {
      id: ids.departed,
      event: "container.transport.vessel_departed",
      timestamp: "2025-04-20T12:00:00Z",
      locode: "CNYTN",
    },
    {
      id: ids.estimate,
      event: "container.transport.estimated.vessel_arrived",
      timestamp: "2025-05-09T00:00:00Z",
      locode: "USLAX",
    },
    { id: ids.loaded, event: "container.transport.vessel_loaded", timestamp: "2025-04-19T03:00:00Z", locode: "CNYTN" },
    // Same instant as the arrival: ordered after it by id.
    {
      id: ids.berthedSameTime,
      event: "container.transport.vessel_berthed",
      timestamp: "2025-05-10T08:00:00Z",
      locode: "USLAX",
      locationId: USLAX_ID,
      terminalId: FENIX_ID,
    },
    {
      id: ids.lfd,
      event: "container.pickup_lfd.changed",
      timestamp: "2025-05-12T00:00:00Z",
      locode: "USLAX",
      value: "2025-05-15T07:00:00Z",
    },
  ]);
  return { account, ...sandbox, containerId, ids };
}

describe("GET /containers/{id}/transport_events", () => {
  it("lists the container's events oldest first (timestamp, then id), without estimates, in the list envelope", async () => {
    const { account, containerId, shipment, ids } = await withEvents();
    const path = `/containers/${containerId}/transport_events`;
    const { res, json } = await apiJson<Many>(path, { key: account.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.data.map((e) => e.id)).toEqual([ids.loaded, ids.departed, ids.arrived, ids.berthedSameTime, ids.lfd]);
    expect(json.data.map((e) => e.attributes.event)).not.toContain("container.transport.estimated.vessel_arrived");
    expect(json.meta).toEqual({ size: 5, total: 5, pagination: { current: 1, last: 1, records: 5 } });
    expect(json.links).toEqual({
      self: `${BASE}${path}`,
      current: `${BASE}${path}?page[number]=1`,
      first: `${BASE}${path}?page[number]=1`,
      last: `${BASE}${path}?page[number]=1`,
    });
    expect(json.included).toBeUndefined();
    const arrived = json.data[2] as Resource;
    expect(arrived).toMatchObject({
      type: "transport_event",
      attributes: {
        event: "container.transport.vessel_arrived",
        voyage_number: "001E",
        timestamp: "2025-05-10T08:00:00Z",
        timezone: "America/Los_Angeles",
        location_locode: "USLAX",
        data_source: "shipping_line",
        invalidated_at: null,
        value: null,
      },
    });
    expect(arrived.attributes.created_at).toMatch(ISO_SECONDS);
    expect(toOne(arrived, "container")).toEqual({ id: containerId, type: "container" });
    expect(toOne(arrived, "shipment")).toEqual({ id: shipment.id, type: "shipment" });
    expect(toOne(arrived, "location")).toEqual({ id: USLAX_ID, type: "port" });
    expect(toOne(arrived, "terminal")).toEqual({ id: FENIX_ID, type: "terminal" });
    expect(toOne(arrived, "vessel")).toBeNull();
    expect(json.data[4]?.attributes.value).toBe("2025-05-15T07:00:00Z");
    expect(toOne(json.data[0], "location")).toBeNull();
  });

  it("include=location,terminal adds the port and the terminal once each", async () => {
    const { account, containerId } = await withEvents();
    const { res, json } = await apiJson<Many>(`/containers/${containerId}/transport_events?include=location,terminal`, {
      key: account.key,
    });
    expect(res.status).toBe(200);
    const included = json.included ?? [];
    expect(included.map((r) => `${r.type}:${r.id}`).sort()).toEqual([`port:${USLAX_ID}`, `terminal:${FENIX_ID}`]);
    expect(included.find((r) => r.type === "port")?.attributes).toMatchObject({ code: "USLAX", name: "Los Angeles" });
  });

  it("links the vessel by its IMO number and includes it with include=vessel (once per vessel)", async () => {
    const { account, containerId, ids } = await withEvents();
    await env.DB.prepare(
      "UPDATE transport_events SET vessel_name = 'EVER GIVEN', vessel_imo = '9811000' WHERE id IN (?1, ?2)",
    )
      .bind(ids.arrived, ids.departed)
      .run();
    const { res, json } = await apiJson<Many>(`/containers/${containerId}/transport_events?include=vessel`, {
      key: account.key,
    });
    expect(res.status).toBe(200);
    const vesselId = vesselIdForImo("9811000");
    const linked = json.data.filter((e) => toOne(e, "vessel") !== null).map((e) => e.id);
    expect(linked.sort()).toEqual([ids.arrived, ids.departed].sort());
    expect(
      toOne(
        json.data.find((e) => e.id === ids.arrived),
        "vessel",
      ),
    ).toEqual({ id: vesselId, type: "vessel" });
    expect(json.included).toEqual([
      expect.objectContaining({
        id: vesselId,
        type: "vessel",
        attributes: expect.objectContaining({ name: "EVER GIVEN", imo: "9811000" }),
      }),
    ]);
  });

  it("include=shipment,container adds the account's own shipment and container", async () => {
    const { account, containerId, shipment } = await withEvents();
    const { json } = await apiJson<Many>(`/containers/${containerId}/transport_events?include=shipment,container`, {
      key: account.key,
    });
    expect((json.included ?? []).map((r) => `${r.type}:${r.id}`).sort()).toEqual(
      [`container:${containerId}`, `shipment:${shipment.id}`].sort(),
    );
  });

  it("paginates with page[size] and page[number]; next/last links follow the request", async () => {
    const { account, containerId, ids } = await withEvents();
    const path = `/containers/${containerId}/transport_events`;
    const first = await apiJson<Many>(`${path}?page[size]=2`, { key: account.key });
    expect(first.json.data.map((e) => e.id)).toEqual([ids.loaded, ids.departed]);
    expect(first.json.meta).toEqual({ size: 2, total: 5, pagination: { current: 1, next: 2, last: 3, records: 5 } });
    expect(first.json.links?.next).toBe(`${BASE}${path}?page[number]=2&page[size]=2`);
    expect(first.json.links?.last).toBe(`${BASE}${path}?page[number]=3&page[size]=2`);
    const last = await apiJson<Many>(`${path}?page%5Bnumber%5D=3&page%5Bsize%5D=2`, { key: account.key });
    expect(last.json.data.map((e) => e.id)).toEqual([ids.lfd]);
    expect(last.json.links?.next).toBeUndefined();
    expect(last.json.links?.prev).toBe(`${BASE}${path}?page[number]=2&page[size]=2`);
  });

  it("a container without events answers an empty page", async () => {
    const { account, containerIds } = await withEvents();
    const { res, json } = await apiJson<Many>(`/containers/${containerIds[1]}/transport_events`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data).toEqual([]);
    expect(json.meta).toEqual({ size: 0, total: 0, pagination: { current: 1, records: 0 } });
  });

  it("lists the milestones the tracking pipeline recorded (TEST-LIFECYCLE), in chronological order", async () => {
    const account = await createAccount();
    const request = await trackAndProcess(account, { request_number: "TEST-LIFECYCLE" });
    const shipmentId = toOne(request, "tracked_object")?.id;
    const { json: containers } = await apiJson<Many>(`/containers?filter[shipment_id]=${shipmentId}`, {
      key: account.key,
    });
    const containerId = containers.data[0]?.id;
    const { res, json } = await apiJson<Many>(`/containers/${containerId}/transport_events?include=location`, {
      key: account.key,
    });
    expect(res.status).toBe(200);
    const events = json.data.map((e) => String(e.attributes.event));
    expect(events).toEqual(expect.arrayContaining(["container.transport.empty_out", "container.transport.full_in"]));
    for (const e of events) expect(e).not.toContain(".estimated.");
    const times = json.data.map((e) => String(e.attributes.timestamp));
    expect([...times].sort()).toEqual(times);
    for (const e of json.data) expect(toOne(e, "container")).toEqual({ id: containerId, type: "container" });
  });
});

describe("GET /containers/{id}/transport_events: errors", () => {
  it("an unknown include is a 400 naming the parameter", async () => {
    const { account, containerId } = await withEvents();
    const { res, json } = await apiJson<Doc>(`/containers/${containerId}/transport_events?include=vessel_positions`, {
      key: account.key,
    });
    expect(res.status).toBe(400);
    expect(json.errors?.[0]).toMatchObject({
      status: "400",
      detail: "vessel_positions is not specified as a relationship on V2::TransportEventSerializer",
      source: { parameter: "include" },
    });
  });

  it("a bad page[size] is a 400 naming the parameter", async () => {
    const { account, containerId } = await withEvents();
    const { res, json } = await apiJson<Doc>(`/containers/${containerId}/transport_events?page[size]=0`, {
      key: account.key,
    });
    expect(res.status).toBe(400);
    expect(json.errors?.[0]?.source).toEqual({ parameter: "page[size]" });
  });

  it("an unknown container is a 404", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>(`/containers/${crypto.randomUUID()}/transport_events`, {
      key: account.key,
    });
    expect(res.status).toBe(404);
    expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
  });
});

describe("GET /containers/{id}/transport_events: security", () => {
  it("no key → 401", async () => {
    const { containerId } = await withEvents();
    const res = await api(`/containers/${containerId}/transport_events`);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe('Token realm="api"');
  });

  it("another account's container → 404, and its own (same box) lists only its own events", async () => {
    const a = await withEvents();
    const b = await createAccount();
    const bSandbox = await trackSandboxShipment(b);
    const { res, json } = await apiJson<Doc>(`/containers/${a.containerId}/transport_events?include=shipment`, {
      key: b.key,
    });
    expect(res.status).toBe(404);
    expect(JSON.stringify(json)).not.toContain(a.shipment.id);
    // B follows the same physical box (one Tracker per box) but A's events are A's.
    const own = await apiJson<Many>(`/containers/${bSandbox.containerIds[0]}/transport_events`, { key: b.key });
    expect(own.res.status).toBe(200);
    expect(own.json.data.map((e) => e.id)).not.toContain(a.ids.arrived);
    // A still sees all of its events.
    const mine = await apiJson<Many>(`/containers/${a.containerId}/transport_events`, { key: a.account.key });
    expect(mine.json.meta?.total).toBe(5);
  });
});

describe("OpenAPI", () => {
  it("documents the path with its id, page and include parameters and error responses", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string }[]; responses: Record<string, unknown> }>>;
    };
    const op = doc.paths["/containers/{id}/transport_events"]?.get;
    expect(op).toBeDefined();
    expect(op?.parameters?.map((p) => p.name).sort()).toEqual(["id", "include", "page[number]", "page[size]"]);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(["200", "400", "401", "404", "429"]);
  });
});
