import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CONTAINER_OWNERS } from "../../src/reference/generated/container-prefixes";
import { SHIPPING_LINES } from "../../src/reference/generated/shipping-lines";
import { findShippingLine } from "../../src/reference/shipping-lines";
import { api, apiJson, createAccount, type TestAccount, trackingRequestBody } from "../helpers/api";
import type { Doc, Many, One } from "../helpers/tracking";

const SCAC = "/data/attributes/scac";
const NUMBER = "/data/attributes/request_number";

async function create(
  account: TestAccount,
  attributes: Record<string, unknown>,
  relationships?: Record<string, unknown>,
) {
  return apiJson<Doc>("/tracking_requests", { key: account.key, body: trackingRequestBody(attributes, relationships) });
}

/** The account's tracking requests as the API lists them. */
async function listed(account: TestAccount): Promise<Many> {
  const { json } = await apiJson<Many>("/tracking_requests", { key: account.key });
  return json;
}

async function expectNothingWritten(account: TestAccount): Promise<void> {
  const list = await listed(account);
  expect(list.data).toEqual([]);
  expect(list.meta?.total).toBe(0);
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_requests WHERE account_id = ?1")
    .bind(account.accountId)
    .first<{ n: number }>();
  expect(row?.n).toBe(0);
}

describe("POST /tracking_requests: 201", () => {
  it("answers the pending request in the reference shape", async () => {
    const account = await createAccount();
    const { res, json } = await create(account, {
      request_number: "TEST-TR-SUCCEEDED",
      scac: "TEST",
      ref_numbers: ["PO-1"],
      shipment_tags: ["camembert"],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    const data = (json as One).data;
    expect(data.type).toBe("tracking_request");
    expect(data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(data.links).toEqual({ self: `/v2/tracking_requests/${data.id}` });
    expect(data.attributes).toMatchObject({
      request_number: "TEST-TR-SUCCEEDED",
      request_type: "bill_of_lading",
      scac: "TEST",
      ref_numbers: ["PO-1"],
      shipment_tags: ["camembert"],
      status: "pending",
      failed_reason: null,
      is_retrying: false,
      retry_count: null,
    });
    expect(data.attributes.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(data.attributes.updated_at).toBe(data.attributes.created_at);
    expect(data.relationships?.tracked_object).toEqual({ data: null });
    expect(data.relationships?.customer).toEqual({ data: null });

    const { res: getRes, json: got } = await apiJson<One>(`/tracking_requests/${data.id}`, { key: account.key });
    expect(getRes.status).toBe(200);
    expect(got.data.attributes.request_number).toBe("TEST-TR-SUCCEEDED");
  });

  it("accepts application/vnd.api+json bodies", async () => {
    const account = await createAccount();
    const res = await api("/tracking_requests", {
      key: account.key,
      headers: { "Content-Type": "application/vnd.api+json" },
      body: trackingRequestBody({ request_number: "TEST-VND", scac: "TEST" }),
    });
    expect(res.status).toBe(201);
  });

  it("accepts the booking_number alias and echoes it", async () => {
    const account = await createAccount();
    const { res, json } = await create(account, {
      request_type: "booking_number",
      request_number: "TEST-BOOKING-1",
      scac: "TEST",
    });
    expect(res.status).toBe(201);
    expect((json as One).data.attributes.request_type).toBe("booking_number");
    const { res: bookingRes, json: booking } = await create(account, {
      request_type: "booking",
      request_number: "TEST-BOOKING-2",
      scac: "TEST",
    });
    expect(bookingRes.status).toBe(201);
    expect((booking as One).data.attributes.request_type).toBe("booking");
    const { json: filtered } = await apiJson<Many>("/tracking_requests?filter[request_type]=booking_number", {
      key: account.key,
    });
    expect(filtered.data.map((r) => r.attributes.request_number)).toEqual(["TEST-BOOKING-1"]);
  });

  it("accepts the container request type", async () => {
    const account = await createAccount();
    const { res, json } = await create(account, {
      request_type: "container",
      request_number: "TSTU1000000",
      scac: "TEST",
    });
    expect(res.status).toBe(201);
    expect((json as One).data.attributes.request_type).toBe("container");
  });

  it("trims the request number and upper-cases the SCAC", async () => {
    const account = await createAccount();
    const { res, json } = await create(account, { request_number: "  TEST-TRIM  ", scac: " test " });
    expect(res.status).toBe(201);
    expect((json as One).data.attributes).toMatchObject({ request_number: "TEST-TRIM", scac: "TEST" });
  });
});

describe("POST /tracking_requests: validation (422)", () => {
  const cases: {
    name: string;
    attributes: Record<string, unknown>;
    errors: { pointer: string; code: string; detail: string | RegExp }[];
  }[] = [
    {
      name: "blank scac",
      attributes: { request_number: "TEST-TR-SUCCEEDED", scac: "" },
      errors: [{ pointer: SCAC, code: "blank", detail: "Scac can't be blank" }],
    },
    {
      name: "whitespace scac",
      attributes: { request_number: "TEST-TR-SUCCEEDED", scac: "   " },
      errors: [{ pointer: SCAC, code: "blank", detail: "Scac can't be blank" }],
    },
    {
      name: "missing scac",
      attributes: { request_number: "TEST-TR-SUCCEEDED" },
      errors: [{ pointer: SCAC, code: "blank", detail: "Scac can't be blank" }],
    },
    {
      name: "null scac",
      attributes: { request_number: "TEST-TR-SUCCEEDED", scac: null },
      errors: [{ pointer: SCAC, code: "blank", detail: "Scac can't be blank" }],
    },
    {
      name: "unknown scac",
      attributes: { request_number: "TEST-TR-SUCCEEDED", scac: "XXXX" },
      errors: [{ pointer: SCAC, code: "not_recognized", detail: "Scac 'XXXX' is not recognized" }],
    },
    {
      name: "known but unsupported scac",
      attributes: { request_number: "MAEU123456789", scac: "MAEU" },
      errors: [
        {
          pointer: SCAC,
          code: "not_supported",
          detail: "Scac 'MAEU' is not supported. We do not currently integrate with Maersk",
        },
      ],
    },
    {
      name: "blank request number",
      attributes: { request_number: "", scac: "TEST" },
      errors: [{ pointer: NUMBER, code: "blank", detail: "Request number can't be blank" }],
    },
    {
      name: "whitespace request number",
      attributes: { request_number: "   ", scac: "TEST" },
      errors: [{ pointer: NUMBER, code: "blank", detail: "Request number can't be blank" }],
    },
    {
      name: "request number that is not a tracking number",
      attributes: { request_number: "<script>", scac: "TEST" },
      errors: [
        { pointer: NUMBER, code: "invalid", detail: "Request number '<script>' is not a valid tracking number" },
      ],
    },
    {
      name: "several errors at once",
      attributes: { request_number: "", scac: "XXXX" },
      errors: [
        { pointer: SCAC, code: "not_recognized", detail: "Scac 'XXXX' is not recognized" },
        { pointer: NUMBER, code: "blank", detail: "Request number can't be blank" },
      ],
    },
    {
      name: "blank scac and blank number",
      attributes: { request_number: " ", scac: "" },
      errors: [
        { pointer: SCAC, code: "blank", detail: "Scac can't be blank" },
        { pointer: NUMBER, code: "blank", detail: "Request number can't be blank" },
      ],
    },
  ];

  for (const c of cases) {
    it(`${c.name}`, async () => {
      const account = await createAccount();
      const { res, json } = await create(account, c.attributes);
      expect(res.status).toBe(422);
      expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
      const errors = json.errors ?? [];
      expect(errors).toHaveLength(c.errors.length);
      for (const expected of c.errors) {
        const found = errors.find((e) => e.source?.pointer === expected.pointer);
        expect(found, expected.pointer).toBeDefined();
        expect(found).toMatchObject({ status: "422", title: "Unprocessable Entity", code: expected.code });
        if (typeof expected.detail === "string") expect(found?.detail).toBe(expected.detail);
        else expect(found?.detail).toMatch(expected.detail);
      }
      await expectNothingWritten(account);
    });
  }

  it("missing request_number and unknown request_type each get their own pointer", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/tracking_requests", {
      key: account.key,
      body: { data: { type: "tracking_request", attributes: { request_type: "airway_bill", scac: "TEST" } } },
    });
    expect(res.status).toBe(422);
    const pointers = (json.errors ?? []).map((e) => e.source?.pointer).sort();
    expect(pointers).toEqual(["/data/attributes/request_number", "/data/attributes/request_type"]);
    await expectNothingWritten(account);
  });

  it("a wrong resource type is refused", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/tracking_requests", {
      key: account.key,
      body: {
        data: {
          type: "shipment",
          attributes: { request_type: "bill_of_lading", request_number: "TEST-X", scac: "TEST" },
        },
      },
    });
    expect(res.status).toBe(422);
    expect(json.errors?.[0]?.source?.pointer).toBe("/data/type");
    await expectNothingWritten(account);
  });
});

describe("POST /tracking_requests: alternative SCACs", () => {
  const withAlternatives = SHIPPING_LINES.filter((l) => l.scac !== "TEST" && l.alternativeScacs.length > 0);

  it("the registry has lines with alternative SCACs (MSCU ← MEDU among them)", () => {
    expect(withAlternatives.length).toBeGreaterThan(0);
    expect(findShippingLine("MEDU")?.scac).toBe("MSCU");
  });

  it("an alternative SCAC of a real line is recognised (not_supported, naming the line), never not_recognized", async () => {
    const account = await createAccount();
    for (const line of withAlternatives.slice(0, 3)) {
      const alternative = line.alternativeScacs[0] ?? "";
      const { res, json } = await create(account, { request_number: "ABC123456", scac: alternative });
      expect(res.status, alternative).toBe(422);
      expect(json.errors).toHaveLength(1);
      expect(json.errors?.[0]).toMatchObject({
        code: "not_supported",
        source: { pointer: SCAC },
        detail: `Scac '${alternative}' is not supported. We do not currently integrate with ${line.name}`,
      });
    }
    await expectNothingWritten(account);
  });

  it("a container owner outside the registry (prefix table only) is not_supported, naming the owner", async () => {
    const account = await createAccount();
    const owner = CONTAINER_OWNERS[0];
    expect(owner).toBeDefined();
    if (!owner) return;
    expect(findShippingLine(owner.scac)).toBeNull();
    const { res, json } = await create(account, { request_number: "ABC123456", scac: owner.scac.toLowerCase() });
    expect(res.status).toBe(422);
    expect(json.errors).toEqual([
      expect.objectContaining({
        code: "not_supported",
        source: { pointer: SCAC },
        detail: `Scac '${owner.scac}' is not supported. We do not currently integrate with ${owner.name}`,
      }),
    ]);
    await expectNothingWritten(account);
  });

  it("lower-case SCACs resolve like upper-case ones", async () => {
    const account = await createAccount();
    const { json } = await create(account, { request_number: "ABC123456", scac: "medu" });
    expect(json.errors?.[0]?.code).toBe("not_supported");
    expect(json.errors?.[0]?.detail).toContain("Mediterranean Shipping Company");
    const ok = await create(account, { request_number: "TEST-LOWER", scac: "test" });
    expect(ok.res.status).toBe(201);
  });
});

describe("POST /tracking_requests: duplicates", () => {
  // TEST-TR-SUCCEEDED goes pending → created, both of which block a duplicate, so these tests hold whenever the
  // runtime's own queue delivery happens to look the first request up.
  it("a second pending request for the same number and SCAC → 422 duplicate", async () => {
    const account = await createAccount();
    const first = await create(account, { request_number: "TEST-TR-SUCCEEDED", scac: "TEST" });
    expect(first.res.status).toBe(201);
    const { res, json } = await create(account, { request_number: " test-tr-succeeded ", scac: "test" });
    expect(res.status).toBe(422);
    expect(json.errors).toEqual([
      {
        status: "422",
        title: "Unprocessable Entity",
        detail:
          "Request number 'test-tr-succeeded' with scac 'TEST' already exists in a tracking_request with a pending or created status",
        source: { pointer: NUMBER },
        code: "duplicate",
      },
    ]);
    expect((await listed(account)).data).toHaveLength(1);
  });

  it("a created request also blocks a duplicate; a failed one does not", async () => {
    const account = await createAccount();
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac, line_scac, status, created_at, updated_at)
         VALUES ('00000000-0000-7000-8000-00000000c001', ?1, 'bill_of_lading', 'TEST-CREATED', 'TEST-CREATED', 'TEST', 'TEST', 'created', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z'),
                ('00000000-0000-7000-8000-00000000f001', ?1, 'bill_of_lading', 'TEST-WAS-FAILED', 'TEST-WAS-FAILED', 'TEST', 'TEST', 'failed', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z')`,
      ).bind(account.accountId),
    ]);
    const dup = await create(account, { request_number: "TEST-CREATED", scac: "TEST" });
    expect(dup.res.status).toBe(422);
    expect(dup.json.errors?.[0]?.code).toBe("duplicate");
    const again = await create(account, { request_number: "TEST-WAS-FAILED", scac: "TEST" });
    expect(again.res.status).toBe(201);
  });

  it("the same number in another account is not a duplicate", async () => {
    const a = await createAccount();
    const b = await createAccount();
    expect((await create(a, { request_number: "TEST-SHARED", scac: "TEST" })).res.status).toBe(201);
    expect((await create(b, { request_number: "TEST-SHARED", scac: "TEST" })).res.status).toBe(201);
  });

  it("a duplicate is reported together with other errors", async () => {
    const account = await createAccount();
    expect((await create(account, { request_number: "TEST-TR-SUCCEEDED", scac: "TEST" })).res.status).toBe(201);
    const { res, json } = await create(
      account,
      { request_number: "TEST-TR-SUCCEEDED", scac: "TEST" },
      { customer: { data: { type: "party", id: "00000000-0000-7000-8000-000000000bad" } } },
    );
    expect(res.status).toBe(422);
    expect((json.errors ?? []).map((e) => e.code).sort()).toEqual(["duplicate", "not_found"]);
  });

  it("five concurrent identical creates → exactly one 201, the rest 422 duplicate", async () => {
    const account = await createAccount();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => create(account, { request_number: "TEST-TR-SUCCEEDED", scac: "TEST" })),
    );
    const statuses = results.map((r) => r.res.status).sort();
    expect(statuses).toEqual([201, 422, 422, 422, 422]);
    for (const r of results.filter((x) => x.res.status === 422)) {
      expect(r.json.errors?.map((e) => e.code)).toEqual(["duplicate"]);
    }
    const list = await listed(account);
    expect(list.data).toHaveLength(1);
    expect(list.meta?.total).toBe(1);
  });
});

describe("POST /tracking_requests: customer relationship", () => {
  async function createParty(account: TestAccount, name: string): Promise<string> {
    const { res, json } = await apiJson<One>("/parties", {
      key: account.key,
      body: { data: { type: "party", attributes: { company_name: name } } },
    });
    expect(res.status).toBe(201);
    return json.data.id;
  }

  it("links the request to the account's party and includes it on request", async () => {
    const account = await createAccount();
    const partyId = await createParty(account, "Camembert Imports");
    const { res, json } = await create(
      account,
      { request_number: "TEST-CUSTOMER", scac: "TEST" },
      { customer: { data: { type: "party", id: partyId } } },
    );
    expect(res.status).toBe(201);
    const data = (json as One).data;
    expect(data.relationships?.customer).toEqual({ data: { id: partyId, type: "party" } });
    const { json: got } = await apiJson<One>(`/tracking_requests/${data.id}?include=customer`, { key: account.key });
    expect(got.included).toEqual([
      expect.objectContaining({
        id: partyId,
        type: "party",
        attributes: expect.objectContaining({ company_name: "Camembert Imports" }),
      }),
    ]);
  });

  it("an unknown party → 422, nothing written", async () => {
    const account = await createAccount();
    const { res, json } = await create(
      account,
      { request_number: "TEST-CUSTOMER", scac: "TEST" },
      { customer: { data: { type: "party", id: "00000000-0000-7000-8000-000000000bad" } } },
    );
    expect(res.status).toBe(422);
    expect(json.errors).toHaveLength(1);
    expect(json.errors?.[0]?.source?.pointer).toMatch(/customer/);
    await expectNothingWritten(account);
  });

  it("an empty party id → 422, nothing written (found by the property test: it used to reach the insert)", async () => {
    const account = await createAccount();
    const { res, json } = await create(
      account,
      { request_number: "TEST-CUSTOMER", scac: "TEST" },
      { customer: { data: { type: "party", id: "" } } },
    );
    expect(res.status).toBe(422);
    expect(json.errors?.[0]).toMatchObject({
      code: "not_found",
      source: { pointer: "/data/relationships/customer/data/id" },
    });
    await expectNothingWritten(account);
  });

  it("another account's party → 422, nothing written", async () => {
    const owner = await createAccount();
    const partyId = await createParty(owner, "Owner's Customer");
    const account = await createAccount();
    const { res, json } = await create(
      account,
      { request_number: "TEST-CUSTOMER", scac: "TEST" },
      { customer: { data: { type: "party", id: partyId } } },
    );
    expect(res.status).toBe(422);
    expect(json.errors?.[0]?.source?.pointer).toMatch(/customer/);
    expect(JSON.stringify(json)).not.toContain("Owner's Customer");
    await expectNothingWritten(account);
  });

  it("a null customer linkage is accepted", async () => {
    const account = await createAccount();
    const { res, json } = await create(
      account,
      { request_number: "TEST-NULL-CUSTOMER", scac: "TEST" },
      { customer: { data: null } },
    );
    expect(res.status).toBe(201);
    expect((json as One).data.relationships?.customer).toEqual({ data: null });
  });
});
