import { afterEach, describe, expect, it } from "vitest";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { WEBHOOK_RETRY_DELAYS_S } from "../../src/webhooks/schedule";
import { setWebhookFetch } from "../../src/webhooks/send";
import { createAccount } from "../helpers/api";
import {
  attemptsOf,
  insertNotification,
  insertWebhook,
  notificationRow,
  QueueSimulator,
  RecordingReceiver,
  type Reply,
  webhookRow,
} from "../helpers/receiver";

// The fault test of issue 4: the receiver refuses everything for its first N requests (a mix of 503s, refused
// connections, timeouts and redirects), then recovers. The webhook-deliveries queue is replayed on a fake clock
// (QueueSimulator), so the whole retry schedule runs in milliseconds. Every notification must end `succeeded`,
// acknowledged exactly once in the receiver's dedup log, and the attempts table must match what the receiver saw,
// attempt by attempt.

const T0 = Date.UTC(2030, 2, 1, 0, 0, 0);

afterEach(() => setWebhookFetch(null));

/** A deterministic [0, 1) source (mulberry32), so jitter varies but the run is reproducible. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const FAILURES: Reply[] = [
  503,
  "refuse",
  "hang",
  new Response(null, { status: 302, headers: { Location: "https://x.acme-logistics.com" } }),
  500,
];

/** A failure reply for request `i` (a fresh Response each time: a body can be read once). */
function failure(i: number): Reply {
  const reply = FAILURES[i % FAILURES.length] ?? 503;
  return reply instanceof Response ? new Response(null, { status: reply.status, headers: reply.headers }) : reply;
}

describe.each([
  ["a short outage", 12, 8],
  ["an outage of several hours", 70, 10],
])("fault: the receiver refuses its first requests (%s), then recovers", (_name, refused, count) => {
  it(`every notification ends succeeded exactly once; the attempts table tells the whole story (N=${refused})`, async () => {
    const accountA = await createAccount();
    const accountB = await createAccount();
    const hookA = await insertWebhook(accountA);
    const hookB = await insertWebhook(accountB, { url: "https://events.globex-freight.com/hooks" });
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const n = await insertNotification(i % 3 === 2 ? hookB : hookA, { createdAt: toIsoSeconds(T0 + i * 1000) });
      ids.push(n.id);
    }
    const receiver = new RecordingReceiver((_request, index) => (index < refused ? failure(index) : 200));
    const clock = new FakeClock(T0 + count * 1000);
    const queue = new QueueSimulator(clock, { fetch: receiver.fetch, random: seeded(refused), timeoutMs: 20 });
    queue.send(ids);
    await queue.drain();

    expect(receiver.requests).toHaveLength(refused + count);
    for (const id of ids) {
      const row = await notificationRow(id);
      expect(row.delivery_status).toBe("succeeded");
      // Dedup log: acknowledged exactly once.
      expect(receiver.acknowledged.get(id)).toBe(1);
      const seen = receiver.for(id);
      const attempts = await attemptsOf(id);
      expect(row.attempts).toBe(seen.length);
      expect(attempts.map((a) => a.attempt)).toEqual(seen.map((_, k) => k + 1));
      // Attempt k is what the receiver saw for its k-th request: same status (null when it gave none), an error
      // on every failure and none on the success.
      expect(attempts.map((a) => a.status_code)).toEqual(seen.map((r) => r.status));
      expect(attempts.slice(0, -1).every((a) => a.error !== null)).toBe(true);
      expect(attempts.at(-1)).toMatchObject({ status_code: 200, error: null });
      // Same body and id on every attempt.
      expect(new Set(seen.map((r) => r.body)).size).toBe(1);
      // The attempts follow the retry schedule, ±20 %.
      const times = attempts.map((a) => Date.parse(a.created_at) / 1000);
      times.slice(1).forEach((t, k) => {
        const base = WEBHOOK_RETRY_DELAYS_S[k] ?? 0;
        const gap = t - (times[k] ?? 0);
        expect(gap).toBeGreaterThanOrEqual(Math.round(base * 0.8));
        expect(gap).toBeLessThanOrEqual(Math.round(base * 1.2));
      });
    }
    expect(new Set(receiver.acknowledged.keys())).toEqual(new Set(ids));
    // Errors name their cause.
    const errors = new Set(
      (await Promise.all(ids.map(attemptsOf))).flat().flatMap((a) => (a.error ? [a.error.split(":")[0]] : [])),
    );
    expect(errors).toEqual(
      new Set(["HTTP 503", "connection failed", "timeout", "redirect (302) not followed", "HTTP 500"]),
    );
    // Recovered: neither webhook is failing any more or disabled.
    for (const hook of [hookA, hookB])
      expect(await webhookRow(hook.id)).toMatchObject({ active: 1, failing_since: null });
  });
});
