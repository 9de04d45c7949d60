import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { webhookNotifications } from "../../src/db/schema";
import worker from "../../src/index";
import { listDocument } from "../../src/lib/jsonapi/document";
import { parseInclude } from "../../src/lib/jsonapi/include";
import { parsePage } from "../../src/lib/jsonapi/pagination";
import { countingD1, type D1Counter } from "../../src/tracking/bench-trace";
import { webhookNotificationResource } from "../../src/webhook-notifications/serializer";
import { type NotificationDraft, notificationInserts } from "../../src/webhooks/outbox";
import { BASE, createAccount, type TestAccount } from "../helpers/api";

// GET /webhook_notifications reads each page's delivery attempts (`webhook_notification_logs`) in the D1 batch of the
// page itself: the document is the one the serializer builds when it reads the logs on its own (a round trip more),
// byte for byte, and another account's attempts never show.

const EVENT = "tracking_request.succeeded";

/** An account with a webhook on `EVENT` and `count` notifications, one second apart; returns their ids, oldest first. */
async function withNotifications(count: number): Promise<{ account: TestAccount; ids: string[] }> {
  const account = await createAccount();
  const db = createDatabase(env.DB);
  const webhookId = crypto.randomUUID();
  await env.DB.prepare(
    `INSERT INTO webhooks (id, account_id, url, events, secret, active, created_at, updated_at)
     VALUES (?1, ?2, 'https://hooks.example.com/receive', ?3, 'whsec_dGVzdA==', 1, '2030-01-01T00:00:00Z',
       '2030-01-01T00:00:00Z')`,
  )
    .bind(webhookId, account.accountId, JSON.stringify([EVENT]))
    .run();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const createdAt = `2030-01-01T00:00:${String(i + 1).padStart(2, "0")}Z`;
    const draft: NotificationDraft = {
      accountId: account.accountId,
      event: EVENT,
      reference: { id: crypto.randomUUID(), type: "tracking_request" },
      dedupKey: `test:${crypto.randomUUID()}`,
      createdAt,
      included: () => [],
    };
    const { statements, ids: written } = await notificationInserts(
      db,
      [{ id: webhookId, accountId: account.accountId, events: [EVENT] }],
      [draft],
      createdAt,
    );
    const [first, ...rest] = statements;
    if (!first) throw new Error("nothing to write");
    await db.batch([first, ...rest]);
    ids.push(...written);
  }
  return { account, ids };
}

/** Writes delivery attempts of a notification: `[attempt, seq, status]` each, in the order given. */
async function attempts(notificationId: string, rows: [number, number, number | null][]): Promise<void> {
  await env.DB.batch(
    rows.map(([attempt, seq, status], i) =>
      env.DB.prepare(
        `INSERT INTO webhook_deliveries (id, notification_id, attempt, status_code, latency_ms, error, created_at, seq)
         VALUES (?1, ?2, ?3, ?4, 10, ?5, ?6, ?7)`,
      ).bind(
        `${notificationId}-log-${i}`,
        notificationId,
        attempt,
        status,
        status === 200 ? null : `HTTP ${status}`,
        `2030-01-02T00:00:0${i}Z`,
        seq,
      ),
    ),
  );
}

/** `path` through the Worker on a D1 that counts round trips. */
async function countedGet(path: string, key: string): Promise<{ status: number; text: string; counter: D1Counter }> {
  const counter: D1Counter = { batches: 0, statements: 0 };
  const workerEnv: Env = { ...env, DB: countingD1(env.DB, counter) };
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, { headers: { Authorization: `Token ${key}` } }),
    workerEnv,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, text, counter };
}

/**
 * The document of a page as the serializer builds it from bare rows (its `hydrate` reading the attempt logs in a
 * query of their own): the output before the logs rode in the page's batch.
 */
async function documentFromBareRows(account: TestAccount, query: string): Promise<string> {
  const db = createDatabase(env.DB);
  const params = new URLSearchParams(query);
  const page = parsePage(params);
  const rows = await db
    .select()
    .from(webhookNotifications)
    .where(eq(webhookNotifications.accountId, account.accountId))
    .orderBy(desc(webhookNotifications.createdAt), desc(webhookNotifications.id))
    .limit(page.size)
    .offset(page.offset);
  const total = (
    await db.select().from(webhookNotifications).where(eq(webhookNotifications.accountId, account.accountId))
  ).length;
  const include = parseInclude(params.get("include"), webhookNotificationResource);
  const ctx = { db, accountId: account.accountId };
  const doc = await listDocument(
    ctx,
    webhookNotificationResource,
    rows,
    include,
    `${BASE}/webhook_notifications?${query}`,
    page,
    total,
  );
  return JSON.stringify(doc);
}

describe("GET /webhook_notifications: attempt logs in the page's round trip", () => {
  it("one D1 round trip for the page, its total and its attempt logs (was two), same document", async () => {
    const { account, ids } = await withNotifications(3);
    const [oldest, middle, newest] = ids;
    if (!oldest || !middle || !newest) throw new Error("seed failed");
    // Written out of order on purpose: the log is ordered by seq, then attempt.
    await attempts(oldest, [
      [2, 1, 200],
      [1, 0, 500],
    ]);
    await attempts(newest, [[1, 0, 503]]);
    // Another account's notification with attempts: never read into this account's page.
    const other = await withNotifications(1);
    await attempts(other.ids[0] ?? "", [[1, 0, 500]]);

    // A first request writes the key's `last_used_at` (off the request path, once a minute): not counted below.
    await countedGet("/webhook_notifications?page[size]=1", account.key);
    for (const query of ["page[size]=2", "page[size]=2&page[number]=2", "include=webhook_notification_logs"]) {
      const { status, text, counter } = await countedGet(`/webhook_notifications?${query}`, account.key);
      expect(status, query).toBe(200);
      // The API key lookup, then the page, its total and its attempt logs in one batch.
      expect(counter.batches, query).toBe(2);
      expect(text, query).toBe(await documentFromBareRows(account, query));
    }

    const { text } = await countedGet("/webhook_notifications?include=webhook_notification_logs", account.key);
    const doc = JSON.parse(text) as {
      data: { id: string; relationships: { webhook_notification_logs: { data: { id: string }[] } } }[];
      included: { id: string; type: string; attributes: { attempt: number; status_code: number } }[];
    };
    const linkage = Object.fromEntries(
      doc.data.map((n) => [n.id, n.relationships.webhook_notification_logs.data.map((l) => l.id)]),
    );
    expect(linkage).toEqual({
      [newest]: [`${newest}-log-0`],
      [middle]: [],
      [oldest]: [`${oldest}-log-1`, `${oldest}-log-0`],
    });
    expect(doc.included.map((l) => [l.type, l.attributes.attempt, l.attributes.status_code])).toEqual([
      ["webhook_notification_log", 1, 503],
      ["webhook_notification_log", 1, 500],
      ["webhook_notification_log", 2, 200],
    ]);
  });

  it("an empty page costs the same single round trip and lists nothing", async () => {
    const account = await createAccount();
    await countedGet("/webhook_notifications", account.key);
    const { status, text, counter } = await countedGet("/webhook_notifications", account.key);
    expect(status).toBe(200);
    expect(counter.batches).toBe(2);
    expect(JSON.parse(text)).toMatchObject({ data: [], meta: { total: 0 } });
  });
});
