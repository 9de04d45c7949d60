import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { accountShard } from "../../src/db/shards";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { countingD1, type D1Counter } from "../../src/tracking/bench-d1";
import { consumeTrackingRequests, LOOKUP_CONCURRENCY, processTrackingRequests } from "../../src/tracking/consumers";
import { claimLookups, LOOKUP_HOLD_S } from "../../src/tracking/persist";
import type { TrackingRequestMessage } from "../../src/tracking-requests/queue-message";
import type { WebhookDeliveryMessage } from "../../src/webhooks/outbox";
import { createAccount, type TestAccount } from "../helpers/api";
import { FakeCarrier, FUTURE_T0, type RecordingQueue, recordingQueue, registryOf } from "../helpers/engine";
import { insertWebhook, notificationsOf } from "../helpers/receiver";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";

// A tracking-requests consumer batch (up to 10 messages, wrangler.toml) is handled together (issue 29 §4): one claim
// per shard, the lookups at once, the failures of a shard in one D1 batch with their notifications; each message still
// acks or retries on its own.

const SCAC = "FAKB";

beforeAll(async () => {
  await prepareSecondShard();
});

/** The D1 binding of shard `shard` in the test pool. */
function shardD1(shard: number): D1Database {
  const d1 = shard === 0 ? env.DB : env.DB_1;
  if (!d1) throw new Error(`no binding for shard ${shard}`);
  return d1;
}

/** A pending tracking request of `account` on `shard` (bill of lading, `scac`), created at `createdAtMs`. */
async function insertRequestOn(
  shard: number,
  account: TestAccount,
  number: string,
  options: { scac?: string; createdAtMs?: number; requestType?: string } = {},
): Promise<string> {
  const id = newId();
  const at = toIsoSeconds(options.createdAtMs ?? FUTURE_T0);
  await shardD1(shard)
    .prepare(
      `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac, line_scac,
         status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?5, 'pending', ?6, ?6)`,
    )
    .bind(id, account.accountId, options.requestType ?? "container", number, options.scac ?? SCAC, at)
    .run();
  return id;
}

/** A tracking request row of shard `shard`. */
async function rowOn(shard: number, id: string) {
  const row = await shardD1(shard)
    .prepare("SELECT status, failed_reason, next_attempt_at FROM tracking_requests WHERE id = ?1")
    .bind(id)
    .first<{ status: string; failed_reason: string | null; next_attempt_at: string | null }>();
  if (!row) throw new Error(`no tracking request ${id} on shard ${shard}`);
  return row;
}

/** `messages` delivered to the Worker's consumer as one batch, with `env` overrides; the ack/retry outcome. */
async function consume(messages: TrackingRequestMessage[], overrides: Partial<Env> = {}) {
  const batch = createMessageBatch<TrackingRequestMessage>(
    "tracking-requests",
    messages.map((body, i) => ({ id: `lookup-batch-${newId()}-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  await consumeTrackingRequests(batch, { ...env, ...overrides });
  const result = await getQueueResult(batch, createExecutionContext());
  const ids = batch.messages.map((m) => m.id);
  return {
    acked: result.explicitAcks.map((id) => ids.indexOf(id)).sort(),
    retried: result.retryMessages.map((r) => ids.indexOf(r.msgId)).sort(),
  };
}

/** A carrier that answers `not_found` for every number, or throws for the numbers in `throwsFor`. */
function notFoundCarrier(throwsFor: readonly string[] = []): FakeCarrier {
  return new FakeCarrier(SCAC, (request) => {
    if (throwsFor.includes(request.number)) throw new Error(`carrier exploded on ${request.number}`);
    return { kind: "not_found" };
  });
}

const message = (id: string, account: TestAccount): TrackingRequestMessage => ({
  trackingRequestId: id,
  accountId: account.accountId,
});

describe("a tracking-requests batch", () => {
  it("of two accounts on two shards: one claim and one failure write per shard, each request looked up once", async () => {
    const onPrimary = await createAccount();
    const onShard1 = await createAccountOnShard(1, "Batch shard 1");
    // Sandbox numbers (scac TEST): every one is a `not_found` failure, as in `npm run bench -- api`.
    const primaryIds = [
      await insertRequestOn(0, onPrimary, "BATCH-P-1", { scac: "TEST" }),
      await insertRequestOn(0, onPrimary, "BATCH-P-2", { scac: "TEST" }),
    ];
    const shard1Ids = [
      await insertRequestOn(1, onShard1, "BATCH-S-1", { scac: "TEST" }),
      await insertRequestOn(1, onShard1, "BATCH-S-2", { scac: "TEST" }),
      await insertRequestOn(1, onShard1, "BATCH-S-3", { scac: "TEST" }),
    ];
    // The accounts' shards are cached as after their first message, so the primary's count is the lookups' own.
    expect(await accountShard(env, onPrimary.accountId)).toBe(0);
    expect(await accountShard(env, onShard1.accountId)).toBe(1);
    const primary: D1Counter = { batches: 0, statements: 0, writes: {} };
    const shard1: D1Counter = { batches: 0, statements: 0, writes: {} };
    const messages = [
      message(shard1Ids[0] as string, onShard1),
      message(primaryIds[0] as string, onPrimary),
      message(shard1Ids[1] as string, onShard1),
      message(primaryIds[1] as string, onPrimary),
      message(shard1Ids[2] as string, onShard1),
    ];
    const outcome = await consume(messages, {
      DB: countingD1(env.DB, primary),
      DB_1: countingD1(shardD1(1), shard1),
    } as Partial<Env>);
    expect(outcome).toEqual({ acked: [0, 1, 2, 3, 4], retried: [] });
    for (const id of primaryIds)
      expect(await rowOn(0, id)).toMatchObject({ status: "failed", failed_reason: "not_found" });
    for (const id of shard1Ids)
      expect(await rowOn(1, id)).toMatchObject({ status: "failed", failed_reason: "not_found" });
    // Per shard: the claim (one UPDATE … RETURNING for all its requests), then the failures with the outbox guard.
    // One message at a time, that was two round trips per request.
    expect(primary.batches).toBe(2);
    expect(shard1.batches).toBe(2);
    expect(primary.writes?.["update tracking_requests"]).toEqual({ statements: 3, changes: 4 });
    expect(shard1.writes?.["update tracking_requests"]).toEqual({ statements: 4, changes: 6 });
    // The other shard's rows were not touched from the wrong database.
    for (const id of primaryIds)
      expect(await shardD1(1).prepare("SELECT 1 FROM tracking_requests WHERE id = ?1").bind(id).first()).toBeNull();
  });

  it("with the same message twice looks the request up once and acks both", async () => {
    const account = await createAccount();
    const twice = await insertRequestOn(0, account, "DUP-IN-BATCH");
    const once = await insertRequestOn(0, account, "ONCE-IN-BATCH");
    const carrier = notFoundCarrier();
    const clock = new FakeClock(FUTURE_T0);
    const outcomes = await processTrackingRequests({ env, clock, sources: registryOf([carrier]) }, [
      message(twice, account),
      message(once, account),
      message(twice, account),
    ]);
    expect(outcomes).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(carrier.calls.map((c) => c.number).sort()).toEqual(["DUP-IN-BATCH", "ONCE-IN-BATCH"]);
    expect(await rowOn(0, twice)).toMatchObject({ status: "failed", failed_reason: "not_found" });
  });

  it("a message naming a request of another account claims nothing and is acked", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const id = await insertRequestOn(0, owner, "NOT-YOURS");
    const carrier = notFoundCarrier();
    const outcomes = await processTrackingRequests(
      { env, clock: new FakeClock(FUTURE_T0), sources: registryOf([carrier]) },
      [message(id, other)],
    );
    expect(outcomes).toEqual([{ ok: true }]);
    expect(carrier.calls).toEqual([]);
    expect(await rowOn(0, id)).toMatchObject({ status: "pending", next_attempt_at: null });
  });

  it("with one lookup throwing: only that message is retried, its hold given back; the others are written", async () => {
    const account = await createAccount();
    const first = await insertRequestOn(0, account, "THROW-BATCH-OK-1");
    const bad = await insertRequestOn(0, account, "THROW-BATCH-BAD");
    const last = await insertRequestOn(0, account, "THROW-BATCH-OK-2");
    const carrier = notFoundCarrier(["THROW-BATCH-BAD"]);
    const t0 = FUTURE_T0;
    const outcomes = await processTrackingRequests({ env, clock: new FakeClock(t0), sources: registryOf([carrier]) }, [
      message(first, account),
      message(bad, account),
      message(last, account),
    ]);
    expect(outcomes[0]).toEqual({ ok: true });
    expect(outcomes[1]?.ok).toBe(false);
    expect(String((outcomes[1] as { error: unknown }).error)).toMatch(/carrier exploded on THROW-BATCH-BAD/);
    expect(outcomes[2]).toEqual({ ok: true });
    expect(await rowOn(0, first)).toMatchObject({ status: "failed", failed_reason: "not_found" });
    expect(await rowOn(0, last)).toMatchObject({ status: "failed", failed_reason: "not_found" });
    // Due again from the moment the hold was taken, so the retry finds it.
    expect(await rowOn(0, bad)).toMatchObject({ status: "pending", next_attempt_at: toIsoSeconds(t0) });
  });

  it("whose joint failure write is refused writes the others one by one and retries only the refused one", async () => {
    const account = await createAccount();
    const ok = await insertRequestOn(0, account, "REFUSED-WRITE-OK");
    const refused = await insertRequestOn(0, account, "REFUSED-WRITE-BAD");
    // A real D1 error for one row only (a trigger), so the batch of failures as a whole is refused.
    await env.DB.prepare(
      `CREATE TRIGGER lookup_batch_refuse BEFORE UPDATE OF status ON tracking_requests
       WHEN NEW.id = '${refused}' AND NEW.status = 'failed' BEGIN SELECT RAISE(ABORT, 'refused by test'); END`,
    ).run();
    try {
      const t0 = FUTURE_T0;
      const outcomes = await processTrackingRequests(
        { env, clock: new FakeClock(t0), sources: registryOf([notFoundCarrier()]) },
        [message(refused, account), message(ok, account)],
      );
      expect(outcomes[0]).toMatchObject({ ok: false });
      expect(String((outcomes[0] as { error: unknown }).error)).toMatch(/refused by test/);
      expect(outcomes[1]).toEqual({ ok: true });
      expect(await rowOn(0, ok)).toMatchObject({ status: "failed", failed_reason: "not_found" });
      expect(await rowOn(0, refused)).toMatchObject({ status: "pending", next_attempt_at: toIsoSeconds(t0) });
    } finally {
      await env.DB.prepare("DROP TRIGGER lookup_batch_refuse").run();
    }
  });

  it("announces each failure once to a subscribed webhook, in one write with the other accounts' failures", async () => {
    const subscriber = await createAccount();
    const quiet = await createAccount();
    const hook = await insertWebhook(subscriber, { events: ["tracking_request.failed"] });
    const elsewhere = await insertWebhook(subscriber, { events: ["container.updated"] });
    const mine = [
      await insertRequestOn(0, subscriber, "HOOKED-1", { scac: "TEST" }),
      await insertRequestOn(0, subscriber, "HOOKED-2", { scac: "TEST" }),
      await insertRequestOn(0, subscriber, "HOOKED-3", { scac: "TEST" }),
    ];
    const theirs = await insertRequestOn(0, quiet, "UNHOOKED-1", { scac: "TEST" });
    const deliveries: RecordingQueue<WebhookDeliveryMessage> = recordingQueue();
    const messages = [
      message(mine[0] as string, subscriber),
      message(theirs, quiet),
      message(mine[1] as string, subscriber),
      message(mine[2] as string, subscriber),
    ];
    const first = await consume(messages, { WEBHOOK_DELIVERIES_QUEUE: deliveries });
    expect(first).toEqual({ acked: [0, 1, 2, 3], retried: [] });
    // The batch replayed (a redelivery after a crash): nothing is claimed again, nothing announced twice.
    const again = await consume(messages, { WEBHOOK_DELIVERIES_QUEUE: deliveries });
    expect(again).toEqual({ acked: [0, 1, 2, 3], retried: [] });

    const rows = await notificationsOf(hook.id);
    expect(rows.map((n) => [n.event, n.reference_object_id]).sort()).toEqual(
      mine.map((id) => ["tracking_request.failed", id]).sort(),
    );
    expect(deliveries.sent.map((m) => m.body).sort((a, b) => a.notificationId.localeCompare(b.notificationId))).toEqual(
      rows
        .map((n) => ({ notificationId: n.id, shard: 0 }))
        .sort((a, b) => a.notificationId.localeCompare(b.notificationId)),
    );
    expect(await notificationsOf(elsewhere.id)).toEqual([]);
    const payload = JSON.parse(rows[0]?.payload ?? "{}");
    expect(payload.data.attributes.event).toBe("tracking_request.failed");
    expect(await rowOn(0, theirs)).toMatchObject({ status: "failed", failed_reason: "not_found" });
  });

  it(`runs its lookups ${LOOKUP_CONCURRENCY} at a time, held for one LOOKUP_HOLD_S per wave`, async () => {
    const account = await createAccount();
    const count = LOOKUP_CONCURRENCY + 1;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await insertRequestOn(0, account, `WAVE-${i}`));
    const t0 = FUTURE_T0;
    let inFlight = 0;
    let most = 0;
    const heldUntil = new Set<string | null>();
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const carrier = new FakeCarrier(SCAC, async (request) => {
      inFlight++;
      most = Math.max(most, inFlight);
      heldUntil.add((await rowOn(0, ids[Number(request.number.slice(5))] as string)).next_attempt_at);
      // The first wave waits until all of it is in flight: one lookup at a time would never open the gate.
      if (carrier.calls.length >= LOOKUP_CONCURRENCY) openGate();
      await gate;
      inFlight--;
      return { kind: "not_found" };
    });
    const outcomes = await processTrackingRequests(
      { env, clock: new FakeClock(t0), sources: registryOf([carrier]) },
      ids.map((id) => message(id, account)),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(most).toBe(LOOKUP_CONCURRENCY);
    // Two waves: every request of the batch is held until the second one has had its LOOKUP_HOLD_S.
    expect([...heldUntil]).toEqual([toIsoSeconds(t0 + 2 * LOOKUP_HOLD_S * 1000)]);
    for (const id of ids) expect(await rowOn(0, id)).toMatchObject({ status: "failed", failed_reason: "not_found" });
  });
});

describe("claimLookups", () => {
  it("finds a batch's requests by id, not by reading the account's other due requests", async () => {
    const account = await createAccount();
    const backlog: string[] = [];
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < 300; i++) {
      const id = newId();
      backlog.push(id);
      statements.push(
        env.DB.prepare(
          `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac,
             line_scac, status, created_at, updated_at) VALUES (?1, ?2, 'container', ?3, ?3, ?4, ?4, 'pending', ?5, ?5)`,
        ).bind(id, account.accountId, `BACKLOG-${i}`, SCAC, toIsoSeconds(FUTURE_T0)),
      );
    }
    await env.DB.batch(statements);
    const counter: D1Counter = { batches: 0, statements: 0 };
    const db = createDatabase(countingD1(env.DB, counter));
    const wanted = backlog.slice(0, 10).map((id) => ({ trackingRequestId: id, accountId: account.accountId }));
    const holds = await claimLookups(db, wanted, FUTURE_T0);
    expect(holds.map((h) => h.request.id).sort()).toEqual(wanted.map((w) => w.trackingRequestId).sort());
    expect(holds.every((h) => h.heldUntil === toIsoSeconds(FUTURE_T0 + LOOKUP_HOLD_S * 1000))).toBe(true);
    expect(counter.batches).toBe(1);
    // 10 rows by primary key (and what their UPDATE's indexes read); a scan would read the 300.
    expect(counter.rowsRead).toBeLessThan(60);
    // Held now: a second claim of the same requests takes none.
    expect(await claimLookups(db, wanted, FUTURE_T0 + 1000)).toEqual([]);
  });
});
