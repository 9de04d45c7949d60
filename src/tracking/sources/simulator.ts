import { CONTAINER_NUMBER_PATTERN, hasValidCheckDigit } from "../../infer/iso6346";
import { allShippingLines, SANDBOX_SCAC } from "../../reference/shipping-lines";
import { planJourney } from "../simulator/plan";
import { inlandRampCodes, simulatedPodTerminalCodes } from "../simulator/planner-data";
import { journeyAt, terminalAt } from "../simulator/state";
import type { Journey } from "../simulator/types";
import type {
  CarrierSource,
  LookupRequest,
  LookupResult,
  SourceContext,
  TerminalPollResult,
  TerminalSource,
} from "./types";

/** Every SCAC the simulator plays journeys for: lines with `tracking_supported = yes`, except the sandbox's `TEST`. */
export const SIMULATED_SCACS: readonly string[] = allShippingLines()
  .filter((l) => l.trackingSupported && l.scac !== SANDBOX_SCAC)
  .map((l) => l.scac);

let facilityCodes: readonly string[] | undefined;

/**
 * Facility codes the simulated terminal answers for: POD terminals' FIRMS codes and the simulated ramp codes. Drawn
 * from the planner's tables on first use (src/tracking/simulator/planner-data.ts), not at module load.
 */
export function simulatedFacilityCodes(): readonly string[] {
  facilityCodes ??= [...simulatedPodTerminalCodes(), ...inlandRampCodes()];
  return facilityCodes;
}

/** Default `SIMULATION_SPEED`: one simulated day per real minute (docs/architecture.md §Sources). */
export const DEFAULT_SIMULATION_SPEED = 1;

/**
 * Reads `SIMULATION_SPEED` (simulated days per real minute): unset or blank → 1; `1440` plays a day a second,
 * `0.000694` about real time.
 * @throws RangeError when the value is not a positive finite number, so a misconfiguration fails loudly.
 */
export function parseSimulationSpeed(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return DEFAULT_SIMULATION_SPEED;
  const speed = Number(raw);
  if (!Number.isFinite(speed) || speed <= 0) {
    throw new RangeError(`SIMULATION_SPEED must be a positive number of simulated days per real minute, got ${raw}`);
  }
  return speed;
}

/** Options of `createSimulatorSource`. */
export interface SimulatorOptions {
  /** Simulated days per real minute (> 0); see `parseSimulationSpeed`. */
  speed: number;
  /**
   * When a number's journey starts, ms since the Unix epoch. Default: `ctx.trackingStartedAtMs`, else `ctx.nowMs`
   * (which restarts the journey on every call: the engine must pass when tracking started).
   */
  anchorFor?: (query: { scac: string; number: string }, ctx: SourceContext) => number;
  /**
   * Called with the journey of each successful carrier lookup and its time, before the lookup answers: the hook for
   * the simulator's vessel positions (`recordSimulatedPositions`, src/tracking/simulator/vessel-positions.ts).
   * A failure here is the hook's own: it is caught and does not fail the lookup.
   */
  onJourney?: (journey: Journey, nowMs: number) => Promise<unknown>;
}

/** The simulator's two faces: the shipping line and the terminals (or inland ramps) its boxes reach. */
export interface SimulatorSources {
  carrier: CarrierSource;
  terminal: TerminalSource;
}

const simulatedScacs = new Set(SIMULATED_SCACS);
let simulatedFacilitySet: ReadonlySet<string> | undefined;
/** {@link simulatedFacilityCodes} as a set, built on first use. */
function simulatedFacilities(): ReadonlySet<string> {
  simulatedFacilitySet ??= new Set(simulatedFacilityCodes());
  return simulatedFacilitySet;
}

function isTrackableContainer(number: string): boolean {
  return CONTAINER_NUMBER_PATTERN.test(number) && hasValidCheckDigit(number);
}

/**
 * The simulator source, the local-development default (docs/architecture.md §Sources): every SCAC in `SIMULATED_SCACS`
 * gets a deterministic journey derived from the number (`planJourney`), anchored when tracking started and played
 * at `speed`. The carrier finds every BL and booking number, and every container number with a valid ISO 6346
 * check digit (others are `not_found`); it reports the journey's facts at `ctx.nowMs`. The terminal answers for
 * the simulated facilities (`simulatedFacilityCodes()`) with the box's observation, `not_found` before the box
 * reaches the facility or for a box that never goes there. Neither uses the network.
 * @throws RangeError when `speed` is not a positive number.
 */
export function createSimulatorSource(options: SimulatorOptions): SimulatorSources {
  const { speed } = options;
  if (!Number.isFinite(speed) || speed <= 0) throw new RangeError(`simulator: speed must be > 0, got ${speed}`);
  const anchorFor = options.anchorFor ?? ((_query, ctx) => ctx.trackingStartedAtMs ?? ctx.nowMs);
  const journeyOf = (scac: string, number: string, requestType: string, ctx: SourceContext): Journey =>
    planJourney({ scac, number, requestType, speed, anchorMs: anchorFor({ scac, number }, ctx) });

  const carrier: CarrierSource = {
    name: "Shipping line",
    supports: (scac) => simulatedScacs.has(scac.toUpperCase()),
    async lookup(request: LookupRequest, ctx: SourceContext): Promise<LookupResult> {
      const scac = request.scac.toUpperCase();
      if (!simulatedScacs.has(scac)) return { kind: "not_found" };
      if (request.requestType === "container" && !isTrackableContainer(request.number)) return { kind: "not_found" };
      const journey = journeyOf(scac, request.number, request.requestType, ctx);
      if (options.onJourney) await options.onJourney(journey, ctx.nowMs).catch(() => undefined);
      return { kind: "found", shipment: journeyAt(journey, ctx.nowMs).facts };
    },
  };

  const terminal: TerminalSource = {
    name: "Terminal",
    supports: (facilityCode, scac) =>
      simulatedScacs.has(scac.toUpperCase()) && simulatedFacilities().has(facilityCode.toUpperCase()),
    async poll(query, ctx): Promise<TerminalPollResult> {
      const scac = query.scac.toUpperCase();
      if (!simulatedScacs.has(scac) || !isTrackableContainer(query.containerNumber)) return { kind: "not_found" };
      // A box's number names its journey (see `journeyIdentity`), so the poll replays the lookup's journey.
      const journey = journeyOf(scac, query.containerNumber, "container", ctx);
      const observation = terminalAt(journey, query.containerNumber, query.facilityCode, ctx.nowMs);
      return observation ? { kind: "found", observation } : { kind: "not_found" };
    },
  };

  return { carrier, terminal };
}
