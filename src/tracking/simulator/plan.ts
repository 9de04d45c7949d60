/**
 * Planning a journey: {@link planJourney} draws one from a tracking request's SCAC and number; {@link journeyFromPlan}
 * places a plan (drawn or hand-written) in real time after checking its order.
 */
import type { TerminalHold } from "../../db/schema";
import { withCheckDigit } from "../../infer/iso6346";
import { containerPrefixesForScac } from "../../reference/container-prefixes";
import { equipmentFromSizeType } from "../../reference/equipment";
import { findShippingLine } from "../../reference/shipping-lines";
import { JOURNEYS_PER_SCAC, journeyIdentity, MAX_CONTAINERS } from "./journey-identity";
import {
  ALL_RAIL_CARRIERS,
  CHASSIS_PREFIXES,
  inlandDestinations,
  origins,
  podChoices,
  RAIL_CARRIERS,
  rampFor,
  SIZE_TYPE_WEIGHTS,
  transshipmentPorts,
  VESSEL_WORDS,
} from "./planner-data";
import { Rng } from "./random";
import { lfdDayAfter } from "./simulated-time";
import type {
  Journey,
  JourneyContainer,
  JourneyDemurrage,
  JourneyHold,
  JourneyInland,
  JourneyInput,
  JourneyPlan,
  JourneyVessel,
} from "./types";

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
  const pol = route.weighted(origins());
  const podChoice = route.pick(podChoices());
  const podTerminal = route.pick(podChoice.terminals);
  const hasTransshipment = route.chance(0.4);
  const tsPort = route.pick(transshipmentPorts().filter((p) => p.locode !== pol.locode));
  const hasInland = route.chance(0.3);
  const destination = route.pick(inlandDestinations());
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
