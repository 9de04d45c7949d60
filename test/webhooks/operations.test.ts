import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createDatabase } from "../../src/db/client";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { loadAttemptLogs } from "../../src/webhook-notifications/service";
import { deliverNotification, dropExpiredWebhookSecrets, MAX_LOGGED_ATTEMPTS } from "../../src/webhooks/delivery";
import type { WebhookDeliveryMessage } from "../../src/webhooks/outbox";
import { WEBHOOK_MAX_ATTEMPTS } from "../../src/webhooks/schedule";
import { setWebhookFetch } from "../../src/webhooks/send";
import { DEFAULT_SECRET_GRACE_S, MAX_SECRET_GRACE_S } from "../../src/webhooks/service";
import { deliveryHeaders, PLAIN_SIGNATURE_HEADER, plainSignature } from "../../src/webhooks/signature";
import { api, apiJson, BASE, createAccount, type TestAccount } from "../helpers/api";
import { recordingQueue } from "../helpers/engine";
import { insertNotification, notificationRow, RecordingReceiver, type TestWebhook } from "../helpers/receiver";
import type { Doc, Many, One, Resource } from "../helpers/tracking";

// Issue 11 §5, webhook operations: secret rotation with a grace period in which deliveries carry signatures of both
// secrets, the delivery attempts of a notification as its `webhook_notification_logs`, resending a notification, and
// custom header names kept as the client gave them. Deliveries run through the queue consumer's own function with an
// injected clock and a recording receiver; nothing reaches the network.

const URL_OK = "https://hooks.example.com/receive";
const EVENT = "container.updated";
const HOUR_MS = 3_600_000;

afterEach(() => setWebhookFetch(null));

/** POST /webhooks; fails the test unless 201. */
async function createWebhook(account: TestAccount, attributes: Record<string, unknown> = {}): Promise<Resource> {
  const { res, json } = await apiJson<One>("/webhooks", {
    key: account.key,
    body: { data: { type: "webhook", attributes: { url: URL_OK, events: [EVENT], ...attributes } } },
  });
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data;
}

/** The webhook as the receiver helpers take it. */
function asTestWebhook(account: TestAccount, webhook: Resource): TestWebhook {
  return { id: webhook.id, accountId: account.accountId, url: String(webhook.attributes.url), secret: "" };
}

/** POST /webhooks/{id}/rotate_secret with an optional plain JSON body. */
async function rotate(account: TestAccount, id: string, body?: unknown) {
  return apiJson<One & Doc>(`/webhooks/${id}/rotate_secret`, { key: account.key, method: "POST", body });
}

/** The webhook row's rotation columns as stored. */
async function storedSecrets(id: string) {
  return env.DB.prepare("SELECT secret, previous_secret, previous_secret_expires_at FROM webhooks WHERE id = ?1")
    .bind(id)
    .first<{ secret: string; previous_secret: string | null; previous_secret_expires_at: string | null }>();
}

/** Delivers one notification now (by `nowMs`) to a receiver answering `status`, and returns the request it got. */
async function deliverAt(id: string, nowMs: number, status = 200) {
  const receiver = new RecordingReceiver(() => status);
  const outcome = await deliverNotification({ env, clock: new FakeClock(nowMs), fetch: receiver.fetch }, id);
  const [request] = receiver.requests;
  if (!request) throw new Error(`nothing sent: ${JSON.stringify(outcome)}`);
  return { outcome, request, headers: Object.fromEntries(request.headers) };
}

describe("custom header names are kept as given", () => {
  it("stores and returns names exactly as sent, on create and update", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account, {
      headers: [
        { name: "x-secret-sauce", value: "sriracha" },
        { name: "X-TENANT-id", value: "42" },
      ],
    });
    expect(webhook.attributes.headers).toEqual([
      { name: "x-secret-sauce", value: "sriracha" },
      { name: "X-TENANT-id", value: "42" },
    ]);
    const got = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(got.json.data.attributes.headers).toEqual(webhook.attributes.headers);
    const patched = await apiJson<One>(`/webhooks/${webhook.id}`, {
      key: account.key,
      method: "PATCH",
      body: { data: { type: "webhook", attributes: { headers: [{ name: "authorization-token", value: "t" }] } } },
    });
    expect(patched.res.status).toBe(200);
    expect(patched.json.data.attributes.headers).toEqual([{ name: "authorization-token", value: "t" }]);
  });

  it("still compares names case-insensitively for duplicates and reserved names", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<Doc>("/webhooks", {
      key: account.key,
      body: {
        data: {
          type: "webhook",
          attributes: {
            url: URL_OK,
            events: [EVENT],
            headers: [
              { name: "x-a", value: "1" },
              { name: "X-A", value: "2" },
              { name: "WEBHOOK-ID", value: "forged" },
              { name: "content-TYPE", value: "text/plain" },
            ],
          },
        },
      },
    });
    expect(res.status).toBe(422);
    expect((json.errors ?? []).map((e) => [e.source?.pointer, e.code])).toEqual([
      ["/data/attributes/headers/1/name", "duplicate"],
      ["/data/attributes/headers/2/name", "reserved"],
      ["/data/attributes/headers/3/name", "reserved"],
    ]);
    expect((await apiJson<Many>("/webhooks", { key: account.key })).json.data).toEqual([]);
  });

  it("deliveries send the name as stored", async () => {
    const pairs = await deliveryHeaders({
      secret: null,
      notificationId: "n1",
      body: "{}",
      nowMs: 0,
      customHeaders: [{ name: "x-secret-sauce", value: "sriracha" }],
    });
    expect(pairs).toContainEqual(["x-secret-sauce", "sriracha"]);
  });
});

describe("POST /webhooks/{id}/rotate_secret", () => {
  it("answers 200 with a new whsec_ secret; the old one stays valid for 24 hours", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const oldSecret = String(webhook.attributes.secret);
    const before = Date.now();
    const { res, json } = await rotate(account, webhook.id);
    expect(res.status, JSON.stringify(json)).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.api+json");
    const newSecret = String(json.data.attributes.secret);
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(oldSecret);
    const expiresAt = Date.parse(String(json.data.attributes.previous_secret_expires_at));
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + DEFAULT_SECRET_GRACE_S * 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + DEFAULT_SECRET_GRACE_S * 1000);
    expect(JSON.stringify(json)).not.toContain(oldSecret);
    // Everything else is unchanged; GET shows the new secret.
    expect({ ...json.data.attributes, secret: oldSecret, previous_secret_expires_at: null }).toEqual(
      webhook.attributes,
    );
    const got = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(got.json.data.attributes.secret).toBe(newSecret);
    // The document's self link is absolute, the URL that produced it (JSON:API; as GET /webhooks/{id} and the
    // shipments' stop_tracking give theirs); the webhook's own link is data.links.self.
    expect((json as { links?: { self?: string } }).links?.self).toBe(`${BASE}/webhooks/${webhook.id}/rotate_secret`);
    expect((got.json as { links?: { self?: string } }).links?.self).toBe(`${BASE}/webhooks/${webhook.id}`);
    expect(await storedSecrets(webhook.id)).toEqual({
      secret: newSecret,
      previous_secret: oldSecret,
      previous_secret_expires_at: json.data.attributes.previous_secret_expires_at,
    });
  });

  it("takes a grace period in seconds (0 to 7 days); 0 drops the old secret at once", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const hour = await rotate(account, webhook.id, { grace_period_seconds: 3600 });
    expect(hour.res.status).toBe(200);
    const expiresAt = Date.parse(String(hour.json.data.attributes.previous_secret_expires_at));
    expect(Math.abs(expiresAt - (Date.now() + HOUR_MS))).toBeLessThan(5000);
    const week = await rotate(account, webhook.id, { grace_period_seconds: MAX_SECRET_GRACE_S });
    expect(week.res.status).toBe(200);
    const none = await rotate(account, webhook.id, { grace_period_seconds: 0 });
    expect(none.res.status).toBe(200);
    expect(none.json.data.attributes.previous_secret_expires_at).toBeNull();
    expect(await storedSecrets(webhook.id)).toEqual({
      secret: none.json.data.attributes.secret,
      previous_secret: null,
      previous_secret_expires_at: null,
    });
  });

  it("a second rotation within the grace period drops the first secret: only the one just replaced stays valid", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const first = await rotate(account, webhook.id);
    const second = await rotate(account, webhook.id);
    expect(await storedSecrets(webhook.id)).toMatchObject({
      secret: second.json.data.attributes.secret,
      previous_secret: first.json.data.attributes.secret,
    });
  });

  it("refuses a bad grace period with 422 and changes nothing", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    for (const body of [
      { grace_period_seconds: -1 },
      { grace_period_seconds: MAX_SECRET_GRACE_S + 1 },
      { grace_period_seconds: 1.5 },
      { grace_period_seconds: "3600" },
      { grace_period: 3600 },
    ]) {
      const { res, json } = await rotate(account, webhook.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(json.errors?.[0]?.status).toBe("422");
    }
    const malformed = await api(`/webhooks/${webhook.id}/rotate_secret`, {
      key: account.key,
      method: "POST",
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    const got = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(got.json.data.attributes).toEqual(webhook.attributes);
  });

  it("is 404 for an unknown id or another account's webhook, which keeps its secret; 401 without a key", async () => {
    const a = await createAccount("Alpha");
    const b = await createAccount("Beta");
    const webhook = await createWebhook(a);
    const other = await rotate(b, webhook.id);
    expect(other.res.status).toBe(404);
    expect(JSON.stringify(other.json)).not.toContain(String(webhook.attributes.secret));
    expect((await rotate(a, "0192b6a4-0000-7000-8000-000000000000")).res.status).toBe(404);
    expect((await api(`/webhooks/${webhook.id}/rotate_secret`, { method: "POST" })).status).toBe(401);
    expect(await storedSecrets(webhook.id)).toEqual({
      secret: webhook.attributes.secret,
      previous_secret: null,
      previous_secret_expires_at: null,
    });
  });

  it("signs deliveries with both secrets during the grace period (standardwebhooks verifies either); the hex header uses the new one", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const oldSecret = String(webhook.attributes.secret);
    const rotated = await rotate(account, webhook.id);
    const newSecret = String(rotated.json.data.attributes.secret);
    const n = await insertNotification(asTestWebhook(account, webhook), { createdAt: toIsoSeconds(Date.now()) });
    const { outcome, request, headers } = await deliverAt(n.id, Date.now());
    expect(outcome.kind).toBe("succeeded");
    expect(request.body).toBe(n.body);
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(new Webhook(newSecret).verify(n.body, headers)).toEqual(JSON.parse(n.body));
    expect(new Webhook(oldSecret).verify(n.body, headers)).toEqual(JSON.parse(n.body));
    expect(headers[PLAIN_SIGNATURE_HEADER.toLowerCase()]).toBe(await plainSignature(newSecret, n.body));
  });

  it("stops signing with the old secret once the grace period ends, and the cron clears it", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const oldSecret = String(webhook.attributes.secret);
    const rotated = await rotate(account, webhook.id, { grace_period_seconds: 3600 });
    const newSecret = String(rotated.json.data.attributes.secret);
    const expiresAtMs = Date.parse(String(rotated.json.data.attributes.previous_secret_expires_at));
    const hook = asTestWebhook(account, webhook);

    // One second before the end: both signatures.
    const createdAt = toIsoSeconds(Date.now());
    const during = await insertNotification(hook, { createdAt });
    const last = await deliverAt(during.id, expiresAtMs - 1000);
    expect(last.headers["webhook-signature"]?.split(" ")).toHaveLength(2);

    // At the end: the new secret's signature only; the old secret verifies nothing.
    const after = await insertNotification(hook, { createdAt });
    const atMs = expiresAtMs;
    const { headers } = await deliverAt(after.id, atMs);
    const signatures = headers["webhook-signature"]?.split(" ") ?? [];
    const timestamp = new Date(Math.floor(atMs / 1000) * 1000);
    expect(signatures).toEqual([new Webhook(newSecret).sign(after.id, timestamp, after.body)]);
    expect(signatures).not.toContain(new Webhook(oldSecret).sign(after.id, timestamp, after.body));
    expect(headers[PLAIN_SIGNATURE_HEADER.toLowerCase()]).toBe(await plainSignature(newSecret, after.body));

    // The cron's clean-up leaves a secret in its grace period and clears one whose period ended.
    expect(await dropExpiredWebhookSecrets(env, expiresAtMs - 1000)).toBe(0);
    expect((await storedSecrets(webhook.id))?.previous_secret).toBe(oldSecret);
    expect(await dropExpiredWebhookSecrets(env, expiresAtMs)).toBeGreaterThanOrEqual(1);
    expect(await storedSecrets(webhook.id)).toEqual({
      secret: newSecret,
      previous_secret: null,
      previous_secret_expires_at: null,
    });
    const got = await apiJson<One>(`/webhooks/${webhook.id}`, { key: account.key });
    expect(got.json.data.attributes.previous_secret_expires_at).toBeNull();
  });
});

/** The log resources of a notification through the API (`include=webhook_notification_logs`). */
async function logsOf(account: TestAccount, id: string) {
  const { res, json } = await apiJson<One>(`/webhook_notifications/${id}?include=webhook_notification_logs`, {
    key: account.key,
  });
  expect(res.status, JSON.stringify(json)).toBe(200);
  const linkage = json.data.relationships?.webhook_notification_logs?.data as { id: string; type: string }[];
  const included = (json.included ?? []) as Resource[];
  return { json, linkage, included };
}

describe("webhook_notification_logs: the delivery attempts of a notification", () => {
  it("lists every attempt in order with time, HTTP status, latency and error, in get, list and include", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const n = await insertNotification(asTestWebhook(account, webhook));
    const t0 = Date.UTC(2030, 0, 7, 6, 0, 0);
    const failed = await deliverAt(n.id, t0, 500);
    expect(failed.outcome.kind).toBe("retry");
    const ok = await deliverAt(n.id, t0 + 60 * 60_000, 200);
    expect(ok.outcome.kind).toBe("succeeded");

    const { json, linkage, included } = await logsOf(account, n.id);
    expect(json.data.attributes.delivery_status).toBe("succeeded");
    expect(linkage).toHaveLength(2);
    expect(linkage.every((l) => l.type === "webhook_notification_log")).toBe(true);
    expect(included.map((r) => r.id)).toEqual(linkage.map((l) => l.id));
    expect(included.map((r) => ({ ...r.attributes, latency_ms: typeof r.attributes.latency_ms }))).toEqual([
      { attempt: 1, created_at: toIsoSeconds(t0), status_code: 500, latency_ms: "number", error: "HTTP 500" },
      { attempt: 2, created_at: toIsoSeconds(t0 + 60 * 60_000), status_code: 200, latency_ms: "number", error: null },
    ]);

    // Without include: linkage only; the list shows the same linkage.
    const plain = await apiJson<One>(`/webhook_notifications/${n.id}`, { key: account.key });
    expect(plain.json.data.relationships?.webhook_notification_logs?.data).toEqual(linkage);
    expect(plain.json.included).toBeUndefined();
    const list = await apiJson<Many>("/webhook_notifications?include=webhook_notification_logs", {
      key: account.key,
    });
    expect(list.res.status).toBe(200);
    expect(list.json.data.find((d) => d.id === n.id)?.relationships?.webhook_notification_logs?.data).toEqual(linkage);
    expect((list.json.included ?? []).map((r) => (r as Resource).id)).toEqual(linkage.map((l) => l.id));
  });

  it("is empty before any attempt, and another account sees neither the notification nor its logs", async () => {
    const account = await createAccount();
    const other = await createAccount("Other");
    const webhook = await createWebhook(account);
    const n = await insertNotification(asTestWebhook(account, webhook));
    expect((await logsOf(account, n.id)).linkage).toEqual([]);
    await deliverAt(n.id, Date.UTC(2030, 0, 7, 6, 0, 0), 503);
    const theirs = await apiJson<Doc>(`/webhook_notifications/${n.id}?include=webhook_notification_logs`, {
      key: other.key,
    });
    expect(theirs.res.status).toBe(404);
    const theirList = await apiJson<Many>("/webhook_notifications?include=webhook_notification_logs", {
      key: other.key,
    });
    expect(theirList.json.data).toEqual([]);
    expect(theirList.json.included ?? []).toEqual([]);
  });
});

/** Sends a request through a fresh app whose webhook-deliveries producer is a recorder. */
async function appWithRecordedQueue(path: string, key: string, method = "POST") {
  const queue = recordingQueue<WebhookDeliveryMessage>();
  const testEnv: Env = { ...env, WEBHOOK_DELIVERIES_QUEUE: queue };
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`${BASE}${path}`, { method, headers: { Authorization: `Token ${key}` } }),
    testEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { res, json: (text ? JSON.parse(text) : null) as One & Doc, queue };
}

/** Marks a notification as its last delivery left it. */
async function setStatus(id: string, status: string, attempts: number): Promise<void> {
  await env.DB.prepare(
    "UPDATE webhook_notifications SET delivery_status = ?1, attempts = ?2, next_attempt_at = NULL WHERE id = ?3",
  )
    .bind(status, attempts, id)
    .run();
}

describe("POST /webhook_notifications/{id}/resend", () => {
  it("puts a failed notification back on the queue (202): a new round with the same id and body", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const n = await insertNotification(asTestWebhook(account, webhook));
    const t0 = Date.UTC(2030, 0, 7, 6, 0, 0);
    await deliverAt(n.id, t0, 500);
    await setStatus(n.id, "failed", WEBHOOK_MAX_ATTEMPTS);

    const { res, json, queue } = await appWithRecordedQueue(`/webhook_notifications/${n.id}/resend`, account.key);
    expect(res.status, JSON.stringify(json)).toBe(202);
    expect(json.data).toMatchObject({ id: n.id, type: "webhook_notification" });
    expect(json.data.attributes.delivery_status).toBe("pending");
    expect(queue.sent).toEqual([{ body: { notificationId: n.id }, delaySeconds: undefined }]);
    const row = await notificationRow(n.id);
    expect(row).toMatchObject({ delivery_status: "pending", attempts: 0, payload: n.body });

    // The consumer delivers it at once: same webhook-id, same bytes; the log keeps the earlier attempt.
    const again = await deliverAt(n.id, Date.now());
    expect(again.outcome).toMatchObject({ kind: "succeeded", attempt: 1 });
    expect(again.request.notificationId).toBe(n.id);
    expect(again.request.body).toBe(n.body);
    const { results: log } = await env.DB.prepare(
      "SELECT attempt, status_code, seq FROM webhook_deliveries WHERE notification_id = ?1 ORDER BY seq",
    )
      .bind(n.id)
      .all<{ attempt: number; status_code: number; seq: number }>();
    expect(log).toEqual([
      { attempt: 1, status_code: 500, seq: 1 },
      { attempt: 1, status_code: 200, seq: 2 },
    ]);
    expect((await logsOf(account, n.id)).included.map((r) => r.attributes.status_code)).toEqual([500, 200]);
  });

  it("resends a succeeded notification too (receivers deduplicate on data.id)", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const n = await insertNotification(asTestWebhook(account, webhook));
    await deliverAt(n.id, Date.UTC(2030, 0, 7, 6, 0, 0), 200);
    const { res, queue } = await appWithRecordedQueue(`/webhook_notifications/${n.id}/resend`, account.key);
    expect(res.status).toBe(202);
    expect(queue.sent).toHaveLength(1);
  });

  it("answers 409 for a notification still pending, or whose webhook is inactive, and changes nothing", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const pending = await insertNotification(asTestWebhook(account, webhook));
    const first = await appWithRecordedQueue(`/webhook_notifications/${pending.id}/resend`, account.key);
    expect(first.res.status).toBe(409);
    expect(first.json.errors?.[0]).toMatchObject({ status: "409", code: "already_pending" });
    expect(first.queue.sent).toEqual([]);

    const inactive = await createWebhook(account, { active: false });
    const n = await insertNotification(asTestWebhook(account, inactive));
    await setStatus(n.id, "failed", 3);
    const second = await appWithRecordedQueue(`/webhook_notifications/${n.id}/resend`, account.key);
    expect(second.res.status).toBe(409);
    expect(second.json.errors?.[0]).toMatchObject({ status: "409", code: "webhook_inactive" });
    expect(second.queue.sent).toEqual([]);
    expect(await notificationRow(n.id)).toMatchObject({ delivery_status: "failed", attempts: 3 });
  });

  it("is 404 for an unknown id or another account's notification; 401 without a key", async () => {
    const account = await createAccount();
    const other = await createAccount("Other");
    const webhook = await createWebhook(account);
    const n = await insertNotification(asTestWebhook(account, webhook));
    await setStatus(n.id, "failed", WEBHOOK_MAX_ATTEMPTS);
    const theirs = await appWithRecordedQueue(`/webhook_notifications/${n.id}/resend`, other.key);
    expect(theirs.res.status).toBe(404);
    expect(theirs.queue.sent).toEqual([]);
    expect(await notificationRow(n.id)).toMatchObject({ delivery_status: "failed" });
    const unknown = await api("/webhook_notifications/0192b6a4-0000-7000-8000-000000000000/resend", {
      key: account.key,
      method: "POST",
    });
    expect(unknown.status).toBe(404);
    expect((await api(`/webhook_notifications/${n.id}/resend`, { method: "POST" })).status).toBe(401);
  });
});

describe("loadAttemptLogs", () => {
  it("reads the logs of more ids than one statement may bind (several queries, one batch), only the account's", async () => {
    const account = await createAccount();
    const other = await createAccount("Other");
    const webhook = await createWebhook(account);
    const n = await insertNotification(asTestWebhook(account, webhook));
    await deliverAt(n.id, Date.UTC(2030, 0, 7, 6, 0, 0), 500);
    const ids = [...Array.from({ length: 119 }, () => crypto.randomUUID()), n.id];
    const db = createDatabase(env.DB);
    const logs = await loadAttemptLogs({ db, accountId: account.accountId }, ids);
    expect([...logs.keys()]).toEqual([n.id]);
    expect(logs.get(n.id)?.map((l) => l.statusCode)).toEqual([500]);
    expect((await loadAttemptLogs({ db, accountId: other.accountId }, ids)).size).toBe(0);
  });
});

describe("the attempt log is bounded", () => {
  it("keeps only the newest MAX_LOGGED_ATTEMPTS attempts of a notification resent many times", async () => {
    const account = await createAccount();
    const webhook = await createWebhook(account);
    const n = await insertNotification(asTestWebhook(account, webhook));
    const t0 = Date.UTC(2030, 0, 7, 6, 0, 0);
    const total = MAX_LOGGED_ATTEMPTS + 5;
    for (let i = 0; i < total; i++) {
      // Every attempt fails and is then "resent" by hand (status back to pending, due now).
      await deliverAt(n.id, t0 + i * 1000, 500);
      await env.DB.prepare(
        "UPDATE webhook_notifications SET delivery_status = 'pending', attempts = 0, next_attempt_at = NULL WHERE id = ?1",
      )
        .bind(n.id)
        .run();
    }
    const { included } = await logsOf(account, n.id);
    expect(included).toHaveLength(MAX_LOGGED_ATTEMPTS);
    expect(included.map((r) => r.attributes.created_at)).toEqual(
      Array.from({ length: MAX_LOGGED_ATTEMPTS }, (_, i) =>
        toIsoSeconds(t0 + (total - MAX_LOGGED_ATTEMPTS + i) * 1000),
      ),
    );
  });
});

describe("OpenAPI", () => {
  it("documents rotate_secret and resend", async () => {
    const { json } = await apiJson<{ paths: Record<string, Record<string, unknown>> }>("/openapi.json");
    expect(Object.keys(json.paths["/webhooks/{id}/rotate_secret"] ?? {})).toEqual(["post"]);
    expect(Object.keys(json.paths["/webhook_notifications/{id}/resend"] ?? {})).toEqual(["post"]);
  });
});
