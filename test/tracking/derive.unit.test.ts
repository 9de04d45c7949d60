import { describe, expect, it } from "vitest";
import { findTerminalByCode } from "../../src/reference/locations";
import {
  type ContainerState,
  coalescePickupLfd,
  deriveContainerState,
  deriveShipmentState,
} from "../../src/tracking/derive";
import type { ContainerFacts, Milestone, ShipmentFacts, TerminalObservation } from "../../src/tracking/sources/types";
import { containerFacts, milestone, observation, shipmentFacts } from "../helpers/facts";

// deriveContainerState / deriveShipmentState (docs/architecture.md §Tracking pipeline step 4,
// docs/decisions.md §Containers): how carrier milestones and a terminal (or inland ramp) observation become the
// container's attributes and current_status.

const POL = "CNYTN";
const POD = "USLAX";
const TS = "SGSIN";
const DEST = "USCHI";
const RAMP = "USCHIBNSF";
const BOX = "TSTU9000001";

const FENIX_ID = findTerminalByCode("Y257")?.id;
const RAMP_ID = findTerminalByCode(RAMP)?.id;

/** Day `d` of March 2025 at `hh`:00 UTC. */
const t = (d: number, hh = 12) => `2025-03-${String(d).padStart(2, "0")}T${String(hh).padStart(2, "0")}:00:00Z`;

const direct =
  (extra: Partial<ShipmentFacts> = {}) =>
  (box: ContainerFacts) =>
    shipmentFacts([box], extra);
const inland = (extra: Partial<ShipmentFacts> = {}) =>
  direct({ destinationLocode: DEST, destinationTerminalCode: RAMP, ...extra });

/** The state of a box with these milestones on a direct (POD pickup) or inland move. */
function stateOf(
  milestones: Milestone[],
  options: {
    inland?: boolean;
    terminal?: TerminalObservation | null;
    box?: Partial<ContainerFacts>;
    deliveredAt?: string | null;
  } = {},
): ContainerState {
  const box = containerFacts(BOX, milestones, options.box);
  const shipment = (options.inland ? inland() : direct())(box);
  return deriveContainerState(shipment, box, options.terminal ?? null, { deliveredAt: options.deliveredAt ?? null });
}

// A direct import journey, step by step (each entry adds to the previous ones).
const LOADED = milestone("container.transport.vessel_loaded", t(1), POL);
const DEPARTED = milestone("container.transport.vessel_departed", t(2), POL);
const ARRIVED = milestone("container.transport.vessel_arrived", t(20, 6), POD, { facility: "Y257" });
const DISCHARGED = milestone("container.transport.vessel_discharged", t(20, 18), POD, { facility: "Y257" });
const FULL_OUT = milestone("container.transport.full_out", t(23), POD, { facility: "Y257" });
const EMPTY_IN = milestone("container.transport.empty_in", t(26), POD);

// Its rail continuation to Chicago.
const RAIL_LOADED = milestone("container.transport.rail_loaded", t(21), POD);
const RAIL_DEPARTED = milestone("container.transport.rail_departed", t(21, 20), POD);
const INLAND_ETA = milestone("container.transport.arrived_at_inland_destination", t(25), DEST, { estimated: true });
const RAIL_ARRIVED = milestone("container.transport.rail_arrived", t(25, 6), DEST);
const INLAND_ARRIVED = milestone("container.transport.arrived_at_inland_destination", t(25, 6), DEST);
const RAIL_UNLOADED = milestone("container.transport.rail_unloaded", t(25, 10), DEST);
const INLAND_FULL_OUT = milestone("container.transport.full_out", t(27), DEST, { facility: RAMP });
const INLAND_EMPTY_IN = milestone("container.transport.empty_in", t(29), DEST);

const CUSTOMS_HOLD = { name: "customs" as const, status: "hold" as const, description: "CBP HOLD" };

describe("deriveContainerState: milestones → attributes", () => {
  it("takes POL times from the first actual milestone at the POL, never from an estimate or another port", () => {
    const s = stateOf([
      milestone("container.transport.empty_out", t(1, 1), POL),
      milestone("container.transport.full_in", t(1, 6), POL),
      milestone("container.transport.vessel_departed", t(1, 8), POL, { estimated: true }),
      milestone("container.transport.vessel_loaded", t(1, 9), POL),
      milestone("container.transport.vessel_departed", t(2), POL),
      // A later departure reported at another port (a mislabelled transshipment) is not the POL departure.
      milestone("container.transport.vessel_departed", t(10), TS),
      milestone("container.transport.vessel_loaded", t(10, 1), TS),
    ]);
    expect(s).toMatchObject({
      emptyOutAt: t(1, 1),
      polFullInAt: t(1, 6),
      polVesselLoadedAt: t(1, 9),
      polVesselDepartedAt: t(2),
      podArrivedAt: null,
      podDischargedAt: null,
      currentStatus: "on_ship",
    });
  });

  it("falls back to the carrier's POL facts when it reports no milestone", () => {
    const s = stateOf([], { box: { polVesselLoadedAt: t(1), polVesselDepartedAt: t(2), emptyOutAt: t(1, 1) } });
    expect(s).toMatchObject({ polVesselLoadedAt: t(1), polVesselDepartedAt: t(2), emptyOutAt: t(1, 1) });
    expect(s.currentStatus).toBe("on_ship");
  });

  it("takes arrival, discharge and full-out only at the POD, not at a transshipment port", () => {
    const s = stateOf([
      LOADED,
      DEPARTED,
      milestone("container.transport.vessel_arrived", t(10), TS),
      milestone("container.transport.vessel_discharged", t(10, 6), TS),
      milestone("container.transport.full_out", t(10, 8), TS),
      ARRIVED,
      DISCHARGED,
    ]);
    expect(s).toMatchObject({
      podArrivedAt: ARRIVED.timestamp,
      podDischargedAt: DISCHARGED.timestamp,
      podFullOutAt: null,
    });
    expect(s.currentStatus).toBe("grounded");
  });

  it("a direct move: full-out at the POD is the pickup, the inland fields stay null", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT]);
    expect(s).toMatchObject({
      podFullOutAt: FULL_OUT.timestamp,
      finalDestinationFullOutAt: null,
      podRailLoadedAt: null,
      podRailDepartedAt: null,
      indEtaAt: null,
      indAtaAt: null,
      indRailUnloadedAt: null,
      finalDestinationTimezone: null,
      pickupFacilityId: null,
      currentStatus: "picked_up",
    });
  });

  it("an inland move: rail times, inland ETA/ATA and the full-out at the destination; a POD full-out is no pickup", () => {
    const all = [
      LOADED,
      DEPARTED,
      ARRIVED,
      DISCHARGED,
      RAIL_LOADED,
      RAIL_DEPARTED,
      INLAND_ETA,
      RAIL_ARRIVED,
      INLAND_ARRIVED,
      RAIL_UNLOADED,
      INLAND_FULL_OUT,
    ];
    const s = stateOf(all, { inland: true });
    expect(s).toMatchObject({
      podDischargedAt: DISCHARGED.timestamp,
      podRailLoadedAt: RAIL_LOADED.timestamp,
      podRailDepartedAt: RAIL_DEPARTED.timestamp,
      indEtaAt: INLAND_ETA.timestamp,
      indAtaAt: INLAND_ARRIVED.timestamp,
      indRailUnloadedAt: RAIL_UNLOADED.timestamp,
      finalDestinationFullOutAt: INLAND_FULL_OUT.timestamp,
      podFullOutAt: null,
      currentStatus: "picked_up",
    });
    // A gate-out at the POD of a box that continues by rail is not its pickup.
    const atPod = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT], { inland: true });
    expect(atPod).toMatchObject({ podFullOutAt: null, finalDestinationFullOutAt: null });
    expect(atPod.currentStatus).toBe("awaiting_inland_transfer");
  });

  it("copies equipment, seal, weight, rail carriers and the line's LFD from the carrier", () => {
    const s = stateOf([], {
      box: {
        sealNumber: "SL1",
        weightInLbs: 12_345,
        podRailCarrierScac: "BNSF",
        indRailCarrierScac: "UPRR",
        pickupLfdLine: t(24),
      },
    });
    expect(s).toMatchObject({
      sealNumber: "SL1",
      equipmentType: "dry",
      equipmentLength: 40,
      equipmentHeight: "high_cube",
      weightInLbs: 12_345,
      podRailCarrierScac: "BNSF",
      indRailCarrierScac: "UPRR",
      pickupLfdLine: t(24),
      pickupLfd: t(24),
    });
  });
});

describe("deriveContainerState: the terminal observation", () => {
  const seen = observation(t(22), {
    availabilityKnown: true,
    availableForPickup: true,
    pickupLfd: t(24),
    pickupAppointmentAt: t(23, 9),
    locationAtTerminal: "Row 7",
    holds: [{ name: "TMF", status: "pending", description: null }],
    fees: [{ type: "demurrage", amount: 0, currency_code: "USD" }],
  });

  it("at the POD: its LFD is pickup_lfd_terminal, the POD terminal is known and there is no pickup facility", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED], { terminal: seen });
    expect(FENIX_ID).toBeTruthy();
    expect(s).toMatchObject({
      pickupLfdTerminal: t(24),
      pickupLfdRail: null,
      pickupLfd: t(24),
      podTerminalId: FENIX_ID,
      pickupFacilityId: null,
      availabilityKnown: true,
      availableForPickup: true,
      pickupAppointmentAt: t(23, 9),
      locationAtPodTerminal: "Row 7",
      terminalCheckedAt: t(22),
      holdsAtPodTerminal: [{ name: "TMF", status: "pending", description: null }],
      feesAtPodTerminal: [{ type: "demurrage", amount: 0, currency_code: "USD" }],
      currentStatus: "available",
    });
  });

  it("at an inland ramp: its LFD is pickup_lfd_rail and the ramp is the pickup facility", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED, RAIL_LOADED, RAIL_DEPARTED, RAIL_UNLOADED], {
      inland: true,
      terminal: seen,
    });
    expect(RAMP_ID).toBeTruthy();
    expect(s).toMatchObject({
      pickupLfdTerminal: null,
      pickupLfdRail: t(24),
      pickupLfd: t(24),
      podTerminalId: FENIX_ID,
      pickupFacilityId: RAMP_ID,
      currentStatus: "available",
    });
  });

  it("without an observation availability is unknown and holds and fees are empty", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED]);
    expect(s).toMatchObject({
      availabilityKnown: false,
      availableForPickup: null,
      holdsAtPodTerminal: [],
      feesAtPodTerminal: [],
      terminalCheckedAt: null,
      currentStatus: "grounded",
    });
  });

  it("availability is null (not false) while the terminal does not know it", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED], {
      terminal: observation(t(21), { availabilityKnown: false, availableForPickup: false }),
    });
    expect(s.availableForPickup).toBeNull();
    expect(s.currentStatus).toBe("grounded");
  });
});

describe("pickup_lfd coalesces line → terminal → rail (docs/decisions.md §Containers)", () => {
  it.each([
    ["line wins over terminal and rail", t(24), t(25), t(26), t(24)],
    ["terminal when the line has none", null, t(25), t(26), t(25)],
    ["rail when neither line nor terminal has one", null, null, t(26), t(26)],
    ["null when none is known", null, null, null, null],
  ] as const)("%s", (_name, line, terminal, rail, expected) => {
    expect(coalescePickupLfd(line, terminal, rail)).toBe(expected);
  });

  it("through derivation: the line's LFD beats the terminal's, the terminal's is used without it", () => {
    const milestones = [LOADED, DEPARTED, ARRIVED, DISCHARGED];
    const terminal = observation(t(21), { availabilityKnown: true, availableForPickup: true, pickupLfd: t(25) });
    expect(stateOf(milestones, { terminal, box: { pickupLfdLine: t(24) } })).toMatchObject({
      pickupLfdLine: t(24),
      pickupLfdTerminal: t(25),
      pickupLfd: t(24),
    });
    expect(stateOf(milestones, { terminal }).pickupLfd).toBe(t(25));
  });

  it("through derivation on a rail move: the line's LFD beats the ramp's, the ramp's is used without it", () => {
    const milestones = [LOADED, DEPARTED, ARRIVED, DISCHARGED, RAIL_LOADED, RAIL_UNLOADED];
    const terminal = observation(t(26), { availabilityKnown: true, availableForPickup: true, pickupLfd: t(28) });
    expect(stateOf(milestones, { inland: true, terminal, box: { pickupLfdLine: t(27) } })).toMatchObject({
      pickupLfdRail: t(28),
      pickupLfd: t(27),
    });
    expect(stateOf(milestones, { inland: true, terminal }).pickupLfd).toBe(t(28));
  });
});

describe("deriveContainerState: time zones from the reference data", () => {
  it("POD, inland destination and empty-return zones", () => {
    const direct = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT, EMPTY_IN]);
    expect(direct).toMatchObject({
      podTimezone: "America/Los_Angeles",
      finalDestinationTimezone: null,
      emptyTerminatedAt: EMPTY_IN.timestamp,
      emptyTerminatedTimezone: "America/Los_Angeles",
      podLocode: POD,
    });
    const rail = stateOf([LOADED, ARRIVED, DISCHARGED, RAIL_LOADED, RAIL_UNLOADED, INLAND_FULL_OUT, INLAND_EMPTY_IN], {
      inland: true,
    });
    expect(rail).toMatchObject({
      podTimezone: "America/Los_Angeles",
      finalDestinationTimezone: "America/Chicago",
      emptyTerminatedTimezone: "America/Chicago",
    });
  });

  it("no empty return → no empty-return zone; an unknown port → null zones", () => {
    expect(stateOf([LOADED]).emptyTerminatedTimezone).toBeNull();
    const box = containerFacts(BOX, [LOADED]);
    const s = deriveContainerState(
      shipmentFacts([box], { portOfDischargeLocode: "ZZZZZ", podTerminalCode: null }),
      box,
      null,
      { deliveredAt: null },
    );
    expect(s).toMatchObject({ podTimezone: null, podTerminalId: null, podLocode: "ZZZZZ" });
  });
});

describe("current_status through a journey", () => {
  const available = observation(t(21), { availabilityKnown: true, availableForPickup: true });
  const held = observation(t(21), { availabilityKnown: true, availableForPickup: false, holds: [CUSTOMS_HOLD] });

  it("a direct import: new → on_ship → grounded → not_available → available → picked_up → empty_returned", () => {
    const steps: [Milestone[], TerminalObservation | null][] = [
      [[], null],
      [[LOADED], null],
      [[LOADED, DEPARTED, ARRIVED], null],
      [[LOADED, DEPARTED, ARRIVED, DISCHARGED], null],
      [[LOADED, DEPARTED, ARRIVED, DISCHARGED], held],
      [[LOADED, DEPARTED, ARRIVED, DISCHARGED], available],
      [[LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT], available],
      [[LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT, EMPTY_IN], null],
    ];
    expect(steps.map(([m, terminal]) => stateOf(m, { terminal }).currentStatus)).toEqual([
      "new",
      "on_ship",
      "on_ship",
      "grounded",
      "not_available",
      "available",
      "picked_up",
      "empty_returned",
    ]);
  });

  it("an inland move: on_ship → awaiting_inland_transfer → on_rail → grounded → available → picked_up → empty_returned", () => {
    const atPod = [LOADED, DEPARTED, ARRIVED, DISCHARGED];
    const steps: [Milestone[], TerminalObservation | null][] = [
      [[LOADED], null],
      [atPod, null],
      [[...atPod, RAIL_LOADED], null],
      [[...atPod, RAIL_LOADED, RAIL_DEPARTED, INLAND_ETA], null],
      [[...atPod, RAIL_LOADED, RAIL_DEPARTED, RAIL_ARRIVED], null],
      [[...atPod, RAIL_LOADED, RAIL_DEPARTED, RAIL_ARRIVED, RAIL_UNLOADED], held],
      [[...atPod, RAIL_LOADED, RAIL_DEPARTED, RAIL_ARRIVED, RAIL_UNLOADED], available],
      [[...atPod, RAIL_LOADED, RAIL_DEPARTED, RAIL_ARRIVED, RAIL_UNLOADED, INLAND_FULL_OUT], available],
      [[...atPod, RAIL_LOADED, RAIL_DEPARTED, RAIL_ARRIVED, RAIL_UNLOADED, INLAND_FULL_OUT, INLAND_EMPTY_IN], null],
    ];
    expect(steps.map(([m, terminal]) => stateOf(m, { inland: true, terminal }).currentStatus)).toEqual([
      "on_ship",
      "awaiting_inland_transfer",
      "on_rail",
      "on_rail",
      "grounded",
      "not_available",
      "available",
      "picked_up",
      "empty_returned",
    ]);
  });

  it("delivered (set by a user) wins over everything the sources say", () => {
    expect(
      stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT, EMPTY_IN], { deliveredAt: t(28) }).currentStatus,
    ).toBe("delivered");
  });
});

describe("deriveContainerState: sources that disagree", () => {
  it("carrier says discharged, terminal says not available with a hold → not_available, the hold shown", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED], {
      terminal: observation(t(21), { availabilityKnown: true, availableForPickup: false, holds: [CUSTOMS_HOLD] }),
    });
    expect(s).toMatchObject({
      currentStatus: "not_available",
      availableForPickup: false,
      podDischargedAt: DISCHARGED.timestamp,
      holdsAtPodTerminal: [CUSTOMS_HOLD],
    });
  });

  it("terminal reports the full-out before the carrier does → picked_up with the terminal's time and chassis", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED], {
      terminal: observation(t(23, 3), {
        availabilityKnown: true,
        availableForPickup: false,
        fullOutAt: t(23, 2),
        fullOutChassisNumber: "DCLZ4000001",
      }),
    });
    expect(s).toMatchObject({
      currentStatus: "picked_up",
      podFullOutAt: t(23, 2),
      podFullOutChassisNumber: "DCLZ4000001",
    });
  });

  it("terminal reports the discharge before the carrier does → the box is at the terminal", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED], {
      terminal: observation(t(21), { availabilityKnown: true, availableForPickup: true, dischargedAt: t(20, 20) }),
    });
    expect(s).toMatchObject({ currentStatus: "available", podDischargedAt: t(20, 20) });
  });

  it("the carrier's own milestone times win over the terminal's", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT], {
      terminal: observation(t(24), { availabilityKnown: true, dischargedAt: t(20, 23), fullOutAt: t(23, 5) }),
    });
    expect(s).toMatchObject({ podDischargedAt: DISCHARGED.timestamp, podFullOutAt: FULL_OUT.timestamp });
  });

  it("carrier reports the full-out while the terminal still says available → picked_up", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT], {
      terminal: observation(t(22), { availabilityKnown: true, availableForPickup: true }),
    });
    expect(s.currentStatus).toBe("picked_up");
  });

  it("terminal says available but still lists a hold → available (status follows availability), hold kept", () => {
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED], {
      terminal: observation(t(21), { availabilityKnown: true, availableForPickup: true, holds: [CUSTOMS_HOLD] }),
    });
    expect(s).toMatchObject({ currentStatus: "available", holdsAtPodTerminal: [CUSTOMS_HOLD] });
  });

  it("terminal moved the box off-dock → off_dock until it is picked up", () => {
    const offDock = observation(t(22), { availabilityKnown: true, availableForPickup: true, offDock: true });
    expect(stateOf([LOADED, ARRIVED, DISCHARGED], { terminal: offDock }).currentStatus).toBe("off_dock");
    expect(stateOf([LOADED, ARRIVED, DISCHARGED, FULL_OUT], { terminal: offDock }).currentStatus).toBe("picked_up");
  });

  it("a ramp observation before the carrier reports the rail leg does not put the box at the ramp", () => {
    // The ramp already publishes availability (pre-advised), but nothing says the box left the POD.
    const s = stateOf([LOADED, DEPARTED, ARRIVED, DISCHARGED], {
      inland: true,
      terminal: observation(t(21), { availabilityKnown: true, availableForPickup: true, pickupLfd: t(28) }),
    });
    expect(s.currentStatus).toBe("awaiting_inland_transfer");
    expect(s.pickupLfdRail).toBe(t(28));
  });
});

describe("deriveContainerState: non-linear reports", () => {
  it("is independent of the order milestones are listed in", () => {
    const ordered = [LOADED, DEPARTED, ARRIVED, DISCHARGED, FULL_OUT, EMPTY_IN];
    const shuffled = [EMPTY_IN, DISCHARGED, LOADED, FULL_OUT, ARRIVED, DEPARTED];
    expect(stateOf(shuffled)).toEqual(stateOf(ordered));
  });

  it("a milestone reported late (the discharge after the full-out) fills in its time without moving the status back", () => {
    const before = stateOf([LOADED, DEPARTED, ARRIVED, FULL_OUT]);
    expect(before).toMatchObject({ currentStatus: "picked_up", podDischargedAt: null });
    const after = stateOf([LOADED, DEPARTED, ARRIVED, FULL_OUT, DISCHARGED]);
    expect(after).toMatchObject({ currentStatus: "picked_up", podDischargedAt: DISCHARGED.timestamp });
  });

  it("an inland ETA revised backwards: the latest report wins, even when it is earlier", () => {
    const first = milestone("container.transport.arrived_at_inland_destination", t(27), DEST, { estimated: true });
    const revised = milestone("container.transport.arrived_at_inland_destination", t(25), DEST, { estimated: true });
    expect(stateOf([LOADED, ARRIVED, DISCHARGED, RAIL_LOADED, first, revised], { inland: true }).indEtaAt).toBe(t(25));
    expect(stateOf([LOADED, ARRIVED, DISCHARGED, RAIL_LOADED, revised, first], { inland: true }).indEtaAt).toBe(t(27));
  });

  it("a corrected actual arrival: the newest actual time at the POD is the arrival", () => {
    const corrected = milestone("container.transport.vessel_arrived", t(20, 9), POD);
    expect(stateOf([LOADED, ARRIVED, corrected]).podArrivedAt).toBe(t(20, 9));
    expect(stateOf([LOADED, corrected, ARRIVED]).podArrivedAt).toBe(t(20, 9));
  });

  it("is pure: the same inputs give the same state and the inputs are not modified", () => {
    const milestones = [DISCHARGED, LOADED, ARRIVED];
    const copy = structuredClone(milestones);
    const a = stateOf(milestones);
    const b = stateOf(milestones);
    expect(a).toEqual(b);
    expect(milestones).toEqual(copy);
  });
});

describe("deriveShipmentState", () => {
  it("reads ETD/ATD at the POL and ETA/ATA at the POD from milestones of every box; other ports' estimates are ignored", () => {
    const a = containerFacts("TSTU9000001", [
      milestone("container.transport.vessel_departed", t(1), POL, { estimated: true }),
      milestone("container.transport.vessel_departed", t(2), POL),
      milestone("container.transport.vessel_arrived", t(9), TS, { estimated: true }),
    ]);
    const b = containerFacts("TSTU9000002", [
      milestone("container.transport.vessel_arrived", t(19), POD, { estimated: true }),
    ]);
    const s = deriveShipmentState(shipmentFacts([a, b], { polEtdAt: t(3), podEtaAt: t(22) }));
    expect(s).toMatchObject({
      portOfLadingLocode: POL,
      portOfDischargeLocode: POD,
      destinationLocode: null,
      polEtdAt: t(1),
      polAtdAt: t(2),
      podEtaAt: t(19),
      podAtaAt: null,
      podVesselName: "TEST VESSEL",
      podVoyageNumber: "100E",
    });
  });

  it("falls back to the shipment facts when no milestone says otherwise", () => {
    const s = deriveShipmentState(
      shipmentFacts([containerFacts(BOX)], {
        polEtdAt: t(1),
        polAtdAt: t(2),
        podEtaAt: t(20),
        podAtaAt: t(20, 6),
        destinationLocode: DEST,
        destinationEtaAt: t(25),
        destinationAtaAt: null,
      }),
    );
    expect(s).toMatchObject({
      polEtdAt: t(1),
      polAtdAt: t(2),
      podEtaAt: t(20),
      podAtaAt: t(20, 6),
      destinationEtaAt: t(25),
      destinationAtaAt: null,
    });
  });

  it("an ETA revised backwards: the latest estimate reported wins; the actual arrival settles the ATA", () => {
    const eta = (day: number) => milestone("container.transport.vessel_arrived", t(day), POD, { estimated: true });
    const shipment = (m: Milestone[]) => deriveShipmentState(shipmentFacts([containerFacts(BOX, m)]));
    expect(shipment([eta(22), eta(19)]).podEtaAt).toBe(t(19));
    expect(shipment([eta(19), eta(22)]).podEtaAt).toBe(t(22));
    expect(shipment([eta(22), ARRIVED])).toMatchObject({ podEtaAt: t(22), podAtaAt: ARRIVED.timestamp });
  });

  it("the line's view of the inland destination: ETA from the latest estimate, ATA from the actual arrival", () => {
    const s = deriveShipmentState(
      shipmentFacts([containerFacts(BOX, [INLAND_ETA, INLAND_ARRIVED])], {
        destinationLocode: DEST,
        destinationEtaAt: t(24),
      }),
    );
    expect(s).toMatchObject({ destinationEtaAt: INLAND_ETA.timestamp, destinationAtaAt: INLAND_ARRIVED.timestamp });
  });
});
