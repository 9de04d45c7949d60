/**
 * The shapes of the simulator's journeys (docs/architecture.md §Sources, "Simulator"): a deterministic, realistic
 * container journey derived from a tracking request's SCAC and number (plan.ts), and the state a carrier and a terminal
 * would report for it at any moment (state.ts). The simulator is pure: no I/O, no clock, no global randomness; the same
 * input always gives the same journey.
 *
 * Time has two scales. A journey is planned in simulated days relative to its anchor (the moment tracking started),
 * negative for what happened before. Simulated day `d` happens at real time `anchorMs + d * 60_000 / speed`, with
 * `speed` in simulated days per real minute (`SIMULATION_SPEED`, default 1). Calendar rules (an LFD is local
 * midnight) are applied on the simulated calendar, where day `d` is `anchorMs + d * 86_400_000`; at real-time speed
 * (1/1440) the two agree (simulated-time.ts).
 */
import type { TerminalHold } from "../../db/schema";
import type { ShipmentFacts, TerminalObservation } from "../sources/types";

/** A port or inland point on the route. */
export interface JourneyPlace {
  /** UN/LOCODE. */
  locode: string;
  name: string;
  /** IANA time zone from the reference data (null only for a place it has no zone for). */
  timeZone: string | null;
}

/** The facility where a box is picked up: a POD terminal or an inland rail ramp. */
export interface JourneyFacility {
  /** CBP FIRMS code of a POD terminal, or the simulated code of an inland ramp (see `inlandRampCodes()`). */
  code: string;
  name: string;
  /** IANA time zone of the facility. */
  timeZone: string;
}

/** A vessel and the voyage it sails. Names are fictional; IMO numbers have a valid IMO check digit. */
export interface JourneyVessel {
  name: string;
  /** Seven-digit IMO number. */
  imo: string;
  voyageNumber: string;
}

/**
 * A hold at the final facility (docs/api.md §Holds): listed `pending` from `pendingDay` (when the terminal expects it),
 * active (`hold`) from `placedDay`, and removed at `releasedDay` (cleared holds leave the array). Simulated days.
 */
export interface JourneyHold {
  name: TerminalHold["name"];
  /** Raw terminal text, e.g. `CBP HOLD`. */
  description: string;
  /** Null when the hold goes straight to `hold`. */
  pendingDay: number | null;
  placedDay: number;
  releasedDay: number;
}

/**
 * One box of a journey and its own schedule, in simulated days relative to the anchor. Ocean legs shared by the
 * whole shipment (departure, arrival) live on the `JourneyPlan`.
 */
export interface JourneyContainer {
  /** ISO 6346 container number with a valid check digit (or exactly the number a container request tracks). */
  number: string;
  /** ISO 6346 size-type code from data/iso6346-size-types.csv, e.g. `45G1`. */
  sizeTypeCode: string;
  sealNumber: string;
  weightInLbs: number;
  emptyOutDay: number;
  fullInDay: number;
  vesselLoadedDay: number;
  /** Discharged from the first vessel and loaded on the second at the transshipment port; null without one. */
  transshipmentDischargedDay: number | null;
  transshipmentLoadedDay: number | null;
  vesselDischargedDay: number;
  /** Loaded on rail at the POD and unloaded at the inland ramp; null without an inland leg. */
  railLoadedDay: number | null;
  railUnloadedDay: number | null;
  /** From this day the final facility reports availability (`availability_known`). */
  availabilityKnownDay: number;
  /** Available for pickup from this day until full out; never while a hold is listed. */
  availableDay: number;
  holds: JourneyHold[];
  /** When the LFDs are published (terminal `pickupLfd` and the line's `pickupLfdLine`). */
  lfdSetDay: number;
  /**
   * The final facility's last free day (`pickup_lfd_terminal` at a POD terminal, `pickup_lfd_rail` at a ramp):
   * the start of that day, local midnight on the simulated calendar. Demurrage accrues once it has ended.
   */
  pickupLfdDay: number;
  /** The line's last free day (`pickup_lfd_line`), or null when the line publishes none. */
  pickupLfdLineDay: number | null;
  /** When the pickup appointment is booked, and the appointment itself. */
  appointmentMadeDay: number;
  appointmentDay: number;
  /** Full out at the final facility (the POD terminal, or the inland ramp). */
  fullOutDay: number;
  /** Empty returned (`empty_in`), after which tracking stops. */
  emptyInDay: number;
  /** Where the empty goes back: UN/LOCODE and facility code. */
  emptyReturn: { locode: string; facilityCode: string | null };
  /** Free-text yard position while the box is at the final facility, e.g. `Yard - Y0709A`. */
  locationAtTerminal: string;
  /** Chassis used at pickup (category Z, valid ISO 6346 check digit). */
  fullOutChassisNumber: string;
}

/** A transshipment: the first vessel arrives, the box changes to the on-carrying vessel, which departs. */
export interface JourneyTransshipment {
  port: JourneyPlace;
  arrivedDay: number;
  departedDay: number;
  /** The on-carrying vessel, which then arrives at the POD. */
  vessel: JourneyVessel;
}

/** An inland rail leg from the POD terminal to a ramp at the destination. */
export interface JourneyInland {
  destination: JourneyPlace & { timeZone: string };
  ramp: JourneyFacility;
  /** Rail carrier SCACs (`pod_rail_carrier_scac`, `ind_rail_carrier_scac`). */
  podRailCarrierScac: string;
  indRailCarrierScac: string;
  /** The train leaves the POD and arrives at the destination (`arrived_at_inland_destination`). */
  railDepartedDay: number;
  railArrivedDay: number;
}

/**
 * Demurrage at the final facility (docs/api.md §Fees, `fees_at_pod_terminal` type `demurrage`): for each started
 * simulated day after the last free day has ended, `ratePerDay` for the first `firstTierDays` days and
 * `laterRatePerDay` after; it stops growing at full out.
 */
export interface JourneyDemurrage {
  currencyCode: string;
  ratePerDay: number;
  firstTierDays: number;
  laterRatePerDay: number;
}

/**
 * A fully specified journey, every time in simulated days relative to the anchor. `planJourney` draws one from the
 * number; `journeyFromPlan` accepts a hand-written one (the sandbox's `TEST-LIFECYCLE`).
 */
export interface JourneyPlan {
  /** The line's own SCAC. */
  scac: string;
  /** `bill_of_lading`, `booking` or `container`. */
  requestType: string;
  /** The tracked number as requested (normalised). */
  number: string;
  /** The BL number the line reports (the number itself for a BL request). */
  billOfLadingNumber: string;
  /** Stable identity of the journey; prefix of every milestone's `sourceEventId`. */
  key: string;
  pol: JourneyPlace;
  pod: JourneyPlace;
  podTerminal: JourneyFacility;
  /** The vessel leaving the POL (and arriving at the POD when there is no transshipment). */
  oceanVessel: JourneyVessel;
  transshipment: JourneyTransshipment | null;
  inland: JourneyInland | null;
  polEtdDay: number;
  vesselDepartedDay: number;
  /** The POD ETA first announced, and the day it is revised to the actual arrival. */
  podEtaDay: number;
  podEtaRevisedDay: number;
  vesselArrivedDay: number;
  vesselBerthedDay: number;
  demurrage: JourneyDemurrage;
  containers: JourneyContainer[];
}

/** A plan placed in real time: simulated day `d` happens at `anchorMs + d * 60_000 / speed` (ms since the epoch). */
export interface Journey extends JourneyPlan {
  /** When tracking started, ms since the Unix epoch: simulated day 0. */
  anchorMs: number;
  /** Simulated days per real minute (> 0). */
  speed: number;
}

/** One ocean leg of a journey: from a port to the next on one vessel. */
export interface JourneyLeg {
  from: JourneyPlace;
  to: JourneyPlace;
  vessel: JourneyVessel;
}

/** What `planJourney` needs. */
export interface JourneyInput {
  scac: string;
  /** Normalised (trimmed, upper-cased) number. */
  number: string;
  requestType: string;
  /** When tracking started, ms since the Unix epoch. */
  anchorMs: number;
  /** Simulated days per real minute (> 0). */
  speed: number;
}

/** The state of a journey at one moment, as the sources would report it. */
export interface JourneyState {
  /** The carrier's view: actual milestones up to now, estimates for future arrivals and departures. */
  facts: ShipmentFacts;
  /** The final facility's view of the first (for a container request, the only) box; null before it got there. */
  terminal: TerminalObservation | null;
  /** The final facility's view of every box, in `facts.containers` order. */
  terminals: (TerminalObservation | null)[];
  /** Every box has been returned empty: nothing will change any more. */
  trackingStopped: boolean;
}
