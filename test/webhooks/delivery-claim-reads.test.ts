import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { countingD1, type D1Counter } from "../../src/tracking/bench-d1";
import { deliverNotifications, SWEEP_BATCH, sweepWebhookOutbox } from "../../src/webhooks/delivery";
import { setWebhookFetch } from "../../src/webhooks/send";
import { createAccount } from "../helpers/api";
import { insertNotification, insertWebhook, RecordingReceiver } from "../helpers/receiver";

// The delivery claim (src/webhooks/delivery.ts deliverNotifications) finds its notifications by id. bench/capacity
// (issue 29 §1) found it reading every pending, due notification instead: 11 563 rows per claim at 10 000 boxes, 89 %
// of all D1 rows read, because SQLite (no ANALYZE statistics in D1) preferred the (delivery_status, next_attempt_at)
// index over the primary key. D1 bills rows read, and the claim's cost grew with the backlog.

const T0 = Date.UTC(2030, 0, 7, 6, 0, 0);

afterEach(() => setWebhookFetch(null));

describe("the delivery claim", () => {
  it("reads a batch's notifications by their ids, not the whole backlog of due notifications", async () => {
    const account = await createAccount();
    const webhook = await insertWebhook(account);
    const backlog = 1000;
    const due = toIsoSeconds(T0 - 60_000);
    const ids: string[] = [];
    for (let i = 0; i < backlog; i++) ids.push((await insertNotification(webhook, { nextAttemptAt: due })).id);
    const counter: D1Counter = { batches: 0, statements: 0 };
    const receiver = new RecordingReceiver(() => 200);
    const deps = { env: { ...env, DB: countingD1(env.DB, counter) }, clock: new FakeClock(T0), fetch: receiver.fetch };
    // A consumer batch of 20 (the planner switched from the primary key to a status index from about 10 ids).
    const batch = ids.slice(0, 20);
    const outcomes = await deliverNotifications(deps, batch);
    expect([...outcomes.values()].map((o) => o.kind)).toEqual(batch.map(() => "succeeded"));
    expect(receiver.requests).toHaveLength(20);
    // 20 notifications claimed, read, sent and recorded: about 15 rows each (the claim, its count triggers, the state
    // read, the attempt and outcome rows), whatever the backlog; the claim's scan alone read 1 000 or more.
    expect(counter.rowsRead).toBeLessThan(500);
  });
});

describe("the outbox sweep", () => {
  it("re-queues its stale notifications by id, not by reading the whole pending backlog once per chunk", async () => {
    const account = await createAccount();
    const webhook = await insertWebhook(account);
    const backlog = 1000;
    const stale = toIsoSeconds(T0 - 3_600_000);
    for (let i = 0; i < backlog; i++) await insertNotification(webhook, { nextAttemptAt: stale });
    const counter: D1Counter = { batches: 0, statements: 0 };
    const requeued = await sweepWebhookOutbox({ ...env, DB: countingD1(env.DB, counter) }, T0);
    expect(requeued).toBe(SWEEP_BATCH);
    // The stale read walks the (delivery_status, next_attempt_at) index for its SWEEP_BATCH rows; each chunk's UPDATE
    // then finds its ids by primary key. Before, every chunk of 90 ids read all 1 000 pending rows (6 chunks: 6 000+).
    expect(counter.rowsRead).toBeLessThan(3000);
  });
});
