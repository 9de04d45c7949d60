/**
 * The simulator's journey engine (DESIGN.md §4 Sources, "Simulator"): a deterministic, realistic container journey
 * derived from a tracking request's SCAC and number, and the state a carrier and a terminal would report for it at
 * any moment. Pure: no I/O, no clock, no global randomness; the same input always gives the same journey.
 *
 * Time has two scales. A journey is planned in simulated days relative to its anchor (the moment tracking started),
 * negative for what happened before. Simulated day `d` happens at real time `anchorMs + d * 60_000 / speed`, with
 * `speed` in simulated days per real minute (`SIMULATION_SPEED`, default 1). Calendar rules (an LFD is local
 * midnight) are applied on the simulated calendar, where day `d` is `anchorMs + d * 86_400_000`; at real-time speed
 * (1/1440) the two agree.
 */
import type { TerminalFee, TerminalHold } from "../../db/schema";
import { CONTAINER_NUMBER_PATTERN, withCheckDigit } from "../../infer/iso6346";
import { toIsoSeconds } from "../../lib/clock";
import { wallClockToUtcMs, zoneOffsetMs } from "../../lib/time-zones";
import { containerPrefixesForScac } from "../../reference/container-prefixes";
import { equipmentFromSizeType } from "../../reference/equipment";
import { PORTS } from "../../reference/generated/ports";
import { SIZE_TYPES } from "../../reference/generated/size-types";
import { TERMINALS } from "../../reference/generated/terminals";
import { findPortByLocode } from "../../reference/locations";
import { findShippingLine } from "../../reference/shipping-lines";
import type { ContainerFacts, Milestone, MilestoneName, ShipmentFacts, TerminalObservation } from "../sources/types";

// ---- shapes ------------------------------------------------------------------------------------------------------

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
  /** CBP FIRMS code of a POD terminal, or the simulated code of an inland ramp (see `INLAND_RAMP_CODES`). */
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
 * A hold at the final facility (SPEC.md §2.2): listed `pending` from `pendingDay` (when the terminal expects it),
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
  /** ISO 6346 size-type code from ../shared/data/iso6346-size-types.csv, e.g. `45G1`. */
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
 * Demurrage at the final facility (SPEC.md §2.3, `fees_at_pod_terminal` type `demurrage`): for each started
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

// ---- deterministic randomness --------------------------------------------------------------------------------------

/** FNV-1a, 32 bits, over the UTF-16 code units of `text` (numbers and SCACs are ASCII). */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Mulberry32: a small 32-bit PRNG, uniform floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Draws from one named stream of a journey, so adding a draw to one stream never shifts another. */
class Rng {
  private readonly next: () => number;
  constructor(label: string) {
    this.next = mulberry32(fnv1a32(label));
  }
  /** Uniform float in [lo, hi). */
  range(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }
  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("simulator: pick from an empty list");
    return item;
  }
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((sum, [, w]) => sum + w, 0);
    let r = this.next() * total;
    for (const [item, w] of items) {
      r -= w;
      if (r < 0) return item;
    }
    const last = items[items.length - 1];
    if (!last) throw new Error("simulator: weighted pick from an empty list");
    return last[0];
  }
  digits(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }
}

// ---- reference data the planner draws from ---------------------------------------------------------------------------

const DAY_MS = 86_400_000;
const REAL_MS_PER_SIMULATED_DAY_AT_SPEED_1 = 60_000;

/** The port of a UN/LOCODE (current or alternative) as a place on the route, under its current code. */
function placeOf(locode: string): JourneyPlace | null {
  const port = findPortByLocode(locode);
  return port ? { locode: port.code, name: port.name, timeZone: port.timeZone } : null;
}

/**
 * Origins (POLs): every port in Asia or Europe (by its IANA zone) with a listed container terminal in the SMDG
 * list, weighted by its number of terminals, so the big hubs come up most (issue 12: real POLs, real zones).
 */
const ORIGINS: readonly (readonly [JourneyPlace, number])[] = (() => {
  const terminalCount = new Map<string, number>();
  for (const t of TERMINALS) {
    if (t.smdgCode === null || t.validTo !== null || t.facilityType !== "ocean_terminal") continue;
    terminalCount.set(t.portLocode, (terminalCount.get(t.portLocode) ?? 0) + 1);
  }
  return PORTS.flatMap((p) => {
    const count = terminalCount.get(p.code);
    if (!count || !p.timeZone || !/^(Asia|Europe)\//.test(p.timeZone)) return [];
    return [[{ locode: p.code, name: p.name, timeZone: p.timeZone }, count] as const];
  });
})();

// Transshipment hubs by UN/LOCODE (the world's largest relay ports); names and zones come from the reference data.
const TRANSSHIPMENT_LOCODES = [
  "SGSIN",
  "MYTPP",
  "MYPKG",
  "LKCMB",
  "AEJEA",
  "ESALG",
  "MAPTM",
  "PAMIT",
  "KRPUS",
  "CNSHK",
];
const TRANSSHIPMENT_PORTS: JourneyPlace[] = TRANSSHIPMENT_LOCODES.flatMap((c) => placeOf(c) ?? []);

/** A POD: a port whose terminals have both a CBP FIRMS code and an IANA time zone in the reference data. */
interface PodChoice {
  place: JourneyPlace;
  terminals: JourneyFacility[];
}
const POD_CHOICES: PodChoice[] = (() => {
  const byPort = new Map<string, JourneyFacility[]>();
  for (const t of TERMINALS) {
    if (!t.firmsCode || t.validTo !== null || !findPortByLocode(t.portLocode)) continue;
    const list = byPort.get(t.portLocode) ?? [];
    list.push({ code: t.firmsCode, name: t.name, timeZone: t.timeZone });
    byPort.set(t.portLocode, list);
  }
  return [...byPort.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([locode, terminals]) => {
      const place = placeOf(locode);
      const first = terminals[0];
      if (!place || !first) return [];
      return [{ place: { ...place, timeZone: place.timeZone ?? first.timeZone }, terminals }];
    });
})();

// Inland rail destinations: the US inland rail points of scripts/data/inland-rail.csv, with the reference data's
// names and zones.
const INLAND_LOCODES = ["USCHI", "USMEM", "USDAL", "USKCK", "USCLE", "USCMH"];

/** Inland destinations the simulator routes rail legs to, with IANA time zones. */
export const INLAND_DESTINATIONS: readonly (JourneyPlace & { timeZone: string })[] = INLAND_LOCODES.flatMap((c) => {
  const place = placeOf(c);
  return place?.timeZone ? [{ ...place, timeZone: place.timeZone }] : [];
});

// Class I railroads by the coast of the POD (R §1.1 examples: CSXT, NSRR, BNSF).
const RAIL_CARRIERS: Record<string, { scac: string; name: string }[]> = {
  "America/Los_Angeles": [{ scac: "BNSF", name: "BNSF" }],
  "America/Chicago": [
    { scac: "BNSF", name: "BNSF" },
    { scac: "CPKC", name: "CPKC" },
  ],
  "America/New_York": [
    { scac: "CSXT", name: "CSX" },
    { scac: "NSRR", name: "Norfolk Southern" },
  ],
};
const ALL_RAIL_CARRIERS = [...new Map(Object.values(RAIL_CARRIERS).flatMap((l) => l.map((c) => [c.scac, c]))).values()];

/**
 * The simulated ramp at an inland destination served by a rail carrier. Ramp codes are the simulator's own
 * (UN/LOCODE + rail SCAC, e.g. `USCHIBNSF`), not registered FIRMS or BIC codes, and are absent from the reference
 * terminals.
 */
function rampFor(
  destination: JourneyPlace & { timeZone: string },
  rail: { scac: string; name: string },
): JourneyFacility {
  return {
    code: `${destination.locode}${rail.scac}`,
    name: `${rail.name} ${destination.name} Ramp`,
    timeZone: destination.timeZone,
  };
}

/** Every ramp code the simulator can route to (`INLAND_DESTINATIONS` × rail carriers). */
export const INLAND_RAMP_CODES: readonly string[] = INLAND_DESTINATIONS.flatMap((d) =>
  ALL_RAIL_CARRIERS.map((r) => rampFor(d, r).code),
);

/** FIRMS codes of every POD terminal the simulator can route to. */
export const SIMULATED_POD_TERMINAL_CODES: readonly string[] = POD_CHOICES.flatMap((c) =>
  c.terminals.map((t) => t.code),
);

// Share of boxes by ISO 6346 size-type code; only codes present in the generated size types are used.
const SIZE_TYPE_WEIGHTS: readonly (readonly [string, number])[] = (
  [
    ["45G1", 38],
    ["22G1", 24],
    ["42G1", 14],
    ["45R1", 7],
    ["22R1", 4],
    ["L5G1", 4],
    ["22U1", 2],
    ["42P1", 2],
    ["22T6", 2],
    ["25G1", 3],
  ] as const
).filter(([code]) => SIZE_TYPES.some((s) => s.code === code));

const VESSEL_WORDS = [
  "AURORA",
  "MERIDIAN",
  "HORIZON",
  "ENDEAVOUR",
  "PIONEER",
  "HARMONY",
  "ZENITH",
  "ODYSSEY",
  "LIBERTY",
  "TRIUMPH",
  "VOYAGER",
  "NAVIGATOR",
  "ORION",
  "POLARIS",
  "VEGA",
  "SIRIUS",
  "CORAL",
  "SAPPHIRE",
  "EMERALD",
  "GALAXY",
  "CELESTE",
  "FORTUNE",
  "TENACITY",
  "ALTAIR",
];

// Owner codes of common US pool chassis (category Z).
const CHASSIS_PREFIXES = ["DCLZ", "FLXZ", "TRAZ"];

// ---- identity of a journey -----------------------------------------------------------------------------------------

/**
 * Journeys per SCAC. A box's serial is `index * JOURNEYS_PER_SCAC + seed` (index 0–3), so a container number alone
 * names its journey and its place in it: a terminal poll of a box a BL lookup produced replays the BL's journey.
 */
const JOURNEYS_PER_SCAC = 250_000;
const MAX_CONTAINERS = 3;

/**
 * The journey seed (0 to 249 999) and, for a container request, the box's index in it. A container number in ISO
 * 6346 shape decodes from its serial; any other number hashes (FNV-1a of `SCAC|number`).
 */
export function journeyIdentity(
  scac: string,
  requestType: string,
  number: string,
): { seed: number; containerIndex: number | null } {
  if (requestType === "container") {
    if (CONTAINER_NUMBER_PATTERN.test(number)) {
      const serial = Number(number.slice(4, 10));
      return { seed: serial % JOURNEYS_PER_SCAC, containerIndex: Math.floor(serial / JOURNEYS_PER_SCAC) };
    }
    return { seed: fnv1a32(`${scac}|${number}`) % JOURNEYS_PER_SCAC, containerIndex: 0 };
  }
  return { seed: fnv1a32(`${scac}|${number}`) % JOURNEYS_PER_SCAC, containerIndex: null };
}

// ---- time --------------------------------------------------------------------------------------------------------

/** Real time (ms since the epoch) of simulated day `day` of a journey. */
export function realMsOf(journey: Pick<Journey, "anchorMs" | "speed">, day: number): number {
  return journey.anchorMs + (day * REAL_MS_PER_SIMULATED_DAY_AT_SPEED_1) / journey.speed;
}

/** Simulated day (fractional) of real time `ms` in a journey. */
export function simulatedDayOf(journey: Pick<Journey, "anchorMs" | "speed">, ms: number): number {
  return ((ms - journey.anchorMs) * journey.speed) / REAL_MS_PER_SIMULATED_DAY_AT_SPEED_1;
}

/**
 * Local midnight, `daysAfter` calendar days after the local date of `ms` in `timeZone`, as ms since the epoch
 * (R §10.1: LFDs are midnight local expressed in UTC).
 */
function localMidnightAfter(ms: number, daysAfter: number, timeZone: string): number {
  const local = new Date(ms + zoneOffsetMs(ms, timeZone));
  const wall = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + daysAfter);
  return wallClockToUtcMs(wall, timeZone);
}

/** The simulated day of the last free day: local midnight `freeDays` simulated-calendar days after `fromDay`. */
function lfdDayAfter(anchorMs: number, fromDay: number, freeDays: number, timeZone: string): number {
  const midnight = localMidnightAfter(anchorMs + fromDay * DAY_MS, freeDays, timeZone);
  return (midnight - anchorMs) / DAY_MS;
}

// ---- planning ----------------------------------------------------------------------------------------------------

function assertSpeed(speed: number): void {
  if (!Number.isFinite(speed) || speed <= 0) throw new RangeError(`simulator: speed must be > 0, got ${speed}`);
}

/** A valid IMO number (7 digits, the last a check digit: Σ digit × (7 − position) mod 10). */
function imoNumber(rng: Rng): string {
  const six = `9${rng.digits(5)}`;
  let sum = 0;
  for (let i = 0; i < 6; i++) sum += Number(six[i]) * (7 - i);
  return `${six}${sum % 10}`;
}

function vessel(rng: Rng, lineName: string, direction: string, avoid?: string): JourneyVessel {
  const short = lineName.length > 12 ? (lineName.split(/\s+/)[0] ?? lineName) : lineName;
  let word = rng.pick(VESSEL_WORDS);
  if (avoid && `${short.toUpperCase()} ${word}` === avoid) word = rng.pick(VESSEL_WORDS.filter((w) => w !== word));
  return {
    name: `${short.toUpperCase()} ${word}`,
    imo: imoNumber(rng),
    voyageNumber: `${rng.int(100, 999)}${direction}`,
  };
}

function ownerPrefixes(scac: string): string[] {
  const prefixes = containerPrefixesForScac(scac).filter((p) => /^[A-Z]{3}U$/.test(p));
  if (prefixes.length > 0) return prefixes;
  // No known prefix: the SCAC's first three letters and category U (padded with X when it has fewer letters).
  const letters = scac
    .replace(/[^A-Z]/g, "")
    .padEnd(3, "X")
    .slice(0, 3);
  return [`${letters}U`];
}

interface HoldDraw {
  name: TerminalHold["name"];
  description: string;
  pending: boolean;
  duration: readonly [number, number];
}

/**
 * Plans the journey of a tracking request, deterministically from `(scac, number)` (the request type decides how
 * many boxes it shows; the anchor places it in time; the speed scales it). The vessel has already left the POL at
 * the anchor, so a new request shows `on_ship` at once. About 40 % of journeys transship and 30 % continue by rail
 * to an inland destination.
 * @throws RangeError when `speed` is not a positive number.
 */
export function planJourney(input: JourneyInput): Journey {
  assertSpeed(input.speed);
  const scac = input.scac.trim().toUpperCase();
  const { seed, containerIndex } = journeyIdentity(scac, input.requestType, input.number);
  const key = `sim:${scac}:${seed}`;
  const stream = (label: string) => new Rng(`${key}|${label}`);
  const line = findShippingLine(scac);
  const lineName = line?.shortName ?? scac;

  // Route.
  const route = stream("route");
  const pol = route.weighted(ORIGINS);
  const podChoice = route.pick(POD_CHOICES);
  const podTerminal = route.pick(podChoice.terminals);
  const hasTransshipment = route.chance(0.4);
  const tsPort = route.pick(TRANSSHIPMENT_PORTS.filter((p) => p.locode !== pol.locode));
  const hasInland = route.chance(0.3);
  const destination = route.pick(INLAND_DESTINATIONS);
  const railChoices = RAIL_CARRIERS[podTerminal.timeZone] ?? ALL_RAIL_CARRIERS;
  const rail = route.pick(railChoices);
  const direction = podTerminal.timeZone === "America/Los_Angeles" ? "E" : "W";

  // Vessels and the BL.
  const ships = stream("vessels");
  const oceanVessel = vessel(ships, lineName, direction);
  const feeder = vessel(ships, lineName, direction, oceanVessel.name);
  const bolPrefix = line?.bolPrefixes[0] ?? scac;
  const billOfLadingNumber =
    input.requestType === "bill_of_lading" ? input.number : `${bolPrefix}${stream("bl").digits(10)}`;

  // Shipment schedule (simulated days; the vessel left before tracking started).
  const sched = stream("schedule");
  const vesselDepartedDay = -sched.range(0.5, 3);
  const polEtdDay = vesselDepartedDay - (sched.chance(0.5) ? sched.range(0.1, 0.8) : 0);
  const tsArrivedDay = vesselDepartedDay + sched.range(4, 9);
  const tsDepartedDay = tsArrivedDay + sched.range(2, 5);
  const vesselArrivedDay = hasTransshipment
    ? tsDepartedDay + sched.range(7, 13)
    : vesselDepartedDay + sched.range(10, 18);
  const etaDelay = sched.chance(0.5) ? sched.range(0.3, 1.5) : 0;
  const podEtaRevisedDay = vesselArrivedDay - sched.range(1.6, 3);
  const vesselBerthedDay = vesselArrivedDay + sched.range(0.1, 0.8);
  const railDepartedDay = vesselBerthedDay + sched.range(1.6, 3.5);
  const railArrivedDay = railDepartedDay + sched.range(2.5, 5);

  // What happens at the final facility, shared by the boxes of the shipment.
  const terms = stream("terms");
  const holdDraws: HoldDraw[] = [];
  if (terms.chance(0.55)) {
    holdDraws.push({ name: "customs", description: "CBP HOLD", pending: terms.chance(0.5), duration: [0.5, 2.5] });
  }
  if (terms.chance(0.4)) {
    holdDraws.push({ name: "freight", description: "FREIGHT_BL_HOLD", pending: false, duration: [0.2, 1.5] });
  }
  if (terms.chance(0.07)) {
    holdDraws.push({ name: "USDA", description: "USDA HOLD", pending: false, duration: [0.5, 2] });
  }
  const linePolicy = terms.weighted([
    ["same", 55],
    ["later", 20],
    ["none", 25],
  ] as const);
  const ratePerDay = terms.pick([125, 150, 175, 200, 250]);
  const demurrage: JourneyDemurrage = {
    currencyCode: "USD",
    ratePerDay,
    firstTierDays: 4,
    laterRatePerDay: ratePerDay * 2,
  };
  const count = terms.weighted([
    [1, 50],
    [2, 30],
    [3, 20],
  ] as const);

  const inland: JourneyInland | null = hasInland
    ? {
        destination,
        ramp: rampFor(destination, rail),
        podRailCarrierScac: rail.scac,
        indRailCarrierScac: rail.scac,
        railDepartedDay,
        railArrivedDay,
      }
    : null;
  const facility = inland ? inland.ramp : podTerminal;
  const prefixes = ownerPrefixes(scac);

  const indexes =
    containerIndex === null ? Array.from({ length: Math.min(count, MAX_CONTAINERS) }, (_, i) => i) : [containerIndex];
  const containers = indexes.map((index): JourneyContainer => {
    const box = stream(`box:${index}`);
    const generated = withCheckDigit(
      `${box.pick(prefixes)}${String(index * JOURNEYS_PER_SCAC + seed).padStart(6, "0")}`,
    );
    const number = containerIndex === null ? generated : input.number;
    const sizeTypeCode = box.weighted(SIZE_TYPE_WEIGHTS);
    const length = equipmentFromSizeType(sizeTypeCode)?.equipmentLength ?? 40;
    const weightInLbs = length <= 20 ? box.int(9_000, 44_000) : box.int(11_000, 58_000);
    const sealNumber = `${scac.slice(0, 2)}${box.int(1_000_000, 9_999_999)}`;

    const vesselLoadedDay = vesselDepartedDay - box.range(0.3, 1.2);
    const fullInDay = vesselLoadedDay - box.range(1.5, 4);
    const emptyOutDay = fullInDay - box.range(1, 4);
    const tsDischarged = tsArrivedDay + box.range(0.1, 0.6);
    const tsLoaded = tsDepartedDay - box.range(0.2, 0.8);
    const vesselDischargedDay = vesselBerthedDay + box.range(0.2, 1.2);
    const railLoaded = vesselDischargedDay + (railDepartedDay - vesselDischargedDay) * box.range(0.3, 0.8);
    const railUnloaded = railArrivedDay + box.range(0.2, 0.8);
    const arrivedAtFacility = inland ? railUnloaded : vesselDischargedDay;

    const availabilityKnownDay = arrivedAtFacility + box.range(0.1, 0.4);
    const holds = holdDraws.map((h): JourneyHold => {
      const placedDay = h.pending ? arrivedAtFacility + box.range(0.3, 1) : arrivedAtFacility;
      return {
        name: h.name,
        description: h.description,
        pendingDay: h.pending ? arrivedAtFacility : null,
        placedDay,
        releasedDay: placedDay + box.range(h.duration[0], h.duration[1]),
      };
    });
    const lastRelease = holds.reduce((max, h) => Math.max(max, h.releasedDay), Number.NEGATIVE_INFINITY);
    const availableDay = Math.max(availabilityKnownDay + box.range(0.1, 0.4), lastRelease + box.range(0.05, 0.3));
    const lfdSetDay = availableDay + box.range(0.05, 0.3);
    const freeDays = inland ? box.int(2, 3) : box.int(3, 5);
    const pickupLfdDay = lfdDayAfter(input.anchorMs, availableDay, freeDays, facility.timeZone);
    const pickupLfdLineDay = linePolicy === "same" ? pickupLfdDay : linePolicy === "later" ? pickupLfdDay + 1 : null;
    const late = box.chance(0.45);
    const freeEnds = pickupLfdDay + 1;
    const fullOutDay = late
      ? freeEnds + box.range(0.2, 3)
      : availableDay + (freeEnds - availableDay) * box.range(0.3, 0.85);
    const appointmentMadeDay = Math.max(lfdSetDay, fullOutDay - box.range(0.6, 1.5));
    const appointmentDay = fullOutDay - box.range(0.02, 0.1);
    const emptyInDay = fullOutDay + box.range(1.5, 6);
    const emptyTerminal = inland ? inland.ramp : box.pick(podChoice.terminals);
    const yard = `Yard - ${box.pick([..."ABCDEFGHJKLMNPRSTUVWXY"])}${box.digits(4)}${box.pick([..."ABCD"])}`;
    const chassis = withCheckDigit(`${box.pick(CHASSIS_PREFIXES)}${box.digits(6)}`);

    return {
      number,
      sizeTypeCode,
      sealNumber,
      weightInLbs,
      emptyOutDay,
      fullInDay,
      vesselLoadedDay,
      transshipmentDischargedDay: hasTransshipment ? tsDischarged : null,
      transshipmentLoadedDay: hasTransshipment ? tsLoaded : null,
      vesselDischargedDay,
      railLoadedDay: inland ? railLoaded : null,
      railUnloadedDay: inland ? railUnloaded : null,
      availabilityKnownDay,
      availableDay,
      holds,
      lfdSetDay,
      pickupLfdDay,
      pickupLfdLineDay,
      appointmentMadeDay,
      appointmentDay,
      fullOutDay,
      emptyInDay,
      emptyReturn: {
        locode: inland ? inland.destination.locode : podChoice.place.locode,
        facilityCode: emptyTerminal.code,
      },
      locationAtTerminal: yard,
      fullOutChassisNumber: chassis,
    };
  });

  return journeyFromPlan(
    {
      scac,
      requestType: input.requestType,
      number: input.number,
      billOfLadingNumber,
      key,
      pol,
      pod: podChoice.place,
      podTerminal,
      oceanVessel,
      transshipment: hasTransshipment
        ? { port: tsPort, arrivedDay: tsArrivedDay, departedDay: tsDepartedDay, vessel: feeder }
        : null,
      inland,
      polEtdDay,
      vesselDepartedDay,
      podEtaDay: vesselArrivedDay - etaDelay,
      podEtaRevisedDay,
      vesselArrivedDay,
      vesselBerthedDay,
      demurrage,
      containers,
    },
    input.anchorMs,
    input.speed,
  );
}

/**
 * Places a fully specified plan in real time after checking that every box's schedule is in order (empty out →
 * full in → loaded → departed → [transshipment] → arrived → berthed → discharged → [rail] → at the facility →
 * availability → holds cleared → available → appointment → full out → empty in).
 * @throws RangeError when `speed` is not positive; Error naming the first pair of days out of order.
 */
export function journeyFromPlan(plan: JourneyPlan, anchorMs: number, speed: number): Journey {
  assertSpeed(speed);
  if (plan.containers.length === 0) throw new Error("simulator: a journey needs at least one container");
  const order = (what: string, pairs: [string, number | null][]) => {
    let prev: [string, number] | null = null;
    for (const [name, day] of pairs) {
      if (day === null) continue;
      if (!Number.isFinite(day)) throw new Error(`simulator: ${what}: ${name} is not a number`);
      if (prev && day < prev[1]) throw new Error(`simulator: ${what}: ${name} (${day}) before ${prev[0]} (${prev[1]})`);
      prev = [name, day];
    }
  };
  const ts = plan.transshipment;
  const inland = plan.inland;
  order("shipment", [
    ["vesselDeparted", plan.vesselDepartedDay],
    ["transshipmentArrived", ts?.arrivedDay ?? null],
    ["transshipmentDeparted", ts?.departedDay ?? null],
    ["podEtaRevised", plan.podEtaRevisedDay],
    ["vesselArrived", plan.vesselArrivedDay],
    ["vesselBerthed", plan.vesselBerthedDay],
    ["railDeparted", inland?.railDepartedDay ?? null],
    ["railArrived", inland?.railArrivedDay ?? null],
  ]);
  for (const c of plan.containers) {
    const what = `container ${c.number}`;
    if ((c.transshipmentDischargedDay === null) !== (ts === null) || (c.railLoadedDay === null) !== (inland === null)) {
      throw new Error(`simulator: ${what}: legs do not match the shipment's`);
    }
    const arrivedAtFacility = inland ? c.railUnloadedDay : c.vesselDischargedDay;
    order(what, [
      ["emptyOut", c.emptyOutDay],
      ["fullIn", c.fullInDay],
      ["vesselLoaded", c.vesselLoadedDay],
      ["vesselDeparted", plan.vesselDepartedDay],
      ["transshipmentArrived", ts?.arrivedDay ?? null],
      ["transshipmentDischarged", c.transshipmentDischargedDay],
      ["transshipmentLoaded", c.transshipmentLoadedDay],
      ["transshipmentDeparted", ts?.departedDay ?? null],
      ["vesselArrived", plan.vesselArrivedDay],
      ["vesselBerthed", plan.vesselBerthedDay],
      ["vesselDischarged", c.vesselDischargedDay],
      ["railLoaded", c.railLoadedDay],
      ["railDeparted", inland?.railDepartedDay ?? null],
      ["railArrived", inland?.railArrivedDay ?? null],
      ["railUnloaded", c.railUnloadedDay],
      ["availabilityKnown", c.availabilityKnownDay],
      ["available", c.availableDay],
      ["lfdSet", c.lfdSetDay],
      ["appointmentMade", c.appointmentMadeDay],
      ["appointment", c.appointmentDay],
      ["fullOut", c.fullOutDay],
      ["emptyIn", c.emptyInDay],
    ]);
    order(`${what} LFD`, [
      ["available", c.availableDay],
      ["pickupLfd", c.pickupLfdDay],
    ]);
    for (const h of c.holds) {
      order(`${what} ${h.name} hold`, [
        ["arrivedAtFacility", arrivedAtFacility],
        ["pending", h.pendingDay],
        ["placed", h.placedDay],
        ["released", h.releasedDay],
        ["available", c.availableDay],
      ]);
    }
  }
  return { ...plan, anchorMs, speed };
}

// ---- the sandbox's TEST-LIFECYCLE ----------------------------------------------------------------------------------

/** What the sandbox's fixed journey needs; every field but the anchor has a default. */
export interface LifecycleInput {
  /** When tracking started, ms since the Unix epoch. */
  anchorMs: number;
  /** Simulated days per real minute; default 1. */
  speed?: number;
  /** The tracked number; default `TEST-LIFECYCLE`. */
  number?: string;
  /** The boxes; default `TSTU2000001`-style numbers with valid check digits. */
  containerNumbers?: readonly string[];
}

/**
 * The fixed journey of the sandbox number `TEST-LIFECYCLE` (DECISIONS.md §Sandbox), identical at every anchor:
 * Yantian (CNYTN) to Los Angeles (USLAX, Fenix Marine Services Y257) on SANDBOX EXPRESS 001E. Simulated days
 * after the anchor: departure 0.5, arrival 4, berthed 4.2, discharge 4.5 (+0.1 per further box), customs hold
 * (`CBP HOLD`) placed at discharge and released a day later, availability known +0.1, available +1.2, LFD set
 * +1.4 (terminal and line LFD +3), demurrage 150 USD per started day once the LFD has ended (+4), appointment
 * booked +4.5 for +5.45, full out +5.5 (fee 300 USD), empty in +7, all relative to each box's discharge.
 */
export function sandboxLifecycleJourney(input: LifecycleInput): Journey {
  const speed = input.speed ?? 1;
  const numbers = input.containerNumbers ?? [withCheckDigit("TSTU200000"), withCheckDigit("TSTU200001")];
  const fenix = TERMINALS.find((t) => t.firmsCode === "Y257");
  const podTerminal: JourneyFacility = {
    code: "Y257",
    name: fenix?.name ?? "Fenix Marine Services",
    timeZone: fenix?.timeZone ?? "America/Los_Angeles",
  };
  const pol = placeOf("CNYTN") ?? { locode: "CNYTN", name: "Yantian", timeZone: null };
  const pod = placeOf("USLAX") ?? { locode: "USLAX", name: "Los Angeles", timeZone: "America/Los_Angeles" };
  const containers = numbers.map((number, i): JourneyContainer => {
    const at = 4.5 + 0.1 * i;
    return {
      number,
      sizeTypeCode: i % 2 === 0 ? "45G1" : "42G1",
      sealNumber: `SB${200200 + i}`,
      weightInLbs: 22_046 + i * 1_000,
      emptyOutDay: -3,
      fullInDay: -1.5,
      vesselLoadedDay: 0.25 + 0.02 * i,
      transshipmentDischargedDay: null,
      transshipmentLoadedDay: null,
      vesselDischargedDay: at,
      railLoadedDay: null,
      railUnloadedDay: null,
      availabilityKnownDay: at + 0.1,
      availableDay: at + 1.2,
      holds: [{ name: "customs", description: "CBP HOLD", pendingDay: null, placedDay: at, releasedDay: at + 1 }],
      lfdSetDay: at + 1.4,
      pickupLfdDay: at + 3,
      pickupLfdLineDay: at + 3,
      appointmentMadeDay: at + 4.5,
      appointmentDay: at + 5.45,
      fullOutDay: at + 5.5,
      emptyInDay: at + 7,
      emptyReturn: { locode: "USLAX", facilityCode: "Y257" },
      locationAtTerminal: `Yard - Y070${i}A`,
      fullOutChassisNumber: withCheckDigit(`DCLZ40000${i}`),
    };
  });
  return journeyFromPlan(
    {
      scac: "TEST",
      requestType: "bill_of_lading",
      number: input.number ?? "TEST-LIFECYCLE",
      billOfLadingNumber: input.number ?? "TEST-LIFECYCLE",
      key: "sandbox:TEST-LIFECYCLE",
      pol,
      pod,
      podTerminal,
      oceanVessel: { name: "SANDBOX EXPRESS", imo: "9811000", voyageNumber: "001E" },
      transshipment: null,
      inland: null,
      polEtdDay: 0.5,
      vesselDepartedDay: 0.5,
      podEtaDay: 4,
      podEtaRevisedDay: 4,
      vesselArrivedDay: 4,
      vesselBerthedDay: 4.2,
      demurrage: { currencyCode: "USD", ratePerDay: 150, firstTierDays: 4, laterRatePerDay: 300 },
      containers,
    },
    input.anchorMs,
    speed,
  );
}

// ---- state at a moment -----------------------------------------------------------------------------------------------

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

/** Demurrage owed at simulated day `day` (SPEC.md §2.3), in the journey's currency; 0 within free time. */
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
