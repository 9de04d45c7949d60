import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { countingD1, type D1Counter } from "../../src/tracking/bench-trace";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import type { SourceRegistry } from "../../src/tracking/sources";
import type { LookupResult, Milestone } from "../../src/tracking/sources/types";
import type { Tracker } from "../../src/tracking/tracker";
import { consumeWebhookDeliveries } from "../../src/webhooks/delivery";
import type { WebhookDeliveryMessage } from "../../src/webhooks/outbox";
import type { TestAccount } from "../helpers/api";
import {
  boxNumbers,
  FakeCarrier,
  FUTURE_T0,
  type RecordingQueue,
  recordingQueue,
  registryOf,
  trackerStub,
} from "../helpers/engine";
import { containerFacts, DAY_MS, HOUR_MS, iso, milestone, shipmentFacts } from "../helpers/facts";
import { newSecret, RecordingReceiver, recordingBatch } from "../helpers/receiver";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";

// The pipeline over two shards (issue 29 §3, docs/SCALING.md §How the pipeline uses shards): one Tracker shared by an account on the
// primary (shard 0, `DB`) and one on shard 1 (`DB_1`) writes each account's rows to its own shard, one D1 batch per
// shard; their webhook notifications are delivered from their shard; a shard whose batch fails fails the update,
// and the retry completes it without writing anything twice on the shard that had committed.

const SCAC = "FAKE";
const POL = "CNYTN";
const POD = "USLAX";
const nextBox = boxNumbers("SHRU", 700_000);
const EVENTS = [
  "container.created",
  "container.updated",
  "container.transport.vessel_arrived",
  "container.transport.vessel_discharged",
  "source_outage.started",
  "source_outage.resolved",
];
/** Tables of account rows the journey writes (each row's `account_id` must be an account of its shard). */
const ACCOUNT_TABLES = [
  "tracking_requests",
  "shipments",
  "containers",
  "subscriptions",
  "transport_events",
  "raw_events",
  "webhook_notifications",
  "account_resource_counts",
];

const d1Of = (shard: number): D1Database => (shard === 0 ? env.DB : (env.DB_1 as D1Database));

beforeAll(async () => {
  await prepareSecondShard();
});

/** A tracking request of `account` written straight into its shard (no queue message). */
async function insertRequestOn(shard: number, account: TestAccount, bl: string, atMs: number): Promise<string> {
  const id = newId();
  await d1Of(shard)
    .prepare(
      `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac, line_scac,
         status, created_at, updated_at) VALUES (?1, ?2, 'bill_of_lading', ?3, ?3, ?4, ?4, 'pending', ?5, ?5)`,
    )
    .bind(id, account.accountId, bl, SCAC, iso(atMs))
    .run();
  return id;
}

/** An active webhook of `account` in its shard, subscribed to {@link EVENTS}. */
async function insertWebhookOn(shard: number, account: TestAccount): Promise<string> {
  const id = newId();
  await d1Of(shard)
    .prepare(
      `INSERT INTO webhooks (id, account_id, url, active, events, headers, secret, created_at, updated_at)
       VALUES (?1, ?2, ?3, 1, ?4, '[]', ?5, ?6, ?6)`,
    )
    .bind(id, account.accountId, `https://hooks.example.com/${shard}`, JSON.stringify(EVENTS), newSecret(), iso(0))
    .run();
  return id;
}

async function count(shard: number, sql: string, ...binds: unknown[]): Promise<number> {
  const row = await d1Of(shard)
    .prepare(sql)
    .bind(...binds)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** Rows of `accountId` in `table` on `shard`. */
const rowsOf = (shard: number, table: string, accountId: string) =>
  count(shard, `SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?1`, accountId);

/** The container row ids of a request's shipment, in its shard. */
async function containerOf(shard: number, requestId: string): Promise<string> {
  const row = await d1Of(shard)
    .prepare(
      "SELECT c.id AS id FROM containers c JOIN tracking_requests r ON r.shipment_id = c.shipment_id WHERE r.id = ?1",
    )
    .bind(requestId)
    .first<{ id: string }>();
  if (!row) throw new Error(`no container for request ${requestId} on shard ${shard}`);
  return row.id;
}

/** The D1 bindings and queue a Tracker instance uses from now on (until it is evicted). */
async function setTrackerEnv(number: string, patch: Partial<Env>): Promise<void> {
  await runInDurableObject(trackerStub(SCAC, number), async (instance: Tracker) => {
    const self = instance as unknown as { env: Env };
    self.env = { ...self.env, ...patch };
  });
}

/** Two accounts, one per shard, tracking the same BL (one box) with webhooks; the Tracker's queue records. */
async function twoShardBox() {
  const number = nextBox();
  const bl = `SHARDBL-${number}`;
  const at = (days: number) => iso(FUTURE_T0 + days * DAY_MS);
  const j = {
    loaded: milestone("container.transport.vessel_loaded", at(-3), POL, { id: `${number}/loaded` }),
    departed: milestone("container.transport.vessel_departed", at(-2), POL, { id: `${number}/departed` }),
    arrived: milestone("container.transport.vessel_arrived", at(1), POD, { id: `${number}/arrived` }),
    discharged: milestone("container.transport.vessel_discharged", at(1.2), POD, { id: `${number}/discharged` }),
  };
  const state = { milestones: [j.loaded, j.departed] as Milestone[], refuse: false };
  const found = (): LookupResult =>
    state.refuse
      ? { kind: "temporary_failure", reason: "shipping_line_credentials_rejected" }
      : {
          kind: "found",
          shipment: shipmentFacts([containerFacts(number, state.milestones)], { billOfLadingNumber: bl }),
        };
  const sources: SourceRegistry = registryOf([new FakeCarrier(SCAC, found)]);
  const clock = new FakeClock(FUTURE_T0);
  const deliveries: RecordingQueue<WebhookDeliveryMessage> = recordingQueue();
  await setTrackerEnv(number, { WEBHOOK_DELIVERIES_QUEUE: deliveries });
  const a = await createAccountOnShard(0, "Shard Zero");
  const b = await createAccountOnShard(1, "Shard One");
  const hookA = await insertWebhookOn(0, a);
  const hookB = await insertWebhookOn(1, b);
  const trackingEnv = { ...env, TRACKING_REQUESTS_QUEUE: recordingQueue(), WEBHOOK_DELIVERIES_QUEUE: deliveries };
  const requestA = await insertRequestOn(0, a, bl, clock.now());
  const requestB = await insertRequestOn(1, b, bl, clock.now());
  for (const [account, requestId] of [
    [a, requestA],
    [b, requestB],
  ] as const) {
    await processTrackingRequest(
      { env: trackingEnv, clock, sources },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
  }
  const containerA = await containerOf(0, requestA);
  const containerB = await containerOf(1, requestB);
  const poll = () => pollBox({ env, clock, sources }, { scac: SCAC, number });
  return { number, j, state, clock, deliveries, a, b, hookA, hookB, requestA, requestB, containerA, containerB, poll };
}

describe("one box, two accounts on two shards", () => {
  it("each shard gets exactly its account's rows; an update is one batch per shard; both accounts' webhooks are delivered", async () => {
    const box = await twoShardBox();
    const { a, b } = box;
    expect(
      await count(1, "SELECT COUNT(*) AS n FROM tracking_requests WHERE id = ?1 AND status = 'created'", box.requestB),
    ).toBe(1);
    // The shared box is polled from the primary's tracked_equipment, once; the shard keeps a copy for its FK only.
    expect(
      await count(0, "SELECT COUNT(*) AS n FROM tracked_equipment WHERE scac = ?1 AND number = ?2", SCAC, box.number),
    ).toBe(1);

    // An unchanged poll: one batch per shard (the primary's carries the tracked_equipment row).
    const counters: Record<string, D1Counter> = {
      DB: { batches: 0, statements: 0 },
      DB_1: { batches: 0, statements: 0 },
    };
    await setTrackerEnv(box.number, {
      DB: countingD1(env.DB, counters.DB as D1Counter),
      DB_1: countingD1(env.DB_1 as D1Database, counters.DB_1 as D1Counter),
    });
    box.clock.advance(6 * HOUR_MS);
    await box.poll();
    expect(counters.DB?.batches).toBe(1);
    expect(counters.DB_1?.batches).toBe(1);
    expect(counters.DB_1?.statements).toBe(2); // the container row and the shipment row; no tracked_equipment

    // A changed poll: per shard, one read of what the notifications need and one batch of writes.
    for (const c of Object.values(counters)) Object.assign(c, { batches: 0, statements: 0 });
    box.state.milestones = [box.j.loaded, box.j.departed, box.j.arrived, box.j.discharged];
    box.clock.set(FUTURE_T0 + 1.5 * DAY_MS);
    await box.poll();
    expect(counters.DB?.batches).toBe(2);
    expect(counters.DB_1?.batches).toBe(2);

    // Each shard has its own account's rows and none of the other's.
    for (const table of ACCOUNT_TABLES) {
      expect(await rowsOf(0, table, a.accountId), `${table} of A on shard 0`).toBeGreaterThan(0);
      expect(await rowsOf(1, table, b.accountId), `${table} of B on shard 1`).toBeGreaterThan(0);
      expect(await rowsOf(1, table, a.accountId), `${table} of A on shard 1`).toBe(0);
      expect(await rowsOf(0, table, b.accountId), `${table} of B on shard 0`).toBe(0);
    }
    // The same events on both rows.
    const eventsOf = async (shard: number, containerId: string) =>
      (
        await d1Of(shard)
          .prepare("SELECT event, timestamp FROM transport_events WHERE container_id = ?1 ORDER BY timestamp, event")
          .bind(containerId)
          .all<{ event: string; timestamp: string }>()
      ).results;
    const eventsA = await eventsOf(0, box.containerA);
    expect(eventsA.map((e) => e.event)).toContain("container.transport.vessel_discharged");
    expect(await eventsOf(1, box.containerB)).toEqual(eventsA);

    // Every notification message names its shard; delivering them reaches both accounts' receivers.
    const messages = box.deliveries.sent.map((m) => m.body);
    expect(new Set(messages.map((m) => m.shard))).toEqual(new Set([0, 1]));
    const receiver = new RecordingReceiver();
    const { batch } = recordingBatch<WebhookDeliveryMessage>("webhook-deliveries", messages);
    await consumeWebhookDeliveries(batch, env, { fetch: receiver.fetch, clock: box.clock });
    for (const [shard, hook] of [
      [0, box.hookA],
      [1, box.hookB],
    ] as const) {
      const { results } = await d1Of(shard)
        .prepare("SELECT id, event, delivery_status FROM webhook_notifications WHERE webhook_id = ?1")
        .bind(hook)
        .all<{ id: string; event: string; delivery_status: string }>();
      expect(results.map((r) => r.event)).toEqual(
        expect.arrayContaining(["container.created", "container.transport.vessel_discharged"]),
      );
      for (const r of results) {
        expect(r.delivery_status, `${r.event} on shard ${shard}`).toBe("succeeded");
        expect(receiver.acknowledged.get(r.id)).toBe(1);
      }
    }
    expect(receiver.requests.map((r) => new URL(r.url).pathname).sort()).toContain("/1");
  });

  it("a message without its shard is found in the shard that holds the notification", async () => {
    const box = await twoShardBox();
    const onShard1 = box.deliveries.sent.map((m) => m.body).filter((m) => m.shard === 1);
    expect(onShard1.length).toBeGreaterThan(0);
    const receiver = new RecordingReceiver();
    const bare = onShard1.map((m) => ({ notificationId: m.notificationId }));
    const { batch, acked } = recordingBatch<WebhookDeliveryMessage>("webhook-deliveries", bare);
    await consumeWebhookDeliveries(batch, env, { fetch: receiver.fetch, clock: box.clock });
    expect(acked).toHaveLength(bare.length);
    for (const m of bare) {
      expect(receiver.acknowledged.get(m.notificationId)).toBe(1);
      expect(
        await count(
          1,
          "SELECT COUNT(*) AS n FROM webhook_notifications WHERE id = ?1 AND delivery_status = 'succeeded'",
          m.notificationId,
        ),
      ).toBe(1);
    }
  });

  it("one shard's batch failing fails the update; the retry completes it and the shard that committed gets nothing twice", async () => {
    const box = await twoShardBox();
    let calls = 0;
    const failing = env.DB_1 as D1Database;
    const flaky = {
      prepare: (q: string) => failing.prepare(q),
      batch: (statements: D1PreparedStatement[]) => {
        // The update's second round trip on shard 1 is its batch of writes (the first reads the webhooks' rows).
        if (++calls === 2) return Promise.reject(new Error("D1_ERROR: shard 1 unavailable"));
        return failing.batch(statements);
      },
      exec: (q: string) => failing.exec(q),
      dump: () => failing.dump(),
      withSession: (c?: string) => failing.withSession(c),
    } as D1Database;
    box.state.milestones = [box.j.loaded, box.j.departed, box.j.arrived];
    box.clock.set(FUTURE_T0 + 1.1 * DAY_MS);
    const before = await trackerStub(SCAC, box.number).currentState();
    // Shard 1's next batch of writes fails, once.
    await setTrackerEnv(box.number, { DB_1: flaky });
    await expect(box.poll()).rejects.toThrow(/shard 1 unavailable/);
    const arrivedOf = (shard: number, containerId: string) =>
      count(
        shard,
        "SELECT COUNT(*) AS n FROM transport_events WHERE container_id = ?1 AND event = 'container.transport.vessel_arrived'",
        containerId,
      );
    // Shard 0 committed, shard 1 did not; the Tracker kept its state (the update will be retried).
    expect(await arrivedOf(0, box.containerA)).toBe(1);
    expect(await arrivedOf(1, box.containerB)).toBe(0);
    expect((await trackerStub(SCAC, box.number).currentState())?.state).toEqual(before?.state);
    const notificationsA = await rowsOf(0, "webhook_notifications", box.a.accountId);
    const rawA = await rowsOf(0, "raw_events", box.a.accountId);

    // The retry (the poll's message again, a minute later) writes shard 1 and nothing new on shard 0.
    box.clock.advance(60_000);
    await box.poll();
    expect(await arrivedOf(1, box.containerB)).toBe(1);
    expect(await arrivedOf(0, box.containerA)).toBe(1);
    expect(await rowsOf(0, "raw_events", box.a.accountId)).toBe(rawA);
    const transportNotices = (shard: number, accountId: string) =>
      count(
        shard,
        "SELECT COUNT(*) AS n FROM webhook_notifications WHERE account_id = ?1 AND event = 'container.transport.vessel_arrived'",
        accountId,
      );
    expect(await transportNotices(0, box.a.accountId)).toBe(1);
    expect(await transportNotices(1, box.b.accountId)).toBe(1);
    // Nor any other notification on shard 0 (a `container.updated` changeset, whose id is keyed by the update's time,
    // could be recorded again by a retry at another time: docs/SCALING.md §How the pipeline uses shards; this arrival has none).
    expect(await rowsOf(0, "webhook_notifications", box.a.accountId)).toBe(notificationsA);
    const [rowA, rowB] = [
      await d1Of(0)
        .prepare("SELECT current_status, pod_arrived_at FROM containers WHERE id = ?1")
        .bind(box.containerA)
        .first(),
      await d1Of(1)
        .prepare("SELECT current_status, pod_arrived_at FROM containers WHERE id = ?1")
        .bind(box.containerB)
        .first(),
    ];
    expect(rowB).toEqual(rowA);
  });

  it("a source outage is told to each account in its own shard, started and resolved once", async () => {
    const box = await twoShardBox();
    const noticesOf = (shard: number, accountId: string, event: string) =>
      count(
        shard,
        "SELECT COUNT(*) AS n FROM webhook_notifications WHERE account_id = ?1 AND event = ?2",
        accountId,
        event,
      );
    box.state.refuse = true;
    box.clock.advance(6 * HOUR_MS);
    box.deliveries.sent.length = 0;
    await box.poll();
    expect(await noticesOf(0, box.a.accountId, "source_outage.started")).toBe(1);
    expect(await noticesOf(1, box.b.accountId, "source_outage.started")).toBe(1);
    expect(await noticesOf(0, box.b.accountId, "source_outage.started")).toBe(0);
    expect(await noticesOf(1, box.a.accountId, "source_outage.started")).toBe(0);
    // The outage and the accounts it told are in the primary.
    expect(
      await count(
        0,
        "SELECT COUNT(*) AS n FROM source_outage_accounts WHERE account_id IN (?1, ?2)",
        box.a.accountId,
        box.b.accountId,
      ),
    ).toBe(2);
    expect(box.deliveries.sent.map((m) => m.body.shard).sort()).toEqual([0, 1]);
    // Still refusing: nothing new. Answering again: resolved once in each shard.
    box.clock.advance(HOUR_MS);
    await box.poll();
    expect(await noticesOf(1, box.b.accountId, "source_outage.started")).toBe(1);
    box.state.refuse = false;
    box.clock.advance(HOUR_MS);
    await box.poll();
    expect(await noticesOf(0, box.a.accountId, "source_outage.resolved")).toBe(1);
    expect(await noticesOf(1, box.b.accountId, "source_outage.resolved")).toBe(1);
    expect(await noticesOf(0, box.b.accountId, "source_outage.resolved")).toBe(0);
  });
});
