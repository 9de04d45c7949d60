import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { apiJson, BASE, createAccount } from "../helpers/api";
import { type Doc, type Many, type One, toMany, toOne, trackSandboxShipment } from "../helpers/tracking";

const FENIX_ID = "406235e7-48cd-50e5-a48b-e17961617dcf";
const USLAX_ID = "7f489361-09f1-5853-a300-c72f23604b40";
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

async function tracked() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  return { account, ...sandbox };
}

/** A second, stopped shipment written directly (the sandbox knows one journey). */
async function insertStoppedShipment(accountId: string, id = newId()) {
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, port_of_discharge_locode,
         line_tracking_stopped_at, line_tracking_stopped_reason, created_at, updated_at)
       VALUES (?1, ?2, 'STOPPED-BL', 'STOPPED-BL', 'TEST', 'USNYC', '2025-02-01T00:00:00Z', 'cancelled_by_user', '2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z')`,
    ).bind(id, accountId),
    env.DB.prepare(
      `INSERT INTO account_resource_counts (account_id, resource, count) VALUES (?1, 'shipment', 1)
       ON CONFLICT (account_id, resource) DO UPDATE SET count = count + 1`,
    ).bind(accountId),
  ]);
  return id;
}

describe("GET /shipments", () => {
  it("lists the sandbox shipment with its attributes, linkage and links.self", async () => {
    const { account, shipment, containerIds, request } = await tracked();
    const { res, json } = await apiJson<Many>("/shipments", { key: account.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.data).toHaveLength(1);
    const s = json.data[0];
    expect(s?.id).toBe(shipment.id);
    expect(toOne(request, "tracked_object")?.id).toBe(shipment.id);
    expect(s?.links).toEqual({ self: `/v2/shipments/${shipment.id}` });
    expect(s?.attributes).toMatchObject({
      bill_of_lading_number: "TEST-TR-SUCCEEDED",
      normalized_number: "TEST-TR-SUCCEEDED",
      shipping_line_scac: "TEST",
      shipping_line_name: "Test Carrier",
      port_of_lading_locode: "CNYTN",
      port_of_discharge_locode: "USLAX",
      port_of_discharge_name: "Los Angeles",
      pod_vessel_name: "SANDBOX EXPRESS",
      pod_timezone: "America/Los_Angeles",
      destination_locode: null,
      destination_eta_at: null,
      destination_ata_at: null,
      line_tracking_stopped_at: null,
      line_tracking_stopped_reason: null,
    });
    expect(s?.attributes.pod_eta_at).toMatch(ISO_SECONDS);
    expect(s?.attributes.pol_atd_at).toMatch(ISO_SECONDS);
    expect(toOne(s, "port_of_discharge")).toEqual({ id: USLAX_ID, type: "port" });
    expect(toOne(s, "pod_terminal")).toEqual({ id: FENIX_ID, type: "terminal" });
    expect(toOne(s, "destination")).toBeNull();
    expect(toOne(s, "destination_terminal")).toBeNull();
    expect(toMany(s, "containers").map((c) => c.id)).toEqual(containerIds);
    expect(json.meta).toEqual({ size: 1, total: 1, pagination: { current: 1, last: 1, records: 1 } });
    expect(json.included).toBeUndefined();
  });

  it("include=containers: both containers once each", async () => {
    const { account, containerIds } = await tracked();
    const { json } = await apiJson<Many>("/shipments?include=containers", { key: account.key });
    const included = json.included ?? [];
    expect(included.map((r) => r.type)).toEqual(["container", "container"]);
    expect(included.map((r) => r.id).sort()).toEqual([...containerIds].sort());
    for (const c of included) expect(c.attributes.current_status).toBe("on_ship");
  });

  it("include of every shipment relationship, ports and terminal once each", async () => {
    const { account } = await tracked();
    const { res, json } = await apiJson<Many>(
      "/shipments?include=containers,pod_terminal,port_of_lading,port_of_discharge,destination,destination_terminal",
      { key: account.key },
    );
    expect(res.status).toBe(200);
    const types = (json.included ?? []).map((r) => r.type).sort();
    expect(types).toEqual(["container", "container", "port", "port", "terminal"]);
    const codes = (json.included ?? [])
      .filter((r) => r.type === "port")
      .map((r) => r.attributes.code)
      .sort();
    expect(codes).toEqual(["CNYTN", "USLAX"]);
  });

  it("nested include containers.pod_terminal adds the terminal once", async () => {
    const { account } = await tracked();
    const { json } = await apiJson<Many>("/shipments?include=containers.pod_terminal", { key: account.key });
    expect((json.included ?? []).map((r) => `${r.type}:${r.type === "terminal" ? r.id : ""}`).sort()).toEqual([
      "container:",
      "container:",
      `terminal:${FENIX_ID}`,
    ]);
  });

  it("unknown include → 400 naming the shipment serializer", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/shipments?include=shipment", { key: account.key });
    expect(res.status).toBe(400);
    expect(json.errors?.[0]).toMatchObject({
      detail: "shipment is not specified as a relationship on V2::ShipmentSerializer",
      source: { parameter: "include" },
    });
  });

  describe("filters", () => {
    it("number matches the tracked number, not container numbers", async () => {
      const { account, shipment } = await tracked();
      const { json } = await apiJson<Many>("/shipments?number=test-tr-succeeded", { key: account.key });
      expect(json.data.map((s) => s.id)).toEqual([shipment.id]);
      expect((await apiJson<Many>("/shipments?number=TEST-TR-FAILED", { key: account.key })).json.data).toEqual([]);
      const { json: containers } = await apiJson<Many>("/containers", { key: account.key });
      const containerNumber = String(containers.data[0]?.attributes.number);
      expect((await apiJson<Many>(`/shipments?number=${containerNumber}`, { key: account.key })).json.data).toEqual([]);
    });

    it("filter[tracking_stopped]", async () => {
      const { account, shipment } = await tracked();
      const stoppedId = await insertStoppedShipment(account.accountId);
      const all = await apiJson<Many>("/shipments", { key: account.key });
      expect(all.json.data.map((s) => s.id)).toEqual([shipment.id, stoppedId]);
      expect(all.json.meta?.total).toBe(2);
      const stopped = await apiJson<Many>("/shipments?filter[tracking_stopped]=true", { key: account.key });
      expect(stopped.json.data.map((s) => s.id)).toEqual([stoppedId]);
      expect(stopped.json.data[0]?.attributes).toMatchObject({ line_tracking_stopped_reason: "cancelled_by_user" });
      expect(stopped.json.meta?.total).toBe(1);
      const active = await apiJson<Many>("/shipments?filter[tracking_stopped]=false", { key: account.key });
      expect(active.json.data.map((s) => s.id)).toEqual([shipment.id]);
      const bad = await apiJson<Doc>("/shipments?filter[tracking_stopped]=yes", { key: account.key });
      expect(bad.res.status).toBe(400);
      expect(bad.json.errors?.[0]?.source?.parameter).toBe("filter[tracking_stopped]");
    });

    it("filter[scac] and filter[pod_locode]", async () => {
      const { account, shipment } = await tracked();
      const stoppedId = await insertStoppedShipment(account.accountId);
      expect(
        (await apiJson<Many>("/shipments?filter[pod_locode]=USLAX", { key: account.key })).json.data.map((s) => s.id),
      ).toEqual([shipment.id]);
      expect(
        (await apiJson<Many>("/shipments?filter[pod_locode]=usnyc", { key: account.key })).json.data.map((s) => s.id),
      ).toEqual([stoppedId]);
      expect((await apiJson<Many>("/shipments?filter[scac]=test", { key: account.key })).json.data).toHaveLength(2);
      expect((await apiJson<Many>("/shipments?filter[scac]=MSCU", { key: account.key })).json.data).toEqual([]);
    });
  });
});

describe("GET /shipments/{id}", () => {
  it("answers the shipment with links.self echoing the request", async () => {
    const { account, shipment } = await tracked();
    const path = `/shipments/${shipment.id}?include=containers,port_of_discharge`;
    const { res, json } = await apiJson<One>(path, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.links).toEqual({ self: `${BASE}${path}` });
    expect(json.data.id).toBe(shipment.id);
    const types = (json.included ?? []).map((r) => r.type).sort();
    expect(types).toEqual(["container", "container", "port"]);
  });

  it("an unknown id → 404", async () => {
    const account = await createAccount();
    for (const id of ["00000000-0000-7000-8000-000000000000", "nope"]) {
      const { res, json } = await apiJson<Doc>(`/shipments/${id}`, { key: account.key });
      expect(res.status).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    }
  });
});
