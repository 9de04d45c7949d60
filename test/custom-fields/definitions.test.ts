import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import type { Many, One } from "../helpers/tracking";

// Custom field definitions and their options (docs/api.md §Custom fields): the reference's shapes, api_slug rules,
// immutable entity_type/api_slug/data_type, filters, options only on enum types, tenant isolation, and 4xx errors
// that change nothing.

function definitionBody(attributes: Record<string, unknown>) {
  return {
    data: {
      type: "custom_field_definition",
      attributes: { entity_type: "Shipment", display_name: "Field", data_type: "short_text", ...attributes },
    },
  };
}

async function define(account: TestAccount, attributes: Record<string, unknown>) {
  const { res, json } = await apiJson<One>("/custom_field_definitions", {
    key: account.key,
    body: definitionBody(attributes),
  });
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data;
}

async function count(table: string, accountId: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?1`)
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("custom field definitions", () => {
  it("creates, gets, lists, updates and deletes in the reference's shape", async () => {
    const account = await createAccount();
    const created = await define(account, {
      api_slug: "purchase_order_number",
      display_name: "Purchase Order Number",
      description: "Buyer's order reference",
    });
    expect(created).toMatchObject({
      type: "custom_field_definition",
      attributes: {
        entity_type: "Shipment",
        api_slug: "purchase_order_number",
        display_name: "Purchase Order Number",
        description: "Buyer's order reference",
        data_type: "short_text",
        reference_type: null,
        validation: null,
        default_format: null,
        default_value: null,
        template_id: null,
      },
      relationships: { account: { data: null }, options: { data: [] } },
    });
    const got = await apiJson<One>(`/custom_field_definitions/${created.id}`, { key: account.key });
    expect(got.res.status).toBe(200);
    expect(got.json.data).toEqual(created);
    expect(got.json.links?.self).toBe(`https://api.test/v2/custom_field_definitions/${created.id}`);

    const patched = await apiJson<One>(`/custom_field_definitions/${created.id}`, {
      method: "PATCH",
      key: account.key,
      body: {
        data: { type: "custom_field_definition", attributes: { display_name: "PO", validation: { max_length: 5 } } },
      },
    });
    expect(patched.res.status).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({ display_name: "PO", validation: { max_length: 5 } });

    const list = await apiJson<Many>("/custom_field_definitions", { key: account.key });
    expect(list.json.data.map((d) => d.id)).toEqual([created.id]);
    expect(list.json.meta?.total).toBe(1);

    const del = await apiJson(`/custom_field_definitions/${created.id}`, { method: "DELETE", key: account.key });
    expect(del.res.status).toBe(200);
    expect((await apiJson(`/custom_field_definitions/${created.id}`, { key: account.key })).res.status).toBe(404);
  });

  it("filters by entity_type (Cargo = Container), data_type and a display_name prefix, oldest first", async () => {
    const account = await createAccount();
    const a = await define(account, { api_slug: "incoterm", display_name: "Incoterm", data_type: "enum" });
    const b = await define(account, {
      api_slug: "hazmat",
      display_name: "Hazmat 100%",
      entity_type: "Cargo",
      data_type: "boolean",
      default_value: false,
    });
    const c = await define(account, { api_slug: "inco_note", display_name: "incoming note" });
    expect(b.attributes).toMatchObject({ entity_type: "Container", default_value: false });
    const ids = async (query: string) =>
      (await apiJson<Many>(`/custom_field_definitions${query}`, { key: account.key })).json.data.map((d) => d.id);
    expect(await ids("")).toEqual([a.id, b.id, c.id]);
    expect(await ids("?filter[entity_type]=Container")).toEqual([b.id]);
    expect(await ids("?filter[entity_type]=Cargo")).toEqual([b.id]);
    expect(await ids("?filter[data_type]=enum")).toEqual([a.id]);
    expect(await ids("?filter[display_name]=inco")).toEqual([a.id, c.id]);
    expect(await ids("?filter[display_name]=Hazmat%20100%25")).toEqual([b.id]);
    expect(await ids("?filter[display_name]=Hazmat%20_")).toEqual([]);
    const bad = await apiJson<One>("/custom_field_definitions?filter[data_type]=colour", { key: account.key });
    expect(bad.res.status).toBe(400);
    expect(bad.json.errors?.[0]?.source).toEqual({ parameter: "filter[data_type]" });
  });

  it("refuses bad bodies with 422 at the field and writes nothing", async () => {
    const account = await createAccount();
    await define(account, { api_slug: "taken_slug" });
    const cases: [Record<string, unknown>, string][] = [
      [{ api_slug: "Bad Slug" }, "/data/attributes/api_slug"],
      [{ api_slug: "1abc" }, "/data/attributes/api_slug"],
      [{ api_slug: "x".repeat(65) }, "/data/attributes/api_slug"],
      [{ api_slug: "taken_slug" }, "/data/attributes/api_slug"],
      [{ api_slug: "ok_1", data_type: "colour" }, "/data/attributes/data_type"],
      [{ api_slug: "ok_2", entity_type: "Vessel" }, "/data/attributes/entity_type"],
      [{ api_slug: "ok_3", data_type: "reference" }, "/data/attributes/reference_type"],
      [{ api_slug: "ok_4", reference_type: "shipment" }, "/data/attributes/reference_type"],
      [{ api_slug: "ok_5", display_name: "   " }, "/data/attributes/display_name"],
      [{ api_slug: "ok_6", data_type: "number", default_value: "ten" }, "/data/attributes/default_value"],
      [{ api_slug: "ok_7", validation: { pattern: "(" } }, "/data/attributes/validation/pattern"],
      [{ api_slug: "ok_8", validation: { colour: 1 } }, "/data/attributes/validation/colour"],
      [{ api_slug: "ok_9", sensitive: true }, "/data/attributes/sensitive"],
    ];
    for (const [attributes, pointer] of cases) {
      const { res, json } = await apiJson<One>("/custom_field_definitions", {
        key: account.key,
        body: definitionBody(attributes),
      });
      expect(res.status, JSON.stringify(attributes)).toBe(422);
      expect(json.errors?.[0]?.source, JSON.stringify(attributes)).toEqual({ pointer });
    }
    expect(await count("custom_field_definitions", account.accountId)).toBe(1);
  });

  it("api_slug, entity_type and data_type cannot change: PATCH naming them is a 422 that changes nothing", async () => {
    const account = await createAccount();
    const def = await define(account, { api_slug: "fixed" });
    for (const attributes of [{ api_slug: "other" }, { data_type: "number" }, { entity_type: "Container" }]) {
      const { res, json } = await apiJson<One>(`/custom_field_definitions/${def.id}`, {
        method: "PATCH",
        key: account.key,
        body: { data: { type: "custom_field_definition", attributes } },
      });
      expect(res.status).toBe(422);
      expect(json.errors?.[0]?.source?.pointer).toBe(`/data/attributes/${Object.keys(attributes)[0]}`);
    }
    const got = await apiJson<One>(`/custom_field_definitions/${def.id}`, { key: account.key });
    expect(got.json.data.attributes).toMatchObject({
      api_slug: "fixed",
      data_type: "short_text",
      entity_type: "Shipment",
    });
  });

  it("another account's definition and options answer 404 and stay unchanged", async () => {
    const owner = await createAccount();
    const other = await createAccount("Other");
    const def = await define(owner, { api_slug: "mode", data_type: "enum" });
    const opt = await apiJson<One>(`/custom_field_definitions/${def.id}/options`, {
      key: owner.key,
      body: { data: { type: "custom_field_option", attributes: { label: "Ex Works", value: "EXW" } } },
    });
    const optionPath = `/custom_field_definitions/${def.id}/options/${opt.json.data.id}`;
    const attempts: [string, string, unknown?][] = [
      ["GET", `/custom_field_definitions/${def.id}`],
      [
        "PATCH",
        `/custom_field_definitions/${def.id}`,
        { data: { type: "custom_field_definition", attributes: { display_name: "X" } } },
      ],
      ["DELETE", `/custom_field_definitions/${def.id}`],
      ["GET", `/custom_field_definitions/${def.id}/options`],
      [
        "POST",
        `/custom_field_definitions/${def.id}/options`,
        { data: { type: "custom_field_option", attributes: { label: "F", value: "FOB" } } },
      ],
      ["GET", optionPath],
      ["PATCH", optionPath, { data: { type: "custom_field_option", attributes: { label: "X" } } }],
      ["DELETE", optionPath],
    ];
    for (const [method, path, body] of attempts) {
      const { res } = await apiJson(path, { method, key: other.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await apiJson<Many>("/custom_field_definitions", { key: other.key })).json.data).toEqual([]);
    const got = await apiJson<One>(`/custom_field_definitions/${def.id}`, { key: owner.key });
    expect(got.json.data.attributes.display_name).toBe("Field");
    expect(await count("custom_field_options", owner.accountId)).toBe(1);
  });
});

describe("custom field options", () => {
  it("are created, listed by position, renamed and deleted on enum definitions", async () => {
    const account = await createAccount();
    const def = await define(account, { api_slug: "incoterm", data_type: "enum" });
    const base = `/custom_field_definitions/${def.id}/options`;
    const add = (attributes: Record<string, unknown>) =>
      apiJson<One>(base, { key: account.key, body: { data: { type: "custom_field_option", attributes } } });
    const fob = await add({ label: "Free On Board", value: "FOB", position: 2 });
    const exw = await add({ label: "Ex Works", value: "EXW", position: 1 });
    expect(fob.res.status).toBe(201);
    expect(exw.json.data).toMatchObject({
      type: "custom_field_option",
      attributes: { label: "Ex Works", value: "EXW", position: 1 },
    });
    const list = await apiJson<Many>(base, { key: account.key });
    expect(list.json.data.map((o) => o.attributes.value)).toEqual(["EXW", "FOB"]);
    const withOptions = await apiJson<One>(`/custom_field_definitions/${def.id}`, { key: account.key });
    expect(withOptions.json.data.relationships?.options?.data).toEqual([
      { id: exw.json.data.id, type: "custom_field_option" },
      { id: fob.json.data.id, type: "custom_field_option" },
    ]);
    const renamed = await apiJson<One>(`${base}/${fob.json.data.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "custom_field_option", attributes: { label: "FOB", position: 0 } } },
    });
    expect(renamed.json.data.attributes).toEqual({ label: "FOB", value: "FOB", position: 0 });
    const changeValue = await apiJson<One>(`${base}/${fob.json.data.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "custom_field_option", attributes: { value: "CIF" } } },
    });
    expect(changeValue.res.status).toBe(422);
    const del = await apiJson(`${base}/${exw.json.data.id}`, { method: "DELETE", key: account.key });
    expect(del.res.status).toBe(200);
    expect((await apiJson<Many>(base, { key: account.key })).json.data.map((o) => o.attributes.value)).toEqual(["FOB"]);
  });

  it("refuses options on other types, duplicate values and blank labels, writing nothing", async () => {
    const account = await createAccount();
    const text = await define(account, { api_slug: "note" });
    const multi = await define(account, { api_slug: "tags_multi", data_type: "enum_multi" });
    const add = (id: string, attributes: Record<string, unknown>) =>
      apiJson<One>(`/custom_field_definitions/${id}/options`, {
        key: account.key,
        body: { data: { type: "custom_field_option", attributes } },
      });
    const onText = await add(text.id, { label: "A", value: "a" });
    expect(onText.res.status).toBe(422);
    expect(onText.json.errors?.[0]?.source).toEqual({ pointer: "/data/type" });
    expect((await add(multi.id, { label: "A", value: "a" })).res.status).toBe(201);
    const dup = await add(multi.id, { label: "Again", value: "a" });
    expect(dup.res.status).toBe(422);
    expect(dup.json.errors?.[0]).toMatchObject({ source: { pointer: "/data/attributes/value" }, code: "taken" });
    expect((await add(multi.id, { label: " ", value: "b" })).res.status).toBe(422);
    expect((await add(multi.id, { label: "B" })).res.status).toBe(422);
    expect(await count("custom_field_options", account.accountId)).toBe(1);
  });

  it("deleting a definition removes its options in the same batch", async () => {
    const account = await createAccount();
    const def = await define(account, { api_slug: "move_type", data_type: "enum" });
    await apiJson(`/custom_field_definitions/${def.id}/options`, {
      key: account.key,
      body: { data: { type: "custom_field_option", attributes: { label: "Door", value: "door" } } },
    });
    expect(
      (await apiJson(`/custom_field_definitions/${def.id}`, { method: "DELETE", key: account.key })).res.status,
    ).toBe(200);
    expect(await count("custom_field_options", account.accountId)).toBe(0);
    expect((await apiJson(`/custom_field_definitions/${def.id}/options`, { key: account.key })).res.status).toBe(404);
  });
});
