import { describe, expect, it } from "vitest";
import type { TerminalHold } from "../../src/db/schema";
import { withCheckDigit } from "../../src/infer/iso6346";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { deriveContainerState } from "../../src/tracking/derive";
import { pollBox } from "../../src/tracking/poll-consumer";
import { facilitiesToPoll, nextPollDelayMs } from "../../src/tracking/schedule";
import { planJourney } from "../../src/tracking/simulator/plan";
import { realMsOf } from "../../src/tracking/simulator/simulated-time";
import type { SourceRegistry } from "../../src/tracking/sources";
import { createSimulatorSource } from "../../src/tracking/sources/simulator";
import type {
  LookupResult,
  Milestone,
  ShipmentFacts,
  TerminalObservation,
  TerminalPollResult,
  TerminalSource,
} from "../../src/tracking/sources/types";
import { createAccount, type TestAccount } from "../helpers/api";
import {
  boxNumbers,
  containerRow,
  containersOfShipment,
  envWithQueue,
  FakeCarrier,
  FakeTerminal,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
  trackerStub,
} from "../helpers/engine";
import { containerFacts, DAY_MS, HOUR_MS, iso, milestone, observation, shipmentFacts } from "../helpers/facts";

// Issue 3, the rail leg (docs/architecture.md §Tracking pipeline, docs/decisions.md §Containers rules 5–7): a box that
// continues from the POD by rail is polled at the POD terminal while it waits there for the train (discharge, holds,
// on-dock rail position, `pod_last_tracking_request_at`) and at the inland ramp from the discharge on (unloading,
// availability, rail LFD, `rail_last_tracking_request_at`); once the train has left, only the ramp. Real Tracker DO and
// D1; the carrier and both facilities are fakes injected through `deps.sources`, on a FakeClock years ahead (no alarm
// fires).

const SCAC = "FAKE";
const POL = "CNYTN";
const POD = "USLAX";
const POD_TERMINAL = "Y257";
const DESTINATION = "USCHI";
const RAMP = "USCHIBNSF";

const nextBox = boxNumbers("RALU", 300_000);

/** A Yantian → Los Angeles → Chicago (BNSF ramp) journey, relative to `t0` in days. */
function railJourney(number: string, t0: number) {
  const at = (days: number) => iso(t0 + days * DAY_MS);
  const m = (event: Milestone["event"], days: number, locode: string) =>
    milestone(event, at(days), locode, { id: `${number}/${event}/${days}` });
  return {
    at,
    atSea: [m("container.transport.vessel_loaded", -3, POL), m("container.transport.vessel_departed", -2, POL)],
    atPod: [m("container.transport.vessel_arrived", 1, POD), m("container.transport.vessel_discharged", 1.2, POD)],
    railOut: [m("container.transport.rail_loaded", 1.8, POD), m("container.transport.rail_departed", 2, POD)],
    railEta: milestone("container.transport.arrived_at_inland_destination", at(4), DESTINATION, { estimated: true }),
    railIn: [
      m("container.transport.rail_arrived", 4, DESTINATION),
      m("container.transport.arrived_at_inland_destination", 4, DESTINATION),
      m("container.transport.rail_unloaded", 4.2, DESTINATION),
    ],
  };
}

function railFacts(bl: string, number: string, milestones: Milestone[]): ShipmentFacts {
  return shipmentFacts([containerFacts(number, milestones)], {
    billOfLadingNumber: bl,
    podTerminalCode: POD_TERMINAL,
    destinationLocode: DESTINATION,
    destinationTerminalCode: RAMP,
  });
}

const found = (shipment: ShipmentFacts): LookupResult => ({ kind: "found", shipment });
const seen = (o: TerminalObservation): TerminalPollResult => ({ kind: "found", observation: o });
const NOT_FOUND: TerminalPollResult = { kind: "not_found" };

/** Inserts a BL tracking request and runs the real lookup consumer; returns the container id. */
async function track(account: TestAccount, bl: string, sources: SourceRegistry, clock: FakeClock): Promise<string> {
  const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  expect(request.status).toBe("created");
  const [container] = await containersOfShipment(request.shipment_id ?? "");
  if (!container) throw new Error("no container row");
  return container.id;
}

/** A rail move's box with a fake carrier, POD terminal and ramp whose answers each test sets. */
async function railBox() {
  const number = nextBox();
  const bl = `RAILBL-${number}`;
  const j = railJourney(number, FUTURE_T0);
  const world = {
    milestones: [...j.atSea, j.railEta],
    pod: NOT_FOUND as TerminalPollResult,
    ramp: NOT_FOUND as TerminalPollResult,
  };
  const carrier = new FakeCarrier(SCAC, () => found(railFacts(bl, number, world.milestones)));
  const podTerminal = new FakeTerminal(POD_TERMINAL, () => world.pod);
  const ramp = new FakeTerminal(RAMP, () => world.ramp);
  const sources = registryOf([carrier], [podTerminal, ramp]);
  const clock = new FakeClock(FUTURE_T0);
  const containerId = await track(await createAccount(), bl, sources, clock);
  const stub = trackerStub(SCAC, number);
  const poll = (days: number) => {
    clock.set(FUTURE_T0 + days * DAY_MS);
    return pollBox({ env: envWithQueue(recordingQueue()), clock, sources }, { scac: SCAC, number });
  };
  return { number, j, world, carrier, podTerminal, ramp, clock, containerId, stub, poll };
}

describe("rail moves: which facility is polled when", () => {
  it("POD terminal while the box waits for the train, ramp from discharge on, only the ramp once the train left", async () => {
    const box = await railBox();
    const { j, world } = box;

    // On the water: the POD terminal is asked (as for any box), the ramp not yet.
    expect(await box.stub.pollPlan()).toMatchObject({ facilityCode: POD_TERMINAL, railFacilityCode: null });
    await box.poll(0.5);
    expect([box.podTerminal.calls, box.ramp.calls]).toEqual([1, 0]);

    // Discharged at the POD, a customs hold on the box at the terminal, which holds it on the on-dock rail.
    world.milestones = [...j.atSea, ...j.atPod, j.railEta];
    const hold: TerminalHold = { name: "customs", status: "hold", description: "CBP hold" };
    world.pod = seen(
      observation(j.at(1.3), {
        availabilityKnown: true,
        availableForPickup: false,
        holds: [hold],
        locationAtTerminal: "On-dock rail",
        dischargedAt: j.at(1.2),
      }),
    );
    await box.poll(1.3);
    let row = await containerRow(box.containerId);
    expect(row).toMatchObject({
      current_status: "awaiting_inland_transfer",
      location_at_pod_terminal: "On-dock rail",
      terminal_checked_at: j.at(1.3),
      pod_last_tracking_request_at: j.at(1.3),
      rail_last_tracking_request_at: null,
      // Availability is the pickup facility's (the ramp): the POD terminal's "not for truck pickup" is not it.
      availability_known: 0,
      available_for_pickup: null,
    });
    expect(JSON.parse(row.holds_at_pod_terminal)).toEqual([hold]);

    // From the discharge on both are asked: the ramp does not have the box yet (an answer all the same).
    expect(await box.stub.pollPlan()).toMatchObject({ facilityCode: POD_TERMINAL, railFacilityCode: RAMP });
    world.pod = seen(
      observation(j.at(1.5), {
        availabilityKnown: true,
        availableForPickup: false,
        locationAtTerminal: "On-dock rail",
      }),
    );
    await box.poll(1.5);
    expect([box.podTerminal.calls, box.ramp.calls]).toEqual([3, 1]);
    row = await containerRow(box.containerId);
    expect(JSON.parse(row.holds_at_pod_terminal)).toEqual([]);
    expect(row).toMatchObject({ pod_last_tracking_request_at: j.at(1.5), rail_last_tracking_request_at: j.at(1.5) });

    // The train leaves: on rail; the POD terminal's last view no longer describes where the box is.
    world.milestones = [...j.atSea, ...j.atPod, ...j.railOut, j.railEta];
    await box.poll(2.1);
    row = await containerRow(box.containerId);
    expect(row).toMatchObject({
      current_status: "on_rail",
      pod_rail_loaded_at: j.at(1.8),
      pod_rail_departed_at: j.at(2),
      location_at_pod_terminal: null,
      pod_last_tracking_request_at: j.at(2.1),
    });
    expect(await box.stub.pollPlan()).toMatchObject({ facilityCode: null, railFacilityCode: RAMP });
    const podCallsAfterDeparture = box.podTerminal.calls;
    await box.poll(3);
    expect(box.podTerminal.calls).toBe(podCallsAfterDeparture);
    // The ramp: at 1.5, 2.1 and now.
    expect(box.ramp.calls).toBe(3);

    // Unloaded at the ramp, which makes it available with its own (rail) LFD.
    world.milestones = [...j.atSea, ...j.atPod, ...j.railOut, ...j.railIn];
    world.ramp = seen(
      observation(j.at(4.3), { availabilityKnown: true, availableForPickup: true, pickupLfd: j.at(7) }),
    );
    await box.poll(4.3);
    row = await containerRow(box.containerId);
    expect(row).toMatchObject({
      current_status: "available",
      available_for_pickup: 1,
      ind_rail_unloaded_at: j.at(4.2),
      pickup_lfd_rail: j.at(7),
      pickup_lfd_terminal: null,
      pickup_lfd: j.at(7),
      rail_last_tracking_request_at: j.at(4.3),
      // The POD terminal was last asked before the train left.
      pod_last_tracking_request_at: j.at(2.1),
      terminal_checked_at: j.at(4.3),
    });
    expect(box.podTerminal.calls).toBe(podCallsAfterDeparture);
  });

  it("a carrier that reports no rail milestones: the ramp is polled anyway and brings the box to available", async () => {
    const box = await railBox();
    const { j, world } = box;
    world.milestones = [...j.atSea, ...j.atPod];
    await box.poll(1.3);
    expect(await box.stub.pollPlan()).toMatchObject({ facilityCode: POD_TERMINAL, railFacilityCode: RAMP });
    expect((await containerRow(box.containerId)).current_status).toBe("awaiting_inland_transfer");

    world.ramp = seen(
      observation(j.at(4.5), { availabilityKnown: true, availableForPickup: true, dischargedAt: j.at(4.2) }),
    );
    await box.poll(4.5);
    expect(await containerRow(box.containerId)).toMatchObject({
      current_status: "available",
      ind_rail_unloaded_at: j.at(4.2),
      rail_last_tracking_request_at: j.at(4.5),
    });
    // At the pickup facility: the POD terminal is no longer asked.
    expect(await box.stub.pollPlan()).toMatchObject({ facilityCode: null, railFacilityCode: RAMP });
  });

  it("the POD terminal's discharge time stands in for a carrier that has not reported it", async () => {
    const box = await railBox();
    const { j, world } = box;
    world.milestones = [...j.atSea, j.atPod[0] as Milestone];
    world.pod = seen(observation(j.at(1.4), { dischargedAt: j.at(1.25), locationAtTerminal: "On-dock rail" }));
    await box.poll(1.4);
    expect(await containerRow(box.containerId)).toMatchObject({
      current_status: "awaiting_inland_transfer",
      pod_discharged_at: j.at(1.25),
    });
    expect((await box.stub.pollPlan())?.railFacilityCode).toBe(RAMP);
  });
});

describe("a simulated rail journey through the poll consumer", () => {
  it("asks the POD terminal until the train leaves and the ramp from discharge on, and ends empty returned", async () => {
    // The first MAEU BL whose simulated journey continues inland by rail (deterministic: the plan depends only on
    // the number; the anchor only places it in time).
    const speed = 1;
    const bl = Array.from({ length: 200 }, (_, i) => `MAEU${700_000_000 + i * 7919}`).find(
      (n) => planJourney({ scac: "MAEU", number: n, requestType: "bill_of_lading", speed, anchorMs: FUTURE_T0 }).inland,
    );
    if (!bl) throw new Error("no rail journey among the candidates");
    const journey = planJourney({
      scac: "MAEU",
      number: bl,
      requestType: "bill_of_lading",
      speed,
      anchorMs: FUTURE_T0,
    });
    const inland = journey.inland;
    const box = journey.containers[0];
    if (!inland || !box) throw new Error("not a rail journey");

    const simulator = createSimulatorSource({ speed });
    const asked: string[] = [];
    const terminal: TerminalSource = {
      name: simulator.terminal.name,
      supports: (code, scac) => simulator.terminal.supports(code, scac),
      poll: (query, ctx) => {
        asked.push(query.facilityCode);
        return simulator.terminal.poll(query, ctx);
      },
    };
    const sources = registryOf([simulator.carrier], [terminal]);
    const clock = new FakeClock(FUTURE_T0);
    const account = await createAccount();
    const requestId = await insertRequest(account, { number: bl, scac: "MAEU", createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: envWithQueue(recordingQueue()), clock, sources },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    const rows = await containersOfShipment((await requestRow(requestId)).shipment_id ?? "");
    const containerId = rows.find((r) => r.number === box.number)?.id;
    if (!containerId) throw new Error("no row for the box");

    // A poll starts from the state of the poll before: the one just after the departure may still ask the POD.
    const wellAfterDepartureMs = realMsOf(journey, inland.railDepartedDay + 0.5);
    const statuses: string[] = [];
    const askedAfterDeparture = new Set<string>();
    let podAskedWhileWaiting = false;
    let sawRailCheck = false;
    for (let day = 0; day <= box.emptyInDay + 1; day += 0.5) {
      clock.set(realMsOf(journey, day));
      asked.length = 0;
      await pollBox({ env: envWithQueue(recordingQueue()), clock, sources }, { scac: "MAEU", number: box.number });
      const row = await containerRow(containerId);
      if (statuses.at(-1) !== row.current_status) statuses.push(row.current_status);
      if (row.current_status === "awaiting_inland_transfer" && asked.includes(journey.podTerminal.code)) {
        podAskedWhileWaiting = true;
      }
      if (clock.now() > wellAfterDepartureMs) for (const code of asked) askedAfterDeparture.add(code);
      if (row.rail_last_tracking_request_at === iso(clock.now())) sawRailCheck = true;
      if (row.current_status === "empty_returned") break;
    }
    expect(statuses).toEqual([
      "on_ship",
      "awaiting_inland_transfer",
      "on_rail",
      "grounded",
      "not_available",
      "available",
      "picked_up",
      "empty_returned",
    ]);
    expect(podAskedWhileWaiting).toBe(true);
    expect([...askedAfterDeparture]).toEqual([inland.ramp.code]);
    expect(sawRailCheck).toBe(true);
    const done = await containerRow(containerId);
    expect(done.pickup_lfd_rail).not.toBeNull();
    expect(done.final_destination_full_out_at).not.toBeNull();
  }, 30_000); // some 40 polls of a real Tracker and D1: about a second, more on a busy machine
});

describe("facilitiesToPoll and the rail-leg schedule (pure)", () => {
  const NOW = Date.UTC(2031, 2, 1);
  const at = (days: number) => iso(NOW + days * DAY_MS);
  const number = withCheckDigit("RALU999001");
  const stateOf = (shipment: ShipmentFacts, ramp: TerminalObservation | null = null) =>
    deriveContainerState(shipment, shipment.containers[0] as never, ramp, { deliveredAt: null });
  const shipmentWith = (milestones: Milestone[], extra: Partial<ShipmentFacts> = {}) =>
    shipmentFacts([containerFacts(number, milestones)], {
      destinationLocode: DESTINATION,
      destinationTerminalCode: RAMP,
      ...extra,
    });
  const discharged = milestone("container.transport.vessel_discharged", at(-1), POD);
  const railLoaded = milestone("container.transport.rail_loaded", at(-0.5), POD);
  const railDeparted = milestone("container.transport.rail_departed", at(-0.4), POD);

  it("asks nothing before any facts, and only the POD terminal without an inland leg", () => {
    expect(facilitiesToPoll(null, null)).toEqual({ podTerminalCode: null, inlandRampCode: null });
    const local = shipmentFacts([containerFacts(number, [discharged])]);
    expect(facilitiesToPoll(local, stateOf(local))).toEqual({ podTerminalCode: "Y257", inlandRampCode: null });
    // A destination equal to the POD is no inland leg.
    const same = shipmentWith([discharged], { destinationLocode: POD });
    expect(facilitiesToPoll(same, stateOf(same))).toEqual({ podTerminalCode: "Y257", inlandRampCode: null });
  });

  it("follows the box along the rail leg", () => {
    const atSea = shipmentWith([]);
    expect(facilitiesToPoll(atSea, stateOf(atSea))).toEqual({ podTerminalCode: "Y257", inlandRampCode: null });
    const waiting = shipmentWith([discharged]);
    expect(facilitiesToPoll(waiting, stateOf(waiting))).toEqual({ podTerminalCode: "Y257", inlandRampCode: RAMP });
    const loaded = shipmentWith([discharged, railLoaded]);
    expect(facilitiesToPoll(loaded, stateOf(loaded))).toEqual({ podTerminalCode: "Y257", inlandRampCode: RAMP });
    const gone = shipmentWith([discharged, railLoaded, railDeparted]);
    expect(facilitiesToPoll(gone, stateOf(gone))).toEqual({ podTerminalCode: null, inlandRampCode: RAMP });
    // Rail loaded reported without the discharge: the box is at the POD all the same.
    const loadedOnly = shipmentWith([railLoaded]);
    expect(facilitiesToPoll(loadedOnly, stateOf(loadedOnly)).inlandRampCode).toBe(RAMP);
    // The ramp unloaded the box, no rail milestone from the carrier: past the POD.
    const unloaded = shipmentWith([discharged]);
    const rampView = observation(at(0), { dischargedAt: at(-0.1) });
    expect(facilitiesToPoll(unloaded, stateOf(unloaded, rampView))).toEqual({
      podTerminalCode: null,
      inlandRampCode: RAMP,
    });
    // No ramp named by the carrier: nothing to ask inland.
    const noRamp = shipmentWith([discharged], { destinationTerminalCode: null });
    expect(facilitiesToPoll(noRamp, stateOf(noRamp))).toEqual({ podTerminalCode: "Y257", inlandRampCode: null });
  });

  it("on rail: 6 h while the inland ETA is more than a day away, 1 h near it or unknown, 30 min near the LFD", () => {
    const eta = (days: number) =>
      milestone("container.transport.arrived_at_inland_destination", at(days), DESTINATION, { estimated: true });
    const onRail = (etaDays: number | null) => {
      const s = shipmentWith([discharged, railLoaded, railDeparted, ...(etaDays === null ? [] : [eta(etaDays)])]);
      const state = stateOf(s);
      expect(state.currentStatus).toBe("on_rail");
      return state;
    };
    const shipmentState = { podEtaAt: null } as never;
    expect(nextPollDelayMs(onRail(3), shipmentState, NOW)).toBe(6 * HOUR_MS);
    expect(nextPollDelayMs(onRail(0.5), shipmentState, NOW)).toBe(HOUR_MS);
    expect(nextPollDelayMs(onRail(-0.2), shipmentState, NOW)).toBe(HOUR_MS);
    expect(nextPollDelayMs(onRail(null), shipmentState, NOW)).toBe(HOUR_MS);
    expect(nextPollDelayMs({ ...onRail(3), pickupLfd: at(0.5) }, shipmentState, NOW)).toBe(30 * 60_000);
    // Simulated time: 3 simulated days at 1440× are 3 real minutes.
    const sim = { ...onRail(3), indEtaAt: iso(NOW + 3 * 60_000) };
    expect(nextPollDelayMs(sim, shipmentState, NOW, 1440)).toBe((6 * HOUR_MS) / 1440);
  });
});
