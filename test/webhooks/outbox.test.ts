import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createDatabase } from "../../src/db/client";
import { FakeClock } from "../../src/lib/clock";
import { loadBoxWebhookContext } from "../../src/tracking/box-writes";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import type { SourceRegistry } from "../../src/tracking/sources";
import { SANDBOX_LIFECYCLE_CONTAINER_NUMBERS } from "../../src/tracking/sources/sandbox";
import type {
  LookupResult,
  Milestone,
  ShipmentFacts,
  TerminalObservation,
  TerminalPollResult,
} from "../../src/tracking/sources/types";
import type { Tracker } from "../../src/tracking/tracker";
import type { PollResults } from "../../src/tracking/tracker-state";
import { WEBHOOK_EVENTS } from "../../src/webhooks/catalog";
import type { WebhookDeliveryMessage } from "../../src/webhooks/outbox";
import { setWebhookFetch } from "../../src/webhooks/send";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import {
  boxNumbers,
  containersOfShipment,
  FakeCarrier,
  FakeTerminal,
  FUTURE_T0,
  insertRequest,
  type RecordingQueue,
  recordingQueue,
  registryOf,
  requestRow,
  trackerStub,
} from "../helpers/engine";
import { containerFacts, DAY_MS, HOUR_MS, iso, milestone, observation, shipmentFacts } from "../helpers/facts";
import {
  attemptsOf,
  insertWebhook,
  type NotificationRow,
  notificationsOf,
  RecordingReceiver,
  type TestWebhook,
} from "../helpers/receiver";
import { type Resource, trackAndProcess } from "../helpers/tracking";

// The webhook outbox driven by the real engine (docs/decisions.md §Webhooks, docs/architecture.md §Tracking pipeline
// step 5): the tracking-request consumer and the Tracker write notifications in the same D1 batch as the change, one
// per active webhook subscribed to the event, per container, per event, in the account of the change — none for
// unsubscribed events, inactive webhooks or other accounts. Sources are fakes; time is a FakeClock years ahead of the
// real clock, so the Tracker's queue messages (sent to the real queue) are not due while a test runs. A recording
// receiver is set as the delivery fetch for the whole file, so nothing ever reaches the network.

const SCAC = "HOOK";
const POL = "CNYTN";
const POD = "USLAX";
const receiver = new RecordingReceiver(() => 200);

beforeAll(() => setWebhookFetch(receiver.fetch));
afterAll(() => setWebhookFetch(null));
afterEach(() => {
  vi.restoreAllMocks();
});

const nextBox = boxNumbers("HOKU", 700_000);

const found = (shipment: ShipmentFacts): LookupResult => ({ kind: "found", shipment });
const seen = (o: TerminalObservation): TerminalPollResult => ({ kind: "found", observation: o });

/** Every event the journey below produces that a subscriber may want. */
const ALL_EVENTS = [
  "tracking_request.succeeded",
  "container.created",
  "container.updated",
  "container.transport.vessel_loaded",
  "container.transport.vessel_departed",
  "container.transport.vessel_arrived",
  "container.transport.vessel_discharged",
  "container.transport.estimated.vessel_arrived",
  "container.transport.available",
  "container.pickup_lfd.changed",
  "container.pickup_lfd_terminal.changed",
  "shipment.estimated.arrival",
  "container.transport.full_out",
];

/** A journey Yantian → Los Angeles (Fenix, Y257) relative to `t0`. */
function journey(number: string, t0: number) {
  const at = (days: number) => iso(t0 + days * DAY_MS);
  return {
    loaded: milestone("container.transport.vessel_loaded", at(-3), POL, { id: `${number}/loaded` }),
    departed: milestone("container.transport.vessel_departed", at(-2), POL, { id: `${number}/departed` }),
    eta: (days: number) => milestone("container.transport.vessel_arrived", at(days), POD, { estimated: true }),
    arrived: milestone("container.transport.vessel_arrived", at(1), POD, { id: `${number}/arrived` }),
    discharged: milestone("container.transport.vessel_discharged", at(1.2), POD, {
      id: `${number}/discharged`,
      facility: "Y257",
    }),
    fullOut: milestone("container.transport.full_out", at(3), POD, { id: `${number}/full_out`, facility: "Y257" }),
    at,
  };
}

/** A world the test controls: what the carrier and the terminal answer now. */
function world(bl: string, numbers: string[]) {
  const state = {
    milestones: new Map<string, Milestone[]>(numbers.map((n) => [n, []])),
    podEtaAt: null as string | null,
    terminal: null as TerminalObservation | null,
  };
  const facts = () =>
    shipmentFacts(
      numbers.map((n) => containerFacts(n, state.milestones.get(n) ?? [])),
      { billOfLadingNumber: bl, podEtaAt: state.podEtaAt },
    );
  const carrier = new FakeCarrier(SCAC, () => found(facts()));
  const terminal = new FakeTerminal("Y257", () =>
    state.terminal ? seen(state.terminal) : { kind: "not_found" as const },
  );
  return { state, facts, sources: registryOf([carrier], [terminal]) };
}

/** Inserts a BL request and runs the real lookup consumer on it; `whQueue` records webhook messages it sends. */
async function track(
  account: TestAccount,
  bl: string,
  sources: SourceRegistry,
  clock: FakeClock,
  whQueue: RecordingQueue<WebhookDeliveryMessage> = recordingQueue(),
) {
  const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
  const testEnv: Env = { ...env, TRACKING_REQUESTS_QUEUE: recordingQueue(), WEBHOOK_DELIVERIES_QUEUE: whQueue };
  await processTrackingRequest(
    { env: testEnv, clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const shipmentId = request.shipment_id ?? "";
  const containers = await containersOfShipment(shipmentId);
  return { requestId, shipmentId, containerIds: containers.map((c) => c.id), whQueue };
}

function poll(number: string, sources: SourceRegistry, clock: FakeClock) {
  return pollBox({ env, clock, sources }, { scac: SCAC, number });
}

/** `event` → how many notifications of it. */
function countByEvent(rows: NotificationRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.event] = (counts[r.event] ?? 0) + 1;
  return counts;
}

interface Payload {
  data: {
    id: string;
    type: string;
    attributes: { id: string; event: string; delivery_status: string; created_at: string };
    relationships: {
      reference_object: { data: { id: string; type: string } };
      webhook: { data: { id: string; type: string } };
      webhook_notification_logs: { data: unknown[] };
    };
  };
  included: Resource[];
}

function payloadOf(row: NotificationRow): Payload {
  return JSON.parse(row.payload) as Payload;
}

describe("engine events become notifications of subscribed, active webhooks of the same account", () => {
  it("a journey: each event once per container for the subscriber; nothing for inactive, unsubscribed or other accounts", async () => {
    const number = nextBox();
    const bl = `HOOKBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const w = world(bl, [number]);
    w.state.milestones.set(number, [j.loaded, j.departed, j.eta(1)]);
    w.state.podEtaAt = j.at(1);
    const account = await createAccount();
    const other = await createAccount("Other");
    const subscribed = await insertWebhook(account, {
      events: ALL_EVENTS.filter((e) => e !== "container.transport.full_out"),
    });
    const narrow = await insertWebhook(account, { events: ["container.transport.vessel_arrived"] });
    const inactive = await insertWebhook(account, { events: ALL_EVENTS, active: false });
    const otherAccount = await insertWebhook(other, { events: ALL_EVENTS });
    const clock = new FakeClock(FUTURE_T0);
    const tracked = await track(account, bl, w.sources, clock);
    const [containerId] = tracked.containerIds;

    // Lookup: the request succeeded and the container was created; the history before tracking is not news.
    expect(countByEvent(await notificationsOf(subscribed.id))).toEqual({
      "tracking_request.succeeded": 1,
      "container.created": 1,
    });
    expect(tracked.whQueue.sent.map((m) => m.body.notificationId)).toHaveLength(1);

    // The ETA moves, the vessel arrives and discharges; the terminal reports the box available with an LFD.
    clock.advance(12 * HOUR_MS);
    w.state.milestones.set(number, [j.loaded, j.departed, j.eta(1.1)]);
    w.state.podEtaAt = j.at(1.1);
    await poll(number, w.sources, clock);
    clock.set(FUTURE_T0 + 1.3 * DAY_MS);
    w.state.milestones.set(number, [j.loaded, j.departed, j.arrived, j.discharged]);
    w.state.terminal = observation(j.at(1.3), {
      availabilityKnown: true,
      availableForPickup: true,
      pickupLfd: j.at(4),
    });
    await poll(number, w.sources, clock);
    // Gated out (full_out): the subscriber does not take that event.
    clock.set(FUTURE_T0 + 3.1 * DAY_MS);
    w.state.milestones.set(number, [j.loaded, j.departed, j.arrived, j.discharged, j.fullOut]);
    await poll(number, w.sources, clock);

    const rows = await notificationsOf(subscribed.id);
    const counts = countByEvent(rows);
    expect(counts).toMatchObject({
      "tracking_request.succeeded": 1,
      "container.created": 1,
      "container.transport.estimated.vessel_arrived": 1,
      "shipment.estimated.arrival": 1,
      "container.transport.vessel_arrived": 1,
      "container.transport.vessel_discharged": 1,
      "container.transport.available": 1,
      "container.pickup_lfd.changed": 1,
      "container.pickup_lfd_terminal.changed": 1,
    });
    expect(counts["container.updated"]).toBeGreaterThanOrEqual(1);
    expect(counts["container.transport.full_out"]).toBeUndefined();
    expect(counts["container.transport.vessel_loaded"]).toBeUndefined();
    for (const row of rows) {
      expect(row.account_id).toBe(account.accountId);
      expect(row.delivery_status).toBe("pending");
      const payload = payloadOf(row);
      expect(payload.data).toMatchObject({
        id: row.id,
        type: "webhook_notification",
        attributes: { id: row.id, event: row.event, delivery_status: "pending", created_at: row.created_at },
        relationships: {
          reference_object: { data: { id: row.reference_object_id, type: row.reference_object_type } },
          webhook: { data: { id: subscribed.id, type: "webhook" } },
          webhook_notification_logs: { data: [] },
        },
      });
      // Every container in a body is this account's row.
      for (const c of payload.included.filter((r) => r.type === "container")) expect(c.id).toBe(containerId);
    }
    expect(countByEvent(await notificationsOf(narrow.id))).toEqual({ "container.transport.vessel_arrived": 1 });
    expect(await notificationsOf(inactive.id)).toEqual([]);
    expect(await notificationsOf(otherAccount.id)).toEqual([]);
  });

  it("bodies carry the included resources of docs/webhooks.md §Payloads with the values after the change", async () => {
    const number = nextBox();
    const bl = `HOOKBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const w = world(bl, [number]);
    w.state.milestones.set(number, [j.loaded, j.departed]);
    const account = await createAccount();
    const hook = await insertWebhook(account, { events: ALL_EVENTS });
    const clock = new FakeClock(FUTURE_T0 + 1.3 * DAY_MS);
    const { shipmentId, containerIds, requestId } = await track(account, bl, w.sources, clock);
    const [containerId] = containerIds;
    clock.advance(HOUR_MS);
    w.state.milestones.set(number, [j.loaded, j.departed, j.arrived, j.discharged]);
    w.state.terminal = observation(j.at(1.35), {
      availabilityKnown: true,
      availableForPickup: false,
      holds: [{ name: "customs", status: "hold", description: null }],
    });
    await poll(number, w.sources, clock);
    clock.advance(HOUR_MS);
    w.state.terminal = observation(j.at(1.4), { availabilityKnown: true, availableForPickup: true, holds: [] });
    await poll(number, w.sources, clock);

    const rows = await notificationsOf(hook.id);
    const byEvent = (event: string) => rows.filter((r) => r.event === event).map(payloadOf);
    const types = (p: Payload) => p.included.map((r) => r.type);

    const [succeeded] = byEvent("tracking_request.succeeded");
    expect(succeeded && types(succeeded)).toEqual(["container", "shipment", "tracking_request"]);
    const request = succeeded?.included.find((r) => r.type === "tracking_request");
    expect(request).toMatchObject({ id: requestId, attributes: { status: "created" } });
    expect(request?.relationships?.tracked_object?.data).toEqual({ id: shipmentId, type: "shipment" });

    const [created] = byEvent("container.created");
    expect(created && types(created)).toEqual(["shipment", "container", "container_created_event"]);

    const [discharged] = byEvent("container.transport.vessel_discharged");
    expect(discharged && types(discharged)).toEqual([
      "shipment",
      "container",
      "port",
      "terminal",
      "vessel",
      "transport_event",
    ]);
    const event = discharged?.included.at(-1);
    expect(event?.id).toBe(discharged?.data.relationships.reference_object.data.id);
    expect(event?.attributes).toMatchObject({
      event: "container.transport.vessel_discharged",
      location_locode: POD,
      timezone: "America/Los_Angeles",
      data_source: "shipping_line",
    });
    expect(event?.relationships?.container?.data).toEqual({ id: containerId, type: "container" });

    const [arrived] = byEvent("container.transport.vessel_arrived");
    expect(arrived && types(arrived)).toEqual(["shipment", "container", "port", "vessel", "transport_event"]);

    const [available] = byEvent("container.transport.available");
    expect(available?.included).toEqual([]);
    expect(available?.data.relationships.reference_object.data.type).toBe("transport_event");

    // The hold placed, then cleared: two changesets; the included container shows the values after each change.
    const updates = byEvent("container.updated");
    const cleared = updates.find((u) => {
      const ev = u.included.find((r) => r.type === "container_updated_event");
      const changeset = ev?.attributes.changeset as Record<string, [unknown, unknown]> | undefined;
      const after = changeset?.holds_at_pod_terminal?.[1];
      return Array.isArray(after) && after.length === 0;
    });
    expect(cleared && types(cleared)).toEqual(["shipment", "port", "terminal", "container", "container_updated_event"]);
    const changeset = cleared?.included.find((r) => r.type === "container_updated_event")?.attributes.changeset;
    expect(changeset).toMatchObject({
      available_for_pickup: [false, true],
      holds_at_pod_terminal: [[{ name: "customs", status: "hold", description: null }], []],
    });
    const container = cleared?.included.find((r) => r.type === "container");
    expect(container?.attributes).toMatchObject({ available_for_pickup: true, holds_at_pod_terminal: [] });
    const shipment = cleared?.included.find((r) => r.type === "shipment");
    expect(shipment?.relationships?.containers?.data).toEqual([{ id: containerId, type: "container" }]);
  });

  it("two accounts tracking the same box: each gets its own notification about its own container", async () => {
    const number = nextBox();
    const bl = `HOOKBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const w = world(bl, [number]);
    w.state.milestones.set(number, [j.loaded, j.departed]);
    const a = await createAccount("A");
    const b = await createAccount("B");
    const hookA = await insertWebhook(a, { events: ["container.transport.vessel_arrived"] });
    const hookB = await insertWebhook(b, { events: ["container.transport.vessel_arrived"] });
    const clock = new FakeClock(FUTURE_T0);
    const trackedA = await track(a, bl, w.sources, clock);
    const trackedB = await track(b, bl, w.sources, clock);
    clock.set(FUTURE_T0 + 1.1 * DAY_MS);
    w.state.milestones.set(number, [j.loaded, j.departed, j.arrived]);
    await poll(number, w.sources, clock);
    const [rowA, ...restA] = await notificationsOf(hookA.id);
    const [rowB, ...restB] = await notificationsOf(hookB.id);
    expect(restA).toEqual([]);
    expect(restB).toEqual([]);
    if (!rowA || !rowB) throw new Error("missing notifications");
    expect(rowA.account_id).toBe(a.accountId);
    expect(rowB.account_id).toBe(b.accountId);
    expect(rowA.id).not.toBe(rowB.id);
    const containerOf = (row: NotificationRow) => payloadOf(row).included.find((r) => r.type === "container")?.id;
    expect(containerOf(rowA)).toBe(trackedA.containerIds[0]);
    expect(containerOf(rowB)).toBe(trackedB.containerIds[0]);
  });

  it("one notification per container: a shipment of two boxes discharged gives two; its new ETA one", async () => {
    const [n1, n2] = [nextBox(), nextBox()];
    const bl = `HOOKBL-${n1}`;
    const j1 = journey(n1, FUTURE_T0);
    const j2 = journey(n2, FUTURE_T0);
    const w = world(bl, [n1, n2]);
    w.state.milestones.set(n1, [j1.loaded, j1.departed]);
    w.state.milestones.set(n2, [j2.loaded, j2.departed]);
    w.state.podEtaAt = j1.at(1);
    const account = await createAccount();
    const hook = await insertWebhook(account, {
      events: ["container.transport.vessel_discharged", "shipment.estimated.arrival"],
    });
    const clock = new FakeClock(FUTURE_T0);
    const { containerIds } = await track(account, bl, w.sources, clock);
    clock.set(FUTURE_T0 + 1.3 * DAY_MS);
    w.state.podEtaAt = j1.at(1.05);
    w.state.milestones.set(n1, [j1.loaded, j1.departed, j1.arrived, j1.discharged]);
    w.state.milestones.set(n2, [j2.loaded, j2.departed, j2.arrived, j2.discharged]);
    await poll(n1, w.sources, clock);
    await poll(n2, w.sources, clock);
    const rows = await notificationsOf(hook.id);
    const discharged = rows.filter((r) => r.event === "container.transport.vessel_discharged");
    expect(discharged).toHaveLength(2);
    const containers = discharged.map((r) => payloadOf(r).included.find((x) => x.type === "container")?.id).sort();
    expect(containers).toEqual([...containerIds].sort());
    const eta = rows.filter((r) => r.event === "shipment.estimated.arrival");
    expect(eta).toHaveLength(1);
    expect(payloadOf(eta[0] as NotificationRow).included.map((r) => r.type)).toEqual([
      "shipment",
      "port",
      "vessel",
      "estimated_event",
    ]);
  });

  it("the outbox lookup reads the container and shipment rows only when an account has an active webhook", async () => {
    const number = nextBox();
    const bl = `HOOKBL-${number}`;
    const w = world(bl, [number]);
    const account = await createAccount();
    const clock = new FakeClock(FUTURE_T0);
    const { shipmentId, containerIds } = await track(account, bl, w.sources, clock);
    const sub = { accountId: account.accountId, containerId: containerIds[0] ?? "", shipmentId };
    const db = createDatabase(env.DB);
    const none = await loadBoxWebhookContext(db, [sub]);
    expect(none.targets).toEqual([]);
    expect(none.containers.size + none.shipments.size).toBe(0);
    await insertWebhook(account, { events: ["container.updated"], active: false });
    expect((await loadBoxWebhookContext(db, [sub])).containers.size).toBe(0);
    const hook = await insertWebhook(account, { events: ["container.updated"] });
    const some = await loadBoxWebhookContext(db, [sub]);
    expect(some.targets.map((t) => t.id)).toEqual([hook.id]);
    expect([...some.containers.keys()]).toEqual([sub.containerId]);
    expect(some.shipments.get(shipmentId)?.containerIds).toEqual([sub.containerId]);
  });

  it("a replayed update (Tracker crash after its D1 batch) writes no notification twice", async () => {
    const number = nextBox();
    const bl = `HOOKBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const w = world(bl, [number]);
    w.state.milestones.set(number, [j.loaded, j.departed]);
    const account = await createAccount();
    const hook = await insertWebhook(account, { events: ALL_EVENTS });
    const clock = new FakeClock(FUTURE_T0 + DAY_MS);
    await track(account, bl, w.sources, clock);
    const stub = trackerStub(SCAC, number);
    clock.set(FUTURE_T0 + 1.3 * DAY_MS);
    const results: PollResults = {
      carrier: found(
        shipmentFacts([containerFacts(number, [j.loaded, j.departed, j.arrived, j.discharged])], {
          billOfLadingNumber: bl,
        }),
      ),
      terminal: seen(observation(j.at(1.3), { availabilityKnown: true, availableForPickup: true })),
      polledAtMs: clock.now(),
    };
    const crashed = await runInDurableObject(stub, async (instance: Tracker, state) => {
      vi.spyOn(state.storage, "put").mockImplementationOnce(async () => {
        throw new Error("storage unavailable");
      });
      return instance.applyPoll(results).then(
        () => "saved",
        (err: unknown) => String(err),
      );
    });
    expect(crashed).toContain("storage unavailable");
    const afterCrash = await notificationsOf(hook.id);
    expect(countByEvent(afterCrash)["container.transport.vessel_discharged"]).toBe(1);
    await evictDurableObject(stub);
    await stub.applyPoll(results);
    const afterReplay = await notificationsOf(hook.id);
    expect(afterReplay.map((r) => r.id).sort()).toEqual(afterCrash.map((r) => r.id).sort());
    // The account's notification count (migrations/0002 triggers) counted the inserts that happened, not the replay's
    // ignored ones, and is what GET /webhook_notifications reports as meta.total.
    const counted = await env.DB.prepare(
      "SELECT count FROM account_resource_counts WHERE account_id = ?1 AND resource = 'webhook_notification'",
    )
      .bind(account.accountId)
      .first<{ count: number }>();
    expect(counted?.count).toBe(afterReplay.length);
    const listed = await apiJson<{ meta: { total: number } }>("/webhook_notifications?page[size]=1", {
      key: account.key,
    });
    expect(listed.res.status).toBe(200);
    expect(listed.json.meta.total).toBe(afterReplay.length);
  });
});

describe("the sandbox's TEST-LIFECYCLE journey, played through the real poll consumer", () => {
  it("every new transport event of each box is announced once; holds, fees and availability as container.updated", async () => {
    const account = await createAccount();
    const other = await createAccount("Other");
    const hook = await insertWebhook(account, { events: [...WEBHOOK_EVENTS] });
    const otherHook = await insertWebhook(other, { events: [...WEBHOOK_EVENTS] });
    const clock = new FakeClock(FUTURE_T0);
    const requestId = await insertRequest(account, { number: "TEST-LIFECYCLE", createdAtMs: clock.now() });
    const testEnv: Env = {
      ...env,
      TRACKING_REQUESTS_QUEUE: recordingQueue(),
      WEBHOOK_DELIVERIES_QUEUE: recordingQueue(),
    };
    await processTrackingRequest(
      { env: testEnv, clock },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    const shipmentId = (await requestRow(requestId)).shipment_id ?? "";
    const boxes = await containersOfShipment(shipmentId);
    expect(boxes.map((b) => b.number)).toEqual([...SANDBOX_LIFECYCLE_CONTAINER_NUMBERS].sort());
    const joinedAt = iso(clock.now());
    // One simulated day per real minute; poll every 0.1 day for 12 days (as test/tracking/sources/sandbox.test.ts
    // does).
    for (let k = 0; k < 120; k++) {
      clock.set(FUTURE_T0 + (k + 0.5) * 6000);
      for (const number of SANDBOX_LIFECYCLE_CONTAINER_NUMBERS) await pollBox({ env, clock }, { scac: "TEST", number });
    }
    const rows = await notificationsOf(hook.id);
    for (const box of boxes) {
      const { results: events } = await env.DB.prepare(
        "SELECT id, event, created_at FROM transport_events WHERE container_id = ?1",
      )
        .bind(box.id)
        .all<{ id: string; event: string; created_at: string }>();
      const announced = rows.filter(
        (r) =>
          r.reference_object_type === "transport_event" &&
          payloadOf(r).included.every((x) => x.type !== "container" || x.id === box.id),
      );
      const later = events.filter((e) => e.created_at > joinedAt);
      const mine = announced.filter((r) => events.some((e) => e.id === r.reference_object_id));
      // Exactly one notification per transport event recorded after the box joined, none for its history.
      expect(mine.map((r) => r.reference_object_id).sort()).toEqual(later.map((e) => e.id).sort());
      expect(new Set(mine.map((r) => r.event))).toEqual(new Set(later.map((e) => e.event)));
    }
    const events = new Set(rows.map((r) => r.event));
    for (const e of [
      "tracking_request.succeeded",
      "container.created",
      "container.transport.vessel_arrived",
      "container.transport.vessel_discharged",
      "container.transport.available",
      "container.transport.full_out",
      "container.transport.empty_in",
      "container.pickup_lfd.changed",
      "container.updated",
    ]) {
      expect(events, e).toContain(e);
    }
    const changedKeys = new Set(
      rows
        .filter((r) => r.event === "container.updated")
        .flatMap((r) =>
          Object.keys(
            (payloadOf(r).included.find((x) => x.type === "container_updated_event")?.attributes.changeset ??
              {}) as object,
          ),
        ),
    );
    for (const key of ["holds_at_pod_terminal", "fees_at_pod_terminal", "available_for_pickup", "pickup_lfd"]) {
      expect(changedKeys, key).toContain(key);
    }
    expect(rows.filter((r) => r.event === "container.created")).toHaveLength(2);
    expect(await notificationsOf(otherHook.id)).toEqual([]);
  });
});

describe("tracking_request.* notifications (sandbox carrier, real queue)", () => {
  /** Waits (bounded) until the background queue consumer has delivered `count` notifications of `hook`. */
  async function delivered(hook: TestWebhook, count: number): Promise<NotificationRow[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const rows = await notificationsOf(hook.id);
      if (rows.length >= count && rows.every((r) => r.delivery_status === "succeeded")) return rows;
      if (Date.now() > deadline) {
        throw new Error(`not delivered in time: ${JSON.stringify(rows.map((r) => [r.event, r.delivery_status]))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("TEST-TR-SUCCEEDED: succeeded + two container.created reach the receiver, signed, through the real queue", async () => {
    const account = await createAccount();
    const hook = await insertWebhook(account, {
      events: ["tracking_request.succeeded", "container.created", "tracking_request.failed"],
    });
    const request = await trackAndProcess(account, { request_number: "TEST-TR-SUCCEEDED" });
    const rows = await delivered(hook, 3);
    expect(countByEvent(rows)).toEqual({ "tracking_request.succeeded": 1, "container.created": 2 });
    const succeeded = rows.find((r) => r.event === "tracking_request.succeeded");
    expect(succeeded?.reference_object_id).toBe(request.id);
    for (const row of rows) {
      const requests = receiver.for(row.id);
      expect(requests).toHaveLength(1);
      const [req] = requests;
      if (!req) throw new Error("no request");
      expect(req.body).toBe(row.payload);
      expect(new Webhook(hook.secret).verify(req.body, Object.fromEntries(req.headers))).toBeTruthy();
      expect((await attemptsOf(row.id)).map((a) => a.status_code)).toEqual([200]);
    }
  });

  it("TEST-TR-FAILED → tracking_request.failed with the request alone", async () => {
    const account = await createAccount();
    const hook = await insertWebhook(account, { events: ["tracking_request.failed"] });
    const request = await trackAndProcess(account, { request_number: "TEST-TR-FAILED" });
    const [row] = await delivered(hook, 1);
    expect(row?.event).toBe("tracking_request.failed");
    const included = row ? payloadOf(row).included : [];
    expect(included.map((r) => r.type)).toEqual(["tracking_request"]);
    expect(included[0]).toMatchObject({ id: request.id, attributes: { status: "failed", failed_reason: "not_found" } });
  });

  it("TEST-TR-AWAITING-MANIFEST → tracking_request.awaiting_manifest, announced once", async () => {
    const account = await createAccount();
    const hook = await insertWebhook(account, { events: ["tracking_request.awaiting_manifest"] });
    await trackAndProcess(account, { request_number: "TEST-TR-AWAITING-MANIFEST" });
    const [row, ...rest] = await delivered(hook, 1);
    expect(rest).toEqual([]);
    expect(row ? payloadOf(row).included.map((r) => [r.type, r.attributes.status]) : []).toEqual([
      ["tracking_request", "awaiting_manifest"],
    ]);
  });

  it("PATCH /shipments/{id}/stop_tracking → tracking_request.tracking_stopped with the stopped shipment", async () => {
    const account = await createAccount();
    const hook = await insertWebhook(account, { events: ["tracking_request.tracking_stopped"] });
    const request = await trackAndProcess(account, { request_number: "TEST-TR-SUCCEEDED" });
    const shipmentId = request.relationships?.tracked_object?.data;
    if (!shipmentId || Array.isArray(shipmentId)) throw new Error("no shipment");
    const { res } = await apiJson(`/shipments/${shipmentId.id}/stop_tracking`, { key: account.key, method: "PATCH" });
    expect(res.status).toBe(200);
    const [row] = await delivered(hook, 1);
    const included = row ? payloadOf(row).included : [];
    expect(included.map((r) => r.type)).toEqual(["shipment", "tracking_request"]);
    expect(included[0]?.attributes).toMatchObject({ line_tracking_stopped_reason: "cancelled_by_user" });
    expect(included[1]?.attributes).toMatchObject({ status: "tracking_stopped" });
  });
});
