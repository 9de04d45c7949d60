import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/lib/clock";
import { processTrackingRequest } from "../../../src/tracking/consumers";
import { pollBox } from "../../../src/tracking/poll-consumer";
import {
  SANDBOX_CONTAINER_NUMBERS,
  SANDBOX_LIFECYCLE_CONTAINER_NUMBERS,
  SANDBOX_UNREACHABLE_ATTEMPTS,
} from "../../../src/tracking/sources/sandbox";
import type { TrackingRequestMessage } from "../../../src/tracking-requests/queue-message";
import { apiJson, createAccount, type TestAccount } from "../../helpers/api";
import {
  containersOfShipment,
  envWithQueue,
  FUTURE_T0,
  insertRequest,
  type RecordingQueue,
  recordingQueue,
  requestRow,
  trackerStub,
  transportEventsOf,
} from "../../helpers/engine";
import { iso } from "../../helpers/facts";
import { deliverTrackingMessages, type One } from "../../helpers/tracking";

// Every sandbox number of docs/decisions.md §Sandbox through the real tracking-request consumer (processTrackingRequest
// with the environment's own sources), then TEST-LIFECYCLE's journey through the real poll consumer (pollBox), on a
// FakeClock. Requests are written straight into D1 and their queue producer is a recorder, so nothing runs behind
// the test's back; the clock starts years ahead of the real one, so no Tracker alarm fires during the test.

type Queue = RecordingQueue<TrackingRequestMessage>;

/** Inserts a TEST request at `clock` and returns the message that would look it up. */
async function request(
  account: TestAccount,
  number: string,
  clock: FakeClock,
  requestType = "bill_of_lading",
): Promise<TrackingRequestMessage> {
  const id = await insertRequest(account, { number, requestType, createdAtMs: clock.now() });
  return { trackingRequestId: id, accountId: account.accountId };
}

/** Runs one lookup of `message` through the consumer with the environment's sources. */
function lookup(message: TrackingRequestMessage, clock: FakeClock, queue: Queue) {
  return processTrackingRequest({ env: envWithQueue(queue), clock }, message);
}

/** The request as the API serialises it. */
async function served(account: TestAccount, id: string) {
  const { res, json } = await apiJson<One>(`/tracking_requests/${id}`, { key: account.key });
  expect(res.status).toBe(200);
  return json.data;
}

describe("sandbox numbers through the tracking-request consumer", () => {
  it("TEST-TR-SUCCEEDED → created, a shipment of two containers tracked on the water", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const queue: Queue = recordingQueue();
    const message = await request(account, "TEST-TR-SUCCEEDED", clock);
    await lookup(message, clock, queue);

    const row = await requestRow(message.trackingRequestId);
    expect(row).toMatchObject({ status: "created", failed_reason: null, is_retrying: 0 });
    expect(queue.sent).toEqual([]);
    const containers = await containersOfShipment(row.shipment_id ?? "");
    expect(containers.map((c) => c.number)).toEqual([...SANDBOX_CONTAINER_NUMBERS].sort());
    for (const c of containers) {
      expect(c).toMatchObject({ current_status: "on_ship", account_id: account.accountId, pod_locode: "USLAX" });
      const state = await trackerStub("TEST", c.number).currentState();
      expect(state?.subscriptions.map((s) => s.containerId)).toContain(c.id);
      expect(state?.nextPollAt).not.toBeNull();
    }
    const resource = await served(account, message.trackingRequestId);
    expect(resource.relationships?.tracked_object?.data).toEqual({ id: row.shipment_id, type: "shipment" });
  });

  it("TEST-TR-SUCCEEDED boxes show the transport events behind their timestamps, and the same vessel everywhere", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const message = await request(account, "TEST-TR-SUCCEEDED", clock);
    await lookup(message, clock, recordingQueue());
    const row = await requestRow(message.trackingRequestId);
    const { json: shipment } = await apiJson<One>(`/shipments/${row.shipment_id}`, { key: account.key });
    const s = shipment.data.attributes ?? {};
    for (const c of await containersOfShipment(row.shipment_id ?? "")) {
      const { res, json } = await apiJson<{ data: { attributes: Record<string, unknown> }[] }>(
        `/containers/${c.id}/transport_events`,
        { key: account.key },
      );
      expect(res.status).toBe(200);
      const events = json.data.map((e) => [
        e.attributes.event,
        e.attributes.timestamp,
        e.attributes.location_locode,
        e.attributes.voyage_number,
      ]);
      expect(events).toEqual([
        ["container.transport.empty_out", c.empty_out_at, "CNYTN", null],
        ["container.transport.full_in", c.pol_full_in_at, "CNYTN", null],
        ["container.transport.vessel_loaded", c.pol_vessel_loaded_at, "CNYTN", s.pod_voyage_number],
        ["container.transport.vessel_departed", c.pol_vessel_departed_at, "CNYTN", s.pod_voyage_number],
      ]);
      expect(events.every(([, at]) => typeof at === "string")).toBe(true);
      expect(c.pol_vessel_departed_at).toBe(s.pol_atd_at);
    }
  });

  it.each(["bill_of_lading", "container"])(
    "TEST-TR-FAILED (%s) → failed with not_found, no shipment, no retry",
    async (requestType) => {
      const account = await createAccount();
      const clock = new FakeClock(FUTURE_T0);
      const queue: Queue = recordingQueue();
      const message = await request(account, "TEST-TR-FAILED", clock, requestType);
      await lookup(message, clock, queue);
      expect(await requestRow(message.trackingRequestId)).toMatchObject({
        status: "failed",
        failed_reason: "not_found",
        is_retrying: 0,
        shipment_id: null,
      });
      expect(queue.sent).toEqual([]);
      const shipments = await env.DB.prepare("SELECT COUNT(*) AS n FROM shipments WHERE account_id = ?1")
        .bind(account.accountId)
        .first<{ n: number }>();
      expect(shipments?.n).toBe(0);
    },
  );

  it("TEST-TR-FAILED through the queue handler itself: acked, failed", async () => {
    const account = await createAccount();
    const message = await request(account, "TEST-TR-FAILED", new FakeClock(FUTURE_T0), "container");
    const result = await deliverTrackingMessages([message]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    expect((await served(account, message.trackingRequestId)).attributes).toMatchObject({
      status: "failed",
      failed_reason: "not_found",
      is_retrying: false,
    });
  });

  it("TEST-TR-AWAITING-MANIFEST → awaiting_manifest with a re-check queued, then created on that re-check", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const queue: Queue = recordingQueue();
    const message = await request(account, "TEST-TR-AWAITING-MANIFEST", clock);
    await lookup(message, clock, queue);

    // The sandbox re-checks on the simulation clock: 6 h / 1440 = 15 s.
    expect(await requestRow(message.trackingRequestId)).toMatchObject({
      status: "awaiting_manifest",
      failed_reason: null,
      is_retrying: 0,
      shipment_id: null,
      next_attempt_at: iso(FUTURE_T0 + 15_000),
    });
    expect(queue.sent).toEqual([{ body: message, delaySeconds: 15 }]);
    expect((await served(account, message.trackingRequestId)).attributes.status).toBe("awaiting_manifest");

    clock.advance(15_000);
    await lookup(message, clock, queue);
    const row = await requestRow(message.trackingRequestId);
    expect(row).toMatchObject({ status: "created", failed_reason: null, is_retrying: 0 });
    expect(await containersOfShipment(row.shipment_id ?? "")).toHaveLength(2);
    expect(queue.sent).toHaveLength(1);
  });

  it("TEST-TR-RETRYING → two unreachable attempts (pending, retrying, backoff), then created", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const queue: Queue = recordingQueue();
    const message = await request(account, "TEST-TR-RETRYING", clock);
    expect(SANDBOX_UNREACHABLE_ATTEMPTS).toBe(2);

    const seen: unknown[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      await lookup(message, clock, queue);
      const { attributes } = await served(account, message.trackingRequestId);
      seen.push([attributes.status, attributes.is_retrying, attributes.retry_count, attributes.failed_reason]);
      const row = await requestRow(message.trackingRequestId);
      const delay = queue.sent[attempt - 1]?.delaySeconds ?? 0;
      expect(row.next_attempt_at).toBe(iso(clock.now() + delay * 1000));
      clock.advance(delay * 1000);
    }
    expect(seen).toEqual([
      ["pending", true, 1, "shipping_line_unreachable"],
      ["pending", true, 2, "shipping_line_unreachable"],
    ]);
    // Exponential backoff: 1 min, then 2 min.
    expect(queue.sent).toEqual([
      { body: message, delaySeconds: 60 },
      { body: message, delaySeconds: 120 },
    ]);

    await lookup(message, clock, queue);
    const { attributes, relationships } = await served(account, message.trackingRequestId);
    expect(attributes).toMatchObject({ status: "created", is_retrying: false, failed_reason: null });
    expect(relationships?.tracked_object?.data).toMatchObject({ type: "shipment" });
    expect(queue.sent).toHaveLength(2);
  });

  it("a redelivered message for a request already created does nothing", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const queue: Queue = recordingQueue();
    const message = await request(account, "TEST-TR-SUCCEEDED", clock);
    await lookup(message, clock, queue);
    const before = await requestRow(message.trackingRequestId);
    clock.advance(60_000);
    await lookup(message, clock, queue);
    expect(await requestRow(message.trackingRequestId)).toEqual(before);
    expect(await containersOfShipment(before.shipment_id ?? "")).toHaveLength(2);
  });
});

describe("TEST-LIFECYCLE: the whole journey through the poll consumer", () => {
  /** One simulated day at the default SIMULATION_SPEED (1 simulated day per real minute). */
  const SIM_DAY_MS = 60_000;
  /** Polls every 0.1 simulated day, half a step off the journey's own times (all multiples of 0.1 day, or 0.27). */
  const STEP_MS = SIM_DAY_MS / 10;
  const LAST_DAY = 12;

  it("walks new → on_ship → grounded → not_available → available → picked_up → empty_returned with holds, LFD, fees and events", async () => {
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const queue: Queue = recordingQueue();
    const message = await request(account, "TEST-LIFECYCLE", clock);
    await lookup(message, clock, queue);
    const created = await requestRow(message.trackingRequestId);
    expect(created.status).toBe("created");
    const boxes = await containersOfShipment(created.shipment_id ?? "");
    expect(boxes.map((b) => b.number)).toEqual([...SANDBOX_LIFECYCLE_CONTAINER_NUMBERS].sort());

    const walks = new Map<string, string[]>(boxes.map((b) => [b.id, [b.current_status]]));
    const holdsSeen = new Map<string, string[]>(boxes.map((b) => [b.id, []]));
    const maxDemurrage = new Map<string, number>(boxes.map((b) => [b.id, 0]));
    const lfdAt = new Map<string, unknown>();
    for (let k = 0; k < LAST_DAY * 10; k++) {
      clock.set(FUTURE_T0 + (k + 0.5) * STEP_MS);
      for (const number of SANDBOX_LIFECYCLE_CONTAINER_NUMBERS) {
        const results = await pollBox({ env, clock }, { scac: "TEST", number });
        expect(results?.carrier?.kind).toBe("found");
      }
      for (const row of await containersOfShipment(created.shipment_id ?? "")) {
        const walk = walks.get(row.id) ?? [];
        if (walk.at(-1) !== row.current_status) walk.push(row.current_status);
        const holds = JSON.parse(row.holds_at_pod_terminal) as { name: string; status: string }[];
        const label = holds.map((h) => `${h.name}:${h.status}`).join(",") || "none";
        const seen = holdsSeen.get(row.id) ?? [];
        if (row.current_status !== "on_ship" && row.current_status !== "new" && seen.at(-1) !== label) seen.push(label);
        for (const fee of JSON.parse(row.fees_at_pod_terminal) as { type: string; amount: number }[]) {
          if (fee.type === "demurrage") maxDemurrage.set(row.id, Math.max(maxDemurrage.get(row.id) ?? 0, fee.amount));
        }
        if (row.pickup_lfd && !lfdAt.has(row.id)) lfdAt.set(row.id, row);
      }
    }

    for (const box of boxes) {
      expect(walks.get(box.id), box.number).toEqual([
        "new",
        "on_ship",
        "grounded",
        "not_available",
        "available",
        "picked_up",
        "empty_returned",
      ]);
      // The customs hold is placed at discharge and released a day later (removed, docs/api.md §Holds).
      expect(holdsSeen.get(box.id), box.number).toEqual(["customs:hold", "none"]);
      expect(maxDemurrage.get(box.id), box.number).toBeGreaterThan(0);
      const withLfd = lfdAt.get(box.id) as Record<string, unknown> | undefined;
      expect(withLfd?.pickup_lfd).toBeTruthy();
      expect(withLfd?.pickup_lfd).toBe(withLfd?.pickup_lfd_line);
      expect(withLfd?.pickup_lfd_terminal).toBe(withLfd?.pickup_lfd_line);
    }

    const [first] = boxes;
    if (!first) throw new Error("no box");
    const final = (await containersOfShipment(created.shipment_id ?? "")).find((b) => b.id === first.id);
    expect(final).toMatchObject({
      current_status: "empty_returned",
      pod_timezone: "America/Los_Angeles",
      empty_terminated_timezone: "America/Los_Angeles",
      available_for_pickup: 0,
    });
    expect(final?.pod_full_out_at).toBeTruthy();
    expect(final?.empty_terminated_at).toBeTruthy();

    // Transport events: every milestone exactly once, the availability flips and the LFD changes.
    const counts: Record<string, number> = {};
    for (const e of await transportEventsOf(first.id)) counts[e.event] = (counts[e.event] ?? 0) + 1;
    expect(counts).toMatchObject({
      "container.transport.empty_out": 1,
      "container.transport.full_in": 1,
      "container.transport.vessel_loaded": 1,
      "container.transport.vessel_departed": 1,
      "container.transport.vessel_arrived": 1,
      "container.transport.vessel_berthed": 1,
      "container.transport.vessel_discharged": 1,
      "container.transport.full_out": 1,
      "container.transport.empty_in": 1,
      "container.transport.available": 1,
      "container.pickup_lfd.changed": 1,
      "container.pickup_lfd_line.changed": 1,
      "container.pickup_lfd_terminal.changed": 1,
      "container.pickup_appointment.changed": 1,
    });
    // Availability: known as not available (hold), available after the release, not available once gated out.
    const availability = (await transportEventsOf(first.id))
      .filter((e) => e.event.endsWith("available"))
      .map((e) => e.event.replace("container.transport.", ""));
    expect(availability).toEqual(["not_available", "available", "not_available"]);
    // The ETA never moves in this journey, so no estimate is announced.
    expect(Object.keys(counts).filter((e) => e.includes(".estimated."))).toEqual([]);

    // container.updated changesets: the hold placed and cleared, the demurrage growing.
    const { results: updates } = await env.DB.prepare(
      "SELECT changeset FROM container_updated_events WHERE container_id = ?1 ORDER BY created_at",
    )
      .bind(first.id)
      .all<{ changeset: string }>();
    const changesets = updates.map((u) => JSON.parse(u.changeset) as Record<string, [unknown, unknown]>);
    const holdChanges = changesets.flatMap((c) => (c.holds_at_pod_terminal ? [c.holds_at_pod_terminal] : []));
    const hold = { name: "customs", status: "hold", description: "CBP HOLD" };
    expect(holdChanges).toEqual([
      [[], [hold]],
      [[hold], []],
    ]);
    const feeChanges = changesets.flatMap((c) => (c.fees_at_pod_terminal ? [c.fees_at_pod_terminal] : []));
    expect(feeChanges.length).toBeGreaterThanOrEqual(2);
    expect(feeChanges[0]?.[0]).toEqual([]);
    const amounts = feeChanges.map((c) => (c[1] as { amount: number }[])[0]?.amount ?? 0);
    expect(amounts.every((a, i) => i === 0 || a > (amounts[i - 1] ?? 0))).toBe(true);

    // Polling stopped at the empty return.
    const equipment = await env.DB.prepare("SELECT next_poll_at, stopped_at FROM tracked_equipment WHERE number = ?1")
      .bind(first.number)
      .first<{ next_poll_at: string | null; stopped_at: string | null }>();
    expect(equipment?.next_poll_at).toBeNull();
    expect(equipment?.stopped_at).not.toBeNull();

    // The REST API shows the same container.
    const { json } = await apiJson<One>(`/containers/${first.id}`, { key: account.key });
    expect(json.data.attributes).toMatchObject({ current_status: "empty_returned", holds_at_pod_terminal: [] });
  });
});
