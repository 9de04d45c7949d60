import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { vesselIdForImo } from "../../src/vessels/serializer";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import { type Doc, type Many, type Resource, toOne, trackAndProcess, trackSandboxShipment } from "../helpers/tracking";

// GET /containers/{id}/raw_events (docs/api.md §Raw event resource, §Container endpoints, sample A.4): deprecated;
// every carrier row of the container by `index`, estimated rows included, `{data, included}` with the locations
// included by default; no links, no meta.

const USLAX_ID = "7f489361-09f1-5853-a300-c72f23604b40";
const CNYTN_ID = "8a59a43b-618d-5c61-a499-273f3bc9e328";
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The raw event attributes of docs/api.md §Raw event resource this service emits. */
const ATTRIBUTES = [
  "event",
  "original_event",
  "timestamp",
  "estimated",
  "actual_on",
  "estimated_on",
  "timezone",
  "created_at",
  "location_name",
  "location_locode",
  "vessel_name",
  "vessel_imo",
  "voyage_number",
  "index",
  "invalidated_at",
  "data_source",
  "actual_at",
  "estimated_at",
  "will_occur_at",
  "data_provider_name",
  "data_provider_code",
];

interface RawSeed {
  id: string;
  index: number;
  event: string;
  originalEvent: string;
  timestamp: string;
  estimated: boolean;
  locode: string | null;
  locationName: string | null;
}

/** Writes raw events for one of `account`'s containers straight into D1 (the static sandbox journey has none). */
async function seedRaw(account: TestAccount, containerId: string, rows: RawSeed[]) {
  await env.DB.batch(
    rows.map((r) =>
      env.DB.prepare(
        `INSERT INTO raw_events (id, account_id, container_id, "index", event, original_event, timestamp, estimated,
           actual_on, estimated_on, location, location_locode, vessel_name, vessel_imo, voyage_number, timezone,
           data_source, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'SANDBOX EXPRESS', '9811000', '001E', ?13,
           'shipping_line', '2025-06-01T00:00:00Z')`,
      ).bind(
        r.id,
        account.accountId,
        containerId,
        r.index,
        r.event,
        r.originalEvent,
        r.timestamp,
        r.estimated ? 1 : 0,
        r.estimated ? null : r.timestamp.slice(0, 10),
        r.estimated ? r.timestamp.slice(0, 10) : null,
        r.locationName,
        r.locode,
        r.locode === "USLAX" ? "America/Los_Angeles" : null,
      ),
    ),
  );
}

/** An account with the sandbox shipment and four raw rows on its first container, inserted out of order. */
async function withRawEvents() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  const containerId = sandbox.containerIds[0] ?? "";
  const p = crypto.randomUUID().slice(0, 8);
  const ids = { loaded: `${p}-z`, departed: `${p}-y`, eta: `${p}-x`, unknownPlace: `${p}-w` };
  await seedRaw(account, containerId, [
    {
      id: ids.eta,
      index: 2,
      event: "vessel_arrived",
      originalEvent: "Vessel Arrival (ETA)",
      timestamp: "2025-05-10T08:00:00Z",
      estimated: true,
      locode: "USLAX",
      locationName: "Los Angeles",
    },
    {
      id: ids.loaded,
      index: 0,
      event: "vessel_loaded",
      originalEvent: "Loaded on Vessel",
      timestamp: "2025-04-19T03:00:00Z",
      estimated: false,
      locode: "CNYTN",
      locationName: "Yantian",
    },
    {
      id: ids.unknownPlace,
      index: 3,
      event: "feeder_arrived",
      originalEvent: "Feeder Arrival",
      timestamp: "2025-05-12T00:00:00Z",
      estimated: false,
      locode: "ZZZZZ",
      locationName: "Nowhere",
    },
    {
      id: ids.departed,
      index: 1,
      event: "vessel_departed",
      originalEvent: "Vessel Departure",
      timestamp: "2025-04-20T12:00:00Z",
      estimated: false,
      locode: "CNYTN",
      locationName: "Yantian",
    },
  ]);
  return { account, ...sandbox, containerId, ids };
}

describe("GET /containers/{id}/raw_events", () => {
  it("lists every row by index, estimated rows included, with the locations included and no links or meta", async () => {
    const { account, containerId, ids } = await withRawEvents();
    const { res, json } = await apiJson<Many>(`/containers/${containerId}/raw_events`, { key: account.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(Object.keys(json).sort()).toEqual(["data", "included"]);
    expect(json.data.map((e) => e.id)).toEqual([ids.loaded, ids.departed, ids.eta, ids.unknownPlace]);
    expect(json.data.map((e) => e.attributes.index)).toEqual([0, 1, 2, 3]);
    for (const e of json.data) {
      expect(e.type).toBe("raw_event");
      expect(Object.keys(e.attributes).sort()).toEqual([...ATTRIBUTES].sort());
      expect(e.attributes.created_at).toMatch(ISO_SECONDS);
      expect(toOne(e, "container")).toEqual({ id: containerId, type: "container" });
      // The vessel is linked by its IMO number, the same id webhook bodies and routes use.
      const imo = e.attributes.vessel_imo as string | null;
      expect(toOne(e, "vessel")).toEqual(imo ? { id: vesselIdForImo(imo), type: "vessel" } : null);
      expect(toOne(e, "terminal")).toBeNull();
    }
    const eta = json.data[2] as Resource;
    expect(eta.attributes).toMatchObject({
      event: "vessel_arrived",
      original_event: "Vessel Arrival (ETA)",
      timestamp: "2025-05-10T08:00:00Z",
      estimated: true,
      actual_on: null,
      estimated_on: "2025-05-10",
      timezone: "America/Los_Angeles",
      location_name: "Los Angeles",
      location_locode: "USLAX",
      vessel_name: "SANDBOX EXPRESS",
      vessel_imo: "9811000",
      voyage_number: "001E",
      invalidated_at: null,
      data_source: "shipping_line",
    });
    expect(json.data[0]?.attributes).toMatchObject({ estimated: false, actual_on: "2025-04-19", estimated_on: null });
    expect(toOne(eta, "location")).toEqual({ id: USLAX_ID, type: "port" });
    expect(toOne(json.data[0], "location")).toEqual({ id: CNYTN_ID, type: "port" });
    // A LOCODE the reference ports do not know links nothing.
    expect(toOne(json.data[3], "location")).toBeNull();
    // Locations and vessels are included by default (docs/api.md §Includes), each once.
    const included = json.included ?? [];
    const sandboxExpress = vesselIdForImo("9811000");
    expect(included.map((r) => `${r.type}:${r.id}`).sort()).toEqual(
      [`port:${CNYTN_ID}`, `port:${USLAX_ID}`, `vessel:${sandboxExpress}`].sort(),
    );
    expect(included.find((r) => r.id === USLAX_ID)?.attributes).toMatchObject({ code: "USLAX" });
    expect(included.find((r) => r.type === "vessel")?.attributes).toMatchObject({
      name: "SANDBOX EXPRESS",
      imo: "9811000",
    });
  });

  it("include= (empty) includes nothing; include=container includes the account's container", async () => {
    const { account, containerId } = await withRawEvents();
    const none = await apiJson<Many>(`/containers/${containerId}/raw_events?include=`, { key: account.key });
    expect(none.res.status).toBe(200);
    expect(Object.keys(none.json)).toEqual(["data"]);
    const withContainer = await apiJson<Many>(`/containers/${containerId}/raw_events?include=container`, {
      key: account.key,
    });
    expect((withContainer.json.included ?? []).map((r) => `${r.type}:${r.id}`)).toEqual([`container:${containerId}`]);
  });

  it("a container without raw events answers an empty list", async () => {
    const { account, containerIds } = await withRawEvents();
    const { res, json } = await apiJson<Many>(`/containers/${containerIds[1]}/raw_events`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data).toEqual([]);
  });

  it("serves the carrier rows the tracking pipeline recorded (TEST-LIFECYCLE)", async () => {
    const account = await createAccount();
    const request = await trackAndProcess(account, { request_number: "TEST-LIFECYCLE" });
    const shipmentId = toOne(request, "tracked_object")?.id;
    const { json: containers } = await apiJson<Many>(`/containers?filter[shipment_id]=${shipmentId}`, {
      key: account.key,
    });
    const containerId = containers.data[0]?.id;
    const { res, json } = await apiJson<Many>(`/containers/${containerId}/raw_events`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data.length).toBeGreaterThanOrEqual(2);
    const indexes = json.data.map((e) => Number(e.attributes.index));
    expect([...indexes].sort((x, y) => x - y)).toEqual(indexes);
    expect(json.data.map((e) => e.attributes.event)).toEqual(expect.arrayContaining(["empty_out", "full_in"]));
    for (const e of json.data) {
      expect(String(e.attributes.event)).not.toMatch(/^container\./);
      expect(e.attributes.timestamp).toMatch(ISO_SECONDS);
    }
  });
});

describe("GET /containers/{id}/raw_events: errors and security", () => {
  it("an unknown include is a 400 naming the parameter", async () => {
    const { account, containerId } = await withRawEvents();
    const { res, json } = await apiJson<Doc>(`/containers/${containerId}/raw_events?include=shipment`, {
      key: account.key,
    });
    expect(res.status).toBe(400);
    expect(json.errors?.[0]).toMatchObject({
      detail: "shipment is not specified as a relationship on V2::RawEventSerializer",
      source: { parameter: "include" },
    });
  });

  it("an unknown container is a 404", async () => {
    const account = await createAccount();
    const { res } = await apiJson<Doc>(`/containers/${crypto.randomUUID()}/raw_events`, { key: account.key });
    expect(res.status).toBe(404);
  });

  it("no key → 401", async () => {
    const { containerId } = await withRawEvents();
    expect((await api(`/containers/${containerId}/raw_events`)).status).toBe(401);
  });

  it("another account's container → 404 without its rows; the owner still sees them", async () => {
    const a = await withRawEvents();
    const b = await createAccount();
    await trackSandboxShipment(b);
    const { res, json } = await apiJson<Doc>(`/containers/${a.containerId}/raw_events?include=container`, {
      key: b.key,
    });
    expect(res.status).toBe(404);
    expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    expect(JSON.stringify(json)).not.toContain(a.ids.loaded);
    const own = await apiJson<Many>(`/containers/${a.containerId}/raw_events`, { key: a.account.key });
    expect(own.json.data).toHaveLength(4);
  });
});

describe("OpenAPI", () => {
  it("documents the endpoint as deprecated, with its parameters and errors", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<string, { deprecated?: boolean; parameters?: { name: string }[]; responses: Record<string, unknown> }>
      >;
    };
    const op = doc.paths["/containers/{id}/raw_events"]?.get;
    expect(op?.deprecated).toBe(true);
    expect(op?.parameters?.map((p) => p.name).sort()).toEqual(["id", "include"]);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(["200", "400", "401", "404", "429", "503"]);
  });
});
