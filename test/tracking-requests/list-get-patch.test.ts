import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { apiJson, BASE, createAccount, type TestAccount } from "../helpers/api";
import {
  createTrackingRequest,
  type Doc,
  deliverTrackingMessages,
  type Many,
  type One,
  toOne,
} from "../helpers/tracking";

/**
 * An account with three processed requests — TEST-TR-SUCCEEDED (bill_of_lading → created),
 * TEST-TR-FAILED (booking_number → failed), TEST-OTHER (container → failed) — plus one pending row
 * inserted directly (no queue message, so it stays pending).
 */
async function seededAccount() {
  const account = await createAccount();
  const succeeded = await createTrackingRequest(account, { request_number: "TEST-TR-SUCCEEDED" });
  const failed = await createTrackingRequest(account, {
    request_number: "TEST-TR-FAILED",
    request_type: "booking_number",
  });
  const other = await createTrackingRequest(account, { request_number: "TEST-OTHER", request_type: "container" });
  await deliverTrackingMessages(
    [succeeded, failed, other].map((r) => ({ trackingRequestId: r.id, accountId: account.accountId })),
  );
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac, line_scac, status, created_at, updated_at)
       VALUES (?1, ?2, 'bill_of_lading', 'TEST-PENDING', 'TEST-PENDING', 'TEST', 'TEST', 'pending', '2020-06-01T00:00:00Z', '2020-06-01T00:00:00Z')`,
    ).bind(newId(), account.accountId),
    env.DB.prepare(
      `INSERT INTO account_resource_counts (account_id, resource, count) VALUES (?1, 'tracking_request', 1)
       ON CONFLICT (account_id, resource) DO UPDATE SET count = count + 1`,
    ).bind(account.accountId),
  ]);
  return { account, succeeded, failed, other };
}

async function list(account: TestAccount, query: string): Promise<{ status: number; json: Many }> {
  const { res, json } = await apiJson<Many>(`/tracking_requests${query}`, { key: account.key });
  return { status: res.status, json };
}

const numbers = (doc: Many) => doc.data.map((r) => r.attributes.request_number);

describe("GET /tracking_requests: filters", () => {
  it("without filters lists everything newest first", async () => {
    const { account } = await seededAccount();
    const { status, json } = await list(account, "");
    expect(status).toBe(200);
    // created_at DESC, then id DESC (UUID v7, time-ordered) for requests created within the same second.
    expect(numbers(json)).toEqual(["TEST-OTHER", "TEST-TR-FAILED", "TEST-TR-SUCCEEDED", "TEST-PENDING"]);
    expect(json.meta?.total).toBe(4);
  });

  it("filter[status]", async () => {
    const { account } = await seededAccount();
    expect(numbers((await list(account, "?filter[status]=created")).json)).toEqual(["TEST-TR-SUCCEEDED"]);
    expect(new Set(numbers((await list(account, "?filter[status]=failed")).json))).toEqual(
      new Set(["TEST-TR-FAILED", "TEST-OTHER"]),
    );
    const pending = (await list(account, "?filter[status]=pending")).json;
    expect(numbers(pending)).toEqual(["TEST-PENDING"]);
    expect(pending.meta?.total).toBe(1);
    expect((await list(account, "?filter[status]=tracking_stopped")).json.data).toEqual([]);
  });

  it("filter[request_number] matches exactly, ignoring case and surrounding spaces", async () => {
    const { account } = await seededAccount();
    expect(numbers((await list(account, "?filter[request_number]=test-tr-failed")).json)).toEqual(["TEST-TR-FAILED"]);
    expect(numbers((await list(account, "?filter[request_number]=%20TEST-OTHER%20")).json)).toEqual(["TEST-OTHER"]);
    expect((await list(account, "?filter[request_number]=TEST-TR")).json.data).toEqual([]);
  });

  it("filter[scac]", async () => {
    const { account } = await seededAccount();
    expect((await list(account, "?filter[scac]=test")).json.data).toHaveLength(4);
    expect((await list(account, "?filter[scac]=MSCU")).json.data).toEqual([]);
  });

  it("filter[request_type]", async () => {
    const { account } = await seededAccount();
    expect(numbers((await list(account, "?filter[request_type]=container")).json)).toEqual(["TEST-OTHER"]);
    expect(numbers((await list(account, "?filter[request_type]=booking_number")).json)).toEqual(["TEST-TR-FAILED"]);
    expect((await list(account, "?filter[request_type]=booking")).json.data).toEqual([]);
  });

  it("filter[created_at][start|end]", async () => {
    const { account } = await seededAccount();
    expect(numbers((await list(account, "?filter[created_at][end]=2021-01-01")).json)).toEqual(["TEST-PENDING"]);
    expect(
      numbers(
        (
          await list(
            account,
            "?filter[created_at][start]=2020-06-01T00:00:00Z&filter[created_at][end]=2020-06-01T00:00:00Z",
          )
        ).json,
      ),
    ).toEqual(["TEST-PENDING"]);
    const recent = (await list(account, "?filter[created_at][start]=2021-01-01T00:00:00%2B00:00")).json;
    expect(new Set(numbers(recent))).toEqual(new Set(["TEST-TR-SUCCEEDED", "TEST-TR-FAILED", "TEST-OTHER"]));
    expect(recent.meta?.total).toBe(3);
    expect((await list(account, "?filter[created_at][start]=2099-01-01")).json.data).toEqual([]);
  });

  it("filters combine", async () => {
    const { account } = await seededAccount();
    expect(numbers((await list(account, "?filter[status]=failed&filter[request_type]=container")).json)).toEqual([
      "TEST-OTHER",
    ]);
    expect((await list(account, "?filter[status]=created&filter[request_type]=container")).json.data).toEqual([]);
  });

  it("an unknown filter → 400 naming it (docs/decisions.md §Wire format: refused, not ignored)", async () => {
    const { account } = await seededAccount();
    const { status, json } = await list(account, "?filter[colour]=blue");
    expect(status).toBe(400);
    expect(json.errors?.map((e) => [e.source?.parameter, e.code])).toEqual([["filter[colour]", "unknown_parameter"]]);
  });

  const invalid: [string, string][] = [
    ["?filter[status]=succeeded", "filter[status]"],
    ["?filter[request_type]=airway_bill", "filter[request_type]"],
    ["?filter[created_at][start]=yesterday", "filter[created_at][start]"],
    ["?filter[created_at][end]=2024-13-45", "filter[created_at][end]"],
    ["?filter[updated_at][start]=1700000000", "filter[updated_at][start]"],
  ];
  for (const [query, parameter] of invalid) {
    it(`invalid value ${query} → 400 naming ${parameter}`, async () => {
      const account = await createAccount();
      const { res, json } = await apiJson<Doc>(`/tracking_requests${query}`, { key: account.key });
      expect(res.status).toBe(400);
      expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
      expect(json.errors?.[0]).toMatchObject({ status: "400", title: "Bad Request", source: { parameter } });
    });
  }
});

describe("GET /tracking_requests: include", () => {
  it("includes tracked_object by default once the shipment exists, once per shipment", async () => {
    const { account, succeeded } = await seededAccount();
    const { json } = await list(account, "");
    const shipmentId = toOne(
      json.data.find((r) => r.id === succeeded.id),
      "tracked_object",
    )?.id;
    expect(shipmentId).toBeTruthy();
    expect(json.included?.map((r) => `${r.type}:${r.id}`)).toEqual([`shipment:${shipmentId}`]);
    for (const r of json.data.filter((x) => x.id !== succeeded.id)) expect(toOne(r, "tracked_object")).toBeNull();
  });

  it("an empty include includes nothing, but linkage stays", async () => {
    const { account, succeeded } = await seededAccount();
    const { json } = await list(account, "?include=");
    expect(json.included).toBeUndefined();
    const linked = json.data.find((r) => r.id === succeeded.id);
    expect(toOne(linked, "tracked_object")?.type).toBe("shipment");
  });

  it("include=customer includes the party instead", async () => {
    const account = await createAccount();
    const { json: party } = await apiJson<One>("/parties", {
      key: account.key,
      body: { data: { type: "party", attributes: { company_name: "Gouda BV" } } },
    });
    const { res } = await apiJson("/tracking_requests", {
      key: account.key,
      body: {
        data: {
          type: "tracking_request",
          attributes: { request_type: "bill_of_lading", request_number: "TEST-WITH-CUSTOMER", scac: "TEST" },
          relationships: { customer: { data: { type: "party", id: party.data.id } } },
        },
      },
    });
    expect(res.status).toBe(201);
    const { json } = await list(account, "?include=customer");
    expect(json.included?.map((r) => `${r.type}:${r.id}`)).toEqual([`party:${party.data.id}`]);
    const both = (await list(account, "?include=customer,tracked_object")).json;
    expect(both.included?.some((r) => r.type === "party")).toBe(true);
  });

  it("unknown include → 400 in the reference wording", async () => {
    const account = await createAccount();
    for (const path of [
      "/tracking_requests?include=containers",
      "/tracking_requests/00000000-0000-7000-8000-000000000000?include=containers",
    ]) {
      const { res, json } = await apiJson<Doc>(path, { key: account.key });
      expect(res.status, path).toBe(400);
      expect(json.errors).toEqual([
        {
          status: "400",
          title: "Bad Request",
          detail: "containers is not specified as a relationship on V2::TrackingRequestSerializer",
          source: { parameter: "include" },
        },
      ]);
    }
  });

  it("nested include through tracked_object reaches the containers", async () => {
    const { account } = await seededAccount();
    const { status, json } = await list(account, "?include=tracked_object.containers");
    expect(status).toBe(200);
    expect(json.included?.filter((r) => r.type === "container")).toHaveLength(2);
    expect(json.included?.filter((r) => r.type === "shipment")).toHaveLength(1);
    const bad = await apiJson<Doc>("/tracking_requests?include=tracked_object.nope", { key: account.key });
    expect(bad.res.status).toBe(400);
    expect(bad.json.errors?.[0]?.detail).toBe("nope is not specified as a relationship on V2::ShipmentSerializer");
  });
});

describe("GET /tracking_requests/{id}", () => {
  it("answers the request with links.self echoing the URL and the shipment included", async () => {
    const { account, succeeded } = await seededAccount();
    const { res, json } = await apiJson<One>(`/tracking_requests/${succeeded.id}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.links).toEqual({ self: `${BASE}/tracking_requests/${succeeded.id}` });
    expect(json.data.id).toBe(succeeded.id);
    expect(json.data.links).toEqual({ self: `/v2/tracking_requests/${succeeded.id}` });
    expect(json.included).toHaveLength(1);
    expect(json.included?.[0]?.type).toBe("shipment");
  });

  it("an unknown id → 404 JSON:API", async () => {
    const account = await createAccount();
    for (const id of ["00000000-0000-7000-8000-000000000000", "not-a-uuid"]) {
      const { res, json } = await apiJson<Doc>(`/tracking_requests/${id}`, { key: account.key });
      expect(res.status).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
    }
  });
});

describe("PATCH /tracking_requests/{id}", () => {
  async function patch(account: TestAccount, id: string, data: Record<string, unknown>) {
    return apiJson<Doc>(`/tracking_requests/${id}`, {
      key: account.key,
      method: "PATCH",
      body: { data: { type: "tracking_request", ...data } },
    });
  }

  it("replaces ref_numbers and keeps the rest", async () => {
    const account = await createAccount();
    const created = await createTrackingRequest(account, {
      request_number: "TEST-PATCH",
      ref_numbers: ["OLD"],
      shipment_tags: ["t"],
    });
    const { res, json } = await patch(account, created.id, {
      id: created.id,
      attributes: { ref_numbers: ["A-1", "B-2"] },
    });
    expect(res.status).toBe(200);
    expect((json as One).data.attributes).toMatchObject({
      ref_numbers: ["A-1", "B-2"],
      shipment_tags: ["t"],
      request_number: "TEST-PATCH",
    });
    const { json: got } = await apiJson<One>(`/tracking_requests/${created.id}`, { key: account.key });
    expect(got.data.attributes.ref_numbers).toEqual(["A-1", "B-2"]);
  });

  it("accepts the singular ref_number of the reference spec, without data.id", async () => {
    const account = await createAccount();
    const created = await createTrackingRequest(account, {
      request_number: "TEST-PATCH-1",
      ref_numbers: ["OLD-1", "OLD-2"],
    });
    const { res, json } = await patch(account, created.id, { attributes: { ref_number: "REFNUMBER11" } });
    expect(res.status).toBe(200);
    expect((json as One).data.attributes.ref_numbers).toEqual(["REFNUMBER11"]);
  });

  it("an empty list clears the ref numbers", async () => {
    const account = await createAccount();
    const created = await createTrackingRequest(account, { request_number: "TEST-PATCH-2", ref_numbers: ["X"] });
    const { json } = await patch(account, created.id, { attributes: { ref_numbers: [] } });
    expect((json as One).data.attributes.ref_numbers).toEqual([]);
  });

  it("a data.id that disagrees with the path → 422 and nothing changes", async () => {
    const account = await createAccount();
    const created = await createTrackingRequest(account, { request_number: "TEST-PATCH-3", ref_numbers: ["KEEP"] });
    const { res, json } = await patch(account, created.id, {
      id: "00000000-0000-7000-8000-000000000000",
      attributes: { ref_numbers: ["CHANGED"] },
    });
    expect(res.status).toBe(422);
    expect(json.errors?.[0]).toMatchObject({ status: "422", source: { pointer: "/data/id" } });
    const { json: got } = await apiJson<One>(`/tracking_requests/${created.id}`, { key: account.key });
    expect(got.data.attributes.ref_numbers).toEqual(["KEEP"]);
  });

  it("attributes that cannot be changed are refused with their pointer", async () => {
    const account = await createAccount();
    const created = await createTrackingRequest(account, { request_number: "TEST-PATCH-4" });
    const { res, json } = await patch(account, created.id, {
      attributes: { request_number: "OTHER", status: "created" },
    });
    expect(res.status).toBe(422);
    const pointers = (json.errors ?? []).map((e) => e.source?.pointer).sort();
    expect(pointers).toEqual(["/data/attributes/request_number", "/data/attributes/status"]);
    const { json: got } = await apiJson<One>(`/tracking_requests/${created.id}`, { key: account.key });
    expect(got.data.attributes.request_number).toBe("TEST-PATCH-4");
  });

  it("an unknown id → 404", async () => {
    const account = await createAccount();
    const { res } = await patch(account, "00000000-0000-7000-8000-000000000000", {
      attributes: { ref_numbers: ["X"] },
    });
    expect(res.status).toBe(404);
  });
});
