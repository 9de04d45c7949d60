import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { LOST_LOOKUP_GRACE_S, runMaintenance } from "../../src/tracking/maintenance";
import { pollBox } from "../../src/tracking/poll-consumer";
import type { SourceRegistry } from "../../src/tracking/sources";
import type { Milestone } from "../../src/tracking/sources/types";
import type { Tracker } from "../../src/tracking/tracker";
import type { TrackingRequestMessage } from "../../src/tracking-requests/queue-message";
import { createAccount, type TestAccount } from "../helpers/api";
import {
  boxNumbers,
  containersOfShipment,
  envWithQueue,
  FakeCarrier,
  FUTURE_T0,
  insertRequest,
  type RecordingQueue,
  recordingQueue,
  registryOf,
  requestRow,
  trackerStub,
} from "../helpers/engine";
import { containerFacts, DAY_MS, HOUR_MS, iso, MINUTE_MS, milestone, shipmentFacts } from "../helpers/facts";

// The every-minute repair job (docs/architecture.md §Cron, docs/decisions.md §Tracking requests): stop finished
// shipments, expire requests awaiting their manifest for more than 7 days, re-queue lost lookups, re-arm lost alarms.
// runMaintenance scans the whole (per-file) database, so each test checks only its own rows.

const SCAC = "FAKM";
const POD = "USLAX";

const nextBox = boxNumbers("FAKU", 700_000);

/** A shipment of `boxes` (number → milestones) tracked for `account` at `clock`, each box polled once at `clock`. */
async function trackShipment(
  account: TestAccount,
  boxes: Record<string, Milestone[]>,
  clock: FakeClock,
): Promise<{ requestId: string; shipmentId: string; sources: SourceRegistry }> {
  const bl = `MAINT-${Object.keys(boxes).join("-")}`;
  const carrier = new FakeCarrier(SCAC, () => ({
    kind: "found",
    shipment: shipmentFacts(
      Object.entries(boxes).map(([number, m]) => containerFacts(number, m)),
      { billOfLadingNumber: bl },
    ),
  }));
  const sources = registryOf([carrier]);
  const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  for (const number of Object.keys(boxes)) await pollBox({ env, clock, sources }, { scac: SCAC, number });
  const row = await requestRow(requestId);
  expect(row.status).toBe("created");
  return { requestId, shipmentId: row.shipment_id ?? "", sources };
}

async function shipmentRow(id: string) {
  return env.DB.prepare(
    "SELECT line_tracking_stopped_at, line_tracking_stopped_reason, pod_ata_at FROM shipments WHERE id = ?1",
  )
    .bind(id)
    .first<{ line_tracking_stopped_at: string | null; line_tracking_stopped_reason: string | null }>();
}

/** A box's milestones up to `until` (days after `t0`): loaded, arrived/discharged, full out, empty in. */
function path(t0: number, until: "on_ship" | "discharged" | "picked_up" | "empty_returned"): Milestone[] {
  const at = (days: number) => iso(t0 + days * DAY_MS);
  const steps: [string, Milestone[]][] = [
    ["on_ship", [milestone("container.transport.vessel_loaded", at(-20), "CNYTN")]],
    [
      "discharged",
      [
        milestone("container.transport.vessel_arrived", at(-5), POD),
        milestone("container.transport.vessel_discharged", at(-4.9), POD),
      ],
    ],
    ["picked_up", [milestone("container.transport.full_out", at(-3), POD)]],
    ["empty_returned", [milestone("container.transport.empty_in", at(-1), POD)]],
  ];
  const out: Milestone[] = [];
  for (const [name, m] of steps) {
    out.push(...m);
    if (name === until) break;
  }
  return out;
}

function maintenanceEnv() {
  const queue: RecordingQueue<TrackingRequestMessage> = recordingQueue();
  return { env: envWithQueue(queue), queue };
}

describe("runMaintenance: stopping tracking", () => {
  it("stops a shipment whose containers all returned empty (all_containers_terminated), not one with a box still out", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const [a1, a2, b1, b2] = [nextBox(), nextBox(), nextBox(), nextBox()];
    const done = await trackShipment(
      account,
      { [a1]: path(FUTURE_T0, "empty_returned"), [a2]: path(FUTURE_T0, "empty_returned") },
      clock,
    );
    const open = await trackShipment(
      account,
      { [b1]: path(FUTURE_T0, "empty_returned"), [b2]: path(FUTURE_T0, "picked_up") },
      clock,
    );
    expect((await containersOfShipment(done.shipmentId)).map((c) => c.current_status)).toEqual([
      "empty_returned",
      "empty_returned",
    ]);

    clock.advance(MINUTE_MS);
    const { env: maintenance } = maintenanceEnv();
    const report = await runMaintenance(maintenance, clock);
    expect(report.shipmentsStopped).toBeGreaterThanOrEqual(1);
    expect(await shipmentRow(done.shipmentId)).toMatchObject({
      line_tracking_stopped_at: iso(clock.now()),
      line_tracking_stopped_reason: "all_containers_terminated",
    });
    expect((await requestRow(done.requestId)).status).toBe("tracking_stopped");
    for (const number of [a1, a2]) {
      expect(await trackerStub(SCAC, number).currentState()).toMatchObject({ stopped: true, subscriptions: [] });
    }
    // The shipment with a box not yet returned keeps being tracked.
    expect(await shipmentRow(open.shipmentId)).toMatchObject({ line_tracking_stopped_at: null });
    expect((await requestRow(open.requestId)).status).toBe("created");
    expect((await trackerStub(SCAC, b2).currentState())?.stopped).toBe(false);

    // Idempotent: a later run changes nothing about it.
    const stoppedAt = (await shipmentRow(done.shipmentId))?.line_tracking_stopped_at;
    clock.advance(MINUTE_MS);
    await runMaintenance(maintenance, clock);
    expect((await shipmentRow(done.shipmentId))?.line_tracking_stopped_at).toBe(stoppedAt);
  });

  it("stops a shipment 56 days after arrival with a box never picked up (past_arrival_window)", async () => {
    const account = await createAccount();
    const arrivedAt = FUTURE_T0 - 57 * DAY_MS;
    const clock = new FakeClock(FUTURE_T0 - HOUR_MS);
    const box = nextBox();
    const { shipmentId, requestId } = await trackShipment(
      account,
      { [box]: path(arrivedAt + 5 * DAY_MS, "discharged") },
      clock,
    );
    clock.set(FUTURE_T0);
    await runMaintenance(maintenanceEnv().env, clock);
    expect(await shipmentRow(shipmentId)).toMatchObject({ line_tracking_stopped_reason: "past_arrival_window" });
    expect((await requestRow(requestId)).status).toBe("tracking_stopped");
  });

  it("stops a shipment without any update for 56 days (no_updates_at_line)", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0 - 57 * DAY_MS);
    const box = nextBox();
    const { shipmentId } = await trackShipment(account, { [box]: path(clock.now() + 10 * DAY_MS, "on_ship") }, clock);
    clock.set(FUTURE_T0);
    await runMaintenance(maintenanceEnv().env, clock);
    expect(await shipmentRow(shipmentId)).toMatchObject({ line_tracking_stopped_reason: "no_updates_at_line" });
    expect((await trackerStub(SCAC, box).currentState())?.stopped).toBe(true);
  });
});

describe("runMaintenance: tracking requests", () => {
  it("expires requests awaiting their manifest for more than 7 days; younger ones stay", async () => {
    const account = await createAccount();
    const now = FUTURE_T0;
    const old = await insertRequest(account, {
      number: "OLD-MANIFEST",
      scac: SCAC,
      status: "awaiting_manifest",
      createdAtMs: now - 7 * DAY_MS - MINUTE_MS,
      nextAttemptAtMs: now + HOUR_MS,
    });
    const young = await insertRequest(account, {
      number: "YOUNG-MANIFEST",
      scac: SCAC,
      status: "awaiting_manifest",
      createdAtMs: now - 6 * DAY_MS,
      nextAttemptAtMs: now + HOUR_MS,
    });
    const report = await runMaintenance(maintenanceEnv().env, new FakeClock(now));
    expect(report.requestsExpired).toBeGreaterThanOrEqual(1);
    expect(await requestRow(old)).toMatchObject({ status: "failed", failed_reason: "expired", is_retrying: 0 });
    expect(await requestRow(young)).toMatchObject({ status: "awaiting_manifest", failed_reason: null });
  });

  it("re-queues pending and awaiting requests whose next lookup is overdue, once, and leaves the others", async () => {
    const account = await createAccount();
    const now = FUTURE_T0;
    const insert = (number: string, status: string, nextAttemptAtMs: number | null, updatedAtMs = now) =>
      insertRequest(account, { number, scac: SCAC, status, createdAtMs: now - DAY_MS, nextAttemptAtMs, updatedAtMs });
    const grace = LOST_LOOKUP_GRACE_S * 1000;
    const overdue = await insert("OVERDUE", "pending", now - grace - 1000);
    const lostFirst = await insert("NEVER-TRIED", "pending", null, now - grace - 1000);
    const awaiting = await insert("AWAITING", "awaiting_manifest", now - HOUR_MS);
    const notYet = await insert("NOT-YET", "pending", now + 5 * MINUTE_MS);
    const justDue = await insert("JUST-DUE", "pending", now - grace);
    const justSent = await insert("JUST-SENT", "pending", null, now - grace);
    const failed = await insert("FAILED", "failed", now - DAY_MS);

    const { env: maintenance, queue } = maintenanceEnv();
    const report = await runMaintenance(maintenance, new FakeClock(now));
    const mine = queue.sent.filter((m) => m.body.accountId === account.accountId).map((m) => m.body.trackingRequestId);
    expect(mine.sort()).toEqual([overdue, lostFirst, awaiting].sort());
    expect(report.requestsRequeued).toBeGreaterThanOrEqual(3);
    // Due now: the message just sent finds them due; the next run re-queues them only if it is lost too.
    for (const id of [overdue, lostFirst, awaiting]) expect((await requestRow(id)).next_attempt_at).toBe(iso(now));
    expect((await requestRow(notYet)).next_attempt_at).toBe(iso(now + 5 * MINUTE_MS));
    expect((await requestRow(justDue)).next_attempt_at).toBe(iso(now - grace));
    expect((await requestRow(justSent)).next_attempt_at).toBeNull();
    expect((await requestRow(failed)).status).toBe("failed");

    // The next run (a minute later) does not send them again: they have been due for less than the grace.
    const again = maintenanceEnv();
    await runMaintenance(again.env, new FakeClock(now + grace));
    const resent = again.queue.sent.filter((m) => m.body.accountId === account.accountId).map((m) => m.body);
    expect(resent.map((m) => m.trackingRequestId).sort()).toEqual([justDue, justSent].sort());
  });

  it("after a crash, a lookup in flight and a lost message resume within 3 minutes, and no lookup runs twice", async () => {
    const account = await createAccount();
    const t0 = FUTURE_T0;
    const inFlight = await insertRequest(account, {
      number: "CRASH-IN-FLIGHT",
      scac: SCAC,
      requestType: "container",
      createdAtMs: t0,
    });
    const lost = await insertRequest(account, {
      number: "CRASH-LOST",
      scac: SCAC,
      requestType: "container",
      createdAtMs: t0,
    });
    // The consumer takes `inFlight` and its carrier never answers: the process dies with the lookup in flight. The
    // message of `lost` was still on the queue and died with it.
    const hung = new FakeCarrier(SCAC, () => new Promise<never>(() => {}));
    const abandoned = processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock: new FakeClock(t0), sources: registryOf([hung]) },
      { trackingRequestId: inFlight, accountId: account.accountId },
    );
    await vi.waitUntil(() => hung.calls.length === 1);
    void abandoned;

    // After the restart: a redelivered copy of the in-flight message does not look it up a second time.
    const carrier = new FakeCarrier(SCAC, () => ({ kind: "not_found" }));
    const process = (id: string, atMs: number) =>
      processTrackingRequest(
        { env: envWithQueue(recordingQueue()), clock: new FakeClock(atMs), sources: registryOf([carrier]) },
        { trackingRequestId: id, accountId: account.accountId },
      );
    await process(inFlight, t0 + 10_000);
    expect(carrier.calls).toHaveLength(0);
    expect((await requestRow(inFlight)).status).toBe("pending");

    // The every-minute cron: each request is re-queued once, within 3 minutes, and then looked up once.
    const requeuedAt = new Map<string, number>();
    for (let minute = 1; minute <= 3; minute++) {
      const atMs = t0 + minute * MINUTE_MS;
      const run = maintenanceEnv();
      await runMaintenance(run.env, new FakeClock(atMs));
      for (const m of run.queue.sent) {
        const id = m.body.trackingRequestId;
        if (id !== inFlight && id !== lost) continue;
        expect(requeuedAt.has(id), `${id} re-queued twice`).toBe(false);
        requeuedAt.set(id, atMs);
        await process(id, atMs);
      }
    }
    expect([...requeuedAt.keys()].sort()).toEqual([inFlight, lost].sort());
    for (const id of [inFlight, lost]) {
      expect((requeuedAt.get(id) ?? Number.POSITIVE_INFINITY) - t0).toBeLessThanOrEqual(3 * MINUTE_MS);
      expect(await requestRow(id)).toMatchObject({ status: "failed", failed_reason: "not_found" });
    }
    expect(carrier.calls.map((c) => c.number).sort()).toEqual(["CRASH-IN-FLIGHT", "CRASH-LOST"]);
  });
});

describe("a tracking request's lookup hold (issue 23 §3)", () => {
  it("a lookup that throws gives its hold back, so the message's retry 30 s later looks it up", async () => {
    const account = await createAccount();
    const t0 = FUTURE_T0;
    const id = await insertRequest(account, {
      number: "THROWS-ONCE",
      scac: SCAC,
      requestType: "container",
      createdAtMs: t0,
    });
    let fail = true;
    const carrier = new FakeCarrier(SCAC, () => {
      if (fail) throw new Error("D1 went away mid-lookup");
      return { kind: "not_found" };
    });
    const process = (atMs: number) =>
      processTrackingRequest(
        { env: envWithQueue(recordingQueue()), clock: new FakeClock(atMs), sources: registryOf([carrier]) },
        { trackingRequestId: id, accountId: account.accountId },
      );
    await expect(process(t0)).rejects.toThrow("D1 went away");
    // Due again from the moment the hold was taken, not held for LOOKUP_HOLD_S.
    expect((await requestRow(id)).next_attempt_at).toBe(iso(t0));
    fail = false;
    await process(t0 + 30_000);
    expect(carrier.calls).toHaveLength(2);
    expect(await requestRow(id)).toMatchObject({ status: "failed", failed_reason: "not_found" });
  });
});

describe("runMaintenance: lost alarms", () => {
  it("re-arms the alarm of a box whose poll is overdue", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const box = nextBox();
    await trackShipment(account, { [box]: path(FUTURE_T0 + 30 * DAY_MS, "on_ship") }, clock);
    const stub = trackerStub(SCAC, box);
    const nextPollAt = Date.parse((await stub.currentState())?.nextPollAt ?? "");
    expect(nextPollAt).toBe(FUTURE_T0 + 12 * HOUR_MS);
    await runInDurableObject(stub, (_i: Tracker, state) => state.storage.deleteAlarm());

    const later = new FakeClock(nextPollAt + 5 * MINUTE_MS);
    const report = await runMaintenance(maintenanceEnv().env, later);
    expect(report.alarmsRearmed).toBeGreaterThanOrEqual(1);
    expect(await runInDurableObject(stub, (_i: Tracker, state) => state.storage.getAlarm())).toBe(later.now());
  });
});
