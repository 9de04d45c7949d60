import { describe, expect, it } from "vitest";
import type { TerminalFee, TerminalHold } from "../../src/db/schema";
import { toIsoSeconds } from "../../src/lib/clock";
import { containerChangeset } from "../../src/tracking/changeset";
import {
  type ContainerState,
  deriveContainerState,
  deriveShipmentState,
  type ShipmentState,
} from "../../src/tracking/derive";
import {
  diffEvents,
  type EngineEvent,
  milestoneKey,
  type PreviousSnapshot,
  recordedActualsAfter,
  recordedKeysAfter,
  type TransportEventRecord,
} from "../../src/tracking/events";
import type { Milestone, ShipmentFacts, TerminalObservation } from "../../src/tracking/sources/types";
import { containerFacts, HOUR_MS, milestone, observation, shipmentFacts } from "../helpers/facts";

// diffEvents / containerChangeset (docs/api.md §Holds and docs/webhooks.md §Payloads,
// docs/architecture.md §Tracking pipeline step 4): what one update of a box announces.

const POL = "CNYTN";
const POD = "USLAX";
const BOX = "TSTU9000001";
const NOW = "2025-03-22T10:00:00Z";
const LATER = "2025-03-22T11:00:00Z";

const t = (d: number, hh = 12) => `2025-03-${String(d).padStart(2, "0")}T${String(hh).padStart(2, "0")}:00:00Z`;

const LOADED = milestone("container.transport.vessel_loaded", t(1), POL);
const DEPARTED = milestone("container.transport.vessel_departed", t(2), POL);
const ARRIVED = milestone("container.transport.vessel_arrived", t(20, 6), POD);
const DISCHARGED = milestone("container.transport.vessel_discharged", t(20, 18), POD);
const AT_POD = [LOADED, DEPARTED, ARRIVED, DISCHARGED];
/** The carrier's estimate of the POD arrival: day `day` of March. */
const eta = (day: number) => milestone("container.transport.vessel_arrived", t(day), POD, { estimated: true });

const PENDING: TerminalHold = { name: "customs", status: "pending", description: "CBP EXAM" };
const HOLD: TerminalHold = { name: "customs", status: "hold", description: "CBP EXAM" };
const fee = (amount: number): TerminalFee => ({ type: "demurrage", amount, currency_code: "USD" });

/** One observed moment of a box: its milestones, the line's LFD, the terminal's view and the shipment's extras. */
interface Moment {
  milestones: Milestone[];
  terminal?: Partial<TerminalObservation> | null;
  pickupLfdLine?: string | null;
  shipment?: Partial<ShipmentFacts>;
}

function derive(moment: Moment): { state: ContainerState; shipment: ShipmentState; milestones: Milestone[] } {
  const box = containerFacts(BOX, moment.milestones, { pickupLfdLine: moment.pickupLfdLine ?? null });
  const shipment = shipmentFacts([box], moment.shipment);
  const terminal = moment.terminal === undefined || moment.terminal === null ? null : observation(NOW, moment.terminal);
  return {
    state: deriveContainerState(shipment, box, terminal, { deliveredAt: null }),
    shipment: deriveShipmentState(shipment),
    milestones: moment.milestones,
  };
}

/**
 * Plays moments one after the other the way the Tracker does (previous state and recorded keys carried over) and
 * returns the events of each.
 */
function play(...moments: Moment[]): EngineEvent[][] {
  let previous: PreviousSnapshot = { state: null, shipment: null, recordedKeys: new Set() };
  return moments.map((moment, i) => {
    const next = derive(moment);
    // Each update runs an hour after the previous one.
    const nowIso = toIsoSeconds(Date.parse(NOW) + i * HOUR_MS);
    const events = diffEvents(previous, next.milestones, next.state, next.shipment, nowIso);
    previous = {
      state: next.state,
      shipment: next.shipment,
      recordedKeys: recordedKeysAfter(previous.recordedKeys, next.milestones),
      recordedActuals: recordedActualsAfter(previous, next.milestones),
    };
    return events;
  });
}

const transport = (events: EngineEvent[]) =>
  events.filter((e): e is TransportEventRecord => e.kind === "transport_event");
const names = (events: EngineEvent[]) => transport(events).map((e) => e.event);
const estimates = (events: EngineEvent[]) => transport(events).filter((e) => e.event.includes(".estimated."));
const changesets = (events: EngineEvent[]) =>
  events.flatMap((e) => (e.kind === "container_updated" ? [e.changeset] : []));

const known = (extra: Partial<TerminalObservation>): Partial<TerminalObservation> => ({
  availabilityKnown: true,
  availableForPickup: false,
  ...extra,
});

describe("containerChangeset: holds and fees (docs/api.md §Holds, docs/webhooks.md §Payloads)", () => {
  it("a pending hold made active → [[pending], [hold]]; then cleared → [[hold], []]", () => {
    const pending = derive({ milestones: AT_POD, terminal: known({ holds: [PENDING] }) }).state;
    const active = derive({ milestones: AT_POD, terminal: known({ holds: [HOLD] }) }).state;
    const cleared = derive({ milestones: AT_POD, terminal: known({ holds: [] }) }).state;
    expect(containerChangeset(pending, active)).toEqual({ holds_at_pod_terminal: [[PENDING], [HOLD]] });
    expect(containerChangeset(active, cleared)).toEqual({ holds_at_pod_terminal: [[HOLD], []] });
  });

  it("the same sequence through diffEvents: one container.updated per change, from the terminal", () => {
    const [, activated, cleared] = play(
      { milestones: AT_POD, terminal: known({ holds: [PENDING] }) },
      { milestones: AT_POD, terminal: known({ holds: [HOLD] }) },
      { milestones: AT_POD, terminal: known({ holds: [] }) },
    );
    expect(changesets(activated ?? [])).toEqual([{ holds_at_pod_terminal: [[PENDING], [HOLD]] }]);
    expect(changesets(cleared ?? [])).toEqual([{ holds_at_pod_terminal: [[HOLD], []] }]);
    expect(activated?.find((e) => e.kind === "container_updated")).toMatchObject({ dataSource: "terminal" });
  });

  it("a hold placed → [[], [hold]]", () => {
    const [, placed] = play(
      { milestones: AT_POD, terminal: known({}) },
      { milestones: AT_POD, terminal: known({ holds: [HOLD] }) },
    );
    expect(changesets(placed ?? [])).toEqual([{ holds_at_pod_terminal: [[], [HOLD]] }]);
  });

  it("demurrage growing changes the amount of fees_at_pod_terminal", () => {
    const [, appeared, grown, same] = play(
      { milestones: AT_POD, terminal: known({}) },
      { milestones: AT_POD, terminal: known({ fees: [fee(150)] }) },
      { milestones: AT_POD, terminal: known({ fees: [fee(300)] }) },
      { milestones: AT_POD, terminal: known({ fees: [fee(300)] }) },
    );
    expect(changesets(appeared ?? [])).toEqual([{ fees_at_pod_terminal: [[], [fee(150)]] }]);
    expect(changesets(grown ?? [])).toEqual([{ fees_at_pod_terminal: [[fee(150)], [fee(300)]] }]);
    expect(same).toEqual([]);
  });

  it("is empty without a previous state (a new container is announced elsewhere)", () => {
    expect(containerChangeset(null, derive({ milestones: AT_POD, terminal: known({ holds: [HOLD] }) }).state)).toEqual(
      {},
    );
  });

  it("does not announce attributes outside the alertable set (e.g. location at the terminal)", () => {
    const a = derive({ milestones: AT_POD, terminal: known({ locationAtTerminal: "Row 1" }) }).state;
    const b = derive({ milestones: AT_POD, terminal: known({ locationAtTerminal: "Row 2" }) }).state;
    expect(containerChangeset(a, b)).toEqual({});
  });
});

describe("diffEvents: availability", () => {
  it("turning available → container.transport.available; back → not_available; both with available_for_pickup", () => {
    const [, up, down] = play(
      { milestones: AT_POD, terminal: known({ availableForPickup: false }) },
      { milestones: AT_POD, terminal: known({ availableForPickup: true }) },
      { milestones: AT_POD, terminal: known({ availableForPickup: false }) },
    );
    expect(names(up ?? [])).toEqual(["container.transport.available"]);
    expect(transport(up ?? [])[0]).toMatchObject({ dataSource: "terminal", timestamp: NOW, locationLocode: POD });
    expect(changesets(up ?? [])).toEqual([{ available_for_pickup: [false, true] }]);
    expect(names(down ?? [])).toEqual(["container.transport.not_available"]);
    expect(changesets(down ?? [])).toEqual([{ available_for_pickup: [true, false] }]);
  });

  it("availability becoming known as false announces not_available; staying unknown announces nothing", () => {
    const [, unknown, becameKnown] = play(
      { milestones: AT_POD },
      { milestones: AT_POD, terminal: { availabilityKnown: false } },
      { milestones: AT_POD, terminal: known({ availableForPickup: false }) },
    );
    expect(unknown).toEqual([]);
    expect(names(becameKnown ?? [])).toEqual(["container.transport.not_available"]);
  });
});

describe("diffEvents: value changes", () => {
  it("a terminal LFD set and moved → pickup_lfd_terminal.changed and pickup_lfd.changed with the new value", () => {
    const [, set, moved] = play(
      { milestones: AT_POD, terminal: known({}) },
      { milestones: AT_POD, terminal: known({ pickupLfd: t(24) }) },
      { milestones: AT_POD, terminal: known({ pickupLfd: t(25) }) },
    );
    const values = (events: EngineEvent[] | undefined) =>
      transport(events ?? []).map((e) => [e.event, e.value, e.dataSource]);
    expect(values(set)).toEqual([
      ["container.pickup_lfd.changed", t(24), "terminal"],
      ["container.pickup_lfd_terminal.changed", t(24), "terminal"],
    ]);
    expect(values(moved)).toEqual([
      ["container.pickup_lfd.changed", t(25), "terminal"],
      ["container.pickup_lfd_terminal.changed", t(25), "terminal"],
    ]);
    expect(changesets(moved ?? [])).toEqual([{ pickup_lfd: [t(24), t(25)], pickup_lfd_terminal: [t(24), t(25)] }]);
  });

  it("the line's LFD → pickup_lfd_line.changed from the shipping line; the coalesced LFD follows it", () => {
    const [, lineSet] = play(
      { milestones: AT_POD, terminal: known({ pickupLfd: t(25) }) },
      { milestones: AT_POD, terminal: known({ pickupLfd: t(25) }), pickupLfdLine: t(24) },
    );
    const records = transport(lineSet ?? []);
    expect(records.map((e) => [e.event, e.value, e.dataSource])).toEqual([
      ["container.pickup_lfd.changed", t(24), "terminal"],
      ["container.pickup_lfd_line.changed", t(24), "shipping_line"],
    ]);
    const updated = (lineSet ?? []).find((e) => e.kind === "container_updated");
    expect(updated).toMatchObject({
      changeset: { pickup_lfd: [t(25), t(24)], pickup_lfd_line: [null, t(24)] },
      dataSource: "shipping_line",
    });
  });

  it("a rail LFD at the inland ramp → pickup_lfd_rail.changed", () => {
    const inland = { destinationLocode: "USCHI", destinationTerminalCode: "USCHIBNSF" };
    const unloaded = [...AT_POD, milestone("container.transport.rail_unloaded", t(25), "USCHI")];
    const [, set] = play(
      { milestones: unloaded, terminal: known({}), shipment: inland },
      { milestones: unloaded, terminal: known({ pickupLfd: t(28) }), shipment: inland },
    );
    expect(names(set ?? [])).toEqual(["container.pickup_lfd.changed", "container.pickup_lfd_rail.changed"]);
  });

  it("an appointment booked → pickup_appointment.changed with its time", () => {
    const [, booked] = play(
      { milestones: AT_POD, terminal: known({}) },
      { milestones: AT_POD, terminal: known({ pickupAppointmentAt: t(23, 9) }) },
    );
    expect(transport(booked ?? []).map((e) => [e.event, e.value])).toEqual([
      ["container.pickup_appointment.changed", t(23, 9)],
    ]);
  });
});

describe("diffEvents: estimates and the shipment ETA", () => {
  it("a POD ETA change → shipment.estimated.arrival with the new ETA and container.transport.estimated.vessel_arrived", () => {
    const [first, same, changed] = play(
      { milestones: [LOADED, eta(20)] },
      { milestones: [LOADED, eta(20)] },
      { milestones: [LOADED, eta(22)] },
    );
    expect(first?.some((e) => e.kind === "shipment_estimated_arrival")).toBe(false);
    expect(same).toEqual([]);
    expect(changed?.filter((e) => e.kind === "shipment_estimated_arrival")).toEqual([
      { kind: "shipment_estimated_arrival", estimatedTimestamp: t(22), locationLocode: POD, voyageNumber: "100E" },
    ]);
    expect(transport(changed ?? []).map((e) => [e.event, e.timestamp])).toEqual([
      ["container.transport.estimated.vessel_arrived", t(22)],
    ]);
  });

  it("an ETA from the shipment facts alone (no estimate milestone) also announces its change", () => {
    const [, changed] = play(
      { milestones: [LOADED], shipment: { podEtaAt: t(20) } },
      { milestones: [LOADED], shipment: { podEtaAt: t(19) } },
    );
    expect(changed).toEqual([
      { kind: "shipment_estimated_arrival", estimatedTimestamp: t(19), locationLocode: POD, voyageNumber: "100E" },
    ]);
  });

  it("an ETA revised back and forth announces every revision, each under its own key", () => {
    const steps = play(
      { milestones: [LOADED, eta(22)] },
      { milestones: [LOADED, eta(20)] },
      { milestones: [LOADED, eta(22)] },
      { milestones: [LOADED, eta(20)] },
      { milestones: [LOADED, eta(20)] },
    );
    const estimated = steps.map((events) => estimates(events).map((e) => e.timestamp));
    expect(estimated).toEqual([[], [t(20)], [t(22)], [t(20)], []]);
    const arrivals = steps.map((events) => events.filter((e) => e.kind === "shipment_estimated_arrival").length);
    expect(arrivals).toEqual([0, 1, 1, 1, 0]);
    // Transport event rows are keyed by `key`: the two announcements of day 20 must not collide.
    const keys = steps.flatMap((events) => estimates(events).map((e) => e.key));
    expect(new Set(keys).size).toBe(3);
  });

  it("an estimate missing from one poll and back unchanged is not announced again", () => {
    const steps = play({ milestones: [LOADED, eta(22)] }, { milestones: [LOADED] }, { milestones: [LOADED, eta(22)] });
    expect(steps.map((events) => estimates(events))).toEqual([[], [], []]);
  });

  it("a replay of the same update gives the same estimate key (written once)", () => {
    const before = derive({ milestones: [LOADED, eta(22)] });
    const after = derive({ milestones: [LOADED, eta(20)] });
    const previous: PreviousSnapshot = {
      state: before.state,
      shipment: before.shipment,
      recordedKeys: recordedKeysAfter(new Set(), before.milestones),
      recordedActuals: recordedActualsAfter(
        { state: null, shipment: null, recordedKeys: new Set() },
        before.milestones,
      ),
    };
    const once = diffEvents(previous, after.milestones, after.state, after.shipment, LATER);
    const again = diffEvents(previous, after.milestones, after.state, after.shipment, LATER);
    expect(transport(once).map((e) => e.key)).toEqual(transport(again).map((e) => e.key));
    expect(transport(once)).toHaveLength(1);
  });
});

describe("diffEvents: milestones", () => {
  it("the first snapshot records only the actual milestones, oldest first: no estimates, changes or availability", () => {
    const [first] = play({
      milestones: [
        DISCHARGED,
        LOADED,
        ARRIVED,
        DEPARTED,
        milestone("container.transport.full_out", t(23), POD, { estimated: true }),
      ],
      terminal: known({ availableForPickup: true, holds: [HOLD], fees: [fee(150)], pickupLfd: t(24) }),
      shipment: { podEtaAt: t(20) },
    });
    expect(first?.every((e) => e.kind === "transport_event" && e.milestone !== null)).toBe(true);
    expect(names(first ?? [])).toEqual([
      "container.transport.vessel_loaded",
      "container.transport.vessel_departed",
      "container.transport.vessel_arrived",
      "container.transport.vessel_discharged",
    ]);
    expect(transport(first ?? []).every((e) => e.dataSource === "shipping_line")).toBe(true);
  });

  it("an identical re-poll announces nothing", () => {
    const moment: Moment = {
      milestones: [...AT_POD, eta(20)],
      terminal: known({ availableForPickup: true, holds: [HOLD], fees: [fee(150)], pickupLfd: t(24) }),
      pickupLfdLine: t(24),
    };
    const [first, second, third] = play(moment, moment, moment);
    expect(names(first ?? [])).toHaveLength(4);
    // The estimate present from the start is a starting value, not a change: the first re-poll is silent too.
    expect(second).toEqual([]);
    expect(third).toEqual([]);
  });

  it("a new milestone is announced once, also when reported late with an older time", () => {
    const [, late, again] = play(
      { milestones: [LOADED, ARRIVED] },
      { milestones: [LOADED, ARRIVED, DEPARTED] },
      { milestones: [DEPARTED, ARRIVED, LOADED] },
    );
    expect(names(late ?? [])).toEqual(["container.transport.vessel_departed"]);
    expect(again).toEqual([]);
  });

  it("identity is what/where/which vessel, not the upstream id: a re-issued event under a new id is not news", () => {
    const a = milestone("container.transport.vessel_discharged", t(20, 18), POD, { id: "evt-1" });
    const reissued = milestone("container.transport.vessel_discharged", t(20, 18), POD, { id: "evt-9001" });
    const b = milestone("container.transport.full_out", t(23), POD, { id: "evt-1" });
    expect(milestoneKey(a)).toBe(milestoneKey(reissued));
    expect(milestoneKey(a)).not.toBe(milestoneKey(b));
    const [first, second] = play({ milestones: [LOADED, a, b] }, { milestones: [LOADED, reissued, b] });
    expect(names(first ?? [])).toEqual([
      "container.transport.vessel_loaded",
      "container.transport.vessel_discharged",
      "container.transport.full_out",
    ]);
    expect(second).toEqual([]);
  });

  it("a corrected actual (same identity, new time) is the same event with the new time, announced once", () => {
    const corrected = milestone("container.transport.vessel_discharged", t(20, 21), POD, { id: "evt-corr" });
    const [first, fixed, again] = play(
      { milestones: AT_POD },
      { milestones: [LOADED, DEPARTED, ARRIVED, corrected] },
      { milestones: [LOADED, DEPARTED, ARRIVED, corrected] },
    );
    const original = transport(first ?? []).find((e) => e.event === "container.transport.vessel_discharged");
    expect(transport(fixed ?? [])).toHaveLength(1);
    expect(transport(fixed ?? [])[0]).toMatchObject({
      event: "container.transport.vessel_discharged",
      key: original?.key,
      revision: t(20, 21),
      timestamp: t(20, 21),
    });
    expect(original?.revision).toBeNull();
    expect(again).toEqual([]);
  });

  it("the same move at another place or from another vessel is another event", () => {
    const otherVessel = { ...LOADED, vesselName: "OTHER", vesselImo: "9000009", voyageNumber: "002W" };
    const elsewhere = milestone("container.transport.vessel_loaded", t(1), "SGSIN");
    const [first] = play({ milestones: [LOADED, otherVessel, elsewhere] });
    expect(transport(first ?? []).map((e) => [e.locationLocode, e.vesselImo])).toEqual([
      [POL, LOADED.vesselImo],
      [POL, "9000009"],
      ["SGSIN", elsewhere.vesselImo],
    ]);
  });

  it("truck and rail moves never carry a vessel, whatever the source attached", () => {
    const fullOut = { ...milestone("container.transport.full_out", t(23), POD), vesselName: "X", voyageNumber: "1E" };
    const [first] = play({ milestones: [fullOut] });
    expect(transport(first ?? [])[0]).toMatchObject({ vesselName: null, vesselImo: null, voyageNumber: null });
  });

  it("a snapshot older than identities adopts its recorded milestones instead of recording them again", () => {
    const a = milestone("container.transport.vessel_discharged", t(20, 18), POD, { id: "evt-1" });
    const next = derive({ milestones: [a] });
    const previous: PreviousSnapshot = {
      state: next.state,
      shipment: next.shipment,
      recordedKeys: new Set(["src:evt-1|container.transport.vessel_discharged"]),
    };
    expect(transport(diffEvents(previous, [a], next.state, next.shipment, LATER))).toEqual([]);
    const adopted = { key: "src:evt-1|container.transport.vessel_discharged", timestamp: a.timestamp };
    // A discharge is also remembered by its site alias (issue 14: a terminal's copy of it matches through that).
    expect(recordedActualsAfter(previous, [a])).toEqual({
      [milestoneKey(a)]: adopted,
      [`site|container.transport.vessel_discharged|${POD}`]: adopted,
    });
  });

  it("recordedKeysAfter remembers estimates, recordedActualsAfter the actual milestones with their times", () => {
    const [, second] = play(
      { milestones: [LOADED, eta(20)], terminal: known({}) },
      { milestones: [LOADED, DEPARTED, eta(21)], terminal: known({ pickupLfd: t(24) }) },
    );
    const keys = recordedKeysAfter(new Set([`est|container.transport.vessel_arrived|${POD}|${t(20)}`]), [
      LOADED,
      DEPARTED,
      eta(21),
    ]);
    // The old estimate is replaced.
    expect([...keys]).toEqual([`est|container.transport.vessel_arrived|${POD}|${t(21)}`]);
    const actuals = recordedActualsAfter({ state: null, shipment: null, recordedKeys: new Set() }, [
      LOADED,
      DEPARTED,
      eta(21),
    ]);
    expect(actuals).toEqual({
      [milestoneKey(LOADED)]: { key: milestoneKey(LOADED), timestamp: LOADED.timestamp },
      [milestoneKey(DEPARTED)]: { key: milestoneKey(DEPARTED), timestamp: DEPARTED.timestamp },
    });
    expect(transport(second ?? []).map((e) => e.event)).toContain("container.pickup_lfd.changed");
  });

  it("a POD terminal change → pod_terminal_changed and pod_terminal in the changeset", () => {
    const [, moved] = play({ milestones: [LOADED] }, { milestones: [LOADED], shipment: { podTerminalCode: "Y258" } });
    const change = moved?.find((e) => e.kind === "pod_terminal_changed");
    expect(change).toBeDefined();
    expect(change).toMatchObject({ previousTerminalId: expect.any(String), terminalId: expect.any(String) });
    expect(Object.keys(changesets(moved ?? [])[0] ?? {})).toEqual(["pod_terminal"]);
  });
});
