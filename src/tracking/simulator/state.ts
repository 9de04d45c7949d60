/**
 * A journey at a moment: what its carrier reports ({@link journeyAt}: milestones, estimates, shipment facts) and what
 * a terminal or ramp reports for one of its boxes ({@link terminalAt}), at any real time.
 */
import type { TerminalFee, TerminalHold } from "../../db/schema";
import { CONTAINER_NUMBER_PATTERN } from "../../infer/iso6346";
import { toIsoSeconds } from "../../lib/clock";
import { equipmentFromSizeType } from "../../reference/equipment";
import type { ContainerFacts, Milestone, MilestoneName, ShipmentFacts, TerminalObservation } from "../sources/types";
import { JOURNEYS_PER_SCAC } from "./journey-identity";
import { realMsOf, simulatedDayOf } from "./simulated-time";
import type { Journey, JourneyContainer, JourneyLeg, JourneyPlan, JourneyState, JourneyVessel } from "./types";

/**
 * The ocean legs of a journey, POL → (transshipment port →) POD: the one list every vessel the journey reports comes
 * from — each milestone's vessel, the shipment's `pod_vessel_*` (the last leg's), the estimates of the calls — so the
 * shipment, its events and the route built from them cannot name different vessels (issue 13 item 6).
 */
export function oceanLegsOf(journey: JourneyPlan): [JourneyLeg, ...JourneyLeg[]] {
  const ts = journey.transshipment;
  if (!ts) return [{ from: journey.pol, to: journey.pod, vessel: journey.oceanVessel }];
  return [
    { from: journey.pol, to: ts.port, vessel: journey.oceanVessel },
    { from: ts.port, to: journey.pod, vessel: ts.vessel },
  ];
}

/** The vessel arriving at the POD: the last ocean leg's. */
function podVesselOf(journey: JourneyPlan): JourneyVessel {
  const legs = oceanLegsOf(journey);
  return (legs[legs.length - 1] ?? legs[0]).vessel;
}

/** One step of a box's route, before it is split into actual and estimated. */
interface Step {
  event: MilestoneName;
  day: number;
  /** The estimate reported before the event happens, given the current simulated day; null if none is reported. */
  estimate: ((nowDay: number) => number) | null;
  locode: string | null;
  facilityCode: string | null;
  vessel: JourneyVessel | null;
  wording: string;
}

const ESTIMATE_REVISION_SUFFIX = "/est";

function stepsOf(journey: Journey, c: JourneyContainer): Step[] {
  const ts = journey.transshipment;
  const inland = journey.inland;
  const [firstLeg] = oceanLegsOf(journey);
  const polVessel = firstLeg.vessel;
  const podVessel = podVesselOf(journey);
  const polCode = journey.pol.locode;
  const podCode = journey.pod.locode;
  const terminal = journey.podTerminal.code;
  const fixed = (day: number) => () => day;
  const steps: Step[] = [
    step("container.transport.empty_out", c.emptyOutDay, null, polCode, null, null, "Gate out empty"),
    step("container.transport.full_in", c.fullInDay, null, polCode, null, null, "Gate in full"),
    step("container.transport.vessel_loaded", c.vesselLoadedDay, null, polCode, null, polVessel, "Loaded on vessel"),
    step(
      "container.transport.vessel_departed",
      journey.vesselDepartedDay,
      fixed(journey.polEtdDay),
      polCode,
      null,
      polVessel,
      "Vessel departure",
    ),
  ];
  if (ts && c.transshipmentDischargedDay !== null && c.transshipmentLoadedDay !== null) {
    const at = ts.port.locode;
    steps.push(
      step(
        "container.transport.transshipment_arrived",
        ts.arrivedDay,
        fixed(ts.arrivedDay),
        at,
        null,
        polVessel,
        "Transshipment arrival",
      ),
      step(
        "container.transport.transshipment_discharged",
        c.transshipmentDischargedDay,
        null,
        at,
        null,
        polVessel,
        "Discharged at transshipment port",
      ),
      step(
        "container.transport.transshipment_loaded",
        c.transshipmentLoadedDay,
        null,
        at,
        null,
        podVessel,
        "Loaded at transshipment port",
      ),
      step(
        "container.transport.transshipment_departed",
        ts.departedDay,
        fixed(ts.departedDay),
        at,
        null,
        podVessel,
        "Transshipment departure",
      ),
    );
  }
  steps.push(
    step(
      "container.transport.vessel_arrived",
      journey.vesselArrivedDay,
      (nowDay) => (nowDay < journey.podEtaRevisedDay ? journey.podEtaDay : journey.vesselArrivedDay),
      podCode,
      terminal,
      podVessel,
      "Vessel arrival",
    ),
    step(
      "container.transport.vessel_berthed",
      journey.vesselBerthedDay,
      null,
      podCode,
      terminal,
      podVessel,
      "Vessel berthed",
    ),
    step(
      "container.transport.vessel_discharged",
      c.vesselDischargedDay,
      null,
      podCode,
      terminal,
      podVessel,
      "Discharged",
    ),
  );
  if (inland && c.railLoadedDay !== null && c.railUnloadedDay !== null) {
    const dest = inland.destination.locode;
    const ramp = inland.ramp.code;
    steps.push(
      step("container.transport.rail_loaded", c.railLoadedDay, null, podCode, terminal, null, "Loaded on rail"),
      step(
        "container.transport.rail_departed",
        inland.railDepartedDay,
        null,
        podCode,
        terminal,
        null,
        "Rail departure",
      ),
      step("container.transport.rail_arrived", inland.railArrivedDay, null, dest, ramp, null, "Rail arrival"),
      step(
        "container.transport.arrived_at_inland_destination",
        inland.railArrivedDay,
        fixed(inland.railArrivedDay),
        dest,
        ramp,
        null,
        "Arrived at inland destination",
      ),
      step("container.transport.rail_unloaded", c.railUnloadedDay, null, dest, ramp, null, "Unloaded from rail"),
      step("container.transport.full_out", c.fullOutDay, null, dest, ramp, null, "Gate out full"),
    );
  } else {
    steps.push(step("container.transport.full_out", c.fullOutDay, null, podCode, terminal, null, "Gate out full"));
  }
  steps.push(
    step(
      "container.transport.empty_in",
      c.emptyInDay,
      null,
      c.emptyReturn.locode,
      c.emptyReturn.facilityCode,
      null,
      "Empty returned",
    ),
  );
  return steps;
}

function step(
  event: MilestoneName,
  day: number,
  estimate: Step["estimate"],
  locode: string | null,
  facilityCode: string | null,
  vessel: JourneyVessel | null,
  wording: string,
): Step {
  return { event, day, estimate, locode, facilityCode, vessel, wording };
}

function milestonesOf(journey: Journey, c: JourneyContainer, index: number, nowMs: number): Milestone[] {
  const nowDay = simulatedDayOf(journey, nowMs);
  const out: { m: Milestone; ms: number; order: number }[] = [];
  stepsOf(journey, c).forEach((s, order) => {
    const happenedMs = realMsOf(journey, s.day);
    const short = s.event.slice("container.transport.".length);
    const idBase = `${journey.key}/${index}/${short}`;
    let estimated: boolean;
    let ms: number;
    let id: string;
    if (happenedMs <= nowMs) {
      estimated = false;
      ms = happenedMs;
      id = idBase;
    } else if (s.estimate) {
      const estimateDay = s.estimate(nowDay);
      estimated = true;
      ms = realMsOf(journey, estimateDay);
      id = `${idBase}${ESTIMATE_REVISION_SUFFIX}/${Math.round(estimateDay * 1000)}`;
    } else {
      return;
    }
    const timestamp = toIsoSeconds(ms);
    out.push({
      ms,
      order,
      m: {
        event: s.event,
        estimated,
        timestamp,
        locationLocode: s.locode,
        facilityCode: s.facilityCode,
        vesselName: s.vessel?.name ?? null,
        vesselImo: s.vessel?.imo ?? null,
        voyageNumber: s.vessel?.voyageNumber ?? null,
        originalEvent: estimated ? `Estimated ${s.wording.toLowerCase()}` : s.wording,
        sourceEventId: id,
        raw: { source: "simulator", journey: journey.key, container: c.number, event: short, estimated, timestamp },
      },
    });
  });
  out.sort((a, b) => a.ms - b.ms || a.order - b.order);
  return out.map((o) => o.m);
}

/** Index of each box in its journey (the `sourceEventId` uses it), from its serial when it has one. */
function boxIndex(journey: Journey, c: JourneyContainer, position: number): number {
  if (journey.key.startsWith("sim:") && CONTAINER_NUMBER_PATTERN.test(c.number)) {
    return Math.floor(Number(c.number.slice(4, 10)) / JOURNEYS_PER_SCAC);
  }
  return position;
}

function containerFactsAt(journey: Journey, c: JourneyContainer, position: number, nowMs: number): ContainerFacts {
  const iso = (day: number | null) => (day === null ? null : toIsoSeconds(realMsOf(journey, day)));
  const past = (day: number | null) => (day !== null && realMsOf(journey, day) <= nowMs ? iso(day) : null);
  const equipment = equipmentFromSizeType(c.sizeTypeCode);
  const lfdKnown = realMsOf(journey, c.lfdSetDay) <= nowMs;
  return {
    number: c.number,
    sizeTypeCode: c.sizeTypeCode,
    sealNumber: c.sealNumber,
    equipmentType: equipment?.equipmentType ?? null,
    equipmentLength: equipment?.equipmentLength ?? null,
    equipmentHeight: equipment?.equipmentHeight ?? null,
    weightInLbs: c.weightInLbs,
    emptyOutAt: past(c.emptyOutDay),
    polFullInAt: past(c.fullInDay),
    polVesselLoadedAt: past(c.vesselLoadedDay),
    polVesselDepartedAt: past(journey.vesselDepartedDay),
    milestones: milestonesOf(journey, c, boxIndex(journey, c, position), nowMs),
    pickupLfdLine: lfdKnown ? iso(c.pickupLfdLineDay) : null,
    podRailCarrierScac: journey.inland?.podRailCarrierScac ?? null,
    indRailCarrierScac: journey.inland?.indRailCarrierScac ?? null,
  };
}

/** Demurrage owed at simulated day `day` (docs/api.md §Fees), in the journey's currency; 0 within free time. */
export function demurrageAt(journey: Journey, c: JourneyContainer, day: number): number {
  const freeEnds = c.pickupLfdDay + 1;
  const until = Math.min(day, c.fullOutDay);
  if (until <= freeEnds) return 0;
  const daysLate = Math.ceil(until - freeEnds - 1e-9);
  const { ratePerDay, firstTierDays, laterRatePerDay } = journey.demurrage;
  return Math.min(daysLate, firstTierDays) * ratePerDay + Math.max(0, daysLate - firstTierDays) * laterRatePerDay;
}

/**
 * What the final facility (the POD terminal, or the inland ramp for a rail move) reports for a box at `nowMs`;
 * null before the box got there (discharged at the POD, or unloaded from rail at the ramp). At a ramp
 * `dischargedAt` is null (the POD discharge is the carrier's milestone) and `pickupLfd` is the rail LFD.
 */
function facilityObservation(journey: Journey, c: JourneyContainer, nowMs: number): TerminalObservation | null {
  const arrived = journey.inland ? c.railUnloadedDay : c.vesselDischargedDay;
  if (arrived === null || realMsOf(journey, arrived) > nowMs) return null;
  const reached = (day: number | null) => day !== null && realMsOf(journey, day) <= nowMs;
  const iso = (day: number) => toIsoSeconds(realMsOf(journey, day));
  const pickedUp = reached(c.fullOutDay);
  const availabilityKnown = reached(c.availabilityKnownDay);
  const holds: TerminalHold[] = pickedUp
    ? []
    : c.holds.flatMap((h): TerminalHold[] => {
        if (reached(h.releasedDay)) return [];
        if (reached(h.placedDay)) return [{ name: h.name, status: "hold", description: h.description }];
        if (reached(h.pendingDay)) return [{ name: h.name, status: "pending", description: h.description }];
        return [];
      });
  const owed = demurrageAt(journey, c, simulatedDayOf(journey, nowMs));
  const fees: TerminalFee[] =
    owed > 0 ? [{ type: "demurrage", amount: owed, currency_code: journey.demurrage.currencyCode }] : [];
  return {
    checkedAt: toIsoSeconds(nowMs),
    availabilityKnown,
    availableForPickup: availabilityKnown ? !pickedUp && reached(c.availableDay) && holds.length === 0 : null,
    holds,
    fees,
    pickupLfd: reached(c.lfdSetDay) ? iso(c.pickupLfdDay) : null,
    pickupAppointmentAt: reached(c.appointmentMadeDay) ? iso(c.appointmentDay) : null,
    locationAtTerminal: pickedUp ? null : c.locationAtTerminal,
    dischargedAt: journey.inland ? null : iso(c.vesselDischargedDay),
    fullOutAt: pickedUp ? iso(c.fullOutDay) : null,
    fullOutChassisNumber: pickedUp ? c.fullOutChassisNumber : null,
    offDock: false,
  };
}

/**
 * What the POD terminal reports for a box on a rail move: discharged, not available for truck pickup, on the
 * on-dock rail until the train leaves. Null before discharge.
 */
function podRailObservation(journey: Journey, c: JourneyContainer, nowMs: number): TerminalObservation | null {
  if (!journey.inland || realMsOf(journey, c.vesselDischargedDay) > nowMs) return null;
  const departed = realMsOf(journey, journey.inland.railDepartedDay) <= nowMs;
  return {
    checkedAt: toIsoSeconds(nowMs),
    availabilityKnown: true,
    availableForPickup: false,
    holds: [],
    fees: [],
    pickupLfd: null,
    pickupAppointmentAt: null,
    locationAtTerminal: departed ? null : "On-dock rail",
    dischargedAt: toIsoSeconds(realMsOf(journey, c.vesselDischargedDay)),
    fullOutAt: null,
    fullOutChassisNumber: null,
    offDock: false,
  };
}

/**
 * What the facility `facilityCode` reports for box `containerNumber` at `nowMs` (a terminal poll): the final
 * facility's observation, or for a rail move the POD terminal's. Null when the box is not (yet) there or the
 * facility is not on its route.
 */
export function terminalAt(
  journey: Journey,
  containerNumber: string,
  facilityCode: string,
  nowMs: number,
): TerminalObservation | null {
  const c = journey.containers.find((x) => x.number === containerNumber);
  if (!c) return null;
  const code = facilityCode.toUpperCase();
  const finalFacility = journey.inland ? journey.inland.ramp.code : journey.podTerminal.code;
  if (code === finalFacility) return facilityObservation(journey, c, nowMs);
  if (journey.inland && code === journey.podTerminal.code) return podRailObservation(journey, c, nowMs);
  return null;
}

/**
 * The state of a journey at real time `nowMs` (ms since the epoch), as its sources would report it: the carrier's
 * shipment facts (milestones that have happened as actual, future departures and arrivals as estimates, the line's
 * LFD once published), each box's final-facility observation, and whether tracking has ended (every box empty
 * returned). Times are UTC ISO 8601 at second precision.
 */
export function journeyAt(journey: Journey, nowMs: number): JourneyState {
  const iso = (day: number) => toIsoSeconds(realMsOf(journey, day));
  const past = (day: number) => (realMsOf(journey, day) <= nowMs ? iso(day) : null);
  const nowDay = simulatedDayOf(journey, nowMs);
  const podVessel = podVesselOf(journey);
  const inland = journey.inland;
  const facts: ShipmentFacts = {
    billOfLadingNumber: journey.billOfLadingNumber,
    portOfLadingLocode: journey.pol.locode,
    portOfDischargeLocode: journey.pod.locode,
    podTerminalCode: journey.podTerminal.code,
    destinationLocode: inland?.destination.locode ?? null,
    destinationTerminalCode: inland?.ramp.code ?? null,
    podVesselName: podVessel.name,
    podVesselImo: podVessel.imo,
    podVoyageNumber: podVessel.voyageNumber,
    polEtdAt: iso(journey.polEtdDay),
    polAtdAt: past(journey.vesselDepartedDay),
    podEtaAt: iso(nowDay < journey.podEtaRevisedDay ? journey.podEtaDay : journey.vesselArrivedDay),
    podAtaAt: past(journey.vesselArrivedDay),
    destinationEtaAt: inland ? iso(inland.railArrivedDay) : null,
    destinationAtaAt: inland ? past(inland.railArrivedDay) : null,
    containers: journey.containers.map((c, i) => containerFactsAt(journey, c, i, nowMs)),
  };
  const terminals = journey.containers.map((c) => facilityObservation(journey, c, nowMs));
  return {
    facts,
    terminal: terminals[0] ?? null,
    terminals,
    trackingStopped: journey.containers.every((c) => realMsOf(journey, c.emptyInDay) <= nowMs),
  };
}
