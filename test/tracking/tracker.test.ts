import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { withCheckDigit } from "../../src/infer/iso6346";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { deriveContainerState } from "../../src/tracking/derive";
import { pollBox } from "../../src/tracking/poll-consumer";
import { pollRetryDelayMs } from "../../src/tracking/schedule";
import type { SourceRegistry } from "../../src/tracking/sources";
import { createDcsaSource, parseDcsaSources } from "../../src/tracking/sources/dcsa";
import type {
  LookupResult,
  Milestone,
  ShipmentFacts,
  TerminalObservation,
  TerminalPollResult,
} from "../../src/tracking/sources/types";
import type { Tracker } from "../../src/tracking/tracker";
import type { PollResults } from "../../src/tracking/tracker-state";
import { createAccount, type TestAccount } from "../helpers/api";
import {
  boxNumbers,
  type ContainerRow,
  containerRow,
  containersOfShipment,
  countRows,
  envWithQueue,
  FakeCarrier,
  FakeTerminal,
  FUTURE_T0,
  insertRequest,
  type RecordingQueue,
  recordingQueue,
  registryOf,
  requestRow,
  trackerStub,
  transportEventsOf,
} from "../helpers/engine";
import {
  containerFacts,
  DAY_MS,
  HOUR_MS,
  iso,
  MINUTE_MS,
  milestone,
  observation,
  shipmentFacts,
} from "../helpers/facts";

// The Tracker Durable Object and the poll consumer (docs/architecture.md §Components, §Tracking pipeline steps 3–4):
// one Tracker per box shared by accounts, serialised updates, failures that change nothing, alarms. Sources are fakes
// injected through `deps.sources`; time is a FakeClock years ahead of the real clock, so no alarm fires behind a test's
// back.

const SCAC = "FAKE";
const POL = "CNYTN";
const POD = "USLAX";

/** A box number no other test uses (valid ISO 6346 check digit). */
const nextBox = boxNumbers("FAKU", 500_000);

/** The journey of a box, relative to T0 (the lookup). */
function journey(number: string, t0: number) {
  const at = (days: number) => iso(t0 + days * DAY_MS);
  return {
    loaded: milestone("container.transport.vessel_loaded", at(-3), POL, { id: `${number}/loaded` }),
    departed: milestone("container.transport.vessel_departed", at(-2), POL, { id: `${number}/departed` }),
    eta: (days: number) => milestone("container.transport.vessel_arrived", at(days), POD, { estimated: true }),
    arrived: milestone("container.transport.vessel_arrived", at(1), POD, { id: `${number}/arrived` }),
    discharged: milestone("container.transport.vessel_discharged", at(1.2), POD, { id: `${number}/discharged` }),
    fullOut: milestone("container.transport.full_out", at(3), POD, { id: `${number}/full_out` }),
    emptyIn: milestone("container.transport.empty_in", at(5), POD, { id: `${number}/empty_in` }),
    at,
  };
}

/** A shipment of one box as the fake carrier reports it. */
function facts(bl: string, number: string, milestones: Milestone[], extra: Partial<ShipmentFacts> = {}): ShipmentFacts {
  return shipmentFacts([containerFacts(number, milestones)], { billOfLadingNumber: bl, ...extra });
}

const found = (shipment: ShipmentFacts): LookupResult => ({ kind: "found", shipment });
const seen = (o: TerminalObservation): TerminalPollResult => ({ kind: "found", observation: o });

/** What `track` made. */
interface Tracked {
  requestId: string;
  shipmentId: string;
  containerId: string;
}

/** Inserts a BL tracking request for `account` and runs the real lookup consumer on it with `sources` at `clock`. */
async function track(
  account: TestAccount,
  bl: string,
  sources: SourceRegistry,
  clock: FakeClock,
  queue: RecordingQueue<{ trackingRequestId: string; accountId: string }> = recordingQueue(),
  scac = SCAC,
): Promise<Tracked> {
  const requestId = await insertRequest(account, { number: bl, scac, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(queue), clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const shipmentId = request.shipment_id ?? "";
  const [container] = await containersOfShipment(shipmentId);
  if (!container) throw new Error("no container row");
  return { requestId, shipmentId, containerId: container.id };
}

/** Polls a box through the real poll consumer. */
function poll(number: string, sources: SourceRegistry, clock: FakeClock, fetch?: typeof globalThis.fetch) {
  return pollBox({ env, clock, sources, ...(fetch ? { fetch } : {}) }, { scac: SCAC, number });
}

/** Each transport event of a container with how often it was recorded. */
async function eventCounts(containerId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const e of await transportEventsOf(containerId)) counts[e.event] = (counts[e.event] ?? 0) + 1;
  return counts;
}

/** All event rows of a container, for before/after comparisons. */
async function allCounts(containerId: string) {
  return {
    transport: await countRows("transport_events", containerId),
    raw: await countRows("raw_events", containerId),
    updated: await countRows("container_updated_events", containerId),
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("one Tracker per box, shared by accounts", () => {
  it("two accounts tracking the same BL: one upstream poll updates both container rows", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    let milestones = [j.loaded, j.departed, j.eta(1)];
    let terminalView: TerminalObservation | null = null;
    const carrier = new FakeCarrier(SCAC, () => found(facts(bl, number, milestones)));
    const terminal = new FakeTerminal("Y257", () => (terminalView ? seen(terminalView) : { kind: "not_found" }));
    const sources = registryOf([carrier], [terminal]);
    const clock = new FakeClock(FUTURE_T0);

    const a = await track(await createAccount("A"), bl, sources, clock);
    clock.advance(10 * MINUTE_MS);
    const b = await track(await createAccount("B"), bl, sources, clock);
    expect(a.containerId).not.toBe(b.containerId);
    expect(carrier.calls.map((c) => c.status)).toEqual(["pending", "pending"]);
    expect(carrier.polls).toHaveLength(0);
    // The account that joined later got the box's history too.
    expect(await eventCounts(b.containerId)).toEqual(await eventCounts(a.containerId));

    // The box is discharged and the terminal makes it available.
    milestones = [j.loaded, j.departed, j.arrived, j.discharged];
    terminalView = observation(j.at(1.5), { availabilityKnown: true, availableForPickup: true, pickupLfd: j.at(4) });
    clock.set(FUTURE_T0 + 1.5 * DAY_MS);
    const results = await poll(number, sources, clock);
    expect(results?.carrier?.kind).toBe("found");

    expect(carrier.polls).toHaveLength(1);
    expect(carrier.polls[0]).toMatchObject({ number: bl, scac: SCAC, requestType: "bill_of_lading" });
    expect(terminal.calls).toBe(1);
    const rows = [await containerRow(a.containerId), await containerRow(b.containerId)];
    for (const row of rows) {
      expect(row).toMatchObject({
        number,
        current_status: "available",
        available_for_pickup: 1,
        pickup_lfd: j.at(4),
        pickup_lfd_terminal: j.at(4),
        pod_discharged_at: j.discharged.timestamp,
        updated_at: iso(clock.now()),
        pod_last_tracking_request_at: iso(clock.now()),
      });
    }
    const [eventsA, eventsB] = [await eventCounts(a.containerId), await eventCounts(b.containerId)];
    expect(eventsA).toEqual(eventsB);
    expect(eventsA["container.transport.vessel_discharged"]).toBe(1);
    expect(eventsA["container.transport.available"]).toBe(1);

    const boxes = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracked_equipment WHERE scac = ?1 AND number = ?2")
      .bind(SCAC, number)
      .first<{ n: number }>();
    expect(boxes?.n).toBe(1);
    const state = await trackerStub(SCAC, number).currentState();
    expect(state?.subscriptions.map((s) => s.containerId).sort()).toEqual([a.containerId, b.containerId].sort());
  });

  it("a second account joining a box mid-journey costs no poll and sees the box's current state", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    let milestones = [j.loaded, j.departed];
    const carrier = new FakeCarrier(SCAC, () => found(facts(bl, number, milestones)));
    const sources = registryOf([carrier]);
    const clock = new FakeClock(FUTURE_T0);
    const a = await track(await createAccount(), bl, sources, clock);
    milestones = [j.loaded, j.departed, j.arrived, j.discharged];
    clock.set(FUTURE_T0 + 1.5 * DAY_MS);
    await poll(number, sources, clock);
    clock.advance(MINUTE_MS);
    const b = await track(await createAccount(), bl, sources, clock);
    expect(carrier.polls).toHaveLength(1);
    const [rowA, rowB] = [await containerRow(a.containerId), await containerRow(b.containerId)];
    expect(rowB.current_status).toBe("grounded");
    expect(rowB.current_status).toBe(rowA.current_status);
    expect(rowB.pod_discharged_at).toBe(j.discharged.timestamp);
    expect(await eventCounts(b.containerId)).toEqual(await eventCounts(a.containerId));
  });
});

describe("a Tracker evicted or replayed loses and duplicates nothing", () => {
  it("resumes after eviction mid-journey with the same state; replayed polls write no event twice", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    let milestones = [j.loaded, j.departed, j.eta(1)];
    let terminalView: TerminalObservation | null = null;
    const carrier = new FakeCarrier(SCAC, () => found(facts(bl, number, milestones)));
    const terminal = new FakeTerminal("Y257", () => (terminalView ? seen(terminalView) : { kind: "not_found" }));
    const sources = registryOf([carrier], [terminal]);
    const clock = new FakeClock(FUTURE_T0);
    const { containerId } = await track(await createAccount(), bl, sources, clock);
    const stub = trackerStub(SCAC, number);

    clock.advance(HOUR_MS);
    await poll(number, sources, clock);
    const beforeEviction = await allCounts(containerId);
    const stateBefore = await stub.currentState();
    expect(beforeEviction.transport).toBe(2);

    await evictDurableObject(stub);
    expect(await stub.currentState()).toEqual(stateBefore);

    // The same facts again after the restart: nothing new.
    clock.advance(HOUR_MS);
    await poll(number, sources, clock);
    expect(await allCounts(containerId)).toEqual(beforeEviction);

    // The journey moves on: exactly the new milestones are added.
    milestones = [j.loaded, j.departed, j.arrived, j.discharged];
    terminalView = observation(j.at(1.3), { availabilityKnown: true, availableForPickup: false });
    clock.set(FUTURE_T0 + 1.3 * DAY_MS);
    const results = await poll(number, sources, clock);
    if (!results) throw new Error("box not polled");
    const afterDischarge = await allCounts(containerId);
    expect(await eventCounts(containerId)).toEqual({
      "container.transport.vessel_loaded": 1,
      "container.transport.vessel_departed": 1,
      "container.transport.vessel_arrived": 1,
      "container.transport.vessel_discharged": 1,
      "container.transport.not_available": 1,
    });

    // The same poll handed over twice more, with an eviction in between.
    await stub.applyPoll(results);
    await evictDurableObject(stub);
    await stub.applyPoll(results);
    expect(await allCounts(containerId)).toEqual(afterDischarge);
    expect((await containerRow(containerId)).current_status).toBe("not_available");
  });

  it("a crash between the D1 write and the Tracker's own storage: the replayed update writes nothing twice", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    let milestones = [j.loaded, j.departed, j.arrived, j.discharged];
    let terminalView = observation(j.at(1.3), { availabilityKnown: true, availableForPickup: false });
    const carrier = new FakeCarrier(SCAC, () => found(facts(bl, number, milestones)));
    const terminal = new FakeTerminal("Y257", () => seen(terminalView));
    const sources = registryOf([carrier], [terminal]);
    const clock = new FakeClock(FUTURE_T0 + 1.3 * DAY_MS);
    const { containerId } = await track(await createAccount(), bl, sources, clock);
    const stub = trackerStub(SCAC, number);
    clock.advance(HOUR_MS);
    await poll(number, sources, clock);
    const before = await allCounts(containerId);

    // The box becomes available with an LFD and is gated out; the Tracker's storage write fails after D1 was written.
    milestones = [...milestones, j.fullOut];
    terminalView = observation(j.at(3.1), { availabilityKnown: true, availableForPickup: true, pickupLfd: j.at(4) });
    clock.set(FUTURE_T0 + 3.1 * DAY_MS);
    const results: PollResults = {
      carrier: found(facts(bl, number, milestones)),
      terminal: seen(terminalView),
      polledAtMs: clock.now(),
    };
    const outcome = await runInDurableObject(stub, async (instance: Tracker, state) => {
      vi.spyOn(state.storage, "put").mockImplementationOnce(async () => {
        throw new Error("storage unavailable");
      });
      return instance.applyPoll(results).then(
        () => "saved",
        (err: unknown) => String(err),
      );
    });
    expect(outcome).toContain("storage unavailable");
    const afterCrash = await allCounts(containerId);
    expect(afterCrash.transport).toBeGreaterThan(before.transport);
    expect(afterCrash.updated).toBeGreaterThan(before.updated);

    // The instance restarts from what it had stored and the same update is handed over again.
    await evictDurableObject(stub);
    await stub.applyPoll(results);
    expect(await allCounts(containerId)).toEqual(afterCrash);
    expect((await containerRow(containerId)).current_status).toBe("picked_up");
  });
});

describe("concurrent polls never lose an update", () => {
  /** A box with a fake carrier whose facts depend on the poll time (the journey as of `ctx.nowMs`). */
  async function racingBox(options: { gated?: boolean } = {}) {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const steps: [number, Milestone[]][] = [
      [0, [j.loaded, j.departed]],
      [1, [j.loaded, j.departed, j.arrived]],
      [1.2, [j.loaded, j.departed, j.arrived, j.discharged]],
      [3, [j.loaded, j.departed, j.arrived, j.discharged, j.fullOut]],
    ];
    const milestonesAt = (nowMs: number) =>
      steps.filter(([day]) => FUTURE_T0 + day * DAY_MS <= nowMs).at(-1)?.[1] ?? [j.loaded];
    const gates = new Map<number, PromiseWithResolvers<void>>();
    const carrier = new FakeCarrier(SCAC, async (_req, ctx) => {
      if (options.gated) await gates.get(ctx.nowMs)?.promise;
      return found(facts(bl, number, milestonesAt(ctx.nowMs)));
    });
    const sources = registryOf([carrier]);
    const { containerId } = await track(await createAccount(), bl, sources, new FakeClock(FUTURE_T0));
    const gate = (nowMs: number) => {
      const g = Promise.withResolvers<void>();
      gates.set(nowMs, g);
      return g;
    };
    return { number, bl, j, sources, containerId, milestonesAt, gate, stub: trackerStub(SCAC, number) };
  }

  const ONE_OF_EACH = {
    "container.transport.vessel_loaded": 1,
    "container.transport.vessel_departed": 1,
    "container.transport.vessel_arrived": 1,
    "container.transport.vessel_discharged": 1,
    "container.transport.full_out": 1,
  };

  it("applyPoll calls arriving together, newest first: the final state is the newest facts, each milestone once", async () => {
    const box = await racingBox();
    const at = (days: number): PollResults => {
      const polledAtMs = FUTURE_T0 + days * DAY_MS;
      return { carrier: found(facts(box.bl, box.number, box.milestonesAt(polledAtMs))), terminal: null, polledAtMs };
    };
    const outcomes = await Promise.all([
      box.stub.applyPoll(at(3.5)),
      box.stub.applyPoll(at(1.1)),
      box.stub.applyPoll(at(1.5)),
    ]);
    expect(outcomes[0]?.applied).toBe(true);
    const row = await containerRow(box.containerId);
    expect(row).toMatchObject({ current_status: "picked_up", pod_full_out_at: box.j.fullOut.timestamp });
    expect((await box.stub.currentState())?.state?.currentStatus).toBe("picked_up");
    expect(await eventCounts(box.containerId)).toEqual(ONE_OF_EACH);
  });

  it("applyPoll calls arriving together in time order: all applied, the newest wins", async () => {
    const box = await racingBox();
    const at = (days: number): PollResults => {
      const polledAtMs = FUTURE_T0 + days * DAY_MS;
      return { carrier: found(facts(box.bl, box.number, box.milestonesAt(polledAtMs))), terminal: null, polledAtMs };
    };
    const outcomes = await Promise.all([1.1, 1.5, 3.5].map((d) => box.stub.applyPoll(at(d))));
    expect(outcomes.map((o) => o.currentStatus)).toEqual(["on_ship", "grounded", "picked_up"]);
    expect((await containerRow(box.containerId)).current_status).toBe("picked_up");
    expect(await eventCounts(box.containerId)).toEqual(ONE_OF_EACH);
  });

  it("two polls racing: the older one's slow upstream answers last and does not undo the newer one", async () => {
    const box = await racingBox({ gated: true });
    const older = FUTURE_T0 + 1.5 * DAY_MS;
    const newer = FUTURE_T0 + 3.5 * DAY_MS;
    const slow = box.gate(older);
    const fast = box.gate(newer);
    const first = poll(box.number, box.sources, new FakeClock(older));
    const second = poll(box.number, box.sources, new FakeClock(newer));
    fast.resolve();
    await second;
    expect((await containerRow(box.containerId)).current_status).toBe("picked_up");
    slow.resolve();
    await first;
    const row = await containerRow(box.containerId);
    expect(row).toMatchObject({ current_status: "picked_up", pod_full_out_at: box.j.fullOut.timestamp });
    expect(row.updated_at).toBe(iso(newer));
    expect(await eventCounts(box.containerId)).toEqual(ONE_OF_EACH);
    expect((await box.stub.currentState())?.state?.podFullOutAt).toBe(box.j.fullOut.timestamp);
  });
});

describe("upstream failures change nothing and retry sooner", () => {
  /** A box on the water (ETA far away: normal interval 12 h) with a carrier whose answer the test sets. */
  async function boxOnTheWater(scac = SCAC) {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const good = () => found(facts(bl, number, [j.loaded, j.departed, j.eta(10)]));
    const carrier = new FakeCarrier(scac, good);
    const sources = registryOf([carrier]);
    const clock = new FakeClock(FUTURE_T0);
    const tracked = await track(await createAccount(), bl, sources, clock, recordingQueue(), scac);
    const stub = trackerStub(scac, number);
    const state = await stub.currentState();
    expect(state?.nextPollAt).toBe(iso(FUTURE_T0 + 12 * HOUR_MS));
    return { number, bl, j, good, carrier, sources, clock, stub, ...tracked };
  }

  /** Polls `box` and checks that its row and Tracker state did not change; returns the next poll time (ms). */
  async function failingPoll(
    box: Awaited<ReturnType<typeof boxOnTheWater>>,
    fetch?: typeof globalThis.fetch,
    scac = SCAC,
  ): Promise<number> {
    const rowBefore: ContainerRow = await containerRow(box.containerId);
    const stateBefore = await box.stub.currentState();
    const counts = await allCounts(box.containerId);
    await pollBox(
      { env, clock: box.clock, sources: box.sources, ...(fetch ? { fetch } : {}) },
      { scac, number: box.number },
    );
    expect(await containerRow(box.containerId)).toEqual(rowBefore);
    expect(await allCounts(box.containerId)).toEqual(counts);
    const stateAfter = await box.stub.currentState();
    expect(stateAfter?.state).toEqual(stateBefore?.state);
    expect(stateAfter?.shipment).toEqual(stateBefore?.shipment);
    return Date.parse(stateAfter?.nextPollAt ?? "");
  }

  it("temporary failures back off 1, 2, 4 min; a success returns to the normal interval", async () => {
    const box = await boxOnTheWater();
    box.carrier.respond = () => ({ kind: "temporary_failure", reason: "shipping_line_unreachable" });
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      box.clock.advance(HOUR_MS);
      delays.push((await failingPoll(box)) - box.clock.now());
    }
    expect(delays).toEqual([MINUTE_MS, 2 * MINUTE_MS, 4 * MINUTE_MS]);
    expect(delays.every((d) => d < 12 * HOUR_MS)).toBe(true);
    // The alarm follows the retry.
    const alarm = await runInDurableObject(box.stub, (_i: Tracker, state) => state.storage.getAlarm());
    expect(alarm).toBe(box.clock.now() + 4 * MINUTE_MS);

    box.carrier.respond = box.good;
    box.clock.advance(4 * MINUTE_MS);
    await poll(box.number, box.sources, box.clock);
    expect((await box.stub.currentState())?.nextPollAt).toBe(iso(box.clock.now() + 12 * HOUR_MS));
    // The failure count restarted: the next failure waits 1 min again.
    box.carrier.respond = () => ({ kind: "temporary_failure", reason: "unrecognized_response" });
    box.clock.advance(HOUR_MS);
    expect((await failingPoll(box)) - box.clock.now()).toBe(MINUTE_MS);
  });

  it("a source that throws counts as a temporary failure", async () => {
    const box = await boxOnTheWater();
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    box.carrier.respond = () => {
      throw new Error("socket hang up");
    };
    box.clock.advance(HOUR_MS);
    expect((await failingPoll(box)) - box.clock.now()).toBe(MINUTE_MS);
    expect(error).toHaveBeenCalled();
  });

  it("a carrier answer without this box (or a permanent failure) changes nothing and retries sooner", async () => {
    const box = await boxOnTheWater();
    box.carrier.respond = () => found(facts(box.bl, withCheckDigit("OTHU000001"), [box.j.loaded]));
    box.clock.advance(HOUR_MS);
    expect((await failingPoll(box)) - box.clock.now()).toBe(MINUTE_MS);
    box.carrier.respond = () => ({ kind: "failed", reason: "data_unavailable" });
    box.clock.advance(HOUR_MS);
    expect((await failingPoll(box)) - box.clock.now()).toBe(2 * MINUTE_MS);
  });

  describe("a DCSA carrier (createDcsaSource) behind the poll", () => {
    const DCSA_SCAC = "DCSX";
    const configs = parseDcsaSources(JSON.stringify({ [DCSA_SCAC]: { baseUrl: "https://dcsa.example.test/tnt" } }));
    // The source warns about what it could not use; keep the output clean (and make sure it did warn).
    let warned: MockInstance;
    beforeEach(() => {
      warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    });
    afterEach(() => {
      expect(warned).toHaveBeenCalled();
    });

    it("garbage (not JSON, JSON of the wrong shape) → unchanged, retried sooner", async () => {
      const box = await boxOnTheWater(DCSA_SCAC);
      box.sources = registryOf([createDcsaSource(configs)]);
      const answers = [
        () => new Response("<html>502 Bad Gateway</html>", { status: 200 }),
        () => Response.json({ events: "nope" }),
        () => new Response("{ not json", { status: 200, headers: { "Content-Type": "application/json" } }),
      ];
      const delays: number[] = [];
      for (const answer of answers) {
        let asked = 0;
        const fetch: typeof globalThis.fetch = async () => {
          asked++;
          return answer();
        };
        box.clock.advance(HOUR_MS);
        delays.push((await failingPoll(box, fetch, DCSA_SCAC)) - box.clock.now());
        expect(asked).toBe(1);
      }
      expect(delays).toEqual([MINUTE_MS, 2 * MINUTE_MS, 4 * MINUTE_MS]);
    });

    it("an upstream that never answers times out → unchanged, retried sooner", async () => {
      const box = await boxOnTheWater(DCSA_SCAC);
      box.sources = registryOf([createDcsaSource(configs, { timeoutMs: 20 })]);
      let aborted = false;
      const hanging: typeof globalThis.fetch = (_input, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(init.signal?.reason);
          });
        });
      box.clock.advance(HOUR_MS);
      expect((await failingPoll(box, hanging, DCSA_SCAC)) - box.clock.now()).toBe(MINUTE_MS);
      expect(aborted).toBe(true);
    });
  });

  it("carrier found but the terminal failing: the carrier's news is applied, the terminal's last view kept, retry sooner", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    let milestones = [j.loaded, j.departed, j.arrived, j.discharged];
    let terminalAnswer: TerminalPollResult = seen(
      observation(j.at(1.3), {
        availabilityKnown: true,
        availableForPickup: false,
        holds: [{ name: "customs", status: "hold", description: "CBP" }],
      }),
    );
    const carrier = new FakeCarrier(SCAC, () => found(facts(bl, number, milestones)));
    const terminal = new FakeTerminal("Y257", () => terminalAnswer);
    const sources = registryOf([carrier], [terminal]);
    const clock = new FakeClock(FUTURE_T0 + 1.3 * DAY_MS);
    const { containerId } = await track(await createAccount(), bl, sources, clock);
    clock.advance(HOUR_MS);
    await poll(number, sources, clock);
    expect((await containerRow(containerId)).current_status).toBe("not_available");

    milestones = [...milestones, j.fullOut];
    terminalAnswer = { kind: "temporary_failure", reason: "terminal_unreachable" };
    clock.set(FUTURE_T0 + 3.2 * DAY_MS);
    await poll(number, sources, clock);
    const row = await containerRow(containerId);
    expect(row).toMatchObject({ current_status: "picked_up", pod_full_out_at: j.fullOut.timestamp });
    expect(JSON.parse(row.holds_at_pod_terminal)).toEqual([{ name: "customs", status: "hold", description: "CBP" }]);
    const state = await trackerStub(SCAC, number).currentState();
    expect(Date.parse(state?.nextPollAt ?? "") - clock.now()).toBe(MINUTE_MS);
  });
});

describe("alarms", () => {
  /** Swaps the Tracker instance's terminal-polls producer for a recorder (nothing reaches the real queue). */
  async function recordPolls(stub: DurableObjectStub<Tracker>) {
    const queue = recordingQueue<{ scac: string; number: string }>();
    await runInDurableObject(stub, (instance: Tracker) => {
      const own = instance as unknown as { env: Env };
      own.env = { ...own.env, TERMINAL_POLLS_QUEUE: queue };
    });
    return queue;
  }

  it("the alarm sends a terminal-polls message for the box and re-arms a fallback; the message is a real poll", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    let milestones = [j.loaded, j.departed, j.eta(10)];
    const carrier = new FakeCarrier(SCAC, () => found(facts(bl, number, milestones)));
    const sources = registryOf([carrier]);
    const clock = new FakeClock(FUTURE_T0);
    const { containerId } = await track(await createAccount(), bl, sources, clock);
    const stub = trackerStub(SCAC, number);
    const armed = await runInDurableObject(stub, (_i: Tracker, state) => state.storage.getAlarm());
    expect(armed).toBe(FUTURE_T0 + 12 * HOUR_MS);

    const queue = await recordPolls(stub);
    const before = Date.now();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(queue.sent.map((m) => m.body)).toEqual([{ scac: SCAC, number }]);
    const fallback = await runInDurableObject(stub, (_i: Tracker, state) => state.storage.getAlarm());
    expect(fallback).toBeGreaterThanOrEqual(before + pollRetryDelayMs(6));
    expect(fallback).toBeLessThanOrEqual(Date.now() + pollRetryDelayMs(6));

    // Consuming the message polls the box; the poll re-arms the normal schedule.
    milestones = [j.loaded, j.departed, j.arrived, j.discharged];
    clock.set(FUTURE_T0 + 1.5 * DAY_MS);
    const [message] = queue.sent;
    if (!message) throw new Error("no message");
    await pollBox({ env, clock, sources }, message.body);
    expect(carrier.polls).toHaveLength(1);
    expect((await containerRow(containerId)).current_status).toBe("grounded");
    const rearmed = await runInDurableObject(stub, (_i: Tracker, state) => state.storage.getAlarm());
    expect(rearmed).toBe(clock.now() + HOUR_MS);
  });

  it("ensureAlarm re-arms a lost alarm at the planned poll time, and leaves a set alarm alone", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const sources = registryOf([new FakeCarrier(SCAC, () => found(facts(bl, number, [j.loaded, j.eta(10)])))]);
    await track(await createAccount(), bl, sources, new FakeClock(FUTURE_T0));
    const stub = trackerStub(SCAC, number);
    expect(await stub.ensureAlarm(FUTURE_T0)).toBe(false);
    await runInDurableObject(stub, (_i: Tracker, state) => state.storage.deleteAlarm());
    expect(await stub.ensureAlarm(FUTURE_T0)).toBe(true);
    const alarm = await runInDurableObject(stub, (_i: Tracker, state) => state.storage.getAlarm());
    expect(alarm).toBe(FUTURE_T0 + 12 * HOUR_MS);
  });

  it("requestPoll (refresh) queues a poll and names the sources; a stopped box neither polls nor alarms", async () => {
    // The Tracker asks the environment's sources: in tests the sandbox serves line TEST and its terminal Y257.
    const scac = "TEST";
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const sources = registryOf([new FakeCarrier(scac, () => found(facts(bl, number, [j.loaded])))]);
    const account = await createAccount();
    const { containerId } = await track(account, bl, sources, new FakeClock(FUTURE_T0), recordingQueue(), scac);
    const stub = trackerStub(scac, number);
    const queue = await recordPolls(stub);
    expect(await stub.requestPoll()).toEqual(["Shipping line", "Terminal"]);
    expect(queue.sent.map((m) => m.body)).toEqual([{ scac, number }]);

    // A line no configured source serves (FAKE here) is not polled, so nothing is named or queued.
    const other = nextBox();
    const otherSources = registryOf([new FakeCarrier(SCAC, () => found(facts(`FAKEBL-${other}`, other, [j.loaded])))]);
    await track(account, `FAKEBL-${other}`, otherSources, new FakeClock(FUTURE_T0));
    const otherStub = trackerStub(SCAC, other);
    const otherQueue = await recordPolls(otherStub);
    expect(await otherStub.requestPoll()).toEqual([]);
    expect(otherQueue.sent).toHaveLength(0);

    await stub.unsubscribe(containerId);
    const state = await stub.currentState();
    expect(state).toMatchObject({ stopped: true, nextPollAt: null, subscriptions: [] });
    expect(await runInDurableObject(stub, (_i: Tracker, s) => s.storage.getAlarm())).toBeNull();
    expect(await stub.requestPoll()).toEqual([]);
    expect(await pollBox({ env, sources }, { scac, number })).toBeNull();
    expect(queue.sent).toHaveLength(1);
  });

  it("after the empty return the box is polled no more (no alarm, tracked_equipment stopped)", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    let milestones = [j.loaded, j.departed, j.arrived, j.discharged, j.fullOut];
    const carrier = new FakeCarrier(SCAC, () => found(facts(bl, number, milestones)));
    const sources = registryOf([carrier]);
    const clock = new FakeClock(FUTURE_T0 + 3.5 * DAY_MS);
    const { containerId } = await track(await createAccount(), bl, sources, clock);
    const stub = trackerStub(SCAC, number);
    expect((await stub.currentState())?.nextPollAt).toBe(iso(clock.now() + 6 * HOUR_MS));
    milestones = [...milestones, j.emptyIn];
    clock.set(FUTURE_T0 + 5.5 * DAY_MS);
    await poll(number, sources, clock);
    expect((await containerRow(containerId)).current_status).toBe("empty_returned");
    expect((await stub.currentState())?.nextPollAt).toBeNull();
    expect(await runInDurableObject(stub, (_i: Tracker, s) => s.storage.getAlarm())).toBeNull();
    const row = await env.DB.prepare(
      "SELECT next_poll_at, stopped_at FROM tracked_equipment WHERE scac = ?1 AND number = ?2",
    )
      .bind(SCAC, number)
      .first();
    expect(row).toEqual({ next_poll_at: null, stopped_at: iso(clock.now()) });
  });
});

describe("derivation inside the Tracker", () => {
  it("writes exactly the derived state to the container row", async () => {
    const number = nextBox();
    const bl = `FAKEBL-${number}`;
    const j = journey(number, FUTURE_T0);
    const milestones = [j.loaded, j.departed, j.arrived, j.discharged];
    const view = observation(j.at(1.4), {
      availabilityKnown: true,
      availableForPickup: true,
      pickupLfd: j.at(4),
      fees: [{ type: "demurrage", amount: 0, currency_code: "USD" }],
      locationAtTerminal: "Row 9",
    });
    const sources = registryOf(
      [new FakeCarrier(SCAC, () => found(facts(bl, number, milestones)))],
      [new FakeTerminal("Y257", () => seen(view))],
    );
    const clock = new FakeClock(FUTURE_T0 + 1.4 * DAY_MS);
    const { containerId } = await track(await createAccount(), bl, sources, clock);
    clock.advance(MINUTE_MS);
    await poll(number, sources, clock);
    const expected = deriveContainerState(facts(bl, number, milestones), containerFacts(number, milestones), view, {
      deliveredAt: null,
    });
    expect((await trackerStub(SCAC, number).currentState())?.state).toEqual(expected);
    const row = await containerRow(containerId);
    expect(row).toMatchObject({
      current_status: expected.currentStatus,
      pickup_lfd: expected.pickupLfd,
      location_at_pod_terminal: "Row 9",
      pod_timezone: "America/Los_Angeles",
      terminal_checked_at: j.at(1.4),
    });
    expect(JSON.parse(row.fees_at_pod_terminal)).toEqual(expected.feesAtPodTerminal);
  });
});
