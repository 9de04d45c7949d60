import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import {
  consumeWebhookDeliveriesDlq,
  DELIVERY_LEASE_S,
  DISABLED_REASON,
  deliverNotification,
  SWEEP_GRACE_S,
  sweepWebhookOutbox,
} from "../../src/webhooks/delivery";
import type { WebhookDeliveryMessage } from "../../src/webhooks/outbox";
import {
  QUEUE_MAX_DELAY_S,
  queueDelaySeconds,
  retryDelaySeconds,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_S,
} from "../../src/webhooks/schedule";
import { setWebhookFetch } from "../../src/webhooks/send";
import { createAccount } from "../helpers/api";
import { recordingQueue } from "../helpers/engine";
import {
  attemptsOf,
  insertNotification,
  insertWebhook,
  notificationRow,
  QueueSimulator,
  RecordingReceiver,
  recordingBatch,
  runDeliveryBatch,
  webhookRow,
} from "../helpers/receiver";

// The webhook-deliveries consumer (docs/decisions.md §Webhooks): claim, send, record; the retry schedule with jitter on
// a fake clock; 410 and 5-day disabling; idempotent redelivery; crash recovery, the DLQ consumer and the cron sweep.
// Webhooks and notifications are written straight into D1 and never put on the real queue, so nothing runs behind a
// test's back; the receiver is an injected fetch.

const T0 = Date.UTC(2030, 0, 7, 6, 0, 0);
const HOUR_S = 3600;
const DAY_MS = 86_400_000;

afterEach(() => setWebhookFetch(null));

/** An account with one webhook and `count` notifications due at `atMs`. */
async function setup(count = 1, atMs = T0, webhookOptions: Parameters<typeof insertWebhook>[1] = {}) {
  const account = await createAccount();
  const webhook = await insertWebhook(account, webhookOptions);
  const notifications = [];
  for (let i = 0; i < count; i++) {
    notifications.push(await insertNotification(webhook, { createdAt: toIsoSeconds(atMs) }));
  }
  return { account, webhook, notifications };
}

describe("retry schedule (pure)", () => {
  it("12 retries after the first attempt at 5 s, 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, 8 h, 12 h ×4, then none", () => {
    const middle = () => 0.5;
    const delays = [];
    for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) delays.push(retryDelaySeconds(attempt, middle));
    expect(delays).toEqual([
      5,
      60,
      300,
      1800,
      HOUR_S,
      2 * HOUR_S,
      4 * HOUR_S,
      8 * HOUR_S,
      12 * HOUR_S,
      12 * HOUR_S,
      12 * HOUR_S,
      12 * HOUR_S,
      null,
    ]);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(13);
    // About 2.6 days in all (228 965 s = 2.65 days before jitter).
    const total = WEBHOOK_RETRY_DELAYS_S.reduce((a, b) => a + b, 0);
    expect(total).toBe(228_965);
  });

  it("jitter stays within ±20 % of the schedule for every attempt and any random draw", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, r) => {
        const base = WEBHOOK_RETRY_DELAYS_S[attempt - 1] ?? 0;
        const delay = retryDelaySeconds(attempt, () => r);
        expect(delay).not.toBeNull();
        expect(delay as number).toBeGreaterThanOrEqual(Math.round(base * 0.8));
        expect(delay as number).toBeLessThanOrEqual(Math.round(base * 1.2));
      }),
      { seed: 4242, numRuns: 500 },
    );
    // The extremes are reached: the lowest draw gives -20 %, the highest +20 % (rounded).
    expect(retryDelaySeconds(9, () => 0)).toBe(34_560);
    expect(retryDelaySeconds(9, () => 0.999_999_9)).toBe(51_840);
    expect(retryDelaySeconds(2, () => 0)).toBe(48);
  });

  it("queue delays are whole seconds between 1 and the 12 h limit", () => {
    expect(queueDelaySeconds(0.2)).toBe(1);
    expect(queueDelaySeconds(-5)).toBe(1);
    expect(queueDelaySeconds(4.1)).toBe(5);
    expect(queueDelaySeconds(51_840)).toBe(QUEUE_MAX_DELAY_S);
    expect(queueDelaySeconds(Number.NaN)).toBe(1);
  });
});

describe("delivering one notification", () => {
  it("success: one attempt recorded, notification succeeded, message acked", async () => {
    const { webhook, notifications } = await setup();
    const [n] = notifications;
    if (!n) throw new Error("setup");
    const receiver = new RecordingReceiver(() => 200);
    const outcome = await runDeliveryBatch([n.id], { clock: new FakeClock(T0), fetch: receiver.fetch });
    expect(outcome).toEqual({ acked: [n.id], retried: [] });
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.body).toBe(n.body);
    expect(receiver.requests[0]?.url).toBe(webhook.url);
    const row = await notificationRow(n.id);
    expect(row).toMatchObject({ delivery_status: "succeeded", attempts: 1, next_attempt_at: null });
    const attempts = await attemptsOf(n.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
    expect(attempts[0]?.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("a redelivered message for a succeeded notification is acked without sending", async () => {
    const { notifications } = await setup();
    const [n] = notifications;
    if (!n) throw new Error("setup");
    const receiver = new RecordingReceiver(() => 200);
    const clock = new FakeClock(T0);
    await runDeliveryBatch([n.id], { clock, fetch: receiver.fetch });
    clock.advance(10 * 60_000);
    const again = await runDeliveryBatch([n.id, n.id], { clock, fetch: receiver.fetch });
    expect(again.acked).toEqual([n.id, n.id]);
    expect(receiver.requests).toHaveLength(1);
    expect(await attemptsOf(n.id)).toHaveLength(1);
  });

  it.each<[string, ConstructorParameters<typeof RecordingReceiver>[0], RegExp]>([
    ["500", () => 500, /^HTTP 500$/],
    ["timeout", () => "hang", /^timeout: no answer within 25 ms$/],
    [
      "301 redirect",
      () => new Response(null, { status: 301, headers: { Location: "https://other.acme-logistics.com/" } }),
      /^redirect \(301\) not followed$/,
    ],
    ["connection refused", () => "refuse", /^connection failed: /],
  ])(
    "%s is retried on schedule: next_attempt_at stored, message retried with the delay",
    async (_name, reply, error) => {
      const { webhook, notifications } = await setup();
      const [n] = notifications;
      if (!n) throw new Error("setup");
      const receiver = new RecordingReceiver(reply);
      const outcome = await runDeliveryBatch([n.id], {
        clock: new FakeClock(T0),
        fetch: receiver.fetch,
        random: () => 0.5,
        timeoutMs: 25,
      });
      expect(outcome).toEqual({ acked: [], retried: [{ notificationId: n.id, delaySeconds: 5 }] });
      expect(await notificationRow(n.id)).toMatchObject({
        delivery_status: "pending",
        attempts: 1,
        next_attempt_at: toIsoSeconds(T0 + 5000),
      });
      const [attempt] = await attemptsOf(n.id);
      expect(attempt?.attempt).toBe(1);
      expect(attempt?.error).toMatch(error);
      expect((await webhookRow(webhook.id)).failing_since).toBe(toIsoSeconds(T0));
    },
  );

  it("a message that arrives before next_attempt_at is put back for the remaining time, without sending", async () => {
    const { notifications } = await setup(1, T0 + 90_000);
    const [n] = notifications;
    if (!n) throw new Error("setup");
    const receiver = new RecordingReceiver();
    const outcome = await runDeliveryBatch([n.id], { clock: new FakeClock(T0), fetch: receiver.fetch });
    expect(outcome.retried).toEqual([{ notificationId: n.id, delaySeconds: 90 }]);
    expect(receiver.requests).toHaveLength(0);
    expect((await notificationRow(n.id)).attempts).toBe(0);
  });

  it("the same notification id and body on every retry, each attempt verifiable", async () => {
    const start = Date.now();
    const { webhook, notifications } = await setup(1, start);
    const [n] = notifications;
    if (!n) throw new Error("setup");
    const receiver = new RecordingReceiver((_r, i) => (i < 2 ? 500 : 200));
    const clock = new FakeClock(start);
    const queue = new QueueSimulator(clock, { fetch: receiver.fetch, random: () => 0.5 });
    queue.send([n.id]);
    await queue.drain();
    expect(receiver.requests).toHaveLength(3);
    const bodies = new Set(receiver.requests.map((r) => r.body));
    const ids = new Set(receiver.requests.map((r) => r.notificationId));
    expect([...bodies]).toEqual([n.body]);
    expect([...ids]).toEqual([n.id]);
    expect(JSON.parse(n.body).data.id).toBe(n.id);
    // Each attempt carries its own timestamp (5 s, then 60 s later) and verifies.
    const stamps = receiver.requests.map((r) => Number(r.headers.get("webhook-timestamp")));
    expect([(stamps[1] ?? 0) - (stamps[0] ?? 0), (stamps[2] ?? 0) - (stamps[1] ?? 0)]).toEqual([5, 60]);
    const last = receiver.requests[2];
    if (!last) throw new Error("no third request");
    expect(new Webhook(webhook.secret).verify(last.body, Object.fromEntries(last.headers))).toEqual(JSON.parse(n.body));
    expect((await attemptsOf(n.id)).map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    expect((await notificationRow(n.id)).delivery_status).toBe("succeeded");
    expect((await webhookRow(webhook.id)).failing_since).toBeNull();
  });

  it.each([
    ["the lowest jitter (-20 %)", 0, 0.8],
    ["the highest jitter (+20 %)", 0.999_999_9, 1.2],
  ])("a receiver that always fails: 13 attempts on the schedule with %s, then failed", async (_n, r, factor) => {
    const { notifications } = await setup();
    const [n] = notifications;
    if (!n) throw new Error("setup");
    const receiver = new RecordingReceiver(() => 503);
    const clock = new FakeClock(T0);
    const queue = new QueueSimulator(clock, { fetch: receiver.fetch, random: () => r });
    queue.send([n.id]);
    await queue.drain();
    const attempts = await attemptsOf(n.id);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const times = attempts.map((a) => Date.parse(a.created_at) / 1000);
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
    expect(gaps).toEqual(WEBHOOK_RETRY_DELAYS_S.map((b) => Math.round(b * factor)));
    expect(await notificationRow(n.id)).toMatchObject({
      delivery_status: "failed",
      attempts: 13,
      next_attempt_at: null,
    });
    // Queue delays never exceed the 12 h limit: a 14.4 h wait is taken in two hops.
    const delays = queue.runs.flatMap((run) => run.outcome.retried.map((x) => x.delaySeconds ?? 0));
    expect(Math.max(...delays)).toBeLessThanOrEqual(QUEUE_MAX_DELAY_S);
    expect(delays.length).toBe(factor > 1 ? 12 + 4 : 12);
    expect(receiver.requests).toHaveLength(13);
  });
});

describe("disabling webhooks", () => {
  it("410 Gone disables the webhook at once; its other notifications fail without being sent", async () => {
    const { webhook, notifications } = await setup(2);
    const [first, second] = notifications;
    if (!first || !second) throw new Error("setup");
    const receiver = new RecordingReceiver(() => 410);
    const clock = new FakeClock(T0);
    const outcome = await runDeliveryBatch([first.id], { clock, fetch: receiver.fetch });
    expect(outcome.acked).toEqual([first.id]);
    expect(await notificationRow(first.id)).toMatchObject({ delivery_status: "failed", next_attempt_at: null });
    expect(await webhookRow(webhook.id)).toMatchObject({ active: 0, disabled_reason: DISABLED_REASON.gone });
    const later = await runDeliveryBatch([second.id], { clock, fetch: receiver.fetch });
    expect(later.acked).toEqual([second.id]);
    expect(receiver.requests).toHaveLength(1);
    expect((await notificationRow(second.id)).delivery_status).toBe("failed");
    expect((await attemptsOf(second.id))[0]?.error).toBe("not sent: webhook inactive (receiver_gone)");
  });

  it("no success for 5 days with failed notifications disables the webhook", async () => {
    const failingSince = toIsoSeconds(T0 - 5 * DAY_MS - 1000);
    const { webhook, notifications } = await setup(1, T0, { failingSince });
    const [n] = notifications;
    if (!n) throw new Error("setup");
    await insertNotification(webhook, { status: "failed", attempts: 13, createdAt: toIsoSeconds(T0 - 3 * DAY_MS) });
    const receiver = new RecordingReceiver(() => 500);
    await runDeliveryBatch([n.id], { clock: new FakeClock(T0), fetch: receiver.fetch });
    expect(await webhookRow(webhook.id)).toMatchObject({
      active: 0,
      disabled_reason: DISABLED_REASON.failing,
      failing_since: failingSince,
    });
  });

  it("failing for 5 days without any failed notification (still retrying) keeps the webhook active", async () => {
    const failingSince = toIsoSeconds(T0 - 5 * DAY_MS - 1000);
    const { webhook, notifications } = await setup(1, T0, { failingSince });
    const [n] = notifications;
    if (!n) throw new Error("setup");
    await runDeliveryBatch([n.id], { clock: new FakeClock(T0), fetch: new RecordingReceiver(() => 500).fetch });
    expect(await webhookRow(webhook.id)).toMatchObject({ active: 1, disabled_reason: null });
  });

  it("failing for less than 5 days keeps it active; a success clears failing_since", async () => {
    const failingSince = toIsoSeconds(T0 - 4 * DAY_MS);
    const { webhook, notifications } = await setup(2, T0, { failingSince });
    const [a, b] = notifications;
    if (!a || !b) throw new Error("setup");
    await insertNotification(webhook, { status: "failed", attempts: 13 });
    const clock = new FakeClock(T0);
    await runDeliveryBatch([a.id], { clock, fetch: new RecordingReceiver(() => 500).fetch });
    expect(await webhookRow(webhook.id)).toMatchObject({ active: 1, failing_since: failingSince });
    await runDeliveryBatch([b.id], { clock, fetch: new RecordingReceiver(() => 200).fetch });
    expect(await webhookRow(webhook.id)).toMatchObject({ active: 1, failing_since: null });
  });

  it("a notification of an inactive webhook is failed without sending", async () => {
    const { notifications } = await setup(1, T0, { active: false });
    const [n] = notifications;
    if (!n) throw new Error("setup");
    const receiver = new RecordingReceiver();
    const outcome = await runDeliveryBatch([n.id], { clock: new FakeClock(T0), fetch: receiver.fetch });
    expect(outcome.acked).toEqual([n.id]);
    expect(receiver.requests).toHaveLength(0);
    expect(await notificationRow(n.id)).toMatchObject({ delivery_status: "failed", attempts: 0 });
    expect((await attemptsOf(n.id))[0]?.error).toBe("not sent: webhook inactive");
  });
});

/** A D1 binding that throws from `batch` when `crash` says so: a consumer dying at that point. */
function crashingD1(crash: (statements: number) => boolean): D1Database {
  const real = env.DB;
  return {
    prepare: (query: string) => real.prepare(query),
    batch: async <T>(statements: D1PreparedStatement[]) => {
      if (crash(statements.length)) throw new Error("consumer crashed");
      return real.batch<T>(statements);
    },
    exec: (query: string) => real.exec(query),
    dump: () => real.dump(),
    withSession: (constraint?: string) => real.withSession(constraint),
  } as unknown as D1Database;
}

describe("crashes, duplicates, the DLQ and the sweep", () => {
  it("two deliveries of one notification at once send it once (the claim)", async () => {
    const { notifications } = await setup();
    const [n] = notifications;
    if (!n) throw new Error("setup");
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const receiver = new RecordingReceiver(async () => {
      await gate;
      return 200;
    });
    const deps = { env, clock: new FakeClock(T0), fetch: receiver.fetch };
    const first = deliverNotification(deps, n.id);
    const second = await deliverNotification(deps, n.id);
    release();
    expect(second).toEqual({ kind: "not_due", delaySeconds: DELIVERY_LEASE_S });
    expect((await first).kind).toBe("succeeded");
    expect(receiver.requests).toHaveLength(1);
  });

  it("a consumer crash mid-batch loses nothing: the batch is redelivered and re-sent after the claims' lease", async () => {
    const { notifications } = await setup(3);
    const ids = notifications.map((n) => n.id);
    const receiver = new RecordingReceiver(() => 200);
    const clock = new FakeClock(T0);
    // The consumer dies after the receiver got every request, before anything was recorded (the record batch is
    // the one with more than the claim's two statements).
    const crashEnv: Env = { ...env, DB: crashingD1((count) => count > 2) };
    const first = await runDeliveryBatch(ids, { clock, fetch: receiver.fetch }, crashEnv);
    expect(first.acked).toEqual([]);
    expect(first.retried.map((r) => r.notificationId).sort()).toEqual([...ids].sort());
    expect(receiver.requests).toHaveLength(3);
    for (const id of ids) expect(await notificationRow(id)).toMatchObject({ delivery_status: "pending", attempts: 1 });
    // Redelivered during the lease: put back for the rest of it, not sent again.
    clock.advance(30_000);
    const early = await runDeliveryBatch(ids, { clock, fetch: receiver.fetch });
    expect(early.retried.map((r) => r.delaySeconds)).toEqual([30, 30, 30].map((x) => DELIVERY_LEASE_S - x));
    expect(receiver.requests).toHaveLength(3);
    clock.advance((DELIVERY_LEASE_S - 30) * 1000);
    const after = await runDeliveryBatch(ids, { clock, fetch: receiver.fetch });
    expect(after.acked.sort()).toEqual([...ids].sort());
    for (const id of ids) {
      expect((await notificationRow(id)).delivery_status).toBe("succeeded");
      // At-least-once: sent before the crash and again after it, same id and body; the receiver dedupes on the id.
      const seen = receiver.for(id);
      expect(seen).toHaveLength(2);
      expect(seen[0]?.body).toBe(seen[1]?.body);
      // The crashed attempt (1) could not be recorded; attempt 2 was.
      expect((await attemptsOf(id)).map((a) => [a.attempt, a.status_code])).toEqual([[2, 200]]);
    }
  });

  it("a D1 failure while claiming sends nothing and retries the whole batch", async () => {
    const { notifications } = await setup(2);
    const ids = notifications.map((n) => n.id);
    const receiver = new RecordingReceiver(() => 200);
    const failing: Env = { ...env, DB: crashingD1(() => true) };
    const outcome = await runDeliveryBatch(ids, { clock: new FakeClock(T0), fetch: receiver.fetch }, failing);
    expect(outcome.retried).toEqual(ids.map((notificationId) => ({ notificationId, delaySeconds: 30 })));
    expect(receiver.requests).toHaveLength(0);
    for (const id of ids) expect(await notificationRow(id)).toMatchObject({ delivery_status: "pending", attempts: 0 });
  });

  it("a webhook deleted while its notification is being sent does not spoil the batch's record", async () => {
    const account = await createAccount();
    const doomed = await insertWebhook(account);
    const kept = await insertWebhook(account);
    const gone = await insertNotification(doomed, { createdAt: toIsoSeconds(T0) });
    const stays = await insertNotification(kept, { createdAt: toIsoSeconds(T0) });
    // The receiver of the doomed webhook answers after its webhook was deleted (as DELETE /webhooks/{id} does it).
    const receiver = new RecordingReceiver(async (r) => {
      if (r.notificationId === gone.id) {
        await env.DB.batch([
          env.DB.prepare("DELETE FROM webhook_deliveries WHERE notification_id = ?1").bind(gone.id),
          env.DB.prepare("DELETE FROM webhook_notifications WHERE webhook_id = ?1").bind(doomed.id),
          env.DB.prepare("DELETE FROM webhooks WHERE id = ?1").bind(doomed.id),
        ]);
      }
      return 200;
    });
    const outcome = await runDeliveryBatch([gone.id, stays.id], { clock: new FakeClock(T0), fetch: receiver.fetch });
    expect(outcome.acked.sort()).toEqual([gone.id, stays.id].sort());
    expect((await notificationRow(stays.id)).delivery_status).toBe("succeeded");
    expect(await attemptsOf(stays.id)).toHaveLength(1);
    expect(await attemptsOf(gone.id)).toEqual([]);
  });

  it("one batch mixing outcomes: each message acked or retried on its own", async () => {
    const { webhook, notifications } = await setup(3);
    const [ok, failing, done] = notifications;
    if (!ok || !failing || !done) throw new Error("setup");
    const later = await insertNotification(webhook, { nextAttemptAt: toIsoSeconds(T0 + 40_000) });
    const receiver = new RecordingReceiver((r) => (r.notificationId === failing.id ? 500 : 200));
    const clock = new FakeClock(T0);
    await runDeliveryBatch([done.id], { clock, fetch: receiver.fetch });
    const outcome = await runDeliveryBatch([ok.id, failing.id, done.id, later.id, "no-such-notification"], {
      clock,
      fetch: receiver.fetch,
      random: () => 0.5,
    });
    expect(outcome.acked.sort()).toEqual([ok.id, done.id, "no-such-notification"].sort());
    expect(outcome.retried.sort((a, b) => a.notificationId.localeCompare(b.notificationId))).toEqual(
      [
        { notificationId: failing.id, delaySeconds: 5 },
        { notificationId: later.id, delaySeconds: 40 },
      ].sort((a, b) => a.notificationId.localeCompare(b.notificationId)),
    );
    expect(receiver.for(done.id)).toHaveLength(1);
    // The webhook had a success in this batch: it is not failing.
    expect((await webhookRow(webhook.id)).failing_since).toBeNull();
  });

  it("a lost message is re-queued by the cron sweep once its next attempt is overdue", async () => {
    const { notifications, webhook } = await setup(1, T0);
    const [lost] = notifications;
    if (!lost) throw new Error("setup");
    const fresh = await insertNotification(webhook, { createdAt: toIsoSeconds(T0 + 100_000) });
    const done = await insertNotification(webhook, { status: "succeeded", createdAt: toIsoSeconds(T0) });
    const queue = recordingQueue<WebhookDeliveryMessage>();
    const sweepEnv = { ...env, WEBHOOK_DELIVERIES_QUEUE: queue };
    // Within the grace period it is not re-queued.
    await sweepWebhookOutbox(sweepEnv, T0 + (SWEEP_GRACE_S - 1) * 1000);
    expect(queue.sent.map((m) => m.body.notificationId)).not.toContain(lost.id);
    const nowMs = T0 + (SWEEP_GRACE_S + 1) * 1000;
    const requeued = await sweepWebhookOutbox(sweepEnv, nowMs);
    const ours = queue.sent.map((m) => m.body.notificationId).filter((id) => [lost.id, fresh.id, done.id].includes(id));
    expect(ours).toEqual([lost.id]);
    expect(requeued).toBeGreaterThanOrEqual(1);
    expect((await notificationRow(lost.id)).next_attempt_at).toBe(toIsoSeconds(nowMs));
    // The next run does not re-queue it again while it waits in the queue.
    const before = queue.sent.length;
    await sweepWebhookOutbox(sweepEnv, nowMs + 60_000);
    expect(queue.sent.slice(before).map((m) => m.body.notificationId)).not.toContain(lost.id);
    // Delivered from the re-queued message.
    const receiver = new RecordingReceiver(() => 200);
    await runDeliveryBatch([lost.id], { clock: new FakeClock(nowMs), fetch: receiver.fetch });
    expect((await notificationRow(lost.id)).delivery_status).toBe("succeeded");
  });

  it("a delivery a crash interrupted is sent again within 3 minutes of its claim, once (issue 23 §3)", async () => {
    const { notifications } = await setup(1, T0);
    const [interrupted] = notifications;
    if (!interrupted) throw new Error("setup");
    // The consumer claims it and the process dies while the receiver has not answered.
    let asked = 0;
    const hanging: typeof fetch = () => {
      asked++;
      return new Promise<never>(() => {});
    };
    void runDeliveryBatch([interrupted.id], { clock: new FakeClock(T0), fetch: hanging });
    await vi.waitUntil(() => asked === 1);
    expect((await notificationRow(interrupted.id)).attempts).toBe(1);

    const receiver = new RecordingReceiver(() => 200);
    const requeuedAt: number[] = [];
    for (let minute = 1; minute <= 3; minute++) {
      const atMs = T0 + minute * 60_000;
      const queue = recordingQueue<WebhookDeliveryMessage>();
      await sweepWebhookOutbox({ ...env, WEBHOOK_DELIVERIES_QUEUE: queue }, atMs);
      if (!queue.sent.some((m) => m.body.notificationId === interrupted.id)) continue;
      requeuedAt.push(atMs);
      await runDeliveryBatch([interrupted.id], { clock: new FakeClock(atMs), fetch: receiver.fetch });
    }
    expect(requeuedAt).toHaveLength(1);
    expect((requeuedAt[0] ?? Number.POSITIVE_INFINITY) - T0).toBeLessThanOrEqual(3 * 60_000);
    expect(receiver.for(interrupted.id)).toHaveLength(1);
    expect(await notificationRow(interrupted.id)).toMatchObject({ delivery_status: "succeeded", attempts: 2 });
  });

  it("the DLQ consumer puts a pending notification back on schedule, fails an exhausted one, ignores done ones", async () => {
    const { webhook } = await setup(0);
    const due = await insertNotification(webhook, { attempts: 3, nextAttemptAt: toIsoSeconds(T0 + 600_000) });
    const exhausted = await insertNotification(webhook, { attempts: 13, nextAttemptAt: toIsoSeconds(T0) });
    const done = await insertNotification(webhook, { status: "succeeded", attempts: 1 });
    const queue = recordingQueue<WebhookDeliveryMessage>();
    const dlqEnv: Env = { ...env, WEBHOOK_DELIVERIES_QUEUE: queue };
    const { batch, acked, retried } = recordingBatch<WebhookDeliveryMessage>(
      "webhook-deliveries-dlq",
      [due.id, exhausted.id, done.id].map((notificationId) => ({ notificationId })),
    );
    await consumeWebhookDeliveriesDlq(batch, dlqEnv, { clock: new FakeClock(T0) });
    expect(acked).toEqual(batch.messages.map((m) => m.id));
    expect(retried).toEqual([]);
    // The re-sent message names the shard holding the notification (issue 29 §3).
    expect(queue.sent).toEqual([{ body: { notificationId: due.id, shard: 0 }, delaySeconds: 600 }]);
    expect((await notificationRow(exhausted.id)).delivery_status).toBe("failed");
    expect((await notificationRow(done.id)).delivery_status).toBe("succeeded");
    expect((await notificationRow(due.id)).delivery_status).toBe("pending");
  });

  it("the Worker's queue handler routes webhook-deliveries to the consumer (fetch through the seam)", async () => {
    const start = Date.now();
    const { notifications } = await setup(1, start - 1000);
    const [n] = notifications;
    if (!n) throw new Error("setup");
    const receiver = new RecordingReceiver(() => 204);
    setWebhookFetch(receiver.fetch);
    const batch = createMessageBatch<WebhookDeliveryMessage>("webhook-deliveries", [
      { id: "w-1", timestamp: new Date(), attempts: 1, body: { notificationId: n.id } },
    ]);
    const ctx = createExecutionContext();
    const handler = worker as ExportedHandler<Env, WebhookDeliveryMessage>;
    await handler.queue?.(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["w-1"]);
    expect(receiver.requests.map((r) => r.notificationId)).toEqual([n.id]);
    expect((await notificationRow(n.id)).delivery_status).toBe("succeeded");
  });
});
