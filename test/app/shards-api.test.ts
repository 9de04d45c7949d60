import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/lib/ids";
import { vesselIdForImo } from "../../src/vessels/identity";
import { api, apiJson, type TestAccount, trackingRequestBody } from "../helpers/api";
import { type SeededContainer, seedContainers } from "../helpers/container-rows";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";
import type { Doc, Many, One } from "../helpers/tracking";

// The request side of shards (issue 29 §3; docs/SCALING.md §Shards): account A lives on shard 0 (`DB`), account B on
// shard 1 (`DB_1`). Every REST route reads and writes B's rows in DB_1 and never in DB; what is not an account's
// (API keys, users, entitlements, vessels) stays in the primary; A never sees B's ids (404), nor B A's.

let a: TestAccount;
let b: TestAccount;
let aBox: SeededContainer;
let bBox: SeededContainer;
let shard1: D1Database;

const IMO = "9811000";
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

/** How many rows of `table` belong to `accountId` in `d1`. */
async function rowsIn(d1: D1Database, table: string, accountId: string, where = "1 = 1"): Promise<number> {
  const row = await d1
    .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?1 AND ${where}`)
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Expects `accountId`'s rows of `table` to be `n` in DB_1 and none in the primary DB. */
async function expectOnShard1Only(table: string, accountId: string, n: number): Promise<void> {
  expect(await rowsIn(shard1, table, accountId), `${table} in DB_1`).toBe(n);
  expect(await rowsIn(env.DB, table, accountId), `${table} in DB`).toBe(0);
}

beforeAll(async () => {
  shard1 = await prepareSecondShard();
  a = await createAccountOnShard(0, "A on shard 0");
  b = await createAccountOnShard(1, "B on shard 1");
  // Entitlements are the primary's record: B's shard copy keeps '[]', so a route answered 200 read the primary.
  await env.DB.prepare("UPDATE accounts SET entitlements = '[\"routing\"]' WHERE id IN (?1, ?2)")
    .bind(a.accountId, b.accountId)
    .run();
  [aBox] = (await seedContainers(a.accountId, [{ number: "AAAU1000001", podLocode: "USLAX", second: 1 }])) as [
    SeededContainer,
  ];
  [bBox] = (await seedContainers(b.accountId, [{ number: "BBBU2000002", podLocode: "USLAX", second: 2 }], shard1)) as [
    SeededContainer,
  ];
  // B's box sails on vessel IMO: an event in DB_1; the vessel row (shared) in the primary only.
  await shard1
    .prepare(
      `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, timestamp, location_locode,
         vessel_name, vessel_imo, data_source, created_at)
       VALUES (?1, ?2, ?3, ?4, 'container.transport.vessel_departed', ?5, 'CNYTN', 'SHARD ONE', ?6, 'shipping_line', ?5)`,
    )
    .bind(newId(), b.accountId, bBox.id, bBox.shipmentId, "2026-01-02T00:00:00Z", IMO)
    .run();
  await env.DB.prepare("INSERT INTO vessels (id, imo, name, updated_at) VALUES (?1, ?2, 'PRIMARY NAME', ?3)")
    .bind(vesselIdForImo(IMO), IMO, now())
    .run();
});

describe("shard 1 account: containers, shipments and tracking requests", () => {
  it("lists and reads B's containers and shipments from DB_1; A and B see only their own", async () => {
    const listB = await apiJson<Many>("/containers", { key: b.key });
    expect(listB.res.status).toBe(200);
    expect(listB.json.data.map((d) => d.id)).toEqual([bBox.id]);
    const listA = await apiJson<Many>("/containers", { key: a.key });
    expect(listA.json.data.map((d) => d.id)).toEqual([aBox.id]);

    expect((await api(`/containers/${bBox.id}`, { key: b.key })).status).toBe(200);
    expect((await api(`/shipments/${bBox.shipmentId}`, { key: b.key })).status).toBe(200);
    // Another account's ids answer 404 both ways.
    expect((await api(`/containers/${bBox.id}`, { key: a.key })).status).toBe(404);
    expect((await api(`/shipments/${bBox.shipmentId}`, { key: a.key })).status).toBe(404);
    expect((await api(`/containers/${aBox.id}`, { key: b.key })).status).toBe(404);
    expect((await api(`/shipments/${aBox.shipmentId}`, { key: b.key })).status).toBe(404);
  });

  it("creates B's tracking request in DB_1 and nowhere else", async () => {
    const { res, json } = await apiJson<One>("/tracking_requests", {
      key: b.key,
      body: trackingRequestBody({ scac: "TEST", request_number: "SHARDONE0001" }),
    });
    expect(res.status, JSON.stringify(json)).toBe(201);
    await expectOnShard1Only("tracking_requests", b.accountId, 1);
    expect((await api(`/tracking_requests/${json.data.id}`, { key: b.key })).status).toBe(200);
    expect((await api(`/tracking_requests/${json.data.id}`, { key: a.key })).status).toBe(404);
    const list = await apiJson<Many>("/tracking_requests", { key: b.key });
    expect(list.json.data.map((d) => d.id)).toEqual([json.data.id]);
  });

  it("keeps B's tracking request import and its rows in DB_1", async () => {
    const created = await apiJson<One>("/tracking_request_imports", {
      key: b.key,
      body: {
        data: {
          type: "tracking_request_import",
          attributes: { rows: [{ container_number: "MSCU1234565", scac: "TEST" }], dry_run: true },
        },
      },
    });
    expect(created.res.status, JSON.stringify(created.json)).toBe(201);
    await expectOnShard1Only("tracking_request_imports", b.accountId, 1);
    const id = created.json.data.id;
    expect((await api(`/tracking_request_imports/${id}`, { key: b.key })).status).toBe(200);
    expect((await api(`/tracking_request_imports/${id}`, { key: a.key })).status).toBe(404);
    const started = await apiJson<One>(`/tracking_request_imports/${id}/start`, { key: b.key, method: "POST" });
    expect(started.res.status, JSON.stringify(started.json)).toBe(200);
    expect((await api(`/tracking_request_imports/${id}/start`, { key: a.key, method: "POST" })).status).toBe(404);
  });

  it("refuses a request without a key or with a bad key before reading any shard", async () => {
    expect((await api("/containers")).status).toBe(401);
    expect((await api("/containers", { key: "svc_test_notakeyatall0000000000000000" })).status).toBe(401);
  });
});

describe("shard 1 account: webhooks, custom fields, tariffs, alert rules, search", () => {
  it("creates, reads, updates and deletes B's webhook in DB_1", async () => {
    const created = await apiJson<One>("/webhooks", {
      key: b.key,
      body: {
        data: {
          type: "webhook",
          attributes: { url: "https://hooks.example.com/b", events: ["container.transport.vessel_arrived"] },
        },
      },
    });
    expect(created.res.status, JSON.stringify(created.json)).toBe(201);
    const id = created.json.data.id;
    await expectOnShard1Only("webhooks", b.accountId, 1);
    expect((await api(`/webhooks/${id}`, { key: a.key })).status).toBe(404);
    const patched = await apiJson<One>(`/webhooks/${id}`, {
      key: b.key,
      method: "PATCH",
      body: { data: { type: "webhook", id, attributes: { active: false } } },
    });
    expect(patched.res.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.data.attributes.active).toBe(false);
    expect((await api(`/webhooks/${id}`, { key: a.key, method: "DELETE" })).status).toBe(404);
    expect((await api(`/webhooks/${id}`, { key: b.key, method: "DELETE" })).status).toBe(200);
    await expectOnShard1Only("webhooks", b.accountId, 0);
  });

  it("keeps B's custom field definitions and values in DB_1, under the limit the primary records", async () => {
    const def = await apiJson<One>("/custom_field_definitions", {
      key: b.key,
      body: {
        data: {
          type: "custom_field_definition",
          attributes: { entity_type: "Container", display_name: "PO", api_slug: "po", data_type: "short_text" },
        },
      },
    });
    expect(def.res.status, JSON.stringify(def.json)).toBe(201);
    await expectOnShard1Only("custom_field_definitions", b.accountId, 1);
    // The limit is set in the primary only (the operator's record); the shard's copy of the row says no limit.
    await env.DB.prepare("UPDATE accounts SET custom_field_limit = 1 WHERE id = ?1").bind(b.accountId).run();
    try {
      const set = await apiJson<One>(`/containers/${bBox.id}/custom_fields`, {
        key: b.key,
        body: { data: { type: "custom_field", attributes: { api_slug: "po", value: "PO-1" } } },
      });
      expect(set.res.status, JSON.stringify(set.json)).toBe(201);
      await expectOnShard1Only("custom_fields", b.accountId, 1);
      const [other] = await seedContainers(b.accountId, [{ number: "BBBU2000003", second: 3 }], shard1);
      const over = await apiJson<Doc>(`/containers/${other?.id}/custom_fields`, {
        key: b.key,
        body: { data: { type: "custom_field", attributes: { api_slug: "po", value: "PO-2" } } },
      });
      expect(over.res.status, JSON.stringify(over.json)).toBe(403);
      expect(over.json.errors?.[0]?.code).toBe("custom_field_limit");
      await expectOnShard1Only("custom_fields", b.accountId, 1);
      // A cannot write on B's container.
      const cross = await api(`/containers/${bBox.id}/custom_fields`, {
        key: a.key,
        body: { data: { type: "custom_field", attributes: { api_slug: "po", value: "x" } } },
      });
      expect(cross.status).toBe(404);
    } finally {
      await env.DB.prepare("UPDATE accounts SET custom_field_limit = NULL WHERE id = ?1").bind(b.accountId).run();
    }
  });

  it("keeps B's tariffs and alert rules in DB_1", async () => {
    const tariff = await apiJson<One>("/tariffs", {
      key: b.key,
      body: {
        data: {
          type: "tariff",
          attributes: {
            name: "B",
            kind: "demurrage",
            free_days: 4,
            clock_starts_at: "discharged",
            tiers: [{ from_day: 1, to_day: null, rate_per_day: "100.00", currency_code: "USD" }],
          },
        },
      },
    });
    expect(tariff.res.status, JSON.stringify(tariff.json)).toBe(201);
    await expectOnShard1Only("tariffs", b.accountId, 1);
    expect((await api(`/tariffs/${tariff.json.data.id}`, { key: a.key })).status).toBe(404);

    const rule = await apiJson<One>("/alert_rules", {
      key: b.key,
      body: {
        data: {
          type: "alert_rule",
          attributes: {
            condition: "free_time_ending",
            threshold_days: 2,
            channel: { type: "slack", url: "https://hooks.slack.com/services/T000/B000/XXXX" },
          },
        },
      },
    });
    expect(rule.res.status, JSON.stringify(rule.json)).toBe(201);
    await expectOnShard1Only("alert_rules", b.accountId, 1);
    expect((await api(`/alert_rules/${rule.json.data.id}`, { key: a.key })).status).toBe(404);
    expect((await api(`/alert_rules/${rule.json.data.id}`, { key: b.key })).status).toBe(200);
  });

  it("searches B's shard only", async () => {
    const hit = await apiJson<Many>("/search?query=BBBU2000002", { key: b.key });
    expect(hit.res.status, JSON.stringify(hit.json)).toBe(200);
    expect(hit.json.data.map((d) => d.id)).toContain(bBox.id);
    const miss = await apiJson<Many>("/search?query=BBBU2000002", { key: a.key });
    expect(miss.json.data).toEqual([]);
  });
});

describe("shard 1 account: what lives in the primary", () => {
  it("lists B's API keys and users from the primary", async () => {
    const keys = await apiJson<Many>("/api_keys", { key: b.key });
    expect(keys.res.status, JSON.stringify(keys.json)).toBe(200);
    expect(keys.json.data.map((k) => k.id)).toEqual([b.apiKeyId]);
    expect((await api(`/api_keys/${a.apiKeyId}`, { key: b.key })).status).toBe(404);
    const created = await apiJson<One>("/api_keys", {
      key: b.key,
      body: { data: { type: "api_key", attributes: { name: "second" } } },
    });
    expect(created.res.status, JSON.stringify(created.json)).toBe(201);
    const inPrimary = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE account_id = ?1")
      .bind(b.accountId)
      .first<{ n: number }>();
    expect(inPrimary?.n).toBe(2);
    const onShard = await shard1.prepare("SELECT COUNT(*) AS n FROM api_keys").first<{ n: number }>();
    expect(onShard?.n).toBe(0);
    // The new key authenticates as B, on B's shard.
    const key = String(created.json.data.attributes.key ?? "");
    if (key) {
      const viaNew = await apiJson<Many>("/containers", { key });
      expect(viaNew.json.data.map((d) => d.id)).toContain(bBox.id);
    }
    const users = await api("/users", { key: b.key });
    expect(users.status).toBe(200);
  });

  it("routes B's box with the primary's entitlement and vessel, and names the vessel from DB_1's events", async () => {
    const route = await apiJson<Doc>(`/containers/${bBox.id}/route?include=vessel`, { key: b.key });
    expect(route.res.status, JSON.stringify(route.json)).toBe(200);
    expect((await api(`/containers/${bBox.id}/route`, { key: a.key })).status).toBe(404);
    const map = await api(`/containers/${bBox.id}/map_geojson`, { key: b.key });
    expect(map.status).toBe(200);

    // The vessel row is in the primary (name from it) …
    const vessel = await apiJson<One>(`/vessels/${IMO}`, { key: b.key });
    expect(vessel.res.status, JSON.stringify(vessel.json)).toBe(200);
    expect(vessel.json.data.attributes.name).toBe("PRIMARY NAME");
    // … and a vessel only shard 1's events name is found for every account (vessels are shared reference data).
    const onlyOnShard = "9822000";
    await shard1
      .prepare(
        `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, timestamp, vessel_name,
           vessel_imo, data_source, created_at)
         VALUES (?1, ?2, ?3, ?4, 'container.transport.vessel_departed', ?5, 'ONLY IN DB_1', ?6, 'shipping_line', ?5)`,
      )
      .bind(newId(), b.accountId, bBox.id, bBox.shipmentId, now(), onlyOnShard)
      .run();
    const named = await apiJson<One>(`/vessels/${onlyOnShard}`, { key: a.key });
    expect(named.res.status, JSON.stringify(named.json)).toBe(200);
    expect(named.json.data.attributes.name).toBe("ONLY IN DB_1");
    expect((await api("/vessels/9833000", { key: a.key })).status).toBe(404);
  });
});
