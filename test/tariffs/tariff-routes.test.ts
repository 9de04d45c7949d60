import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import type { Doc, Many, One } from "../helpers/tracking";

// /v2/tariffs (issue 27 §1; docs/api.md §Tariffs): account-scoped CRUD with the wire names, a 422 pointing at
// each bad field (and nothing written), and another account's tariff a 404.

const TIERS = [
  { from_day: 1, to_day: 4, rate_per_day: "150.00", currency_code: "USD" },
  { from_day: 5, to_day: null, rate_per_day: "300.00", currency_code: "USD" },
];

function body(attributes: Record<string, unknown>) {
  return {
    data: {
      type: "tariff",
      attributes: { kind: "demurrage", free_days: 4, clock_starts_at: "discharged", tiers: TIERS, ...attributes },
    },
  };
}

async function create(account: TestAccount, attributes: Record<string, unknown> = {}) {
  const { res, json } = await apiJson<One>("/tariffs", { key: account.key, body: body(attributes) });
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data;
}

async function tariffCount(accountId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM tariffs WHERE account_id = ?1")
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function expect422(account: TestAccount, attributes: Record<string, unknown>, pointers: string[]) {
  const { res, json } = await apiJson<Doc>("/tariffs", { key: account.key, body: body(attributes) });
  expect(res.status, JSON.stringify(json)).toBe(422);
  expect(json.errors?.map((e) => (e as { source?: { pointer?: string } }).source?.pointer).sort()).toEqual(
    [...pointers].sort(),
  );
}

describe("/tariffs: happy path", () => {
  it("creates, reads, lists, updates and deletes a tariff in the issue's wire names", async () => {
    const a = await createAccount();
    const created = await create(a, { name: "Maersk LA 40'", scac: "maeu", port_code: "uslax", equipment_length: 40 });
    expect(created).toMatchObject({
      type: "tariff",
      attributes: {
        name: "Maersk LA 40'",
        kind: "demurrage",
        scac: "MAEU",
        port_code: "USLAX",
        terminal_id: null,
        equipment_length: 40,
        equipment_type: null,
        free_days: 4,
        free_days_basis: "calendar",
        clock_starts_at: "discharged",
        tiers: TIERS,
      },
    });
    const got = await apiJson<One>(`/tariffs/${created.id}`, { key: a.key });
    expect(got.res.status).toBe(200);
    expect(got.json.data.attributes).toEqual(created.attributes);

    const list = await apiJson<Many>("/tariffs", { key: a.key });
    expect(list.json.data.map((t) => t.id)).toEqual([created.id]);
    expect(list.json.meta?.total).toBe(1);

    const patched = await apiJson<One>(`/tariffs/${created.id}`, {
      key: a.key,
      method: "PATCH",
      body: { data: { type: "tariff", id: created.id, attributes: { free_days: 5, free_days_basis: "business" } } },
    });
    expect(patched.res.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({ free_days: 5, free_days_basis: "business", scac: "MAEU" });

    const deleted = await api(`/tariffs/${created.id}`, { key: a.key, method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await tariffCount(a.accountId)).toBe(0);
  });

  it("accepts a known terminal id and a detention tariff from full out", async () => {
    const a = await createAccount();
    const terminal = await env.DB.prepare("SELECT id FROM terminals LIMIT 1").first<{ id: string }>();
    expect(terminal).not.toBeNull();
    const t = await create(a, { terminal_id: terminal?.id, kind: "detention", clock_starts_at: "full_out" });
    expect(t.attributes).toMatchObject({ terminal_id: terminal?.id, kind: "detention" });
  });
});

describe("/tariffs: errors", () => {
  it("points at each bad field and writes nothing", async () => {
    const a = await createAccount();
    await expect422(a, { scac: "MA3U" }, ["/data/attributes/scac"]);
    await expect422(a, { port_code: "LAX" }, ["/data/attributes/port_code"]);
    await expect422(a, { kind: "parking" }, ["/data/attributes/kind"]);
    await expect422(a, { free_days: -1 }, ["/data/attributes/free_days"]);
    await expect422(a, { tiers: [] }, ["/data/attributes/tiers"]);
    await expect422(a, { terminal_id: "no-such-terminal" }, ["/data/attributes/terminal_id"]);
    await expect422(a, { clock_starts_at: "full_out" }, ["/data/attributes/clock_starts_at"]);
    await expect422(a, { kind: "detention" }, ["/data/attributes/clock_starts_at"]);
    expect(await tariffCount(a.accountId)).toBe(0);
  });

  it("refuses overlapping, gapped, mixed-currency and unknown-currency tiers, each at its tier", async () => {
    const a = await createAccount();
    const tier = (from: number, to: number | null, currency = "USD", rate = "10.00") => ({
      from_day: from,
      to_day: to,
      rate_per_day: rate,
      currency_code: currency,
    });
    await expect422(a, { tiers: [tier(1, 4), tier(3, null)] }, ["/data/attributes/tiers/1/from_day"]);
    await expect422(a, { tiers: [tier(1, 4), tier(6, null)] }, ["/data/attributes/tiers/1/from_day"]);
    await expect422(a, { tiers: [tier(2, null)] }, ["/data/attributes/tiers/0/from_day"]);
    await expect422(a, { tiers: [tier(1, null), tier(2, 3)] }, ["/data/attributes/tiers/0/to_day"]);
    await expect422(a, { tiers: [tier(1, 4), tier(5, null, "EUR")] }, ["/data/attributes/tiers/1/currency_code"]);
    await expect422(a, { tiers: [tier(1, null, "XYZ")] }, ["/data/attributes/tiers/0/currency_code"]);
    await expect422(a, { tiers: [tier(1, null, "JPY", "10.5")] }, ["/data/attributes/tiers/0/rate_per_day"]);
    await expect422(a, { tiers: [tier(1, null, "USD", "1e3")] }, ["/data/attributes/tiers/0/rate_per_day"]);
    await expect422(a, { tiers: [tier(3, 2), tier(3, null)] }, [
      "/data/attributes/tiers/0/from_day",
      "/data/attributes/tiers/0/to_day",
    ]);
    expect(await tariffCount(a.accountId)).toBe(0);
  });

  it("checks an update whole and leaves the tariff as it was on a 422", async () => {
    const a = await createAccount();
    const t = await create(a);
    const { res, json } = await apiJson<Doc>(`/tariffs/${t.id}`, {
      key: a.key,
      method: "PATCH",
      body: { data: { type: "tariff", attributes: { kind: "detention" } } },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(json.errors)).toContain("/data/attributes/clock_starts_at");
    const got = await apiJson<One>(`/tariffs/${t.id}`, { key: a.key });
    expect(got.json.data.attributes).toMatchObject({ kind: "demurrage" });
  });

  it("refuses a body id that is not the path's, and unknown attributes", async () => {
    const a = await createAccount();
    const t = await create(a);
    const other = await apiJson<Doc>(`/tariffs/${t.id}`, {
      key: a.key,
      method: "PATCH",
      body: { data: { type: "tariff", id: "another", attributes: { free_days: 2 } } },
    });
    expect(other.res.status).toBe(422);
    const unknown = await apiJson<Doc>("/tariffs", { key: a.key, body: body({ color: "red" }) });
    expect(unknown.res.status).toBe(422);
  });
});

describe("/tariffs: security", () => {
  it("needs a valid key", async () => {
    expect((await api("/tariffs")).status).toBe(401);
    expect((await api("/tariffs", { key: "not-a-key" })).status).toBe(401);
    expect((await api("/tariffs", { body: body({}) })).status).toBe(401);
  });

  it("answers 404 for another account's tariff, on every method, and changes nothing", async () => {
    const a = await createAccount("Alpha");
    const b = await createAccount("Beta");
    const t = await create(a, { name: "Alpha's secret" });
    for (const method of ["GET", "PATCH", "DELETE"]) {
      const { res, json } = await apiJson<Doc>(`/tariffs/${t.id}`, {
        key: b.key,
        method,
        body: method === "PATCH" ? { data: { type: "tariff", attributes: { free_days: 9 } } } : undefined,
      });
      expect(res.status, method).toBe(404);
      expect(JSON.stringify(json)).not.toContain("Alpha");
    }
    const list = await apiJson<Many>("/tariffs", { key: b.key });
    expect(list.json.data).toEqual([]);
    const got = await apiJson<One>(`/tariffs/${t.id}`, { key: a.key });
    expect(got.json.data.attributes).toMatchObject({ free_days: 4, name: "Alpha's secret" });
  });
});
