import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import type { ResourceObject } from "../../src/lib/jsonapi/types";
import { WEBHOOK_EVENTS } from "../../src/webhooks/catalog";
import { EXAMPLE_IDS, examplePayload } from "../../src/webhooks/examples";
import { type NotificationDraft, notificationInserts } from "../../src/webhooks/outbox";
import { api, apiJson, BASE, createAccount, type TestAccount } from "../helpers/api";
import { insertRequest } from "../helpers/engine";
import type { Doc, Many, One, Resource } from "../helpers/tracking";

const VESSEL_ARRIVED = "container.transport.vessel_arrived";
const SUCCEEDED = "tracking_request.succeeded";

/** POST /webhooks subscribed to `events`; fails the test unless 201. */
async function createWebhook(account: TestAccount, events: string[]): Promise<Resource> {
  const { res, json } = await apiJson<One>("/webhooks", {
    key: account.key,
    body: { data: { type: "webhook", attributes: { url: "https://hooks.example.com/receive", events } } },
  });
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data;
}

/** One notification to write: its event, reference object, `included` and creation time. */
interface Seed {
  event: string;
  reference: { id: string; type: string };
  included?: ResourceObject[];
  createdAt: string;
}

/**
 * Writes notifications the way the engine does, through the outbox's own INSERTs (src/webhooks/outbox.ts), for
 * `webhook` of `account`. Nothing is queued, so no delivery runs behind the test's back. Returns the ids in order.
 */
async function seedNotifications(account: TestAccount, webhook: Resource, seeds: Seed[]): Promise<string[]> {
  const db = createDatabase(env.DB);
  const ids: string[] = [];
  for (const seed of seeds) {
    const draft: NotificationDraft = {
      accountId: account.accountId,
      event: seed.event,
      reference: seed.reference,
      dedupKey: `test:${crypto.randomUUID()}`,
      createdAt: seed.createdAt,
      included: () => seed.included ?? [],
    };
    const { statements, ids: written } = await notificationInserts(
      db,
      [{ id: webhook.id, accountId: account.accountId, events: webhook.attributes.events as string[] }],
      [draft],
      seed.createdAt,
    );
    const [first, ...rest] = statements;
    if (!first) throw new Error(`webhook not subscribed to ${seed.event}`);
    await db.batch([first, ...rest]);
    ids.push(...written);
  }
  return ids;
}

async function setStatus(id: string, status: string): Promise<void> {
  await env.DB.prepare("UPDATE webhook_notifications SET delivery_status = ?1 WHERE id = ?2").bind(status, id).run();
}

/** An account with one webhook and three notifications (vessel arrived ×2, tracking request succeeded). */
async function accountWithNotifications() {
  const account = await createAccount();
  const webhook = await createWebhook(account, [VESSEL_ARRIVED, SUCCEEDED]);
  const succeededExample = examplePayload(SUCCEEDED);
  const arrivedExample = examplePayload(VESSEL_ARRIVED);
  const arrivedRef = arrivedExample.data.relationships.reference_object.data;
  const [arrived1, succeeded, arrived2] = await seedNotifications(account, webhook, [
    {
      event: VESSEL_ARRIVED,
      reference: arrivedRef,
      included: arrivedExample.included,
      createdAt: "2030-01-01T00:00:01Z",
    },
    {
      event: SUCCEEDED,
      reference: { id: EXAMPLE_IDS.trackingRequest, type: "tracking_request" },
      included: succeededExample.included,
      createdAt: "2030-01-01T00:00:02Z",
    },
    {
      event: VESSEL_ARRIVED,
      reference: arrivedRef,
      included: arrivedExample.included,
      createdAt: "2030-01-01T00:00:03Z",
    },
  ]);
  if (!arrived1 || !succeeded || !arrived2) throw new Error("seed failed");
  return { account, webhook, arrived1, succeeded, arrived2, arrivedRef };
}

describe("GET /webhook_notifications", () => {
  it("lists the account's notifications newest first, in the reference shape, paginated", async () => {
    const { account, webhook, arrived1, succeeded, arrived2, arrivedRef } = await accountWithNotifications();
    const { res, json } = await apiJson<Many>("/webhook_notifications?page[size]=2", { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data.map((n) => n.id)).toEqual([arrived2, succeeded]);
    expect(json.data[0]).toEqual({
      id: arrived2,
      type: "webhook_notification",
      attributes: {
        id: arrived2,
        event: VESSEL_ARRIVED,
        delivery_status: "pending",
        created_at: "2030-01-01T00:00:03Z",
      },
      relationships: {
        reference_object: { data: arrivedRef },
        webhook: { data: { id: webhook.id, type: "webhook" } },
        webhook_notification_logs: { data: [] },
      },
    });
    expect(json.included).toBeUndefined();
    expect(json.meta).toEqual({ size: 2, total: 3, pagination: { current: 1, next: 2, last: 2, records: 3 } });
    expect(json.links?.next).toBe(`${BASE}/webhook_notifications?page[number]=2&page[size]=2`);
    const page2 = await apiJson<Many>("/webhook_notifications?page[number]=2&page[size]=2", { key: account.key });
    expect(page2.json.data.map((n) => n.id)).toEqual([arrived1]);
  });

  it("filters by event, delivery_status and webhook_id, alone and together", async () => {
    const { account, webhook, arrived1, succeeded, arrived2 } = await accountWithNotifications();
    const other = await createWebhook(account, [VESSEL_ARRIVED]);
    const [otherArrived] = await seedNotifications(account, other, [
      {
        event: VESSEL_ARRIVED,
        reference: { id: crypto.randomUUID(), type: "transport_event" },
        createdAt: "2030-01-01T00:00:04Z",
      },
    ]);
    await setStatus(arrived1, "succeeded");
    await setStatus(succeeded, "failed");

    const ids = async (query: string) => {
      const { res, json } = await apiJson<Many>(`/webhook_notifications?${query}`, { key: account.key });
      expect(res.status, query).toBe(200);
      expect(json.meta?.total, query).toBe(json.data.length);
      return json.data.map((n) => n.id);
    };
    expect(await ids(`filter[event]=${VESSEL_ARRIVED}`)).toEqual([otherArrived, arrived2, arrived1]);
    expect(await ids(`filter[event]=${SUCCEEDED}`)).toEqual([succeeded]);
    expect(await ids("filter[delivery_status]=pending")).toEqual([otherArrived, arrived2]);
    expect(await ids("filter[delivery_status]=succeeded")).toEqual([arrived1]);
    expect(await ids("filter[delivery_status]=failed")).toEqual([succeeded]);
    expect(await ids(`filter[webhook_id]=${other.id}`)).toEqual([otherArrived]);
    expect(await ids(`filter[webhook_id]=${webhook.id}&filter[delivery_status]=pending`)).toEqual([arrived2]);
    expect(await ids(`filter%5Bevent%5D=${SUCCEEDED}&filter%5Bdelivery_status%5D=pending`)).toEqual([]);
    expect(await ids("filter[webhook_id]=0192b6a4-0000-7000-8000-000000000000")).toEqual([]);
  });

  it("answers 400 with source.parameter for an invalid filter value", async () => {
    const account = await createAccount();
    for (const [query, parameter] of [
      ["filter[event]=container.exploded", "filter[event]"],
      ["filter[delivery_status]=delivered", "filter[delivery_status]"],
      [`filter[webhook_id]=${"x".repeat(65)}`, "filter[webhook_id]"],
      ["include=container", "include"],
      ["page[number]=0", "page[number]"],
    ]) {
      const { res, json } = await apiJson<Doc>(`/webhook_notifications?${query}`, { key: account.key });
      expect(res.status, query).toBe(400);
      expect(json.errors?.[0]?.source, query).toEqual({ parameter });
    }
  });

  it("includes webhooks and reference objects, de-duplicated", async () => {
    const { account, webhook, arrivedRef } = await accountWithNotifications();
    const { json } = await apiJson<Many>("/webhook_notifications?include=webhook,reference_object", {
      key: account.key,
    });
    const keys = (json.included ?? []).map((r) => `${r.type}:${r.id}`);
    expect(keys.sort()).toEqual(
      [
        `webhook:${webhook.id}`,
        `${arrivedRef.type}:${arrivedRef.id}`,
        `tracking_request:${EXAMPLE_IDS.trackingRequest}`,
      ].sort(),
    );
    const includedWebhook = json.included?.find((r) => r.type === "webhook");
    expect(includedWebhook).toEqual(webhook);
  });

  it("answers 401 without a key", async () => {
    expect((await api("/webhook_notifications")).status).toBe(401);
    expect((await api("/webhook_notifications/examples?event=container.updated")).status).toBe(401);
  });
});

describe("GET /webhook_notifications/{id}", () => {
  it("returns the notification; include=reference_object adds the resource as it was delivered", async () => {
    const { account, webhook, succeeded } = await accountWithNotifications();
    const plain = await apiJson<One>(`/webhook_notifications/${succeeded}`, { key: account.key });
    expect(plain.res.status).toBe(200);
    expect(plain.json.data.attributes).toEqual({
      id: succeeded,
      event: SUCCEEDED,
      delivery_status: "pending",
      created_at: "2030-01-01T00:00:02Z",
    });
    expect(plain.json.links?.self).toBe(`${BASE}/webhook_notifications/${succeeded}`);
    expect(plain.json.included).toBeUndefined();

    const { json } = await apiJson<One>(`/webhook_notifications/${succeeded}?include=reference_object,webhook`, {
      key: account.key,
    });
    const delivered = examplePayload(SUCCEEDED).included.find((r) => r.type === "tracking_request");
    expect(delivered).toBeDefined();
    expect(json.included).toHaveLength(2);
    expect(json.included).toEqual(expect.arrayContaining([delivered, webhook]));
  });

  it("reads the live row when the delivered body did not carry the reference object, scoped to the account", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account, ["tracking_request.failed"]);
    const requestId = await insertRequest(account, {
      number: "TEST-TR-FAILED",
      createdAtMs: Date.UTC(2030, 0, 1),
      status: "failed",
    });
    const [id] = await seedNotifications(account, webhook, [
      {
        event: "tracking_request.failed",
        reference: { id: requestId, type: "tracking_request" },
        createdAt: "2030-01-01T00:00:05Z",
      },
    ]);
    const { json } = await apiJson<One>(`/webhook_notifications/${id}?include=reference_object`, { key: account.key });
    expect(json.included).toHaveLength(1);
    expect(json.included?.[0]).toMatchObject({
      id: requestId,
      type: "tracking_request",
      attributes: { request_number: "TEST-TR-FAILED", status: "failed" },
    });

    // Another account's notification naming that tracking request cannot read it.
    const other = await createAccount();
    const otherWebhook = await createWebhook(other, ["tracking_request.failed"]);
    const [foreign] = await seedNotifications(other, otherWebhook, [
      {
        event: "tracking_request.failed",
        reference: { id: requestId, type: "tracking_request" },
        createdAt: "2030-01-01T00:00:06Z",
      },
    ]);
    const leak = await apiJson<One>(`/webhook_notifications/${foreign}?include=reference_object`, { key: other.key });
    expect(leak.res.status).toBe(200);
    expect(leak.json.included ?? []).toEqual([]);
  });

  it("refuses unknown and nested includes with 400", async () => {
    const { account, succeeded } = await accountWithNotifications();
    for (const include of ["logs", "reference_object.container", "webhook.secret"]) {
      const { res, json } = await apiJson<Doc>(`/webhook_notifications/${succeeded}?include=${include}`, {
        key: account.key,
      });
      expect(res.status, include).toBe(400);
      expect(json.errors?.[0]?.source, include).toEqual({ parameter: "include" });
    }
  });

  it("answers 404 for an unknown id", async () => {
    const account = await createAccount();
    const { res } = await apiJson<Doc>("/webhook_notifications/0192b6a4-0000-7000-8000-000000000000", {
      key: account.key,
    });
    expect(res.status).toBe(404);
  });
});

describe("another account's notifications", () => {
  it("are 404 by id and absent from lists, filters and includes", async () => {
    const { account, webhook, arrived1, succeeded } = await accountWithNotifications();
    const b = await createAccount("Beta");
    for (const id of [arrived1, succeeded]) {
      for (const suffix of ["", "?include=reference_object,webhook"]) {
        const { res, json } = await apiJson<Doc>(`/webhook_notifications/${id}${suffix}`, { key: b.key });
        expect(res.status).toBe(404);
        expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
      }
    }
    for (const query of ["", `?filter[webhook_id]=${webhook.id}`, `?filter[event]=${VESSEL_ARRIVED}&include=webhook`]) {
      const { json } = await apiJson<Many>(`/webhook_notifications${query}`, { key: b.key });
      expect(json.data, query).toEqual([]);
      expect(json.meta?.total, query).toBe(0);
      expect(json.included ?? [], query).toEqual([]);
    }
    const own = await apiJson<Many>("/webhook_notifications", { key: account.key });
    expect(own.json.meta?.total).toBe(3);
  });
});

describe("GET /webhook_notifications/examples", () => {
  it("answers the example document of every catalog event", async () => {
    const account = await createAccount();
    for (const event of WEBHOOK_EVENTS) {
      const path = `/webhook_notifications/examples?event=${encodeURIComponent(event)}`;
      const { res, json } = await apiJson<Record<string, unknown>>(path, { key: account.key });
      expect(res.status, event).toBe(200);
      expect(res.headers.get("content-type"), event).toBe("application/vnd.api+json");
      expect(json, event).toEqual({ ...examplePayload(event), links: { self: `${BASE}${path}` } });
      const data = json.data as Resource;
      expect(data.type, event).toBe("webhook_notification");
      expect(data.attributes.event, event).toBe(event);
      expect(data.relationships?.reference_object?.data, event).toBeTruthy();
    }
  });

  it("answers 400 with source.parameter event without an event or for an unknown one", async () => {
    const account = await createAccount();
    for (const query of ["", "?event=", "?event=%20", "?event=container.exploded", "?event=CONTAINER.UPDATED"]) {
      const { res, json } = await apiJson<Doc>(`/webhook_notifications/examples${query}`, { key: account.key });
      expect(res.status, query).toBe(400);
      expect(json.errors?.[0], query).toMatchObject({
        status: "400",
        title: "Bad Request",
        source: { parameter: "event" },
      });
      expect(json.errors?.[0]?.detail, query).toBeTruthy();
    }
  });
});
