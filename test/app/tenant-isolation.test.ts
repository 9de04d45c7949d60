import { describe, expect, it } from "vitest";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { type Doc, type Many, type One, trackSandboxShipment } from "../helpers/tracking";

/** Account A with a tracked sandbox shipment (request with a customer party), and an empty account B. */
async function twoAccounts() {
  const a = await createAccount("Alpha");
  const b = await createAccount("Beta");
  const { json: party } = await apiJson<One>("/parties", {
    key: a.key,
    body: { data: { type: "party", attributes: { company_name: "Alpha Customer" } } },
  });
  const sandbox = await trackSandboxShipment(a, { ref_numbers: ["A-REF"] });
  return { a, b, partyId: party.data.id, ...sandbox };
}

async function expect404(account: TestAccount, path: string, method = "GET", body?: unknown): Promise<void> {
  const { res, json } = await apiJson<Doc>(path, { key: account.key, method, body });
  expect(res.status, `${method} ${path}`).toBe(404);
  expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
  expect(JSON.stringify(json)).not.toMatch(/Alpha|TEST-TR-SUCCEEDED|A-REF/);
}

describe("another account's resources", () => {
  it("are 404 (never 403) to B, and visible to A", async () => {
    const { a, b, request, shipment, containerIds, partyId } = await twoAccounts();
    const paths = [
      `/tracking_requests/${request.id}`,
      `/tracking_requests/${request.id}?include=tracked_object`,
      `/shipments/${shipment.id}`,
      `/shipments/${shipment.id}?include=containers`,
      ...containerIds.map((id) => `/containers/${id}`),
      `/containers/${containerIds[0]}?include=shipment`,
      `/parties/${partyId}`,
    ];
    for (const path of paths) {
      await expect404(b, path);
      const { res } = await apiJson(path, { key: a.key });
      expect(res.status, `A ${path}`).toBe(200);
    }
  });

  it("never appear in B's lists, with or without filters and includes", async () => {
    const { b, shipment } = await twoAccounts();
    const lists = [
      "/tracking_requests",
      "/tracking_requests?filter[request_number]=TEST-TR-SUCCEEDED",
      "/tracking_requests?filter[status]=created&include=tracked_object,customer",
      "/shipments",
      "/shipments?number=TEST-TR-SUCCEEDED&include=containers",
      "/containers",
      `/containers?filter[shipment_id]=${shipment.id}&include=shipment`,
      "/containers?filter[pod_locode]=USLAX",
      "/parties",
    ];
    for (const path of lists) {
      const { res, json } = await apiJson<Many>(path, { key: b.key });
      expect(res.status, path).toBe(200);
      expect(json.data, path).toEqual([]);
      expect(json.meta?.total, path).toBe(0);
      expect(json.included ?? [], path).toEqual([]);
    }
  });

  it("B's own rows stay separate from A's", async () => {
    const { a, b, request } = await twoAccounts();
    const { res } = await apiJson("/tracking_requests", {
      key: b.key,
      body: {
        data: {
          type: "tracking_request",
          attributes: { request_type: "bill_of_lading", request_number: "TEST-TR-SUCCEEDED", scac: "TEST" },
        },
      },
    });
    // The same number is not a duplicate across accounts.
    expect(res.status).toBe(201);
    const listA = (await apiJson<Many>("/tracking_requests", { key: a.key })).json;
    const listB = (await apiJson<Many>("/tracking_requests", { key: b.key })).json;
    expect(listA.data.map((r) => r.id)).toEqual([request.id]);
    expect(listB.data).toHaveLength(1);
    expect(listB.data[0]?.id).not.toBe(request.id);
  });

  it("B cannot PATCH A's tracking request: 404 and nothing changes", async () => {
    const { a, b, request } = await twoAccounts();
    const before = (await apiJson<One>(`/tracking_requests/${request.id}`, { key: a.key })).json.data;
    await expect404(b, `/tracking_requests/${request.id}`, "PATCH", {
      data: {
        type: "tracking_request",
        id: request.id,
        attributes: { ref_numbers: ["HIJACKED"], shipment_tags: ["x"] },
      },
    });
    await expect404(b, `/tracking_requests/${request.id}`, "PATCH", {
      data: { type: "tracking_request", attributes: { ref_number: "HIJACKED" } },
    });
    const after = (await apiJson<One>(`/tracking_requests/${request.id}`, { key: a.key })).json.data;
    expect(after.attributes.ref_numbers).toEqual(["A-REF"]);
    expect(after.attributes).toEqual(before.attributes);
  });

  it("B cannot use A's party as a customer", async () => {
    const { b, partyId } = await twoAccounts();
    const { res } = await apiJson("/tracking_requests", {
      key: b.key,
      body: {
        data: {
          type: "tracking_request",
          attributes: { request_type: "bill_of_lading", request_number: "TEST-B", scac: "TEST" },
          relationships: { customer: { data: { type: "party", id: partyId } } },
        },
      },
    });
    expect(res.status).toBe(422);
    expect((await apiJson<Many>("/tracking_requests", { key: b.key })).json.data).toEqual([]);
  });
});
