import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import { type Doc, type One, toMany, trackSandboxShipment } from "../helpers/tracking";

// PATCH /shipments/{id} (docs/api.md §Shipment endpoints): replaces `ref_numbers` and/or `tags`; strict body, list
// limits as on tracking requests (≤ 50 items, ≤ 255 characters each).

async function tracked() {
  const account = await createAccount();
  const sandbox = await trackSandboxShipment(account);
  return { account, ...sandbox };
}

function patch(account: TestAccount | null, id: string, body: unknown, headers?: Record<string, string>) {
  return apiJson<One & Doc>(`/shipments/${id}`, { method: "PATCH", key: account?.key ?? null, body, headers });
}

function body(attributes: Record<string, unknown>, id?: string) {
  return { data: { type: "shipment", ...(id ? { id } : {}), attributes } };
}

describe("PATCH /shipments/{id}", () => {
  it("replaces ref_numbers and tags and answers the shipment", async () => {
    const { account, shipment, containerIds } = await tracked();
    const { res, json } = await patch(
      account,
      shipment.id,
      body({ ref_numbers: ["PO-1", "PO-2"], tags: ["priority", "reefer-check"] }, shipment.id),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.data).toMatchObject({
      id: shipment.id,
      type: "shipment",
      links: { self: `/v2/shipments/${shipment.id}` },
    });
    expect(json.data.attributes).toMatchObject({ ref_numbers: ["PO-1", "PO-2"], tags: ["priority", "reefer-check"] });
    expect(toMany(json.data, "containers").map((c) => c.id)).toEqual(containerIds);
    const { json: again } = await apiJson<One>(`/shipments/${shipment.id}`, { key: account.key });
    expect(again.data.attributes).toMatchObject({ ref_numbers: ["PO-1", "PO-2"], tags: ["priority", "reefer-check"] });
  });

  it("a list left out is kept; an empty list clears; no attributes changes nothing", async () => {
    const { account, shipment } = await tracked();
    await patch(account, shipment.id, body({ ref_numbers: ["A"], tags: ["t"] }));
    const onlyTags = await patch(account, shipment.id, body({ tags: [] }));
    expect(onlyTags.res.status).toBe(200);
    expect(onlyTags.json.data.attributes).toMatchObject({ ref_numbers: ["A"], tags: [] });
    const nothing = await patch(account, shipment.id, body({}));
    expect(nothing.res.status).toBe(200);
    expect(nothing.json.data.attributes).toMatchObject({ ref_numbers: ["A"], tags: [] });
  });

  it("accepts application/vnd.api+json and the limits themselves (50 items of 255 characters)", async () => {
    const { account, shipment } = await tracked();
    const refs = Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(255, "x"));
    const { res, json } = await patch(account, shipment.id, body({ ref_numbers: refs }), {
      "Content-Type": "application/vnd.api+json",
    });
    expect(res.status).toBe(200);
    expect(json.data.attributes.ref_numbers).toEqual(refs);
  });
});

describe("PATCH /shipments/{id}: errors", () => {
  it("a body naming another shipment is a 422 on /data/id and changes nothing", async () => {
    const { account, shipment } = await tracked();
    const { res, json } = await patch(account, shipment.id, body({ tags: ["x"] }, crypto.randomUUID()));
    expect(res.status).toBe(422);
    expect(json.errors?.[0]).toMatchObject({ status: "422", source: { pointer: "/data/id" }, code: "invalid" });
    const { json: after } = await apiJson<One>(`/shipments/${shipment.id}`, { key: account.key });
    expect(after.data.attributes.tags).toEqual([]);
  });

  it("too many items, too long a string, a wrong type, an unknown attribute: one 422 per field with pointers", async () => {
    const { account, shipment } = await tracked();
    const cases: [Record<string, unknown>, string, string?][] = [
      [{ ref_numbers: Array.from({ length: 51 }, (_, i) => `R${i}`) }, "/data/attributes/ref_numbers"],
      [{ tags: ["y".repeat(256)] }, "/data/attributes/tags/0"],
      [{ tags: "priority" }, "/data/attributes/tags"],
      [{ ref_numbers: [1] }, "/data/attributes/ref_numbers/0"],
      [{ shipping_line_scac: "MSCU" }, "/data/attributes/shipping_line_scac", "unknown_attribute"],
    ];
    for (const [attributes, pointer, code] of cases) {
      const { res, json } = await patch(account, shipment.id, body(attributes));
      expect(res.status, pointer).toBe(422);
      expect(json.errors?.[0]?.source, pointer).toEqual({ pointer });
      if (code) expect(json.errors?.[0]?.code).toBe(code);
    }
    const both = await patch(account, shipment.id, body({ tags: "a", ref_numbers: "b" }));
    expect(both.json.errors?.map((e) => e.source?.pointer).sort()).toEqual([
      "/data/attributes/ref_numbers",
      "/data/attributes/tags",
    ]);
    const { json: after } = await apiJson<One>(`/shipments/${shipment.id}`, { key: account.key });
    expect(after.data.attributes).toMatchObject({ ref_numbers: [], tags: [] });
  });

  it("a wrong type, a missing data member or no body at all is a 422", async () => {
    const { account, shipment } = await tracked();
    const wrongType = await patch(account, shipment.id, { data: { type: "container", attributes: {} } });
    expect(wrongType.res.status).toBe(422);
    expect(wrongType.json.errors?.[0]?.source).toEqual({ pointer: "/data/type" });
    const noData = await patch(account, shipment.id, { attributes: { tags: [] } });
    expect(noData.res.status).toBe(422);
    const noBody = await apiJson<Doc>(`/shipments/${shipment.id}`, { method: "PATCH", key: account.key });
    expect(noBody.res.status).toBe(422);
    expect(noBody.json.errors?.[0]).toMatchObject({ source: { pointer: "/data" }, code: "blank" });
  });

  it("malformed JSON is a 400; a non-JSON media type is a 415", async () => {
    const { account, shipment } = await tracked();
    const malformed = await patch(account, shipment.id, "{not json");
    expect(malformed.res.status).toBe(400);
    const text = await api(`/shipments/${shipment.id}`, {
      method: "PATCH",
      key: account.key,
      body: "tags=a",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(text.status).toBe(415);
  });

  it("an unknown shipment is a 404", async () => {
    const account = await createAccount();
    const { res, json } = await patch(account, crypto.randomUUID(), body({ tags: ["x"] }));
    expect(res.status).toBe(404);
    expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
  });
});

describe("PATCH /shipments/{id}: security", () => {
  it("no key → 401", async () => {
    const { shipment } = await tracked();
    const { res } = await patch(null, shipment.id, body({ tags: ["x"] }));
    expect(res.status).toBe(401);
  });

  it("another account's shipment → 404 and nothing changes", async () => {
    const a = await tracked();
    const b = await createAccount();
    const { res, json } = await patch(b, a.shipment.id, body({ ref_numbers: ["B-REF"], tags: ["b"] }, a.shipment.id));
    expect(res.status).toBe(404);
    expect(JSON.stringify(json)).not.toContain("TEST-TR-SUCCEEDED");
    const { json: after } = await apiJson<One>(`/shipments/${a.shipment.id}`, { key: a.account.key });
    expect(after.data.attributes).toMatchObject({ ref_numbers: [], tags: [] });
  });
});

describe("OpenAPI", () => {
  it("documents the PATCH with its id parameter, required body and errors", async () => {
    const doc = (await (await api("/openapi.json")).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string }[]; requestBody?: { required?: boolean }; responses: Record<string, unknown> }
        >
      >;
    };
    const op = doc.paths["/shipments/{id}"]?.patch;
    expect(op?.parameters?.map((p) => p.name)).toEqual(["id"]);
    expect(op?.requestBody?.required).toBe(true);
    expect(Object.keys(op?.responses ?? {}).sort()).toEqual(["200", "400", "401", "404", "413", "415", "422", "429"]);
    expect(Object.keys(doc.paths["/shipments/{id}"] ?? {}).sort()).toEqual(["get", "patch"]);
  });
});
