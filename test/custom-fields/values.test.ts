import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { createTrackingRequest, type Many, type One, trackSandboxShipment } from "../helpers/tracking";

// Custom field values (docs/api.md §Custom fields): /custom_fields and the per-entity routes on shipments, containers
// and tracking requests; values typed by their definition; display_value; option deletion keeps values; definition
// deletion removes them; custom_field_limit; tenant isolation; 4xx errors that change nothing.

async function define(account: TestAccount, attributes: Record<string, unknown>) {
  const { res, json } = await apiJson<One>("/custom_field_definitions", {
    key: account.key,
    body: {
      data: {
        type: "custom_field_definition",
        attributes: { entity_type: "Shipment", display_name: "Field", data_type: "short_text", ...attributes },
      },
    },
  });
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data;
}

async function option(account: TestAccount, definitionId: string, value: string, label: string) {
  const { res, json } = await apiJson<One>(`/custom_field_definitions/${definitionId}/options`, {
    key: account.key,
    body: { data: { type: "custom_field_option", attributes: { value, label } } },
  });
  expect(res.status).toBe(201);
  return json.data;
}

function upsert(account: TestAccount, path: string, api_slug: string, value: unknown) {
  return apiJson<One>(`${path}/custom_fields`, {
    key: account.key,
    body: { data: { type: "custom_field", attributes: { api_slug, value } } },
  });
}

async function valueCount(accountId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM custom_fields WHERE account_id = ?1")
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("per-entity custom field routes", () => {
  it("upsert by api_slug (201 both times), list, get, PATCH and DELETE (204) on a shipment", async () => {
    const account = await createAccount();
    const { shipment } = await trackSandboxShipment(account);
    const def = await define(account, { api_slug: "customer_reference_number" });
    const path = `/shipments/${shipment.id}`;
    const first = await upsert(account, path, "customer_reference_number", "ABC123");
    expect(first.res.status).toBe(201);
    expect(first.json.data).toEqual({
      id: first.json.data.id,
      type: "custom_field",
      attributes: { api_slug: "customer_reference_number", value: "ABC123", display_value: "ABC123" },
      relationships: {
        entity: { data: { id: shipment.id, type: "shipment" } },
        definition: { data: { id: def.id, type: "custom_field_definition" } },
      },
    });
    expect(first.json.links?.self).toBe(`https://api.test/v2/custom_fields/${first.json.data.id}`);
    const second = await upsert(account, path, "customer_reference_number", "ABC124");
    expect(second.res.status).toBe(201);
    expect(second.json.data.id).toBe(first.json.data.id);
    expect(await valueCount(account.accountId)).toBe(1);

    const list = await apiJson<Many>(`${path}/custom_fields`, { key: account.key });
    expect(list.json.data.map((v) => v.attributes.value)).toEqual(["ABC124"]);
    const bySlug = await apiJson<One>(`${path}/custom_fields/customer_reference_number`, { key: account.key });
    expect(bySlug.json.data.id).toBe(first.json.data.id);
    const patched = await apiJson<One>(`${path}/custom_fields/customer_reference_number`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "custom_field", attributes: { value: "XYZ" } } },
    });
    expect(patched.res.status).toBe(200);
    expect(patched.json.data.attributes.value).toBe("XYZ");
    const del = await apiJson(`${path}/custom_fields/customer_reference_number`, {
      method: "DELETE",
      key: account.key,
    });
    expect(del.res.status).toBe(204);
    expect(await valueCount(account.accountId)).toBe(0);
    const gone = await apiJson(`${path}/custom_fields/customer_reference_number`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "custom_field", attributes: { value: "Q" } } },
    });
    expect(gone.res.status).toBe(404);
    expect((await apiJson(`/custom_field_definitions/${def.id}`, { key: account.key })).res.status).toBe(200);
  });

  it("containers take Container definitions, tracking requests any; a mismatch or unknown slug is a 422", async () => {
    const account = await createAccount();
    const { containerIds } = await trackSandboxShipment(account);
    const request = await createTrackingRequest(account, { request_number: "TEST-TR-PENDING-1" });
    await define(account, { api_slug: "seal_number", entity_type: "Container" });
    await define(account, { api_slug: "booking_reference" });
    const onContainer = await upsert(account, `/containers/${containerIds[0]}`, "seal_number", "SEAL-1");
    expect(onContainer.res.status).toBe(201);
    expect(onContainer.json.data.relationships?.entity?.data).toEqual({ id: containerIds[0], type: "container" });
    const wrong = await upsert(account, `/containers/${containerIds[0]}`, "booking_reference", "B");
    expect(wrong.res.status).toBe(422);
    expect(wrong.json.errors?.[0]?.source).toEqual({ pointer: "/data/attributes/api_slug" });
    const unknown = await upsert(account, `/containers/${containerIds[0]}`, "nope", "B");
    expect(unknown.res.status).toBe(422);
    const onRequest = await upsert(account, `/tracking_requests/${request.id}`, "booking_reference", "BOOK-1");
    expect(onRequest.res.status).toBe(201);
    expect(onRequest.json.data.relationships?.entity?.data).toEqual({ id: request.id, type: "tracking_request" });
    expect(await valueCount(account.accountId)).toBe(2);
  });
});

describe("values are typed by their definition", () => {
  it("accepts each type's values in stored form with its display_value, refuses others with 422 at /data/attributes/value", async () => {
    const account = await createAccount();
    const { shipment } = await trackSandboxShipment(account);
    const path = `/shipments/${shipment.id}`;
    const incoterm = await define(account, { api_slug: "incoterm", data_type: "enum" });
    await option(account, incoterm.id, "EXW", "Ex Works");
    const modes = await define(account, { api_slug: "modes", data_type: "enum_multi" });
    await option(account, modes.id, "rail", "Rail");
    await option(account, modes.id, "truck", "Truck");
    for (const [slug, data_type, extra] of [
      ["amount", "number", {}],
      ["due", "date", {}],
      ["seen_at", "datetime", {}],
      ["hazmat", "boolean", {}],
      ["code", "short_text", { validation: { pattern: "^[A-Z]{3}$", required: true } }],
      ["related", "reference", { reference_type: "shipment" }],
    ] as const) {
      await define(account, { api_slug: slug, data_type, ...extra });
    }
    const good: [string, unknown, unknown, string][] = [
      ["amount", 1234.5, 1234.5, "1234.5"],
      ["due", "2026-05-01", "2026-05-01", "2026-05-01"],
      ["seen_at", "2026-05-01T14:30:00+02:00", "2026-05-01T12:30:00Z", "2026-05-01 12:30:00"],
      ["hazmat", false, false, "No"],
      ["incoterm", "EXW", "EXW", "Ex Works"],
      ["modes", ["truck", "rail"], ["truck", "rail"], "Truck, Rail"],
      ["code", "ABC", "ABC", "ABC"],
      [
        "related",
        { type: "shipment", id: shipment.id },
        { type: "shipment", id: shipment.id },
        `shipment ${shipment.id}`,
      ],
    ];
    for (const [slug, value, stored, display] of good) {
      const { res, json } = await upsert(account, path, slug, value);
      expect(res.status, slug).toBe(201);
      expect(json.data.attributes, slug).toEqual({ api_slug: slug, value: stored, display_value: display });
    }
    const before = await valueCount(account.accountId);
    const bad: [string, unknown][] = [
      ["amount", "12"],
      ["amount", 1e13],
      ["due", "2026-02-30"],
      ["due", "tomorrow"],
      ["due", 20260501],
      ["seen_at", "2026-05-01T12:00:00"],
      ["hazmat", "yes"],
      ["incoterm", "FOB"],
      ["incoterm", ["EXW"]],
      ["modes", ["rail", "rail"]],
      ["modes", ["ship"]],
      ["modes", "rail"],
      ["code", "abcd"],
      ["code", null],
      ["code", "A\u0000B"],
      ["related", { type: "container", id: shipment.id }],
      ["related", { type: "shipment", id: "00000000-0000-0000-0000-000000000000" }],
    ];
    for (const [slug, value] of bad) {
      const { res, json } = await upsert(account, path, slug, value);
      expect(res.status, `${slug} ${JSON.stringify(value)}`).toBe(422);
      expect(json.errors?.[0]?.source?.pointer, slug).toMatch(/^\/data\/attributes\/value/);
    }
    expect(await valueCount(account.accountId)).toBe(before);
    const current = await apiJson<One>(`${path}/custom_fields/amount`, { key: account.key });
    expect(current.json.data.attributes.value).toBe(1234.5);
  });

  it("deleting an option keeps values that use it (shown by their raw value); renaming it relabels them", async () => {
    const account = await createAccount();
    const { shipment } = await trackSandboxShipment(account);
    const def = await define(account, { api_slug: "incoterm", data_type: "enum" });
    const exw = await option(account, def.id, "EXW", "Ex Works");
    const path = `/shipments/${shipment.id}`;
    await upsert(account, path, "incoterm", "EXW");
    await apiJson(`/custom_field_definitions/${def.id}/options/${exw.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "custom_field_option", attributes: { label: "Ex-Works" } } },
    });
    const relabelled = await apiJson<One>(`${path}/custom_fields/incoterm`, { key: account.key });
    expect(relabelled.json.data.attributes.display_value).toBe("Ex-Works");
    await apiJson(`/custom_field_definitions/${def.id}/options/${exw.id}`, { method: "DELETE", key: account.key });
    const kept = await apiJson<One>(`${path}/custom_fields/incoterm`, { key: account.key });
    expect(kept.json.data.attributes).toMatchObject({ value: "EXW", display_value: "EXW" });
    expect((await upsert(account, path, "incoterm", "EXW")).res.status).toBe(422);
  });

  it("deleting a definition deletes its values: none stays readable by any route", async () => {
    const account = await createAccount();
    const { shipment } = await trackSandboxShipment(account);
    const def = await define(account, { api_slug: "po" });
    const value = await upsert(account, `/shipments/${shipment.id}`, "po", "PO-1");
    await apiJson(`/custom_field_definitions/${def.id}`, { method: "DELETE", key: account.key });
    expect(await valueCount(account.accountId)).toBe(0);
    expect((await apiJson(`/custom_fields/${value.json.data.id}`, { key: account.key })).res.status).toBe(404);
    expect((await apiJson<Many>(`/shipments/${shipment.id}/custom_fields`, { key: account.key })).json.data).toEqual(
      [],
    );
  });
});

describe("/custom_fields", () => {
  it("creates with an entity relationship, lists with filters, gets, patches and deletes (200)", async () => {
    const account = await createAccount();
    const { shipment, containerIds } = await trackSandboxShipment(account);
    const po = await define(account, { api_slug: "po" });
    await define(account, { api_slug: "seal", entity_type: "Container" });
    const created = await apiJson<One>("/custom_fields", {
      key: account.key,
      body: {
        data: {
          type: "custom_field",
          attributes: { api_slug: "po", value: "PO-1" },
          relationships: { entity: { data: { type: "shipment", id: shipment.id } } },
        },
      },
    });
    expect(created.res.status).toBe(201);
    await upsert(account, `/containers/${containerIds[0]}`, "seal", "S-1");
    const ids = async (query: string) =>
      (await apiJson<Many>(`/custom_fields${query}`, { key: account.key })).json.data.map((v) => v.attributes.value);
    expect(await ids("")).toEqual(["PO-1", "S-1"]);
    expect(await ids("?filter[entity_type]=Container")).toEqual(["S-1"]);
    expect(await ids("?filter[entity_type]=Cargo")).toEqual(["S-1"]);
    expect(await ids(`?filter[entity_id]=${shipment.id}`)).toEqual(["PO-1"]);
    expect(await ids(`?filter[definition_id]=${po.id}`)).toEqual(["PO-1"]);
    const id = created.json.data.id;
    const patched = await apiJson<One>(`/custom_fields/${id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "custom_field", attributes: { value: "PO-2" } } },
    });
    expect(patched.json.data.attributes.value).toBe("PO-2");
    expect((await apiJson(`/custom_fields/${id}`, { key: account.key })).res.status).toBe(200);
    expect((await apiJson(`/custom_fields/${id}`, { method: "DELETE", key: account.key })).res.status).toBe(200);
    expect((await apiJson(`/custom_fields/${id}`, { key: account.key })).res.status).toBe(404);
  });

  it("another account's values and entities answer 404 on every route, and nothing changes", async () => {
    const owner = await createAccount();
    const other = await createAccount("Other");
    const { shipment, containerIds, request } = await trackSandboxShipment(owner);
    await define(owner, { api_slug: "po" });
    await define(other, { api_slug: "po" });
    const value = await upsert(owner, `/shipments/${shipment.id}`, "po", "PO-1");
    const id = value.json.data.id;
    const body = { data: { type: "custom_field", attributes: { value: "X" } } };
    const attempts: [string, string, unknown?][] = [
      ["GET", `/custom_fields/${id}`],
      ["PATCH", `/custom_fields/${id}`, body],
      ["DELETE", `/custom_fields/${id}`],
      ["GET", `/shipments/${shipment.id}/custom_fields`],
      [
        "POST",
        `/shipments/${shipment.id}/custom_fields`,
        { data: { type: "custom_field", attributes: { api_slug: "po", value: "X" } } },
      ],
      ["GET", `/shipments/${shipment.id}/custom_fields/po`],
      ["PATCH", `/shipments/${shipment.id}/custom_fields/po`, body],
      ["DELETE", `/shipments/${shipment.id}/custom_fields/po`],
      ["GET", `/containers/${containerIds[0]}/custom_fields`],
      ["GET", `/tracking_requests/${request.id}/custom_fields`],
      [
        "POST",
        "/custom_fields",
        {
          data: {
            type: "custom_field",
            attributes: { api_slug: "po", value: "X" },
            relationships: { entity: { data: { type: "shipment", id: shipment.id } } },
          },
        },
      ],
    ];
    for (const [method, path, b] of attempts) {
      const { res } = await apiJson(path, { method, key: other.key, body: b });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await apiJson<Many>("/custom_fields", { key: other.key })).json.data).toEqual([]);
    const still = await apiJson<One>(`/custom_fields/${id}`, { key: owner.key });
    expect(still.json.data.attributes.value).toBe("PO-1");
    expect(await valueCount(other.accountId)).toBe(0);
  });

  it("bad bodies are 422 and change nothing; custom_field_limit refuses a new value with 403 but allows replacing", async () => {
    const account = await createAccount();
    const { shipment, containerIds } = await trackSandboxShipment(account);
    await define(account, { api_slug: "po" });
    const path = `/shipments/${shipment.id}`;
    const cases: [unknown, string][] = [
      [{ data: { type: "custom_field", attributes: { value: "X" } } }, "/data/attributes/api_slug"],
      [{ data: { type: "custom_field", attributes: { api_slug: "po" } } }, "/data/attributes/value"],
      [{ data: { type: "custom_fields", attributes: { api_slug: "po", value: "X" } } }, "/data/type"],
      [
        { data: { type: "custom_field", attributes: { api_slug: "po", value: "X", extra: 1 } } },
        "/data/attributes/extra",
      ],
      [
        {
          data: {
            type: "custom_field",
            attributes: { api_slug: "po", value: "X" },
            relationships: { entity: { data: { type: "shipment", id: shipment.id } } },
          },
        },
        "/data/relationships",
      ],
    ];
    for (const [body, pointer] of cases) {
      const { res, json } = await apiJson<One>(`${path}/custom_fields`, { key: account.key, body });
      expect(res.status, pointer).toBe(422);
      expect(json.errors?.[0]?.source?.pointer, pointer).toBe(pointer);
    }
    expect(await valueCount(account.accountId)).toBe(0);

    await env.DB.prepare("UPDATE accounts SET custom_field_limit = 1 WHERE id = ?1").bind(account.accountId).run();
    await define(account, { api_slug: "seal", entity_type: "Container" });
    expect((await upsert(account, path, "po", "PO-1")).res.status).toBe(201);
    const over = await upsert(account, `/containers/${containerIds[0]}`, "seal", "S-1");
    expect(over.res.status).toBe(403);
    expect(over.json.errors?.[0]?.code).toBe("custom_field_limit");
    expect((await upsert(account, path, "po", "PO-2")).res.status).toBe(201);
    expect(await valueCount(account.accountId)).toBe(1);
  });
});
