import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { archiveConfigOf } from "../../src/archive/config";
import { type ArchiveHooks, RAW_EVENTS_CURSOR, runArchive } from "../../src/archive/job";
import { createDatabase } from "../../src/db/client";
import worker from "../../src/index";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { deliverNotifications } from "../../src/webhooks/delivery";
import { examplePayload } from "../../src/webhooks/examples";
import { type NotificationDraft, notificationInserts, type WebhookTarget } from "../../src/webhooks/outbox";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import { AFTER, archiveDeps as deps, drainArchive as drain, STOPPED_AT, seedBox } from "../helpers/archive-rows";
import { RecordingReceiver } from "../helpers/receiver";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";
import type { One } from "../helpers/tracking";

// Retention (issue 29 §2, docs/SCALING.md §Retention and archive): raw events of boxes no longer tracked and finished
// notifications with their attempts move to R2 (gzip'd NDJSON, src/archive/), and the API serves them back byte for
// byte.

const VESSEL_ARRIVED = "container.transport.vessel_arrived";

/** A webhook of the account (POST /webhooks), subscribed to vessel arrivals. */
async function createWebhook(account: TestAccount): Promise<string> {
  const { res, json } = await apiJson<One>("/webhooks", {
    key: account.key,
    body: { data: { type: "webhook", attributes: { url: "https://hooks.example.com/in", events: [VESSEL_ARRIVED] } } },
  });
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data.id;
}

/**
 * `count` notifications of the webhook written through the outbox's own INSERTs, then finished: `succeeded` (or
 * `failed`) at `finishedAt` after two attempts each (a 500, then the outcome).
 */
async function seedNotifications(
  account: TestAccount,
  webhookId: string,
  count: number,
  finishedAt = STOPPED_AT,
  status = "succeeded",
): Promise<string[]> {
  const db = createDatabase(env.DB);
  const example = examplePayload(VESSEL_ARRIVED);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const createdAt = `2025-06-${String(10 + i).padStart(2, "0")}T00:00:00Z`;
    const { statements, ids: written } = await notificationInserts(
      db,
      [{ id: webhookId, accountId: account.accountId, events: [VESSEL_ARRIVED] }],
      [
        {
          accountId: account.accountId,
          event: VESSEL_ARRIVED,
          reference: example.data.relationships.reference_object.data,
          dedupKey: `test:${crypto.randomUUID()}`,
          createdAt,
          included: () => example.included ?? [],
        },
      ],
      createdAt,
    );
    const [first, ...rest] = statements;
    if (!first) throw new Error("not subscribed");
    await db.batch([first, ...rest]);
    ids.push(...written);
  }
  const statements: D1PreparedStatement[] = [];
  for (const id of ids) {
    statements.push(
      env.DB.prepare(
        "UPDATE webhook_notifications SET delivery_status = ?2, attempts = 2, next_attempt_at = NULL, updated_at = ?3 WHERE id = ?1",
      ).bind(id, status, finishedAt),
    );
    for (const [seq, code] of [
      [1, 500],
      [2, status === "succeeded" ? 204 : 503],
    ] as const) {
      statements.push(
        env.DB.prepare(
          `INSERT INTO webhook_deliveries (id, notification_id, attempt, status_code, latency_ms, error, created_at, seq)
           VALUES (?1, ?2, ?3, ?4, 12, ?5, ?6, ?3)`,
        ).bind(newId(), id, seq, code, code === 204 ? null : `HTTP ${code}`, finishedAt),
      );
    }
  }
  await env.DB.batch(statements);
  return ids;
}

/** The bodies of the reads an archived box and notification must keep serving (status + exact text). */
async function bodies(account: TestAccount, containerId: string, notificationIds: string[]): Promise<string[]> {
  const paths = [
    `/containers/${containerId}/raw_events`,
    `/containers/${containerId}/raw_events?include=`,
    `/containers/${containerId}`,
    ...notificationIds.flatMap((id) => [
      `/webhook_notifications/${id}`,
      `/webhook_notifications/${id}?include=webhook_notification_logs,webhook,reference_object`,
    ]),
  ];
  return Promise.all(
    paths.map(async (p) => {
      const res = await api(p, { key: account.key });
      return `${p} ${res.status} ${await res.text()}`;
    }),
  );
}

async function count(sql: string, ...binds: unknown[]): Promise<number> {
  const row = await env.DB.prepare(sql)
    .bind(...binds)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

/** An account with a stopped box of 7 raw events and 3 finished notifications (6 attempts). */
async function archivable() {
  const account = await createAccount();
  const box = await seedBox(env.DB, account.accountId, 7);
  const webhookId = await createWebhook(account);
  const notifications = await seedNotifications(account, webhookId, 3);
  return { account, box, webhookId, notifications };
}

describe("runArchive", () => {
  it("moves a stopped box's raw events and finished notifications to R2 and serves byte-identical bodies", async () => {
    await drain();
    const { account, box, notifications } = await archivable();
    const before = await bodies(account, box.containerId, notifications);
    expect(
      before.every((b) => / 200 /.test(b)),
      before.join("\n"),
    ).toBe(true);
    expect(before[0]).toContain(box.rawIds[6]);
    expect(before[2]).toContain(box.rawIds[6]);
    expect(before[4]).toContain('"type":"webhook_notification_log"');

    const result = await runArchive(deps(AFTER));
    expect(result).toMatchObject({ rawEvents: 7, notifications: 3, attempts: 6 });
    // Raw events span two months (two objects); the notifications one month (notifications + attempts objects).
    expect(result.objects).toBe(4);
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", box.containerId)).toBe(0);
    expect(
      await count("SELECT COUNT(*) AS n FROM webhook_notifications WHERE account_id = ?1", account.accountId),
    ).toBe(0);
    const { results: objects } = await env.DB.prepare(
      "SELECT kind, month, key, rows, bytes, sha256, purged_at FROM archive_objects WHERE account_id = ?1 ORDER BY kind, month",
    )
      .bind(account.accountId)
      .all<{
        kind: string;
        month: string;
        key: string;
        rows: number;
        bytes: number;
        sha256: string;
        purged_at: string;
      }>();
    expect(objects.map((o) => [o.kind, o.month, o.rows])).toEqual([
      ["raw_events", "2025-05", 3],
      ["raw_events", "2025-06", 4],
      ["webhook_deliveries", "2025-06", 6],
      ["webhook_notifications", "2025-06", 3],
    ]);
    for (const o of objects) {
      expect(o.key).toMatch(
        new RegExp(`^archive/${account.accountId}/${o.month}/${o.kind}/\\d{8}T\\d{6}Z-[0-9a-f]{8}\\.ndjson\\.gz$`),
      );
      expect(o.purged_at).toBe("2025-10-01T00:00:00Z");
      const stored = await env.ARCHIVE_BUCKET.get(o.key);
      expect(stored?.size).toBe(o.bytes);
      // Each line is the row exactly as stored (snake_case columns, 0/1 booleans, JSON columns as text).
      const text = await new Response(stored?.body?.pipeThrough(new DecompressionStream("gzip"))).text();
      const lines = text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(o.rows);
      if (o.kind === "raw_events") {
        expect(typeof lines[0].payload).toBe("string");
        expect([0, 1]).toContain(lines[0].estimated);
        expect(lines[0].account_id).toBe(account.accountId);
      }
    }

    // "Restart": this path keeps nothing in memory (every read goes to D1's manifest and R2), so a fresh read
    // through the Worker is what a restarted isolate serves.
    const after = await bodies(account, box.containerId, notifications);
    expect(after).toEqual(before);
  });

  it("leaves boxes still being tracked, boxes stopped too recently and pending notifications alone", async () => {
    await drain();
    const account = await createAccount();
    const tracked = await seedBox(env.DB, account.accountId, 3, null);
    const recent = await seedBox(env.DB, account.accountId, 2, "2025-09-01T00:00:00Z");
    const webhookId = await createWebhook(account);
    const [recentNotification] = await seedNotifications(account, webhookId, 1, "2025-09-15T00:00:00Z");
    const result = await runArchive(deps(AFTER));
    expect(result).toMatchObject({ rawEvents: 0, notifications: 0, objects: 0 });
    expect(
      await count(
        "SELECT COUNT(*) AS n FROM raw_events WHERE container_id IN (?1, ?2)",
        tracked.containerId,
        recent.containerId,
      ),
    ).toBe(5);
    // A pending notification never moves, however old.
    await env.DB.prepare("UPDATE webhook_notifications SET delivery_status = 'pending' WHERE id = ?1")
      .bind(recentNotification)
      .run();
    const later = await runArchive(deps(AFTER + 365 * 86_400_000));
    expect(later.notifications).toBe(0);
    // …while the recently stopped box goes once it is old enough; the tracked one never does.
    expect(later.rawEvents).toBe(2);
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", tracked.containerId)).toBe(3);
  });

  it("archives at most rowsPerRun rows of each kind per run: N+1 rows take two runs", async () => {
    await drain();
    const account = await createAccount();
    const box = await seedBox(env.DB, account.accountId, 5);
    const webhookId = await createWebhook(account);
    await seedNotifications(account, webhookId, 5);
    const config = { afterDays: 90, rowsPerRun: 4 };
    const first = await runArchive(deps(AFTER, { config }));
    expect(first).toMatchObject({ rawEvents: 4, notifications: 4 });
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", box.containerId)).toBe(1);
    const second = await runArchive(deps(AFTER, { config }));
    expect(second).toMatchObject({ rawEvents: 1, notifications: 1, attempts: 2 });
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", box.containerId)).toBe(0);
    const third = await runArchive(deps(AFTER, { config }));
    expect(third).toMatchObject({ rawEvents: 0, notifications: 0, objects: 0, purged: 0 });
    const { json } = await apiJson<{ data: { id: string }[] }>(`/containers/${box.containerId}/raw_events`, {
      key: account.key,
    });
    expect(json.data.map((e) => e.id)).toEqual(box.rawIds);
  });
});

describe("the raw events walk's cursor", () => {
  it("moves past finished stop times, so later runs read only shipments stopped since; later stops still move", async () => {
    await drain();
    const account = await createAccount();
    const early = await seedBox(env.DB, account.accountId, 2, "2025-06-01T00:00:00Z");
    const config = { afterDays: 90, rowsPerRun: 500 };
    expect((await runArchive(deps(AFTER, { config }))).rawEvents).toBe(2);
    const cursor = await env.DB.prepare("SELECT cursor FROM maintenance_cursors WHERE name = ?1")
      .bind(RAW_EVENTS_CURSOR)
      .first<{ cursor: string }>();
    // A short page: everything stopped before the cutoff (AFTER − 90 days) is done.
    expect(cursor?.cursor).toBe("2025-07-03T00:00:00Z");
    // A box stopped a month later becomes eligible a month later, past the cursor.
    const later = await seedBox(env.DB, account.accountId, 3, "2025-08-01T00:00:00Z");
    expect((await runArchive(deps(AFTER, { config }))).rawEvents).toBe(0);
    expect((await runArchive(deps(AFTER + 31 * 86_400_000, { config }))).rawEvents).toBe(3);
    expect(
      await count(
        "SELECT COUNT(*) AS n FROM raw_events WHERE container_id IN (?1, ?2)",
        early.containerId,
        later.containerId,
      ),
    ).toBe(0);
    // A full page resumes from its last shipment's stop time, not past it.
    await drain();
    const big = await seedBox(env.DB, account.accountId, 5);
    await runArchive(deps(AFTER, { config: { afterDays: 90, rowsPerRun: 3 } }));
    const mid = await env.DB.prepare("SELECT cursor FROM maintenance_cursors WHERE name = ?1")
      .bind(RAW_EVENTS_CURSOR)
      .first<{ cursor: string }>();
    expect(mid?.cursor).toBe(STOPPED_AT);
    await runArchive(deps(AFTER, { config: { afterDays: 90, rowsPerRun: 3 } }));
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", big.containerId)).toBe(0);
  });
});

describe("a run that stops between its steps", () => {
  const crash = (at: keyof ArchiveHooks): ArchiveHooks => ({
    [at]: () => {
      throw new Error(`injected crash ${at}`);
    },
  });

  it("after the R2 write: the D1 rows stay, nothing is recorded, reads are unchanged, the next run archives them", async () => {
    await drain();
    const { account, box, notifications } = await archivable();
    const before = await bodies(account, box.containerId, notifications);
    await expect(runArchive(deps(AFTER, { hooks: crash("afterPut") }))).rejects.toThrow("injected crash afterPut");
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", box.containerId)).toBe(7);
    expect(await count("SELECT COUNT(*) AS n FROM archive_objects WHERE account_id = ?1", account.accountId)).toBe(0);
    expect(await bodies(account, box.containerId, notifications)).toEqual(before);
    const next = await runArchive(deps(AFTER));
    expect(next).toMatchObject({ rawEvents: 7, notifications: 3 });
    expect(await bodies(account, box.containerId, notifications)).toEqual(before);
  });

  it("after the manifest: both copies, reads show no duplicate, the next run finishes the delete", async () => {
    await drain();
    const { account, box, notifications } = await archivable();
    const before = await bodies(account, box.containerId, notifications);
    await expect(runArchive(deps(AFTER, { hooks: crash("afterManifest") }))).rejects.toThrow(
      "injected crash afterManifest",
    );
    // The first object (3 or 4 raw events of one month) is in R2 and the manifest, its rows still in D1.
    const unpurged = await count(
      "SELECT COUNT(*) AS n FROM archive_objects WHERE account_id = ?1 AND purged_at IS NULL",
      account.accountId,
    );
    expect(unpurged).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", box.containerId)).toBe(7);
    expect(await bodies(account, box.containerId, notifications)).toEqual(before);

    const next = await runArchive(deps(AFTER));
    expect(next.purged).toBeGreaterThanOrEqual(1);
    expect(next).toMatchObject({ notifications: 3 });
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", box.containerId)).toBe(0);
    expect(
      await count(
        "SELECT COUNT(*) AS n FROM archive_objects WHERE account_id = ?1 AND purged_at IS NULL",
        account.accountId,
      ),
    ).toBe(0);
    expect(await bodies(account, box.containerId, notifications)).toEqual(before);
  });
});

describe("a notifications run that stops after its manifest", () => {
  it("serves D1's copy (no duplicate) until the next run deletes it", async () => {
    await drain();
    const { account, box, notifications } = await archivable();
    const before = await bodies(account, box.containerId, notifications);
    const hooks: ArchiveHooks = {
      afterManifest: (key) => {
        if (key.includes("/webhook_notifications/")) throw new Error("injected crash");
      },
    };
    await expect(runArchive(deps(AFTER, { hooks }))).rejects.toThrow("injected crash");
    expect(
      await count("SELECT COUNT(*) AS n FROM webhook_notifications WHERE account_id = ?1", account.accountId),
    ).toBe(3);
    expect(await count("SELECT COUNT(*) AS n FROM archived_rows WHERE id IN (?1, ?2, ?3)", ...notifications)).toBe(3);
    // The raw events' index: one row per container and object, [[id, index], …] in feed order.
    const { results: sets } = await env.DB.prepare("SELECT events FROM archived_raw_events WHERE container_id = ?1")
      .bind(box.containerId)
      .all<{ events: string }>();
    const indexed = sets.flatMap((s) => JSON.parse(s.events) as [string, number][]).sort((a, b) => a[1] - b[1]);
    expect(indexed).toEqual(box.rawIds.map((id, i) => [id, i]));
    expect(await bodies(account, box.containerId, notifications)).toEqual(before);
    const next = await runArchive(deps(AFTER));
    expect(next.purged).toBe(1);
    expect(
      await count("SELECT COUNT(*) AS n FROM webhook_notifications WHERE account_id = ?1", account.accountId),
    ).toBe(0);
    expect(await bodies(account, box.containerId, notifications)).toEqual(before);
  });
});

describe("archived reads and other accounts", () => {
  it("another account's archived notification and box answer 404; no key and a bad key 401", async () => {
    await drain();
    const { account, box, notifications } = await archivable();
    await runArchive(deps(AFTER));
    const other = await createAccount("Other");
    const [notification] = notifications;
    for (const path of [`/webhook_notifications/${notification}`, `/containers/${box.containerId}/raw_events`]) {
      expect((await api(path, { key: other.key })).status, path).toBe(404);
      expect((await api(path)).status, path).toBe(401);
      expect((await api(path, { key: "tt_live_not-a-key" })).status, path).toBe(401);
      expect((await api(path, { key: account.key })).status, path).toBe(200);
    }
    expect((await api(`/webhook_notifications/${newId()}`, { key: account.key })).status).toBe(404);
    // An archived notification is read-only: resend answers 409 `archived` to its account, 404 to another.
    const resend = await apiJson<{ errors: { code: string }[] }>(`/webhook_notifications/${notification}/resend`, {
      key: account.key,
      method: "POST",
    });
    expect(resend.res.status).toBe(409);
    expect(resend.json.errors[0]?.code).toBe("archived");
    const foreign = await api(`/webhook_notifications/${notification}/resend`, { key: other.key, method: "POST" });
    expect(foreign.status).toBe(404);
  });

  it("an object whose bytes no longer match the manifest is an error, never a shorter answer", async () => {
    await drain();
    const { account, box } = await archivable();
    await runArchive(deps(AFTER));
    const { results } = await env.DB.prepare(
      "SELECT key FROM archive_objects WHERE account_id = ?1 AND kind = 'raw_events'",
    )
      .bind(account.accountId)
      .all<{ key: string }>();
    const key = results[0]?.key ?? "";
    await env.ARCHIVE_BUCKET.put(key, new Uint8Array([1, 2, 3]));
    const res = await api(`/containers/${box.containerId}/raw_events`, { key: account.key });
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("60");
    const body = (await res.json()) as { errors: { status: string; code: string }[] };
    expect(body.errors[0]).toMatchObject({ status: "503", code: "archive_unavailable" });
  });
});

describe("the cron", () => {
  it("archives every shard with the configured settings (scheduled → runArchiveCron)", async () => {
    const shard1 = await prepareSecondShard();
    await drain();
    await drain(shard1);
    const primary = await createAccount();
    const onShard1 = await createAccountOnShard(1, "Shard one");
    const a = await seedBox(env.DB, primary.accountId, 2);
    const b = await seedBox(shard1, onShard1.accountId, 3);
    const ctx = createExecutionContext();
    // The real clock (2026 and later) is well past STOPPED_AT + ARCHIVE_AFTER_DAYS (90, wrangler.toml).
    expect(archiveConfigOf(env).afterDays).toBe(90);
    await worker.scheduled(
      { cron: "* * * * *", scheduledTime: Date.now(), noRetry() {} } as ScheduledController,
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(await count("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1", a.containerId)).toBe(0);
    const left = await shard1
      .prepare("SELECT COUNT(*) AS n FROM raw_events WHERE container_id = ?1")
      .bind(b.containerId)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
    const manifest = await shard1
      .prepare("SELECT SUM(rows) AS n FROM archive_objects WHERE account_id = ?1 AND kind = 'raw_events'")
      .bind(onShard1.accountId)
      .first<{ n: number }>();
    expect(manifest?.n).toBe(3);
  });
});

describe("a replay after archiving", () => {
  /** A vessel arrival of the account with a fixed identity (`dedupKey`), as the Tracker would write it again. */
  const arrival = (accountId: string, dedupKey: string): NotificationDraft => {
    const example = examplePayload(VESSEL_ARRIVED);
    return {
      accountId,
      event: VESSEL_ARRIVED,
      reference: example.data.relationships.reference_object.data,
      dedupKey,
      createdAt: "2025-06-10T00:00:00Z",
      included: () => example.included ?? [],
    };
  };
  /** Writes `drafts` through the outbox's INSERTs, as the change's batch does; returns the ids it would enqueue. */
  async function write(targets: WebhookTarget[], drafts: NotificationDraft[], nowIso: string): Promise<string[]> {
    const db = createDatabase(env.DB);
    const { statements, ids } = await notificationInserts(db, targets, drafts, nowIso);
    const [first, ...rest] = statements;
    if (!first) throw new Error("not subscribed");
    await db.batch([first, ...rest]);
    return ids;
  }

  it("writes no notification the manifest records as archived, and delivers nothing for it", async () => {
    await drain();
    const account = await createAccount();
    const webhookId = await createWebhook(account);
    const targets = [{ id: webhookId, accountId: account.accountId, events: [VESSEL_ARRIVED] }];
    const fact = `container.transport.vessel_arrived:${newId()}`;
    const [delivered] = await write(targets, [arrival(account.accountId, fact)], "2025-06-10T00:00:00Z");
    await env.DB.prepare(
      "UPDATE webhook_notifications SET delivery_status = 'succeeded', attempts = 1, next_attempt_at = NULL, updated_at = ?2 WHERE id = ?1",
    )
      .bind(delivered, STOPPED_AT)
      .run();
    expect((await runArchive(deps(AFTER))).notifications).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM webhook_notifications WHERE id = ?1", delivered)).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM archived_rows WHERE id = ?1", delivered)).toBe(1);
    const read = async () => (await api(`/webhook_notifications/${delivered}`, { key: account.key })).text();
    const archivedBody = await read();
    expect(archivedBody).toContain(`"id":"${delivered}"`);

    // The same update again (a retried message, a Tracker restarted from an old snapshot), with a new fact beside it
    // in the same multi-row INSERT: same derived id for the old fact, so the archived one is skipped, the new one
    // written.
    const replayedAt = toIsoSeconds(AFTER);
    const fresh = `container.transport.vessel_arrived:${newId()}`;
    const ids = await write(targets, [arrival(account.accountId, fact), arrival(account.accountId, fresh)], replayedAt);
    expect(ids[0]).toBe(delivered);
    const newOne = ids[1] ?? "";
    expect(await count("SELECT COUNT(*) AS n FROM webhook_notifications WHERE id = ?1", delivered)).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM webhook_notifications WHERE id = ?1", newOne)).toBe(1);
    // The count trigger (migration 0002) counted only the row written.
    expect(
      await count(
        "SELECT count AS n FROM account_resource_counts WHERE account_id = ?1 AND resource = 'webhook_notification'",
        account.accountId,
      ),
    ).toBe(1);

    // The ids' delivery messages (the caller enqueues every id, as for any replay): only the new one is sent.
    const receiver = new RecordingReceiver(() => 204);
    const outcomes = await deliverNotifications(
      { env, clock: new FakeClock(AFTER), fetch: receiver.fetch, random: () => 0 },
      ids,
    );
    expect(outcomes.get(delivered ?? "")).toEqual({ kind: "done", status: null });
    expect(outcomes.get(newOne)?.kind).toBe("succeeded");
    expect(receiver.requests.map((r) => r.notificationId)).toEqual([newOne]);
    expect(await count("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE notification_id = ?1", delivered)).toBe(0);
    // GET still serves the archived notification as it was.
    expect(await read()).toBe(archivedBody);
  });

  it("checks the manifest with one index probe per notification, in the INSERT itself (EXPLAIN QUERY PLAN)", async () => {
    const account = await createAccount();
    const webhookId = await createWebhook(account);
    const targets = [{ id: webhookId, accountId: account.accountId, events: [VESSEL_ARRIVED] }];
    const drafts = [1, 2, 3].map((i) => arrival(account.accountId, `plan:${i}:${newId()}`));
    const { statements } = await notificationInserts(createDatabase(env.DB), targets, drafts, "2026-12-02T00:00:00Z");
    expect(statements).toHaveLength(1);
    const query = (statements[0] as unknown as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail).join(" | ");
    expect(details).toMatch(
      /SEARCH archived_rows (EXISTS )?USING (COVERING )?INDEX sqlite_autoindex_archived_rows_1 \(id=\?\)/,
    );
    expect(details).not.toMatch(/SCAN archived_rows|TEMP B-TREE/);
  });
});
