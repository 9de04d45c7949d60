import { describe, expect, it } from "vitest";
import { hasValidCheckDigit, withCheckDigit } from "../../../src/infer/iso6346";
import { toIsoSeconds } from "../../../src/lib/clock";
import { containerPrefixesForScac } from "../../../src/reference/container-prefixes";
import { equipmentFromSizeType } from "../../../src/reference/equipment";
import { findPortByLocode, findTerminalByCode } from "../../../src/reference/locations";
import { journeyFromPlan, planJourney } from "../../../src/tracking/simulator/plan";
import { inlandDestinations } from "../../../src/tracking/simulator/planner-data";
import { sandboxLifecycleJourney } from "../../../src/tracking/simulator/sandbox-lifecycle";
import { realMsOf } from "../../../src/tracking/simulator/simulated-time";
import { demurrageAt, journeyAt, terminalAt } from "../../../src/tracking/simulator/state";
import type { Journey, JourneyContainer } from "../../../src/tracking/simulator/types";
import {
  createSimulatorSource,
  parseSimulationSpeed,
  SIMULATED_SCACS,
  simulatedFacilityCodes,
} from "../../../src/tracking/sources/simulator";
import type { SourceContext } from "../../../src/tracking/sources/types";
import { type CurrentStatus, deriveCurrentStatus } from "../../../src/tracking/status";

// The simulator of docs/architecture.md §Sources: deterministic journeys from real reference data, played on
// SIMULATION_SPEED.

const ANCHOR = Date.UTC(2025, 2, 3, 17, 30, 0);
const MINUTE = 60_000;

function plan(number: string, scac = "MAEU", requestType = "bill_of_lading", speed = 1, anchorMs = ANCHOR): Journey {
  return planJourney({ scac, number, requestType, anchorMs, speed });
}

/** Real time of simulated day `day` at speed 1. */
const at = (journey: Journey, day: number) => realMsOf(journey, day);

/** A fixed fleet of journeys to check properties over; deterministic, so never flaky. */
const FLEET: Journey[] = ["MAEU", "MSCU", "CMDU", "HLCU", "ONEY", "ANNU"].flatMap((scac) =>
  Array.from({ length: 60 }, (_, i) => plan(`${scac}BL${100_000 + i * 7919}`, scac)),
);

/** The first fleet journey satisfying `test`: a search with a bound, so a planner change fails loudly. */
function find(test: (j: Journey) => boolean): Journey {
  const journey = FLEET.find(test);
  if (!journey) throw new Error("no journey in the fleet has the property");
  return journey;
}

/** current_status of box `i` at `nowMs`, derived (docs/decisions.md §Containers) from what the sources report. */
function statusAt(journey: Journey, nowMs: number, i = 0): CurrentStatus {
  const state = journeyAt(journey, nowMs);
  const c = state.facts.containers[i];
  if (!c) throw new Error(`no container ${i}`);
  const t = state.terminals[i] ?? null;
  const actual = (event: string) =>
    c.milestones?.find((m) => m.event === `container.transport.${event}` && !m.estimated)?.timestamp ?? null;
  const inland = state.facts.destinationLocode !== null;
  return deriveCurrentStatus({
    deliveredAt: null,
    emptyTerminatedAt: actual("empty_in"),
    podFullOutAt: inland ? null : actual("full_out"),
    finalDestinationFullOutAt: inland ? actual("full_out") : null,
    hasInlandLeg: inland,
    offDock: t?.offDock ?? false,
    podDischargedAt: actual("vessel_discharged"),
    indRailUnloadedAt: actual("rail_unloaded"),
    indAtaAt: actual("arrived_at_inland_destination"),
    podRailLoadedAt: actual("rail_loaded"),
    podRailDepartedAt: actual("rail_departed"),
    polVesselLoadedAt: c.polVesselLoadedAt,
    polVesselDepartedAt: c.polVesselDepartedAt,
    availabilityKnown: t?.availabilityKnown ?? false,
    availableForPickup: t?.availableForPickup ?? null,
  });
}

/** Sample times every `step` simulated days from the anchor until a day after the last empty return. */
function sampleDays(journey: Journey, step = 0.05): number[] {
  const end = Math.max(...journey.containers.map((c) => c.emptyInDay)) + 1;
  const days: number[] = [];
  for (let d = 0; d <= end; d += step) days.push(d);
  return days;
}

/** The statuses a box walks through, consecutive repeats collapsed. */
function walk(journey: Journey, i = 0): CurrentStatus[] {
  const seen: CurrentStatus[] = [];
  for (const d of sampleDays(journey)) {
    const s = statusAt(journey, at(journey, d), i);
    if (seen[seen.length - 1] !== s) seen.push(s);
  }
  return seen;
}

describe("planJourney: determinism", () => {
  it("gives the same journey for the same input", () => {
    expect(plan("MAEU123456789")).toEqual(plan("MAEU123456789"));
    expect(plan("MSKU1234565", "MAEU", "container")).toEqual(plan("MSKU1234565", "MAEU", "container"));
  });

  it("gives different journeys for different numbers and SCACs", () => {
    const a = plan("MAEU123456789");
    const b = plan("MAEU123456790");
    const c = plan("MAEU123456789", "MSCU");
    expect(a.key).not.toBe(b.key);
    expect(a).not.toEqual(b);
    expect(a).not.toEqual(c);
    // Adjacent container numbers are different journeys too.
    expect(plan(withCheckDigit("MSKU123456"), "MAEU", "container").key).not.toBe(
      plan(withCheckDigit("MSKU123457"), "MAEU", "container").key,
    );
    const keys = new Set(FLEET.map((j) => j.key));
    expect(keys.size).toBeGreaterThan(FLEET.length - 3);
  });

  it("varies routes across numbers", () => {
    expect(new Set(FLEET.map((j) => j.pod.locode)).size).toBeGreaterThan(5);
    expect(new Set(FLEET.map((j) => j.pol.locode)).size).toBeGreaterThan(10);
  });

  it("rejects a speed that is not positive", () => {
    expect(() => plan("X1", "MAEU", "bill_of_lading", 0)).toThrow(RangeError);
    expect(() => plan("X1", "MAEU", "bill_of_lading", -1)).toThrow(RangeError);
    expect(() => plan("X1", "MAEU", "bill_of_lading", Number.NaN)).toThrow(RangeError);
  });
});

describe("planJourney: reference data", () => {
  it("numbers every box with the carrier's prefix and a valid ISO 6346 check digit", () => {
    for (const j of FLEET) {
      expect(j.containers.length).toBeGreaterThanOrEqual(1);
      expect(j.containers.length).toBeLessThanOrEqual(3);
      const prefixes = containerPrefixesForScac(j.scac);
      const allowed = prefixes.length > 0 ? prefixes : [`${j.scac.slice(0, 3)}U`];
      for (const c of j.containers) {
        expect(hasValidCheckDigit(c.number), c.number).toBe(true);
        expect(allowed, c.number).toContain(c.number.slice(0, 4));
      }
      expect(new Set(j.containers.map((c) => c.number)).size).toBe(j.containers.length);
    }
    // A line without known prefixes falls back to its SCAC's letters.
    expect(
      FLEET.filter((j) => j.scac === "ANNU").every((j) => j.containers.every((c) => c.number.startsWith("ANNU"))),
    ).toBe(true);
  });

  it("tracks exactly the requested number on a container request", () => {
    const number = withCheckDigit("MSKU765432");
    const j = plan(number, "MAEU", "container");
    expect(j.containers.map((c) => c.number)).toEqual([number]);
    expect(journeyAt(j, ANCHOR).facts.containers.map((c) => c.number)).toEqual([number]);
  });

  it("routes from a real non-US port to a real POD terminal with a FIRMS code and time zone", () => {
    for (const j of FLEET) {
      expect(findPortByLocode(j.pol.locode)?.name).toBe(j.pol.name);
      expect(j.pol.locode.startsWith("US")).toBe(false);
      const terminal = findTerminalByCode(j.podTerminal.code);
      expect(terminal?.firmsCode).toBe(j.podTerminal.code);
      expect(terminal?.portLocode).toBe(j.pod.locode);
      expect(terminal?.timeZone).toBeTruthy();
      expect(j.podTerminal.timeZone).toBe(terminal?.timeZone);
      expect(simulatedFacilityCodes()).toContain(j.podTerminal.code);
    }
  });

  it("loads at real ports all over Asia and Europe, each with its IANA zone, the big hubs most often", () => {
    const pols = new Map<string, number>();
    for (const j of FLEET) {
      const port = findPortByLocode(j.pol.locode);
      expect(port?.code, j.pol.locode).toBe(j.pol.locode);
      expect(j.pol.timeZone, j.pol.locode).toMatch(/^(Asia|Europe)\//);
      expect(j.pol.timeZone).toBe(port?.timeZone);
      pols.set(j.pol.locode, (pols.get(j.pol.locode) ?? 0) + 1);
    }
    // 360 journeys over some 400 origins weighted by their terminal count: many distinct POLs, none dominant.
    expect(pols.size).toBeGreaterThan(100);
    expect(Math.max(...pols.values())).toBeLessThan(FLEET.length / 10);
    expect([...pols.keys()].some((c) => c.startsWith("CN"))).toBe(true);
    expect([...pols.keys()].some((c) => /^(DE|NL|BE|FR|ES|IT|GB)/.test(c))).toBe(true);
  });

  it("transships about 40 % and moves inland by rail about 30 % of journeys", () => {
    const ts = FLEET.filter((j) => j.transshipment).length / FLEET.length;
    const inland = FLEET.filter((j) => j.inland).length / FLEET.length;
    expect(ts).toBeGreaterThan(0.3);
    expect(ts).toBeLessThan(0.5);
    expect(inland).toBeGreaterThan(0.2);
    expect(inland).toBeLessThan(0.4);
    for (const j of FLEET.filter((x) => x.transshipment)) {
      expect(findPortByLocode(j.transshipment?.port.locode)).not.toBeNull();
      expect(j.transshipment?.port.locode).not.toBe(j.pol.locode);
    }
    for (const j of FLEET.filter((x) => x.inland)) {
      expect(inlandDestinations().map((d) => d.locode)).toContain(j.inland?.destination.locode);
      expect(j.inland?.destination.timeZone).toMatch(/^America\//);
      expect(simulatedFacilityCodes()).toContain(j.inland?.ramp.code);
    }
  });

  it("uses size-type codes from the ISO 6346 table, with weights and seals", () => {
    const codes = new Set<string>();
    for (const j of FLEET) {
      for (const c of j.containers) {
        expect(equipmentFromSizeType(c.sizeTypeCode), c.sizeTypeCode).not.toBeNull();
        expect(c.weightInLbs).toBeGreaterThan(0);
        expect(c.sealNumber).toMatch(/^[A-Z0-9]{2}\d{7}$/);
        codes.add(c.sizeTypeCode);
      }
    }
    expect(codes.size).toBeGreaterThan(4);
    const facts = journeyAt(FLEET[0] as Journey, ANCHOR).facts.containers[0];
    expect(facts && equipmentFromSizeType(facts.sizeTypeCode)).toEqual({
      equipmentType: facts?.equipmentType,
      equipmentLength: facts?.equipmentLength,
      equipmentHeight: facts?.equipmentHeight,
    });
  });

  it("gives vessels IMO numbers with a valid check digit", () => {
    for (const j of FLEET) {
      for (const v of [j.oceanVessel, j.transshipment?.vessel].filter((x) => x !== undefined)) {
        expect(v.imo).toMatch(/^\d{7}$/);
        const digits = [...v.imo].map(Number);
        const sum = digits.slice(0, 6).reduce((s, d, i) => s + d * (7 - i), 0);
        expect(sum % 10).toBe(digits[6]);
      }
    }
  });
});

describe("journeyAt: milestones", () => {
  it("has the vessel already departed at the anchor, so a new request shows on_ship", () => {
    for (const j of FLEET) {
      expect(j.vesselDepartedDay).toBeLessThan(0);
      expect(statusAt(j, ANCHOR)).toBe("on_ship");
      expect(journeyAt(j, ANCHOR).facts.polAtdAt).not.toBeNull();
      expect(journeyAt(j, ANCHOR).terminal).toBeNull();
    }
  });

  it("reports milestones in chronological order, actual ones not after now", () => {
    for (const j of FLEET.slice(0, 60)) {
      for (const d of [0, 3, 8, 15, 22, 30, 45]) {
        const now = at(j, d);
        for (const c of journeyAt(j, now).facts.containers) {
          const ms = c.milestones ?? [];
          const times = ms.map((m) => Date.parse(m.timestamp));
          expect(times).toEqual([...times].sort((a, b) => a - b));
          for (const m of ms.filter((x) => !x.estimated)) expect(Date.parse(m.timestamp)).toBeLessThanOrEqual(now);
          expect(new Set(ms.map((m) => m.sourceEventId)).size).toBe(ms.length);
        }
      }
    }
  });

  it("estimates the POD arrival before it happens and revises a late ETA once", () => {
    const j = find((x) => x.podEtaDay < x.vesselArrivedDay - 0.2 && x.podEtaRevisedDay > 0);
    const arrival = (now: number) =>
      journeyAt(j, now).facts.containers[0]?.milestones?.find((m) => m.event === "container.transport.vessel_arrived");
    const early = arrival(at(j, 0));
    expect(early?.estimated).toBe(true);
    expect(early?.timestamp).toBe(journeyAt(j, at(j, 0)).facts.podEtaAt);
    const revised = arrival(at(j, j.podEtaRevisedDay + 0.01));
    expect(revised?.estimated).toBe(true);
    expect(Date.parse(revised?.timestamp ?? "")).toBeGreaterThan(Date.parse(early?.timestamp ?? ""));
    expect(revised?.sourceEventId).not.toBe(early?.sourceEventId);
    const actual = arrival(at(j, j.vesselArrivedDay + 0.01));
    expect(actual?.estimated).toBe(false);
    expect(journeyAt(j, at(j, j.vesselArrivedDay + 0.01)).facts.podAtaAt).toBe(actual?.timestamp);
  });

  it("reports transshipment events at the transshipment port", () => {
    const j = find((x) => x.transshipment !== null);
    const ms = journeyAt(j, at(j, 60)).facts.containers[0]?.milestones ?? [];
    const ts = ms.filter((m) => m.event.startsWith("container.transport.transshipment_"));
    expect(ts.map((m) => m.event)).toEqual([
      "container.transport.transshipment_arrived",
      "container.transport.transshipment_discharged",
      "container.transport.transshipment_loaded",
      "container.transport.transshipment_departed",
    ]);
    for (const m of ts) expect(m.locationLocode).toBe(j.transshipment?.port.locode);
    expect(ts[3]?.vesselName).toBe(j.transshipment?.vessel.name);
    expect(journeyAt(j, ANCHOR).facts.podVesselName).toBe(j.transshipment?.vessel.name);
  });
});

describe("journeyAt: the box's life at the final facility", () => {
  it("walks on_ship → grounded → not_available (hold) → available → picked_up → empty_returned", () => {
    const j = find((x) => !x.inland && (x.containers[0]?.holds.length ?? 0) > 0);
    expect(walk(j)).toEqual(["on_ship", "grounded", "not_available", "available", "picked_up", "empty_returned"]);
    const c = j.containers[0] as JourneyContainer;
    const hold = c.holds[0];
    expect(hold).toBeDefined();
    const during = journeyAt(j, at(j, ((hold?.placedDay ?? 0) + (hold?.releasedDay ?? 0)) / 2)).terminal;
    expect(during?.holds.some((h) => h.status === "hold")).toBe(true);
    expect(during?.availableForPickup).toBe(false);
    const lastEmptyIn = Math.max(...j.containers.map((x) => x.emptyInDay));
    const after = journeyAt(j, at(j, lastEmptyIn + 0.01));
    expect(after.trackingStopped).toBe(true);
    expect(journeyAt(j, at(j, lastEmptyIn - 0.01)).trackingStopped).toBe(false);
    expect(after.terminal?.fullOutAt).not.toBeNull();
    expect(after.terminal?.holds).toEqual([]);
  });

  it("is never available while a hold is listed", () => {
    for (const j of FLEET.slice(0, 40)) {
      for (const d of sampleDays(j, 0.1)) {
        for (const t of journeyAt(j, at(j, d)).terminals) {
          if (t && t.holds.length > 0) expect(t.availableForPickup).not.toBe(true);
        }
      }
    }
  });

  it("moves a hold pending → hold → cleared", () => {
    const j = find((x) => x.containers[0]?.holds.some((h) => h.pendingDay !== null) ?? false);
    const c = j.containers[0] as JourneyContainer;
    const hold = c.holds.find((h) => h.pendingDay !== null);
    if (!hold || hold.pendingDay === null) throw new Error("no pending hold");
    const statusOf = (day: number) =>
      journeyAt(j, at(j, day)).terminal?.holds.find((h) => h.name === hold.name)?.status ?? "cleared";
    expect(statusOf((hold.pendingDay + hold.placedDay) / 2)).toBe("pending");
    expect(statusOf((hold.placedDay + hold.releasedDay) / 2)).toBe("hold");
    expect(statusOf(hold.releasedDay + 0.01)).toBe("cleared");
    const seen: string[] = [];
    for (const d of sampleDays(j, 0.02)) {
      if (d < hold.pendingDay) continue;
      const s = statusOf(d);
      if (seen[seen.length - 1] !== s) seen.push(s);
    }
    expect(seen).toEqual(["pending", "hold", "cleared"]);
  });

  it("places customs and freight holds across the fleet, some pending first", () => {
    const holds = FLEET.flatMap((j) => j.containers.flatMap((c) => c.holds));
    expect(holds.some((h) => h.name === "customs")).toBe(true);
    expect(holds.some((h) => h.name === "freight")).toBe(true);
    expect(holds.some((h) => h.pendingDay !== null)).toBe(true);
    expect(FLEET.some((j) => j.containers.every((c) => c.holds.length === 0))).toBe(true);
  });

  it("publishes the terminal LFD at local midnight and the line's LFD with it", () => {
    const j = find((x) => !x.inland && x.containers[0]?.pickupLfdLineDay !== null);
    const c = j.containers[0] as JourneyContainer;
    const before = journeyAt(j, at(j, c.lfdSetDay - 0.01));
    expect(before.terminal?.pickupLfd ?? null).toBeNull();
    expect(before.facts.containers[0]?.pickupLfdLine).toBeNull();
    const after = journeyAt(j, at(j, c.lfdSetDay + 0.01));
    expect(after.terminal?.pickupLfd).toBe(toIsoSeconds(at(j, c.pickupLfdDay)));
    expect(after.facts.containers[0]?.pickupLfdLine).not.toBeNull();
    // Local midnight on the simulated calendar: a whole number of days from the anchor, shifted by the zone.
    const simulatedMidnight = ANCHOR + c.pickupLfdDay * 86_400_000;
    const local = new Intl.DateTimeFormat("en-US", {
      timeZone: j.podTerminal.timeZone,
      hourCycle: "h23",
      hour: "numeric",
      minute: "numeric",
    });
    expect(local.format(new Date(simulatedMidnight))).toBe("00:00");
  });

  it("books a pickup appointment before full out", () => {
    for (const j of FLEET) {
      for (const c of j.containers) {
        expect(c.appointmentMadeDay).toBeGreaterThanOrEqual(c.availableDay);
        expect(c.appointmentDay).toBeLessThanOrEqual(c.fullOutDay);
      }
    }
    const j = FLEET[0] as Journey;
    const c = j.containers[0] as JourneyContainer;
    expect(journeyAt(j, at(j, c.appointmentMadeDay - 0.01)).terminal?.pickupAppointmentAt ?? null).toBeNull();
    expect(journeyAt(j, at(j, c.appointmentMadeDay + 0.01)).terminal?.pickupAppointmentAt).not.toBeNull();
  });
});

describe("journeyAt: demurrage", () => {
  it("charges nothing until the LFD has ended, then grows per day until full out", () => {
    const j = find((x) => !x.inland && (x.containers[0]?.fullOutDay ?? 0) > (x.containers[0]?.pickupLfdDay ?? 0) + 2.5);
    const c = j.containers[0] as JourneyContainer;
    const fee = (day: number) => {
      const fees = journeyAt(j, at(j, day)).terminal?.fees ?? [];
      expect(fees.every((f) => f.type === "demurrage" && f.currency_code === "USD")).toBe(true);
      return fees[0]?.amount ?? 0;
    };
    let previous = 0;
    for (const d of sampleDays(j, 0.05)) {
      const amount = fee(d);
      if (d <= c.pickupLfdDay + 1) expect(amount, `day ${d}`).toBe(0);
      else if (d < c.fullOutDay) expect(amount, `day ${d}`).toBeGreaterThan(0);
      expect(amount).toBeGreaterThanOrEqual(previous);
      if (d > c.fullOutDay) expect(amount).toBe(previous);
      previous = amount;
    }
    expect(fee(c.pickupLfdDay + 1.5)).toBe(j.demurrage.ratePerDay);
    expect(fee(c.pickupLfdDay + 2.5)).toBe(2 * j.demurrage.ratePerDay);
    expect(previous).toBe(demurrageAt(j, c, c.fullOutDay));
  });

  it("charges the later tier after the first tier's days", () => {
    const j = FLEET[0] as Journey;
    const c = { ...(j.containers[0] as JourneyContainer), fullOutDay: 1_000 };
    const { ratePerDay, laterRatePerDay, firstTierDays } = j.demurrage;
    expect(demurrageAt(j, c, c.pickupLfdDay + 1 + firstTierDays + 1.5)).toBe(
      firstTierDays * ratePerDay + 2 * laterRatePerDay,
    );
  });

  it("never charges a box picked up in free time", () => {
    const j = find((x) => !x.inland && (x.containers[0]?.fullOutDay ?? 0) < (x.containers[0]?.pickupLfdDay ?? 0) + 1);
    for (const d of sampleDays(j, 0.1)) expect(journeyAt(j, at(j, d)).terminal?.fees ?? []).toEqual([]);
  });
});

describe("journeyAt: inland rail moves", () => {
  it("walks on_ship → awaiting_inland_transfer → on_rail → grounded → not_available → available → picked_up → empty_returned", () => {
    const j = find((x) => x.inland !== null);
    expect(walk(j)).toEqual([
      "on_ship",
      "awaiting_inland_transfer",
      "on_rail",
      "grounded",
      "not_available",
      "available",
      "picked_up",
      "empty_returned",
    ]);
  });

  it("reports rail events, the rail carriers, a rail LFD at the ramp and full out inland", () => {
    const j = find((x) => x.inland !== null);
    const inland = j.inland;
    if (!inland) throw new Error("not inland");
    const c = j.containers[0] as JourneyContainer;
    const done = journeyAt(j, at(j, c.emptyInDay + 1));
    const box = done.facts.containers[0];
    const events = (box?.milestones ?? []).map((m) => m.event);
    for (const e of [
      "rail_loaded",
      "rail_departed",
      "rail_arrived",
      "arrived_at_inland_destination",
      "rail_unloaded",
    ]) {
      expect(events).toContain(`container.transport.${e}`);
    }
    const fullOut = box?.milestones?.find((m) => m.event === "container.transport.full_out");
    expect(fullOut?.locationLocode).toBe(inland.destination.locode);
    expect(fullOut?.facilityCode).toBe(inland.ramp.code);
    expect(box?.podRailCarrierScac).toMatch(/^(BNSF|CPKC|CSXT|NSRR)$/);
    expect(done.facts.destinationLocode).toBe(inland.destination.locode);
    expect(done.facts.destinationTerminalCode).toBe(inland.ramp.code);
    expect(done.facts.destinationAtaAt).not.toBeNull();
    // The ramp's LFD is the rail LFD: the ramp reports it, at local midnight of the destination.
    const atRamp = journeyAt(j, at(j, c.lfdSetDay + 0.01)).terminal;
    expect(atRamp?.pickupLfd).not.toBeNull();
    expect(atRamp?.dischargedAt).toBeNull();
    expect(terminalAt(j, c.number, inland.ramp.code, at(j, c.lfdSetDay + 0.01))).toEqual(atRamp);
    // Before the rail unload the ramp has nothing; the POD terminal sees the box on its rail.
    const onDock = at(j, (c.vesselDischargedDay + inland.railDepartedDay) / 2);
    expect(journeyAt(j, onDock).terminal).toBeNull();
    const pod = terminalAt(j, c.number, j.podTerminal.code, onDock);
    expect(pod?.availableForPickup).toBe(false);
    expect(pod?.dischargedAt).not.toBeNull();
  });

  it("estimates the inland arrival until the train arrives", () => {
    const j = find((x) => x.inland !== null);
    const ms = journeyAt(j, ANCHOR).facts.containers[0]?.milestones ?? [];
    const eta = ms.find((m) => m.event === "container.transport.arrived_at_inland_destination");
    expect(eta?.estimated).toBe(true);
    expect(journeyAt(j, ANCHOR).facts.destinationEtaAt).toBe(eta?.timestamp);
    expect(journeyAt(j, ANCHOR).facts.destinationAtaAt).toBeNull();
  });
});

describe("speed", () => {
  it("plans the same simulated days at every speed and scales real time by it", () => {
    const slow = plan("HLCU555", "HLCU", "bill_of_lading", 1);
    const fast = plan("HLCU555", "HLCU", "bill_of_lading", 4);
    expect({ ...fast, speed: 1 }).toEqual(slow);
    const c = slow.containers[0] as JourneyContainer;
    expect(realMsOf(slow, c.fullOutDay) - ANCHOR).toBeCloseTo(c.fullOutDay * MINUTE, 0);
    expect(realMsOf(fast, c.fullOutDay) - ANCHOR).toBeCloseTo((c.fullOutDay * MINUTE) / 4, 0);
    for (const d of [0, 5, 12, 20, 30]) {
      expect(statusAt(fast, ANCHOR + (d * MINUTE) / 4)).toBe(statusAt(slow, ANCHOR + d * MINUTE));
    }
  });

  it("reads SIMULATION_SPEED, defaulting to one simulated day per real minute", () => {
    expect(parseSimulationSpeed(undefined)).toBe(1);
    expect(parseSimulationSpeed(" ")).toBe(1);
    expect(parseSimulationSpeed("1440")).toBe(1440);
    expect(parseSimulationSpeed("0.5")).toBe(0.5);
    expect(() => parseSimulationSpeed("0")).toThrow(RangeError);
    expect(() => parseSimulationSpeed("fast")).toThrow(RangeError);
  });
});

describe("journeyFromPlan and the sandbox lifecycle", () => {
  it("plays TEST-LIFECYCLE: departure, arrival, discharge, customs hold, available, LFD, demurrage, full out, empty in", () => {
    const j = sandboxLifecycleJourney({ anchorMs: ANCHOR });
    expect(j.containers).toHaveLength(2);
    for (const c of j.containers) expect(hasValidCheckDigit(c.number)).toBe(true);
    expect(statusAt(j, ANCHOR)).toBe("new");
    expect(walk(j)).toEqual([
      "new",
      "on_ship",
      "grounded",
      "not_available",
      "available",
      "picked_up",
      "empty_returned",
    ]);
    const c = j.containers[0] as JourneyContainer;
    const held = journeyAt(j, at(j, c.vesselDischargedDay + 0.5)).terminal;
    expect(held?.holds).toEqual([{ name: "customs", status: "hold", description: "CBP HOLD" }]);
    expect(journeyAt(j, at(j, c.lfdSetDay - 0.01)).terminal?.pickupLfd).toBeNull();
    expect(journeyAt(j, at(j, c.lfdSetDay + 0.01)).terminal?.pickupLfd).not.toBeNull();
    const end = journeyAt(j, at(j, 20));
    expect(end.terminal?.fees).toEqual([{ type: "demurrage", amount: 300, currency_code: "USD" }]);
    expect(end.trackingStopped).toBe(true);
    expect(end.facts.podTerminalCode).toBe("Y257");
    // Identical at every anchor, up to the shift.
    const later = sandboxLifecycleJourney({ anchorMs: ANCHOR + 3_600_000 });
    expect({ ...later, anchorMs: ANCHOR }).toEqual(j);
  });

  it("rejects a plan whose days are out of order", () => {
    const j = sandboxLifecycleJourney({ anchorMs: ANCHOR });
    const c = j.containers[0] as JourneyContainer;
    const broken = { ...j, containers: [{ ...c, fullOutDay: c.availableDay - 0.5 }] };
    expect(() => journeyFromPlan(broken, ANCHOR, 1)).toThrow(/fullOut/);
    const badHold = {
      ...j,
      containers: [
        {
          ...c,
          holds: [
            {
              name: "customs" as const,
              description: "CBP HOLD",
              pendingDay: null,
              placedDay: c.vesselDischargedDay,
              releasedDay: c.availableDay + 1,
            },
          ],
        },
      ],
    };
    expect(() => journeyFromPlan(badHold, ANCHOR, 1)).toThrow(/hold/);
  });
});

describe("createSimulatorSource", () => {
  const { carrier, terminal } = createSimulatorSource({ speed: 1 });
  const ctx = (nowMs: number, trackingStartedAtMs?: number): SourceContext => ({
    nowMs,
    trackingStartedAtMs,
    fetch: () => Promise.reject(new Error("the simulator must not use the network")),
  });

  it("supports every tracking-supported SCAC except the sandbox's", () => {
    expect(SIMULATED_SCACS).toContain("MAEU");
    expect(SIMULATED_SCACS).not.toContain("TEST");
    expect(SIMULATED_SCACS).not.toContain("CKLU");
    expect(carrier.supports("MAEU")).toBe(true);
    expect(carrier.supports("maeu")).toBe(true);
    expect(carrier.supports("TEST")).toBe(false);
    expect(carrier.supports("CKLU")).toBe(false);
  });

  it("finds a BL with the journey's facts at now, anchored when tracking started", async () => {
    const started = ANCHOR;
    const first = await carrier.lookup(
      { requestType: "bill_of_lading", number: "MAEU900100", scac: "MAEU" },
      ctx(started, started),
    );
    const j = plan("MAEU900100");
    expect(first).toEqual({ kind: "found", shipment: journeyAt(j, started).facts });
    const later = ANCHOR + 40 * MINUTE;
    const again = await carrier.lookup(
      { requestType: "bill_of_lading", number: "MAEU900100", scac: "MAEU" },
      ctx(later, started),
    );
    expect(again).toEqual({ kind: "found", shipment: journeyAt(j, later).facts });
    expect(again).not.toEqual(first);
    // Without a tracking start the journey is anchored on now: always at its beginning.
    const unanchored = await carrier.lookup(
      { requestType: "bill_of_lading", number: "MAEU900100", scac: "MAEU" },
      ctx(later),
    );
    expect(unanchored).toEqual({
      kind: "found",
      shipment: journeyAt(plan("MAEU900100", "MAEU", "bill_of_lading", 1, later), later).facts,
    });
  });

  it("does not find a container number with a bad check digit, or a SCAC it does not simulate", async () => {
    const good = withCheckDigit("MSKU300200");
    const bad = `${good.slice(0, 10)}${(Number(good[10]) + 1) % 10}`;
    expect((await carrier.lookup({ requestType: "container", number: good, scac: "MAEU" }, ctx(ANCHOR))).kind).toBe(
      "found",
    );
    expect(await carrier.lookup({ requestType: "container", number: bad, scac: "MAEU" }, ctx(ANCHOR))).toEqual({
      kind: "not_found",
    });
    expect(await carrier.lookup({ requestType: "bill_of_lading", number: "X1", scac: "TEST" }, ctx(ANCHOR))).toEqual({
      kind: "not_found",
    });
  });

  it("answers terminal polls for a BL's boxes with the BL's journey", async () => {
    const j = find((x) => !x.inland && x.containers.length > 1);
    const c = j.containers[1] as JourneyContainer;
    expect(terminal.supports(j.podTerminal.code, j.scac)).toBe(true);
    expect(terminal.supports(j.podTerminal.code, "TEST")).toBe(false);
    expect(terminal.supports("ZZZZ", j.scac)).toBe(false);
    const query = { containerNumber: c.number, facilityCode: j.podTerminal.code, scac: j.scac };
    expect(await terminal.poll(query, ctx(at(j, c.vesselDischargedDay - 0.1), ANCHOR))).toEqual({ kind: "not_found" });
    const now = at(j, c.availableDay + 0.05);
    const polled = await terminal.poll(query, ctx(now, ANCHOR));
    expect(polled).toEqual({ kind: "found", observation: journeyAt(j, now).terminals[1] });
    expect(polled.kind === "found" && polled.observation.availableForPickup).toBe(true);
    // Another facility, or the sandbox SCAC, is not this box's.
    const elsewhere = simulatedFacilityCodes().find((code) => code !== j.podTerminal.code) ?? "";
    expect(await terminal.poll({ ...query, facilityCode: elsewhere }, ctx(now, ANCHOR))).toEqual({ kind: "not_found" });
    expect(await terminal.poll({ ...query, scac: "TEST" }, ctx(now, ANCHOR))).toEqual({ kind: "not_found" });
  });

  it("tells the same story for a box tracked by its container number and by its BL", () => {
    const j = find((x) => x.containers.length === 3);
    for (const [i, c] of j.containers.entries()) {
      const byNumber = plan(c.number, j.scac, "container");
      expect(byNumber.containers).toEqual([c]);
      for (const d of [0, 10, 20, 30]) {
        const bl = journeyAt(j, at(j, d));
        const box = journeyAt(byNumber, at(byNumber, d));
        expect(box.facts.containers[0]).toEqual(bl.facts.containers[i]);
        expect(box.terminal).toEqual(bl.terminals[i]);
      }
    }
  });
});
