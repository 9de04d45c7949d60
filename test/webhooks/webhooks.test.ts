import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createDatabase } from "../../src/db/client";
import { toHex } from "../../src/lib/crypto";
import { WEBHOOK_EVENTS } from "../../src/webhooks/catalog";
import { examplePayload } from "../../src/webhooks/examples";
import { notificationInserts } from "../../src/webhooks/outbox";
import { setWebhookFetch } from "../../src/webhooks/send";
import { api, apiJson, BASE, createAccount, type TestAccount } from "../helpers/api";
import type { Doc, Many, One, Resource } from "../helpers/tracking";
import { REJECTED_WEBHOOK_URLS } from "./ssrf-matrix";

const URL_OK = "https://hooks.example.com/receive";
const VESSEL_ARRIVED = "container.transport.vessel_arrived";

function webhookBody(attributes: Record<string, unknown> = {}) {
  return { data: { type: "webhook", attributes: { url: URL_OK, events: [VESSEL_ARRIVED], ...attributes } } };
}

function patchBody(attributes: Record<string, unknown>, id?: string) {
  return { data: { type: "webhook", ...(id ? { id } : {}), attributes } };
}

/** POST /webhooks; fails the test unless 201. */
async function createWebhook(account: TestAccount, attributes: Record<string, unknown> = {}): Promise<Resource> {
  const { res, json } = await apiJson<One>("/webhooks", { key: account.key, body: webhookBody(attributes) });
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data;
}

type Errors = NonNullable<Doc["errors"]>;

/** The `(pointer, code)` pairs of a 422, for exact comparison. */
function pointersAndCodes(errors: Errors | undefined): [string | undefined, string | undefined][] {
  return (errors ?? []).map((e) => [e.source?.pointer, e.code]);
}

/** A recording receiver for outbound webhook requests (set with `setWebhookFetch`). */
function recordingReceiver(respond: (request: Request) => Response | Promise<Response> = () => new Response("ok")) {
  const requests: { url: string; method: string; headers: Headers; body: string; redirect: string }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    requests.push({
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: await request.clone().text(),
      redirect: request.redirect,
    });
    return respond(request);
  };
  return { fetch, requests };
}

async function hmacHex(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body))));
}

/** The webhook row as stored (for the fields the API does not show). */
async function storedWebhook(id: string) {
  return env.DB.prepare("SELECT active, failing_since, disabled_reason, url FROM webhooks WHERE id = ?1")
    .bind(id)
    .first<{ active: number; failing_since: string | null; disabled_reason: string | null; url: string }>();
}

/** Sends a request through a fresh app with `overrides` on the environment (e.g. the insecure-host allow list). */
async function appFetch(
  path: string,
  key: string,
  overrides: Record<string, string>,
  init: { method?: string; body?: unknown } = {},
): Promise<{ res: Response; json: Record<string, unknown> & Doc }> {
  const app = createApp();
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}${path}`, {
      method: init.method ?? (init.body ? "POST" : "GET"),
      headers: { Authorization: `Token ${key}`, "Content-Type": "application/json" },
      body: init.body ? JSON.stringify(init.body) : undefined,
    }),
    { ...env, ...overrides },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { res, json: text ? JSON.parse(text) : null };
}

describe("POST /webhooks", () => {
  it("creates a webhook (201) with a generated whsec_ secret, normalised url, deduplicated events, headers as given", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<One>("/webhooks", {
      key: account.key,
      body: webhookBody({
        url: "https://Hooks.Example.com:443/receive",
        events: ["tracking_request.succeeded", VESSEL_ARRIVED, "tracking_request.succeeded"],
        headers: [{ name: "x-secret-sauce", value: " sriracha " }],
      }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/vnd.api+json");
    const data = json.data;
    expect(data.type).toBe("webhook");
    expect(data.attributes).toMatchObject({
      url: "https://hooks.example.com/receive",
      active: true,
      events: ["tracking_request.succeeded", VESSEL_ARRIVED],
      headers: [{ name: "x-secret-sauce", value: "sriracha" }],
    });
    expect(data.attributes.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const secret = String(data.attributes.secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(secret.slice("whsec_".length)).length).toBe(32);
  });

  it("gives every webhook its own secret, and honours active: false", async () => {
    const account = await createAccount();
    const a = await createWebhook(account);
    const b = await createWebhook(account, { active: false });
    expect(a.attributes.secret).not.toBe(b.attributes.secret);
    expect(b.attributes.active).toBe(false);
    expect(a.attributes.headers).toBeNull();
  });

  it("reports every invalid field at once, each with its pointer and code, and creates nothing", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/webhooks", {
      key: account.key,
      body: webhookBody({
        url: "http://hooks.example.com/receive",
        events: [VESSEL_ARRIVED, "container.exploded", "shipment.arrived", "tracking_request.succeeded"],
        headers: [
          { name: "Content-Type", value: "text/plain" },
          { name: "Bad Header", value: "x" },
          { name: "X-Ok", value: "line1\r\nInjected: yes" },
        ],
      }),
    });
    expect(res.status).toBe(422);
    expect(pointersAndCodes(json.errors)).toEqual([
      ["/data/attributes/url", "scheme_not_allowed"],
      ["/data/attributes/events/1", "not_recognized"],
      ["/data/attributes/events/2", "not_recognized"],
      ["/data/attributes/headers/0/name", "reserved"],
      ["/data/attributes/headers/1/name", "invalid"],
      ["/data/attributes/headers/2/value", "control_character"],
    ]);
    for (const error of json.errors ?? []) {
      expect(error).toMatchObject({ status: "422", title: "Unprocessable Entity" });
      expect(error.detail).toBeTruthy();
    }
    expect(json.errors?.[1]?.detail).toContain("container.exploded");
    const list = await apiJson<Many>("/webhooks", { key: account.key });
    expect(list.json.data).toEqual([]);
    expect(list.json.meta?.total).toBe(0);
  });

  it("requires url and at least one event", async () => {
    const account = await createAccount();
    const missing = await apiJson<Doc>("/webhooks", {
      key: account.key,
      body: { data: { type: "webhook", attributes: { active: true } } },
    });
    expect(missing.res.status).toBe(422);
    expect(pointersAndCodes(missing.json.errors)).toEqual([
      ["/data/attributes/url", "blank"],
      ["/data/attributes/events", "blank"],
    ]);
    const empty = await apiJson<Doc>("/webhooks", {
      key: account.key,
      body: webhookBody({ url: "", events: [] }),
    });
    expect(empty.res.status).toBe(422);
    expect(pointersAndCodes(empty.json.errors)).toEqual([
      ["/data/attributes/url", "blank"],
      ["/data/attributes/events", "blank"],
    ]);
  });

  it("refuses reserved, malformed, duplicate and oversized headers, each at its own pointer", async () => {
    const account = await createAccount();
    const reserved = [
      "content-type",
      "Content-Length",
      "HOST",
      "User-Agent",
      "webhook-id",
      "Webhook-Signature",
      "webhook-anything",
      "X-SVC-Webhook-Signature",
      "x-svc-custom",
      "Transfer-Encoding",
      "Connection",
      "CF-Connecting-IP",
    ];
    const { res, json } = await apiJson<Doc>("/webhooks", {
      key: account.key,
      body: webhookBody({ headers: reserved.map((name) => ({ name, value: "v" })) }),
    });
    expect(res.status).toBe(422);
    expect(pointersAndCodes(json.errors)).toEqual(
      reserved.map((_, i) => [`/data/attributes/headers/${i}/name`, "reserved"]),
    );

    const bad = await apiJson<Doc>("/webhooks", {
      key: account.key,
      body: webhookBody({
        headers: [
          { name: "", value: "v" },
          { name: "X-Colon:", value: "v" },
          { name: "X-Dup", value: "1" },
          { name: "x-dup", value: "2" },
          { name: "X-Blank", value: "   " },
          { name: "X-Long", value: "a".repeat(1025) },
          { name: "X-Unicode", value: "caf\u00e9" },
          { name: "X-Nul", value: "a\u0000b" },
          { name: `X-${"n".repeat(127)}`, value: "v" },
        ],
      }),
    });
    expect(bad.res.status).toBe(422);
    expect(pointersAndCodes(bad.json.errors)).toEqual([
      ["/data/attributes/headers/0/name", "blank"],
      ["/data/attributes/headers/1/name", "invalid"],
      ["/data/attributes/headers/3/name", "duplicate"],
      ["/data/attributes/headers/4/value", "blank"],
      ["/data/attributes/headers/5/value", "too_long"],
      ["/data/attributes/headers/6/value", "invalid"],
      ["/data/attributes/headers/7/value", "control_character"],
      ["/data/attributes/headers/8/name", "too_long"],
    ]);

    const tooMany = await apiJson<Doc>("/webhooks", {
      key: account.key,
      body: webhookBody({ headers: Array.from({ length: 21 }, (_, i) => ({ name: `X-H${i}`, value: "v" })) }),
    });
    expect(tooMany.res.status).toBe(422);
    expect(pointersAndCodes(tooMany.json.errors)).toEqual([["/data/attributes/headers", "too_many"]]);
    // The limit itself is fine.
    await createWebhook(account, {
      headers: Array.from({ length: 20 }, (_, i) => ({ name: `X-H${i}`, value: "v" })),
    });
  });

  it("refuses bodies of the wrong shape with pointers (type, unknown attributes, wrong types)", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/webhooks", {
      key: account.key,
      body: { data: { type: "webhooks", attributes: { url: URL_OK, events: "all", secret: "mine" } } },
    });
    expect(res.status).toBe(422);
    const pointers = (json.errors ?? []).map((e) => e.source?.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining(["/data/type", "/data/attributes/events", "/data/attributes/secret"]),
    );
  });

  it("refuses a webhook beyond the account's limit of 100 until one is deleted", async () => {
    const account = await createAccount();
    const existing = await createWebhook(account);
    // 99 more through the API would spend the rate bucket; the limit reads the account's counter, so set it there.
    await env.DB.prepare(
      "UPDATE account_resource_counts SET count = 100 WHERE account_id = ?1 AND resource = 'webhook'",
    )
      .bind(account.accountId)
      .run();
    const refused = await apiJson<Doc>("/webhooks", { key: account.key, body: webhookBody() });
    expect(refused.res.status).toBe(422);
    expect(pointersAndCodes(refused.json.errors)).toEqual([["/data", "limit_reached"]]);
    expect((await api(`/webhooks/${existing.id}`, { key: account.key, method: "DELETE" })).status).toBe(200);
    await createWebhook(account);
  });

  it("answers 401 without a valid key", async () => {
    expect((await api("/webhooks", { body: webhookBody() })).status).toBe(401);
    expect((await api("/webhooks")).status).toBe(401);
    expect((await api("/webhooks/events")).status).toBe(401);
  });
});

describe("SSRF rules at create, update and trigger", () => {
  it("refuses every URL of the matrix at create, with the rule's code at /data/attributes/url", async () => {
    const account = await createAccount();
    for (const { url, code } of REJECTED_WEBHOOK_URLS) {
      const { res, json } = await apiJson<Doc>("/webhooks", { key: account.key, body: webhookBody({ url }) });
      expect(res.status, url).toBe(422);
      expect(pointersAndCodes(json.errors), url).toEqual([["/data/attributes/url", code]]);
    }
    const list = await apiJson<Many>("/webhooks", { key: account.key });
    expect(list.json.meta?.total).toBe(0);
  });

  it("refuses every URL of the matrix at update and leaves the webhook unchanged", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    for (const { url, code } of REJECTED_WEBHOOK_URLS) {
      const { res, json } = await apiJson<Doc>(`/webhooks/${webhook.id}`, {
        key: account.key,
        method: "PATCH",
        body: patchBody({ url }),
      });
      expect(res.status, url).toBe(422);
      expect(pointersAndCodes(json.errors), url).toEqual([["/data/attributes/url", code]]);
    }
    const after = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(after.json.data.attributes).toEqual(webhook.attributes);
  });

  it("refuses every URL of the matrix at trigger, without sending anything", async () => {
    const account = await createAccount();
    const receiver = recordingReceiver();
    setWebhookFetch(receiver.fetch);
    try {
      for (const { url, code } of REJECTED_WEBHOOK_URLS) {
        const { res, json } = await apiJson<Doc>("/webhooks/trigger", {
          key: account.key,
          body: { url, event: VESSEL_ARRIVED },
        });
        expect(res.status, url).toBe(422);
        expect(pointersAndCodes(json.errors), url).toEqual([["/url", code]]);
      }
    } finally {
      setWebhookFetch(null);
    }
    expect(receiver.requests).toEqual([]);
  });

  it("lets http reach exactly the hosts of WEBHOOK_ALLOW_INSECURE_HOSTS (local development)", async () => {
    const account = await createAccount();
    const allow = { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1,localhost" };
    const local = "http://127.0.0.1:9999/hook";
    const created = await appFetch("/webhooks", account.key, allow, { body: webhookBody({ url: local }) });
    expect(created.res.status).toBe(201);
    expect((created.json.data as Resource).attributes.url).toBe(local);
    const other = await appFetch("/webhooks", account.key, allow, {
      body: webhookBody({ url: "http://127.0.0.2:9999/hook" }),
    });
    expect(other.res.status).toBe(422);
    expect(pointersAndCodes(other.json.errors)).toEqual([["/data/attributes/url", "scheme_not_allowed"]]);
    // The Worker's own configuration (wrangler.toml: empty) refuses the same URL.
    const prod = await apiJson<Doc>("/webhooks", { key: account.key, body: webhookBody({ url: local }) });
    expect(pointersAndCodes(prod.json.errors)).toEqual([["/data/attributes/url", "scheme_not_allowed"]]);

    const receiver = recordingReceiver();
    setWebhookFetch(receiver.fetch);
    try {
      const triggered = await appFetch("/webhooks/trigger", account.key, allow, {
        body: { url: "http://localhost:8788/receiver", event: VESSEL_ARRIVED },
      });
      expect(triggered.res.status).toBe(200);
      expect(triggered.json.succeeded).toBe(true);
    } finally {
      setWebhookFetch(null);
    }
    expect(receiver.requests.map((r) => r.url)).toEqual(["http://localhost:8788/receiver"]);
  });
});

describe("GET /webhooks and GET /webhooks/{id}", () => {
  it("returns the webhook with its secret", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account, { headers: [{ name: "Authorization", value: "Bearer abc" }] });
    const { res, json } = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data).toEqual(webhook);
    expect(json.links?.self).toBe(`${BASE}/webhooks/${webhook.id}`);
  });

  it("lists newest first, paginated like the other resources", async () => {
    const account = await createAccount();
    const created: Resource[] = [];
    for (let i = 0; i < 3; i++) created.push(await createWebhook(account, { url: `https://hooks.example.com/${i}` }));
    const newestFirst = [...created].reverse().map((w) => w.id);

    const page1 = await apiJson<Many>("/webhooks?page[size]=2", { key: account.key });
    expect(page1.res.status).toBe(200);
    expect(page1.json.data.map((w) => w.id)).toEqual(newestFirst.slice(0, 2));
    expect(page1.json.data[0]?.attributes.secret).toBe(created[2]?.attributes.secret);
    expect(page1.json.meta).toEqual({ size: 2, total: 3, pagination: { current: 1, next: 2, last: 2, records: 3 } });
    expect(page1.json.links?.next).toBe(`${BASE}/webhooks?page[number]=2&page[size]=2`);

    const page2 = await apiJson<Many>("/webhooks?page%5Bnumber%5D=2&page%5Bsize%5D=2", { key: account.key });
    expect(page2.json.data.map((w) => w.id)).toEqual(newestFirst.slice(2));
    expect(page2.json.links?.next).toBeUndefined();
    expect(page2.json.meta?.pagination).toEqual({ current: 2, last: 2, records: 3 });

    const bad = await apiJson<Doc>("/webhooks?page[size]=zero", { key: account.key });
    expect(bad.res.status).toBe(400);
    expect(bad.json.errors?.[0]?.source).toEqual({ parameter: "page[size]" });
  });

  it("answers 404 for an unknown id", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/webhooks/0192b6a4-0000-7000-8000-000000000000", { key: account.key });
    expect(res.status).toBe(404);
    expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
  });
});

describe("PATCH /webhooks/{id}", () => {
  it("changes url, events, headers and active, leaving the rest as it was", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account, { headers: [{ name: "X-A", value: "1" }] });
    const { res, json } = await apiJson<One>(`/webhooks/${webhook.id}`, {
      key: account.key,
      method: "PATCH",
      body: patchBody({ url: "https://other.example.com/new", events: ["container.updated"] }, webhook.id),
    });
    expect(res.status).toBe(200);
    expect(json.data.attributes).toEqual({
      ...webhook.attributes,
      url: "https://other.example.com/new",
      events: ["container.updated"],
    });

    const headers = await apiJson<One>(`/webhooks/${webhook.id}`, {
      key: account.key,
      method: "PATCH",
      body: patchBody({ headers: [{ name: "x-b", value: "2" }], active: false }),
    });
    expect(headers.json.data.attributes).toMatchObject({ headers: [{ name: "x-b", value: "2" }], active: false });

    const cleared = await apiJson<One>(`/webhooks/${webhook.id}`, {
      key: account.key,
      method: "PATCH",
      body: patchBody({ headers: null }),
    });
    expect(cleared.json.data.attributes.headers).toBeNull();
    const got = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(got.json.data).toEqual(cleared.json.data);
  });

  it("active: true re-activates a webhook the service disabled and clears its failure bookkeeping", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    await env.DB.prepare(
      "UPDATE webhooks SET active = 0, disabled_reason = 'receiver_gone', failing_since = '2030-01-01T00:00:00Z' WHERE id = ?1",
    )
      .bind(webhook.id)
      .run();
    const off = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(off.json.data.attributes.active).toBe(false);

    const { res, json } = await apiJson<One>(`/webhooks/${webhook.id}`, {
      key: account.key,
      method: "PATCH",
      body: patchBody({ active: true }),
    });
    expect(res.status).toBe(200);
    expect(json.data.attributes.active).toBe(true);
    expect(await storedWebhook(webhook.id)).toMatchObject({ active: 1, failing_since: null, disabled_reason: null });
  });

  it("validates like create, reports all errors, and changes nothing", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const { res, json } = await apiJson<Doc>(`/webhooks/${webhook.id}`, {
      key: account.key,
      method: "PATCH",
      body: patchBody(
        {
          url: "https://localhost/x",
          events: [],
          headers: [{ name: "Host", value: "evil.example.com" }],
          active: false,
        },
        "0192b6a4-0000-7000-8000-000000000000",
      ),
    });
    expect(res.status).toBe(422);
    expect(pointersAndCodes(json.errors)).toEqual([
      ["/data/id", "invalid"],
      ["/data/attributes/url", "host_not_allowed"],
      ["/data/attributes/events", "blank"],
      ["/data/attributes/headers/0/name", "reserved"],
    ]);
    const after = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(after.json.data.attributes).toEqual(webhook.attributes);

    const unknownEvent = await apiJson<Doc>(`/webhooks/${webhook.id}`, {
      key: account.key,
      method: "PATCH",
      body: patchBody({ events: [VESSEL_ARRIVED, "Container.Transport.Vessel_Arrived"] }),
    });
    expect(pointersAndCodes(unknownEvent.json.errors)).toEqual([["/data/attributes/events/1", "not_recognized"]]);

    const secret = await apiJson<Doc>(`/webhooks/${webhook.id}`, {
      key: account.key,
      method: "PATCH",
      body: patchBody({ secret: "whsec_mine" }),
    });
    expect(secret.res.status).toBe(422);
    expect(secret.json.errors?.[0]).toMatchObject({
      source: { pointer: "/data/attributes/secret" },
      code: "unknown_attribute",
    });
  });
});

describe("DELETE /webhooks/{id}", () => {
  it("answers 200 with no body, then the webhook is gone from get, patch, delete and the list", async () => {
    const account = await createAccount();
    const keep = await createWebhook(account);
    const gone = await createWebhook(account);
    const res = await api(`/webhooks/${gone.id}`, { key: account.key, method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    expect((await api(`/webhooks/${gone.id}`, { key: account.key })).status).toBe(404);
    expect(
      (await api(`/webhooks/${gone.id}`, { key: account.key, method: "PATCH", body: patchBody({ active: true }) }))
        .status,
    ).toBe(404);
    expect((await api(`/webhooks/${gone.id}`, { key: account.key, method: "DELETE" })).status).toBe(404);
    const list = await apiJson<Many>("/webhooks", { key: account.key });
    expect(list.json.data.map((w) => w.id)).toEqual([keep.id]);
    expect(list.json.meta?.total).toBe(1);
  });

  it("deletes the webhook's notifications and their attempts (pending deliveries are cancelled), not others", async () => {
    const account = await createAccount();
    const keep = await createWebhook(account);
    const gone = await createWebhook(account);
    const db = createDatabase(env.DB);
    const now = "2030-01-07T06:00:00Z";
    const { statements, ids } = await notificationInserts(
      db,
      [
        { id: keep.id, accountId: account.accountId, events: [VESSEL_ARRIVED] },
        { id: gone.id, accountId: account.accountId, events: [VESSEL_ARRIVED] },
      ],
      [
        {
          accountId: account.accountId,
          event: VESSEL_ARRIVED,
          reference: { id: crypto.randomUUID(), type: "transport_event" },
          dedupKey: `test:${crypto.randomUUID()}`,
          createdAt: now,
          included: () => examplePayload(VESSEL_ARRIVED).included,
        },
      ],
      now,
    );
    const [first, ...rest] = statements;
    if (!first) throw new Error("no notification statements");
    await db.batch([first, ...rest]);
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      await env.DB.prepare(
        "INSERT INTO webhook_deliveries (id, notification_id, attempt, status_code, latency_ms, error, created_at) VALUES (?1, ?2, 1, 500, 12, 'HTTP 500', ?3)",
      )
        .bind(crypto.randomUUID(), id, now)
        .run();
    }
    const before = await apiJson<Many>("/webhook_notifications", { key: account.key });
    expect(before.json.meta?.total).toBe(2);

    expect((await api(`/webhooks/${gone.id}`, { key: account.key, method: "DELETE" })).status).toBe(200);

    const after = await apiJson<Many>("/webhook_notifications", { key: account.key });
    expect(after.json.meta?.total).toBe(1);
    expect(after.json.data.map((n) => n.relationships?.webhook?.data)).toEqual([{ id: keep.id, type: "webhook" }]);
    const left = await env.DB.prepare(
      "SELECT n.webhook_id AS webhook_id, count(d.id) AS deliveries FROM webhook_notifications n LEFT JOIN webhook_deliveries d ON d.notification_id = n.id WHERE n.account_id = ?1 GROUP BY n.webhook_id",
    )
      .bind(account.accountId)
      .all<{ webhook_id: string; deliveries: number }>();
    expect(left.results).toEqual([{ webhook_id: keep.id, deliveries: 1 }]);
  });
});

describe("another account's webhooks", () => {
  it("are 404 to get, patch and delete, absent from lists, and untouched", async () => {
    const a = await createAccount("Alpha");
    const b = await createAccount("Beta");
    const webhook = await createWebhook(a);
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", patchBody({ url: "https://evil.example.com/", active: false })],
      ["DELETE", undefined],
    ] as const) {
      const { res, json } = await apiJson<Doc>(`/webhooks/${webhook.id}`, { key: b.key, method, body });
      expect(res.status, method).toBe(404);
      expect(json.errors?.[0]).toMatchObject({ status: "404", title: "Not Found" });
      expect(JSON.stringify(json)).not.toContain(String(webhook.attributes.secret));
    }
    const listB = await apiJson<Many>("/webhooks", { key: b.key });
    expect(listB.json.data).toEqual([]);
    expect(listB.json.meta?.total).toBe(0);
    const stillA = await apiJson<One>(`/webhooks/${webhook.id}`, { key: a.key });
    expect(stillA.json.data).toEqual(webhook);
  });
});

describe("OpenAPI", () => {
  it("documents every webhook and notification operation", async () => {
    const { json } = await apiJson<{ paths: Record<string, Record<string, unknown>> }>("/openapi.json");
    const operations = (path: string) => Object.keys(json.paths[path] ?? {}).sort();
    expect(operations("/webhooks")).toEqual(["get", "post"]);
    expect(operations("/webhooks/{id}")).toEqual(["delete", "get", "patch"]);
    expect(operations("/webhooks/events")).toEqual(["get"]);
    expect(operations("/webhooks/trigger")).toEqual(["post"]);
    expect(operations("/webhook_notifications")).toEqual(["get"]);
    expect(operations("/webhook_notifications/{id}")).toEqual(["get"]);
    expect(operations("/webhook_notifications/examples")).toEqual(["get"]);
  });
});

describe("GET /webhooks/events", () => {
  it("lists the 43 catalog events by category, each exactly once", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Many>("/webhooks/events", { key: account.key });
    expect(res.status).toBe(200);
    expect(json.data[0]).toMatchObject({
      id: "tracking-request-events",
      type: "webhook_event_category",
      attributes: { name: "Tracking Request Events" },
    });
    const names = json.data.flatMap((c) =>
      (c.attributes.events as { name: string; description: string }[]).map((e) => e.name),
    );
    expect(names).toHaveLength(43);
    expect(new Set(names)).toEqual(new Set(WEBHOOK_EVENTS));
    for (const category of json.data) {
      expect(category.type).toBe("webhook_event_category");
      for (const e of category.attributes.events as { description: string }[]) expect(e.description).toBeTruthy();
    }
  });

  it("is never read as a webhook id, and neither is trigger", async () => {
    const account = await createAccount();
    const events = await api("/webhooks/events", { key: account.key });
    expect(events.status).toBe(200);
    const trigger = await apiJson<Doc>("/webhooks/trigger", { key: account.key, method: "GET" });
    expect(trigger.res.status).toBe(404);
  });
});

describe("POST /webhooks/trigger", () => {
  let receiver: ReturnType<typeof recordingReceiver>;
  beforeEach(() => {
    receiver = recordingReceiver();
    setWebhookFetch(receiver.fetch);
  });
  afterEach(() => setWebhookFetch(null));

  it("sends the event's example payload, signed with the given secret, and answers 200 with the attempt", async () => {
    const account = await createAccount();
    const secret = (await createWebhook(account)).attributes.secret as string;
    const { res, json } = await apiJson<Record<string, unknown>>("/webhooks/trigger", {
      key: account.key,
      body: { url: "https://hooks.example.com/test?x=1", event: "tracking_request.succeeded", secret },
    });
    expect(res.status).toBe(200);
    expect(receiver.requests).toHaveLength(1);
    const sent = receiver.requests[0];
    if (!sent) throw new Error("nothing sent");
    expect(sent.url).toBe("https://hooks.example.com/test?x=1");
    expect(sent.method).toBe("POST");
    expect(sent.redirect).toBe("manual");
    const example = examplePayload("tracking_request.succeeded");
    expect(sent.body).toBe(JSON.stringify(example));
    expect(sent.headers.get("content-type")).toBe("application/json");
    expect(sent.headers.get("webhook-id")).toBe(example.data.id);

    // Both signatures verify: the plain hex HMAC of the body, and Standard Webhooks with the library.
    expect(sent.headers.get("x-svc-webhook-signature")).toBe(await hmacHex(secret, sent.body));
    const verified = new Webhook(secret).verify(sent.body, Object.fromEntries(sent.headers));
    expect(verified).toEqual(example);

    expect(json).toMatchObject({
      url: "https://hooks.example.com/test?x=1",
      event: "tracking_request.succeeded",
      succeeded: true,
      error: null,
      status_code: 200,
      request_body: sent.body,
      response_body: "ok",
    });
    expect((json.request_headers as Record<string, string>)["X-SVC-Webhook-Signature"]).toBe(
      sent.headers.get("x-svc-webhook-signature"),
    );
    expect(json.request_headers).not.toHaveProperty("secret");
    expect(typeof json.latency_ms).toBe("number");
    // The example the API documents is the document that was sent.
    const { json: shown } = await apiJson<Record<string, unknown>>(
      "/webhook_notifications/examples?event=tracking_request.succeeded",
      { key: account.key },
    );
    const { links: _links, ...shownBody } = shown;
    expect(shownBody).toEqual(JSON.parse(sent.body));
  });

  it("sends unsigned without a secret", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Record<string, unknown>>("/webhooks/trigger", {
      key: account.key,
      body: { url: URL_OK, event: "container.updated" },
    });
    expect(res.status).toBe(200);
    expect(json.succeeded).toBe(true);
    const sent = receiver.requests[0];
    expect(sent?.headers.get("x-svc-webhook-signature")).toBeNull();
    expect(sent?.headers.get("webhook-signature")).toBeNull();
    expect(JSON.parse(sent?.body ?? "{}").data.attributes.event).toBe("container.updated");
  });

  it("answers 200 with the failure when the receiver fails or cannot be reached", async () => {
    const account = await createAccount();
    setWebhookFetch(async () => new Response("boom", { status: 500, headers: { "X-Receiver": "r1" } }));
    const failed = await apiJson<Record<string, unknown>>("/webhooks/trigger", {
      key: account.key,
      body: { url: URL_OK, event: VESSEL_ARRIVED },
    });
    expect(failed.res.status).toBe(200);
    expect(failed.json).toMatchObject({ succeeded: false, status_code: 500, response_body: "boom" });
    expect(failed.json.error).toBeTruthy();
    expect((failed.json.response_headers as Record<string, string>)["x-receiver"]).toBe("r1");

    setWebhookFetch(async () => {
      throw new TypeError("connection refused");
    });
    const refused = await apiJson<Record<string, unknown>>("/webhooks/trigger", {
      key: account.key,
      body: { url: URL_OK, event: VESSEL_ARRIVED },
    });
    expect(refused.res.status).toBe(200);
    expect(refused.json).toMatchObject({ succeeded: false, status_code: null, response_body: null });
    expect(String(refused.json.error)).toContain("connection refused");

    setWebhookFetch(async () => new Response(null, { status: 301, headers: { Location: "https://169.254.169.254/" } }));
    const redirected = await apiJson<Record<string, unknown>>("/webhooks/trigger", {
      key: account.key,
      body: { url: URL_OK, event: VESSEL_ARRIVED },
    });
    expect(redirected.json).toMatchObject({ succeeded: false, status_code: 301 });
  });

  it("validates url, event and secret together (422 with pointers) and sends nothing", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/webhooks/trigger", {
      key: account.key,
      body: { url: "https://127.0.0.1/", event: "container.exploded", secret: "s".repeat(257) },
    });
    expect(res.status).toBe(422);
    expect(pointersAndCodes(json.errors)).toEqual([
      ["/url", "ip_literal_not_allowed"],
      ["/event", "not_recognized"],
      ["/secret", "too_long"],
    ]);
    const missing = await apiJson<Doc>("/webhooks/trigger", { key: account.key, body: {} });
    expect(missing.res.status).toBe(422);
    expect(pointersAndCodes(missing.json.errors)).toEqual([
      ["/url", "blank"],
      ["/event", "blank"],
    ]);
    expect(receiver.requests).toEqual([]);
  });
});
