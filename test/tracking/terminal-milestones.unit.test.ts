import { describe, expect, it } from "vitest";
import { deriveContainerState, deriveShipmentState } from "../../src/tracking/derive";
import {
  diffEvents,
  type PreviousSnapshot,
  recordedActualsAfter,
  type TransportEventRecord,
} from "../../src/tracking/events";
import { milestoneSiteAlias } from "../../src/tracking/identity";
import type { Milestone } from "../../src/tracking/sources/types";
import { terminalMilestones } from "../../src/tracking/terminal-milestones";
import { containerFacts, milestone, observation, shipmentFacts } from "../helpers/facts";

// terminalMilestones and the terminal/carrier dedup of src/tracking/events.ts (issue 14), with plain inputs.

const POD = "USLAX";
const t = (d: number, hh = 12) => `2025-03-${String(d).padStart(2, "0")}T${String(hh).padStart(2, "0")}:00:00Z`;
const SHIPMENT = shipmentFacts([]);
const RAIL = shipmentFacts([], { destinationLocode: "USCHI", destinationTerminalCode: "USCHIBNSF" });

describe("terminalMilestones", () => {
  it("a POD terminal's discharge, full-out and empty return, at the POD terminal, only the discharge with a vessel", () => {
    const view = observation(t(22), { dischargedAt: t(20), fullOutAt: t(21), emptyReturnedAt: t(22) });
    const ms = terminalMilestones(SHIPMENT, [], view, null);
    expect(ms.map((m) => [m.event, m.timestamp, m.locationLocode, m.facilityCode, m.vesselName, m.estimated])).toEqual([
      ["container.transport.vessel_discharged", t(20), POD, "Y257", "TEST VESSEL", false],
      ["container.transport.full_out", t(21), POD, "Y257", null, false],
      ["container.transport.empty_in", t(22), POD, "Y257", null, false],
    ]);
    expect(ms[0]?.raw).toEqual({
      source: "terminal",
      facilityCode: "Y257",
      field: "dischargedAt",
      value: t(20),
      checkedAt: t(22),
    });
  });

  it("nothing the carrier already reports at that place (empty return: anywhere), nothing without a time", () => {
    const view = observation(t(22), { dischargedAt: t(20), fullOutAt: t(21), emptyReturnedAt: t(22) });
    const carrier = [
      milestone("container.transport.vessel_discharged", t(20, 6), POD),
      milestone("container.transport.empty_in", t(22), "USLGB"),
    ];
    expect(terminalMilestones(SHIPMENT, carrier, view, null).map((m) => m.event)).toEqual([
      "container.transport.full_out",
    ]);
    // A carrier's estimate is not a report of the move.
    const estimate = milestone("container.transport.full_out", t(21), POD, { estimated: true });
    expect(terminalMilestones(SHIPMENT, [estimate], observation(t(22)), null)).toEqual([]);
    // A discharge the carrier reports elsewhere (a transshipment port) does not stand for the POD's.
    const elsewhere = milestone("container.transport.vessel_discharged", t(10), "SGSIN");
    expect(terminalMilestones(SHIPMENT, [elsewhere], view, null).map((m) => m.event)).toContain(
      "container.transport.vessel_discharged",
    );
  });

  it("on a rail move: discharge from the POD terminal, full-out and empty return from the ramp at the destination", () => {
    const pod = observation(t(21), { dischargedAt: t(20) });
    const ramp = observation(t(25), { dischargedAt: t(24), fullOutAt: t(25) });
    const ms = terminalMilestones(RAIL, [], ramp, pod);
    expect(ms.map((m) => [m.event, m.timestamp, m.locationLocode, m.facilityCode])).toEqual([
      ["container.transport.vessel_discharged", t(20), POD, "Y257"],
      ["container.transport.full_out", t(25), "USCHI", "USCHIBNSF"],
    ]);
    // The ramp's `dischargedAt` (the rail unload) is never a vessel discharge.
    expect(terminalMilestones(RAIL, [], ramp, null).map((m) => m.event)).toEqual(["container.transport.full_out"]);
  });

  it("no place, no milestone", () => {
    const noPod = shipmentFacts([], { portOfDischargeLocode: null });
    expect(terminalMilestones(noPod, [], observation(t(22), { dischargedAt: t(20), fullOutAt: t(21) }), null)).toEqual(
      [],
    );
  });
});

describe("milestoneSiteAlias", () => {
  it("event and UN/LOCODE for discharge and full-out, event only for the empty return, null otherwise", () => {
    expect(milestoneSiteAlias(milestone("container.transport.vessel_discharged", t(20), POD))).toBe(
      "site|container.transport.vessel_discharged|USLAX",
    );
    expect(milestoneSiteAlias(milestone("container.transport.empty_in", t(20), "USLGB"))).toBe(
      "site|container.transport.empty_in|",
    );
    expect(milestoneSiteAlias(milestone("container.transport.vessel_loaded", t(1), "CNYTN"))).toBeNull();
    expect(milestoneSiteAlias(milestone("container.transport.full_out", t(21), POD, { estimated: true }))).toBeNull();
  });
});

/** One update as the Tracker makes it: the carrier's milestones and the terminal's view, against `previous`. */
function update(previous: PreviousSnapshot, carrier: Milestone[], view: ReturnType<typeof observation> | null) {
  const box = containerFacts("TSTU9000001", carrier);
  const shipment = shipmentFacts([box]);
  const state = deriveContainerState(shipment, box, view, { deliveredAt: null });
  const facility = terminalMilestones(shipment, carrier, view, null);
  const events = diffEvents(previous, carrier, state, deriveShipmentState(shipment), t(25), facility).filter(
    (e): e is TransportEventRecord => e.kind === "transport_event",
  );
  const next: PreviousSnapshot = {
    state,
    shipment: deriveShipmentState(shipment),
    recordedKeys: new Set(),
    recordedActuals: recordedActualsAfter(previous, carrier, facility),
  };
  return { events, next };
}

describe("terminal and carrier copies of one move", () => {
  const start: PreviousSnapshot = { state: null, shipment: null, recordedKeys: new Set() };
  const view = observation(t(21), { dischargedAt: t(20) });
  const carrierDischarge = { ...milestone("container.transport.vessel_discharged", t(20, 14), POD), vesselImo: null };

  it("terminal first: a terminal event; the carrier's copy at another time: the same key, quiet, its time", () => {
    const first = update(start, [], view);
    expect(first.events.map((e) => [e.event, e.dataSource, e.revision, e.quiet ?? false])).toEqual([
      ["container.transport.vessel_discharged", "terminal", null, false],
    ]);
    const second = update(first.next, [carrierDischarge], view);
    expect(second.events.map((e) => [e.key, e.dataSource, e.revision, e.quiet])).toEqual([
      [first.events[0]?.key, "shipping_line", t(20, 14), true],
    ]);
    // From then on it is the carrier's: a replay is nothing, the carrier's own correction is announced.
    expect(update(second.next, [carrierDischarge], view).events).toEqual([]);
    const corrected = { ...carrierDischarge, timestamp: t(20, 16) };
    expect(update(second.next, [corrected], view).events.map((e) => [e.key, e.revision, e.quiet ?? false])).toEqual([
      [first.events[0]?.key, t(20, 16), false],
    ]);
  });

  it("carrier first: the terminal's copy adds nothing, even after the carrier stops listing it", () => {
    const first = update(start, [carrierDischarge], observation(t(21)));
    expect(first.events.map((e) => e.dataSource)).toEqual(["shipping_line"]);
    const second = update(first.next, [carrierDischarge], view);
    expect(second.events).toEqual([]);
    expect(update(second.next, [], view).events).toEqual([]);
  });

  it("the terminal correcting its own time is a correction; dropping it retracts nothing", () => {
    const first = update(start, [], view);
    const moved = update(first.next, [], observation(t(21), { dischargedAt: t(20, 2) }));
    expect(moved.events.map((e) => [e.key, e.revision, e.dataSource])).toEqual([
      [first.events[0]?.key, t(20, 2), "terminal"],
    ]);
    const dropped = update(moved.next, [], observation(t(22)));
    expect(dropped.events).toEqual([]);
    expect(dropped.next.recordedActuals).toEqual(moved.next.recordedActuals);
  });
});
