import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hasValidCheckDigit } from "../../src/infer/iso6346";
import { apiJson, BASE, createAccount } from "../helpers/api";
import { type Doc, type Many, type One, toMany, toOne, trackSandboxShipment } from "../helpers/tracking";

/** Fenix Marine Services (FIRMS Y257) at Los Angeles, the sandbox POD terminal. */
const FENIX_ID = "406235e7-48cd-50e5-a48b-e17961617dcf";
const USLAX_ID = "7f489361-09f1-5853-a300-c72f23604b40";

/** Every container attribute of docs/api.md §Container resource. */
const SPEC_ATTRIBUTES = [
  "number",
  "ref_numbers",
  "seal_number",
  "created_at",
  "equipment_type",
  "equipment_length",
  "equipment_height",
  "weight_in_lbs",
  "pickup_lfd",
  "pickup_appointment_at",
  "availability_known",
  "available_for_pickup",
  "pod_arrived_at",
  "pod_discharged_at",
  "pod_full_out_at",
  "terminal_checked_at",
  "pod_full_out_chassis_number",
  "location_at_pod_terminal",
  "final_destination_full_out_at",
  "empty_terminated_at",
  "holds_at_pod_terminal",
  "fees_at_pod_terminal",
  "pod_timezone",
  "final_destination_timezone",
  "empty_terminated_timezone",
  "pod_rail_carrier_scac",
  "ind_rail_carrier_scac",
  "pod_last_tracking_request_at",
  "shipment_last_tracking_request_at",
  "pod_rail_loaded_at",
  "pod_rail_departed_at",
  "ind_eta_at",
  "ind_ata_at",
  "ind_rail_unloaded_at",
  "ind_facility_lfd_on",
  "import_deadlines",
  "current_status",
];
/** The reference service's extra container timestamps (docs/decisions.md §Wire format). */
const EXTRA_TIMESTAMPS = [
  "empty_out_at",
  "pol_full_in_at",
  "pol_vessel_loaded_at",
  "pol_vessel_departed_at",
  "delivered_at",
  "rail_last_tracking_request_at",
];
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

async function tracked() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  return { account, ...sandbox };
}

describe("GET /containers", () => {
  it("lists the sandbox containers newest first with links and meta", async () => {
    const { account, containerIds } = await tracked();
    const { res, json } = await apiJson<Many>("/containers", { key: account.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.data.map((c) => c.id)).toEqual([...containerIds].reverse());
    expect(json.meta).toEqual({ size: 2, total: 2, pagination: { current: 1, last: 1, records: 2 } });
    expect(json.links?.self).toBe(`${BASE}/containers`);
    expect(json.included).toBeUndefined();
  });

  it("every docs/api.md §Container resource attribute and the extra timestamps are present, null when unknown", async () => {
    const { account } = await tracked();
    const { json } = await apiJson<Many>("/containers", { key: account.key });
    for (const container of json.data) {
      expect(container.type).toBe("container");
      const attrs = container.attributes;
      for (const name of [...SPEC_ATTRIBUTES, ...EXTRA_TIMESTAMPS]) expect(attrs, name).toHaveProperty(name);
      // Known facts of the sandbox journey.
      expect(hasValidCheckDigit(String(attrs.number))).toBe(true);
      expect(attrs).toMatchObject({
        ref_numbers: [],
        equipment_type: "dry",
        equipment_length: 40,
        current_status: "on_ship",
        availability_known: false,
        holds_at_pod_terminal: [],
        fees_at_pod_terminal: [],
        pod_timezone: "America/Los_Angeles",
      });
      expect(["standard", "high_cube"]).toContain(attrs.equipment_height);
      expect(typeof attrs.weight_in_lbs).toBe("number");
      expect(String(attrs.seal_number)).toMatch(/^SB\d+$/);
      for (const name of [
        "created_at",
        "empty_out_at",
        "pol_full_in_at",
        "pol_vessel_loaded_at",
        "pol_vessel_departed_at",
        "shipment_last_tracking_request_at",
      ]) {
        expect(attrs[name], name).toMatch(ISO_SECONDS);
      }
      // Unknown facts are null, not missing.
      for (const name of [
        "pickup_lfd",
        "pickup_appointment_at",
        "available_for_pickup",
        "pod_arrived_at",
        "pod_discharged_at",
        "pod_full_out_at",
        "terminal_checked_at",
        "pod_full_out_chassis_number",
        "location_at_pod_terminal",
        "final_destination_full_out_at",
        "empty_terminated_at",
        "delivered_at",
        "empty_terminated_timezone",
        "pod_rail_carrier_scac",
        "ind_rail_carrier_scac",
        "pod_rail_loaded_at",
        "pod_rail_departed_at",
        "ind_eta_at",
        "ind_ata_at",
        "ind_rail_unloaded_at",
        "ind_facility_lfd_on",
        "rail_last_tracking_request_at",
      ]) {
        expect(attrs[name], name).toBeNull();
      }
      expect(attrs.import_deadlines).toEqual({
        pickup_lfd_terminal: null,
        pickup_lfd_rail: null,
        pickup_lfd_line: null,
      });
      // The journey's order holds.
      expect(String(attrs.empty_out_at) < String(attrs.pol_full_in_at)).toBe(true);
      expect(String(attrs.pol_vessel_loaded_at) <= String(attrs.pol_vessel_departed_at)).toBe(true);
    }
  });

  it("relationship linkage is always present, included or not", async () => {
    const { account, shipment } = await tracked();
    const { json } = await apiJson<Many>("/containers", { key: account.key });
    for (const container of json.data) {
      expect(toOne(container, "shipment")).toEqual({ id: shipment.id, type: "shipment" });
      expect(toOne(container, "pod_terminal")).toEqual({ id: FENIX_ID, type: "terminal" });
      expect(toOne(container, "pickup_facility")).toBeNull();
      expect(toMany(container, "transport_events")).toEqual([]);
      expect(toMany(container, "raw_events")).toEqual([]);
    }
  });

  it("include=shipment,pod_terminal,pickup_facility,transport_events: each related resource once", async () => {
    const { account, shipment } = await tracked();
    const { res, json } = await apiJson<Many>(
      "/containers?include=shipment,pod_terminal,pickup_facility,transport_events",
      { key: account.key },
    );
    expect(res.status).toBe(200);
    const keys = (json.included ?? []).map((r) => `${r.type}:${r.id}`).sort();
    // Two containers of one shipment at one terminal: the shipment and the terminal appear once each.
    expect(keys).toEqual([`shipment:${shipment.id}`, `terminal:${FENIX_ID}`]);
    const terminal = json.included?.find((r) => r.type === "terminal");
    expect(terminal?.attributes).toMatchObject({ name: "Fenix Marine Services", firms_code: "Y257" });
    const includedShipment = json.included?.find((r) => r.type === "shipment");
    expect(toMany(includedShipment, "containers")).toHaveLength(2);
  });

  it("nested include shipment.port_of_discharge", async () => {
    const { account, shipment } = await tracked();
    const { res, json } = await apiJson<Many>("/containers?include=shipment.port_of_discharge", { key: account.key });
    expect(res.status).toBe(200);
    const keys = (json.included ?? []).map((r) => `${r.type}:${r.id}`).sort();
    expect(keys).toEqual([`port:${USLAX_ID}`, `shipment:${shipment.id}`]);
    const port = json.included?.find((r) => r.type === "port");
    expect(port?.attributes).toMatchObject({ code: "USLAX", time_zone: "America/Los_Angeles" });
  });

  describe("nested include back to containers (issue 23 §5)", () => {
    /** Keys (`type:id`) of a document's included resources, sorted. */
    const includedKeys = (doc: Doc) => (doc.included ?? []).map((r) => `${r.type}:${r.id}`).sort();

    it("shipment.containers: every container of the shipment is in data or included, none twice", async () => {
      const { account, shipment, containerIds } = await tracked();
      // The whole account on one page: the shipment's containers are the primary data, which JSON:API does not
      // repeat in `included`; the included shipment's linkage resolves against `data`.
      const { res, json } = await apiJson<Many>("/containers?include=shipment.containers", { key: account.key });
      expect(res.status).toBe(200);
      expect(includedKeys(json)).toEqual([`shipment:${shipment.id}`]);
      const linked = toMany(
        json.included?.find((r) => r.type === "shipment"),
        "containers",
      ).map((r) => r.id);
      expect(linked.sort()).toEqual([...containerIds].sort());
      expect(json.data.map((c) => c.id).sort()).toEqual([...containerIds].sort());

      // One container per page: its sibling is not primary data, so it is included.
      const [older, newer] = containerIds;
      const paged = await apiJson<Many>("/containers?page[size]=1&include=shipment.containers", { key: account.key });
      expect(paged.json.data.map((c) => c.id)).toEqual([newer]);
      expect(includedKeys(paged.json)).toEqual([`container:${older}`, `shipment:${shipment.id}`].sort());

      const one = await apiJson<One>(`/containers/${older}?include=shipment.containers`, { key: account.key });
      expect(includedKeys(one.json)).toEqual([`container:${newer}`, `shipment:${shipment.id}`].sort());
    });

    it("a relationship included at the top and again below shipment.containers is loaded for each level", async () => {
      const { account, shipment, containerIds } = await tracked();
      const [older, newer] = containerIds;
      // Only the older container has a pickup facility; the newer one is the primary resource.
      await env.DB.prepare("UPDATE containers SET pickup_facility_id = ?1 WHERE id = ?2").bind(FENIX_ID, older).run();
      const include = "include=pickup_facility,shipment.containers.pickup_facility";
      const expected = [`container:${older}`, `shipment:${shipment.id}`, `terminal:${FENIX_ID}`].sort();

      const one = await apiJson<One>(`/containers/${newer}?${include}`, { key: account.key });
      expect(one.res.status).toBe(200);
      expect(toOne(one.json.data, "pickup_facility")).toBeNull();
      expect(includedKeys(one.json)).toEqual(expected);

      const page = await apiJson<Many>(`/containers?page[size]=1&${include}`, { key: account.key });
      expect(page.res.status).toBe(200);
      expect(page.json.data.map((c) => c.id)).toEqual([newer]);
      expect(includedKeys(page.json)).toEqual(expected);
    });
  });

  it("unknown include → 400 naming the container serializer", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/containers?include=vessel", { key: account.key });
    expect(res.status).toBe(400);
    expect(json.errors?.[0]).toMatchObject({
      detail: "vessel is not specified as a relationship on V2::ContainerSerializer",
      source: { parameter: "include" },
    });
  });

  describe("filters", () => {
    it("filter[number], normalised", async () => {
      const { account, containerIds } = await tracked();
      const { json: all } = await apiJson<Many>("/containers", { key: account.key });
      const target = all.data.find((c) => c.id === containerIds[0]);
      const number = String(target?.attributes.number);
      const { json } = await apiJson<Many>(`/containers?filter[number]=${number}`, { key: account.key });
      expect(json.data.map((c) => c.id)).toEqual([containerIds[0]]);
      expect(json.meta?.total).toBe(1);
      const spaced = `${number.slice(0, 4).toLowerCase()}-${number.slice(4)}`;
      const { json: loose } = await apiJson<Many>(`/containers?filter[number]=${spaced}`, { key: account.key });
      expect(loose.data.map((c) => c.id)).toEqual([containerIds[0]]);
      const { json: none } = await apiJson<Many>("/containers?filter[number]=MSCU1234565", { key: account.key });
      expect(none.data).toEqual([]);
    });

    it("filter[status]", async () => {
      const { account } = await tracked();
      expect((await apiJson<Many>("/containers?filter[status]=on_ship", { key: account.key })).json.data).toHaveLength(
        2,
      );
      expect((await apiJson<Many>("/containers?filter[status]=available", { key: account.key })).json.data).toEqual([]);
      const bad = await apiJson<Doc>("/containers?filter[status]=at_sea", { key: account.key });
      expect(bad.res.status).toBe(400);
      expect(bad.json.errors?.[0]?.source?.parameter).toBe("filter[status]");
    });

    it("filter[shipment_id], filter[pod_locode] and filter[status] separate two shipments", async () => {
      const { account, shipment, containerIds } = await tracked();
      // A second shipment with one container in the same account (written directly: the sandbox knows one journey).
      await env.DB.batch([
        env.DB.prepare(
          `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, created_at, updated_at)
           VALUES ('00000000-0000-7000-8000-00000000a5a5', ?1, 'OTHER-BL', 'OTHER-BL', 'TEST', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`,
        ).bind(account.accountId),
        env.DB.prepare(
          `INSERT INTO containers (id, account_id, shipment_id, number, current_status, pod_locode, scac, created_at, updated_at)
           VALUES ('00000000-0000-7000-8000-00000000c5c5', ?1, '00000000-0000-7000-8000-00000000a5a5', 'MSCU1234565', 'available', 'USNYC', 'TEST', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`,
        ).bind(account.accountId),
      ]);
      const { json } = await apiJson<Many>(`/containers?filter[shipment_id]=${shipment.id}`, { key: account.key });
      expect(json.data.map((c) => c.id).sort()).toEqual([...containerIds].sort());
      const { json: other } = await apiJson<Many>(
        "/containers?filter[shipment_id]=00000000-0000-7000-8000-00000000a5a5",
        { key: account.key },
      );
      expect(other.data.map((c) => c.id)).toEqual(["00000000-0000-7000-8000-00000000c5c5"]);
      const { json: pod } = await apiJson<Many>("/containers?filter[pod_locode]=usnyc", { key: account.key });
      expect(pod.data.map((c) => c.id)).toEqual(["00000000-0000-7000-8000-00000000c5c5"]);
      const { json: available } = await apiJson<Many>("/containers?filter[status]=available", { key: account.key });
      expect(available.data.map((c) => c.id)).toEqual(["00000000-0000-7000-8000-00000000c5c5"]);
    });

    it("filter[pod_locode]", async () => {
      const { account } = await tracked();
      expect(
        (await apiJson<Many>("/containers?filter[pod_locode]=USLAX", { key: account.key })).json.data,
      ).toHaveLength(2);
      expect(
        (await apiJson<Many>("/containers?filter[pod_locode]=uslax", { key: account.key })).json.data,
      ).toHaveLength(2);
      expect((await apiJson<Many>("/containers?filter[pod_locode]=NLRTM", { key: account.key })).json.data).toEqual([]);
    });

    it("filter[scac] and filter[updated_at]", async () => {
      const { account } = await tracked();
      expect((await apiJson<Many>("/containers?filter[scac]=TEST", { key: account.key })).json.data).toHaveLength(2);
      expect((await apiJson<Many>("/containers?filter[scac]=MAEU", { key: account.key })).json.data).toEqual([]);
      expect(
        (await apiJson<Many>("/containers?filter[updated_at][start]=2000-01-01", { key: account.key })).json.data,
      ).toHaveLength(2);
      expect(
        (await apiJson<Many>("/containers?filter[updated_at][end]=2000-01-01", { key: account.key })).json.data,
      ).toEqual([]);
      const bad = await apiJson<Doc>("/containers?filter[updated_at][start]=soon", { key: account.key });
      expect(bad.res.status).toBe(400);
      expect(bad.json.errors?.[0]?.source?.parameter).toBe("filter[updated_at][start]");
    });
  });
});

describe("GET /containers/{id}", () => {
  it("answers one container with links.self", async () => {
    const { account, containerIds } = await tracked();
    const id = containerIds[0] ?? "";
    const { res, json } = await apiJson<One>(`/containers/${id}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data.id).toBe(id);
    expect(json.data.type).toBe("container");
    expect(json.links).toEqual({ self: `${BASE}/containers/${id}` });
    expect(json.included).toBeUndefined();
    for (const name of [...SPEC_ATTRIBUTES, ...EXTRA_TIMESTAMPS])
      expect(json.data.attributes, name).toHaveProperty(name);
  });

  it("include=shipment,pod_terminal,pickup_facility,transport_events; links.self keeps the query", async () => {
    const { account, containerIds, shipment } = await tracked();
    const id = containerIds[1] ?? "";
    const path = `/containers/${id}?include=shipment,pod_terminal,pickup_facility,transport_events`;
    const { res, json } = await apiJson<One>(path, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.links?.self).toBe(`${BASE}${path}`);
    expect((json.included ?? []).map((r) => `${r.type}:${r.id}`).sort()).toEqual([
      `shipment:${shipment.id}`,
      `terminal:${FENIX_ID}`,
    ]);
  });

  it("an unknown id → 404", async () => {
    const account = await createAccount();
    for (const id of ["00000000-0000-7000-8000-000000000000", "garbage"]) {
      const { res, json } = await apiJson<Doc>(`/containers/${id}`, { key: account.key });
      expect(res.status).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    }
  });
});
